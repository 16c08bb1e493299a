"""General rules (WPA 1 and 6) on nine-ball and on small variants built by subclassing."""

import pytest

from poolgym import events as ev
from poolgym.rules import (Choice, CueBallZone, Decision, DecisionKind, DeclaredFoul, NineBall,
                           Penalty, RuleOptions, ShotCall, ShotEvents, get_ruleset)
from poolgym.rules.ball_in_hand import spot_request_candidates
from poolgym.rules.shot import DECLARABLE_SECTIONS
from tests.rules.helpers import FOOT_SPOT, HEAD_STRING_X, KITCHEN_SPOT, R, TABLE, position, spread

NINE = get_ruleset("nine_ball")


class KitchenNineBall(NineBall):
    """Nine-ball where a foul gives cue ball in hand in the kitchen and 6.11 is a foul: a
    variant exercising the kitchen rules mid-rack (as 14.1 and eight-ball break fouls do)."""

    name = "kitchen_nine_ball"
    fouls_in_force = NineBall.fouls_in_force | {"6.11"}

    def foul_verdict(self, state, events, fouls, warnings, balls, out):
        verdict = super().foul_verdict(state, events, fouls, warnings, balls, out)
        if verdict.winner is None:
            verdict.cue_ball_in_hand = CueBallZone.KITCHEN
        return verdict


KITCHEN = KitchenNineBall()


def mid_rack(game="nine_ball", balls=None, **fields):
    """Player 0 to shoot; by default the cue ball at (0.8, 0.6) and balls 3, 5, 9 spread out."""
    balls = {0: (0.8, 0.6), **spread(3, 5, 9)} if balls is None else balls
    return position(game, balls, **fields)


def in_hand_kitchen(balls, **fields):
    """Player 0 with cue ball in hand in the kitchen, mid-rack, in the kitchen variant."""
    return position("kitchen_nine_ball", balls, cue_ball_in_hand=CueBallZone.KITCHEN, **fields)


# ----------------------------------------------------------------- 1.5 cue ball in hand
def test_wpa_1_5_spot_request_offered_when_every_legal_ball_is_in_the_kitchen():
    state = mid_rack("kitchen_nine_ball", balls={0: (0.8, 0.6), 3: (0.3, 0.3), 5: (1.5, 0.4),
                                                 9: (1.7, 0.8)})
    new, out = KITCHEN.apply_shot(state, ShotCall(), ShotEvents(
        first_contact=3, pocketed={0: "head_left"}))
    assert new.cue_ball_in_hand is CueBallZone.KITCHEN
    assert out.pending.kind is DecisionKind.SPOT_REQUEST and out.pending.player == 1
    assert out.pending.balls == (3,)
    spotted = KITCHEN.apply_decision(new, Decision(Choice.SPOT_BALL, ball=3))
    assert spotted.position(3) == pytest.approx(FOOT_SPOT) and spotted.pending is None
    declined = KITCHEN.apply_decision(new, Decision(Choice.DECLINE_SPOT))
    assert declined.position(3) == (0.3, 0.3)


def test_wpa_1_5_spot_request_picks_nearest_to_head_string_ties_are_the_players_choice():
    balls = {3: (0.3, 0.2), 4: (0.5, 0.4), 5: (0.5, 0.9), 6: (1.5, 0.6)}
    assert spot_request_candidates(balls, {3, 4}, TABLE) == (4,)
    assert spot_request_candidates(balls, {3, 4, 5}, TABLE) == (4, 5)
    assert spot_request_candidates(balls, {3, 6}, TABLE) == ()


def test_wpa_1_5_ball_on_the_head_string_is_playable_so_no_spot_request():
    balls = {3: (HEAD_STRING_X, 0.3)}
    assert spot_request_candidates(balls, {3}, TABLE) == ()


def test_wpa_1_5_anywhere_placement_is_legal_past_the_head_string():
    state = mid_rack(cue_ball_in_hand=CueBallZone.ANYWHERE, balls=spread(3, 5, 9))
    new, out = NINE.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=(1.8, 0.9), first_contact=3, cushion_after_contact={3}))
    assert out.legal and new.position(0) == (1.8, 0.9)


# ----------------------------------------------------------------- 6.1 - 6.5
def test_wpa_6_1_cue_ball_driven_off_the_table():
    _, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(first_contact=3, off_table={0}))
    assert out.foul_sections == ("6.1",) and out.cue_ball_in_hand is CueBallZone.ANYWHERE


def test_wpa_6_2_wrong_ball_first():
    _, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=5, pocketed={5: "foot_left"}))
    assert out.foul_sections == ("6.2",) and out.pocketed_legally == ()


def test_wpa_6_2_complete_miss_recorded_as_wrong_ball_by_default():
    _, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents())
    assert out.foul_sections == ("6.2",)


def test_wpa_6_3_complete_miss_as_no_rail_with_option():
    rules = NineBall(options=RuleOptions(complete_miss_is_wrong_ball=False))
    _, out = rules.apply_shot(mid_rack(), ShotCall(), ShotEvents())
    assert out.foul_sections == ("6.3",)


def test_wpa_6_3_no_rail_after_contact():
    _, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(first_contact=3))
    assert out.foul_sections == ("6.3",)


def test_wpa_6_3_cue_ball_to_a_cushion_after_contact_is_enough():
    _, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, cushion_after_contact={0}))
    assert out.legal


def test_wpa_8_4_ball_pocketed_counts_as_cushion():
    _, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, pocketed={5: "side_left"}))
    assert out.legal and out.turn_kept


def test_wpa_6_5_object_ball_off_the_table():
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, cushion_after_contact={3}, off_table={5}))
    assert out.foul_sections == ("6.5",) and 5 in new.out_of_play and new.shooter == 1


# ----------------------------------------------------------------- 6.10, 6.11
def test_wpa_6_10_kitchen_placement_on_the_head_string_is_a_foul():
    state = in_hand_kitchen(spread(3, 5, 9))
    _, out = KITCHEN.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=(HEAD_STRING_X, 0.6), first_contact=3, cushion_after_contact={3}))
    assert out.foul_sections == ("6.10",)


def test_wpa_6_10_placement_overlapping_a_ball_is_a_foul_not_a_crash():
    state = mid_rack(cue_ball_in_hand=CueBallZone.ANYWHERE, balls=spread(3, 5, 9))
    x, y = spread(3)[3]
    _, out = NINE.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=(x + R, y), first_contact=3, cushion_after_contact={3}))
    assert out.foul_sections == ("6.10",)


def test_wpa_6_11_first_contact_in_kitchen_without_leaving_it():
    state = in_hand_kitchen({3: (0.5, 0.3), 5: (1.5, 0.4), 9: (1.7, 0.8)})
    _, out = KITCHEN.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=3, cushion_after_contact={3},
        crossed_head_string_before_contact=False, ever_crossed_head_string=True))
    assert out.foul_sections == ("6.11",)


def test_wpa_6_11_kitchen_ball_hit_after_cue_ball_left_the_kitchen_is_legal():
    state = in_hand_kitchen({3: (0.5, 0.3), 5: (1.5, 0.4), 9: (1.7, 0.8)})
    _, out = KITCHEN.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=3, cushion_after_contact={3},
        crossed_head_string_before_contact=True, ever_crossed_head_string=True))
    assert out.legal


def test_wpa_6_11_cue_ball_must_cross_the_head_string_or_hit_a_ball_past_it():
    state = in_hand_kitchen(spread(3, 5, 9))
    _, out = KITCHEN.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=None,
        crossed_head_string_before_contact=False, ever_crossed_head_string=False))
    assert "6.11" in out.foul_sections


def test_wpa_6_11_inferred_from_positions_when_not_entered():
    state = in_hand_kitchen({3: (0.5, 0.3), 5: (1.5, 0.4), 9: (1.7, 0.8)})
    _, out = KITCHEN.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=KITCHEN_SPOT, first_contact=3, cushion_after_contact={3}))
    assert out.foul_sections == ("6.11",)


# ----------------------------------------------------------------- declared fouls
@pytest.mark.parametrize("section", sorted(set(DECLARABLE_SECTIONS) - {"6.16"}))
def test_wpa_6_human_fouls_declared_are_standard_fouls(section):
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, pocketed={5: "foot_left"}, declared_fouls=(DeclaredFoul(section),)))
    assert out.foul_sections == (section,) and out.fouls[0].declared
    assert out.pocketed_legally == () and new.shooter == 1
    assert new.cue_ball_in_hand is CueBallZone.ANYWHERE


def test_wpa_6_16_warning_is_not_a_foul():
    new, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=3, pocketed={5: "foot_left"},
        declared_fouls=(DeclaredFoul("6.16", penalty=None, note="distracting"),)))
    assert out.legal and out.turn_kept and "distracting" in out.warnings[0]


def test_wpa_6_several_fouls_heaviest_penalty_applies():
    _, out = NINE.apply_shot(mid_rack(), ShotCall(), ShotEvents(
        first_contact=5, pocketed={0: "side_left"},
        declared_fouls=(DeclaredFoul("6.4"), DeclaredFoul("6.16", Penalty.SERIOUS))))
    assert set(out.foul_sections) == {"6.1", "6.2", "6.4", "6.16"}
    assert out.penalty is Penalty.SERIOUS and out.winner == 1


def test_wpa_6_16_standard_penalty_counts_towards_three_fouls():
    state = mid_rack(consecutive_fouls=(1, 0))
    new, out = NINE.apply_shot(state, ShotCall(), ShotEvents(
        first_contact=3, cushion_after_contact={3},
        declared_fouls=(DeclaredFoul("6.16", Penalty.STANDARD),)))
    assert out.penalty is Penalty.STANDARD and new.consecutive_fouls == (2, 0)


# ----------------------------------------------------------------- 6.14 with warnings off
def test_wpa_6_14_without_automatic_warning_the_referee_warns():
    rules = NineBall(options=RuleOptions(always_warn_on_two_fouls=False))
    state = mid_rack(shooter=1, consecutive_fouls=(2, 0))
    new, out = rules.apply_shot(state, ShotCall(), ShotEvents(first_contact=5))
    assert out.warning_to is None and new.warned_on_two_fouls == (False, False)
    unwarned, out = rules.apply_shot(new, ShotCall(), ShotEvents(
        cue_ball_start=(1.5, 1.0), first_contact=5))
    assert out.winner is None and unwarned.consecutive_fouls == (2, 1)
    warned = rules.issue_two_foul_warning(new, 0)
    _, out = rules.apply_shot(warned, ShotCall(), ShotEvents(
        cue_ball_start=(1.5, 1.0), first_contact=5))
    assert out.winner == 1


def test_wpa_6_14_fouls_reset_each_rack():
    over = NINE.concede(mid_rack(consecutive_fouls=(2, 1)), 0)
    assert NINE.next_rack(over, rng=1).consecutive_fouls == (0, 0)


# ----------------------------------------------------------------- 1.11, 1.12
def test_wpa_1_11_concession_loses():
    over = NINE.concede(mid_rack(), player=1)
    assert over.winner == 0 and over.is_over


def test_wpa_1_12_stalemate_after_no_progress_and_three_innings_each():
    state = NINE.declare_no_progress(mid_rack())
    with pytest.raises(ValueError, match="three more innings"):
        NINE.declare_stalemate(state)
    for _ in range(6):
        lowest = min(state.object_balls_on_table)
        state, _ = NINE.apply_shot(state, ShotCall(), ShotEvents(
            first_contact=lowest, cushion_after_contact={lowest}))
    assert state.no_progress_innings == (0, 0)
    over = NINE.declare_stalemate(state)
    assert over.stalemate and over.winner is None
    assert NINE.next_rack(over, rng=0).shooter == over.breaker


def test_wpa_1_12_players_may_agree_to_a_stalemate_any_time():
    over = NINE.agree_stalemate(mid_rack(breaker=1))
    assert over.stalemate
    with pytest.raises(ValueError, match="over"):
        NINE.apply_shot(over, ShotCall(), ShotEvents(first_contact=3))


# ----------------------------------------------------------------- events from the log
def test_events_from_log_derive_contacts_cushions_pots_and_crossings():
    log = [
        ev.Strike(0.0, 0, (0.4, 0.6), 3.0, 0.0, 0.0, 0.0, frozen_to_cushion=(7,)),
        ev.HeadStringCrossing(0.1, 0, (HEAD_STRING_X, 0.6), True),
        ev.BallCushion(0.15, 7, "left_foot", (1.4, R), was_frozen=True),
        ev.BallBall(0.3, 0, 3, (1.0, 0.6), (1.05, 0.6)),
        ev.BallCushion(0.5, 3, "foot", (2.5, 0.6)),
        ev.Pocketed(0.8, 5, "foot_left", (2.5, 0.0)),
        ev.Rest(2.0),
        ev.Pocketed(7.5, 9, "side_right", (1.27, 1.25)),
    ]
    final = {0: (1.1, 0.6), 3: (2.4, 0.6), 7: (1.4, R + 0.001), 9: (1.27, 1.2)}
    shot = ShotEvents.from_log(log, TABLE, final_positions={k: v for k, v in final.items() if k != 9})
    assert shot.first_contact == 3 and shot.cue_ball_start == (0.4, 0.6)
    assert shot.cushion_after_contact == {3}
    assert shot.pocketed == ((5, "foot_left"),)
    assert shot.crossed_head_string_before_contact and shot.ever_crossed_head_string
    assert shot.frozen_to_cushion == {7}
    assert dict((n, (x, y)) for n, x, y in shot.final_positions)[9] == (1.27, 1.25)


def test_digest_8_13_frozen_ball_contacts_can_be_ignored_by_option():
    log = [ev.Strike(0.0, 0, (0.4, 0.6), 3.0, 0.0, 0.0, 0.0, frozen_to_cushion=(7,)),
           ev.BallBall(0.3, 0, 7, (1.0, 0.6), (1.05, 0.6)),
           ev.BallCushion(0.5, 7, "foot", (2.5, 0.6)), ev.Rest(1.0)]
    counted = ShotEvents.from_log(log, TABLE)
    ignored = ShotEvents.from_log(log, TABLE,
                                  options=RuleOptions(frozen_ball_other_cushion_counts=False))
    assert counted.cushion_after_contact == {7} and ignored.cushion_after_contact == set()
