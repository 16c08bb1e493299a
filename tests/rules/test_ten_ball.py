"""Ten-ball (WPA 9; 9.5-9.10 per the digest's resolution 8.6) with hand-entered events."""

import pytest

from poolgym.rules import (Choice, CueBallZone, Decision, DecisionKind, RuleOptions, ShotCall,
                           ShotEvents, get_ruleset)
from tests.rules.helpers import FOOT_SPOT, KITCHEN_SPOT, R, position, spread

TEN = get_ruleset("ten_ball")


def mid_rack(**fields):
    balls = {0: (0.8, 0.6), **spread(2, 6, 10)}
    return position("ten_ball", balls, **fields)


def test_wpa_9_2_rack_triangle_one_on_foot_spot_ten_in_middle_of_row_three():
    state = TEN.new_game(rng=4)
    assert state.position(1) == pytest.approx(FOOT_SPOT)
    x10, y10 = state.position(10)
    assert y10 == pytest.approx(FOOT_SPOT[1])
    assert x10 == pytest.approx(FOOT_SPOT[0] + 3 ** 0.5 * 2 * R, abs=1e-4)
    assert sorted(state.on_table) == list(range(1, 11))
    rows = sorted({round(x, 6) for _, x, _ in state.balls})
    assert len(rows) == 4


def test_wpa_9_3_break_ten_pocketed_wins_by_default():
    state = TEN.new_game(rng=4)
    new, out = TEN.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=1, pocketed={10: "side_left"}))
    assert out.winner == 0 and new.winner == 0


def test_wpa_9_3_break_ten_spotted_when_option_off():
    rules = get_ruleset("ten_ball", options=RuleOptions(ten_ball_break_ten_wins=False))
    state = rules.new_game(rng=4)
    new, out = rules.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=1, pocketed={10: "side_left"}))
    assert out.winner is None and out.turn_kept and out.spotted[0][0] == 10
    assert new.push_out_available and 10 in new.on_table


def test_wpa_9_3_illegal_break_is_a_foul():
    state = TEN.new_game(rng=4)
    new, out = TEN.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=1, cushion_balls={3, 4}))
    assert out.foul_sections == ("9.3",) and new.cue_ball_in_hand is CueBallZone.ANYWHERE


def test_wpa_9_3_no_call_on_the_break():
    with pytest.raises(ValueError, match="no call on the break"):
        TEN.apply_shot(TEN.new_game(rng=4), ShotCall.called(1, "foot_left"),
                       ShotEvents(cue_ball_start=KITCHEN_SPOT, first_contact=1))


def test_wpa_9_4_push_out_ten_spotted_without_penalty():
    state = mid_rack(shooter=1, push_out_available=True)
    new, out = TEN.apply_shot(state, ShotCall.push(), ShotEvents(
        first_contact=10, pocketed={10: "foot_right"}))
    assert out.legal and out.winner is None and out.spotted[0][0] == 10
    assert new.pending.kind is DecisionKind.PUSH_OUT_RESPONSE and new.pending.player == 0


def test_wpa_9_4_push_out_pass_back():
    state = mid_rack(shooter=1, push_out_available=True)
    new, _ = TEN.apply_shot(state, ShotCall.push(), ShotEvents(first_contact=6))
    new = TEN.apply_decision(new, Decision(Choice.PASS_BACK))
    assert new.shooter == 1 and new.pending is None


def test_wpa_9_5_call_required_after_the_break():
    with pytest.raises(ValueError, match="needs a call"):
        TEN.apply_shot(mid_rack(), ShotCall(), ShotEvents(first_contact=2))


def test_wpa_9_6_called_ball_made_continues():
    new, out = TEN.apply_shot(mid_rack(), ShotCall.called(2, "side_left"), ShotEvents(
        first_contact=2, pocketed={2: "side_left"}))
    assert out.legal and out.turn_kept and out.pocketed_legally == (2,)
    assert new.shooter == 0 and 2 in new.out_of_play


def test_wpa_9_6_called_ten_made_wins():
    new, out = TEN.apply_shot(mid_rack(), ShotCall.called(10, "foot_left"), ShotEvents(
        first_contact=2, pocketed={10: "foot_left"}))
    assert out.winner == 0 and "10-ball" in out.end_reason


def test_wpa_9_6_ten_in_the_wrong_pocket_is_spotted_and_opponent_chooses():
    new, out = TEN.apply_shot(mid_rack(), ShotCall.called(10, "foot_left"), ShotEvents(
        first_contact=2, pocketed={10: "foot_right"}))
    assert out.legal and out.winner is None and [b for b, *_ in out.spotted] == [10]
    assert new.pending.kind is DecisionKind.UNCALLED_POT_RESPONSE and new.pending.player == 1


def test_wpa_9_6_uncalled_pot_opponent_may_hand_the_table_back():
    new, out = TEN.apply_shot(mid_rack(), ShotCall.called(2, "side_left"), ShotEvents(
        first_contact=2, pocketed={6: "head_right"}))
    assert out.legal and not out.turn_kept and out.pocketed_legally == ()
    assert 6 in new.out_of_play
    back = TEN.apply_decision(new, Decision(Choice.PASS_BACK))
    assert back.shooter == 0 and back.cue_ball_in_hand is CueBallZone.NONE
    take = TEN.apply_decision(new, Decision(Choice.SHOOT))
    assert take.shooter == 1


def test_wpa_9_6_uncalled_pot_without_pass_back_option_just_passes():
    rules = get_ruleset("ten_ball", options=RuleOptions(ten_ball_uncalled_pot_offers_pass_back=False))
    new, _ = rules.apply_shot(mid_rack(), ShotCall.called(2, "side_left"), ShotEvents(
        first_contact=2, pocketed={6: "head_right"}))
    assert new.pending is None and new.shooter == 1


def test_wpa_9_6_safety_pot_stays_down_turn_passes_without_choice():
    new, out = TEN.apply_shot(mid_rack(), ShotCall.safety_shot(), ShotEvents(
        first_contact=2, pocketed={6: "head_right"}))
    assert out.legal and new.pending is None and new.shooter == 1 and 6 in new.out_of_play


def test_wpa_9_7_ten_pocketed_on_a_foul_is_spotted():
    new, out = TEN.apply_shot(mid_rack(), ShotCall.called(10, "foot_left"), ShotEvents(
        first_contact=6, pocketed={10: "foot_left"}))
    assert out.foul_sections == ("6.2",) and out.winner is None
    assert new.position(10) == pytest.approx(FOOT_SPOT)


def test_wpa_9_8_foul_gives_ball_in_hand_anywhere():
    new, out = TEN.apply_shot(mid_rack(), ShotCall.called(2, "foot_left"), ShotEvents(
        first_contact=2, pocketed={0: "foot_left"}))
    assert out.foul_sections == ("6.1",)
    assert new.cue_ball_in_hand is CueBallZone.ANYWHERE and new.shooter == 1


def test_wpa_9_9_third_foul_loses_the_rack():
    state = mid_rack(consecutive_fouls=(2, 0), warned_on_two_fouls=(True, False))
    new, out = TEN.apply_shot(state, ShotCall.safety_shot(), ShotEvents())
    assert out.winner == 1 and "6.14" in out.foul_sections


def test_wpa_9_10_stalemate_original_breaker_breaks_again():
    state = mid_rack(breaker=1)
    over = TEN.agree_stalemate(state)
    assert over.stalemate and over.is_over
    assert TEN.next_rack(over, rng=1).shooter == 1
