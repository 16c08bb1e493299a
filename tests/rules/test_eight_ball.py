"""Eight-ball (WPA 3, with the digest's resolutions 8.2-8.5 and 8.18) with hand-entered events."""

import pytest

from poolgym.rules import (Choice, CueBallZone, Decision, DecisionKind, DeclaredFoul, Penalty,
                           PendingDecision, RuleOptions, ShotCall, ShotEvents, check_ruleset,
                           get_ruleset)
from poolgym.rules.eight_ball import EightBall
from tests.rules.helpers import FOOT_SPOT, HEAD_STRING_X, KITCHEN_SPOT, R, play_script, position, spread

EIGHT_BALL = get_ruleset("eight_ball")
ALL_BALLS = frozenset(range(1, 16))
SOLIDS, STRIPES = frozenset(range(1, 8)), frozenset(range(9, 16))
A = (1.0, 0.15)  # a cue-ball placement anywhere, clear of the balls below
SPOTTED_EIGHT = ((8, *FOOT_SPOT),)  # Outcome.spotted when the 8-ball went to the free foot spot


def rules_with(**options):
    return get_ruleset("eight_ball", options=RuleOptions(**options))


def table_with(*numbers, cue=(0.8, 0.6), **fields):
    """Player 0 to shoot after the break with ``numbers`` spread out (clear of the foot spot)
    and every other object ball down."""
    balls = {0: cue, **spread(*numbers)}
    return position("eight_ball", balls, out_of_play=tuple(sorted(ALL_BALLS - set(numbers))),
                    **fields)


def open_table(**fields):
    return table_with(1, 3, 8, 10, 12, **fields)


def groups_set(**fields):
    """Player 0 has the solids (2 and 5 left), player 1 the stripes (10 and 12 left)."""
    return table_with(2, 5, 8, 10, 12, groups=("solids", "stripes"), **fields)


def on_the_eight(**fields):
    """Player 0's solids are all down; the stripes 10 and 12 are left."""
    return table_with(8, 10, 12, groups=("solids", "stripes"), **fields)


def break_events(state, first_contact=1, cushion_balls=(2, 4, 5, 6, 7), **events):
    """Break events with every ball left on the table at rest on a grid clear of the foot
    spot (so a spotted 8-ball lands exactly on it)."""
    gone = {b for b, _ in events.get("pocketed", {}).items()} | set(events.get("off_table", ()))
    left = [b for b in (0,) + state.object_balls_on_table if b not in gone]
    final = {b: (0.9 + 0.1 * (i % 8), 0.25 + 0.3 * (i // 8)) for i, b in enumerate(left)}
    return ShotEvents(cue_ball_start=KITCHEN_SPOT, first_contact=first_contact,
                      cushion_balls=set(cushion_balls), final_positions=final, **events)


def break_shot(rules=EIGHT_BALL, **events):
    """Player 0 breaks a fresh rack; returns the state before, after, and the outcome."""
    state = rules.new_game(rng=7, breaker=0)
    new, outcome = rules.apply_shot(state, ShotCall(), break_events(state, **events))
    return state, new, outcome


def assert_fresh_rack(state, shooter, breaker=0):
    assert state.awaiting_break and state.shooter == shooter and state.breaker == breaker
    assert sorted(state.object_balls_on_table) == sorted(ALL_BALLS) and state.out_of_play == ()
    assert state.cue_ball_in_hand is CueBallZone.KITCHEN and state.pending is None
    assert state.groups is None and state.shot_number == 0


# ----------------------------------------------------------------- rack (3.2)
def test_wpa_3_2_rack_triangle_apex_on_foot_spot_eight_in_middle_of_row_three():
    state = EIGHT_BALL.new_game(rng=3)
    assert sorted(state.on_table) == sorted(ALL_BALLS)
    assert len({round(x, 6) for _, x, _ in state.balls}) == 5
    apex = min(state.balls, key=lambda b: b[1])
    assert (apex[1], apex[2]) == pytest.approx(FOOT_SPOT)
    x8, y8 = state.position(8)
    assert y8 == pytest.approx(FOOT_SPOT[1])
    assert x8 == pytest.approx(FOOT_SPOT[0] + 2 * 3 ** 0.5 * R, abs=1e-4)
    assert state.cue_ball_in_hand is CueBallZone.KITCHEN and state.awaiting_break


def test_wpa_3_2_rack_back_corners_hold_one_of_each_group_rest_random_but_seeded():
    racks = set()
    for seed in range(30):
        state = EIGHT_BALL.new_game(rng=seed)
        back_x = max(x for _, x, _ in state.balls)
        back_row = sorted((y, n) for n, x, y in state.balls if x == pytest.approx(back_x))
        corners = {back_row[0][1], back_row[-1][1]}
        assert len(back_row) == 5 and len(corners & SOLIDS) == 1 and len(corners & STRIPES) == 1
        racks.add(state.balls)
    assert len(racks) == 30
    assert EIGHT_BALL.new_game(rng=5) == EIGHT_BALL.new_game(rng=5)


# ----------------------------------------------------------------- break (3.3)
def test_wpa_3_3_a_break_placement_past_the_head_string_is_a_break_foul():
    state = EIGHT_BALL.new_game(rng=7)
    new, out = EIGHT_BALL.apply_shot(state, ShotCall(), ShotEvents(
        cue_ball_start=(HEAD_STRING_X + 0.01, 0.6), first_contact=1, pocketed={3: "foot_left"}))
    assert out.foul_sections == ("6.10",)
    assert new.pending.kind is DecisionKind.EIGHT_BALL_BREAK_FOUL and new.pending.player == 1


def test_wpa_3_3_b_no_call_on_the_break():
    state = EIGHT_BALL.new_game(rng=7)
    for call in (ShotCall.called(1, "foot_left"), ShotCall.safety_shot()):
        with pytest.raises(ValueError, match="no call on the break"):
            EIGHT_BALL.apply_shot(state, call, break_events(state))
    assert EIGHT_BALL.call_options(state) == (ShotCall(),)


def test_wpa_3_3_b_break_may_hit_any_ball_first():
    state = EIGHT_BALL.new_game(rng=7)
    for first in (8, 15):
        _, out = EIGHT_BALL.apply_shot(state, ShotCall(), break_events(
            state, first_contact=first, pocketed={2: "side_left"}))
        assert out.legal and out.turn_kept


def test_wpa_3_3_b_break_complete_miss_is_6_3_not_wrong_ball():
    _, new, out = break_shot(first_contact=None, cushion_balls=())
    assert out.foul_sections == ("6.3",)
    assert new.pending.kind is DecisionKind.EIGHT_BALL_BREAK_FOUL


def test_wpa_3_3_c_break_pocketing_a_ball_breaker_continues_on_an_open_table():
    _, new, out = break_shot(pocketed={3: "foot_left", 12: "side_right"})
    assert out.legal and out.turn_kept and out.break_shot
    assert out.pocketed_legally == (3, 12) and out.pending is None
    assert new.shooter == 0 and new.groups is None and not new.awaiting_break
    assert set(new.out_of_play) == {3, 12} and new.cue_ball_in_hand is CueBallZone.NONE


def test_wpa_3_3_c_break_with_four_balls_to_a_cushion_and_no_pot_passes_the_table():
    _, new, out = break_shot(cushion_balls=(2, 4, 5, 6))
    assert out.legal and not out.turn_kept and out.pending is None
    assert new.shooter == 1 and new.groups is None and new.cue_ball_in_hand is CueBallZone.NONE


def dry_break():
    state, new, out = break_shot(cushion_balls=(2, 4, 5))
    assert out.legal and out.fouls == ()
    assert new.pending.kind is DecisionKind.EIGHT_BALL_DRY_BREAK and new.pending.player == 1
    assert new.pending.choices == (Choice.ACCEPT_TABLE, Choice.RERACK_AND_BREAK,
                                   Choice.RERACK_OPPONENT_BREAKS)
    return new


def test_wpa_3_3_d_illegal_break_incoming_accepts_the_table():
    pending = dry_break()
    new = EIGHT_BALL.apply_decision(pending, Decision(Choice.ACCEPT_TABLE, player=1))
    assert new.shooter == 1 and new.pending is None and not new.awaiting_break
    assert new.cue_ball_in_hand is CueBallZone.NONE and new.position(0) == (0.9, 0.25)
    assert new.groups is None


def test_wpa_3_3_d_illegal_break_incoming_reracks_and_breaks():
    pending = dry_break()
    new = EIGHT_BALL.apply_decision(pending, Decision(Choice.RERACK_AND_BREAK))
    assert_fresh_rack(new, shooter=1)


def test_wpa_3_3_d_illegal_break_incoming_reracks_and_opponent_breaks():
    pending = dry_break()
    new = EIGHT_BALL.apply_decision(pending, Decision(Choice.RERACK_OPPONENT_BREAKS))
    assert_fresh_rack(new, shooter=0)
    assert new == EIGHT_BALL.apply_decision(pending, Decision(Choice.RERACK_OPPONENT_BREAKS))


def test_wpa_3_3_d_illegal_break_offers_no_choice_to_the_breaker():
    pending = dry_break()
    with pytest.raises(ValueError, match="player 1's, not player 0's"):
        EIGHT_BALL.apply_decision(pending, Decision(Choice.ACCEPT_TABLE, player=0))
    with pytest.raises(ValueError, match="not a choice now"):
        EIGHT_BALL.apply_decision(pending, Decision(Choice.KITCHEN_IN_HAND))


def eight_on_break(rules=EIGHT_BALL):
    _, new, out = break_shot(rules, pocketed={8: "foot_left", 5: "side_left"})
    assert out.legal and out.winner is None and out.spotted == SPOTTED_EIGHT
    assert new.pending.kind is DecisionKind.EIGHT_BALL_EIGHT_ON_BREAK and new.pending.player == 0
    assert new.pending.choices == (Choice.SPOT_EIGHT_AND_ACCEPT, Choice.RERACK_AND_BREAK)
    return new


def test_wpa_3_3_e_eight_on_the_break_breaker_spots_it_and_keeps_shooting():
    new = EIGHT_BALL.apply_decision(eight_on_break(), Decision(Choice.SPOT_EIGHT_AND_ACCEPT))
    assert new.shooter == 0 and new.pending is None and new.inning == 1  # digest 8.18
    assert new.position(8) == pytest.approx(FOOT_SPOT) and new.out_of_play == (5,)
    assert new.groups is None and new.cue_ball_in_hand is CueBallZone.NONE


def test_wpa_3_3_e_eight_on_the_break_spotted_turn_passes_when_option_off():
    rules = rules_with(eight_ball_breaker_continues_after_eight_spotted=False)
    new = rules.apply_decision(eight_on_break(rules), Decision(Choice.SPOT_EIGHT_AND_ACCEPT))
    assert new.shooter == 1 and new.position(8) == pytest.approx(FOOT_SPOT)


def test_wpa_3_3_e_eight_on_the_break_breaker_reracks_and_breaks_again():
    new = EIGHT_BALL.apply_decision(eight_on_break(), Decision(Choice.RERACK_AND_BREAK))
    assert_fresh_rack(new, shooter=0)


def eight_and_scratch_on_break(rules=EIGHT_BALL, **extra):
    pocketed = {8: "foot_left", 0: "head_right", **extra.pop("pocketed", {})}
    _, new, out = break_shot(rules, pocketed=pocketed, **extra)
    assert "6.1" in out.foul_sections and out.winner is None
    return new, out


def test_wpa_3_3_f_eight_and_scratch_opponent_spots_eight_with_cue_ball_in_kitchen():
    pending, out = eight_and_scratch_on_break()
    assert pending.pending.kind is DecisionKind.EIGHT_BALL_EIGHT_AND_SCRATCH_ON_BREAK
    assert pending.pending.player == 1 and out.spotted == SPOTTED_EIGHT
    new = EIGHT_BALL.apply_decision(pending, Decision(Choice.SPOT_EIGHT_KITCHEN_IN_HAND))
    assert new.shooter == 1 and new.pending is None and not new.awaiting_break
    assert new.cue_ball_in_hand is CueBallZone.KITCHEN and 0 not in new.on_table
    assert new.position(8) == pytest.approx(FOOT_SPOT) and new.groups is None


def test_wpa_3_3_f_eight_and_scratch_opponent_reracks_and_breaks():
    pending, _ = eight_and_scratch_on_break()
    new = EIGHT_BALL.apply_decision(pending, Decision(Choice.RERACK_AND_BREAK, player=1))
    assert_fresh_rack(new, shooter=1)


def break_foul(**events):
    _, new, out = break_shot(**events)
    assert new.pending.kind is DecisionKind.EIGHT_BALL_BREAK_FOUL and new.pending.player == 1
    assert new.pending.choices == (Choice.ACCEPT_TABLE, Choice.KITCHEN_IN_HAND)
    return new, out


def test_wpa_3_3_g_ball_off_the_table_stays_out_incoming_accepts_the_table():
    pending, out = break_foul(off_table={5}, pocketed={3: "side_left"})
    assert out.foul_sections == ("6.5",) and out.spotted == ()
    new = EIGHT_BALL.apply_decision(pending, Decision(Choice.ACCEPT_TABLE))
    assert new.shooter == 1 and set(new.out_of_play) == {3, 5}
    assert new.cue_ball_in_hand is CueBallZone.NONE and new.position(0) == (0.9, 0.25)


def test_wpa_3_3_g_ball_off_the_table_incoming_takes_cue_ball_in_hand_in_the_kitchen():
    pending, _ = break_foul(off_table={5})
    new = EIGHT_BALL.apply_decision(pending, Decision(Choice.KITCHEN_IN_HAND))
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.KITCHEN
    assert 0 not in new.on_table and new.out_of_play == (5,)


def test_wpa_3_3_g_eight_off_the_table_on_the_break_is_spotted():
    pending, out = break_foul(off_table={8})
    assert out.foul_sections == ("6.5",) and out.winner is None
    assert out.spotted == SPOTTED_EIGHT and 8 not in pending.out_of_play


def test_wpa_3_3_h_other_break_foul_incoming_accepts_the_table():
    pending, out = break_foul(pocketed={3: "side_left"}, declared_fouls=(DeclaredFoul("6.4"),))
    assert out.foul_sections == ("6.4",) and out.pocketed_legally == ()
    new = EIGHT_BALL.apply_decision(pending, Decision(Choice.ACCEPT_TABLE))
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.NONE
    assert new.out_of_play == (3,) and new.groups is None


def test_wpa_3_3_h_other_break_foul_incoming_takes_cue_ball_in_hand_in_the_kitchen():
    pending, _ = break_foul(declared_fouls=(DeclaredFoul("6.4"),))
    new = EIGHT_BALL.apply_decision(pending, Decision(Choice.KITCHEN_IN_HAND))
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.KITCHEN
    assert 0 not in new.on_table


def test_wpa_3_3_h_scratch_on_the_break_accepting_means_cue_ball_in_hand_in_the_kitchen():
    pending, out = break_foul(pocketed={0: "head_left", 3: "side_left"})
    assert out.foul_sections == ("6.1",) and pending.cue_ball_in_hand is CueBallZone.KITCHEN
    for choice in (Choice.ACCEPT_TABLE, Choice.KITCHEN_IN_HAND):
        new = EIGHT_BALL.apply_decision(pending, Decision(choice))
        assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.KITCHEN


def test_wpa_3_3_h_cue_ball_in_kitchen_with_every_legal_ball_there_offers_the_1_5_spot():
    pending = position("eight_ball", {0: (1.2, 0.9), 3: (0.3, 0.3), 8: (1.5, 0.4)},
                       out_of_play=tuple(sorted(ALL_BALLS - {3, 8})), shooter=1,
                       pending=PendingDecision(DecisionKind.EIGHT_BALL_BREAK_FOUL, 1,
                                               (Choice.ACCEPT_TABLE, Choice.KITCHEN_IN_HAND)))
    new = EIGHT_BALL.apply_decision(pending, Decision(Choice.KITCHEN_IN_HAND))
    assert new.pending.kind is DecisionKind.SPOT_REQUEST and new.pending.balls == (3,)
    accepted = EIGHT_BALL.apply_decision(pending, Decision(Choice.ACCEPT_TABLE))
    assert accepted.pending is None and accepted.position(3) == (0.3, 0.3)


def test_digest_8_5_illegal_break_with_a_scratch_is_a_break_foul_not_a_dry_break():
    pending, out = break_foul(pocketed={0: "foot_left"}, cushion_balls=(2,))
    assert out.foul_sections == ("6.1",) and pending.cue_ball_in_hand is CueBallZone.KITCHEN


def test_digest_8_5_eight_with_a_foul_other_than_a_scratch_is_a_break_foul_eight_spotted():
    pending, out = break_foul(pocketed={8: "foot_left"}, off_table={5})
    assert out.foul_sections == ("6.5",) and out.spotted == SPOTTED_EIGHT


def test_digest_8_5_eight_scratch_and_another_foul_go_to_f_first():
    pending, out = eight_and_scratch_on_break(off_table={5})
    assert out.foul_sections == ("6.1", "6.5")
    assert pending.pending.kind is DecisionKind.EIGHT_BALL_EIGHT_AND_SCRATCH_ON_BREAK


def test_digest_8_5_eight_scratch_and_another_foul_go_to_g_when_option_off():
    rules = rules_with(eight_ball_combined_break_faults_use_f_first=False)
    pending, _ = eight_and_scratch_on_break(rules, off_table={5})
    assert pending.pending.kind is DecisionKind.EIGHT_BALL_BREAK_FOUL
    assert pending.cue_ball_in_hand is CueBallZone.KITCHEN and 8 in pending.on_table
    plain, _ = eight_and_scratch_on_break(rules)
    assert plain.pending.kind is DecisionKind.EIGHT_BALL_EIGHT_AND_SCRATCH_ON_BREAK


def test_wpa_3_3_break_serious_foul_loses_the_rack():
    _, new, out = break_shot(declared_fouls=(DeclaredFoul("6.16", Penalty.LOSS_OF_RACK),),
                             pocketed={3: "side_left"})
    assert out.winner == 1 and new.winner == 1 and new.pending is None


# ----------------------------------------------------------------- open table (3.4)
def test_wpa_3_4_called_ball_made_on_an_open_table_assigns_its_group():
    new, out = EIGHT_BALL.apply_shot(open_table(), ShotCall.called(10, "side_left"), ShotEvents(
        first_contact=10, pocketed={10: "side_left", 3: "foot_left"}))
    assert out.legal and out.turn_kept and out.pocketed_legally == (10,)
    assert new.groups == ("stripes", "solids") and set(new.out_of_play) >= {3, 10}


def test_wpa_3_4_group_assignment_for_the_second_player():
    new, _ = EIGHT_BALL.apply_shot(open_table(shooter=1), ShotCall.called(3, "head_left"),
                                   ShotEvents(first_contact=12, pocketed={3: "head_left"}))
    assert new.groups == ("stripes", "solids") and new.shooter == 1


def test_wpa_3_4_missed_call_leaves_the_table_open_and_passes_the_turn():
    new, out = EIGHT_BALL.apply_shot(open_table(), ShotCall.called(10, "side_left"), ShotEvents(
        first_contact=10, pocketed={1: "foot_right"}))
    assert out.legal and not out.turn_kept and out.pocketed_legally == ()
    assert new.groups is None and new.shooter == 1 and 1 in new.out_of_play


def test_wpa_3_4_called_ball_made_on_a_foul_does_not_assign_a_group():
    new, out = EIGHT_BALL.apply_shot(open_table(), ShotCall.called(10, "side_left"), ShotEvents(
        first_contact=10, pocketed={10: "side_left", 0: "head_left"}))
    assert out.foul_sections == ("6.1",) and new.groups is None
    assert new.shooter == 1 and 10 in new.out_of_play


def test_wpa_3_4_open_table_eight_first_is_a_foul():
    new, out = EIGHT_BALL.apply_shot(open_table(), ShotCall.called(1, "side_left"), ShotEvents(
        first_contact=8, cushion_after_contact={8}))
    assert out.foul_sections == ("6.2",) and new.cue_ball_in_hand is CueBallZone.ANYWHERE


# ----------------------------------------------------------------- play (3.5)
def test_wpa_3_5_own_called_ball_made_continues_opponents_ball_stays_down_uncredited():
    new, out = EIGHT_BALL.apply_shot(groups_set(), ShotCall.called(2, "foot_right"), ShotEvents(
        first_contact=2, pocketed={2: "foot_right", 10: "side_left"}))
    assert out.legal and out.turn_kept and out.pocketed_legally == (2,)
    assert new.shooter == 0 and {2, 10} <= set(new.out_of_play)


def test_wpa_3_5_own_ball_in_another_pocket_ends_the_inning_and_stays_down():
    new, out = EIGHT_BALL.apply_shot(groups_set(), ShotCall.called(2, "foot_right"), ShotEvents(
        first_contact=2, pocketed={2: "foot_left"}))
    assert out.legal and not out.turn_kept and new.shooter == 1 and 2 in new.out_of_play


def test_wpa_3_5_called_eight_made_after_the_group_is_cleared_wins():
    new, out = EIGHT_BALL.apply_shot(on_the_eight(), ShotCall.called(8, "side_right"), ShotEvents(
        first_contact=8, pocketed={8: "side_right"}))
    assert out.winner == 0 and new.winner == 0 and out.next_shooter is None
    assert "8-ball" in out.end_reason


def test_wpa_3_5_open_table_with_only_the_eight_left_both_players_are_on_it():
    state = table_with(8, shooter=1)
    assert EIGHT_BALL.legal_targets(state) == {8}
    new, out = EIGHT_BALL.apply_shot(state, ShotCall.called(8, "foot_left"), ShotEvents(
        first_contact=8, pocketed={8: "foot_left"}))
    assert out.winner == 1


# ----------------------------------------------------------------- calls (3.6)
def test_wpa_3_6_every_shot_after_the_break_needs_a_call():
    with pytest.raises(ValueError, match="needs a call"):
        EIGHT_BALL.apply_shot(groups_set(), ShotCall(), ShotEvents(first_contact=2))


def test_wpa_3_6_safety_pots_stay_down_and_the_turn_passes():
    new, out = EIGHT_BALL.apply_shot(groups_set(), ShotCall.safety_shot(), ShotEvents(
        first_contact=2, pocketed={2: "side_left"}))
    assert out.legal and not out.turn_kept and out.pocketed_legally == ()
    assert new.shooter == 1 and 2 in new.out_of_play and new.groups == ("solids", "stripes")


def test_wpa_3_6_call_options_follow_the_group():
    def called(state):
        return {c.ball for c in EIGHT_BALL.call_options(state)}

    assert called(open_table()) == {None, 1, 3, 10, 12}
    assert called(groups_set()) == {None, 2, 5}
    assert called(groups_set(shooter=1)) == {None, 10, 12}
    assert called(on_the_eight()) == {None, 8}
    assert len(EIGHT_BALL.call_options(on_the_eight())) == 1 + 6


@pytest.mark.parametrize("state, call, message", [
    (groups_set(), ShotCall.called(8, "foot_left"), "only once the shooter's group is cleared"),
    (open_table(), ShotCall.called(8, "foot_left"), "only once the shooter's group is cleared"),
    (groups_set(), ShotCall.called(4, "foot_left"), "ball 4, which is not on the table"),
    (groups_set(), ShotCall.called(10, "foot_left"), "not one of the shooter's solids"),
    (on_the_eight(), ShotCall.called(12, "foot_left"), "not one of the shooter's solids"),
    (groups_set(), ShotCall.called(16, "foot_left"), "unknown ball 16"),
    (groups_set(), ShotCall.push(), "push out is not available"),
])
def test_wpa_3_6_bad_calls_raise_and_leave_the_state_unchanged(state, call, message):
    before = state.to_json()
    events = ShotEvents(first_contact=2 if 2 in state.on_table else 8)
    with pytest.raises(ValueError, match=message):
        EIGHT_BALL.apply_shot(state, call, events)
    assert state.to_json() == before


# ----------------------------------------------------------------- spotting (3.7)
def test_wpa_3_7_object_ball_off_the_table_stays_out():
    new, out = EIGHT_BALL.apply_shot(groups_set(), ShotCall.called(2, "foot_left"), ShotEvents(
        first_contact=2, off_table={10}))
    assert out.foul_sections == ("6.5",) and out.spotted == () and 10 in new.out_of_play


# ----------------------------------------------------------------- losing (3.8)
def test_wpa_3_8_a_eight_and_scratch_loses():
    new, out = EIGHT_BALL.apply_shot(on_the_eight(), ShotCall.called(8, "side_right"), ShotEvents(
        first_contact=8, pocketed={8: "side_right", 0: "foot_left"}))
    assert out.winner == 1 and new.winner == 1 and "3.8(a)" in out.end_reason


def test_wpa_3_8_a_eight_and_scratch_loses_even_with_only_scratches_losing():
    rules = rules_with(eight_ball_any_foul_on_eight_loses=False)
    _, out = rules.apply_shot(on_the_eight(), ShotCall.called(8, "side_right"), ShotEvents(
        first_contact=8, pocketed={8: "side_right", 0: "foot_left"}))
    assert out.winner == 1


def test_digest_8_2_eight_with_any_foul_loses():
    _, out = EIGHT_BALL.apply_shot(on_the_eight(), ShotCall.called(8, "side_right"), ShotEvents(
        first_contact=10, pocketed={8: "side_right"}))
    assert out.foul_sections == ("6.2",) and out.winner == 1 and "digest 8.2" in out.end_reason


def test_digest_8_2_eight_with_a_foul_other_than_a_scratch_is_spotted_when_option_off():
    rules = rules_with(eight_ball_any_foul_on_eight_loses=False)
    new, out = rules.apply_shot(on_the_eight(), ShotCall.called(8, "side_right"), ShotEvents(
        first_contact=10, pocketed={8: "side_right"}))
    assert out.winner is None and out.foul_sections == ("6.2",)
    assert out.spotted == SPOTTED_EIGHT and new.shooter == 1
    assert new.cue_ball_in_hand is CueBallZone.ANYWHERE


def test_wpa_3_8_b_eight_pocketed_while_own_group_has_balls_loses():
    _, out = EIGHT_BALL.apply_shot(groups_set(), ShotCall.called(2, "foot_left"), ShotEvents(
        first_contact=2, pocketed={2: "foot_left", 8: "side_left"}))
    assert out.legal and out.winner == 1 and "3.8(b)" in out.end_reason


def test_digest_8_4_eight_with_the_last_group_ball_loses():
    state = table_with(2, 8, 10, groups=("solids", "stripes"))
    _, out = EIGHT_BALL.apply_shot(state, ShotCall.called(2, "foot_left"), ShotEvents(
        first_contact=2, pocketed={2: "foot_left", 8: "side_left"}))
    assert out.winner == 1 and "3.8(b)" in out.end_reason


def test_digest_8_4_eight_with_the_last_group_ball_is_spotted_when_option_off():
    rules = rules_with(eight_ball_uncalled_eight_loses=False)
    state = table_with(2, 8, 10, groups=("solids", "stripes"))
    new, out = rules.apply_shot(state, ShotCall.called(2, "foot_left"), ShotEvents(
        first_contact=2, pocketed={2: "foot_left", 8: "side_left"}))
    assert out.winner is None and out.turn_kept and out.spotted == SPOTTED_EIGHT
    assert EIGHT_BALL.callable_balls(new) == (8,)
    _, out = rules.apply_shot(groups_set(), ShotCall.called(2, "foot_left"), ShotEvents(
        first_contact=2, pocketed={2: "foot_left", 8: "side_left"}))
    assert out.winner == 1  # 5 is still on the table: 3.8(b) as written


def test_wpa_3_8_c_eight_in_another_pocket_than_called_loses():
    _, out = EIGHT_BALL.apply_shot(on_the_eight(), ShotCall.called(8, "side_right"), ShotEvents(
        first_contact=8, pocketed={8: "side_left"}))
    assert out.legal and out.winner == 1 and "3.8(c)" in out.end_reason


def test_digest_8_4_eight_on_an_open_table_loses():
    _, out = EIGHT_BALL.apply_shot(open_table(), ShotCall.called(1, "foot_left"), ShotEvents(
        first_contact=1, pocketed={1: "foot_left", 8: "side_left"}))
    assert out.winner == 1 and "open table" in out.end_reason


def test_digest_8_4_eight_on_an_open_table_is_spotted_when_option_off():
    rules = rules_with(eight_ball_uncalled_eight_loses=False)
    new, out = rules.apply_shot(open_table(), ShotCall.called(1, "foot_left"), ShotEvents(
        first_contact=1, pocketed={1: "foot_left", 8: "side_left"}))
    assert out.winner is None and out.turn_kept and new.groups == ("solids", "stripes")
    assert new.position(8) == pytest.approx(FOOT_SPOT)


def test_digest_8_4_eight_on_a_safety_loses():
    _, out = EIGHT_BALL.apply_shot(on_the_eight(), ShotCall.safety_shot(), ShotEvents(
        first_contact=8, pocketed={8: "side_left"}))
    assert out.legal and out.winner == 1 and "safety" in out.end_reason


def test_wpa_3_8_d_eight_off_the_table_loses():
    _, out = EIGHT_BALL.apply_shot(on_the_eight(), ShotCall.called(8, "side_right"), ShotEvents(
        first_contact=8, off_table={8}))
    assert out.foul_sections == ("6.5",) and out.winner == 1 and "3.8(d)" in out.end_reason


# ----------------------------------------------------------------- fouls (3.9, 3.10)
def test_wpa_3_9_wrong_group_first_gives_ball_in_hand_anywhere():
    new, out = EIGHT_BALL.apply_shot(groups_set(), ShotCall.called(2, "foot_left"), ShotEvents(
        first_contact=10, pocketed={2: "foot_left"}))
    assert out.foul_sections == ("6.2",) and not out.turn_kept and out.pocketed_legally == ()
    assert new.shooter == 1 and new.cue_ball_in_hand is CueBallZone.ANYWHERE
    assert 2 in new.out_of_play and out.spotted == ()


def test_digest_8_3_cleared_group_must_hit_the_eight_first():
    _, out = EIGHT_BALL.apply_shot(on_the_eight(), ShotCall.called(8, "foot_left"), ShotEvents(
        first_contact=10, cushion_after_contact={10}))
    assert out.foul_sections == ("6.2",)
    rules = rules_with(eight_ball_cleared_group_must_hit_eight=False)
    _, out = rules.apply_shot(on_the_eight(), ShotCall.called(8, "foot_left"), ShotEvents(
        first_contact=10, cushion_after_contact={10}))
    assert out.legal


def test_wpa_3_10_no_three_foul_rule():
    state = groups_set(consecutive_fouls=(2, 0), warned_on_two_fouls=(True, False))
    new, out = EIGHT_BALL.apply_shot(state, ShotCall.called(2, "foot_left"), ShotEvents(
        first_contact=10))
    assert out.winner is None and "6.14" not in out.foul_sections and out.warning_to is None
    assert new.consecutive_fouls == (2, 0)


def test_wpa_3_10_serious_foul_loses_the_rack():
    _, out = EIGHT_BALL.apply_shot(groups_set(), ShotCall.called(2, "foot_left"), ShotEvents(
        first_contact=2, pocketed={2: "foot_left"},
        declared_fouls=(DeclaredFoul("6.16", Penalty.SERIOUS),)))
    assert out.winner == 1 and out.penalty is Penalty.SERIOUS


# ----------------------------------------------------------------- stalemate (3.11)
def test_wpa_3_11_stalemate_original_breaker_breaks_again():
    over = EIGHT_BALL.agree_stalemate(groups_set(breaker=1, shooter=0))
    assert EIGHT_BALL.next_rack(over, rng=1).shooter == 1


def test_wpa_3_11_stalemate_after_a_rerack_broken_by_the_other_player():
    reracked = EIGHT_BALL.apply_decision(dry_break(), Decision(Choice.RERACK_AND_BREAK))
    assert reracked.shooter == 1 and reracked.breaker == 0
    over = EIGHT_BALL.agree_stalemate(reracked)
    assert EIGHT_BALL.next_rack(over, rng=1).shooter == 0


# ----------------------------------------------------------------- whole racks and the checker
K = KITCHEN_SPOT
EIGHT_BALL_RACK = [
    # the 8 and two more drop on the break: the breaker spots it and keeps shooting (3.3(e))
    (ShotCall(), dict(cue_ball_start=K, first_contact=1,
                      pocketed={8: "foot_left", 3: "side_left", 13: "head_right"}),
     dict(legal=True, turn_kept=False, spotted=[8], winner=None,
          pending={"kind": "eight_ball_eight_on_break", "player": 0})),
    Decision(Choice.SPOT_EIGHT_AND_ACCEPT),
    # a called stripe on the open table gives player 0 the stripes (3.4)
    (ShotCall.called(10, "side_left"), dict(first_contact=10, pocketed={10: "side_left"}),
     dict(legal=True, turn_kept=True, pocketed_legally=[10], groups=["stripes", "solids"])),
    # the 11 drops in another pocket: it stays down, the inning ends (3.5, 3.7)
    (ShotCall.called(11, "foot_right"), dict(first_contact=11, pocketed={11: "foot_left"}),
     dict(legal=True, turn_kept=False, next_shooter=1, pocketed_legally=[])),
    # player 1 makes the 1; the 9 drops too and stays down, credited to nobody
    (ShotCall.called(1, "head_left"), dict(first_contact=1, pocketed={1: "head_left",
                                                                       9: "foot_right"}),
     dict(legal=True, turn_kept=True, pocketed_legally=[1])),
    # a stripe first: 6.2, ball in hand anywhere (3.9)
    (ShotCall.called(2, "side_right"), dict(first_contact=12, cushion_after_contact={12}),
     dict(legal=False, fouls=["6.2"], next_shooter=0, cue_ball_in_hand="anywhere")),
    (ShotCall.called(12, "foot_left"), dict(cue_ball_start=A, first_contact=12,
                                            pocketed={12: "foot_left"}),
     dict(legal=True, turn_kept=True, pocketed_legally=[12])),
    (ShotCall.called(14, "side_left"), dict(first_contact=14, pocketed={14: "side_left",
                                                                        15: "head_right"}),
     dict(legal=True, turn_kept=True, pocketed_legally=[14, 15])),
    # stripes cleared: a solid first is a foul now (digest 8.3)
    (ShotCall.called(8, "foot_right"), dict(first_contact=2, cushion_after_contact={2}),
     dict(legal=False, fouls=["6.2"], next_shooter=1)),
    (ShotCall.safety_shot(), dict(cue_ball_start=A, first_contact=2, cushion_after_contact={2}),
     dict(legal=True, turn_kept=False, next_shooter=0)),
    (ShotCall.called(8, "foot_left"), dict(first_contact=8, cushion_after_contact={8}),
     dict(legal=True, turn_kept=False, next_shooter=1)),
    (ShotCall.called(2, "side_left"), dict(first_contact=2, pocketed={2: "side_left"}),
     dict(legal=True, turn_kept=True, pocketed_legally=[2])),
    (ShotCall.called(4, "head_left"), dict(first_contact=4, pocketed={4: "head_left",
                                                                      5: "foot_right"}),
     dict(legal=True, turn_kept=True, pocketed_legally=[4, 5])),
    (ShotCall.called(6, "side_right"), dict(first_contact=6, pocketed={6: "side_right"}),
     dict(legal=True, turn_kept=True)),
    (ShotCall.called(7, "foot_left"), dict(first_contact=7, pocketed={7: "foot_left"}),
     dict(legal=True, turn_kept=True)),
    # solids cleared: the called 8 in the called pocket wins for player 1 (3.5)
    (ShotCall.called(8, "head_right"), dict(first_contact=8, pocketed={8: "head_right"}),
     dict(legal=True, winner=1, next_shooter=None)),
]


def test_scripted_eight_ball_rack():
    state, _ = play_script(EIGHT_BALL, EIGHT_BALL.new_game(rng=7, breaker=0), EIGHT_BALL_RACK)
    assert state.is_over and state.winner == 1 and state.out_of_play == tuple(range(1, 16))


def test_registry_builds_eight_ball():
    assert isinstance(get_ruleset("eight_ball"), EightBall)


def test_check_ruleset_passes_for_eight_ball():
    games = 1000
    report = check_ruleset(EIGHT_BALL, n_games=games, seed=2024)
    assert report.games == games and sum(report.wins.values()) + report.stalemates == games
    assert report.wins[0] > games // 4 and report.wins[1] > games // 4
    for section in ("6.1", "6.2", "6.3", "6.5", "6.10"):
        assert report.fouls[section] > 0, section
    assert "6.14" not in report.fouls
    for kind in ("eight_ball_eight_on_break", "eight_ball_eight_and_scratch_on_break",
                 "eight_ball_break_foul"):
        assert report.decision_kinds[kind] > 0, kind


def test_check_ruleset_passes_with_every_eight_ball_option_off():
    rules = rules_with(eight_ball_any_foul_on_eight_loses=False,
                       eight_ball_cleared_group_must_hit_eight=False,
                       eight_ball_uncalled_eight_loses=False,
                       eight_ball_combined_break_faults_use_f_first=False,
                       eight_ball_breaker_continues_after_eight_spotted=False)
    report = check_ruleset(rules, n_games=200, seed=9)
    assert report.games == 200 and sum(report.wins.values()) > 100
