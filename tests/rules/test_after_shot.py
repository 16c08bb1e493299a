"""``GameState._after_shot``, the rules' own next state after a shot, is the state ``evolve``
gives from the same fields: on every shot of played racks of each game (random facts and
the simulator's own), and on hand-built verdict values that are not in the stored form or
break a check (converted, or refused with the same message). A new rack's gaps are the
draws of the reference code, the generator left where it leaves it."""

from __future__ import annotations

import math
import pickle

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401  (registers the envs)
from poolgym.racking import RackModel
from poolgym.rules import CueBallZone, GameState, get_ruleset
from poolgym.rules.spotting import is_free
from tests.rules.helpers import random_play
from poolgym.rules.state import CUE_BALL

from tests.rules.helpers import R, position, spread


def _same(a: GameState, b: GameState) -> None:
    """Equal states, field for field of the same types, with the same pickles."""
    assert a == b and repr(a) == repr(b)
    assert pickle.dumps(a) == pickle.dumps(b)
    assert [type(v) for v in vars(a).values()] == [type(v) for v in vars(b).values()]


@pytest.fixture
def checked_transitions(monkeypatch):
    """Every ``_after_shot`` call compared with ``evolve`` of the same fields (the handover's
    fields in ``shot`` over ``changes``); the number of calls compared."""
    seen = []
    fast = GameState._after_shot

    def compared(state, shot, changes):
        new = fast(state, shot, changes)
        _same(new, state.evolve(**{**changes, **shot}))
        seen.append(new)
        return new

    monkeypatch.setattr(GameState, "_after_shot", compared)
    return seen


@pytest.mark.parametrize("game", ["nine_ball", "ten_ball", "eight_ball", "straight_pool"])
def test_random_racks_of_every_game(game, checked_transitions):
    rules = get_ruleset(game)
    for seed in range(4):
        for _, _, _, state, outcome in random_play(rules, np.random.default_rng(seed), 150, rack=seed):
            assert outcome.cue_ball_in_hand is state.cue_ball_in_hand
    assert len(checked_transitions) == 600


@pytest.mark.parametrize("env_id", ["poolgym/NineBall-v1", "poolgym/EightBall-v1", "poolgym/StraightPool-v1"])
def test_simulated_play(env_id, checked_transitions):
    env = gym.make(env_id, action_mode="aim")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    space = env.action_space
    for _ in range(40):
        _, _, terminated, truncated, _ = env.step(rng.uniform(space.low, space.high).astype(space.dtype))
        if terminated or truncated:
            env.reset()
    env.close()
    assert len(checked_transitions) >= 40


def _shot_fields(state: GameState, **changed) -> dict:
    """The fields ``Ruleset._next_state`` passes, from ``state``, with ``changed``."""
    shot = {"balls": state.balls, "out_of_play": state.out_of_play, "shot_number": state.shot_number + 1,
            "awaiting_break": False, "cue_ball_in_hand": state.cue_ball_in_hand,
            "consecutive_fouls": state.consecutive_fouls, "warned_on_two_fouls": state.warned_on_two_fouls,
            "scores": state.scores, "push_out_available": False, "pending": None, "winner": None}
    shot.update(changed)
    return shot


_BASE = position("nine_ball", {0: (0.5, 0.5), **spread(3, 5, 9)}, out_of_play=(1, 2, 4))


@pytest.mark.parametrize("changed, changes", [
    ({}, {}),
    ({"balls": tuple((n, np.float64(x), y) for n, x, y in _BASE.balls)}, {}),
    ({"balls": tuple((np.int64(n), x, y) for n, x, y in _BASE.balls)}, {}),
    ({"out_of_play": (np.int64(1), 2, 4)}, {}),
    ({"cue_ball_in_hand": "anywhere", "balls": _BASE.balls[1:]}, {}),
    ({"scores": (np.int64(2), 0)}, {}),
    ({"shooter": 1, "inning": 2, "no_progress_innings": None}, {"groups": ["stripes", "solids"]}),
    ({}, {"extra": {"note": [1, 2]}, "breaker": 1}),
])
def test_values_not_in_stored_form_are_converted_as_evolve_does(changed, changes):
    shot = _shot_fields(_BASE, **changed)
    _same(_BASE._after_shot(shot, changes), _BASE.evolve(**{**changes, **shot}))


@pytest.mark.parametrize("changed, changes, message", [
    ({"out_of_play": (1, 2, 3)}, {}, "both on the table and out of play"),
    ({"out_of_play": (0, 1, 2)}, {}, "both on the table and out of play"),
    ({"out_of_play": (1, 1, 2, 4)}, {}, "listed twice out of play"),
    ({"balls": _BASE.balls[1:], "cue_ball_in_hand": CueBallZone.ANYWHERE, "out_of_play": (0, 1)}, {},
     "the cue ball is never out of play"),
    ({"balls": ((0, 0.5, float("nan")),) + _BASE.balls[1:]}, {}, "non-finite position"),
    ({"winner": 2}, {}, "winner must be None, 0 or 1"),
    ({"shooter": 3, "inning": 2}, {}, "shooter must be player 0 or 1"),
    ({"cue_ball_in_hand": "nowhere"}, {}, "is not a valid CueBallZone"),
    ({}, {"breaker": 2}, "breaker must be player 0 or 1"),
    ({}, {"groups": ("solids", "solids")}, "groups must name one group per player"),
])
def test_a_verdict_that_breaks_a_check_is_refused_as_evolve_refuses_it(changed, changes, message):
    shot = _shot_fields(_BASE, **changed)
    with pytest.raises(ValueError, match=message) as fast:
        _BASE._after_shot(shot, changes)
    with pytest.raises(ValueError) as plain:
        _BASE.evolve(**{**changes, **shot})
    assert str(fast.value) == str(plain.value)


def test_the_views_of_the_old_balls_are_not_carried_over():
    state = _BASE
    state.positions, state.object_balls_on_table  # cached on the old state
    moved = state._after_shot(_shot_fields(state, balls=state.balls[:1] + state.balls[2:],
                                           out_of_play=(1, 2, 3, 4)), {})
    assert 3 not in moved.positions and moved.object_balls_on_table == (5, 9)
    assert CUE_BALL in moved.positions


def _plain_rack_gaps(model: RackModel, balls: dict, rng, table) -> dict:
    """``RackModel.apply`` as it was first written (a generator per redraw), the reference."""
    R = table.ball_radius
    fx, fy = table.foot_spot
    tight_pitch = 2.0 * R + 1e-5
    scale = (tight_pitch + model.spacing_mm * 1e-3) / tight_pitch
    apex = min(balls, key=lambda b: math.hypot(balls[b][0] - fx, balls[b][1] - fy))
    spots = {b: (fx + (x - fx) * scale, fy + (y - fy) * scale) for b, (x, y) in balls.items()}
    spots[apex] = balls[apex]
    placed = dict(spots)
    for ball in sorted(b for b in balls if b != apex):
        sx, sy = spots[ball]
        others = [p for b, p in placed.items() if b != ball]
        for _ in range(32):
            dx, dy = rng.normal(0.0, model.jitter_mm * 1e-3, 2)
            x, y = sx + float(dx), sy + float(dy)
            if all(math.hypot(x - px, y - py) >= tight_pitch for px, py in others):
                placed[ball] = (x, y)
                break
    return {b: placed[b] for b in balls}


@pytest.mark.parametrize("game", ["nine_ball", "ten_ball", "straight_pool"])
@pytest.mark.parametrize("model", [RackModel(0.5, 0.6), RackModel(0.0, 2.0), RackModel(3.0, 5.0)])
def test_rack_gaps_are_the_reference_draws(game, model):
    rules = get_ruleset(game)
    fast, plain = np.random.default_rng(11), np.random.default_rng(11)
    for _ in range(30):
        tight = rules.rack(np.random.default_rng(0))
        got, want = model.apply(tight, fast, rules.table), _plain_rack_gaps(model, tight, plain, rules.table)
        assert got == want and [type(v) for p in got.values() for v in p] == [float] * 2 * len(got)
    assert fast.bit_generator.state == plain.bit_generator.state


def test_is_free_counts_a_nan_distance_as_no_room():
    balls = {1: (1.0, 0.5), 2: (float("nan"), 0.5)}
    assert not is_free((1.5, 0.5), balls, R) and is_free((1.5, 0.5), {1: (1.0, 0.5)}, R)
    assert not is_free((1.0 + 2 * R - 1e-6, 0.5), {1: (1.0, 0.5)}, R)
