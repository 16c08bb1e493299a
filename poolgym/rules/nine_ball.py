"""Nine-ball (WPA 2): balls 1-9 played in rotation; the 9-ball on a legal shot wins."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from poolgym.rules.ball_in_hand import placement_foul
from poolgym.rules.base import Point, Ruleset, Verdict, register_ruleset
from poolgym.rules.decisions import Choice, DecisionKind, PendingDecision
from poolgym.rules.fouls import is_third_foul
from poolgym.rules.outcome import Foul, Penalty, heaviest_penalty
from poolgym.rules.options import RuleOptions
from poolgym.rules.shot import ShotCall, ShotEvents
from poolgym.rules.state import CueBallZone, GameState

PUSH_OUT_CHOICES = (Choice.SHOOT, Choice.PASS_BACK)
# The options ``plain_verdicts`` judges under, at their defaults (every other option plays
# no part in a plain shot).
_PLAIN_OPTIONS = {name: getattr(RuleOptions(), name)
                  for name in ("frozen_ball_other_cushion_counts", "complete_miss_is_wrong_ball")}
_NO_CALL = ShotCall()


class PlainVerdicts(NamedTuple):
    """``NineBall.plain_verdicts``: per play, whether it fouled, the shooter won the rack
    (2.5) or lost it (6.14), kept the table, or needs ``judge_shot`` (``spot``: the money
    ball must be spotted, 2.6)."""

    foul: np.ndarray
    won: np.ndarray
    lost: np.ndarray
    kept: np.ndarray
    spot: np.ndarray


@register_ruleset("nine_ball")
class NineBall(Ruleset):
    """WPA 2 nine-ball. Ten-ball (``TenBall``) derives from it; so can other rotation games
    by changing the balls, the rack and ``legal_verdict``."""

    name = "nine_ball"
    object_balls = tuple(range(1, 10))
    money_ball = 9
    rack_rows = (1, 2, 3, 2, 1)
    money_ball_slot = 4  # index into table.rack_positions(rack_rows): the centre of row 3
    break_section = "2.3"
    push_out_section = "2.4"
    # WPA 2.7 (6.11 is not on its list; 6.14 and 6.16 are the serious fouls of 2.8).
    fouls_in_force = frozenset({"6.1", "6.2", "6.3", "6.4", "6.5", "6.6", "6.7", "6.8", "6.9",
                                "6.10", "6.12", "6.13", "6.15", "6.16"})
    three_foul_rule = True

    # ----------------------------------------------------------------- rack and targets
    def rack(self, rng: np.random.Generator) -> dict[int, Point]:
        """WPA 2.2: the 1-ball on the foot spot (the apex), the money ball in the middle,
        the others at random."""
        slots = self.table.rack_positions(self.rack_rows)
        others = [b for b in self.object_balls if b not in (1, self.money_ball)]
        free = [i for i in range(1, len(slots)) if i != self.money_ball_slot]
        balls = {1: slots[0], self.money_ball: slots[self.money_ball_slot]}
        for slot, ball in zip(free, rng.permutation(others)):
            balls[int(ball)] = slots[slot]
        return balls

    def legal_targets(self, state: GameState) -> frozenset[int]:
        """WPA 2.7 / 6.2: the lowest-numbered ball on the table."""
        on = state.object_balls_on_table
        return frozenset((min(on),)) if on else frozenset()

    # ----------------------------------------------------------------- judging
    def judge_shot(self, state: GameState, call: ShotCall, events: ShotEvents) -> Verdict:
        fouls, warnings = self.detect_fouls(state, events, legal_first=self.legal_targets(state),
                                            push_out=call.push_out)
        if state.awaiting_break:
            fouls += self.break_fouls(events)
        if fouls and self.three_foul_rule and is_third_foul(state):
            fouls.append(Foul("6.14", "third consecutive foul", Penalty.SERIOUS))
        balls = self.balls_after_shot(state, events)
        out = set(state.out_of_play).union(events.object_balls_pocketed, events.object_balls_off_table)
        if fouls:
            return self.foul_verdict(state, events, fouls, warnings, balls, out)
        return self.legal_verdict(state, call, events, balls, out, warnings)

    def break_fouls(self, events: ShotEvents) -> list[Foul]:
        """WPA 2.3(b): a break must pocket an object ball or drive four to a cushion; an
        illegal break is a standard foul (digest 8.1, ``illegal_break_is_foul``)."""
        if not self.options.illegal_break_is_foul or events.object_balls_pocketed:
            return []
        reached = len(events.distinct_object_balls_to_cushion)
        if reached >= 4:
            return []
        return [Foul(self.break_section, f"illegal break: no object ball pocketed and {reached} "
                                         "object balls driven to a cushion (4 needed)")]

    def foul_verdict(self, state: GameState, events: ShotEvents, fouls: list[Foul],
                     warnings: list[str], balls: dict[int, Point], out: set[int]) -> Verdict:
        """WPA 2.7: the opponent has cue ball in hand anywhere; pocketed balls stay down but
        the money ball is spotted (2.6). A serious foul loses the rack (2.8, 6.14, 6.16)."""
        s, o = state.shooter, 1 - state.shooter
        penalty = heaviest_penalty(fouls)
        if penalty >= Penalty.SERIOUS:
            worst = next(f for f in fouls if f.penalty == penalty)
            return Verdict(fouls, balls, out, next_shooter=o, warnings=warnings, winner=o,
                           end_reason=f"player {s} lost the rack: {worst.description} "
                                      f"(WPA {worst.section})")
        spotted = self.spot_money_ball(balls, out)
        return Verdict(fouls, balls, out, next_shooter=o, cue_ball_in_hand=CueBallZone.ANYWHERE,
                       spotted=spotted, warnings=warnings)

    def legal_verdict(self, state: GameState, call: ShotCall, events: ShotEvents,
                      balls: dict[int, Point], out: set[int], warnings: list[str]) -> Verdict:
        """A foul-free shot (WPA 2.4, 2.5)."""
        s, o = state.shooter, 1 - state.shooter
        pots = list(events.object_balls_pocketed)
        if call.push_out:
            return self.push_out_verdict(state, balls, out, pots, warnings)
        if self.money_ball in pots:
            return Verdict([], balls, out, next_shooter=s, pocketed_legally=pots,
                           warnings=warnings, winner=s,
                           end_reason=f"the {self.money_ball}-ball was pocketed on a legal shot "
                                      "(WPA 2.5)")
        return Verdict([], balls, out, next_shooter=s if pots else o, pocketed_legally=pots,
                       warnings=warnings, push_out_available=state.awaiting_break)

    def push_out_verdict(self, state: GameState, balls: dict[int, Point], out: set[int],
                         pots: list[int], warnings: list[str]) -> Verdict:
        """A foul-free push out: balls stay down but the money ball is spotted (2.6, 9.4);
        the opponent chooses who shoots next (2.4)."""
        o = 1 - state.shooter
        spotted = self.spot_money_ball(balls, out)
        return Verdict([], balls, out, next_shooter=o, spotted=spotted,
                       pocketed_legally=[b for b in pots if b != self.money_ball],
                       warnings=warnings,
                       pending=PendingDecision(DecisionKind.PUSH_OUT_RESPONSE, o, PUSH_OUT_CHOICES))

    def plain_shots_apply(self, state: GameState, call: ShotCall, cue_ball_start) -> bool:
        """Whether ``plain_verdicts`` judges shots with ``call`` from ``state`` (the cue ball
        placed at ``cue_ball_start`` when in hand): nine-ball itself (not a game built on
        it), under the default options a plain shot meets, no break or push out (a plain
        call), no decision pending, and a placement that is no 6.10 foul."""
        if type(self) is not NineBall or state.awaiting_break or state.pending is not None or state.is_over:
            return False
        if call != _NO_CALL or any(getattr(self.options, name) != default
                                     for name, default in _PLAIN_OPTIONS.items()):
            return False
        zone = state.cue_ball_in_hand
        return zone is CueBallZone.NONE or placement_foul(zone, cue_ball_start, state.positions, self.table) is None

    def plain_verdicts(self, state: GameState, nums, first, pocketed, off, cushion_after,
                       cushion_any) -> PlainVerdicts:
        """``judge_shot`` of many plain shots from ``state`` at once (``plain_shots_apply``),
        from the facts of each play as ``poolgym.physics.Simulator.simulate_facts`` gives
        them (row p a play, columns the balls ``nums``; ``first``: the column of the cue
        ball's first contact, -1 for none).

        A play fouls when the cue ball drops or leaves the table (6.1), touches no ball or
        another first than the lowest (6.2), nothing drops and no ball reaches a cushion
        after the contact (6.3: the balls that reached one at any time count, as they do in
        ``ShotEvents.driven_to_cushion``), or an object ball leaves the table (6.5). A foul
        that is the shooter's third in a row loses the rack (6.14); the money ball dropped
        on a legal shot wins it (2.5); a legal shot that drops a ball keeps the table (2.4).
        A foul that sends the money ball down or off needs it spotted (2.6): ``spot``, for
        ``judge_shot``."""
        nums = list(nums)
        cue, money = nums.index(0), nums.index(self.money_ball)
        objects = np.array([n != 0 for n in nums])
        lowest = nums.index(min(state.object_balls_on_table))
        driven = (cushion_after.any(axis=1) | cushion_any[:, objects].any(axis=1) | pocketed.any(axis=1)
                  | off.any(axis=1))
        foul = pocketed[:, cue] | off[:, cue] | (first != lowest) | ~driven | off[:, objects].any(axis=1)
        lost = foul & is_third_foul(state)
        gone = pocketed[:, money] | off[:, money]
        won = ~foul & pocketed[:, money]
        kept = ~foul & ~won & pocketed[:, objects].any(axis=1)
        return PlainVerdicts(foul, won, lost, kept, foul & ~lost & gone)

    def spot_money_ball(self, balls: dict[int, Point], out: set[int]) -> list[tuple[int, Point]]:
        """Spot the money ball if it went down (WPA 2.6, 9.4); updates ``balls`` and ``out``."""
        if self.money_ball not in out:
            return []
        out.discard(self.money_ball)
        return self.spot(balls, [self.money_ball])
