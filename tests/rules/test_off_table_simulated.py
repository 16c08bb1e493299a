"""Balls driven off the table by real simulated shots, judged by each game's rules.

Each test plays an elevated-cue shot through the ``Simulator`` (layouts and shots found by a
search over the real physics, then written down here), checks that the event log has the
``OffTable`` event the case is about, turns the log into ``ShotEvents.from_log`` as the
environments do and judges it: the cue ball off is a foul with the cue ball in hand (WPA 6.1),
an object ball off is a foul (6.5) whose ball is spotted or stays down as each game says
(nine-ball 2.6, eight-ball 3.3(g), 3.7, 3.8(d), 14.1 4.6, 4.9, ten-ball 9.7).
"""

from __future__ import annotations

import math

import pytest

from poolgym.events import OffTable
from poolgym.physics import Shot, Simulator
from poolgym.rules import (Choice, CueBallZone, Decision, DecisionKind, GameState, ShotCall, ShotEvents,
                           get_ruleset)
from tests.rules.helpers import FOOT_SPOT, TABLE, position, spread

SIM = Simulator(TABLE)
OUTER = {"x": (-TABLE.rail_width, TABLE.length + TABLE.rail_width),
         "y": (-TABLE.rail_width, TABLE.width + TABLE.rail_width)}

# A steep, hard stroke straight at the near (top) rail: the cue ball hops off the bed, clears
# the cushion and the rail and lands on the floor past the top rail's outer edge.
CUE_BALL_NEAR_RAIL = (0.8, 1.0)
CUE_BALL_OFF = Shot(speed=8.0, angle_deg=90.0, elevation_deg=40.0)
# An object ball 3 cm from the top rail, well away from the pockets: the hopping cue ball
# comes down on it and it flies off past the top rail; the cue ball stays on the table.
CUE_BALL_FOR_RAIL_BALL = (1.99, 0.69)
RAIL_BALL = (1.79, 1.2114)
RAIL_BALL_OFF = Shot(speed=4.0, angle_deg=111.0, elevation_deg=48.0)
# Breaks from the kitchen at a 15-ball rack (``new_game(rng=seed)``): a hopping cue ball
# meets the rack and one object ball flies off; or the cue ball jumps the whole rack and
# flies off past the foot rail.
RACK_SEED_BALL_OFF = 0
BREAK_SPOT_BALL_OFF = (0.54, 0.41)
BREAK_BALL_OFF = Shot(speed=9.2, angle_deg=3.2, vertical=-0.38, elevation_deg=22.2)
RACK_SEED_CUE_OFF = 3
BREAK_SPOT_CUE_OFF = (0.37, 0.59)
BREAK_CUE_BALL_OFF = Shot(speed=14.4, angle_deg=1.5, vertical=-0.24, elevation_deg=13.8)


def judge(game: str, state: GameState, shot: Shot, call: ShotCall = ShotCall(),
          placement: tuple[float, float] | None = None):
    """Simulate ``shot`` from ``state`` (the cue ball placed at ``placement`` when in hand)
    and judge it: (simulation result, events, new state, outcome)."""
    rules = get_ruleset(game)
    layout = state.positions
    if placement is not None:
        layout[0] = placement
    result = SIM.simulate(layout, shot)
    events = ShotEvents.from_log(result.events, rules.table, final_positions=result.positions,
                                 options=rules.options)
    new, outcome = rules.apply_shot(state, call, events)
    return result, events, new, outcome


def left_table(result, *balls: int) -> None:
    """Exactly ``balls`` left the table, each with one ``OffTable`` event at a rail's outer edge."""
    offs = [e for e in result.events if isinstance(e, OffTable)]
    assert sorted(e.ball for e in offs) == sorted(balls)
    assert sorted(result.off_table) == sorted(balls)
    for e in offs:
        x, y = e.position
        assert any(math.isclose(x, edge, abs_tol=1e-9) for edge in OUTER["x"]) or any(
            math.isclose(y, edge, abs_tol=1e-9) for edge in OUTER["y"]), e
        assert e.ball not in result.positions and e.ball not in result.pocketed


def mid_game(game: str, balls: dict, **fields) -> GameState:
    """Player 0 to shoot ``balls``; every other object ball of the game is down."""
    rules = get_ruleset(game)
    fields.setdefault("out_of_play", tuple(b for b in rules.object_balls if b not in balls))
    return position(game, balls, **fields)


def on_foot_spot_or_behind(state: GameState, ball: int) -> None:
    """``ball`` was spotted as WPA 1.4 says: on the foot spot, or behind it on the long string
    when the spot is taken, clear of every other ball."""
    x, y = state.position(ball)
    assert y == pytest.approx(FOOT_SPOT[1]) and x >= FOOT_SPOT[0] - 1e-9
    assert ball not in state.out_of_play
    for other, (ox, oy) in state.positions.items():
        if other != ball:
            assert math.hypot(x - ox, y - oy) >= 2 * TABLE.ball_radius - 1e-9


def rail_ball_layout(ball: int, others: dict | None = None) -> dict:
    """The rail-ball shot's layout with ``ball`` on the rail, plus ``others``."""
    return {0: CUE_BALL_FOR_RAIL_BALL, ball: RAIL_BALL, **(others or {})}


FAR = ((2.3, 0.2), (2.3, 0.4))  # spots no ball of the rail-ball shot reaches


# ----------------------------------------------------------------- nine-ball (WPA 2)
def test_wpa_6_1_nine_ball_cue_ball_flown_off_is_a_foul_ball_in_hand():
    state = mid_game("nine_ball", {0: CUE_BALL_NEAR_RAIL, **spread(3, 5, 9)})
    result, events, new, out = judge("nine_ball", state, CUE_BALL_OFF)
    left_table(result, 0)
    assert events.cue_ball_scratched
    assert "6.1" in out.foul_sections and out.winner is None
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE
    assert 0 not in new.on_table
    assert {b: new.position(b) for b in (3, 5, 9)} == spread(3, 5, 9)


def test_wpa_6_5_nine_ball_object_ball_off_is_a_foul_and_stays_down():
    state = mid_game("nine_ball", rail_ball_layout(3, {5: FAR[0], 9: FAR[1]}))
    result, events, new, out = judge("nine_ball", state, RAIL_BALL_OFF)
    left_table(result, 3)
    assert events.first_contact == 3
    assert out.foul_sections == ("6.5",) and out.spotted == ()
    assert 3 in new.out_of_play and 3 not in new.on_table
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE
    assert new.position(9) == FAR[1]


def test_wpa_2_6_nine_ball_nine_off_is_spotted_on_the_foot_spot():
    state = mid_game("nine_ball", rail_ball_layout(9))
    result, _, new, out = judge("nine_ball", state, RAIL_BALL_OFF)
    left_table(result, 9)
    assert out.foul_sections == ("6.5",) and out.winner is None
    assert [b for b, *_ in out.spotted] == [9]
    assert new.position(9) == pytest.approx(FOOT_SPOT) and 9 not in new.out_of_play
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE


# ----------------------------------------------------------------- ten-ball (WPA 9)
def test_wpa_6_1_ten_ball_cue_ball_flown_off_is_a_foul_ball_in_hand():
    state = mid_game("ten_ball", {0: CUE_BALL_NEAR_RAIL, **spread(2, 6, 10)})
    result, _, new, out = judge("ten_ball", state, CUE_BALL_OFF, ShotCall.called(2, "foot_left"))
    left_table(result, 0)
    assert "6.1" in out.foul_sections
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE
    assert 0 not in new.on_table and sorted(new.object_balls_on_table) == [2, 6, 10]


def test_wpa_6_5_ten_ball_object_ball_off_is_a_foul_and_stays_down():
    state = mid_game("ten_ball", rail_ball_layout(2, {6: FAR[0], 10: FAR[1]}))
    result, _, new, out = judge("ten_ball", state, RAIL_BALL_OFF, ShotCall.called(2, "foot_left"))
    left_table(result, 2)
    assert out.foul_sections == ("6.5",) and out.spotted == ()
    assert 2 in new.out_of_play and new.position(10) == FAR[1]
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE


def test_wpa_9_7_ten_ball_ten_off_is_spotted_on_the_foot_spot():
    state = mid_game("ten_ball", rail_ball_layout(10))
    result, _, new, out = judge("ten_ball", state, RAIL_BALL_OFF, ShotCall.called(10, "head_right"))
    left_table(result, 10)
    assert out.foul_sections == ("6.5",) and out.winner is None
    assert [b for b, *_ in out.spotted] == [10]
    assert new.position(10) == pytest.approx(FOOT_SPOT)
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE


# ----------------------------------------------------------------- eight-ball (WPA 3)
EIGHT = get_ruleset("eight_ball")
SOLIDS_STRIPES = ("solids", "stripes")


def eight_ball_break(seed: int, swap: tuple[int, int] | None = None) -> GameState:
    """A fresh eight-ball rack, with two balls' places exchanged when ``swap`` is given."""
    state = EIGHT.new_game(rng=seed)
    balls = state.positions
    if swap is not None:
        a, b = swap
        balls[a], balls[b] = balls[b], balls[a]
    return GameState(game="eight_ball", balls=balls, awaiting_break=True,
                     cue_ball_in_hand=CueBallZone.KITCHEN)


def test_wpa_3_3_h_eight_ball_cue_ball_off_on_the_break_is_a_foul_kitchen_in_hand():
    state = eight_ball_break(RACK_SEED_CUE_OFF)
    result, _, new, out = judge("eight_ball", state, BREAK_CUE_BALL_OFF, placement=BREAK_SPOT_CUE_OFF)
    left_table(result, 0)
    assert "6.1" in out.foul_sections and out.winner is None
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.KITCHEN
    assert new.pending.kind is DecisionKind.EIGHT_BALL_BREAK_FOUL and new.pending.player == 1


def test_wpa_3_3_g_eight_ball_object_ball_off_on_the_break_is_a_foul_and_stays_down():
    state = eight_ball_break(RACK_SEED_BALL_OFF)
    result, _, new, out = judge("eight_ball", state, BREAK_BALL_OFF, placement=BREAK_SPOT_BALL_OFF)
    left_table(result, 6)
    assert out.foul_sections == ("6.5",) and out.spotted == ()
    assert 6 in new.out_of_play and 6 not in new.on_table
    assert new.pending.kind is DecisionKind.EIGHT_BALL_BREAK_FOUL and new.pending.player == 1
    # The incoming player may take the cue ball in hand behind the head string instead.
    chose = EIGHT.apply_decision(new, Decision(Choice.KITCHEN_IN_HAND, player=1))
    assert chose.shooter == 1 and chose.cue_ball_in_hand is CueBallZone.KITCHEN
    assert 6 in chose.out_of_play


def test_wpa_3_7_eight_ball_eight_off_on_the_break_is_spotted_not_lost():
    # The rack of the test above with the 8-ball where the ball that flies off was: in a WPA
    # rack the 8-ball sits in the middle of row three, and none of 60,000 random elevated
    # breaks (2-40 degrees, aimed within 10 degrees of the apex) sent it off.
    state = eight_ball_break(RACK_SEED_BALL_OFF, swap=(8, 6))
    result, _, new, out = judge("eight_ball", state, BREAK_BALL_OFF, placement=BREAK_SPOT_BALL_OFF)
    left_table(result, 8)
    assert out.foul_sections == ("6.5",) and out.winner is None and not new.is_over
    assert [b for b, *_ in out.spotted] == [8]
    on_foot_spot_or_behind(new, 8)
    assert new.pending.kind is DecisionKind.EIGHT_BALL_BREAK_FOUL and new.pending.player == 1


def test_wpa_6_1_eight_ball_cue_ball_flown_off_after_the_break_is_a_foul_ball_in_hand():
    state = mid_game("eight_ball", {0: CUE_BALL_NEAR_RAIL, **spread(3, 8, 12)}, groups=SOLIDS_STRIPES)
    result, _, new, out = judge("eight_ball", state, CUE_BALL_OFF, ShotCall.called(3, "foot_left"))
    left_table(result, 0)
    assert "6.1" in out.foul_sections and out.winner is None
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE


def test_wpa_6_5_eight_ball_object_ball_off_after_the_break_is_a_foul_and_stays_down():
    state = mid_game("eight_ball", rail_ball_layout(3, {8: FAR[0], 12: FAR[1]}), groups=SOLIDS_STRIPES)
    result, _, new, out = judge("eight_ball", state, RAIL_BALL_OFF, ShotCall.called(3, "head_right"))
    left_table(result, 3)
    assert out.foul_sections == ("6.5",) and out.spotted == () and out.winner is None
    assert 3 in new.out_of_play and new.position(8) == FAR[0]
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE


def test_wpa_3_8_d_eight_ball_eight_off_after_the_break_loses():
    # Player 0 has cleared the solids and plays the called 8-ball, which flies off.
    state = mid_game("eight_ball", rail_ball_layout(8, {12: FAR[0]}), groups=SOLIDS_STRIPES)
    result, _, new, out = judge("eight_ball", state, RAIL_BALL_OFF, ShotCall.called(8, "head_right"))
    left_table(result, 8)
    assert out.winner == 1 and new.winner == 1 and new.is_over
    assert "3.8(d)" in out.end_reason


# ----------------------------------------------------------------- 14.1 (WPA 4)
SP = get_ruleset("straight_pool")


def straight_pool_break(seed: int) -> GameState:
    return SP.new_game(rng=seed)


def test_wpa_4_9_straight_pool_cue_ball_flown_off_is_a_foul_kitchen_in_hand():
    state = mid_game("straight_pool", {0: CUE_BALL_NEAR_RAIL, **spread(3, 5, 9)})
    result, _, new, out = judge("straight_pool", state, CUE_BALL_OFF, ShotCall.called(3, "foot_left"))
    left_table(result, 0)
    # No ball touched, so no rail after contact either (6.3): one standard foul's point.
    assert out.foul_sections == ("6.1", "6.3") and out.points == (-1, 0) and new.scores == (-1, 0)
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.KITCHEN
    assert {b: new.position(b) for b in (3, 5, 9)} == spread(3, 5, 9)


def test_wpa_4_6_straight_pool_object_ball_off_is_a_foul_and_spotted():
    state = mid_game("straight_pool", rail_ball_layout(3, {5: FAR[0], 9: FAR[1]}))
    result, _, new, out = judge("straight_pool", state, RAIL_BALL_OFF, ShotCall.called(3, "head_right"))
    left_table(result, 3)
    assert out.foul_sections == ("6.5",) and out.points == (-1, 0)
    assert [b for b, *_ in out.spotted] == [3] and new.position(3) == pytest.approx(FOOT_SPOT)
    # WPA 4.9: after any other foul than 6.1 or 6.11 the cue ball stays where it lies.
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.NONE
    assert new.position(0) == result.positions[0]


def test_wpa_4_10_straight_pool_cue_ball_off_on_the_break_is_a_break_foul_kitchen_in_hand():
    state = straight_pool_break(RACK_SEED_CUE_OFF)
    result, events, new, out = judge("straight_pool", state, BREAK_CUE_BALL_OFF,
                                     placement=BREAK_SPOT_CUE_OFF)
    left_table(result, 0)
    # The cue ball jumps the whole rack and flies off: no object ball reaches a cushion,
    # short of 4.3(b)'s two, so the scratch (6.1, and 6.3 with no ball touched) and the
    # break foul count as a break foul (4.10): 2 points, the incoming player's choice, the
    # cue ball in the kitchen.
    assert events.first_contact is None and not events.distinct_object_balls_to_cushion
    assert out.foul_sections == ("4.3", "6.1", "6.3") and out.points == (-2, 0)
    assert new.pending.kind is DecisionKind.STRAIGHT_POOL_BREAK_FOUL and new.pending.player == 1
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.KITCHEN


def test_wpa_4_6_straight_pool_object_ball_off_on_the_break_is_spotted():
    state = straight_pool_break(RACK_SEED_BALL_OFF)
    result, _, new, out = judge("straight_pool", state, BREAK_BALL_OFF, placement=BREAK_SPOT_BALL_OFF)
    left_table(result, 7)
    # Ball 7 off and balls 2 and 10 at a cushion, the cue ball too: a legal break (4.3(b), 8.4), so
    # only the standard foul 6.5 (1 point) with the cue ball left where it lies.
    assert out.foul_sections == ("6.5",) and out.points == (-1, 0) and new.pending is None
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.NONE
    assert [b for b, *_ in out.spotted] == [7]
    on_foot_spot_or_behind(new, 7)
    assert sorted(new.object_balls_on_table) == list(range(1, 16))
