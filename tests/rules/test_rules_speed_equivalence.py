"""The rules' per-shot shortcuts give what the plain code gives: the views a state caches
(``positions``, ``object_balls_on_table``), ``poolgym.records.stored``, ``ShotEvents.from_log``'s
stored facts and the derived facts of ``ShotEvents``, ``evolve`` where ``replace`` was."""

from __future__ import annotations

import copy
import pickle
from dataclasses import fields, replace

import numpy as np
import pytest

from poolgym.physics import Shot, Simulator
from poolgym.rules import CueBallZone, GameState, Outcome, ShotEvents, get_ruleset
from poolgym.rules.state import CUE_BALL

from tests.rules.helpers import position, random_play, spread


def _plain_positions(state: GameState) -> dict:
    return {n: (x, y) for n, x, y in state.balls}


def _plain_object_balls(state: GameState) -> tuple:
    return tuple(n for n, _, _ in state.balls if n != CUE_BALL)


def test_positions_is_a_fresh_dict_every_time():
    state = position("nine_ball", {0: (0.5, 0.5), **spread(1, 2, 3)})
    first = state.positions
    first[7] = (1.0, 1.0)
    del first[1]
    assert state.positions == _plain_positions(state)
    assert state.positions is not state.positions


def test_cached_views_leave_equality_hash_repr_and_pickles_as_they_were():
    state = get_ruleset("nine_ball").new_game(rng=3)
    twin = get_ruleset("nine_ball").new_game(rng=3)
    pickles = [pickle.dumps(state, protocol=p) for p in range(pickle.HIGHEST_PROTOCOL + 1)]
    text, shown, hashed = state.to_json(), repr(state), hash(state)
    assert state.positions == _plain_positions(state)
    assert state.object_balls_on_table == _plain_object_balls(state)
    assert [pickle.dumps(state, protocol=p) for p in range(pickle.HIGHEST_PROTOCOL + 1)] == pickles
    assert (state == twin, repr(state), hash(state), state.to_json()) == (True, shown, hashed, text)
    for other in (copy.copy(state), copy.deepcopy(state), pickle.loads(pickles[-1])):
        assert other == state and vars(other) == vars(twin)  # fields alone, no cached view


def test_evolve_makes_the_views_of_its_own_balls():
    state = position("nine_ball", {0: (0.5, 0.5), **spread(1, 2, 3)})
    state.positions, state.object_balls_on_table  # cached on the old state
    moved = state.evolve(balls={**state.positions, 2: (1.5, 0.8)}, shot_number=6)
    assert moved.positions == _plain_positions(moved) and moved.positions[2] == (1.5, 0.8)
    fewer = state.evolve(balls=tuple(b for b in state.balls if b[0] != 1), out_of_play=(1,))
    assert fewer.object_balls_on_table == (2, 3) and 1 not in fewer.positions
    in_hand = state.evolve(balls=state.balls[1:], cue_ball_in_hand=CueBallZone.ANYWHERE)
    assert in_hand.object_balls_on_table == (1, 2, 3) and CUE_BALL not in in_hand.positions
    same = state.evolve(shooter=1)
    assert same.positions == state.positions and same.object_balls_on_table == (1, 2, 3)


def _plain_derived(events: ShotEvents) -> tuple:
    """The derived facts as they were first written."""
    pocketed = tuple(b for b, _ in events.pocketed)
    anytime = frozenset(b for b in events.cushion_balls or () if b != 0)
    return (pocketed, tuple(b for b, _ in events.pocketed if b != 0),
            tuple(sorted(b for b in events.off_table if b != 0)),
            0 in pocketed or 0 in events.off_table,
            events.cushion_after_contact | anytime | set(pocketed) | events.off_table)


@pytest.mark.parametrize("game", ["nine_ball", "ten_ball", "eight_ball", "straight_pool"])
def test_shots_and_outcomes_match_the_plain_code(game):
    rules = get_ruleset(game)
    for _, _, events, new, outcome in random_play(rules, np.random.default_rng(5), 300):
        derived = (events.pocketed_balls, events.object_balls_pocketed,
                   events.object_balls_off_table, events.cue_ball_scratched,
                   events.driven_to_cushion)
        assert derived == _plain_derived(events)
        assert type(events.driven_to_cushion) is frozenset
        plain = Outcome(**{f.name: getattr(outcome, f.name) for f in fields(Outcome)})
        assert outcome == plain and repr(outcome) == repr(plain)
        assert pickle.dumps(outcome) == pickle.dumps(plain)  # the same fields, in order
        assert new == GameState.from_json(new.to_json())
        assert new.positions == _plain_positions(new)
        assert new.object_balls_on_table == _plain_object_balls(new)


def test_two_foul_warning_and_spot_request_are_the_states_replace_gives():
    rules = get_ruleset("nine_ball")
    state = position("nine_ball", {0: (1.5, 0.5), **spread(4, 9, x0=1.2)}, consecutive_fouls=(2, 0))
    assert rules.issue_two_foul_warning(state, 0) == replace(state, warned_on_two_fouls=(True, False))
    kitchen = position("nine_ball", {4: (0.3, 0.3), 9: (1.5, 0.5)},
                       cue_ball_in_hand=CueBallZone.KITCHEN)
    offered = rules.offer_spot_request(kitchen)
    assert offered == replace(kitchen, pending=offered.pending) and offered.pending.balls == (4,)


def test_from_log_on_the_simulators_own_log_equals_the_converting_path():
    rules = get_ruleset("nine_ball")
    sim = Simulator(rules.table)
    rng = np.random.default_rng(9)
    layout = {0: (0.6, 0.6), **rules.rack(rng)}
    seen_pots = False
    for k in range(12):
        shot = Shot(float(rng.uniform(2, 9)), float(rng.uniform(-8, 8)), 0.0, 0.0)
        result = sim.simulate(layout, shot)
        own = ShotEvents.from_log(result.event_log, rules.table, final_positions=result.positions)
        assert hasattr(result.event_log, "log_facts")  # the stored-facts path
        plain = ShotEvents.from_log(tuple(result.events), rules.table, final_positions=result.positions)
        numpy_final = {n: (np.float64(x), np.float64(y)) for n, (x, y) in result.positions.items()}
        converted = ShotEvents.from_log(result.event_log, rules.table, final_positions=numpy_final)
        assert own == plain == converted and repr(own) == repr(plain) == repr(converted)
        assert pickle.dumps(own) == pickle.dumps(plain)
        seen_pots = seen_pots or bool(own.pocketed)
        layout = {n: (x, y) for n, (x, y) in result.positions.items()}
        if 0 not in layout or len(layout) < 3:
            layout = {0: (0.6, 0.6), **rules.rack(rng)}
    assert seen_pots
