"""The bot's jump shots: planned flights, blocked positions, when the bot tries them."""

import math
from dataclasses import replace

import numpy as np
import pytest

from poolgym.envs import PoolEnv
from poolgym.envs.play import simulate_move
from poolgym.physics import Simulator
from poolgym.rules import get_ruleset
from poolgym.table import Table

from poolgym.agents.bot.blocked import blocked_position
from poolgym.agents.bot.jumps import (JumpPlanner, blockers, every_line_blocked, jump_shot,
                                      rules_allow_jump_shots)
from poolgym.agents.bot.player import HeuristicBot

R = Table.preset("9ft").ball_radius


@pytest.mark.parametrize("elevation", [40.0, 50.0, 65.0])
@pytest.mark.parametrize("speed", [4.0, 7.0])
def test_planned_flight_is_the_simulators_first_flight(elevation, speed):
    """The plan beside the simulation: the first airborne phase of a lone cue ball (which
    lands on the bed: at most 1.9 m from its start)."""
    sim = Simulator()
    planner = JumpPlanner(sim)
    result = sim.simulate({0: (0.4, 0.6)}, jump_shot(speed, 0.0, elevation), trajectories=True)
    flight = next(p for p in result.trajectories[0] if p.mode == "airborne")
    u, w = planner.launch(speed, elevation)
    assert flight.velocity[0] == pytest.approx(u, rel=1e-9) and flight.vertical_velocity == pytest.approx(w, rel=1e-9)
    run = flight.position_at(flight.t1)[0] - flight.position[0]
    assert planner.landing_distance(speed, elevation) == pytest.approx(run, rel=1e-6)
    middle = 0.5 * (flight.t0 + flight.t1)
    s = flight.position_at(middle)[0] - flight.position[0]
    assert planner.height_at(s, speed, elevation) == pytest.approx(flight.height_at(middle), rel=1e-6)
    # Closed form: a centre hit leaves along the cue at the stroke's speed without spin; the
    # bed returns e of the vertical part and its friction impulse, at most mu (1 + e) v
    # sin(theta), slows the skid, down to rolling (5/7 of it) at the steeper elevations.
    p, theta = sim.params, math.radians(elevation)
    friction = min(p.mu_slide * (1.0 + p.bed_restitution) * math.sin(theta), math.cos(theta) / 3.5)
    assert w == pytest.approx(p.bed_restitution * speed * math.sin(theta), rel=1e-12)
    assert u == pytest.approx(speed * (math.cos(theta) - friction), rel=1e-12)
    assert u < speed * math.cos(theta)


def test_planned_speed_lands_where_asked_and_the_peak_is_the_projectiles():
    planner = JumpPlanner(Simulator())
    for elevation in (40.0, 50.0):
        for distance in (0.2, 0.5, 0.9):
            speed = planner.speed_to_land(distance, elevation)
            assert planner.landing_distance(speed, elevation) == pytest.approx(distance)
            _, w = planner.launch(speed, elevation)
            assert planner.height_at(distance / 2, speed, elevation) == pytest.approx(w * w / (2 * 9.81))
            assert planner.height_at(distance, speed, elevation) == pytest.approx(0.0, abs=1e-12)


def test_clearing_needs_the_flight_above_the_blocker():
    planner = JumpPlanner(Simulator())
    speed = planner.speed_to_land(0.6, 50.0)
    assert planner.clears(speed, 50.0, [0.3])  # the peak, about 12 cm up
    assert not planner.clears(speed, 50.0, [0.03])  # just after the take-off, still low
    low = planner.speed_to_land(0.6, 10.0)
    assert not planner.clears(low, 10.0, [0.3])  # a flat flight rises a few millimetres


def test_blocked_lines_and_jump_strokes():
    cue, ball = (0.5, 0.6), (1.3, 0.6)
    wall = [(0.9, 0.6 + 0.3 * R)]
    assert blockers(cue, ball, wall, R) == pytest.approx([0.4])
    assert every_line_blocked(cue, ball, wall, R)
    assert not every_line_blocked(cue, ball, [(0.9, 0.6 + 3.5 * R)], R)
    planner = JumpPlanner(Simulator())
    strokes = planner.strokes(cue, ball, wall, max_speed=12.0)
    assert strokes and all(e >= 40.0 for _, e in strokes)
    for speed, elevation in strokes:  # each lands between the blocker and the ball
        assert 0.4 + 2 * R <= planner.landing_distance(speed, elevation) <= 0.8 - 2 * R + 1e-9
    assert planner.strokes(cue, ball, wall, max_speed=1.0) == []
    assert planner.strokes(cue, ball, [], max_speed=12.0) == []


def test_blocked_positions_are_seeded_and_shield_the_one():
    rules = get_ruleset("nine_ball")
    first = blocked_position(rules.table, np.random.default_rng(7))
    assert first == blocked_position(rules.table, np.random.default_rng(7))
    for seed in range(20):
        state = blocked_position(rules.table, np.random.default_rng(seed))
        balls = state.positions
        assert rules.legal_targets(state) == {1} and 9 in balls
        others = [p for n, p in balls.items() if n not in (0, 1)]
        assert every_line_blocked(balls[0], balls[1], others, R)


def test_jump_candidates_only_with_jump_on():
    rules = get_ruleset("nine_ball")
    state = blocked_position(rules.table, np.random.default_rng(1))
    cue = state.position(0)
    level = HeuristicBot(rules, budget="fast").search.safety_candidates(state, cue, None)
    jumping = HeuristicBot(rules, budget="fast", jump=True).search.safety_candidates(state, cue, None)
    assert all(s.move.shot.elevation_deg == 0.0 for s in level)
    elevated = [s for s in jumping if s.move.shot.elevation_deg > 0]
    assert elevated and all(40.0 <= s.move.shot.elevation_deg <= 65.0 for s in elevated)
    assert all(s.move.target == 1 for s in elevated)
    # The level candidates are the same either way: the jumps come beside them.
    assert [s.move for s in jumping if s.move.shot.elevation_deg == 0] == [s.move for s in level]


def test_jump_option_is_checked_and_follows_the_env():
    rules = get_ruleset("nine_ball")
    assert rules_allow_jump_shots(rules) and HeuristicBot(rules).jump is False
    with pytest.raises(ValueError, match="jump must be True or False"):
        HeuristicBot(rules, jump="yes")

    class NoJumps(type(rules)):
        allows_jump_shots = False

    with pytest.raises(ValueError, match="does not allow jump shots"):
        HeuristicBot(NoJumps(), jump=True)
    assert PoolEnv(opponent="bot:fast", elevation=True).opponent.jump is True
    assert PoolEnv(opponent="bot:fast").opponent.jump is False
    assert HeuristicBot(rules, jump=True).policy("aim").mapper.elevation is True


def test_from_a_blocked_position_the_bot_jumps_and_makes_a_legal_hit():
    """Seeded: in blocked position 3 the bot with jumps picks a jump, which (played with the
    tournament noise) hits the 1 ball first without a foul; the same bot without jumps
    kicks and fouls there."""
    rules = get_ruleset("nine_ball")
    state = blocked_position(rules.table, np.random.default_rng(3))
    table_sim = Simulator(rules.table, noise="tournament")
    jumper = HeuristicBot(rules, noise="tournament", budget="fast", seed=0, jump=True, max_speed=12.0)
    move = jumper.choose(state)
    assert move.shot.elevation_deg >= 40.0 and move.target == 1
    events, result = simulate_move(table_sim, rules, state, move, np.random.default_rng(0), trajectories=True)
    assert result.sample_path(0, 0.002, height=True)[:, 3].max() > 2 * R  # it rose over a ball
    _, outcome = rules.apply_shot(state, move.call, events)
    assert events.first_contact == 1 and outcome.legal
    plain = HeuristicBot(rules, noise="tournament", budget="fast", seed=0, max_speed=12.0)
    kick = plain.choose(state)
    assert kick.shot.elevation_deg == 0.0
    events, _ = simulate_move(table_sim, rules, state, kick, np.random.default_rng(0), False)
    assert not rules.apply_shot(state, kick.call, events)[1].legal


def test_bench_jump_command_writes_its_report(tmp_path, capsys):
    import json

    from poolgym.agents.tools.cli import build_parser, main

    out_json, out_md = tmp_path / "jump.json", tmp_path / "jump.md"
    argv = ["bench-jump", "--positions", "4", "--budget", "fast", "--seed", "2", "--no-progress",
            "--json", str(out_json), "--markdown", str(out_md)]
    assert main(argv) == 0
    report = json.loads(out_json.read_text())
    assert report["positions"] == 4 and set(report["kinds"]) == {"jump", "kick", "bot_with_jumps", "bot_without_jumps"}
    for kind in report["kinds"].values():
        assert 0 <= kind["legal_hits"] <= kind["played"] <= 4
        low, high = kind["legal_hits_ci95"]
        assert low <= kind["legal_hits_rate"] <= high
    assert report["kinds"]["kick"]["jumps"] == 0 and report["kinds"]["bot_without_jumps"]["jumps"] == 0
    assert report["kinds"]["jump"]["jumps"] == report["kinds"]["jump"]["played"]
    text = out_md.read_text()
    assert "| jump |" in text and "poolgym bench-jump --positions 4 --budget fast --noise tournament --seed 2" in text
    capsys.readouterr()
    assert main(argv) == 0  # seeded: the same figures again
    assert json.loads(out_json.read_text()) == report
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench-jump", "--max-speed", "40"])
    assert "argument --max-speed" in capsys.readouterr().err
    assert main(["bench-jump", "--positions", "1", "--budget", "huge"]) == 2
    assert "unknown search budget 'huge'" in capsys.readouterr().err


def test_evaluation_protocol_carries_the_elevation_to_the_bots():
    import poolgym
    from poolgym.configs import config_path

    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol

    elevated = protocol(poolgym.register_from_yaml(config_path("variants/nine_ball_elevated.yaml")))
    level = protocol("poolgym/NineBall-v1")
    assert elevated.elevation is True and "elevated cue" in elevated.describe()
    assert level.elevation is False and "elevated" not in level.describe()
    for played_under, jumps in ((elevated, True), (level, False)):
        bot = make_agent("bot:fast", played_under.rules, noise=played_under.noise,
                         max_speed=played_under.max_speed, elevation=played_under.elevation)
        assert bot.jump is jumps
    assert not hasattr(make_agent("fixed", level.rules, elevation=True), "jump")


def test_a_bot_opponent_plays_its_jump_through_an_elevated_env():
    env = PoolEnv(opponent="bot:fast", action_mode="aim", elevation=True, noise="tournament", max_speed=12.0)
    env.reset(seed=0, options={"breaker": 0, "play_opponent": False})
    state = blocked_position(env.table, np.random.default_rng(3))
    env.state = replace(state, shooter=1)
    move = env.opponent.choose(env.state)
    assert move.shot.elevation_deg > 0
    action = env.opponent_mapper.encode(move, env.state, env.rules)
    record = env.play_move(action, mapping=env.opponent_mapper.mode)
    assert record.player == 1 and record.move.shot.elevation_deg == pytest.approx(move.shot.elevation_deg)
    assert record.move.shot.speed == pytest.approx(move.shot.speed)
    assert record.result.shot.elevation_deg == pytest.approx(move.shot.elevation_deg)
