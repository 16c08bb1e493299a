"""Input that does not fit the state raises a ValueError naming the problem; nothing changes."""

import pytest

from poolgym.rules import (Choice, CueBallZone, Decision, DeclaredFoul, ShotCall, ShotEvents,
                           get_ruleset)
from tests.rules.helpers import position, spread

NINE = get_ruleset("nine_ball")
TEN = get_ruleset("ten_ball")


def mid_rack(game="nine_ball", **fields):
    return position(game, {0: (0.8, 0.6), **spread(3, 5, 9)}, out_of_play=(1, 2, 4, 6, 7, 8),
                    **fields)


@pytest.mark.parametrize("events, message", [
    (dict(first_contact=12), "unknown ball 12"),
    (dict(first_contact=3, pocketed={4: "foot_left"}), "ball 4, which is not on the table"),
    (dict(first_contact=2), "ball 2, which is not on the table"),
    (dict(first_contact=3, off_table={7}), "ball 7, which is not on the table"),
    (dict(first_contact=3, cushion_after_contact={8}), "ball 8, which is not on the table"),
    (dict(first_contact=3, final_positions={0: (1, 1), 3: (1.2, 1)}), r"missing \[5, 9\]"),
    (dict(first_contact=3, pocketed={5: "foot_left"},
          final_positions={0: (1, 1), 3: (1.2, 1), 5: (2, 1), 9: (1.4, 1)}), "left the table"),
])
def test_events_inconsistent_with_the_state(events, message):
    state = mid_rack()
    before = state.to_json()
    with pytest.raises(ValueError, match=message):
        NINE.apply_shot(state, ShotCall(), ShotEvents(**events))
    assert state.to_json() == before


@pytest.mark.parametrize("build, message", [
    (lambda: ShotEvents(pocketed=[(3, "foot_left"), (3, "side_left")]), "pocketed twice"),
    (lambda: ShotEvents(pocketed={3: "middle"}), "unknown pocket"),
    (lambda: ShotEvents(pocketed={3: "foot_left"}, off_table={3}), "both pocketed and off"),
    (lambda: ShotEvents(first_contact=0), "cannot hit itself"),
    (lambda: ShotEvents(first_contact="three"), "number"),
    (lambda: ShotEvents(cue_ball_start=(float("inf"), 0.2)), "finite"),
    (lambda: DeclaredFoul("6.1"), "cannot be declared"),
    (lambda: ShotCall(ball=3), "both a ball and a pocket"),
    (lambda: ShotCall(ball=3, pocket="corner"), "unknown pocket"),
    (lambda: ShotCall(safety=True, push_out=True), "safety"),
])
def test_malformed_records(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_call_naming_a_ball_not_on_the_table():
    with pytest.raises(ValueError, match="ball 4, which is not on the table"):
        TEN.apply_shot(mid_rack("ten_ball"), ShotCall.called(4, "foot_left"),
                       ShotEvents(first_contact=3))


def test_call_naming_an_unknown_ball():
    with pytest.raises(ValueError, match="unknown ball 11"):
        TEN.apply_shot(mid_rack("ten_ball"), ShotCall.called(11, "foot_left"),
                       ShotEvents(first_contact=3))


def test_decision_when_none_is_pending():
    with pytest.raises(ValueError, match="no decision is pending"):
        NINE.apply_decision(mid_rack(), Decision(Choice.SHOOT))


def test_shot_while_a_decision_is_pending():
    state = mid_rack(shooter=1, push_out_available=True)
    pushed, _ = NINE.apply_shot(state, ShotCall.push(), ShotEvents(first_contact=5))
    with pytest.raises(ValueError, match="decision is pending"):
        NINE.apply_shot(pushed, ShotCall(), ShotEvents(first_contact=3))
    with pytest.raises(ValueError, match="not a choice now"):
        NINE.apply_decision(pushed, Decision(Choice.ACCEPT_TABLE))
    with pytest.raises(ValueError, match="player 0's, not player 1's"):
        NINE.apply_decision(pushed, Decision(Choice.SHOOT, player=1))
    with pytest.raises(ValueError, match="unknown decision choice"):
        Decision("fold")


def test_cue_ball_in_hand_needs_a_placement():
    state = position("nine_ball", spread(3, 5, 9), cue_ball_in_hand=CueBallZone.ANYWHERE)
    with pytest.raises(ValueError, match="placement"):
        NINE.apply_shot(state, ShotCall(), ShotEvents(first_contact=3))


def test_declared_foul_not_in_the_game():
    class NoFootFouls(type(NINE)):
        name = "nine_ball"
        fouls_in_force = NINE.fouls_in_force - {"6.4"}

    with pytest.raises(ValueError, match="6.4 .* not a foul in this game"):
        NoFootFouls().apply_shot(mid_rack(), ShotCall(), ShotEvents(
            first_contact=3, declared_fouls=(DeclaredFoul("6.4"),)))


def test_state_of_another_game():
    with pytest.raises(ValueError, match="ten_ball"):
        NINE.apply_shot(mid_rack("ten_ball"), ShotCall(), ShotEvents(first_contact=3))


def test_unknown_ruleset_name():
    with pytest.raises(ValueError, match="unknown ruleset 'snooker'"):
        get_ruleset("snooker")


def test_break_events_without_placement():
    with pytest.raises(ValueError, match="placement"):
        NINE.apply_shot(NINE.new_game(rng=0), ShotCall(), ShotEvents(first_contact=1))
