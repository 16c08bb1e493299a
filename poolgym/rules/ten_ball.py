"""Ten-ball (WPA 9): nine-ball's rotation with balls 1-10 and called shots.

The source stops after 9.4; 9.5-9.10 follow the digest's resolution 8.6: fouls, the
three-foul rule and stalemates as in nine-ball; a missed call that pockets a ball is no foul
but ends the inning, and the opponent may take the table or hand it back; the 10-ball is
spotted when pocketed uncalled, on a foul or on a push out, or driven off the table.
"""

from __future__ import annotations


from poolgym.rules.base import Point, Verdict, register_ruleset
from poolgym.rules.decisions import DecisionKind, PendingDecision
from poolgym.rules.nine_ball import PUSH_OUT_CHOICES, NineBall
from poolgym.rules.shot import ShotCall, ShotEvents, ball_and_pocket_calls
from poolgym.rules.state import GameState


@register_ruleset("ten_ball")
class TenBall(NineBall):
    """WPA 9 ten-ball; ``options.ten_ball_break_ten_wins`` and
    ``options.ten_ball_uncalled_pot_offers_pass_back`` choose the open points."""

    name = "ten_ball"
    object_balls = tuple(range(1, 11))
    money_ball = 10
    rack_rows = (1, 2, 3, 4)
    money_ball_slot = 4  # index into table.rack_positions(rack_rows): the middle of row 3
    break_section = "9.3"
    push_out_section = "9.4"

    def call_options(self, state: GameState) -> tuple[ShotCall, ...]:
        """No call on the break (WPA 9); after it a ball and a pocket, or a safety (9.5,
        digest 8.6), or a push out when one is available (9.4)."""
        if state.awaiting_break:
            return (ShotCall(),)
        return ball_and_pocket_calls(state.object_balls_on_table, state.push_out_available)

    def check_call(self, state: GameState, call: ShotCall) -> None:
        super().check_call(state, call)
        if state.awaiting_break and (call.names_ball or call.safety):
            raise ValueError("ten-ball takes no call on the break (WPA 9)")
        if not state.awaiting_break and not (call.names_ball or call.safety or call.push_out):
            raise ValueError("ten-ball needs a call after the break: a ball and a pocket, "
                             "a safety, or a push out (WPA 9.5)")

    def legal_verdict(self, state: GameState, call: ShotCall, events: ShotEvents,
                      balls: dict[int, Point], out: set[int], warnings: list[str]) -> Verdict:
        s, o = state.shooter, 1 - state.shooter
        pots = list(events.object_balls_pocketed)
        ten = self.money_ball
        if call.push_out:
            return self.push_out_verdict(state, balls, out, pots, warnings)
        if state.awaiting_break:
            if ten in pots and self.options.ten_ball_break_ten_wins:
                return Verdict([], balls, out, next_shooter=s, pocketed_legally=pots,
                               warnings=warnings, winner=s,
                               end_reason="the 10-ball was pocketed on a legal break (WPA 9)")
            spotted = self.spot_money_ball(balls, out)
            return Verdict([], balls, out, next_shooter=s if pots else o, spotted=spotted,
                           pocketed_legally=[b for b in pots if b != ten], warnings=warnings,
                           push_out_available=True)
        made = call.names_ball and events.pocket_of(call.ball) == call.pocket
        if made and call.ball == ten:
            return Verdict([], balls, out, next_shooter=s, pocketed_legally=pots,
                           warnings=warnings, winner=s,
                           end_reason="the called 10-ball was pocketed on a legal shot (WPA 9)")
        spotted = self.spot_money_ball(balls, out)
        if made:
            return Verdict([], balls, out, next_shooter=s, spotted=spotted,
                           pocketed_legally=[b for b in pots if b != ten], warnings=warnings)
        pending = None
        if pots and not call.safety and self.options.ten_ball_uncalled_pot_offers_pass_back:
            pending = PendingDecision(DecisionKind.UNCALLED_POT_RESPONSE, o, PUSH_OUT_CHOICES)
        return Verdict([], balls, out, next_shooter=o, spotted=spotted, warnings=warnings,
                       pending=pending)


