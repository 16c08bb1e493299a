"""Building states directly and the JSON round trip."""

import json

import pytest

from poolgym.rules import (Choice, CueBallZone, DecisionKind, GameState, PendingDecision,
                           get_ruleset)


def test_state_built_directly_round_trips_through_json():
    state = GameState(
        game="eight_ball", balls={0: (0.5, 0.4), 8: (1.9, 0.6), 3: (1.1, 0.2)},
        out_of_play=(1, 2, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15), shooter=1, breaker=0,
        inning=17, shot_number=30, awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE,
        consecutive_fouls=(1, 2), warned_on_two_fouls=(False, True), groups=("solids", "stripes"),
        scores=(3, -4), target_score=100, no_progress_innings=(2, 3), rack_number=4,
        pending=PendingDecision(DecisionKind.EIGHT_BALL_BREAK_FOUL, 1,
                                (Choice.ACCEPT_TABLE, Choice.KITCHEN_IN_HAND)),
        extra={"called_pocket": "foot_left", "history": [1, 2]})
    text = state.to_json()
    assert json.loads(text)["balls"][0] == [0, 0.5, 0.4]
    back = GameState.from_json(text)
    assert back == state
    assert back.to_json() == text
    assert back.extra_value("history") == (1, 2)


def test_new_game_round_trips_through_json():
    state = get_ruleset("nine_ball").new_game(rng=11, breaker=1)
    assert GameState.from_json(state.to_json()) == state


def test_balls_given_as_mapping_are_stored_sorted():
    state = GameState(game="nine_ball", balls={5: (1, 1), 0: (0.2, 0.3)},
                      cue_ball_in_hand=CueBallZone.NONE)
    assert state.balls == ((0, 0.2, 0.3), (5, 1.0, 1.0))
    assert state.positions == {0: (0.2, 0.3), 5: (1.0, 1.0)}


@pytest.mark.parametrize("fields, message", [
    (dict(balls={1: (1, 1)}, out_of_play=(1,)), "both on the table and out of play"),
    (dict(balls={1: (1, 1)}, shooter=2), "shooter"),
    (dict(balls={0: (1, 1)}, cue_ball_in_hand=CueBallZone.ANYWHERE), "in hand"),
    (dict(balls={1: (float("nan"), 1)}), "non-finite"),
    (dict(balls={1: (1, 1)}, consecutive_fouls=(-1, 0)), "consecutive_fouls"),
])
def test_inconsistent_state_is_rejected(fields, message):
    with pytest.raises(ValueError, match=message):
        GameState(game="nine_ball", **fields)


def test_unknown_field_in_json_is_rejected():
    data = get_ruleset("nine_ball").new_game(rng=1).to_dict()
    data["colour"] = "blue"
    with pytest.raises(ValueError, match="colour"):
        GameState.from_dict(data)
