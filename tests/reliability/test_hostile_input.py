"""Hostile input: numbers of every precision and size, impossible table geometry, unbounded
noise, YAML bombs, files that would run code, impossible states and final positions."""

import math
import time
from dataclasses import asdict, replace

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import poolgym
from poolgym.agents.tools.soak import RANDOM_TABLE_RANGES, random_table, run_physics_soak
from poolgym.agents.training.train_config import load_config
from poolgym.envs.aec import PoolAECEnv
from poolgym.physics import Noise, PhysicsParams, Shot, Simulator
from poolgym.rules import CueBallZone, GameState, ShotCall, ShotEvents, check_state, get_ruleset
from poolgym.rules.overlaps import overlapping_pairs
from poolgym.rules.shot import ball_and_pocket_calls
from poolgym.table import POCKET_IDS, Table
from poolgym.yaml_files import MAX_BYTES, MAX_DEPTH

HUGE = 10 ** 400  # beyond the float range
SIM = Simulator(Table.preset("9ft"))
LAYOUT = {0: (0.5, 1.15), 1: (1.9, 0.6), 2: (1.2, 0.3)}


# ------------------------------------------------------------------ numbers of every precision
def test_the_float32_shot_that_stalled_runs_in_float64_and_returns_floats():
    as32 = Shot(np.float32(6.9), np.float32(135.0), np.float32(-0.4), np.float32(-0.5))
    as64 = Shot(*(float(getattr(as32, f)) for f in ("speed", "angle_deg", "side", "vertical")))
    res32, res64 = SIM.simulate({0: (0.5, 1.15)}, as32), SIM.simulate({0: (0.5, 1.15)}, as64)
    assert res32.positions == res64.positions and res32.events == res64.events
    assert all(type(v) is float for v in (*res32.positions[0], res32.duration, *asdict(res32.shot).values()))


_DTYPES = st.sampled_from([np.float16, np.float32, np.float64, float, "int"])


def _as(dtype, value: float):
    return int(round(value)) if dtype == "int" else dtype(value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dtype=_DTYPES, speed=st.floats(-1.0, 16.0), angle=st.floats(-720.0, 720.0),
       side=st.floats(-0.9, 0.9), vertical=st.floats(-0.9, 0.9))
def test_any_numeric_type_gives_the_float64_result_or_the_same_refusal(dtype, speed, angle, side, vertical):
    """numpy float16/32/64 and Python ints: the same result as the float64 shot of the same
    values, or the same refusal."""
    given_shot = Shot(_as(dtype, speed), _as(dtype, angle), _as(dtype, side), _as(dtype, vertical))
    plain = Shot(*(float(getattr(given_shot, f)) for f in ("speed", "angle_deg", "side", "vertical")))
    layout = {b: (_as(np.float32 if dtype == "int" else dtype, x), y) for b, (x, y) in LAYOUT.items()}
    plain_layout = {b: (float(x), y) for b, (x, y) in layout.items()}
    try:
        expected = SIM.simulate(plain_layout, plain)
    except ValueError as exc:
        with pytest.raises(ValueError) as err:
            SIM.simulate(layout, given_shot)
        assert str(err.value) == str(exc)
        return
    result = SIM.simulate(layout, given_shot)
    assert result.positions == expected.positions and result.pocketed == expected.pocketed
    assert result.events == expected.events
    assert all(type(c) is float for p in result.positions.values() for c in p)


@pytest.mark.parametrize("make, field", [
    (lambda: SIM.simulate(LAYOUT, Shot(speed=HUGE)), "Shot.speed is too large"),
    (lambda: SIM.simulate(LAYOUT, Shot(speed=1.0, angle_deg=-HUGE)), "Shot.angle_deg is too large"),
    (lambda: SIM.simulate({0: (HUGE, 0.5)}, Shot(speed=1.0)), r"layout\[0\] x is too large"),
    (lambda: Table(length=HUGE), "Table.length must be a positive finite number, got an integer of about 401"),
    (lambda: PhysicsParams(mu_slide=HUGE), "PhysicsParams.mu_slide is too large"),
    (lambda: PhysicsParams(mu_roll=True), "PhysicsParams.mu_roll must be a real number, got bool"),
    (lambda: PhysicsParams(max_events=1e5), "PhysicsParams.max_events must be an integer"),
    (lambda: Noise(speed=HUGE), "Noise.speed must be a finite standard deviation"),
    (lambda: GameState(game="nine_ball", balls={0: (HUGE, 0.5)}), "ball 0 x is too large"),
    (lambda: GameState.from_dict({"game": "nine_ball", "balls": [[0, HUGE, 0.5]]}), "GameState field 'balls'"),
    (lambda: gym.make("poolgym/NineBall-v0", reward_weights={"foul": HUGE}),
     "reward weight 'foul' must be a finite number, got an integer of about 401 digits"),
    (lambda: gym.make("poolgym/PotBall-v0", pot_reward=HUGE), "pot_reward must be a finite number, got an integer"),
    (lambda: ShotEvents(cue_ball_start=(HUGE, 0.5)), "cue_ball_start must be an .x, y. pair of numbers in the float range"),
])
def test_numbers_beyond_the_float_range_are_refused_naming_the_field(make, field):
    with pytest.raises(ValueError, match=field) as err:
        make()
    assert len(str(err.value)) < 400  # the 401 digits are not printed


def test_library_values_come_back_as_plain_floats():
    table = Table.preset("9ft", length=np.float32(2.54), corner_mouth=np.float64(0.114))
    params = PhysicsParams(mu_slide=np.float32(0.2), max_events=np.int64(1000))
    noise = Noise(speed=np.float16(0.05))
    assert type(table.length) is float and type(table.corner_mouth) is float
    assert type(params.mu_slide) is float and type(params.max_events) is int
    assert type(noise.speed) is float


# ------------------------------------------------------------------ table geometry
@pytest.mark.parametrize("overrides, message", [
    (dict(corner_mouth=2.0), "Table.corner_mouth and Table.side_mouth are too wide for the table"),
    (dict(corner_mouth=1.0, side_mouth=1.0), "Table.corner_mouth is too wide for the table: the short rails"),
    (dict(corner_mouth=0.87), "Table.corner_mouth is too wide for the table: the short rails"),
    (dict(side_mouth=2.4), "Table.corner_mouth and Table.side_mouth are too wide for the table: the long rails"),
    (dict(corner_jaw_angle_deg=1e-9), r"Table.corner_jaw_angle_deg must be in \(90.0, 175.0\]"),
    (dict(side_jaw_angle_deg=179.0), r"Table.side_jaw_angle_deg must be in \(90.0, 175.0\]"),
    (dict(corner_jaw_length=1e-300), r"Table.corner_jaw_length must be in \(0.005, 0.3\]"),
    (dict(length=1e300), r"Table.length must be in \(0.0, 100.0\]"),
    (dict(ball_radius=0.2), r"Table.ball_radius must be in \(0.02, 0.04\]"),
    (dict(length=0.4, width=0.3), "Table.length and Table.width are too small for the rack"),
    (dict(side_jaw_length=0.3), "Table.side_jaw_length and Table.side_jaw_angle_deg make the side pocket jaws cross"),
    (dict(corner_jaw_length=0.3), "Table.corner_hole_radius and Table.corner_drop_depth leave the corner pocket's capture hole out of reach"),
    (dict(corner_drop_depth=0.1), "leave the corner pocket's capture hole out of reach"),
    (dict(side_drop_depth=0.05), "leave the side pocket's capture hole out of reach"),
    (dict(corner_hole_radius=0.021), "leave the corner pocket's capture hole out of reach"),
    (dict(side_hole_radius=0.03), "leave the side pocket's capture hole out of reach"),
])
def test_impossible_table_geometry_is_refused_naming_the_field(overrides, message):
    with pytest.raises(ValueError, match=message):
        Table.preset("9ft", **overrides)


def test_a_shallow_pocket_whose_back_a_ball_reaches_in_front_of_the_hole_is_refused():
    """Found by the random-table soak: short corner jaws put the back wall so near the mouth
    that a ball rests against it in front of the mouth line, out of the hole's reach."""
    with pytest.raises(ValueError, match="corner pocket's capture hole out of reach"):
        Table(name="random", length=1.870, width=0.943, ball_radius=0.0291, corner_mouth=0.1357,
              side_mouth=0.1165, corner_jaw_angle_deg=139.4, side_jaw_angle_deg=108.7,
              corner_jaw_length=0.0224, side_jaw_length=0.0929, corner_drop_depth=0.0153,
              side_drop_depth=0.0287, corner_hole_radius=0.0459, side_hole_radius=0.0580)


def test_presets_and_random_tables_pass_and_random_tables_vary():
    for name in ("9ft", "8ft", "7ft"):
        Table.preset(name)
    rng = np.random.default_rng(0)
    tables = [random_table(rng)[0] for _ in range(20)]
    for name, (low, high) in RANDOM_TABLE_RANGES.items():
        values = [getattr(t, name) for t in tables]
        assert low <= min(values) < max(values) <= high, name
    heights = [t.cushion_height / (2 * t.ball_radius) for t in tables]
    assert 0.55 <= min(heights) < max(heights) <= 0.75


def test_a_soak_slice_on_random_tables_keeps_every_invariant():
    report = run_physics_soak(shots=300, seed=11, random_tables=True)
    assert report["random_tables"] == 6
    for key in ("crashes", "escapes", "overlaps", "lost_balls", "non_finite", "log_mismatches"):
        assert report[key] == 0, (key, report["examples"])


def test_the_simulator_refuses_to_return_a_ball_at_rest_outside_the_outline(monkeypatch):
    from poolgym.physics import event_core as core

    sim = Simulator(Table.preset("9ft"))
    run_shot = core.run_shot

    def escaping(*args):
        # The compiled loop as if it had let the cue ball through the head cushion.
        status, balls, *rest = run_shot(*args)
        balls = balls.copy()
        balls[0, core.X] = -0.2
        return (status, balls, *rest)

    monkeypatch.setattr(core, "run_shot", escaping)
    with pytest.raises(RuntimeError, match=r"ball 0 came to rest outside the cushion outline at \(-0.2000, "):
        sim.simulate({0: (0.5, 0.6)}, Shot(speed=3.0))


def test_a_table_the_rack_does_not_fit_is_refused_by_register_variant():
    with pytest.raises(ValueError, match="too small for the rack"):
        poolgym.register_variant("hostile/Tiny-v0", table={"length": 0.4, "width": 0.3})
    assert "hostile/Tiny-v0" not in gym.registry


# ------------------------------------------------------------------ noise
@pytest.mark.parametrize("field, value", [("speed", 1e308), ("angle_deg", 1e308), ("speed", 1e6),
                                          ("side", 0.9), ("angle_deg", 45.0)])
def test_noise_beyond_its_physical_range_is_refused(field, value):
    with pytest.raises(ValueError, match=rf"Noise.{field} must be a finite standard deviation >= 0 and <= "):
        Noise(**{field: value})


def test_the_executed_shot_stays_within_the_stroke_limits():
    noise = Noise(speed=Noise.LIMITS["speed"], angle_deg=1.0, side=0.5, vertical=0.5)
    rng = np.random.default_rng(5)
    executed = [noise.apply(Shot(14.9, 0.0, 0.5, 0.5), rng, max_speed=15.0) for _ in range(2000)]
    assert max(s.speed for s in executed) == 15.0  # clipped, and reported as executed
    assert min(s.speed for s in executed) > 0
    assert all(math.hypot(s.side, s.vertical) < 1.0 for s in executed)
    sim = Simulator(Table.preset("9ft"), noise=noise)
    result = sim.simulate({0: (0.5, 0.6)}, Shot(14.9), rng=np.random.default_rng(1))
    assert result.shot.speed <= 15.0 and result.events[0].speed == result.shot.speed


# ------------------------------------------------------------------ arguments checked up front
@pytest.mark.parametrize("kwargs, message", [
    (dict(id="hostile/Digit-v\u0663"), "a variant id looks like 'namespace/Name-v0' .ASCII"),
    (dict(id="hostile/Zero-v0", max_episode_steps=0), "max_episode_steps must be at least 1"),
    (dict(id="hostile/Cut-v0", action_mode="aim", max_cut_deg=math.nan), r"max_cut_deg must be in \[0, 90\]"),
    (dict(id="hostile/Cut-v1", action_mode="aim", max_cut_deg=math.inf), r"max_cut_deg must be in \[0, 90\]"),
    (dict(id="hostile/Cut-v2", action_mode="aim", max_cut_deg="wide"), "max_cut_deg must be a real number, got str"),
])
def test_variant_arguments_are_checked_at_registration(kwargs, message):
    with pytest.raises(ValueError, match=message):
        poolgym.register_variant(**kwargs)
    assert kwargs["id"] not in gym.registry


def test_bad_max_cut_and_max_turns_fail_when_the_env_is_made():
    with pytest.raises(ValueError, match="max_cut_deg"):
        gym.make("poolgym/NineBall-v0", action_mode="aim", max_cut_deg=math.nan)
    with pytest.raises(ValueError, match="max_turns must be an integer, got str 'x'"):
        PoolAECEnv(max_turns="x")
    with pytest.raises(ValueError, match="max_turns must be at least 1"):
        PoolAECEnv(max_turns=0)


# ------------------------------------------------------------------ bounded YAML, trust
_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdefgh", "bcdefghi")) + "id: a/Bomb-v0\ngame: nine_ball\ndescription: *i\n"


def _write(tmp_path, text, name="file.yaml", raw=None):
    path = tmp_path / name
    if raw is not None:
        path.write_bytes(raw)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("loader", [poolgym.register_from_yaml, load_config])
@pytest.mark.parametrize("text, raw, message", [
    (_BOMB, None, r"aliases \(\*a\) are not allowed"),
    (None, b"id: a/B-v0\ngame: nine_ball\ndescription: caf\xe9\n", "not UTF-8 text .byte 0xe9 at offset 43"),
    ("x: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n", None, f"nesting deeper than {MAX_DEPTH}"),
    ("description: '" + "x" * MAX_BYTES + "'\n", None, f"at most {MAX_BYTES} are read"),
])
def test_yaml_files_are_read_within_bounds(tmp_path, loader, text, raw, message):
    path = _write(tmp_path, text, raw=raw)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=message) as err:
        loader(path)
    assert time.perf_counter() - start < 5.0  # refused at once, not after expanding
    assert str(path) in str(err.value) and len(str(err.value)) < 1000


def test_long_values_in_variant_messages_are_cut(tmp_path):
    path = _write(tmp_path, "id: a/B-v0\ngame: nine_ball\nrace_to: '" + "9" * 10_000 + "'\n")
    with pytest.raises(ValueError, match="key 'race_to' must be int, got str") as err:
        poolgym.register_from_yaml(path)
    assert len(str(err.value)) < 400 and "10002 characters" in str(err.value)


def test_variant_files_name_code_only_when_trusted(tmp_path):
    six = _write(tmp_path, "id: hostile/SixBall-v0\ngame: examples.six_ball:SixBall\ntable: 7ft\n", "six.yaml")
    with pytest.raises(ValueError, match="key 'game' is an import path .'examples.six_ball:SixBall'., which runs code"):
        poolgym.register_from_yaml(six)
    rack = _write(tmp_path, "id: hostile/Rack-v0\ngame: nine_ball\nrack: no_such_module:rack\n", "rack.yaml")
    with pytest.raises(ValueError, match="key 'rack' is an import path"):
        poolgym.register_from_yaml(rack)
    with pytest.raises(ValueError, match="key 'rack' is an import path"):
        poolgym.register_directory(tmp_path)
    assert "hostile/SixBall-v0" not in gym.registry
    assert poolgym.register_from_yaml(six, trusted=True) == "hostile/SixBall-v0"
    with pytest.raises(ValueError, match="cannot import rack 'no_such_module:rack'"):
        poolgym.register_from_yaml(rack, trusted=True)


_CONFIG = {"env": {"id": "poolgym/NineBall-v0"}, "algorithm": "PPO", "total_steps": 10}


@pytest.mark.parametrize("edit, message", [
    ({"env": {"id": "no_such_package:poolgym/NineBall-v0"}}, "key 'env.id' is an import path"),
    ({"env": {"id": "poolgym/NoSuch-v0"}}, "key 'env.id' 'poolgym/NoSuch-v0' is not a registered environment"),
    ({"env": {"id": "poolgym/NineBall-v0", "opponent": "pkg.mod:policy"}}, "key 'env.opponent' is 'pkg.mod:policy'"),
    ({"eval": {"opponents": ["random", "pkg.mod:policy"]}}, r"key 'eval.opponents\[1\]' is 'pkg.mod:policy'"),
    ({"eval": {"baseline": "pkg.mod:policy"}}, "key 'eval.baseline' is 'pkg.mod:policy'"),
])
def test_training_configs_name_code_only_when_trusted(edit, message):
    config = {**_CONFIG, **edit}
    with pytest.raises(ValueError, match=message):
        load_config(config)
    if "NoSuch" not in str(edit):
        assert load_config(config, trusted=True).algorithm == "PPO"


def test_the_poolgym_prefix_names_a_registered_env_and_is_data():
    assert load_config({**_CONFIG, "env": {"id": "poolgym:poolgym/NineBall-v0"}}).env_id == "poolgym:poolgym/NineBall-v0"


def test_train_refuses_an_untrusted_import_path_unless_allowed(tmp_path, capsys):
    from poolgym.agents.tools.cli import main

    path = _write(tmp_path, "env: {id: 'evil_module:poolgym/NineBall-v0'}\nalgorithm: PPO\ntotal_steps: 10\n")
    assert main(["train", "--config", str(path), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--allow-code" in err and "import path" in err
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------ impossible states
NINE, EIGHT, STRAIGHT = get_ruleset("nine_ball"), get_ruleset("eight_ball"), get_ruleset("straight_pool")


def _nine(**changes):
    return GameState(**{"game": "nine_ball", "balls": {0: (0.5, 0.6), 9: (1.9, 0.6)},
                        "out_of_play": tuple(range(1, 9)), "awaiting_break": False,
                        "cue_ball_in_hand": CueBallZone.NONE, **changes})


@pytest.mark.parametrize("changes, message", [
    (dict(winner=0, stalemate=True), r"a rack is won \(winner 0\) or a stalemate, not both"),
    (dict(inning=-1), "inning must be at least 1, got -1"),
    (dict(inning=0), "inning must be at least 1, got 0"),
    (dict(shot_number=-2), "shot_number must be at least 0"),
    (dict(rack_number=0), "rack_number must be at least 1"),
    (dict(target_score=0), "target_score must be at least 1 point"),
    (dict(target_score=-5), "target_score must be at least 1 point"),
    (dict(groups=("solids", "solids")), "groups must name one group per player, two different ones"),
    (dict(no_progress_innings=(-1, 2)), "no_progress_innings must be two counts >= 0"),
])
def test_impossible_counters_and_results_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        _nine(**changes)


def test_eight_ball_groups_must_be_solids_and_stripes():
    state = EIGHT.new_game(rng=0)
    check_state(EIGHT, replace(state, groups=("stripes", "solids")))
    with pytest.raises(ValueError, match=r"groups must be None \(open table\) or one each of \['solids', 'stripes'\], "
                                         r"got \('plaid', 'tartan'\)"):
        check_state(EIGHT, replace(state, groups=("plaid", "tartan")))


def test_a_state_with_thousands_of_balls_is_refused_with_a_short_message():
    balls = [[n, 0.1 + (n % 60) * 0.04, 0.1 + (n // 60) * 0.015] for n in range(4000)]
    state = GameState.from_dict({"game": "nine_ball", "balls": balls, "cue_ball_in_hand": "none"})
    with pytest.raises(ValueError, match="balls 0 and 1 overlap") as err:
        check_state(NINE, state)
    assert len(str(err.value)) < 2000 and str(err.value).count("overlap") == 10


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 0.5), st.floats(0, 0.5)), max_size=40))
def test_overlap_grid_finds_what_comparing_every_pair_finds(points):
    balls = [(n, x, y) for n, (x, y) in enumerate(points)]
    r, tol = 0.028575, 1e-6
    every = {(n, m) for i, (n, x, y) in enumerate(balls) for m, u, v in balls[i + 1:]
             if math.hypot(x - u, y - v) < 2 * r - tol}
    found = overlapping_pairs(balls, r, tol, limit=10_000)
    assert set(found) == every and len(found) == len(every)
    assert len(overlapping_pairs(balls, r, tol, limit=3)) == min(3, len(every))


def _rest(balls):
    return ShotEvents(cue_ball_start=(0.5, 0.6), first_contact=9, final_positions=balls)


@pytest.mark.parametrize("final, message", [
    ({0: (0.5, 0.6), 9: (3.9, 0.6)}, r"final_positions puts ball 9 at \(3.9000, 0.6000\), off the playing surface"),
    ({0: (0.5, 0.6), 9: (0.52, 0.6)}, "final_positions puts balls 0 and 9 on top of each other"),
])
def test_apply_shot_refuses_impossible_final_positions(final, message):
    state = _nine()
    with pytest.raises(ValueError, match=message):
        NINE.apply_shot(state, ShotCall(), _rest(final))


def test_a_cue_ball_placed_on_a_ball_from_hand_is_still_a_foul_not_an_error():
    state = _nine(cue_ball_in_hand=CueBallZone.ANYWHERE, balls={9: (1.9, 0.6)})
    events = ShotEvents(cue_ball_start=(1.91, 0.6), final_positions={0: (1.91, 0.6), 9: (1.9, 0.6)})
    _, outcome = NINE.apply_shot(state, ShotCall(), events)
    assert "6.10" in [f.section for f in outcome.fouls]


def test_call_lists_share_their_calls_in_the_games_order():
    calls = ball_and_pocket_calls((3, 7), push_out=True)
    assert calls[0].safety and calls[-1].push_out and len(calls) == 14
    assert [(c.ball, c.pocket) for c in calls[1:7]] == [(3, p) for p in POCKET_IDS]
    assert ball_and_pocket_calls((3, 8))[1] is calls[1]
    assert ball_and_pocket_calls.cache_info().maxsize == 256
