"""The bot's jump shots: planned flights, blocked positions, when the bot tries them."""

import math

import numpy as np
import pytest

from poolgym.envs import PoolEnv
from poolgym.physics import PhysicsParams
from poolgym.rules import get_ruleset
from poolgym.table import Table

from poolgym.agents.bot.blocked import blocked_position
from poolgym.agents.bot.jumps import (blockers, clears, every_line_blocked, height_at, jump_strokes,
                                      landing_distance, rules_allow_jump_shots, speed_to_land)
from poolgym.agents.bot.player import HeuristicBot

R = Table.preset("9ft").ball_radius


def test_planned_flight_is_the_projectile_of_the_bed_bounce():
    params = PhysicsParams()
    for elevation in (40.0, 50.0, 60.0):
        for distance in (0.2, 0.5, 0.9):
            speed = speed_to_land(distance, elevation, params)
            assert landing_distance(speed, elevation, params) == pytest.approx(distance)
            # The peak: (e v sin)^2 / 2g, half-way along.
            w = params.bed_restitution * speed * math.sin(math.radians(elevation))
            assert height_at(distance / 2, speed, elevation, params) == pytest.approx(w * w / (2 * params.gravity))
            assert height_at(distance, speed, elevation, params) == pytest.approx(0.0, abs=1e-12)


def test_clearing_needs_the_flight_above_the_blocker():
    params = PhysicsParams()
    speed = speed_to_land(0.6, 50.0, params)
    assert clears(speed, 50.0, [0.3], R, params)  # the peak, about 8 cm up
    assert not clears(speed, 50.0, [0.03], R, params)  # just after the take-off, still low
    low = speed_to_land(0.6, 10.0, params)
    assert not clears(low, 10.0, [0.3], R, params)  # a flat flight rises a few millimetres


def test_blocked_lines_and_jump_strokes():
    cue, ball = (0.5, 0.6), (1.3, 0.6)
    wall = [(0.9, 0.6 + 0.3 * R)]
    assert blockers(cue, ball, wall, R) == pytest.approx([0.4])
    assert every_line_blocked(cue, ball, wall, R)
    assert not every_line_blocked(cue, ball, [(0.9, 0.6 + 3.5 * R)], R)
    strokes = jump_strokes(cue, ball, wall, R, PhysicsParams(), max_speed=10.0)
    assert strokes and all(e >= 40.0 for _, e in strokes)
    for speed, elevation in strokes:  # each lands between the blocker and the ball
        assert 0.4 + 2 * R <= landing_distance(speed, elevation, PhysicsParams()) <= 0.8 - 2 * R + 1e-9
    assert jump_strokes(cue, ball, wall, R, PhysicsParams(), max_speed=1.0) == []
    assert jump_strokes(cue, ball, [], R, PhysicsParams(), max_speed=10.0) == []


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
