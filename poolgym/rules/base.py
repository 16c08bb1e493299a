"""The ``Ruleset`` interface every game implements, the shared shot pipeline, and the registry.

A game subclasses ``Ruleset`` and writes ``rack``, ``legal_targets`` and ``judge_shot``
(plus ``call_options``, ``check_call`` and ``judge_decision`` where it has calls or
decisions of its own). ``apply_shot`` checks the input, asks ``judge_shot`` for a
``Verdict`` and turns it into the next state and the ``Outcome`` in ``conclude``, which
also keeps the innings, the three-foul count and its warning (WPA 6.14), the no-progress
countdown (WPA 1.12) and the ball-spot request (WPA 1.5) for every game alike.
"""

from __future__ import annotations

import copy as _copy
import importlib
import math
import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar

import numpy as np

from poolgym.rules import fouls as foul_rules
from poolgym.rules.ball_in_hand import spot_request_candidates
from poolgym.rules.decisions import Choice, Decision, DecisionKind, PendingDecision
from poolgym.rules.options import RuleOptions
from poolgym.rules.overlaps import overlapping_pairs
from poolgym.rules.outcome import Foul, Outcome, heaviest_penalty
from poolgym.rules.shot import ShotCall, ShotEvents
from poolgym.rules.spotting import spot_balls, spot_position
from poolgym.rules.state import CUE_BALL, CueBallZone, GameState
from poolgym.racking import RackModel
from poolgym.records import stored
from poolgym.table import Table

Point = tuple[float, float]
NO_PROGRESS_INNINGS = 3  # WPA 1.12: three more innings each after "no progress" is announced
# How far final positions may stray (metres) into a cushion or another ball: the simulator's
# own bound at rest (poolgym.physics.invariants.MAX_OVERLAP, not imported: the rules stand
# without the physics).
FINAL_POSITION_TOLERANCE = 0.0005


# ``call_options``' default answers, made once: the bot asks for them in every position it
# judges (calls are frozen values).
_NO_CALL = (ShotCall(),)
_NO_CALL_OR_PUSH = (ShotCall(), ShotCall.push())


@dataclass
class Verdict:
    """What a game decided about one shot; ``Ruleset.conclude`` makes it a state and an outcome.

    ``balls`` are the balls on the table after the shot with any spotting done (the cue ball
    may stay listed when it goes in hand: ``conclude`` lifts it). ``reracked`` lists the balls
    put back in a rack during play (14.1, WPA 4.4) with their positions. ``changes`` sets further
    ``GameState`` fields (``groups``, ``breaker``, ``extra``...). ``counts_toward_three_fouls``
    is False for a foul the three-foul rule ignores (14.1 break fouls, WPA 4.11).
    """

    fouls: list[Foul]
    balls: dict[int, Point]
    out_of_play: set[int]
    next_shooter: int
    cue_ball_in_hand: CueBallZone = CueBallZone.NONE
    spotted: list[tuple[int, Point]] = field(default_factory=list)
    reracked: list[tuple[int, Point]] = field(default_factory=list)
    pocketed_legally: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    winner: int | None = None
    end_reason: str = ""
    pending: PendingDecision | None = None
    points: tuple[int, int] = (0, 0)
    push_out_available: bool = False
    awaiting_break: bool = False
    counts_toward_three_fouls: bool = True
    changes: dict[str, Any] = field(default_factory=dict)


class Ruleset:
    """One game's rules as pure functions of a ``GameState``.

    Class attributes a game sets: ``name`` (its registry name), ``object_balls``,
    ``fouls_in_force`` (the WPA 6 sections that are fouls in it, e.g. WPA 2.7's list) and
    ``three_foul_rule`` (WPA 6.14 applies).
    """

    name: ClassVar[str] = ""
    object_balls: ClassVar[tuple[int, ...]] = ()
    fouls_in_force: ClassVar[frozenset[str]] = frozenset()
    three_foul_rule: ClassVar[bool] = True
    # How tightly new racks are racked (``with_rack_model``); tight unless set.
    rack_model: RackModel = RackModel()

    def __init__(self, options: RuleOptions | None = None, table: Table | None = None) -> None:
        if options is not None and not isinstance(options, RuleOptions):
            raise ValueError(f"options must be a RuleOptions (RuleOptions.from_dict(mapping) "
                             f"builds one), got {options!r}")
        if table is not None and not isinstance(table, Table):
            raise ValueError(f"table must be a poolgym.table.Table, got {table!r}")
        self.options = options if options is not None else RuleOptions()
        self.table = table if table is not None else Table.preset("9ft")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(table={self.table.name!r})"

    def with_rack_model(self, model: RackModel) -> "Ruleset":
        """A copy of these rules whose new racks (``new_game``, and so ``next_rack`` and
        ``rerack``) have ``model``'s random gaps between the balls."""
        if not isinstance(model, RackModel):
            raise ValueError(f"rack model must be a poolgym.racking.RackModel, got {model!r}")
        copy = _copy.copy(self)
        copy.rack_model = model
        return copy

    # ================================================================= what a game writes
    def rack(self, rng: np.random.Generator) -> dict[int, Point]:
        """The racked object balls' positions for a new rack."""
        raise NotImplementedError

    def legal_targets(self, state: GameState) -> frozenset[int]:
        """The balls the cue ball may legally touch first in ``state`` (WPA 6.2)."""
        raise NotImplementedError

    def state_problems(self, state: GameState) -> list[str]:
        """What makes ``state`` impossible in this game beyond the invariants every game
        shares (``state_violations``), in words; a game with state of its own (eight-ball's
        groups) overrides this. Empty when sound."""
        return []

    def judge_shot(self, state: GameState, call: ShotCall, events: ShotEvents) -> Verdict:
        """Apply the game's rules to a checked shot."""
        raise NotImplementedError

    def call_options(self, state: GameState) -> tuple[ShotCall, ...]:
        """The calls the shooter may make now (the checker draws from these).

        Default: no call, and a push out when one is available (WPA 2.4).
        """
        return _NO_CALL_OR_PUSH if state.push_out_available else _NO_CALL

    def check_call(self, state: GameState, call: ShotCall) -> None:
        """Raise ``ValueError`` if ``call`` is not allowed in ``state``. Games add their rules."""
        if call.ball is not None:
            self._check_ball_known(call.ball)
            if call.ball not in state.object_balls_on_table:
                raise ValueError(f"the call names ball {call.ball}, which is not on the table")
        if call.push_out and not state.push_out_available:
            raise ValueError("a push out is not available now (WPA 2.4: only on the shot "
                             "after a foul-free break)")

    def judge_decision(self, state: GameState, decision: Decision) -> GameState:
        """Apply a checked decision. Handles shoot/pass back and the 1.5 spot request;
        games with decisions of their own override this and defer to it for these."""
        kind = state.pending.kind
        if kind in (DecisionKind.PUSH_OUT_RESPONSE, DecisionKind.UNCALLED_POT_RESPONSE):
            cleared = replace(state, pending=None)
            if decision.choice is Choice.SHOOT:
                return cleared
            return self.hand_table_to(cleared, 1 - state.pending.player)[0]
        if kind is DecisionKind.SPOT_REQUEST:
            cleared = replace(state, pending=None)
            if decision.choice is Choice.DECLINE_SPOT:
                return cleared
            balls = cleared.positions
            del balls[decision.ball]
            balls[decision.ball] = spot_position(balls, self.table,
                                                 self.options.spotting_cue_ball_gap)
            return replace(cleared, balls=balls)
        raise ValueError(f"{self.name} has no decision of kind {kind.value!r}")

    def next_breaker(self, state: GameState) -> int:
        """Who breaks the rack after ``state``: the same breaker after a stalemate (WPA 2.9,
        3.11), else alternating breaks (WPA 2.1) or, without them, the winner."""
        if state.stalemate:
            return state.breaker
        if self.options.alternate_breaks or state.winner is None:
            return 1 - state.breaker
        return state.winner

    # ================================================================= games and racks
    def new_game(self, rng: np.random.Generator | int | None = None, breaker: int = 0) -> GameState:
        """A fresh rack: cue ball in hand in the kitchen for ``breaker`` (WPA 2.3(a), 3.3(a))."""
        if breaker not in (0, 1):
            raise ValueError(f"breaker must be player 0 or 1, got {breaker!r}")
        rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        balls = self.rack_model.apply(self.rack(rng), rng, self.table)
        return GameState(game=self.name, balls=balls, shooter=breaker, breaker=breaker,
                         awaiting_break=True, cue_ball_in_hand=CueBallZone.KITCHEN)

    def next_rack(self, state: GameState, rng: np.random.Generator | int | None = None) -> GameState:
        """The next rack of a match once ``state`` is over (scores and target carried over)."""
        if not state.is_over:
            raise ValueError("the rack is still being played")
        fresh = self.new_game(rng, self.next_breaker(state))
        return replace(fresh, rack_number=state.rack_number + 1, scores=state.scores,
                       target_score=state.target_score)

    def rerack(self, state: GameState, breaker: int) -> GameState:
        """The same rack racked again for ``breaker`` to break (e.g. WPA 3.3(d)-(f)).

        Pure: the random order of the rack comes from a generator seeded by the state.
        """
        racked = self.new_game(self.rng_for(state), breaker)
        handed, _ = self.hand_table_to(replace(state, pending=None), breaker)
        return replace(handed, balls=racked.balls, out_of_play=(), breaker=breaker,
                       shot_number=0, awaiting_break=True, cue_ball_in_hand=CueBallZone.KITCHEN,
                       push_out_available=False)

    @staticmethod
    def rng_for(state: GameState) -> np.random.Generator:
        """A generator seeded by the state itself, for randomness inside pure transitions."""
        return np.random.default_rng(zlib.crc32(state.to_json().encode()))

    # ================================================================= shots
    def apply_shot(self, state: GameState, call: ShotCall, events: ShotEvents,
                   simulated: bool = False) -> tuple[GameState, Outcome]:
        """The state after the shot and what the shot did. Raises ``ValueError`` on input
        that does not fit the state (nothing changes: states are values).

        ``simulated``: ``events`` are what ``poolgym.envs.play.simulate_move`` (or
        ``simulate_moves``) returned for a move from ``state`` (the facts of a simulation
        of this layout, or the placement no stroke could be played from), so they fit the
        state by construction and ``check_events`` is skipped: a bot judging many simulated
        candidates pays for the check of each otherwise. The result is the same."""
        return self.conclude(state, call, events, self._judged(state, call, events, simulated))

    def next_state(self, state: GameState, call: ShotCall, events: ShotEvents,
                   simulated: bool = False) -> GameState:
        """``apply_shot``'s state alone, without building its ``Outcome``: for a search that
        only values where each of many simulated shots leaves the table (a bot's noisy
        replays). The same checks and the same state."""
        return self._next_state(state, self._judged(state, call, events, simulated))[0]

    def _judged(self, state: GameState, call: ShotCall, events: ShotEvents, simulated: bool) -> Verdict:
        """``apply_shot``'s checks, then the verdict on the shot."""
        self._check_playable(state)
        if not isinstance(call, ShotCall) or not isinstance(events, ShotEvents):
            raise ValueError("apply_shot takes a ShotCall and a ShotEvents")
        self.check_call(state, call)
        if not simulated:
            self.check_events(state, events)
        return self.judge_shot(state, call, events)

    def apply_decision(self, state: GameState, decision: Decision) -> GameState:
        """The state after the pending decision is answered."""
        if state.game != self.name:
            raise ValueError(f"this state is a {state.game!r} game, not {self.name!r}")
        pending = state.pending
        if pending is None:
            raise ValueError("no decision is pending")
        if not isinstance(decision, Decision):
            raise ValueError("apply_decision takes a Decision")
        if decision.player is not None and decision.player != pending.player:
            raise ValueError(f"the decision is player {pending.player}'s, not player {decision.player}'s")
        if decision.choice not in pending.choices:
            raise ValueError(f"{decision.choice.value!r} is not a choice now; the choices are "
                             f"{[c.value for c in pending.choices]}")
        if decision.choice is Choice.SPOT_BALL and decision.ball not in pending.balls:
            raise ValueError(f"ball {decision.ball} cannot be spotted; the choice is among "
                             f"{list(pending.balls)}")
        new = self.judge_decision(state, decision)
        # A declined spot request is not offered again on the same shot (WPA 1.5).
        if (new.pending is None and not new.is_over
                and pending.kind is not DecisionKind.SPOT_REQUEST):
            new = self.offer_spot_request(new)
        return new

    def check_events(self, state: GameState, events: ShotEvents) -> None:
        """Raise ``ValueError`` when the events cannot have happened from ``state``."""
        in_hand = state.cue_ball_in_hand is not CueBallZone.NONE
        on_table = set(state.on_table) | ({CUE_BALL} if in_hand else set())
        for ball in sorted(events.referenced_balls()):
            self._check_ball_known(ball)
            if ball not in on_table:
                raise ValueError(f"the events name ball {ball}, which is not on the table")
        if in_hand and events.cue_ball_start is None:
            raise ValueError("the cue ball is in hand: the events need its placement "
                             "(cue_ball_start)")
        if events.final_positions is not None:
            expected = on_table - set(events.pocketed_balls) - events.off_table
            given = {r[0] for r in events.final_positions}
            if given != expected:
                missing, extra = sorted(expected - given), sorted(given - expected)
                raise ValueError(f"final_positions must list exactly the balls left on the table; "
                                 f"missing {missing}, unexpected {extra}")
            # A cue ball left where it was placed from hand was not struck: a placement off the
            # surface or on a ball is the 6.10 foul, judged by the rules, not an error.
            unplayed = (in_hand and events.cue_ball_start is not None
                        and (CUE_BALL, *events.cue_ball_start) in events.final_positions)
            self._check_final_positions([b for b in events.final_positions
                                         if not (unplayed and b[0] == CUE_BALL)])
        foul_rules.declared(events, self.fouls_in_force)

    def _check_final_positions(self, final_positions) -> None:
        """Balls at rest are on the playing surface and apart, up to what the simulator
        itself allows at rest (``FINAL_POSITION_TOLERANCE``)."""
        table = self.table
        for n, x, y in final_positions:
            if not table.contains(x, y, tolerance=FINAL_POSITION_TOLERANCE):
                raise ValueError(f"final_positions puts ball {n} at ({x:.4f}, {y:.4f}), off the playing "
                                 "surface")
        pairs = overlapping_pairs(final_positions, table.ball_radius, FINAL_POSITION_TOLERANCE, limit=1)
        if pairs:
            raise ValueError(f"final_positions puts balls {pairs[0][0]} and {pairs[0][1]} on top of each other "
                             f"(centres closer than {2 * table.ball_radius - FINAL_POSITION_TOLERANCE:.5f} m)")

    def _check_playable(self, state: GameState) -> None:
        if state.game != self.name:
            raise ValueError(f"this state is a {state.game!r} game, not {self.name!r}")
        if state.is_over:
            raise ValueError("the rack is over; start the next one with next_rack")
        if state.pending is not None:
            raise ValueError(f"a decision is pending ({state.pending.kind.value}, player "
                             f"{state.pending.player}); answer it with apply_decision")

    def _check_ball_known(self, ball: int) -> None:
        if ball != CUE_BALL and ball not in self.object_balls:
            raise ValueError(f"unknown ball {ball}: {self.name} plays balls "
                             f"{self.object_balls[0]}-{self.object_balls[-1]} and the cue ball 0")

    # ================================================================= helpers for judge_shot
    def balls_after_shot(self, state: GameState, events: ShotEvents) -> dict[int, Point]:
        """The balls on the table at rest, before any spotting."""
        if events.final_positions is not None:
            return {n: (x, y) for n, x, y in events.final_positions}
        balls = state.positions
        if state.cue_ball_in_hand is not CueBallZone.NONE:
            balls[CUE_BALL] = events.cue_ball_start
        for ball in events.pocketed_balls + tuple(events.off_table):
            balls.pop(ball, None)
        return balls

    def head_string_facts(self, state: GameState, events: ShotEvents) -> tuple[bool, bool]:
        """(crossed the head string before the first contact, crossed it at all) (WPA 6.11).

        Values the events give are used as they are. Otherwise, from positions: the cue ball
        crossed before contact if it started at or past the string or its first contact lies
        at or past it; it crossed at all if so, or if it came to rest at or past it.
        """
        hs = self.table.head_string_x
        start = events.cue_ball_start
        if start is None and CUE_BALL in state.on_table:
            start = state.position(CUE_BALL)
        before = events.crossed_head_string_before_contact
        if before is None:
            contact = events.first_contact
            before = (start is not None and start[0] >= hs) or (
                contact is not None and state.position(contact)[0] >= hs)
        ever = events.ever_crossed_head_string
        if ever is None:
            final = {r[0]: r[1] for r in events.final_positions or ()}
            ever = before or final.get(CUE_BALL, -math.inf) >= hs
        return bool(before), bool(ever)

    def detect_fouls(self, state: GameState, events: ShotEvents, *,
                     legal_first: frozenset[int] | None, push_out: bool = False
                     ) -> tuple[list[Foul], list[str]]:
        """The fouls the events show plus the declared ones, and any 6.16 warnings."""
        # The head-string facts serve 6.11 alone, which only judges a cue ball in hand in the kitchen.
        before = ever = False
        if state.cue_ball_in_hand is CueBallZone.KITCHEN and "6.11" in self.fouls_in_force:
            before, ever = self.head_string_facts(state, events)
        found = foul_rules.detect_fouls(
            state, events, self.table, legal_first=legal_first, in_force=self.fouls_in_force,
            push_out=push_out, complete_miss_is_wrong_ball=self.options.complete_miss_is_wrong_ball,
            crossed_before_contact=before, ever_crossed=ever)
        if not events.declared_fouls:  # a simulated shot's, always
            return found, []
        declared, warnings = foul_rules.declared(events, self.fouls_in_force)
        return found + declared, warnings

    def spot(self, balls: dict[int, Point], to_spot) -> list[tuple[int, Point]]:
        """Spot ``to_spot`` (WPA 1.4) into ``balls`` in place; returns where each went."""
        placed = spot_balls(balls, to_spot, self.table, self.options.spotting_cue_ball_gap,
                            self.options.spot_lowest_first)
        balls.update(placed)
        return placed

    # ================================================================= turn bookkeeping
    def conclude(self, state: GameState, call: ShotCall, events: ShotEvents,
                 verdict: Verdict) -> tuple[GameState, Outcome]:
        """Turn a verdict into the next state and the outcome (shared by every game)."""
        s = state.shooter
        over = verdict.winner is not None
        new, warning_to = self._next_state(state, verdict)
        # Every field (``stored``: ``Outcome(...)`` without its frozen ``__init__``, a cost
        # paid on every shot a bot judges).
        # Most shots foul nothing, spot, rerack or drive off nothing: an empty list is ``()``
        # without the conversion.
        fouls, off, spotted, reracked = verdict.fouls, events.off_table, verdict.spotted, verdict.reracked
        outcome = stored(
            Outcome,
            shooter=s, break_shot=state.awaiting_break, push_out=call.push_out,
            fouls=tuple(fouls) if fouls else (), penalty=heaviest_penalty(fouls) if fouls else None,
            pocketed=events.pocketed, driven_off=tuple(sorted(off)) if off else (),
            pocketed_legally=tuple(verdict.pocketed_legally),
            spotted=tuple([(b, x, y) for b, (x, y) in spotted]) if spotted else (),
            turn_kept=not over and new.shooter == s and new.pending is None,
            next_shooter=None if over else new.shooter, cue_ball_in_hand=new.cue_ball_in_hand,
            points=tuple(verdict.points), winner=verdict.winner, stalemate=False,
            end_reason=verdict.end_reason, pending=new.pending, warning_to=warning_to,
            warnings=tuple(verdict.warnings) if verdict.warnings else (),
            reracked=tuple([(b, x, y) for b, (x, y) in reracked]) if reracked else ())
        return new, outcome

    def _next_state(self, state: GameState, verdict: Verdict) -> tuple[GameState, int | None]:
        """The state a verdict leaves, the table handed to the next shooter (``hand_table_to``,
        in the same transition), and the player warned on two fouls, if any."""
        s = state.shooter
        zone = verdict.cue_ball_in_hand
        over = verdict.winner is not None
        lifted = zone is not CueBallZone.NONE or over  # the cue ball goes in hand, or the rack is over
        if over:
            zone = CueBallZone.NONE
        counts, warned = list(state.consecutive_fouls), list(state.warned_on_two_fouls)
        if self.three_foul_rule and (verdict.counts_toward_three_fouls or not verdict.fouls):
            foul_rules.count_foul(counts, warned, s, bool(verdict.fouls))
        # The fields in the state's stored form (``GameState._after_shot``): rows sorted by ball.
        balls = verdict.balls.items()
        rows = ([(n, x, y) for n, (x, y) in balls if n != CUE_BALL] if lifted
                else [(n, x, y) for n, (x, y) in balls])
        shot = {
            "balls": tuple(sorted(rows)),
            "out_of_play": tuple(sorted(verdict.out_of_play)),
            "shot_number": state.shot_number + 1, "awaiting_break": verdict.awaiting_break,
            "cue_ball_in_hand": zone, "consecutive_fouls": tuple(counts),
            "warned_on_two_fouls": tuple(warned),
            "scores": (state.scores[0] + verdict.points[0], state.scores[1] + verdict.points[1]),
            "push_out_available": verdict.push_out_available and not over,
            "pending": None if over else verdict.pending, "winner": verdict.winner}
        # The handover's fields go into the same transition, unless a game gives the table its own way.
        own_handover = type(self).hand_table_to is not Ruleset.hand_table_to
        handover = {} if over or own_handover else self._handover(state, verdict.next_shooter)
        shot.update(handover)
        new = state._after_shot(shot, verdict.changes)
        warning_to = None
        if not over:
            if own_handover:
                new, warning_to = self.hand_table_to(new, verdict.next_shooter)
            elif handover:
                new, warning_to = self._warn_on_two_fouls(new, verdict.next_shooter)
            if new.pending is None:
                new = self.offer_spot_request(new)
        return new, warning_to

    def hand_table_to(self, state: GameState, player: int) -> tuple[GameState, int | None]:
        """Give ``player`` the table: a new inning if it changes hands, the no-progress
        countdown of the player leaving (WPA 1.12), and the two-foul warning (WPA 6.14).

        Returns the state and the player warned, if any.
        """
        handover = self._handover(state, player)
        if not handover:
            return state, None
        return self._warn_on_two_fouls(state.evolve(**handover), player)

    @staticmethod
    def _handover(state: GameState, player: int) -> dict[str, Any]:
        """The fields ``hand_table_to`` changes to give ``player`` the table (none when he has it)."""
        if player == state.shooter:
            return {}
        no_progress = state.no_progress_innings
        if no_progress is not None:
            left = list(no_progress)
            left[state.shooter] = max(0, left[state.shooter] - 1)
            no_progress = tuple(left)
        return {"shooter": player, "inning": state.inning + 1, "no_progress_innings": no_progress}

    def _warn_on_two_fouls(self, state: GameState, player: int) -> tuple[GameState, int | None]:
        """``state`` with ``player``, just given the table, warned when he is on two fouls and
        the options warn every time (WPA 6.14); and the player warned, if any."""
        if (self.three_foul_rule and self.options.always_warn_on_two_fouls
                and state.consecutive_fouls[player] >= 2 and not state.warned_on_two_fouls[player]):
            return self.issue_two_foul_warning(state, player), player
        return state, None

    def offer_spot_request(self, state: GameState) -> GameState:
        """Pend the WPA 1.5 request when the shooter has the cue ball in hand in the kitchen
        and every legal object ball lies there too."""
        if state.cue_ball_in_hand is not CueBallZone.KITCHEN or state.awaiting_break:
            return state
        candidates = spot_request_candidates(state.positions, self.legal_targets(state), self.table)
        if not candidates:
            return state
        return state.evolve(pending=PendingDecision(
            DecisionKind.SPOT_REQUEST, state.shooter, (Choice.SPOT_BALL, Choice.DECLINE_SPOT),
            candidates))

    # ================================================================= referee actions
    def issue_two_foul_warning(self, state: GameState, player: int) -> GameState:
        """Warn ``player``, who is on two fouls, so a third foul counts (WPA 6.14)."""
        if state.consecutive_fouls[player] < 2:
            raise ValueError(f"player {player} is not on two fouls")
        warned = list(state.warned_on_two_fouls)
        warned[player] = True
        return state.evolve(warned_on_two_fouls=tuple(warned))

    def declare_no_progress(self, state: GameState) -> GameState:
        """The referee announces that the game is not progressing: three more innings each
        (WPA 1.12)."""
        self._check_live(state)
        return replace(state, no_progress_innings=(NO_PROGRESS_INNINGS, NO_PROGRESS_INNINGS))

    def declare_stalemate(self, state: GameState) -> GameState:
        """The referee declares a stalemate once the extra innings are used (WPA 1.12)."""
        self._check_live(state)
        if state.no_progress_innings is None or any(state.no_progress_innings):
            raise ValueError("a stalemate needs 'no progress' announced and three more innings "
                             "each played (WPA 1.12); the players may agree to one instead")
        return self.stalemate(state)

    def agree_stalemate(self, state: GameState) -> GameState:
        """Both players agree to a stalemate (WPA 1.12); also for outside interference (1.9)."""
        self._check_live(state)
        return self.stalemate(state)

    def stalemate(self, state: GameState) -> GameState:
        """The state of a rack ended in stalemate; ``next_rack`` says who breaks again."""
        return replace(state, stalemate=True, pending=None)

    def concede(self, state: GameState, player: int) -> GameState:
        """``player`` concedes: the opponent wins (WPA 1.11)."""
        self._check_live(state)
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        return replace(state, winner=1 - player, pending=None)

    def _check_live(self, state: GameState) -> None:
        if state.game != self.name:
            raise ValueError(f"this state is a {state.game!r} game, not {self.name!r}")
        if state.is_over:
            raise ValueError("the rack is already over")


# ===================================================================== registry
RulesetFactory = Callable[..., Ruleset]
_REGISTRY: dict[str, RulesetFactory] = {}
# Games shipped with poolgym, imported on first use (their modules register themselves).
_BUILTIN_MODULES = {
    "nine_ball": "poolgym.rules.nine_ball",
    "ten_ball": "poolgym.rules.ten_ball",
    "eight_ball": "poolgym.rules.eight_ball",
    "straight_pool": "poolgym.rules.straight_pool",
}


def register_ruleset(name: str, factory: RulesetFactory | None = None, *, overwrite: bool = False):
    """Register a ruleset class (or factory) under ``name``; usable as a class decorator.

    ``factory(options=..., table=..., **kwargs)`` must return a ``Ruleset``.
    """
    def add(f: RulesetFactory) -> RulesetFactory:
        if name in _REGISTRY and _REGISTRY[name] is not f and not overwrite:
            raise ValueError(f"a ruleset named {name!r} is already registered")
        _REGISTRY[name] = f
        return f
    return add if factory is None else add(factory)


def get_ruleset(name: str, options: RuleOptions | None = None, table: Table | None = None,
                **kwargs) -> Ruleset:
    """The ruleset registered as ``name``, built with ``options`` and ``table``."""
    if name not in _REGISTRY and name in _BUILTIN_MODULES:
        try:
            importlib.import_module(_BUILTIN_MODULES[name])
        except ModuleNotFoundError as exc:
            if exc.name != _BUILTIN_MODULES[name]:
                raise
    if name not in _REGISTRY:
        raise ValueError(f"unknown ruleset {name!r}; registered: {available_rulesets()}")
    return _REGISTRY[name](options=options, table=table, **kwargs)


def available_rulesets() -> tuple[str, ...]:
    """Every registered name: the built-in games and those registered since."""
    for name in _BUILTIN_MODULES:
        if name not in _REGISTRY:
            importlib.import_module(_BUILTIN_MODULES[name])
    return tuple(sorted(_REGISTRY))
