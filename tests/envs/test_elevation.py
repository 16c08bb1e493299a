"""The elevated cue in the envs: ``elevation=True`` adds one action component, off by default."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import poolgym
from poolgym.envs import PoolEnv, PotBallEnv, aec
from poolgym.envs.actions import ActionMapper, ShotMove
from poolgym.envs.choice import ChoiceMapper
from poolgym.envs.sb3_models import action_mapper, check_env_matches, env_side
from poolgym.physics import Shot
from poolgym.rules import ShotCall, get_ruleset
from poolgym.table import Table

# The action spaces every env had before the elevated cue, written out: they must not move.
DEFAULT_SPACES = {
    "raw": spaces.Box(-1.0, 1.0, (8,), np.float32),
    "aim": spaces.Box(-1.0, 1.0, (10,), np.float32),
    "choice": spaces.Box(-1.0, 1.0, (27,), np.float32),
    "choice_discrete": spaces.MultiDiscrete([20, 11, 10, 5, 5, 5, 7, 11]),
}
ELEVATED_SPACES = {
    "raw": spaces.Box(-1.0, 1.0, (9,), np.float32),
    "aim": spaces.Box(-1.0, 1.0, (11,), np.float32),
    "choice": spaces.Box(-1.0, 1.0, (28,), np.float32),
    "choice_discrete": spaces.MultiDiscrete([20, 11, 10, 5, 5, 5, 7, 5, 11]),
}


@pytest.mark.parametrize("mode", list(DEFAULT_SPACES))
def test_default_action_spaces_are_unchanged(mode):
    assert PoolEnv(action_mode=mode).action_space == DEFAULT_SPACES[mode]
    assert PotBallEnv(action_mode=mode).action_space == DEFAULT_SPACES[mode]
    assert aec.raw_env(action_mode=mode).action_space("player_0") == DEFAULT_SPACES[mode]
    assert PoolEnv(action_mode=mode, elevation=True).action_space == ELEVATED_SPACES[mode]
    assert PotBallEnv(action_mode=mode, elevation=True).action_space == ELEVATED_SPACES[mode]
    assert aec.raw_env(action_mode=mode, elevation=True).action_space("player_0") == ELEVATED_SPACES[mode]


def test_registered_ids_keep_their_spaces_and_take_the_flag():
    for env_id, expected in (("poolgym/NineBall-v1", 8), ("poolgym/NineBallSolo-v1", 10), ("poolgym/PotBall-v1", 10)):
        assert gym.make(env_id).action_space.shape == (expected,)
        assert gym.make(env_id, elevation=True).action_space.shape == (expected + 1,)


@pytest.mark.parametrize("mode", ["raw", "aim"])
def test_elevation_component_maps_linearly_to_degrees(mode):
    mapper = ActionMapper(Table.preset("9ft"), mode, elevation=True)
    assert mapper.components[-1] == "elevation"
    state = get_ruleset("nine_ball").new_game(rng=np.random.default_rng(0))
    rules = get_ruleset("nine_ball")
    for value, degrees in ((-1.0, 0.0), (0.0, 40.0), (0.5, 60.0), (1.0, Shot.MAX_ELEVATION_DEG)):
        action = np.zeros(len(mapper.components))
        action[-1] = value
        move = mapper.decode(mapper.validate(action), state, rules)
        assert move.shot.elevation_deg == pytest.approx(degrees)


def test_raw_encode_round_trips_an_elevated_stroke_and_a_level_mapping_refuses_it():
    rules = get_ruleset("nine_ball")
    state = rules.new_game(rng=np.random.default_rng(0))
    move = ShotMove(ShotCall(), (0.5, 0.6), Shot(3.0, 10.0, 0.1, -0.2, 55.0))
    elevated = ActionMapper(rules.table, "raw", elevation=True)
    back = elevated.decode(elevated.encode(move, state, rules), state, rules)
    assert back.shot.elevation_deg == pytest.approx(55.0)
    assert back.shot.speed == pytest.approx(3.0) and back.shot.angle_deg == pytest.approx(10.0)
    with pytest.raises(ValueError, match="elevation_deg=55.0.*no elevation component"):
        ActionMapper(rules.table, "raw").encode(move, state, rules)
    level = ShotMove(ShotCall(), (0.5, 0.6), Shot(3.0, 10.0))
    assert ActionMapper(rules.table, "raw").decode(
        ActionMapper(rules.table, "raw").encode(level, state, rules), state, rules).shot.elevation_deg == 0.0


@pytest.mark.parametrize("mode", ["choice", "choice_discrete"])
def test_choice_modes_carry_the_elevation_parameter(mode):
    rules = get_ruleset("nine_ball")
    state = rules.new_game(rng=np.random.default_rng(3))
    mapper = ChoiceMapper(rules.table, mode, elevation=True)
    assert mapper.params[-2:] == ("elevation", "decision")
    slots = mapper.slots(state, rules)
    slot = next(s for s in slots if s is not None)
    move = mapper.play(slot, {"cut": 0.0, "speed": 0.0, "side": 0.0, "vertical": 0.0, "place_distance": 0.0,
                              "place_angle": 0.0, "elevation": 0.5, "decision": 0.0}, state)
    assert move.shot.elevation_deg == pytest.approx(60.0)  # a value on the discrete grid too
    back = mapper.decode(mapper.encode(move, state, rules), state, rules)
    assert back.shot.elevation_deg == pytest.approx(60.0)
    with pytest.raises(ValueError, match="no elevation component"):
        ChoiceMapper(rules.table, mode).encode(move, state, rules)
    if mode == "choice_discrete":
        assert len(mapper.action_masks(state, rules)) == int(mapper.nvec.sum())


def test_an_elevated_env_plays_the_elevation_the_action_asks_for():
    env = gym.make("poolgym/NineBall-v1", elevation=True)
    records = []
    env.unwrapped.move_listeners.append(records.append)
    env.reset(seed=4, options={"breaker": 0})
    action = np.zeros(9, dtype=np.float32)
    action[1] = 0.6  # a firm break
    action[-1] = -0.5  # 20 degrees
    env.step(action)
    mine = [r for r in records if r.player == 0]
    assert mine[0].move.shot.elevation_deg == pytest.approx(20.0)
    assert mine[0].result.shot.elevation_deg == pytest.approx(20.0)


def test_bad_elevation_flags_are_refused_naming_the_argument():
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match="elevation must be True or False"):
            PoolEnv(elevation=bad)
    with pytest.raises(ValueError, match="elevation must be True or False"):
        aec.raw_env(elevation="on")
    with pytest.raises(ValueError, match="elevation must be True or False"):
        PotBallEnv(elevation=0)


def test_variant_yaml_takes_elevation_and_names_a_bad_value(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text("id: test/ElevatedNine-v0\ngame: nine_ball\nelevation: true\n")
    env_id = poolgym.register_from_yaml(good)
    assert gym.make(env_id).action_space.shape == (9,)
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: test/ElevatedNineBad-v0\ngame: nine_ball\nelevation: 1\n")
    with pytest.raises(ValueError, match="key 'elevation' must be bool"):
        poolgym.register_from_yaml(bad)
    text = tmp_path / "text.yaml"
    text.write_text("id: test/ElevatedNineText-v0\ngame: nine_ball\nelevation: maybe\n")
    with pytest.raises(ValueError, match="key 'elevation' must be bool"):
        poolgym.register_from_yaml(text)
    # The integer keys still refuse a YAML bool.
    race = tmp_path / "race.yaml"
    race.write_text("id: test/ElevatedNineRace-v0\ngame: nine_ball\nrace_to: true\n")
    with pytest.raises(ValueError, match="key 'race_to' must be int"):
        poolgym.register_from_yaml(race)


def test_the_shipped_elevated_variant_registers():
    from poolgym.configs import config_path

    env_id = poolgym.register_from_yaml(config_path("variants/nine_ball_elevated.yaml"))
    assert gym.make(env_id).action_space.shape == (11,)


def test_model_records_carry_the_elevation():
    elevated, level = PoolEnv(action_mode="aim", elevation=True), PoolEnv(action_mode="aim")
    record = env_side(elevated)
    assert record["elevation"] is True
    assert action_mapper(record, elevated.table).space == elevated.action_space
    with pytest.raises(ValueError, match="elevation: model True, env False"):
        check_env_matches(record, level)
    old = {k: v for k, v in env_side(level).items() if k != "elevation"}  # written before the flag
    check_env_matches(old, level)


def test_pettingzoo_api_test_passes_with_the_elevated_cue():
    from pettingzoo.test import api_test

    api_test(aec.env(elevation=True, action_mode="raw", obs_mode="flat"), num_cycles=3)
