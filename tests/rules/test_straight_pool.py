"""Fourteen-one continuous (WPA 4) with hand-entered events, the 4.8 re-rack table cell by
cell, a golden transcript and the random-rollout checker."""

import math
from dataclasses import replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from poolgym.rules import (Choice, CueBallZone, Decision, DecisionKind, DeclaredFoul, Penalty,
                           RuleOptions, RulesetCheckError, ShotCall, ShotEvents,
                           available_rulesets, check_ruleset, get_ruleset)
from poolgym.rules.straight_pool import (StraightPool, interferes_with_rack, on_head_spot,
                                         rack_outline)
from tests.rules.helpers import (FOOT_SPOT, HEAD_STRING_X, KITCHEN_SPOT, R, TABLE, play_script, position,
                                 spread)

SP = get_ruleset("straight_pool")
SLOTS = TABLE.rack_positions((1, 2, 3, 4, 5))  # apex first
HEAD_SPOT, CENTRE_SPOT = TABLE.head_spot, TABLE.centre_spot
ALL = tuple(range(1, 16))


def mid_game(balls=None, **fields):
    """Player 0 to shoot with the cue ball at (0.8, 0.6) and, by default, balls 3, 5 and 9
    spread out; every other ball is down."""
    balls = {0: (0.8, 0.6), **spread(3, 5, 9)} if balls is None else balls
    fields.setdefault("out_of_play", tuple(b for b in ALL if b not in balls))
    return position("straight_pool", balls, **fields)


def break_events(**events):
    events.setdefault("cue_ball_start", KITCHEN_SPOT)
    events.setdefault("first_contact", 1)
    return ShotEvents(**events)


LEGAL_BREAK = dict(cushion_balls={0, 4, 9})
FOUL_BREAK = dict(cushion_balls={0, 4})  # one object ball short (WPA 4.3(b))


# ----------------------------------------------------------------- 4.2 rack, target
def test_wpa_4_2_rack_fifteen_balls_apex_on_foot_spot_random_but_seeded():
    state = SP.new_game(rng=3)
    assert sorted(state.object_balls_on_table) == list(ALL)
    assert sorted(state.positions.values()) == sorted(SLOTS)
    assert any(p == pytest.approx(FOOT_SPOT) for p in state.positions.values())
    assert state.awaiting_break and state.cue_ball_in_hand is CueBallZone.KITCHEN
    assert SP.new_game(rng=5) == SP.new_game(rng=5)
    assert len({SP.new_game(rng=seed).balls for seed in range(10)}) > 5


def test_wpa_4_4_target_score_default_per_ruleset_and_per_game():
    assert SP.new_game(rng=0).target_score == 100
    assert get_ruleset("straight_pool", target_score=25).new_game(rng=0).target_score == 25
    assert SP.new_game(rng=0, target_score=7).target_score == 7
    with pytest.raises(ValueError, match="target score"):
        SP.new_game(rng=0, target_score=0)
    with pytest.raises(ValueError, match="target score"):
        get_ruleset("straight_pool", target_score=2.5)


# ----------------------------------------------------------------- 4.3 break
def test_wpa_4_3_break_two_object_balls_and_cue_ball_to_cushion_is_legal():
    new, out = SP.apply_shot(SP.new_game(rng=1), ShotCall(), break_events(**LEGAL_BREAK))
    assert out.legal and out.break_shot and out.points == (0, 0)
    assert new.shooter == 1 and not new.awaiting_break and new.pending is None
    assert new.cue_ball_in_hand is CueBallZone.NONE and new.position(0) == KITCHEN_SPOT


def test_wpa_4_3_break_called_ball_made_needs_no_cushions_scores_and_continues():
    new, out = SP.apply_shot(SP.new_game(rng=1), ShotCall.called(6, "foot_left"), break_events(
        pocketed={6: "foot_left", 11: "foot_right"}))
    assert out.legal and out.turn_kept and out.points == (2, 0)
    assert new.scores == (2, 0) and set(new.out_of_play) == {6, 11} and new.shooter == 0


def test_wpa_4_3_legal_break_without_a_made_call_spots_the_pocketed_balls():
    new, out = SP.apply_shot(SP.new_game(rng=1), ShotCall(), break_events(
        pocketed={6: "foot_left"}, **LEGAL_BREAK))
    assert out.legal and out.points == (0, 0) and out.pocketed_legally == ()
    assert [b for b, *_ in out.spotted] == [6] and new.out_of_play == () and new.shooter == 1


@pytest.mark.parametrize("call, events, sections", [
    (ShotCall(), dict(cushion_balls={0, 4}), ("4.3",)),  # one object ball
    (ShotCall(), dict(cushion_balls={3, 4, 8}), ("4.3",)),  # the cue ball reaches no cushion
    # nothing reaches a cushion: also 6.3, but it counts as a break foul (WPA 4.10)
    (ShotCall(), dict(), ("4.3", "6.3")),
    # the called ball drops in another pocket: the call is not made, so 4.3(b) applies
    (ShotCall.called(6, "head_left"), dict(pocketed={6: "foot_left"}, cushion_balls={0}),
     ("4.3",)),
])
def test_wpa_4_3_break_foul_costs_two_and_opponent_chooses(call, events, sections):
    new, out = SP.apply_shot(SP.new_game(rng=1), call, break_events(**events))
    assert out.foul_sections == sections and out.penalty is Penalty.BREAK_FOUL
    assert out.points == (-2, 0) and new.scores == (-2, 0)
    assert new.pending.kind is DecisionKind.STRAIGHT_POOL_BREAK_FOUL
    assert new.pending.player == 1 and new.pending.choices == (Choice.ACCEPT_TABLE, Choice.REBREAK)
    assert new.consecutive_fouls == (0, 0)
    # balls pocketed on a foul come back (WPA 4.6)
    assert new.out_of_play == () and sorted(new.object_balls_on_table) == list(ALL)


def test_wpa_4_3_repeated_rebreaks_each_cost_two_until_the_table_is_accepted():
    state = SP.new_game(rng=1)
    for n in (1, 2, 3):
        # the 5 drops, which counts as reaching a cushion (WPA 8.4), but no other ball does
        state, out = SP.apply_shot(state, ShotCall(), break_events(
            pocketed={5: "foot_left"}, cushion_balls={0}))
        assert out.points == (-2, 0) and state.scores == (-2 * n, 0)
        assert state.pending.player == 1
        if n < 3:
            state = SP.apply_decision(state, Decision(Choice.REBREAK, player=1))
            assert state.shooter == 0 and state.awaiting_break and state.pending is None
            assert state.cue_ball_in_hand is CueBallZone.KITCHEN and 0 not in state.on_table
            assert sorted(state.object_balls_on_table) == list(ALL) and state.out_of_play == ()
    accepted = SP.apply_decision(state, Decision(Choice.ACCEPT_TABLE))
    assert accepted.shooter == 1 and accepted.pending is None and not accepted.awaiting_break
    assert accepted.cue_ball_in_hand is CueBallZone.NONE and accepted.position(0) == KITCHEN_SPOT
    assert 5 in accepted.on_table and accepted.out_of_play == ()
    assert accepted.scores == (-6, 0) and accepted.consecutive_fouls == (0, 0)


def test_wpa_4_3_rebreak_ends_with_a_legal_break():
    state, _ = SP.apply_shot(SP.new_game(rng=1), ShotCall(), break_events(**FOUL_BREAK))
    state = SP.apply_decision(state, Decision(Choice.REBREAK))
    state, out = SP.apply_shot(state, ShotCall(), break_events(**LEGAL_BREAK))
    assert out.legal and state.pending is None and state.shooter == 1 and state.scores == (-2, 0)


def test_wpa_4_10_break_foul_with_a_scratch_counts_as_a_break_foul_kitchen_on_accept():
    new, out = SP.apply_shot(SP.new_game(rng=1), ShotCall(), break_events(
        pocketed={0: "head_left"}, cushion_balls={4}))
    assert out.foul_sections == ("4.3", "6.1") and out.penalty is Penalty.BREAK_FOUL
    assert out.points == (-2, 0) and new.consecutive_fouls == (0, 0)
    accepted = SP.apply_decision(new, Decision(Choice.ACCEPT_TABLE))
    assert accepted.cue_ball_in_hand is CueBallZone.KITCHEN and accepted.shooter == 1


def test_digest_8_9_option_off_break_foul_scratch_gives_cue_ball_anywhere():
    rules = StraightPool(RuleOptions(straight_pool_break_scratch_gives_kitchen=False))
    new, _ = rules.apply_shot(rules.new_game(rng=1), ShotCall(), break_events(
        pocketed={0: "head_left"}, cushion_balls={4}))
    assert rules.apply_decision(new, Decision(Choice.ACCEPT_TABLE)).cue_ball_in_hand is \
        CueBallZone.ANYWHERE


def test_wpa_4_10_legal_break_with_a_scratch_is_a_standard_foul():
    new, out = SP.apply_shot(SP.new_game(rng=1), ShotCall(), break_events(
        pocketed={0: "head_left", 8: "foot_left"}, cushion_balls={4, 9}))
    assert out.foul_sections == ("6.1",) and out.points == (-1, 0) and new.pending is None
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.KITCHEN
    assert 8 in new.on_table and new.consecutive_fouls == (1, 0)


def test_wpa_4_11_break_fouls_do_not_count_toward_three_fouls():
    state = replace(SP.new_game(rng=1), consecutive_fouls=(2, 0),
                    warned_on_two_fouls=(True, False))
    new, out = SP.apply_shot(state, ShotCall(), break_events(**FOUL_BREAK))
    assert out.foul_sections == ("4.3",) and out.points == (-2, 0)
    assert new.consecutive_fouls == (2, 0)


# ----------------------------------------------------------------- 4.4 play on, winning
def test_wpa_4_4_shooter_stays_while_making_calls_and_a_miss_ends_the_inning():
    state, out = SP.apply_shot(mid_game(), ShotCall.called(3, "side_left"), ShotEvents(
        first_contact=3, pocketed={3: "side_left"}))
    assert out.turn_kept and state.shooter == 0 and state.scores == (1, 0)
    state, out = SP.apply_shot(state, ShotCall.called(5, "foot_left"), ShotEvents(
        first_contact=5, cushion_after_contact={5}))
    assert out.legal and not out.turn_kept and state.shooter == 1 and state.inning == 2


def test_wpa_4_4_win_the_moment_the_target_is_reached():
    state = mid_game(scores=(98, 40), target_score=100)
    new, out = SP.apply_shot(state, ShotCall.called(3, "foot_left"), ShotEvents(
        first_contact=3, pocketed={3: "foot_left", 5: "side_left", 9: "head_right"}))
    assert out.points == (3, 0) and new.scores == (101, 40)
    assert out.winner == 0 and new.winner == 0 and new.is_over and out.next_shooter is None
    assert "101" in out.end_reason and "4.4" in out.end_reason


def test_wpa_4_4_one_short_of_the_target_plays_on():
    new, out = SP.apply_shot(mid_game(scores=(98, 40), target_score=100),
                             ShotCall.called(3, "foot_left"),
                             ShotEvents(first_contact=3, pocketed={3: "foot_left"}))
    assert out.winner is None and new.scores == (99, 40) and new.shooter == 0


def test_wpa_4_4_combination_leaving_one_ball_rerackss_while_two_left_does_not():
    state = mid_game()
    new, out = SP.apply_shot(state, ShotCall.called(5, "foot_left"), ShotEvents(
        first_contact=5, pocketed={5: "foot_left"}))
    assert out.reracked == () and sorted(new.object_balls_on_table) == [3, 9]
    new, out = SP.apply_shot(state, ShotCall.called(5, "foot_left"), ShotEvents(
        first_contact=3, pocketed={5: "foot_left", 3: "side_left"}))
    assert out.points == (2, 0) and len(out.reracked) == 14 and new.out_of_play == ()
    assert new.position(9) == spread(3, 5, 9)[9]  # the 15th ball is in nobody's way


# ----------------------------------------------------------------- 4.5 calls
def test_wpa_4_5_every_shot_after_the_break_needs_a_call():
    state = mid_game()
    with pytest.raises(ValueError, match="call"):
        SP.apply_shot(state, ShotCall(), ShotEvents(first_contact=3))
    with pytest.raises(ValueError, match="push out"):
        SP.apply_shot(state, ShotCall.push(), ShotEvents(first_contact=3))


def test_wpa_4_5_call_options_on_the_break_and_after_it():
    play = SP.call_options(mid_game())
    assert play[0] == ShotCall.safety_shot() and len(play) == 1 + 3 * 6
    assert ShotCall() not in play and ShotCall.called(9, "side_right") in play
    brk = SP.call_options(SP.new_game(rng=0))
    assert ShotCall() in brk and len(brk) == 2 + 15 * 6


def test_wpa_4_5_safety_spots_pocketed_balls_and_ends_the_inning():
    new, out = SP.apply_shot(mid_game(), ShotCall.safety_shot(), ShotEvents(
        first_contact=3, pocketed={5: "side_left"}))
    assert out.legal and out.points == (0, 0) and new.shooter == 1
    assert out.spotted == ((5, *FOOT_SPOT),) and new.position(5) == FOOT_SPOT


def test_wpa_4_5_any_ball_may_be_hit_first():
    new, out = SP.apply_shot(mid_game(), ShotCall.called(9, "foot_right"), ShotEvents(
        first_contact=5, pocketed={9: "foot_right"}))
    assert out.legal and out.points == (1, 0) and out.turn_kept


# ----------------------------------------------------------------- 4.6 spotting
def test_wpa_4_6_missed_call_spots_every_ball_pocketed_lowest_nearest_the_foot_spot():
    new, out = SP.apply_shot(mid_game(), ShotCall.called(3, "foot_left"), ShotEvents(
        first_contact=3, pocketed={9: "foot_left", 3: "side_left"}))
    assert out.legal and out.points == (0, 0) and out.pocketed_legally == ()
    assert [b for b, *_ in out.spotted] == [3, 9] and new.position(3) == FOOT_SPOT
    assert new.position(9)[0] > FOOT_SPOT[0] and new.shooter == 1


def test_wpa_4_6_ball_driven_off_the_table_is_spotted_and_is_a_foul():
    new, out = SP.apply_shot(mid_game(), ShotCall.called(3, "foot_left"), ShotEvents(
        first_contact=3, pocketed={3: "foot_left"}, off_table={5}))
    assert out.foul_sections == ("6.5",) and out.points == (-1, 0)
    assert {b for b, *_ in out.spotted} == {3, 5} and new.out_of_play == mid_game().out_of_play


# ----------------------------------------------------------------- 4.7 scoring
def test_wpa_4_7_called_ball_and_every_other_ball_on_the_shot_score_one_each():
    new, out = SP.apply_shot(mid_game(scores=(4, 2)), ShotCall.called(5, "side_right"),
                             ShotEvents(first_contact=3, pocketed={3: "foot_left",
                                                                   5: "side_right"}))
    assert out.points == (2, 0) and new.scores == (6, 2) and set(out.pocketed_legally) == {3, 5}


def test_wpa_4_7_called_ball_in_another_pocket_scores_nothing():
    new, out = SP.apply_shot(mid_game(), ShotCall.called(5, "side_right"), ShotEvents(
        first_contact=5, pocketed={5: "side_left"}))
    assert out.points == (0, 0) and 5 in new.on_table and new.shooter == 1


def test_wpa_4_7_foul_costs_one_point_scores_go_negative_and_pots_are_spotted():
    new, out = SP.apply_shot(mid_game(shooter=1), ShotCall.called(5, "side_right"),
                             ShotEvents(first_contact=5, pocketed={5: "side_right",
                                                                   0: "foot_left"}))
    assert out.foul_sections == ("6.1",) and out.points == (0, -1) and new.scores == (0, -1)
    assert 5 in new.on_table and out.pocketed_legally == ()


# ----------------------------------------------------------------- 4.9 the cue ball after a foul
def test_wpa_4_9_cue_ball_stays_where_it_is_after_a_standard_foul():
    new, out = SP.apply_shot(mid_game(), ShotCall.called(3, "side_left"), ShotEvents(
        first_contact=3, final_positions={0: (1.6, 0.9), 3: (1.0, 0.3), 5: (1.1, 0.3),
                                          9: (1.2, 0.3)}))
    assert out.foul_sections == ("6.3",) and new.shooter == 1
    assert new.cue_ball_in_hand is CueBallZone.NONE and new.position(0) == (1.6, 0.9)


@pytest.mark.parametrize("events", [dict(pocketed={0: "side_left"}), dict(off_table={0})])
def test_wpa_4_9_cue_ball_pocketed_or_off_the_table_gives_kitchen(events):
    new, out = SP.apply_shot(mid_game(), ShotCall.called(3, "side_left"),
                             ShotEvents(first_contact=3, **events))
    assert out.foul_sections == ("6.1",) and new.cue_ball_in_hand is CueBallZone.KITCHEN


def in_hand_with_a_kitchen_ball():
    """Player 0 in hand in the kitchen; ball 3 lies in the kitchen, 5 and 9 beyond."""
    return mid_game({3: (0.3, 0.3), 5: (1.1, 0.3), 9: (1.2, 0.3)},
                    cue_ball_in_hand=CueBallZone.KITCHEN)


def test_wpa_4_9_first_paragraph_6_11_gives_kitchen_under_digest_8_8():
    events = ShotEvents(cue_ball_start=(0.5, 0.3), first_contact=3, cushion_after_contact={3},
                        crossed_head_string_before_contact=False, ever_crossed_head_string=True,
                        final_positions={0: (0.9, 0.6), 3: (0.2, 0.2), 5: (1.1, 0.3),
                                         9: (1.2, 0.3)})
    new, out = SP.apply_shot(in_hand_with_a_kitchen_ball(), ShotCall.called(3, "head_left"),
                             events)
    assert out.foul_sections == ("6.11",) and new.cue_ball_in_hand is CueBallZone.KITCHEN
    only_second = StraightPool(RuleOptions(straight_pool_any_6_11_gives_kitchen=False))
    new, _ = only_second.apply_shot(in_hand_with_a_kitchen_ball(),
                                    ShotCall.called(3, "head_left"), events)
    assert new.cue_ball_in_hand is CueBallZone.NONE and new.position(0) == (0.9, 0.6)


def test_wpa_4_9_second_paragraph_6_11_gives_kitchen_under_either_reading():
    events = ShotEvents(cue_ball_start=(0.5, 0.3), first_contact=3, cushion_after_contact={3},
                        crossed_head_string_before_contact=False, ever_crossed_head_string=False)
    for rules in (SP, StraightPool(RuleOptions(straight_pool_any_6_11_gives_kitchen=False))):
        new, out = rules.apply_shot(in_hand_with_a_kitchen_ball(),
                                    ShotCall.called(3, "head_left"), events)
        assert out.foul_sections == ("6.11",) and new.cue_ball_in_hand is CueBallZone.KITCHEN


def test_wpa_4_9_cue_ball_going_in_hand_does_not_block_the_spotting():
    events = ShotEvents(cue_ball_start=(0.5, 0.3), first_contact=3, pocketed={5: "foot_left"},
                        crossed_head_string_before_contact=False, ever_crossed_head_string=True,
                        final_positions={0: FOOT_SPOT, 3: (0.2, 0.2), 9: (1.2, 0.3)})
    new, out = SP.apply_shot(in_hand_with_a_kitchen_ball(), ShotCall.called(3, "head_left"),
                             events)
    assert out.foul_sections == ("6.11",) and new.cue_ball_in_hand is CueBallZone.KITCHEN
    assert new.position(5) == FOOT_SPOT


def test_wpa_4_9_bad_placement_6_10_leaves_the_cue_ball_where_it_lies():
    state = mid_game(spread(3, 5, 9), cue_ball_in_hand=CueBallZone.KITCHEN)
    new, out = SP.apply_shot(state, ShotCall.called(3, "foot_left"), ShotEvents(
        cue_ball_start=(HEAD_STRING_X + 0.05, 0.6), first_contact=3, pocketed={3: "foot_left"}))
    assert out.foul_sections == ("6.10",) and out.points == (-1, 0)
    assert new.cue_ball_in_hand is CueBallZone.NONE
    assert new.position(0) == (HEAD_STRING_X + 0.05, 0.6)
    assert 3 in new.on_table


def test_wpa_4_9_declared_foul_costs_one_point():
    new, out = SP.apply_shot(mid_game(), ShotCall.called(3, "foot_left"), ShotEvents(
        first_contact=3, pocketed={3: "foot_left"}, declared_fouls=(DeclaredFoul("6.6"),)))
    assert out.foul_sections == ("6.6",) and out.points == (-1, 0) and 3 in new.on_table


# ----------------------------------------------------------------- 4.11 serious fouls
def test_wpa_4_11_third_consecutive_foul_costs_sixteen_and_the_count_restarts():
    state = mid_game(scores=(10, 0), consecutive_fouls=(2, 0), warned_on_two_fouls=(True, False))
    new, out = SP.apply_shot(state, ShotCall.called(3, "foot_left"), ShotEvents(first_contact=3))
    assert out.foul_sections == ("6.3", "6.14") and out.penalty is Penalty.SERIOUS
    assert out.points == (-16, 0) and new.scores == (-6, 0)
    assert new.consecutive_fouls == (0, 0) and new.warned_on_two_fouls == (False, False)
    assert not new.is_over and new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.NONE


def test_wpa_4_11_three_fouls_in_a_row_with_the_warning_between_innings():
    state, miss = mid_game(), ShotEvents(first_contact=3, cushion_after_contact={3})
    foul = ShotEvents(first_contact=3)  # no rail: 6.3
    points = []
    for shooter_events in (foul, miss, foul, miss, foul):
        state, out = SP.apply_shot(state, ShotCall.called(3, "foot_left"), shooter_events)
        points.append(out.points)
    assert points == [(-1, 0), (0, 0), (-1, 0), (0, 0), (-16, 0)]
    assert state.scores == (-18, 0) and state.consecutive_fouls == (0, 0)


def test_digest_8_7_third_foul_rerack_option_the_offender_breaks_all_fifteen():
    rules = StraightPool(RuleOptions(straight_pool_third_foul_rerack=True))
    state = mid_game(consecutive_fouls=(2, 0), warned_on_two_fouls=(True, False), breaker=1)
    new, out = rules.apply_shot(state, ShotCall.called(3, "foot_left"),
                                ShotEvents(first_contact=3))
    assert out.points == (-16, 0) and new.shooter == 0 and new.breaker == 0
    assert new.awaiting_break and new.cue_ball_in_hand is CueBallZone.KITCHEN
    assert sorted(new.positions.values()) == sorted(SLOTS) and new.out_of_play == ()
    assert len(out.reracked) == 15


def test_wpa_6_16_loss_of_rack_loses_the_game():
    new, out = SP.apply_shot(mid_game(), ShotCall.called(3, "foot_left"), ShotEvents(
        first_contact=3, cushion_after_contact={3},
        declared_fouls=(DeclaredFoul("6.16", Penalty.LOSS_OF_RACK),)))
    assert new.winner == 1 and out.winner == 1 and out.points == (0, 0)


# ----------------------------------------------------------------- 4.8 re-racking
APEX = rack_outline(TABLE)[0]
IN_RACK = (2.0, 0.6)
CUE_IN_RACK = (2.05, 0.66)
ELSEWHERE = (1.3, 0.25)  # past the head string, clear of the rack and the head spot
ELSEWHERE_2 = (1.0, 1.0)
IN_KITCHEN = (0.3, 0.3)
ON_HEAD_SPOT_IN_KITCHEN = (0.6, 0.66)  # centre in the kitchen, in the way of the head spot
CUE_ON_HEAD_SPOT = (0.66, 0.62)
OTHERS = tuple(b for b in ALL if b not in (7, 12))


def rerack(fifteenth, cue, *, fifteenth_pocketed=False, rules=SP):
    """Player 0 makes the called 7 with only 7 and 12 left: 12 is the 15th ball, coming to
    rest at ``fifteenth`` (or pocketed too), the cue ball at ``cue``."""
    state = mid_game({0: (1.0, 0.4), 7: (1.5, 0.3), 12: (1.5, 0.9)}, scores=(20, 30))
    pocketed, final = {7: "foot_left"}, {0: cue}
    if fifteenth_pocketed:
        pocketed[12] = "side_left"
    else:
        final[12] = fifteenth
    return rules.apply_shot(state, ShotCall.called(7, "foot_left"), ShotEvents(
        first_contact=7, pocketed=pocketed, final_positions=final))


def assert_racked(new, out, *, full):
    racked = {b: (x, y) for b, x, y in out.reracked}
    expected_balls = list(ALL) if full else list(OTHERS) + [7]
    assert sorted(racked) == sorted(expected_balls)
    assert sorted(racked.values()) == sorted(SLOTS if full else SLOTS[1:])
    assert all(new.position(b) == p for b, p in racked.items())
    assert new.out_of_play == () and sorted(new.object_balls_on_table) == list(ALL)
    assert out.turn_kept and new.shooter == 0 and not new.awaiting_break
    assert new.scores == (20 + out.points[0], 30) and out.points[0] in (1, 2)


def test_wpa_4_8_15th_in_rack_cue_in_rack_15th_on_foot_spot_cue_in_hand_kitchen():
    new, out = rerack(IN_RACK, CUE_IN_RACK)
    assert_racked(new, out, full=True)
    assert new.position(12) == SLOTS[0] == pytest.approx(FOOT_SPOT)
    assert new.cue_ball_in_hand is CueBallZone.KITCHEN and 0 not in new.on_table


def test_wpa_4_8_15th_in_rack_cue_elsewhere_15th_on_head_spot_cue_stays():
    new, out = rerack(IN_RACK, ELSEWHERE)
    assert_racked(new, out, full=False)
    assert new.position(12) == HEAD_SPOT and new.position(0) == ELSEWHERE
    assert new.cue_ball_in_hand is CueBallZone.NONE


def test_wpa_4_8_15th_in_rack_cue_on_head_spot_15th_on_centre_spot_cue_stays():
    new, out = rerack(IN_RACK, CUE_ON_HEAD_SPOT)
    assert_racked(new, out, full=False)
    assert new.position(12) == CENTRE_SPOT and new.position(0) == CUE_ON_HEAD_SPOT


def test_wpa_4_8_15th_pocketed_cue_in_rack_all_fifteen_racked_cue_in_hand_kitchen():
    new, out = rerack(None, CUE_IN_RACK, fifteenth_pocketed=True)
    assert_racked(new, out, full=True)
    assert out.points == (2, 0) and new.cue_ball_in_hand is CueBallZone.KITCHEN


@pytest.mark.parametrize("cue", [ELSEWHERE, CUE_ON_HEAD_SPOT])
def test_wpa_4_8_15th_pocketed_cue_out_of_the_rack_all_fifteen_racked_cue_stays(cue):
    new, out = rerack(None, cue, fifteenth_pocketed=True)
    assert_racked(new, out, full=True)
    assert new.position(0) == cue and new.cue_ball_in_hand is CueBallZone.NONE


def test_wpa_4_8_15th_in_kitchen_cue_in_rack_cue_on_head_spot():
    new, out = rerack(IN_KITCHEN, CUE_IN_RACK)
    assert_racked(new, out, full=False)
    assert new.position(12) == IN_KITCHEN and new.position(0) == HEAD_SPOT
    assert new.cue_ball_in_hand is CueBallZone.NONE


@pytest.mark.parametrize("fifteenth", [ELSEWHERE, (HEAD_STRING_X, 0.2)])
def test_wpa_4_8_15th_past_or_on_head_string_cue_in_rack_cue_in_hand_kitchen(fifteenth):
    new, out = rerack(fifteenth, CUE_IN_RACK)
    assert_racked(new, out, full=False)
    assert new.position(12) == fifteenth and new.cue_ball_in_hand is CueBallZone.KITCHEN
    assert 0 not in new.on_table


@pytest.mark.parametrize("fifteenth", [ON_HEAD_SPOT_IN_KITCHEN, HEAD_SPOT])
def test_wpa_4_8_15th_on_head_spot_cue_in_rack_cue_on_centre_spot(fifteenth):
    # HEAD_SPOT itself lies on the head string: the table's head-spot row still applies.
    new, out = rerack(fifteenth, CUE_IN_RACK)
    assert_racked(new, out, full=False)
    assert new.position(12) == fifteenth and new.position(0) == CENTRE_SPOT
    assert new.cue_ball_in_hand is CueBallZone.NONE


@pytest.mark.parametrize("fifteenth", [IN_KITCHEN, ELSEWHERE, ON_HEAD_SPOT_IN_KITCHEN])
@pytest.mark.parametrize("cue", [ELSEWHERE_2, CUE_ON_HEAD_SPOT])
def test_wpa_4_8_empty_cells_neither_ball_in_the_way_both_stay(fifteenth, cue):
    new, out = rerack(fifteenth, cue)
    assert_racked(new, out, full=False)
    assert new.position(12) == fifteenth and new.position(0) == cue


def test_wpa_4_8_partly_inside_the_rack_area_interferes_touching_from_outside_does_not():
    partly = (APEX[0] - R / 2, APEX[1])
    outside = (APEX[0] - R - 1e-4, APEX[1])
    assert interferes_with_rack(partly, TABLE) and not interferes_with_rack(outside, TABLE)
    assert interferes_with_rack(IN_RACK, TABLE) and not interferes_with_rack(ELSEWHERE, TABLE)
    new, _ = rerack(partly, ELSEWHERE)
    assert new.position(12) == HEAD_SPOT
    new, _ = rerack(outside, ELSEWHERE)
    assert new.position(12) == outside
    new, _ = rerack(ELSEWHERE, partly)
    assert new.cue_ball_in_hand is CueBallZone.KITCHEN


def test_wpa_4_8_on_head_spot_means_in_the_way_of_a_ball_spotted_there():
    assert on_head_spot(HEAD_SPOT, TABLE) and on_head_spot(CUE_ON_HEAD_SPOT, TABLE)
    assert not on_head_spot((HEAD_SPOT[0] - 2 * R - 1e-4, HEAD_SPOT[1]), TABLE)


def test_wpa_4_8_rack_outline_touches_the_outer_balls_of_a_full_rack():
    corners = rack_outline(TABLE)
    for i, (ax, ay) in enumerate(corners):
        bx, by = corners[(i + 1) % 3]
        side = math.hypot(bx - ax, by - ay)
        # each corner ball of the rack lies one radius from the two sides through it
        assert side == pytest.approx(8 * (R + 5e-6) + 2 * math.sqrt(3) * R, abs=1e-4)


def test_digest_8_10_full_rerack_is_no_opening_break_unless_the_option_says_so():
    new, _ = rerack(None, ELSEWHERE, fifteenth_pocketed=True)
    with pytest.raises(ValueError, match="call"):
        SP.apply_shot(new, ShotCall(), ShotEvents(first_contact=3, cushion_after_contact={3}))
    as_break = StraightPool(RuleOptions(straight_pool_full_rerack_is_break=True))
    new, out = rerack(None, ELSEWHERE, fifteenth_pocketed=True, rules=as_break)
    assert new.awaiting_break and new.shooter == 0 and new.cue_ball_in_hand is CueBallZone.KITCHEN
    new, _ = rerack(IN_RACK, ELSEWHERE, rules=as_break)  # 14 balls: never a break
    assert not new.awaiting_break


def test_wpa_4_6_15th_ball_spotted_at_the_apex_of_the_untouched_rack():
    racked, _ = rerack(IN_RACK, ELSEWHERE)  # the 12 went to the head spot
    new, out = SP.apply_shot(racked, ShotCall.called(12, "side_left"), ShotEvents(
        first_contact=12, pocketed={12: "foot_right"}))
    assert out.legal and out.spotted == ((12, *SLOTS[0]),) and new.shooter == 1


def test_wpa_4_8_after_the_rerack_any_ball_may_be_hit_first_from_the_kitchen():
    racked, _ = rerack(ELSEWHERE, CUE_IN_RACK)  # cue ball in hand behind the head string
    new, out = SP.apply_shot(racked, ShotCall.called(3, "foot_left"), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=3, pocketed={3: "foot_left"}))
    assert out.legal and out.points == (1, 0) and new.scores == (22, 30)


@settings(max_examples=100, deadline=None)
@given(fifteenth=st.one_of(st.none(), st.tuples(st.floats(0.2, 2.3), st.floats(0.2, 1.07))),
       cue=st.tuples(st.floats(0.2, 2.3), st.floats(0.2, 1.07)))
def test_wpa_4_8_any_rerack_leaves_a_legal_layout(fifteenth, cue):
    assume(fifteenth is None or math.dist(fifteenth, cue) >= 2 * R + 1e-6)
    new, out = rerack(fifteenth, cue, fifteenth_pocketed=fifteenth is None)
    balls = new.positions
    assert sorted(new.object_balls_on_table) == list(ALL) and new.out_of_play == ()
    for a, p in balls.items():
        assert TABLE.contains(*p)
        assert all(math.dist(p, q) >= 2 * R - 1e-9 for b, q in balls.items() if b != a)
    cue_in_way = interferes_with_rack(cue, TABLE)
    assert (new.cue_ball_in_hand is CueBallZone.KITCHEN) == (0 not in balls)
    if not cue_in_way:
        assert balls[0] == cue
    for ball in (0, 12):  # nothing left in the rack area but the racked balls
        if ball in balls and ball not in {b for b, *_ in out.reracked}:
            assert not interferes_with_rack(balls[ball], TABLE)


# ----------------------------------------------------------------- 4.12 stalemate, next game
def test_wpa_4_12_stalemate_scores_stand_fouls_cleared_all_fifteen_racked():
    state = mid_game(scores=(37, 52), consecutive_fouls=(1, 2), target_score=60)
    over = SP.agree_stalemate(state)
    assert over.stalemate and over.scores == (37, 52)
    again = SP.next_rack(over, rng=4, breaker=1)
    assert again.scores == (37, 52) and again.consecutive_fouls == (0, 0)
    assert again.breaker == again.shooter == 1 and again.awaiting_break
    assert sorted(again.object_balls_on_table) == list(ALL) and again.target_score == 60
    assert SP.next_rack(over, rng=4).breaker == 0  # without a lag: the same breaker


def test_digest_8_11_option_off_stalemate_restarts_from_zero():
    rules = StraightPool(RuleOptions(straight_pool_stalemate_scores_stand=False))
    over = rules.agree_stalemate(mid_game(scores=(37, 52)))
    assert rules.next_rack(over, rng=4).scores == (0, 0)


def test_wpa_4_4_next_game_after_a_win_starts_from_zero():
    won, _ = SP.apply_shot(mid_game(scores=(9, 3), target_score=10),
                           ShotCall.called(3, "foot_left"),
                           ShotEvents(first_contact=3, pocketed={3: "foot_left"}))
    fresh = SP.next_rack(won, rng=1)
    assert won.winner == 0 and fresh.scores == (0, 0) and fresh.target_score == 10
    with pytest.raises(ValueError, match="still being played"):
        SP.next_rack(mid_game())


# ----------------------------------------------------------------- 1.5 in 14.1, registry
def test_wpa_1_5_spot_request_after_a_scratch_once_declined_is_not_offered_again():
    state = mid_game({0: (0.8, 0.6), 3: (0.3, 0.3), 5: (0.2, 0.9)})
    new, out = SP.apply_shot(state, ShotCall.called(3, "head_left"), ShotEvents(
        first_contact=3, pocketed={0: "head_left"}))
    assert out.pending.kind is DecisionKind.SPOT_REQUEST and out.pending.balls == (3,)
    declined = SP.apply_decision(new, Decision(Choice.DECLINE_SPOT))
    assert declined.pending is None and declined.position(3) == (0.3, 0.3)
    spotted = SP.apply_decision(new, Decision(Choice.SPOT_BALL, ball=3))
    assert spotted.pending is None and spotted.position(3) == FOOT_SPOT


def test_registered_by_name():
    assert isinstance(SP, StraightPool) and SP.name == "straight_pool"
    assert "straight_pool" in available_rulesets()


# ----------------------------------------------------------------- bad input
def test_call_naming_a_ball_not_on_the_table_is_rejected_and_nothing_changes():
    state = mid_game()
    before = state.to_json()
    with pytest.raises(ValueError, match="ball 7, which is not on the table"):
        SP.apply_shot(state, ShotCall.called(7, "foot_left"), ShotEvents(first_contact=3))
    with pytest.raises(ValueError, match="unknown ball 16"):
        SP.apply_shot(state, ShotCall.called(3, "foot_left"), ShotEvents(first_contact=16))
    assert state.to_json() == before


def test_break_foul_decision_takes_only_accept_or_rebreak():
    state, _ = SP.apply_shot(SP.new_game(rng=1), ShotCall(), break_events(**FOUL_BREAK))
    with pytest.raises(ValueError, match="not a choice"):
        SP.apply_decision(state, Decision(Choice.PASS_BACK))
    with pytest.raises(ValueError, match="player 1's"):
        SP.apply_decision(state, Decision(Choice.REBREAK, player=0))
    with pytest.raises(ValueError, match="decision is pending"):
        SP.apply_shot(state, ShotCall.safety_shot(), ShotEvents(first_contact=3))


# ----------------------------------------------------------------- golden transcript
K = KITCHEN_SPOT
SHORT_GAME = [
    # a break foul (one object ball to a cushion): -2, player 1 has the breaker break again
    (ShotCall(), dict(cue_ball_start=K, first_contact=1, cushion_balls={0, 2}),
     dict(fouls=["4.3"], penalty="break_foul", points=[-2, 0],
          pending={"kind": "straight_pool_break_foul", "player": 1})),
    Decision(Choice.REBREAK),
    (ShotCall(), dict(cue_ball_start=K, first_contact=1, cushion_balls={0, 2, 3}),
     dict(legal=True, points=[0, 0], next_shooter=1)),
    (ShotCall.called(4, "foot_left"), dict(first_contact=4, pocketed={4: "foot_left",
                                                                      6: "side_right"}),
     dict(legal=True, points=[0, 2], turn_kept=True, pocketed_legally=[4, 6])),
    # the call fails: the 5 is spotted and the inning ends (WPA 4.6)
    (ShotCall.called(5, "head_left"), dict(first_contact=5, pocketed={5: "side_left"}),
     dict(legal=True, points=[0, 0], next_shooter=0, pocketed_legally=[])),
    (ShotCall.called(8, "foot_right"), dict(first_contact=8, pocketed={0: "foot_right"}),
     dict(fouls=["6.1"], points=[-1, 0], next_shooter=1, cue_ball_in_hand="kitchen")),
    (ShotCall.safety_shot(), dict(cue_ball_start=K, first_contact=9,
                                  cushion_after_contact={9}),
     dict(legal=True, points=[0, 0], next_shooter=0)),
    (ShotCall.called(9, "side_left"), dict(first_contact=9, pocketed={9: "side_left"}),
     dict(legal=True, points=[1, 0], turn_kept=True)),
    (ShotCall.called(10, "foot_left"), dict(first_contact=10),
     dict(fouls=["6.3"], points=[-1, 0], next_shooter=1, cue_ball_in_hand="none")),
    # three balls on a made call reach the target of 5 (WPA 4.4, 4.7)
    (ShotCall.called(11, "foot_left"), dict(first_contact=11, pocketed={
        11: "foot_left", 12: "foot_right", 13: "side_left"}),
     dict(legal=True, points=[0, 3], winner=1, next_shooter=None)),
]


def test_scripted_short_game_to_five():
    state, outcomes = play_script(SP, SP.new_game(rng=7, breaker=0, target_score=5), SHORT_GAME)
    total = [sum(o.points[0] for o in outcomes), sum(o.points[1] for o in outcomes)]
    assert state.is_over and state.winner == 1
    assert state.scores == tuple(total) == (-3, 5)


# ----------------------------------------------------------------- random rollouts
def test_check_ruleset_passes_over_a_thousand_short_games():
    report = check_ruleset(get_ruleset("straight_pool", target_score=2), n_games=1000, seed=14)
    assert report.games == 1000
    assert sum(report.wins.values()) + report.stalemates == 1000
    assert report.wins[0] > 250 and report.wins[1] > 250
    for section in ("4.3", "6.1", "6.3", "6.5", "6.10", "6.11", "6.14"):
        assert report.fouls[section] > 0, section
    assert report.decision_kinds["straight_pool_break_foul"] > 0


class ScoresWithoutTelling(StraightPool):
    """Broken: a made call adds a point the outcome does not report."""

    def conclude(self, state, call, events, verdict):
        new, outcome = super().conclude(state, call, events, verdict)
        if outcome.pocketed_legally:
            new = replace(new, scores=(new.scores[0] + 1, new.scores[1]))
        return new, outcome


def test_check_ruleset_catches_scores_that_do_not_match_the_outcomes():
    with pytest.raises(RulesetCheckError, match="do not match the outcomes' points"):
        check_ruleset(ScoresWithoutTelling(target_score=3), n_games=50, seed=1)


class CountsReracks(StraightPool):
    """Fourteen-one that counts its re-racks during play, to show the rollouts reach them."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.reracks = 0

    def rerack_during_play(self, state, verdict):
        self.reracks += 1
        super().rerack_during_play(state, verdict)


def test_check_ruleset_passes_through_reracks_in_long_games():
    rules = CountsReracks(target_score=40)
    report = check_ruleset(rules, n_games=12, seed=9, max_shots=250)
    assert report.games == 12 and rules.reracks >= 20
