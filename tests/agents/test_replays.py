"""Noisy replays in one ``simulate_many`` call give what one simulation per replay gives."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from poolgym.agents.bot.player import HeuristicBot
from poolgym.agents.bot.position import state_value
from poolgym.envs.play import simulate_move, simulate_moves, simulate_replays
from poolgym.physics import Simulator
from poolgym.rules import get_ruleset
from poolgym.rules.state import CueBallZone

RULES = get_ruleset("nine_ball")


def _open_state():
    """A 9-ball position after a break, the cue ball on the table."""
    state = RULES.new_game(np.random.default_rng(5))
    bot = HeuristicBot(RULES, budget="fast", seed=1)
    sim = Simulator(RULES.table)
    move = bot.choose(state)
    events, _ = simulate_move(sim, RULES, state, move, np.random.default_rng(0), False)
    return RULES.apply_shot(state, move.call, events)[0]


def _assert_same_plays(plays, expected) -> None:
    """The ``(events, result)`` pairs equal pair by pair: rules facts, events, rest positions."""
    assert len(plays) == len(expected)
    for (events, result), (events1, result1) in zip(plays, expected):
        assert events == events1
        assert result.events == result1.events and result.positions == result1.positions


def test_replays_equal_one_simulation_each():
    state = _open_state()
    sim = Simulator(RULES.table, noise="tournament")
    move = HeuristicBot(RULES, budget="fast", seed=2).choose(state)
    many = simulate_replays(sim, RULES, state, move, np.random.default_rng(9), 6)
    rng = np.random.default_rng(9)
    one_by_one = [simulate_move(sim, RULES, state, move, rng, False) for _ in range(6)]
    assert len({r.events for _, r in many}) > 1  # the noise differs between replays
    _assert_same_plays(many, one_by_one)


def test_unplayable_placement_gives_a_placement_foul_per_replay():
    state = _open_state()
    move = HeuristicBot(RULES, budget="fast", seed=2).choose(state)
    on_a_ball = state.positions[max(b for b in state.positions if b != 0)]
    bad = replace(move, placement=on_a_ball)
    replays = simulate_replays(Simulator(RULES.table), RULES, state, bad, np.random.default_rng(0), 3)
    assert [r for _, r in replays] == [None] * 3
    assert all(e.cue_ball_start == on_a_ball for e, _ in replays)


def test_bot_recheck_values_are_means_over_replays():
    state = _open_state()
    bot = HeuristicBot(RULES, noise="tournament", budget="fast", seed=4)
    search = bot.search
    cue = state.position(0)
    assert state.cue_ball_in_hand is CueBallZone.NONE
    candidates = search.pot_candidates(state, cue, None)
    exact = {id(s): s.value for s in candidates}
    search.rng = np.random.default_rng(11)
    head = search.recheck(state, candidates)[:search.budget.top_k]
    rng = np.random.default_rng(11)
    ranked = sorted(candidates, key=lambda s: exact[id(s)], reverse=True)[:search.budget.top_k]
    expected = {}
    for s in ranked:
        values = [state_value(RULES.apply_shot(state, s.move.call,
                                               simulate_move(search.noisy, RULES, state, s.move, rng, False)[0])[0],
                              RULES, state.shooter, search.sigma_deg)
                  for _ in range(search.budget.noise_samples)]
        expected[id(s)] = (sum(values) + exact[id(s)]) / (len(values) + 1)
    assert {id(s): s.value for s in head} == expected


def test_simulate_moves_equals_one_simulation_per_move():
    state = _open_state()
    sim = Simulator(RULES.table, noise="tournament")
    base = HeuristicBot(RULES, budget="fast", seed=2).choose(state)
    moves = [replace(base, shot=replace(base.shot, speed=s, angle_deg=base.shot.angle_deg + d))
             for s, d in ((1.0, 0.0), (2.5, 3.0), (0.6, -20.0), (4.0, 90.0))]
    together = simulate_moves(sim, RULES, state, moves, np.random.default_rng(3))
    rng = np.random.default_rng(3)
    apart = [simulate_move(sim, RULES, state, m, rng, False) for m in moves]
    assert len(together) == len(moves)
    _assert_same_plays(together, apart)


def test_simulate_moves_takes_one_placement():
    state = _open_state()
    move = HeuristicBot(RULES, budget="fast", seed=2).choose(state)
    with pytest.raises(ValueError, match="one cue-ball placement"):
        simulate_moves(Simulator(RULES.table), RULES, state, [move, replace(move, placement=(0.5, 0.5))],
                       np.random.default_rng(0))
    assert simulate_moves(Simulator(RULES.table), RULES, state, [], np.random.default_rng(0)) == []


def test_simulated_shot_skips_only_the_check():
    """apply_shot(simulated=True) gives what the checked call gives on a simulation's events."""
    state = _open_state()
    bot = HeuristicBot(RULES, budget="fast", seed=3)
    sim = Simulator(RULES.table, noise="tournament")
    rng = np.random.default_rng(8)
    for move in bot.search.pot_candidates(state, state.position(0), None)[:12]:
        events, _ = simulate_move(sim, RULES, state, move.move, rng, False)
        assert (RULES.apply_shot(state, move.move.call, events, simulated=True)
                == RULES.apply_shot(state, move.move.call, events))
