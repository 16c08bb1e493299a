"""Custom variants (YAML and Python), the custom six-ball game, and the PettingZoo env."""

import warnings
from pathlib import Path

import gymnasium as gym
import pytest
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


def test_pettingzoo_api_test_passes():
    from pettingzoo.test import api_test

    from poolgym.envs.aec import PoolAECEnv

    api_test(PoolAECEnv(), num_cycles=150)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test recommends Box spaces for the dict obs
        api_test(PoolAECEnv(game="ten_ball", action_mode="raw", obs_mode="flat"), num_cycles=150)


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
