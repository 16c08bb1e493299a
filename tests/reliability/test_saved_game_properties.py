"""Every recording the library can write loads and replays bit for bit: a property test over
action modes, their options, games, opponents and seeds, and the reproductions of issue 29
(recordings that could not be read back)."""

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolgym.agents.tools.soak import random_action
from poolgym.envs.pool_env import PoolEnv
from poolgym.saved_game import RecordGame, load, replay

from .test_saved_games import DATA

GAMES = ("nine_ball", "eight_ball", "ten_ball", "straight_pool")
MODES = ("raw", "aim", "choice", "choice_discrete")
# PoolEnv's defaults of the options version 4 records.
DEFAULTS = {"max_cut_deg": 5.0, "pot_residual": "stroke", "elevation": False, "ruleset_kwargs": {}}


def record(path, steps, seed, action_seed=0, options=None, **kwargs):
    """Play ``steps`` random steps of a ``PoolEnv`` made with ``kwargs``, reset with ``seed``
    and ``options``, recorded; save to ``path``; the recording."""
    env = RecordGame(gym.wrappers.OrderEnforcing(PoolEnv(**kwargs)))
    env.reset(seed=seed, options=options)
    rng = np.random.default_rng(action_seed)
    for _ in range(steps):
        *_, terminated, truncated, _ = env.step(random_action(env, rng))
        if terminated or truncated:
            break
    env.save(path)
    return env.saved_game


def _round_trip(path, saved):
    loaded = load(path)
    assert loaded == saved
    steps = replay(loaded)  # ReplayMismatch on any difference of shot, outcome or state
    assert [(s.player, s.shot, s.outcome, s.state) for s in steps] == [
        (m.player, m.shot, m.outcome, m.state) for m in saved.moves]


@st.composite
def recordings(draw):
    """An env's arguments, a seed, reset options, a number of steps and an action seed."""
    game = draw(st.sampled_from(GAMES))
    kwargs = dict(game=game, action_mode=draw(st.sampled_from(MODES)), elevation=draw(st.booleans()),
                  max_cut_deg=draw(st.sampled_from([0.0, 5.0, 20.0])),
                  pot_residual=draw(st.sampled_from(["stroke", "object_ball"])),
                  noise=draw(st.sampled_from(["none", "tournament"])),
                  opponent=draw(st.sampled_from(["legal-random", "uniform-action", "solo"])),
                  breaker=draw(st.sampled_from(["agent", "opponent", "random"])),
                  rack_model=draw(st.sampled_from(["tight", "benchmark"])),
                  race_to=draw(st.integers(1, 2)))
    if game == "straight_pool":
        kwargs["ruleset_kwargs"] = {"target_score": draw(st.integers(1, 4))}
    seed = draw(st.one_of(st.none(), st.integers(0, 2**32), st.just(2**128),
                          st.integers(2**128, 2**4096 - 1)))
    options = draw(st.sampled_from([None, {"breaker": 0}, {"breaker": 1}]))
    return kwargs, seed, options, draw(st.integers(1, 4)), draw(st.integers(0, 1000))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(recordings())
def test_any_recording_saves_loads_and_replays_bit_for_bit(tmp_path, case):
    kwargs, seed, options, steps, action_seed = case
    path = tmp_path / "game.json"
    _round_trip(path, record(path, steps, seed, action_seed, options, **kwargs))


@pytest.mark.parametrize("kwargs", [
    dict(action_mode="choice_discrete"),  # bin indices were checked as numbers in [-1, 1]
    dict(action_mode="choice_discrete", elevation=True),
    dict(action_mode="aim", max_cut_deg=20.0),  # the config had no max_cut_deg
    dict(action_mode="choice", pot_residual="object_ball"),  # nor pot_residual
    dict(game="straight_pool", ruleset_kwargs={"target_score": 3}),  # nor ruleset_kwargs
    dict(action_mode="raw", elevation=True),  # nor elevation
], ids=["choice_discrete", "choice_discrete+elevation", "aim+max_cut_deg", "choice+object_ball",
        "straight_pool+target_score", "raw+elevation"])
def test_the_recordings_that_could_not_be_read_back_replay(tmp_path, kwargs):
    path = tmp_path / "game.json"
    saved = record(path, 4, 3, noise="tournament", **kwargs)
    config = load(path).config
    for key in ("max_cut_deg", "pot_residual", "elevation", "ruleset_kwargs"):
        assert config[key] == kwargs.get(key, DEFAULTS[key])
    _round_trip(path, saved)


@pytest.mark.parametrize("seed", [2**128, 2**4096 - 1], ids=["2**128", "2**4096-1"])
def test_any_seed_reset_takes_is_recorded(tmp_path, seed):
    path = tmp_path / "game.json"
    saved = record(path, 2, seed)
    assert load(path).seed == seed
    _round_trip(path, saved)


@pytest.mark.parametrize("seed, name", [(True, "bool True"), (np.int64(3), r"int64 np.int64\(3\)"), (-1, "int -1"),
                                        (2**4096, "int an integer of about 1234 digits")], ids=["True", "int64", "-1", "2**4096"])
def test_a_seed_that_cannot_be_recorded_is_refused_at_reset(seed, name):
    env = RecordGame(gym.make("poolgym/NineBall-v1"))
    env.reset(seed=1)
    before = env.unwrapped.state
    with pytest.raises(ValueError, match=rf"seed must be None or a whole number \(a Python int\) in \[0, 2\*\*4096\) "
                                         rf"to be recorded, got {name}"):
        env.reset(seed=seed)
    assert env.unwrapped.state == before and env.saved_game.seed == 1


def test_an_env_whose_rules_cannot_be_recorded_is_refused_when_wrapped():
    from poolgym.rules import get_ruleset

    with pytest.raises(ValueError, match=r"a game built from a Ruleset object \(ruleset=...\) cannot be recorded"):
        RecordGame(PoolEnv(ruleset=get_ruleset("nine_ball")))
    from poolgym.rules import available_rulesets, register_ruleset
    from poolgym.rules.nine_ball import NineBall

    def marked(options=None, table=None, marks=()):
        """A ruleset whose argument JSON cannot write back as given (a tuple)."""
        return NineBall(options=options, table=table)

    if "nine_ball_marked" not in available_rulesets():
        register_ruleset("nine_ball_marked", marked)
    with pytest.raises(ValueError, match=r"ruleset_kwargs \{'marks': \('a',\)\} cannot be recorded: a saved game "
                                         "takes only JSON values"):
        RecordGame(PoolEnv(game="nine_ball_marked", ruleset_kwargs={"marks": ("a",)}))


def test_a_version_3_choice_discrete_recording_loads_and_replays():
    """Written by poolgym before version 4 (whose loader refused its bin indices): it loads
    with the version-4 options at the defaults it was played with, and replays exactly."""
    path = DATA / "nine_ball_choice_discrete_v3.json"
    saved = load(path)
    assert saved.config["action_mode"] == "choice_discrete" and len(saved.moves) == 13
    assert {k: saved.config[k] for k in ("max_cut_deg", "elevation", "pot_residual", "ruleset_kwargs")} == {
        "max_cut_deg": 5.0, "elevation": False, "pot_residual": "stroke", "ruleset_kwargs": {}}
    steps = replay(saved)
    assert [s.state for s in steps] == [m.state for m in saved.moves]


@pytest.mark.parametrize("key, value, message", [
    ("elevation", "yes", r"config.elevation must be true or false, got 'yes'"),
    ("ruleset_kwargs", [3], r"config.ruleset_kwargs must be an object, got \[3\]"),
    ("max_cut_deg", 99, r"config: max_cut_deg must be in \[0, "),
    ("pot_residual", "ghost", r"config: pot_residual must be"),
    ("ruleset_kwargs", {"target_score": 0}, r"config: the target score must be a whole number of points >= 1"),
    ("max_cut_deg", None, r"config is missing keys \['max_cut_deg'\]"),
])
def test_a_bad_version_4_config_entry_is_named(tmp_path, key, value, message):
    import json

    from poolgym.saved_game import SavedGameError

    path = tmp_path / "game.json"
    record(path, 1, 0, game="straight_pool", ruleset_kwargs={"target_score": 3})
    data = json.loads(path.read_text())
    if value is None:
        del data["config"][key]
    else:
        data["config"][key] = value
    path.write_text(json.dumps(data))
    with pytest.raises(SavedGameError, match=rf"{path}: {message}"):
        load(path)


ALL_MODES = MODES + ("choice_canonical",)


@pytest.mark.parametrize("lookahead", [False, True], ids=["", "lookahead"])
@pytest.mark.parametrize("mode", ALL_MODES)
@pytest.mark.parametrize("game", GAMES)
def test_every_action_mode_of_every_game_records_loads_and_replays(tmp_path, game, mode, lookahead):
    """Every mode x game, with the lookahead observation where the mode has it (the choice
    modes): a choice_canonical recording saved but did not load (its Discrete space has no
    length)."""
    if lookahead and mode not in ("choice", "choice_discrete", "choice_canonical"):
        pytest.skip("the lookahead observation belongs to the choice modes")
    path = tmp_path / "game.json"
    saved = record(path, 4, 11, action_seed=5, game=game, action_mode=mode, lookahead=lookahead,
                   lookahead_samples=1, opponent="legal-random", noise="tournament")
    assert saved.config["action_mode"] == mode and saved.moves
    _round_trip(path, saved)
