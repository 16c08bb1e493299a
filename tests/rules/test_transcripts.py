"""Whole scripted racks (golden transcripts): events in, outcomes out, the right winner."""

import pytest

from poolgym.rules import Choice, Decision, ShotCall, get_ruleset
from tests.rules.helpers import play_script

K = (0.4, 0.5)  # a kitchen placement
A = (1.0, 0.15)  # a placement anywhere, clear of the rack

NINE_BALL_COMBINATION_WIN = [
    # break: 1 first, 2 pocketed -> breaker continues, push out available (WPA 2.3, 2.5)
    (ShotCall(), dict(cue_ball_start=K, first_contact=1, pocketed={2: "foot_left"},
                      cushion_balls={3, 4}),
     dict(legal=True, turn_kept=True, next_shooter=0, pocketed_legally=[2])),
    # push out with no contact: legal, player 1 decides (WPA 2.4)
    (ShotCall.push(), dict(), dict(legal=True, push_out=True, next_shooter=1,
                                   pending={"kind": "push_out_response", "player": 1})),
    Decision(Choice.PASS_BACK),
    (ShotCall(), dict(first_contact=1, pocketed={1: "side_left"}),
     dict(legal=True, turn_kept=True, next_shooter=0)),
    # no rail: foul, ball in hand anywhere for player 1 (WPA 6.3, 2.7)
    (ShotCall(), dict(first_contact=3), dict(legal=False, fouls=["6.3"], next_shooter=1,
                                              cue_ball_in_hand="anywhere")),
    # scratch while pocketing the 3: the 3 stays down (WPA 6.1, 2.6)
    (ShotCall(), dict(cue_ball_start=A, first_contact=3,
                      pocketed={3: "foot_right", 0: "foot_left"}),
     dict(legal=False, fouls=["6.1"], next_shooter=0, pocketed_legally=[])),
    (ShotCall(), dict(cue_ball_start=A, first_contact=4,
                      pocketed={4: "head_left", 5: "side_right"}),
     dict(legal=True, turn_kept=True, pocketed_legally=[4, 5])),
    (ShotCall(), dict(first_contact=6, cushion_after_contact={6}),
     dict(legal=True, turn_kept=False, next_shooter=1)),
    # 6 first, 9 in: a legal combination wins (WPA 2.5)
    (ShotCall(), dict(first_contact=6, pocketed={9: "foot_left"}),
     dict(legal=True, winner=1, next_shooter=None)),
]

NINE_BALL_THREE_FOULS = [
    (ShotCall(), dict(cue_ball_start=K, first_contact=1, cushion_balls={2, 3, 4, 5}),
     dict(legal=True, next_shooter=1)),
    (ShotCall(), dict(first_contact=5, cushion_after_contact={5}),
     dict(fouls=["6.2"], next_shooter=0)),
    (ShotCall(), dict(cue_ball_start=A, first_contact=1), dict(fouls=["6.3"], next_shooter=1)),
    (ShotCall(), dict(cue_ball_start=A, first_contact=1, pocketed={0: "side_left"}),
     dict(fouls=["6.1"], next_shooter=0)),
    # a legal miss: player 1 comes to the table on two fouls and is warned (WPA 6.14)
    (ShotCall(), dict(cue_ball_start=A, first_contact=1, cushion_after_contact={1}),
     dict(legal=True, next_shooter=1, warning_to=1)),
    (ShotCall(), dict(first_contact=2, cushion_after_contact={2}),
     dict(fouls=["6.2", "6.14"], penalty="serious", winner=0)),
]

TEN_BALL_CALLED_TEN = [
    (ShotCall(), dict(cue_ball_start=K, first_contact=1, cushion_balls={2, 3, 4, 5}),
     dict(legal=True, next_shooter=0)),
    (ShotCall.called(1, "foot_left"), dict(first_contact=1, pocketed={1: "foot_left"}),
     dict(legal=True, turn_kept=True, pocketed_legally=[1])),
    # the call fails but the 3 drops: no foul, the opponent chooses (digest 8.6)
    (ShotCall.called(2, "side_left"), dict(first_contact=2, pocketed={3: "side_right"}),
     dict(legal=True, turn_kept=False, pocketed_legally=[],
          pending={"kind": "uncalled_pot_response", "player": 1})),
    Decision(Choice.PASS_BACK),
    (ShotCall.safety_shot(), dict(first_contact=2, cushion_after_contact={2}),
     dict(legal=True, next_shooter=1)),
    (ShotCall.called(2, "head_left"), dict(first_contact=4, cushion_after_contact={4}),
     dict(fouls=["6.2"], next_shooter=0, cue_ball_in_hand="anywhere")),
    (ShotCall.called(10, "foot_right"), dict(cue_ball_start=A, first_contact=2,
                                             pocketed={2: "side_left", 10: "foot_right"}),
     dict(legal=True, winner=0)),
]


@pytest.mark.parametrize("game, breaker, script, winner", [
    ("nine_ball", 0, NINE_BALL_COMBINATION_WIN, 1),
    ("nine_ball", 0, NINE_BALL_THREE_FOULS, 0),
    ("ten_ball", 1, TEN_BALL_CALLED_TEN, 0),
])
def test_scripted_rack(game, breaker, script, winner):
    rules = get_ruleset(game)
    state, _ = play_script(rules, rules.new_game(rng=7, breaker=breaker), script)
    assert state.is_over and state.winner == winner
