"""Bad input at every place a user types or passes something: a clear ValueError naming the
problem, and nothing changed. (Earlier layers' own cases live in tests/physics,
tests/rules and tests/envs; docs/bad_input.md lists them all.)"""

import math

import gymnasium as gym
import numpy as np
import pytest

import poolgym
from poolgym.envs import PoolEnv, PotBallEnv
from poolgym.physics import Noise, PhysicsParams, Shot, Simulator
from poolgym.rules import CueBallZone, GameState, RuleOptions, check_state, get_ruleset
from poolgym.table import Table

NINE = get_ruleset("nine_ball")


# ------------------------------------------------------------------------------ env actions
@pytest.mark.parametrize("action, message", [
    (np.array(["0.1"] * 8), "real dtype .* got dtype <U3"),
    (np.zeros(8, dtype=complex), "real dtype .* got dtype complex128"),
    (np.ones(8, dtype=bool), "real dtype .* got dtype bool"),
    ([None] * 8, "must be an array of 8 numbers"),
    ({"aim": 0.0}, "must be an array of 8 numbers"),
    (np.zeros((1, 8), dtype=np.float32), r"shape \(8,\) .* got shape \(1, 8\)"),
    (np.array([0.0] * 7 + [np.nan], dtype=np.float32), r"components \['call'\] are not finite"),
    (np.array([0.0, 2.0] + [0.0] * 6, dtype=np.float32), r"out of range: \{'speed': 2.0\}"),
])
def test_bad_actions_are_refused_and_the_state_is_untouched(action, message):
    env = gym.make("poolgym/NineBall-v0")
    env.reset(seed=0)
    before = env.unwrapped.state.to_json()
    with pytest.raises(ValueError, match=message):
        env.step(action)
    assert env.unwrapped.state.to_json() == before
    env.step(np.zeros(8, dtype=np.int64))  # integers are numbers: accepted


# ------------------------------------------------------------------------------ env arguments
@pytest.mark.parametrize("kwargs, message", [
    (dict(game="snooker"), "unknown ruleset 'snooker'"),
    (dict(table="6ft"), "unknown table preset '6ft'"),
    (dict(table=9), "unknown table preset 9"),
    (dict(noise="loud"), "unknown noise preset 'loud'"),
    (dict(noise={"aim": 0.1}), r"unknown noise fields \['aim'\]"),
    (dict(noise={"speed": "a lot"}), "Noise.speed must be a finite standard deviation"),
    (dict(noise=3), "noise must be a preset name"),
    (dict(max_speed="fast"), "speeds must satisfy"),
    (dict(max_speed=20.0), "speeds must satisfy"),
    (dict(race_to=True), "race_to must be a whole number"),
    (dict(race_to=0), "race_to must be a whole number"),
    (dict(action_mode="joystick"), "action_mode must be one of"),
    (dict(obs_mode="pixels"), "obs_mode must be 'dict' or 'flat'"),
    (dict(opponent="shark"), "opponent must be one of .*'legal-random'.*'shark': unknown agent"),
    (dict(rule_options={"ten_ball_wins": True}), r"unknown rule options \['ten_ball_wins'\]"),
    (dict(rule_options={"alternate_breaks": "yes"}), "RuleOptions.alternate_breaks must be a bool"),
    (dict(rule_options={"spotting_cue_ball_gap": "1 mm"}), "spotting_cue_ball_gap must be in"),
    (dict(reward_weights={"pots": 1.0}), r"unknown reward terms \['pots'\]"),
    (dict(reward_weights={"foul": math.nan}), "reward weight 'foul' must be a finite number"),
    (dict(render_mode="ascii"), "render_mode must be one of"),
])
def test_bad_game_env_arguments_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PoolEnv(**kwargs)


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_balls="x"), "n_balls must be an int or a"),
    (dict(n_balls=(1, 2, 3)), "n_balls must be an int or a"),
    (dict(n_balls=(4, 2)), "n_balls must be an int or a"),
    (dict(pot_reward="x"), "pot_reward must be a finite number"),
    (dict(scratch_penalty=math.inf), "scratch_penalty must be a finite number"),
])
def test_bad_practice_env_arguments_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PotBallEnv(**kwargs)


# ------------------------------------------------------------------------------ library objects
@pytest.mark.parametrize("build, message", [
    (lambda: Simulator("9ft"), "table must be a poolgym.table.Table"),
    (lambda: Simulator(params={"mu_slide": 0.2}), "params must be a PhysicsParams"),
    (lambda: Simulator(noise=0.1), "noise must be a preset name"),
    (lambda: Noise(speed=-0.1), "Noise.speed must be a finite standard deviation"),
    (lambda: Noise(angle_deg="wide"), "Noise.angle_deg must be a finite standard deviation"),
    (lambda: Table(name=9), "Table.name must be a string"),
    (lambda: Table(width="wide"), "Table.width must be a positive finite number"),
    (lambda: PhysicsParams(mu_roll=math.nan), "PhysicsParams.mu_roll"),
    (lambda: get_ruleset("nine_ball", options={"alternate_breaks": False}), "options must be a RuleOptions"),
    (lambda: get_ruleset("nine_ball", table="7ft"), "table must be a poolgym.table.Table"),
    (lambda: RuleOptions(spotting_cue_ball_gap=None), "spotting_cue_ball_gap must be in"),
    (lambda: RuleOptions.from_dict({"colour": 1}), r"unknown rule options \['colour'\]"),
])
def test_bad_library_arguments_name_the_argument(build, message):
    with pytest.raises(ValueError, match=message):
        build()


@pytest.mark.parametrize("shot, message", [
    (Shot(speed=1.0 + 2j), "Shot.speed must be a real number, got complex"),
    (Shot(speed=None), "Shot.speed must be a real number, got NoneType"),
    (Shot(speed=1.0, side=np.float32("nan")), "Shot.side must be finite"),
    (Shot(speed=True), "Shot.speed must be a real number, got bool"),
    ((2.0, 0.0), "shot must be a poolgym.physics.Shot, got tuple"),
])
def test_bad_shot_types_name_the_field(sim9, shot, message):
    layout = {0: (0.5, 0.6)}
    with pytest.raises(ValueError, match=message):
        sim9.simulate(layout, shot)
    assert layout == {0: (0.5, 0.6)}


@pytest.mark.parametrize("layout, message", [
    ({0: (0.5, 0.6), 1: (0.5, 0.6)}, "balls 0 and 1 overlap"),  # two balls on one spot
    ({0: (0.5, 0.6), True: (1.0, 0.6)}, "unknown ball True"),
    ({0: (0.5, 0.6), 2.0: (1.0, 0.6)}, "unknown ball 2.0"),
    ({0: "centre"}, r"layout\[0\] must be a pair of numbers"),
    ({0: (0.5, 0.6, 0.0)}, r"layout\[0\] must be a pair of numbers"),
    ({0: (-0.5, 0.6)}, "off the playing surface"),
])
def test_more_bad_layouts_name_the_ball(sim9, layout, message):
    with pytest.raises(ValueError, match=message):
        sim9.simulate(layout, Shot(speed=1.0))


@pytest.fixture(scope="module")
def sim9():
    return Simulator(Table.preset("9ft"))


# ------------------------------------------------------------------------------ game states
@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ('{"game": "nine_ball"}', "GameState field 'balls' is missing"),
    ('{"game": "nine_ball", "balls": [[1, 1.0]]}', "GameState field 'balls' must be a list of"),
    ('{"game": "nine_ball", "balls": [[1, 1.0, NaN]]}', "GameState field 'balls' must be a list of"),
    ('{"game": "nine_ball", "balls": [], "shooter": "0"}', "GameState field 'shooter' must be an integer"),
    ('{"game": "nine_ball", "balls": [], "cue_ball_in_hand": "pocket"}',
     "GameState field 'cue_ball_in_hand' must be one of"),
    ('{"game": "nine_ball", "balls": [], "consecutive_fouls": 3}', "'consecutive_fouls' must be two integers"),
    ('{"game": "nine_ball", "balls": [], "pending": {"kind": "snooker"}}', "'pending' is not a pending decision"),
    ('{"game": "nine_ball", "balls": [[1, 1.0, 1.0], [1, 2.0, 1.0]]}', "listed twice"),
    ('{"game": "nine_ball", "balls": [], "colour": "red"}', r"unknown GameState fields \['colour'\]"),
])
def test_corrupt_game_state_json_names_the_field(text, message):
    with pytest.raises(ValueError, match=message):
        GameState.from_json(text)


@pytest.mark.parametrize("balls, message", [
    ({0: (0.5, 0.6), 1: (1.9, 0.6), 42: (1.5, 0.6)}, "balls not conserved"),
    ({0: (0.5, 0.6), 1: (1.9, 0.6), 2: (1.91, 0.6)}, "balls 1 and 2 overlap"),
    ({0: (0.5, 0.6), 1: (3.9, 0.6)}, r"ball 1 at \(3.9, 0.6\) is off the table"),
])
def test_impossible_positions_are_named_by_check_state(balls, message):
    out = tuple(b for b in NINE.object_balls if b not in balls)
    state = GameState(game="nine_ball", balls=balls, out_of_play=out, awaiting_break=False,
                      cue_ball_in_hand=CueBallZone.NONE)
    with pytest.raises(ValueError, match=message):
        check_state(NINE, state)


# ------------------------------------------------------------------------------ variant files
@pytest.mark.parametrize("text, message", [
    ("id: a/B-v0\ngame: nine_ball\nrace_to: 1\nrace_to: 3\n", "key 'race_to' is given twice"),
    ("id: a/B-v0\ngame: nine_ball\ntable: {preset: 9ft, length: long}\n", "Table.length must be a positive"),
    ("id: a/B-v0\ngame: nine_ball\ntable: {colour: green}\n", r"unknown table fields \['colour'\]"),
    ("id: a/B-v0\ngame: nine_ball\nnoise: {aim: 0.1}\n", r"unknown noise fields \['aim'\]"),
    ("id: a/B-v0\ngame: nine_ball\nnoise: {speed: -1}\n", "Noise.speed must be a finite"),
    ("id: a/B-v0\ngame: nine_ball\nrules_options: {alternate_breaks: 2}\n", "alternate_breaks must be a bool"),
    ("id: a/B-v0\ngame: nine_ball\nrace_to: true\n", "key 'race_to' must be int"),
    ("id: a/B-v0\ngame: nine_ball\nmax_speed: 99\n", "speeds must satisfy"),
    ("id: a/B-v0\ngame: nine_ball\nopponent: shark\n", "opponent must be"),
    ("id: a/B-v0\ngame: nine_ball\nrack: no_such_module:rack\n", "key 'rack' is an import path"),
    ("id: NineBall\ngame: nine_ball\n", "a variant id looks like"),
    ("id: a/B-v0\n", "missing key 'game'"),
    ("", "a variant is a mapping"),
])
def test_more_bad_variant_files_name_the_key_and_the_file(tmp_path, text, message):
    path = tmp_path / "variant.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        poolgym.register_from_yaml(path)
    assert str(path) in str(err.value)
    assert "a/B-v0" not in gym.registry


def test_a_ball_resting_in_a_side_pocket_throat_is_a_possible_position():
    """Found by the soak in a 14.1 game: the simulator can leave a ball past the line of the
    cushion noses, in a side pocket's throat, and that is still on the table."""
    throat = (1.2703359226392084, 1.2708674892504483)
    state = GameState(game="nine_ball", balls={0: throat, 9: (1.9, 0.6)}, out_of_play=tuple(range(1, 9)),
                      awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE)
    check_state(NINE, state)
