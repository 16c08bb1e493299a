"""Eight-ball (WPA 3): solids 1-7 against stripes 9-15, then the called 8-ball wins.

The break (3.3) needs no call and may hit any ball; its faults lead to the decisions of
3.3(d)-(h), combined as the digest's resolution 8.5 says. After the break every shot calls a
ball and a pocket or a safety (3.6); the table is open until a called ball drops legally
(3.4); the shooter stays at the table only while his called balls drop on legal shots (3.5).
Nothing is spotted except the 8-ball on the break (3.7), fouls give cue ball in hand
anywhere (3.9) and there is no three-foul rule (3.10). The losses of 3.8 and the digest's
resolutions 8.2-8.4 are in ``losing_reason``.

Where the text and the digest are both silent: if the table is still open when every solid
and stripe is down, both players are on the 8-ball (it is the legal first contact and may be
called), since otherwise the rack could not end.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from poolgym.rules.base import Point, Ruleset, Verdict, register_ruleset
from poolgym.rules.decisions import Choice, Decision, DecisionKind, PendingDecision
from poolgym.rules.outcome import Foul, Penalty, heaviest_penalty
from poolgym.rules.shot import ShotCall, ShotEvents, ball_and_pocket_calls
from poolgym.rules.state import CUE_BALL, CueBallZone, GameState

EIGHT = 8
SOLIDS = tuple(range(1, 8))
STRIPES = tuple(range(9, 16))
GROUPS = {"solids": SOLIDS, "stripes": STRIPES}
RACK_ROWS = (1, 2, 3, 4, 5)
EIGHT_SLOT = 4  # index into table.rack_positions(RACK_ROWS): the middle of row 3
BACK_CORNER_SLOTS = (10, 14)  # the two ends of row 5

# The break outcomes that need a decision (WPA 3.3(d)-(h)) and the choices each offers.
DRY_BREAK_CHOICES = (Choice.ACCEPT_TABLE, Choice.RERACK_AND_BREAK, Choice.RERACK_OPPONENT_BREAKS)
EIGHT_ON_BREAK_CHOICES = (Choice.SPOT_EIGHT_AND_ACCEPT, Choice.RERACK_AND_BREAK)
EIGHT_AND_SCRATCH_CHOICES = (Choice.SPOT_EIGHT_KITCHEN_IN_HAND, Choice.RERACK_AND_BREAK)
BREAK_FOUL_CHOICES = (Choice.ACCEPT_TABLE, Choice.KITCHEN_IN_HAND)
BREAK_DECISIONS = frozenset({DecisionKind.EIGHT_BALL_DRY_BREAK,
                             DecisionKind.EIGHT_BALL_EIGHT_ON_BREAK,
                             DecisionKind.EIGHT_BALL_EIGHT_AND_SCRATCH_ON_BREAK,
                             DecisionKind.EIGHT_BALL_BREAK_FOUL})
BREAK_CUSHION_BALLS = 4  # WPA 3.3(d): object balls a break must drive to a cushion


def group_of(ball: int) -> str | None:
    """The group ``ball`` belongs to ("solids" or "stripes"); None for the 8-ball."""
    for name, balls in GROUPS.items():
        if ball in balls:
            return name
    return None


def other_group(group: str) -> str:
    """The group that is not ``group``."""
    return "stripes" if group == "solids" else "solids"


@register_ruleset("eight_ball")
class EightBall(Ruleset):
    """WPA 3 eight-ball. ``options.eight_ball_*`` choose the points the text leaves open
    (digest 8.2-8.5, 8.18)."""

    name = "eight_ball"
    object_balls = tuple(range(1, 16))
    # WPA 3.9 lists the standard fouls; 6.16 is the serious foul of 3.10. No 6.14 (3.10).
    fouls_in_force = frozenset({"6.1", "6.2", "6.3", "6.4", "6.5", "6.6", "6.7", "6.8", "6.9",
                                "6.10", "6.11", "6.12", "6.13", "6.15", "6.16"})
    three_foul_rule = False

    # ----------------------------------------------------------------- rack and groups
    def rack(self, rng: np.random.Generator) -> dict[int, Point]:
        """WPA 3.2: a 15-ball triangle with its apex on the foot spot, the 8-ball in the
        middle of row 3, a solid and a stripe in the two back corners, the rest at random."""
        slots = self.table.rack_positions(RACK_ROWS)
        solid, stripe = int(rng.choice(SOLIDS)), int(rng.choice(STRIPES))
        corners = [int(b) for b in rng.permutation([solid, stripe])]
        balls = {EIGHT: slots[EIGHT_SLOT]}
        balls.update(zip(corners, (slots[i] for i in BACK_CORNER_SLOTS)))
        others = [b for b in self.object_balls if b not in balls]
        free = [i for i in range(len(slots)) if i != EIGHT_SLOT and i not in BACK_CORNER_SLOTS]
        for slot, ball in zip(free, rng.permutation(others)):
            balls[int(ball)] = slots[slot]
        return balls

    def group_balls_on_table(self, state: GameState, player: int) -> tuple[int, ...] | None:
        """The balls of ``player``'s group still on the table; None while the table is open."""
        if state.groups is None:
            return None
        group = GROUPS[state.groups[player]]
        return tuple(b for b in state.object_balls_on_table if b in group)

    def shooting_at_eight(self, state: GameState) -> bool:
        """Whether the shooter's group is cleared, so the 8-ball is his ball (WPA 3.5, 3.6).

        On an open table this is so only when no solid or stripe is left (module docstring).
        """
        own = self.group_balls_on_table(state, state.shooter)
        if own is None:
            return all(b == EIGHT for b in state.object_balls_on_table)
        return not own

    def callable_balls(self, state: GameState) -> tuple[int, ...]:
        """The balls the shooter may call (WPA 3.4-3.6): on an open table any ball but the
        8-ball, then his own group, and the 8-ball once the group is cleared."""
        if self.shooting_at_eight(state):
            return (EIGHT,)
        own = self.group_balls_on_table(state, state.shooter)
        if own is None:
            return tuple(b for b in state.object_balls_on_table if b != EIGHT)
        return own

    def state_problems(self, state: GameState) -> list[str]:
        """The groups are open (None) or one each of solids and stripes."""
        if state.groups is not None and sorted(state.groups) != sorted(GROUPS):
            return [f"groups must be None (open table) or one each of {sorted(GROUPS)}, "
                    f"got {state.groups}"]
        return []

    def legal_targets(self, state: GameState) -> frozenset[int]:
        """The legal first contacts: any ball on the break (WPA 3.3(b)), otherwise the
        callable balls (3.4, 3.9, digest 8.3); with ``eight_ball_cleared_group_must_hit_eight``
        off, any ball once the group is cleared."""
        on = frozenset(state.object_balls_on_table)
        if state.awaiting_break:
            return on
        if self.any_first_contact(state):
            return on
        return frozenset(self.callable_balls(state))

    def any_first_contact(self, state: GameState) -> bool:
        """Whether any ball may be hit first, so there is no 6.2 and a miss is 6.3 (digest 8.14)."""
        return state.awaiting_break or (
            self.shooting_at_eight(state)
            and not self.options.eight_ball_cleared_group_must_hit_eight)

    # ----------------------------------------------------------------- calls
    def call_options(self, state: GameState) -> tuple[ShotCall, ...]:
        """No call on the break (WPA 3.3(b)); after it a safety or a callable ball into any
        pocket (3.6)."""
        if state.awaiting_break:
            return (ShotCall(),)
        return ball_and_pocket_calls(self.callable_balls(state))

    def check_call(self, state: GameState, call: ShotCall) -> None:
        super().check_call(state, call)
        if state.awaiting_break:
            if call.names_ball or call.safety:
                raise ValueError("eight-ball takes no call on the break (WPA 3.3(b))")
            return
        if not (call.names_ball or call.safety):
            raise ValueError("eight-ball needs a call after the break: a ball and a pocket, "
                             "or a safety (WPA 3.6)")
        if call.names_ball and call.ball not in self.callable_balls(state):
            if call.ball == EIGHT:
                raise ValueError("the 8-ball may be called only once the shooter's group is "
                                 "cleared (WPA 3.6)")
            raise ValueError(f"ball {call.ball} is not one of the shooter's "
                             f"{state.groups[state.shooter]}; only those may be called (WPA 3.5)")

    # ----------------------------------------------------------------- judging
    def judge_shot(self, state: GameState, call: ShotCall, events: ShotEvents) -> Verdict:
        legal_first = None if self.any_first_contact(state) else self.legal_targets(state)
        fouls, warnings = self.detect_fouls(state, events, legal_first=legal_first)
        balls = self.balls_after_shot(state, events)
        out = set(state.out_of_play) | set(events.object_balls_pocketed) | set(
            events.object_balls_off_table)
        s, o = state.shooter, 1 - state.shooter
        penalty = heaviest_penalty(fouls)
        if penalty is not None and penalty >= Penalty.SERIOUS:
            worst = next(f for f in fouls if f.penalty == penalty)
            return self.loss(state, balls, out, fouls, warnings,
                             f"{worst.description} (WPA {worst.section}, 3.10)")
        if state.awaiting_break:
            return self.break_verdict(state, events, fouls, warnings, balls, out)
        reason = self.losing_reason(state, call, events, fouls)
        if reason is not None:
            return self.loss(state, balls, out, fouls, warnings, reason)
        spotted = []
        if EIGHT in out:
            if not fouls and call.ball == EIGHT:  # losing_reason checked the pocket
                return Verdict(fouls, balls, out, next_shooter=s, warnings=warnings, winner=s,
                               pocketed_legally=[EIGHT],
                               end_reason=f"player {s} pocketed the called 8-ball after "
                                          "clearing his group (WPA 3.5)")
            # Reached only with a digest 8.2 / 8.4 option off: the 8-ball dropped without
            # losing, and a rack cannot go on without it.
            out.discard(EIGHT)
            spotted = self.spot(balls, [EIGHT])
        if fouls:
            return Verdict(fouls, balls, out, next_shooter=o, spotted=spotted, warnings=warnings,
                           cue_ball_in_hand=CueBallZone.ANYWHERE)
        return self.legal_verdict(state, call, events, balls, out, warnings, spotted)

    def loss(self, state: GameState, balls: dict[int, Point], out: set[int], fouls: list[Foul],
             warnings: list[str], reason: str) -> Verdict:
        """The shooter loses the rack (WPA 3.8, 3.10)."""
        s, o = state.shooter, 1 - state.shooter
        return Verdict(fouls, balls, out, next_shooter=o, warnings=warnings, winner=o,
                       end_reason=f"player {s} lost the rack: {reason}")

    def losing_reason(self, state: GameState, call: ShotCall, events: ShotEvents,
                      fouls: list[Foul]) -> str | None:
        """Why the shooter loses the rack on this shot after the break (WPA 3.8), or None.

        With the digest's defaults the 8-ball down on any shot but the winning one loses:
        with a scratch (3.8(a)) or any foul (8.2), while the shooter's group had balls at the
        start of the shot (3.8(b), 8.4), in another pocket than the called one (3.8(c)), or
        uncalled -- on an open table or a safety (8.4). Driving it off the table loses (3.8(d)).
        """
        if EIGHT in events.off_table:
            return "the 8-ball was driven off the table (WPA 3.8(d))"
        pocket = events.pocket_of(EIGHT)
        if pocket is None:
            return None
        if CUE_BALL in events.pocketed_balls:
            return "the 8-ball was pocketed on a scratch (WPA 3.8(a))"
        if fouls and self.options.eight_ball_any_foul_on_eight_loses:
            return (f"the 8-ball was pocketed on a foul, {fouls[0].section} "
                    "(WPA 3.8(a), digest 8.2)")
        strict = self.options.eight_ball_uncalled_eight_loses
        own = self.group_balls_on_table(state, state.shooter)
        if own is not None:
            left = own if strict else [b for b in own if b not in events.object_balls_pocketed
                                       and b not in events.off_table]
            if left:
                return (f"the 8-ball was pocketed while the shooter's group still had balls "
                        f"{list(left)} on the table (WPA 3.8(b))")
        if call.ball == EIGHT:
            if pocket != call.pocket:
                return (f"the 8-ball was called in {call.pocket} but dropped in {pocket} "
                        "(WPA 3.8(c))")
            return None
        if not strict:
            return None
        if call.safety:
            return "the 8-ball was pocketed on a safety (WPA 3.6, 3.8(c), digest 8.4)"
        if state.groups is None:
            return "the 8-ball was pocketed on an open table (WPA 3.4, 3.8(c), digest 8.4)"
        return "the 8-ball was pocketed without being called (WPA 3.8(c), digest 8.4)"

    def legal_verdict(self, state: GameState, call: ShotCall, events: ShotEvents,
                      balls: dict[int, Point], out: set[int], warnings: list[str],
                      spotted: list[tuple[int, Point]]) -> Verdict:
        """A foul-free shot after the break that did not end the rack (WPA 3.4, 3.5, 3.6).

        The shooter stays only if the called ball dropped in the called pocket; on an open
        table that gives him the called ball's group. Other balls stay down either way.
        """
        s, o = state.shooter, 1 - state.shooter
        made = call.names_ball and events.pocket_of(call.ball) == call.pocket
        if not made:
            return Verdict([], balls, out, next_shooter=o, spotted=spotted, warnings=warnings)
        changes = {}
        groups = state.groups
        if groups is None:
            mine = group_of(call.ball)
            groups = (mine, other_group(mine)) if s == 0 else (other_group(mine), mine)
            changes["groups"] = groups
        mine = GROUPS[groups[s]]
        credited = [b for b in events.object_balls_pocketed if b in mine]
        return Verdict([], balls, out, next_shooter=s, spotted=spotted, warnings=warnings,
                       pocketed_legally=credited, changes=changes)

    # ----------------------------------------------------------------- the break (3.3)
    def break_verdict(self, state: GameState, events: ShotEvents, fouls: list[Foul],
                      warnings: list[str], balls: dict[int, Point], out: set[int]) -> Verdict:
        """The break and its decisions (WPA 3.3(c)-(h), combined faults per digest 8.5).

        A pocketed or driven-off 8-ball is spotted now (3.3(e)-(g), 3.7), so the decider sees
        the position he is asked to accept; a re-rack replaces it. Other balls stay down.
        """
        s, o = state.shooter, 1 - state.shooter
        pots = events.object_balls_pocketed
        spotted = []
        if EIGHT in out:
            out.discard(EIGHT)
            spotted = self.spot(balls, [EIGHT])
        scratch = CUE_BALL in events.pocketed_balls  # WPA 8.6
        cue_ball_gone = events.cue_ball_scratched
        other_faults = [f for f in fouls if f.section != "6.1"]
        if EIGHT in pots and scratch and (
                not other_faults or self.options.eight_ball_combined_break_faults_use_f_first):
            kind = DecisionKind.EIGHT_BALL_EIGHT_AND_SCRATCH_ON_BREAK
            return Verdict(fouls, balls, out, next_shooter=o, spotted=spotted, warnings=warnings,
                           cue_ball_in_hand=CueBallZone.KITCHEN,
                           pending=PendingDecision(kind, o, EIGHT_AND_SCRATCH_CHOICES))
        if fouls:
            # 3.3(g)/(h); with the cue ball gone, accepting the table means cue ball in hand
            # in the kitchen (digest 8.5).
            zone = CueBallZone.KITCHEN if cue_ball_gone else CueBallZone.NONE
            return Verdict(fouls, balls, out, next_shooter=o, spotted=spotted, warnings=warnings,
                           cue_ball_in_hand=zone,
                           pending=PendingDecision(DecisionKind.EIGHT_BALL_BREAK_FOUL, o,
                                                   BREAK_FOUL_CHOICES))
        if EIGHT in pots:
            return Verdict([], balls, out, next_shooter=s, spotted=spotted, warnings=warnings,
                           pocketed_legally=[b for b in pots if b != EIGHT],
                           pending=PendingDecision(DecisionKind.EIGHT_BALL_EIGHT_ON_BREAK, s,
                                                   EIGHT_ON_BREAK_CHOICES))
        if not pots and len(events.distinct_object_balls_to_cushion) < BREAK_CUSHION_BALLS:
            return Verdict([], balls, out, next_shooter=o, warnings=warnings,
                           pending=PendingDecision(DecisionKind.EIGHT_BALL_DRY_BREAK, o,
                                                   DRY_BREAK_CHOICES))
        # 3.3(c): a ball down without a foul keeps the breaker at an open table.
        return Verdict([], balls, out, next_shooter=s if pots else o, warnings=warnings,
                       pocketed_legally=list(pots))

    def judge_decision(self, state: GameState, decision: Decision) -> GameState:
        """The break decisions of WPA 3.3(d)-(h); others go to the base."""
        kind, decider = state.pending.kind, state.pending.player
        if kind not in BREAK_DECISIONS:
            return super().judge_decision(state, decision)
        choice = decision.choice
        if choice is Choice.RERACK_AND_BREAK:
            return self.rerack(state, decider)
        if choice is Choice.RERACK_OPPONENT_BREAKS:
            return self.rerack(state, 1 - decider)
        cleared = replace(state, pending=None)
        if choice is Choice.KITCHEN_IN_HAND:
            balls = {n: p for n, p in cleared.positions.items() if n != CUE_BALL}
            return replace(cleared, balls=balls, cue_ball_in_hand=CueBallZone.KITCHEN)
        if (choice is Choice.SPOT_EIGHT_AND_ACCEPT
                and not self.options.eight_ball_breaker_continues_after_eight_spotted):
            return self.hand_table_to(cleared, 1 - decider)[0]
        # ACCEPT_TABLE, SPOT_EIGHT_KITCHEN_IN_HAND and SPOT_EIGHT_AND_ACCEPT (digest 8.18):
        # the 8-ball is already spotted and the cue ball already where the choice puts it.
        return cleared

    def rerack(self, state: GameState, breaker: int) -> GameState:
        """Re-rack for ``breaker`` (WPA 3.3(d)-(f)), keeping ``state.breaker`` as the player who
        made the original break: he breaks again after a stalemate (3.11), and alternating
        breaks count from him."""
        return replace(super().rerack(state, breaker), breaker=state.breaker)


