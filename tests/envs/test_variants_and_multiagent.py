"""Custom variants (YAML and Python), the custom six-ball game, and the PettingZoo env."""

import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

import poolgym
from poolgym.rules import check_ruleset, get_ruleset

VARIANTS = Path(__file__).resolve().parents[2] / "configs" / "variants"


def test_every_shipped_yaml_variant_registers_and_passes_check_env():
    ids = poolgym.register_directory(VARIANTS, trusted=True)  # six_ball.yaml imports its game
    assert len(ids) >= 4
    for env_id in ids:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(gym.make(env_id).unwrapped, skip_render_check=True)


def test_yaml_variant_options_reach_the_env():
    env_id = poolgym.register_from_yaml(VARIANTS / "ten_ball_ten_spotted_on_break.yaml")
    env = gym.make(env_id).unwrapped
    assert env.rules.options.ten_ball_break_ten_wins is False
    bar = gym.make(poolgym.register_from_yaml(VARIANTS / "nine_ball_bar_table.yaml")).unwrapped
    assert (bar.table.length, bar.table.width) == (1.98, 0.99)


def test_six_ball_from_outside_the_package_passes_the_rules_checker_and_check_env():
    from examples.six_ball import SixBall

    env_id = poolgym.register_variant("examples/SixBallPython-v0", game=SixBall, table="7ft",
                                      action_mode="aim", reward={"rack_won": 5.0})
    report = check_ruleset(get_ruleset("six_ball"), n_games=500, seed=3)
    assert report.games == 500 and sum(report.wins.values()) + report.stalemates == 500
    env = gym.make(env_id)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert obs["balls"].reshape(16, 3)[1:7, 2].sum() == 6 and obs["balls"].reshape(16, 3)[7:, 2].sum() == 0


def test_six_ball_yaml_registers_from_any_working_directory(tmp_path, monkeypatch):
    """The YAML names its game by a file path relative to itself: it registers from a
    temporary directory, with the repository off ``sys.path`` (``examples`` not importable)."""
    import importlib.util
    import sys

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path
                                      if not (Path(p or ".").resolve() / "examples").is_dir()])
    monkeypatch.delitem(sys.modules, "examples", raising=False)
    monkeypatch.delitem(sys.modules, "examples.six_ball", raising=False)
    assert importlib.util.find_spec("examples") is None
    with pytest.raises(ValueError, match="key 'game' is an import path"):  # a file runs code too
        poolgym.register_from_yaml(VARIANTS / "six_ball.yaml")
    env_id = poolgym.register_from_yaml(VARIANTS / "six_ball.yaml", trusted=True)
    env = gym.make(env_id).unwrapped
    assert env.rules.name == "six_ball"
    assert any(name.startswith("_poolgym_file_six_ball_") for name in sys.modules)  # loaded from its file
    obs, _ = env.reset(seed=0)
    assert obs["balls"].reshape(16, 3)[1:7, 2].sum() == 6
    # A relative path to a file that is not there names the resolved path.
    bad = tmp_path / "sub" / "bad.yaml"
    bad.parent.mkdir()
    bad.write_text("id: a/Bad-v0\ngame: ../nope.py:Game\n")
    with pytest.raises(ValueError, match=f"cannot import game .*no file '{tmp_path / 'nope.py'}'"):
        poolgym.register_from_yaml(bad, trusted=True)


def test_a_custom_variant_trains_with_stable_baselines3(tmp_path):
    from stable_baselines3 import PPO

    env_id = poolgym.register_from_yaml(VARIANTS / "six_ball.yaml", trusted=True)
    env = gym.make(env_id, obs_mode="flat")
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    model.save(tmp_path / "six")
    loaded = PPO.load(tmp_path / "six", device="cpu")
    obs, _ = env.reset(seed=1)
    action, _ = loaded.predict(obs, deterministic=True)
    assert env.action_space.contains(action)


@pytest.mark.parametrize("text, message", [
    ("id: a/B-v0\ngame: nine_ball\ncolour: red\n", "unknown key 'colour'"),
    ("id: a/B-v0\ngame: nine_ball\nrace_to: two\n", "key 'race_to' must be int"),
    ("game: nine_ball\n", "missing key 'id'"),
    ("id: a/B-v0\ngame: snooker\n", "unknown game 'snooker'"),
    ("id: a/B-v0\ngame: nine_ball\nrules_options: {ten_ball_wins: true}\n", "unknown rule options"),
    ("id: a/B-v0\ngame: nine_ball\nreward: {pots: 1}\n", "unknown reward terms"),
    ("id: a/B-v0\ngame: nine_ball\ntable: {preset: 6ft}\n", "table preset"),
    ("- not a mapping\n", "a variant is a mapping"),
    ("id: [unclosed\n", "cannot read"),
])
def test_bad_variant_files_name_the_key_and_the_file(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        poolgym.register_from_yaml(path)
    assert str(path) in str(err.value)


# The advice PettingZoo's api_test gives every env whose observation is a dict or whose action
# space is a MultiDiscrete, whatever it holds (it exempts its own classic envs by name).
DICT_OBSERVATION_ADVICE = ("Observation is not a NumPy array",
                           "Observation space for each agent probably should be gymnasium.spaces.box")
MULTI_DISCRETE_ADVICE = ("Action space for each agent probably should be gymnasium.spaces.box",)


def strict_api_test(env, num_cycles: int) -> None:
    """``api_test`` with every warning an error, but the space-type advice above where the
    env's spaces draw it."""
    import re

    from gymnasium import spaces
    from pettingzoo.test import api_test

    agent = env.possible_agents[0]
    allowed = ((DICT_OBSERVATION_ADVICE if isinstance(env.observation_space(agent), spaces.Dict) else ())
               + (MULTI_DISCRETE_ADVICE if isinstance(env.action_space(agent), spaces.MultiDiscrete) else ()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for message in allowed:
            warnings.filterwarnings("ignore", message=re.escape(message))
        api_test(env, num_cycles=num_cycles)


@pytest.mark.parametrize("factory", ["env", "raw_env"])
@pytest.mark.parametrize("obs_mode", ["dict", "flat"])
@pytest.mark.parametrize("action_mode", ["aim", "raw", "choice", "choice_discrete"])
def test_pettingzoo_api_test_passes_with_warnings_as_errors(action_mode, obs_mode, factory):
    from poolgym.envs import aec

    env = getattr(aec, factory)(game="ten_ball" if action_mode == "raw" else "nine_ball",
                                action_mode=action_mode, obs_mode=obs_mode)
    strict_api_test(env, num_cycles=40 if action_mode == "aim" and obs_mode == "dict" else 15)


def test_box_modes_with_flat_observations_draw_no_warning_at_all():
    from gymnasium import spaces
    from pettingzoo.test import api_test

    from poolgym.envs import aec

    for mode in ("aim", "raw", "choice"):
        env = aec.env(action_mode=mode, obs_mode="flat")
        assert isinstance(env.observation_space("player_0"), spaces.Box)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            api_test(env, num_cycles=10)
        assert [str(w.message) for w in caught] == []


def test_strict_api_test_fails_on_any_other_warning():
    """The test above can fail: a NaN in the observation is one of api_test's warnings."""
    from poolgym.envs import aec

    class NaNSeen(aec.PoolAECEnv):
        def observe(self, agent):
            obs = super().observe(agent)
            obs["observation"][0] = np.nan
            return obs

    with pytest.raises(UserWarning, match="Observation contains NaNs"):
        strict_api_test(NaNSeen(action_mode="choice_discrete", obs_mode="flat"), num_cycles=2)


def test_factories_follow_the_classic_envs():
    from gymnasium import spaces
    from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

    from poolgym.envs import aec

    assert aec.raw_env is aec.PoolAECEnv
    boxed = aec.env(action_mode="aim")
    assert isinstance(boxed, OrderEnforcingWrapper) and type(boxed.env) is aec.PoolAECEnv
    discrete = aec.env(game="eight_ball", action_mode="choice_discrete", obs_mode="flat")
    assert isinstance(discrete, OrderEnforcingWrapper) and isinstance(discrete.env, AssertOutOfBoundsWrapper)
    assert discrete.unwrapped.rules.name == "eight_ball"
    space = discrete.observation_space("player_1")
    assert set(space.spaces) == {"observation", "action_mask"}
    assert space["action_mask"].shape == (int(discrete.unwrapped.mapper.nvec.sum()),)
    discrete.reset(seed=1)
    obs, *_ = discrete.last()
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].ndim == 1
    assert np.array_equal(obs["action_mask"], discrete.unwrapped.action_masks().astype(np.int8))
    assert isinstance(obs["observation"], np.ndarray) and space["observation"].contains(obs["observation"])
    # The flat mask samples only legal values, dimension by dimension.
    action = discrete.action_space(discrete.agent_selection).sample(obs["action_mask"])
    offsets = np.concatenate([[0], np.cumsum(discrete.unwrapped.mapper.nvec)[:-1]])
    assert all(obs["action_mask"][offsets + action] == 1)
    with pytest.raises(ValueError, match="a flat action mask has"):
        discrete.action_space("player_0").sample(obs["action_mask"][:-1])
    with pytest.raises(AssertionError, match="not in action space"):
        discrete.step(discrete.unwrapped.mapper.nvec)  # one past the end of every dimension
    assert isinstance(aec.env(action_mode="choice").observation_space("player_0"), spaces.Dict)


@pytest.mark.parametrize("factory, error, message", [
    ("env", AssertionError, "reset\\(\\) needs to be called before step"),
    ("raw_env", ResetNeeded, "call reset\\(\\) before step\\(\\)"),
])
def test_step_before_reset_is_a_clear_error(factory, error, message):
    from poolgym.envs import aec

    env = getattr(aec, factory)(action_mode="raw")
    with pytest.raises(error, match=message):
        env.step(np.zeros(env.action_space("player_0").shape, dtype=np.float32))
    env.reset(seed=0)
    env.step(np.zeros(env.action_space("player_0").shape, dtype=np.float32))  # then it plays


def test_pettingzoo_shooter_keeps_the_table_after_a_legal_pot():
    from poolgym.envs.aec import PoolAECEnv
    from poolgym.rules import CueBallZone, GameState

    from .helpers import raw_action, straight_in

    env = PoolAECEnv(action_mode="raw")
    env.reset(seed=0)
    cb, ob, angle = straight_in(env.table)
    env.state = GameState(game="nine_ball", balls={0: cb, 1: ob, 9: (0.5, 0.9)}, awaiting_break=False,
                          cue_ball_in_hand=CueBallZone.NONE)
    env.step(raw_action(env.mapper, angle, 2.0, vertical=-0.3))
    assert env.agent_selection == "player_0" and env.rewards["player_0"] == 1.0
    env.step(raw_action(env.mapper, 180.0, 0.4))  # a soft miss: foul
    assert env.agent_selection == "player_1"
    assert env.infos["player_1"]["target_mask"][9] == 1
    assert env.rewards["player_1"] > 0 > env.rewards["player_0"]


@pytest.mark.parametrize("game", ["nine_ball", "eight_ball", "ten_ball", "straight_pool"])
def test_versioned_two_player_envs_have_the_v1_protocol_and_their_own_names(game):
    import importlib

    from poolgym.envs import BUILTIN_IDS
    from poolgym.racking import RackModel

    module = importlib.import_module(f"poolgym.envs.aec.{game}_v1")
    env = module.env()
    assert env.metadata["name"] == f"{game}_v1" and env.unwrapped.metadata["name"] == f"{game}_v1"
    raw = module.raw_env(action_mode="raw")
    assert raw.rules.name == game and raw.metadata["name"] == f"{game}_v1"
    # The same protocol as the registered single-agent id of the same game and version.
    single = gym.make(next(i for i, (_, kw, _) in BUILTIN_IDS.items() if i.endswith("-v1") and
                           kw.get("game") == game and kw.get("opponent") != "solo"), action_mode="raw").unwrapped
    assert raw.simulator.noise == single.simulator.noise and raw.simulator.noise.angle_deg > 0
    assert raw.rack_model == single.rack_model == RackModel.make("benchmark")
    assert raw.mapper.space == single.mapper.space and raw.mapper.max_speed == single.mapper.max_speed == 12.0
    assert raw.breaker_mode == "random" and raw.observe_match and "match" in raw.observation_space("player_0").spaces
    # The unversioned factory keeps v0's defaults and name.
    from poolgym.envs import aec
    assert aec.env().metadata["name"] == "poolgym_v0" and aec.raw_env().simulator.noise.angle_deg == 0


def test_the_v1_two_player_env_plays_a_race_with_the_breaker_drawn_and_passes_api_and_seed_tests():
    from pettingzoo.test import seed_test

    from poolgym.envs.aec import nine_ball_v1

    strict_api_test(nine_ball_v1.env(action_mode="choice_discrete", obs_mode="flat", race_to=2), num_cycles=15)
    seed_test(lambda: nine_ball_v1.env(action_mode="raw", obs_mode="flat", race_to=2), num_cycles=15)
    breakers = set()
    for seed in range(12):
        env = nine_ball_v1.raw_env(action_mode="raw", obs_mode="flat", race_to=1)
        env.reset(seed=seed)
        breakers.add(env.agent_selection)
    assert breakers == {"player_0", "player_1"}  # drawn from the seed
    env = nine_ball_v1.raw_env(action_mode="raw", race_to=3, rack_model="tight", breaker="player_1")
    env.reset(seed=3)
    assert env.agent_selection == "player_1"
    scores = set()
    for agent in env.agent_iter(3000):
        obs, _, terminated, truncated, info = env.last()
        scores.add(tuple(np.round(obs["match"] * 3).astype(int)))
        env.step(None if terminated or truncated else env.action_space(agent).sample())
    assert max(env.racks_won) == 3 and not env.agents  # the match ended at three racks
    # The match score is observed from each player's side as the racks are won.
    assert {(0, 0), (1, 0), (0, 1)} <= scores and max(max(s) for s in scores) == 3


@pytest.mark.parametrize("bad, message", [
    (dict(breaker="agent"), "breaker must be one of \\['player_0', 'player_1', 'random', 'alternate'\\]"),
    (dict(race_to=0), "race_to must be a whole number of racks >= 1"),
    (dict(race_to=2.5), "race_to must be an integer"),
    (dict(observe_match="yes"), "observe_match must be True or False"),
])
def test_bad_match_arguments_of_the_two_player_env_name_the_argument(bad, message):
    from poolgym.envs.aec import nine_ball_v1

    with pytest.raises(ValueError, match=message):
        nine_ball_v1.raw_env(**bad)


def test_unknown_agents_are_a_clear_error_naming_the_agents():
    from poolgym.envs import aec

    env = aec.raw_env(action_mode="choice_discrete")
    env.reset(seed=0)
    for call in (lambda: env.observe("player_7"), lambda: env.action_masks("nobody"),
                 lambda: env.action_space("player_2"), lambda: env.observation_space("x")):
        with pytest.raises(ValueError, match=r"unknown agent .*: the agents are \['player_0', 'player_1'\]"):
            call()
    assert env.action_masks("player_1").shape == env.action_masks().shape  # the real agents still answer
