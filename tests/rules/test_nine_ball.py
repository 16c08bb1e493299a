"""Nine-ball (WPA 2) with hand-entered events."""

import pytest

from poolgym.rules import (Choice, CueBallZone, Decision, DecisionKind, DeclaredFoul, Penalty,
                           ShotCall, ShotEvents, get_ruleset)
from tests.rules.helpers import FOOT_SPOT, KITCHEN_SPOT, R, TABLE, position, spread

NINE = get_ruleset("nine_ball")


def mid_rack(**fields):
    """Cue ball at (0.8, 0.6); balls 3, 5, 9 spread out; player 0 to shoot."""
    balls = {0: (0.8, 0.6), **spread(3, 5, 9)}
    return position("nine_ball", balls, **fields)


# ----------------------------------------------------------------- rack (2.2)
def test_wpa_2_2_rack_diamond_one_on_foot_spot_nine_in_centre():
    state = NINE.new_game(rng=3)
    pos = state.position
    assert pos(1) == pytest.approx(FOOT_SPOT)
    assert pos(9)[1] == pytest.approx(FOOT_SPOT[1])
    assert pos(9)[0] == pytest.approx(FOOT_SPOT[0] + 2 * (3 ** 0.5) * R, abs=1e-4)
    assert sorted(state.on_table) == list(range(1, 10))
    assert state.cue_ball_in_hand is CueBallZone.KITCHEN and state.awaiting_break


def test_wpa_2_2_rack_others_random_but_seeded():
    racks = {tuple(NINE.new_game(rng=seed).balls) for seed in range(20)}
    assert len(racks) > 10
    assert NINE.new_game(rng=5) == NINE.new_game(rng=5)


# ----------------------------------------------------------------- break (2.3)
def test_wpa_2_3_break_pocketing_a_ball_continues_with_push_out_available():
    state = NINE.new_game(rng=1)
    new, out = NINE.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=1, pocketed={4: "foot_left"}))
    assert out.legal and out.turn_kept and out.pocketed_legally == (4,)
    assert new.shooter == 0 and new.push_out_available and 4 in new.out_of_play


def test_wpa_2_3_break_four_balls_to_cushion_is_legal_turn_passes():
    state = NINE.new_game(rng=1)
    new, out = NINE.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=1, cushion_balls={2, 3, 5, 7}))
    assert out.legal and not out.turn_kept
    assert new.shooter == 1 and new.push_out_available and new.cue_ball_in_hand is CueBallZone.NONE


def test_wpa_2_3_break_three_balls_to_cushion_is_a_foul():
    state = NINE.new_game(rng=1)
    new, out = NINE.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=1, cushion_balls={2, 3, 5},
        cushion_after_contact={2, 3, 5}))
    assert out.foul_sections == ("2.3",)
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE
    assert not new.push_out_available and new.consecutive_fouls == (1, 0)


def test_wpa_2_3_break_must_hit_the_one_first():
    state = NINE.new_game(rng=1)
    _, out = NINE.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=2, pocketed={5: "side_left"}))
    assert out.foul_sections == ("6.2",) and out.cue_ball_in_hand is CueBallZone.ANYWHERE


def test_wpa_2_3_break_nine_pocketed_on_legal_break_wins():
    state = NINE.new_game(rng=1)
    new, out = NINE.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=1, pocketed={9: "foot_right"}))
    assert out.winner == 0 and new.winner == 0 and new.is_over


def test_wpa_2_3_break_nine_with_scratch_is_spotted():
    state = NINE.new_game(rng=1)
    new, out = NINE.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=1,
        pocketed={9: "foot_right", 0: "head_left"}))
    assert out.winner is None and out.foul_sections == ("6.1",)
    assert [b for b, *_ in out.spotted] == [9] and 9 in new.on_table


def test_wpa_6_10_break_placement_past_head_string_is_a_foul():
    state = NINE.new_game(rng=1)
    _, out = NINE.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=(TABLE.head_string_x + 0.01, 0.6), first_contact=1,
        pocketed={2: "foot_left"}))
    assert "6.10" in out.foul_sections and out.cue_ball_in_hand is CueBallZone.ANYWHERE


# ----------------------------------------------------------------- push out (2.4)
def pushed_state():
    """After a dry legal break by player 0: player 1 may push out."""
    return mid_rack(shooter=1, push_out_available=True)


def test_wpa_2_4_push_out_ignores_wrong_ball_and_no_rail():
    new, out = NINE.apply_shot(pushed_state(), ShotCall.push(), ShotEvents(first_contact=9))
    assert out.legal and out.push_out
    assert new.pending.kind is DecisionKind.PUSH_OUT_RESPONSE and new.pending.player == 0
    assert new.shooter == 0


def test_wpa_2_4_push_out_shoot_opponent_takes_the_table():
    new, _ = NINE.apply_shot(pushed_state(), ShotCall.push(), ShotEvents())
    new = NINE.apply_decision(new, Decision(Choice.SHOOT))
    assert new.shooter == 0 and new.pending is None and not new.push_out_available


def test_wpa_2_4_push_out_pass_back():
    new, _ = NINE.apply_shot(pushed_state(), ShotCall.push(), ShotEvents())
    new = NINE.apply_decision(new, Decision(Choice.PASS_BACK, player=0))
    assert new.shooter == 1 and new.pending is None


def test_wpa_2_4_push_out_scratch_is_a_foul_no_choice():
    new, out = NINE.apply_shot(pushed_state(), ShotCall.push(),
                               ShotEvents(pocketed={0: "side_left"}))
    assert out.foul_sections == ("6.1",) and new.pending is None
    assert new.shooter == 0 and new.cue_ball_in_hand is CueBallZone.ANYWHERE


def test_wpa_2_4_push_out_nine_pocketed_is_spotted():
    new, out = NINE.apply_shot(pushed_state(), ShotCall.push(),
                               ShotEvents(first_contact=9, pocketed={9: "foot_left"}))
    assert out.winner is None and out.spotted[0][0] == 9
    assert new.position(9) == pytest.approx(FOOT_SPOT)


def test_wpa_2_4_push_out_only_on_the_shot_after_the_break():
    with pytest.raises(ValueError, match="push out"):
        NINE.apply_shot(mid_rack(), ShotCall.push(), ShotEvents())


# ----------------------------------------------------------------- play (2.5, 2.6)
def test_wpa_2_5_legal_pot_continues():
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, pocketed={5: "side_right"}))
    assert out.legal and out.turn_kept and new.shooter == 0 and new.out_of_play == (5,)


def test_wpa_2_5_miss_passes_turn_table_as_it_lies():
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, cushion_after_contact={3}))
    assert out.legal and not out.turn_kept and new.shooter == 1
    assert new.cue_ball_in_hand is CueBallZone.NONE and new.inning == 2


def test_wpa_2_5_nine_on_a_combination_wins():
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, pocketed={9: "foot_left"}))
    assert out.winner == 0 and out.next_shooter is None


def test_wpa_2_6_nine_pocketed_on_foul_is_spotted_others_stay_down():
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=5, pocketed={9: "foot_left", 3: "head_left"}))
    assert out.foul_sections == ("6.2",) and out.winner is None
    assert 9 in new.on_table and 3 in new.out_of_play


def test_wpa_2_6_nine_off_the_table_is_spotted():
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, off_table={9}))
    assert out.foul_sections == ("6.5",) and 9 in new.on_table and 9 not in new.out_of_play


def test_wpa_2_6_other_ball_off_the_table_stays_out():
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, off_table={5}))
    assert out.foul_sections == ("6.5",) and 5 in new.out_of_play


# ----------------------------------------------------------------- fouls (2.7, 2.8)
def test_wpa_2_7_foul_gives_ball_in_hand_anywhere():
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, cushion_after_contact=set()))
    assert out.foul_sections == ("6.3",)
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE
    assert 0 not in new.on_table


def test_wpa_6_14_third_foul_loses_rack():
    state = mid_rack(consecutive_fouls=(2, 0), warned_on_two_fouls=(True, False))
    new, out = NINE.apply_shot(state, ShotCall(), ShotEvents(first_contact=5))
    assert "6.14" in out.foul_sections and out.penalty is Penalty.SERIOUS
    assert out.winner == 1 and new.winner == 1


def test_wpa_6_14_warning_when_coming_to_the_table_on_two_fouls():
    state = mid_rack(shooter=1, consecutive_fouls=(2, 0))
    new, out = NINE.apply_shot(state, ShotCall(), ShotEvents(first_contact=5))
    assert out.warning_to == 0 and new.warned_on_two_fouls == (True, False)


def test_wpa_6_14_unwarned_third_foul_counts_as_second():
    state = mid_rack(consecutive_fouls=(2, 0))
    new, out = NINE.apply_shot(state, ShotCall(), ShotEvents(first_contact=5))
    assert out.winner is None and new.consecutive_fouls == (2, 0)


def test_wpa_6_14_legal_shot_resets_the_count():
    state = mid_rack(consecutive_fouls=(2, 1), warned_on_two_fouls=(True, False))
    new, _ = NINE.apply_shot(state, ShotCall(), ShotEvents(first_contact=3,
                                                           cushion_after_contact={0}))
    assert new.consecutive_fouls == (0, 1) and new.warned_on_two_fouls == (False, False)


def test_wpa_6_16_declared_loss_of_rack_outweighs_standard_foul():
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=5, declared_fouls=(DeclaredFoul("6.16", Penalty.LOSS_OF_RACK),)))
    assert out.foul_sections == ("6.2", "6.16") and out.penalty is Penalty.LOSS_OF_RACK
    assert new.winner == 1


# ----------------------------------------------------------------- plain shots in bulk
def plain_case(state, **events):
    """``plain_verdicts`` of one play with these hand-entered facts, beside ``apply_shot``'s
    outcome of the same facts."""
    import numpy as np

    facts = ShotEvents(**events)
    nums = sorted(state.on_table)
    column = {n: k for k, n in enumerate(nums)}

    def flags(balls):
        row = np.zeros((1, len(nums)), dtype=bool)
        row[0, [column[b] for b in balls]] = True
        return row

    first = np.array([-1 if facts.first_contact is None else column[facts.first_contact]])
    verdict = NINE.plain_verdicts(state, nums, first, flags(facts.pocketed_balls), flags(facts.off_table),
                                  flags(facts.cushion_after_contact), flags(facts.cushion_balls or ()))
    _, outcome = NINE.apply_shot(state, ShotCall(), facts)
    return {name: bool(value[0]) for name, value in verdict._asdict().items()}, outcome


def assert_plain_matches(verdict, outcome):
    """The bulk verdict says what the rules' outcome says (a spot case aside)."""
    assert verdict["foul"] == bool(outcome.fouls)
    assert verdict["won"] == (outcome.winner == 0)
    assert verdict["lost"] == (outcome.winner == 1)
    assert verdict["kept"] == (outcome.turn_kept and outcome.winner is None)
    assert verdict["spot"] == bool(outcome.spotted)


@pytest.mark.parametrize("events", [
    dict(first_contact=3, pocketed={0: "foot_left"}, cushion_after_contact={5}),
    dict(first_contact=3, pocketed={3: "side_left", 0: "foot_left"}),
])
def test_wpa_6_1_plain_verdicts_scratch_is_a_foul(events):
    verdict, outcome = plain_case(mid_rack(), **events)
    assert verdict["foul"] and outcome.foul_sections == ("6.1",)
    assert_plain_matches(verdict, outcome)


@pytest.mark.parametrize("events", [dict(), dict(first_contact=5, pocketed={5: "side_left"})])
def test_wpa_6_2_plain_verdicts_no_contact_or_wrong_ball_is_a_foul(events):
    verdict, outcome = plain_case(mid_rack(), **events)
    assert verdict["foul"] and outcome.foul_sections == ("6.2",)
    assert_plain_matches(verdict, outcome)


@pytest.mark.parametrize("events, foul", [
    (dict(first_contact=3), True),
    (dict(first_contact=3, cushion_after_contact={0}, cushion_balls={0}), False),
    (dict(first_contact=3, cushion_after_contact={5}, cushion_balls={5}), False),
])
def test_wpa_6_3_plain_verdicts_a_rail_after_contact(events, foul):
    verdict, outcome = plain_case(mid_rack(), **events)
    assert verdict["foul"] is foul and outcome.foul_sections == (("6.3",) if foul else ())
    assert_plain_matches(verdict, outcome)


def test_wpa_6_5_plain_verdicts_an_object_ball_off_the_table_is_a_foul():
    verdict, outcome = plain_case(mid_rack(), first_contact=3, off_table={5}, cushion_after_contact={3})
    assert verdict["foul"] and not verdict["spot"] and outcome.foul_sections == ("6.5",)
    assert_plain_matches(verdict, outcome)


def test_wpa_2_5_plain_verdicts_a_legal_pot_keeps_the_table_and_the_nine_wins():
    kept, outcome = plain_case(mid_rack(), first_contact=3, pocketed={3: "side_left"})
    assert kept["kept"] and not kept["won"]
    assert_plain_matches(kept, outcome)
    won, outcome = plain_case(mid_rack(), first_contact=3, pocketed={9: "foot_right"})
    assert won["won"] and not won["kept"]
    assert_plain_matches(won, outcome)


def test_wpa_2_6_plain_verdicts_leave_the_spotted_nine_to_judge_shot():
    verdict, outcome = plain_case(mid_rack(), first_contact=5, pocketed={9: "foot_right"})
    assert verdict["foul"] and verdict["spot"]
    assert_plain_matches(verdict, outcome)


def test_wpa_6_14_plain_verdicts_a_third_foul_loses_the_rack():
    state = mid_rack(consecutive_fouls=(2, 0), warned_on_two_fouls=(True, False))
    verdict, outcome = plain_case(state, first_contact=5)
    assert verdict["foul"] and verdict["lost"]
    assert_plain_matches(verdict, outcome)


@pytest.mark.parametrize("game, state, call", [
    ("nine_ball", mid_rack(awaiting_break=True), ShotCall()),
    ("nine_ball", mid_rack(push_out_available=True), ShotCall(push_out=True)),
    ("ten_ball", None, ShotCall()),
])
def test_plain_verdicts_judge_no_break_push_out_or_other_game(game, state, call):
    """Breaks, push outs and games built on nine-ball go through ``judge_shot``."""
    rules = get_ruleset(game)
    state = state or position(game, {0: (0.8, 0.6), **spread(3, 5, 10)})
    assert not rules.plain_shots_apply(state, call, None)
    assert NINE.plain_shots_apply(mid_rack(), ShotCall(), None)


def test_wpa_6_10_plain_verdicts_need_a_legal_placement():
    state = position("nine_ball", spread(3, 5, 9), cue_ball_in_hand=CueBallZone.ANYWHERE)
    assert NINE.plain_shots_apply(state, ShotCall(), (0.8, 0.6))
    assert not NINE.plain_shots_apply(state, ShotCall(), state.position(3))  # on a ball
