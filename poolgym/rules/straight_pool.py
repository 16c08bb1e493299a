"""Fourteen-one continuous (straight pool, WPA 4): every called ball made is a point, and the
first player to reach the target score wins.

Every shot calls a ball and a pocket, or a safety (4.5); any object ball may be hit first
(4.9 does not list 6.2). Fouls cost points (4.9-4.11) and the balls pocketed on them are
spotted (4.6). When a legal scoring shot leaves one object ball on the table (or none), the
pocketed balls are racked again with the apex empty and the shooter plays on (4.4); the
15th ball and the cue ball are dealt with as the 4.8 table says (``rerack_during_play``).
The points the text leaves open are the ``straight_pool_*`` options (digest 8.7-8.11).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from poolgym.rules.base import Point, Ruleset, Verdict, register_ruleset
from poolgym.rules.decisions import Choice, Decision, DecisionKind, PendingDecision
from poolgym.rules.fouls import is_third_foul
from poolgym.rules.options import RuleOptions
from poolgym.rules.outcome import Foul, Penalty, heaviest_penalty
from poolgym.rules.shot import ShotCall, ShotEvents, ball_and_pocket_calls
from poolgym.rules.state import CUE_BALL, CueBallZone, GameState
from poolgym.table import Table

RACK_ROWS = (1, 2, 3, 4, 5)  # WPA 4.2: the 15-ball triangle, apex on the foot spot
DEFAULT_TARGET_SCORE = 100
THIRD_FOUL_EXTRA_POINTS = 15  # WPA 4.11
# Points taken off the offender, by the heaviest penalty of the shot (WPA 4.9, 4.10, 4.11).
# A serious foul is the third standard foul in a row: the usual point and 15 more.
PENALTY_POINTS = {Penalty.STANDARD: 1, Penalty.BREAK_FOUL: 2,
                  Penalty.SERIOUS: 1 + THIRD_FOUL_EXTRA_POINTS}
BREAK_FOUL_CHOICES = (Choice.ACCEPT_TABLE, Choice.REBREAK)
# A ball touching the rack outline or the head-spot disc from outside does not count as
# in the way; this absorbs float rounding of exact tangency.
_CONTACT_TOLERANCE = 1e-9


@register_ruleset("straight_pool")
class StraightPool(Ruleset):
    """WPA 4 fourteen-one continuous, played to ``target_score`` points (a new game may set
    its own with ``new_game(target_score=...)``)."""

    name = "straight_pool"
    object_balls = tuple(range(1, 16))
    # WPA 4.9's list, 6.14 through 4.11 and 6.16; no 6.2: any object ball may be hit first.
    fouls_in_force = frozenset({"6.1", "6.3", "6.4", "6.5", "6.6", "6.7", "6.8", "6.9", "6.10",
                                "6.11", "6.12", "6.13", "6.15", "6.16"})
    three_foul_rule = True

    def __init__(self, options: RuleOptions | None = None, table: Table | None = None,
                 target_score: int = DEFAULT_TARGET_SCORE) -> None:
        super().__init__(options, table)
        self.target_score = _checked_target(target_score)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(table={self.table.name!r}, "
                f"target_score={self.target_score})")

    # ----------------------------------------------------------------- games and racks
    def rack(self, rng: np.random.Generator) -> dict[int, Point]:
        """WPA 4.2: the 15 balls in a triangle, apex on the foot spot, in random order."""
        slots = self.table.rack_positions(RACK_ROWS)
        return {int(ball): slots[i] for i, ball in enumerate(rng.permutation(self.object_balls))}

    def new_game(self, rng: np.random.Generator | int | None = None, breaker: int = 0,
                 target_score: int | None = None) -> GameState:
        """A fresh game from 0-0 to ``target_score`` (default: the ruleset's)."""
        target = self.target_score if target_score is None else _checked_target(target_score)
        return replace(super().new_game(rng, breaker), target_score=target)

    def next_rack(self, state: GameState, rng: np.random.Generator | int | None = None,
                  breaker: int | None = None) -> GameState:
        """Play on after a stalemate, or start a new game after a win.

        After a stalemate the players lag again for the break (WPA 4.12): pass the lag's
        result as ``breaker`` (default: the same breaker). All 15 balls are racked, the foul
        counts are cleared and the scores stand (digest 8.11,
        ``straight_pool_stalemate_scores_stand``; off: back to 0-0). After a win the next
        game starts from 0-0.
        """
        if not state.is_over:
            raise ValueError("the game is still being played")
        breaker = self.next_breaker(state) if breaker is None else breaker
        fresh = self.new_game(rng, breaker, state.target_score)
        keep = state.stalemate and self.options.straight_pool_stalemate_scores_stand
        return replace(fresh, rack_number=state.rack_number + 1,
                       scores=state.scores if keep else (0, 0))

    def target(self, state: GameState) -> int:
        """The score that wins ``state``'s game (WPA 4.4)."""
        return self.target_score if state.target_score is None else state.target_score

    # ----------------------------------------------------------------- calls and targets
    def legal_targets(self, state: GameState) -> frozenset[int]:
        """Any object ball may be hit first (WPA 4.9 does not list 6.2)."""
        return frozenset(state.object_balls_on_table)

    def call_options(self, state: GameState) -> tuple[ShotCall, ...]:
        """A safety or a ball into a pocket (WPA 4.5); on the break also no call at all,
        since the breaker may call a ball but need not (4.3)."""
        calls = ball_and_pocket_calls(state.object_balls_on_table)
        return (ShotCall(),) + calls if state.awaiting_break else calls

    def check_call(self, state: GameState, call: ShotCall) -> None:
        super().check_call(state, call)
        if call.push_out:
            raise ValueError("14.1 has no push out")
        if not state.awaiting_break and not (call.names_ball or call.safety):
            raise ValueError("14.1 needs a call on every shot after the break: a ball and a "
                             "pocket, or a safety (WPA 4.5)")

    # ----------------------------------------------------------------- judging
    def judge_shot(self, state: GameState, call: ShotCall, events: ShotEvents) -> Verdict:
        fouls, warnings = self.detect_fouls(state, events, legal_first=None)
        if state.awaiting_break:
            fouls = self.break_fouls(call, events) + fouls
        # WPA 4.10: with a break foul the shot counts as a break foul, never as the third
        # standard foul (4.11).
        is_break_foul = any(f.penalty is Penalty.BREAK_FOUL for f in fouls)
        if fouls and not is_break_foul and is_third_foul(state):
            fouls.append(Foul("6.14", "third consecutive standard foul: 1 point and 15 more "
                                      "(WPA 4.11)", Penalty.SERIOUS))
        balls = self.balls_after_shot(state, events)
        if fouls:
            return self.foul_verdict(state, events, fouls, warnings, balls)
        return self.legal_verdict(state, call, events, balls, warnings)

    def break_fouls(self, call: ShotCall, events: ShotEvents) -> list[Foul]:
        """WPA 4.3(b): unless a called ball is pocketed (in the called pocket), at least two
        object balls and the cue ball must reach a cushion (counted as 8.4 says)."""
        if made_call(call, events):
            return []
        objects = len(events.distinct_object_balls_to_cushion)
        touched = events.cushion_after_contact | (events.cushion_balls or frozenset())
        cue = CUE_BALL in touched or events.cue_ball_scratched
        if objects >= 2 and cue:
            return []
        return [Foul("4.3", f"break foul: no called ball pocketed, {objects} object ball(s) "
                            f"{'and' if cue else 'but not'} the cue ball reached a cushion "
                            "(2 object balls and the cue ball needed)", Penalty.BREAK_FOUL)]

    def foul_verdict(self, state: GameState, events: ShotEvents, fouls: list[Foul],
                     warnings: list[str], balls: dict[int, Point]) -> Verdict:
        """Points off the offender (WPA 4.9-4.11); the balls pocketed or driven off are
        spotted (4.6) and the opponent comes to the table, after a break foul choosing to
        accept the table or have the breaker break again (4.3)."""
        s, o = state.shooter, 1 - state.shooter
        penalty = heaviest_penalty(fouls)
        if penalty >= Penalty.LOSS_OF_RACK:
            worst = next(f for f in fouls if f.penalty == penalty)
            return Verdict(fouls, balls, set(state.out_of_play) | set(
                events.object_balls_pocketed) | set(events.object_balls_off_table),
                next_shooter=o, warnings=warnings, winner=o,
                end_reason=f"player {s} lost the game: {worst.description} "
                           f"(WPA {worst.section}, 4.11)")
        points = _points_for(s, -PENALTY_POINTS[penalty])
        if (any(f.section == "6.14" for f in fouls)
                and self.options.straight_pool_third_foul_rerack):
            # Digest 8.7 (English WPA 4.11): all 15 racked, the offender breaks.
            racked = self.rack(self.rng_for(state))
            return Verdict(fouls, racked, set(), next_shooter=s, warnings=warnings,
                           cue_ball_in_hand=CueBallZone.KITCHEN, points=points,
                           awaiting_break=True, reracked=sorted(racked.items()),
                           changes={"breaker": s})
        is_break_foul = any(f.penalty is Penalty.BREAK_FOUL for f in fouls)
        zone = self.cue_ball_after_foul(state, events, fouls, is_break_foul)
        if zone is not CueBallZone.NONE:
            balls.pop(CUE_BALL, None)  # in hand: it must not block the spotting
        spotted = self.spot(balls, events.object_balls_pocketed + events.object_balls_off_table)
        pending = (PendingDecision(DecisionKind.STRAIGHT_POOL_BREAK_FOUL, o, BREAK_FOUL_CHOICES)
                   if is_break_foul else None)
        return Verdict(fouls, balls, set(state.out_of_play), next_shooter=o,
                       cue_ball_in_hand=zone, spotted=spotted, warnings=warnings, points=points,
                       pending=pending, counts_toward_three_fouls=not is_break_foul)

    def cue_ball_after_foul(self, state: GameState, events: ShotEvents, fouls: list[Foul],
                            is_break_foul: bool) -> CueBallZone:
        """WPA 4.9: the cue ball stays where it is, except after 6.1 and 6.11, when the
        incoming player has it in hand behind the head string.

        Every 6.11 foul does so (digest 8.8, ``straight_pool_any_6_11_gives_kitchen``; off:
        only one under its second paragraph, the cue ball never leaving the kitchen). A
        scratch on a break foul whose table is accepted does too (digest 8.9,
        ``straight_pool_break_scratch_gives_kitchen``; off: in hand anywhere).
        """
        if events.cue_ball_scratched:
            if is_break_foul and not self.options.straight_pool_break_scratch_gives_kitchen:
                return CueBallZone.ANYWHERE
            return CueBallZone.KITCHEN
        if not any(f.section == "6.11" for f in fouls):
            return CueBallZone.NONE
        if self.options.straight_pool_any_6_11_gives_kitchen:
            return CueBallZone.KITCHEN
        _, ever_crossed = self.head_string_facts(state, events)
        contact = events.first_contact
        second_paragraph = not ever_crossed and (
            contact is None or self.table.in_kitchen(state.position(contact)[0]))
        return CueBallZone.KITCHEN if second_paragraph else CueBallZone.NONE

    def legal_verdict(self, state: GameState, call: ShotCall, events: ShotEvents,
                      balls: dict[int, Point], warnings: list[str]) -> Verdict:
        """A foul-free shot. A made call scores every ball pocketed (WPA 4.7) and the shooter
        plays on (4.4), winning on reaching the target; otherwise (a safety, a missed call,
        a break with no call made) the pocketed balls are spotted (4.5, 4.6) and the
        opponent plays."""
        s, o = state.shooter, 1 - state.shooter
        pots = list(events.object_balls_pocketed)
        if not made_call(call, events):
            spotted = self.spot(balls, pots)
            return Verdict([], balls, set(state.out_of_play), next_shooter=o, spotted=spotted,
                           warnings=warnings)
        points = _points_for(s, len(pots))
        out = set(state.out_of_play) | set(pots)
        score, target = state.scores[s] + len(pots), self.target(state)
        if score >= target:
            return Verdict([], balls, out, next_shooter=s, pocketed_legally=pots,
                           warnings=warnings, points=points, winner=s,
                           end_reason=f"player {s} reached {score} points; the game is to "
                                      f"{target} (WPA 4.4)")
        verdict = Verdict([], balls, out, next_shooter=s, pocketed_legally=pots,
                          warnings=warnings, points=points)
        if len(self.object_balls) - len(out) <= 1:
            self.rerack_during_play(state, verdict)
        return verdict

    # ----------------------------------------------------------------- re-racking (4.8)
    def rerack_during_play(self, state: GameState, verdict: Verdict) -> None:
        """Rack the pocketed balls again, apex empty, and place the 15th ball and the cue
        ball as the WPA 4.8 table says; updates ``verdict`` in place. The shooter plays on
        and may hit any ball first.

        Rows (the 15th ball) x columns (the cue ball in the rack area / elsewhere / on the
        head spot):

        - 15th in the rack area: to the apex, cue in hand behind the head string (4.8(b)) /
          15th to the head spot, cue stays (4.8(c)) / 15th to the centre spot, cue stays.
        - 15th pocketed: all 15 racked (4.8(a)); cue in hand behind the head string / stays
          / stays.
        - 15th in the kitchen, not on the head spot: cue to the head spot (4.8(d)(2)).
        - 15th neither in the kitchen nor in the rack area: cue in hand behind the head
          string (4.8(d)(1)).
        - 15th on the head spot: cue to the centre spot (4.8(d)(2): "if the head spot is
          occupied").
        - In the empty cells neither ball is in the way and both stay.

        "On the head spot" is the table's footnote: in the way of a ball spotted there. A
        15th ball on the head spot counts under its own row even with its centre on or past
        the head string (the head spot lies on the string, so reading 4.8(d)(1) first would
        leave that row nearly empty). A 15th ball racked at the apex (4.8(a), (b)) makes a
        full rack, which is no opening break (digest 8.10, ``straight_pool_full_rerack_is_break``).
        """
        table = self.table
        balls = verdict.balls
        remaining = [b for b in balls if b != CUE_BALL]
        fifteenth = remaining[0] if remaining else None
        cue = balls.get(CUE_BALL)
        cue_in_rack = cue is not None and interferes_with_rack(cue, table)
        to_rack = sorted(verdict.out_of_play)
        apex_ball = None
        zone = CueBallZone.NONE
        if fifteenth is None:  # 4.8(a)
            zone = CueBallZone.KITCHEN if cue_in_rack else zone
        elif interferes_with_rack(balls[fifteenth], table):
            if cue_in_rack:  # 4.8(b)
                apex_ball = fifteenth
                del balls[fifteenth]
                zone = CueBallZone.KITCHEN
            elif on_head_spot(cue, table):  # 4.8(c), second sentence
                balls[fifteenth] = table.centre_spot
            else:  # 4.8(c)
                balls[fifteenth] = table.head_spot
        elif cue_in_rack:  # 4.8(d)
            where = balls[fifteenth]
            if on_head_spot(where, table):
                balls[CUE_BALL] = table.centre_spot
            elif table.in_kitchen(where[0]):
                balls[CUE_BALL] = table.head_spot
            else:
                zone = CueBallZone.KITCHEN
        full = fifteenth is None or apex_ball is not None
        racked = self.rack_again(state, to_rack, apex_ball, full)
        balls.update(racked)
        if full and self.options.straight_pool_full_rerack_is_break:
            zone, verdict.awaiting_break = CueBallZone.KITCHEN, True
        if zone is not CueBallZone.NONE:
            balls.pop(CUE_BALL, None)
        verdict.out_of_play = set()
        verdict.cue_ball_in_hand = zone
        verdict.reracked = sorted(racked.items())

    def rack_again(self, state: GameState, to_rack: list[int], apex_ball: int | None,
                   full: bool) -> dict[int, Point]:
        """Positions for the balls racked during play, in random order seeded by the state:
        14 with the apex empty (WPA 4.2), or all 15 (4.8(a), (b)), ``apex_ball`` at the apex
        when it is given."""
        slots = self.table.rack_positions(RACK_ROWS)
        order = [int(b) for b in self.rng_for(state).permutation(to_rack)]
        if apex_ball is not None:
            order.insert(0, apex_ball)
        first = 0 if full else 1
        return {ball: slots[first + i] for i, ball in enumerate(order)}

    # ----------------------------------------------------------------- decisions
    def judge_decision(self, state: GameState, decision: Decision) -> GameState:
        """WPA 4.3: after a break foul the incoming player accepts the table as it lies, or
        has the balls racked again for the offending breaker to break again."""
        if state.pending.kind is not DecisionKind.STRAIGHT_POOL_BREAK_FOUL:
            return super().judge_decision(state, decision)
        if decision.choice is Choice.ACCEPT_TABLE:
            return replace(state, pending=None)
        return self.rerack(state, state.breaker)


def made_call(call: ShotCall, events: ShotEvents) -> bool:
    """Whether the called ball went into the called pocket (WPA 1.6, 4.7)."""
    return call.names_ball and events.pocket_of(call.ball) == call.pocket


def rack_outline(table: Table) -> tuple[Point, Point, Point]:
    """The outline of the 15-ball triangle drawn on the cloth (WPA 4.2): the triangle whose
    sides touch the outer balls of a full rack. Apex first, then the back corners."""
    slots = table.rack_positions(RACK_ROWS)
    r, rise = table.ball_radius, math.sqrt(3.0) * table.ball_radius
    (ax, ay), (lx, ly), (hx, hy) = slots[0], slots[10], slots[14]
    # Each side lies one radius outside the line through the outer ball centres, so the
    # corners of an equilateral triangle move out by two radii along their bisectors.
    return ((ax - 2.0 * r, ay), (lx + r, ly - rise), (hx + r, hy + rise))


def interferes_with_rack(position: Point, table: Table) -> bool:
    """Whether a ball at ``position`` is in the way of the rack (WPA 4.8): it lies inside the
    rack area or partly inside it, i.e. its disc overlaps the outline of the full triangle."""
    corners = rack_outline(table)
    if _inside_triangle(position, corners):
        return True
    edges = zip(corners, corners[1:] + corners[:1])
    nearest = min(_distance_to_segment(position, a, b) for a, b in edges)
    return nearest < table.ball_radius - _CONTACT_TOLERANCE


def on_head_spot(position: Point, table: Table) -> bool:
    """Whether a ball at ``position`` is "on the head spot": it would be in the way of a ball
    spotted there (the footnote of the WPA 4.8 table)."""
    return math.dist(position, table.head_spot) < 2.0 * table.ball_radius - _CONTACT_TOLERANCE


def _inside_triangle(p: Point, corners: tuple[Point, Point, Point]) -> bool:
    signs = []
    for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1]):
        signs.append((bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax) >= 0.0)
    return all(signs) or not any(signs)


def _distance_to_segment(p: Point, a: Point, b: Point) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def _points_for(player: int, points: int) -> tuple[int, int]:
    return (points, 0) if player == 0 else (0, points)


def _checked_target(target_score) -> int:
    if isinstance(target_score, bool) or not isinstance(target_score, int) or target_score < 1:
        raise ValueError(f"the target score must be a whole number of points >= 1, "
                         f"got {target_score!r}")
    return target_score


