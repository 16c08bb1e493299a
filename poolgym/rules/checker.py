"""A random-rollout checker for any ``Ruleset``: plays random but well-formed shots and
decisions and asserts the invariants every game must keep.

The shots are drawn from the state alone (first contact among the balls on the table,
random pots into random pockets, cushions, placements, frozen balls, declared fouls, final
positions), the calls from ``ruleset.call_options`` and the answers from the pending
decision's choices, so a new game needs nothing extra to be checked.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from poolgym.rules.base import Ruleset
from poolgym.rules.decisions import Choice, Decision
from poolgym.rules.invariants import state_violations
from poolgym.rules.outcome import Outcome, Penalty
from poolgym.rules.shot import DECLARABLE_SECTIONS, DeclaredFoul, ShotCall, ShotEvents
from poolgym.rules.state import CUE_BALL, CueBallZone, GameState
from poolgym.table import POCKET_IDS

Point = tuple[float, float]


class RulesetCheckError(AssertionError):
    """An invariant broke; the message says which, in which game and at which shot."""


@dataclass
class CheckReport:
    """What the rollouts covered."""

    games: int = 0
    shots: int = 0
    decisions: int = 0
    wins: Counter = field(default_factory=Counter)
    stalemates: int = 0
    fouls: Counter = field(default_factory=Counter)
    decision_kinds: Counter = field(default_factory=Counter)


def check_ruleset(ruleset: Ruleset, n_games: int = 1000, seed: int = 0,
                  max_shots: int = 300) -> CheckReport:
    """Play ``n_games`` random racks through ``ruleset`` and check the invariants.

    Raises ``RulesetCheckError`` naming the game, the shot and the broken invariant. A rack
    still going after ``max_shots`` shots ends by agreed stalemate (WPA 1.12).
    """
    rng = np.random.default_rng(seed)
    report = CheckReport()
    for game in range(n_games):
        _Rollout(ruleset, rng, report, f"game {game} (seed {seed})", max_shots).play(game % 2)
        report.games += 1
    return report


class _Rollout:
    def __init__(self, ruleset: Ruleset, rng: np.random.Generator, report: CheckReport,
                 label: str, max_shots: int) -> None:
        self.rules, self.rng, self.report = ruleset, rng, report
        self.label, self.max_shots = label, max_shots
        self.step = 0

    def fail(self, message: str, state: GameState | None = None) -> None:
        where = f"{type(self.rules).__name__} {self.label}, step {self.step}: {message}"
        if state is not None:
            where += f"\nstate: {state.to_json()}"
        raise RulesetCheckError(where)

    def call(self, what: str, fn, *args):
        try:
            return fn(*args)
        except RulesetCheckError:
            raise
        except Exception as exc:  # any crash on well-formed input is a ruleset bug
            self.fail(f"{what} raised {type(exc).__name__}: {exc}",
                      args[0] if args and isinstance(args[0], GameState) else None)

    def play(self, breaker: int) -> None:
        rules, rng = self.rules, self.rng
        state = self.call("new_game", rules.new_game, rng, breaker)
        self.check_state(state)
        scores0, points = state.scores, [0, 0]
        for self.step in range(self.max_shots):
            if state.is_over:
                break
            if state.pending is not None:
                state = self.decide(state)
                continue
            roll = rng.random()
            if roll < 0.001:
                state = self.call("agree_stalemate", rules.agree_stalemate, state)
                break
            if roll < 0.003 and state.no_progress_innings is None:
                state = self.call("declare_no_progress", rules.declare_no_progress, state)
            elif state.no_progress_innings == (0, 0):
                state = self.call("declare_stalemate", rules.declare_stalemate, state)
                break
            calls = self.call("call_options", rules.call_options, state)
            if not calls:
                self.fail("call_options offers no call in a live state", state)
            call = calls[rng.integers(len(calls))]
            events = random_events(rules, state, call, rng)
            new, outcome = self.call("apply_shot", rules.apply_shot, state, call, events)
            self.check_shot(state, call, events, new, outcome)
            points = [points[0] + outcome.points[0], points[1] + outcome.points[1]]
            if new.scores != (scores0[0] + points[0], scores0[1] + points[1]):
                self.fail(f"scores {new.scores} do not match the outcomes' points {points} "
                          f"from {scores0}", new)
            if self.step % 9 == 0:
                self.check_bad_input(state)
            state = new
        if not state.is_over:
            state = self.call("agree_stalemate", rules.agree_stalemate, state)
        if state.winner is None and not state.stalemate:
            self.fail("a finished rack has neither a winner nor a stalemate", state)
        self.check_state(state)
        if state.winner is not None:
            self.report.wins[state.winner] += 1
        else:
            self.report.stalemates += 1

    def decide(self, state: GameState) -> GameState:
        pending = state.pending
        choice = pending.choices[self.rng.integers(len(pending.choices))]
        ball = None
        if choice is Choice.SPOT_BALL:
            ball = pending.balls[self.rng.integers(len(pending.balls))]
        new = self.call("apply_decision", self.rules.apply_decision, state,
                        Decision(choice, ball, pending.player))
        self.report.decisions += 1
        self.report.decision_kinds[pending.kind.value] += 1
        if new == state:
            self.fail(f"answering {pending.kind.value} with {choice.value} changed nothing", state)
        if new.pending == pending:
            self.fail("the decision is still pending after it was answered", new)
        self.check_state(new, before=state)
        return new

    # ----------------------------------------------------------------- invariants
    def check_state(self, state: GameState, before: GameState | None = None) -> None:
        problems = state_violations(self.rules, state)
        if problems:
            self.fail("; ".join(problems), state)
        if before is not None and state.inning < before.inning:
            self.fail("the inning count went down", state)
        if self.step % 13 == 0 and GameState.from_json(state.to_json()) != state:
            self.fail("the state changes in a JSON round trip", state)

    def check_shot(self, state: GameState, call: ShotCall, events: ShotEvents,
                   new: GameState, outcome: Outcome) -> None:
        self.report.shots += 1
        self.report.fouls.update(f.section for f in outcome.fouls)
        self.check_state(new, before=state)
        if outcome.shooter != state.shooter:
            self.fail(f"the outcome's shooter {outcome.shooter} is not the state's "
                      f"{state.shooter}", new)
        if outcome.winner != new.winner or outcome.rack_over != new.is_over:
            self.fail("the outcome and the state disagree on the result", new)
        expected_next = None if new.is_over else new.shooter
        if outcome.next_shooter != expected_next or outcome.pending != new.pending:
            self.fail("the outcome and the state disagree on who plays next", new)
        if outcome.turn_kept and new.shooter != state.shooter:
            self.fail("the turn was kept but the shooter changed", new)
        if outcome.fouls and outcome.penalty != max(f.penalty for f in outcome.fouls):
            self.fail("the penalty applied is not the heaviest of the shot's fouls", new)
        if outcome.fouls and not new.is_over:
            next_player = new.pending.player if new.pending else new.shooter
            if next_player != 1 - state.shooter:
                self.fail("after a foul the table must go to the opponent", new)
        gone = set(events.pocketed_balls) | events.off_table
        newly_down = set(new.out_of_play) - set(state.out_of_play)
        if not new.awaiting_break and not newly_down <= gone:
            self.fail(f"balls {sorted(newly_down - gone)} went out of play without being "
                      "pocketed or driven off", new)
        spotted = {b for b, *_ in outcome.spotted}
        reracked = {b for b, *_ in outcome.reracked}
        returned = set(new.object_balls_on_table) - set(state.object_balls_on_table)
        if not new.awaiting_break and not returned <= spotted | reracked:
            self.fail(f"balls {sorted(returned - spotted - reracked)} came back without being "
                      "spotted or re-racked", new)
        if not (spotted | reracked) <= set(new.on_table) and not new.awaiting_break:
            self.fail("a ball the outcome says was spotted or re-racked is not on the table", new)
        if self.step % 11 == 3:
            again = self.rules.apply_shot(state, call, events)
            if again != (new, outcome):
                self.fail("apply_shot is not deterministic", state)

    def check_bad_input(self, state: GameState) -> None:
        """Malformed events must raise ValueError, and leave the state as it was."""
        before = state.to_json()
        unknown = max(self.rules.object_balls) + 1
        bad = [ShotEvents(cue_ball_start=_legal_spot(self.rules, state, self.rng),
                          first_contact=unknown)]
        if state.out_of_play:
            bad.append(ShotEvents(cue_ball_start=_legal_spot(self.rules, state, self.rng),
                                  pocketed={state.out_of_play[0]: "foot_left"}))
        calls = self.rules.call_options(state)
        for events in bad:
            try:
                self.rules.apply_shot(state, calls[0], events)
            except ValueError:
                pass
            else:
                self.fail(f"malformed events were accepted: {events}", state)
        if state.to_json() != before:
            self.fail("rejected input changed the state", state)


# --------------------------------------------------------------------- random shots
def random_events(ruleset: Ruleset, state: GameState, call: ShotCall,
                  rng: np.random.Generator) -> ShotEvents:
    """Well-formed random events for a shot from ``state`` (any outcome is possible)."""
    objects = list(state.object_balls_on_table)
    start = None
    if state.cue_ball_in_hand is not CueBallZone.NONE:
        start = _legal_spot(ruleset, state, rng)
    contact = None
    roll = rng.random()
    targets = sorted(ruleset.legal_targets(state)) or objects
    if objects and roll < 0.85:
        contact = int(rng.choice(targets))
    elif objects and roll < 0.95:
        contact = int(rng.choice(objects))
    p_pot = 0.2 if state.awaiting_break else 0.1
    pots = [b for b in objects if rng.random() < p_pot]
    if rng.random() < 0.06:
        pots.append(CUE_BALL)
    rng.shuffle(pots)
    pocketed = [(int(b), POCKET_IDS[rng.integers(len(POCKET_IDS))]) for b in pots]
    if call.names_ball and call.ball not in pots and rng.random() < 0.3:
        pocketed.insert(0, (call.ball, call.pocket))  # make called shots succeed now and then
        pots.append(call.ball)
    off = {b for b in objects if b not in pots and rng.random() < 0.003}
    if CUE_BALL not in pots and rng.random() < 0.004:
        off.add(CUE_BALL)
    moving = objects + [CUE_BALL]
    after = {b for b in moving if contact is not None and rng.random() < 0.25}
    anytime = after | {b for b in objects if rng.random() < (0.45 if state.awaiting_break else 0.1)}
    if contact is None:
        anytime = {b for b in anytime if b == CUE_BALL}
        after = set()
    before = bool(rng.random() < 0.85)
    ever = before or bool(rng.random() < 0.5)
    remaining = [b for b in moving if b not in pots and b not in off]
    final = _random_layout(ruleset, remaining, rng) if rng.random() < 0.3 else None
    declared = ()
    if rng.random() < 0.02:
        sections = sorted(set(DECLARABLE_SECTIONS) & ruleset.fouls_in_force)
        if sections:
            section = sections[rng.integers(len(sections))]
            penalty = Penalty.STANDARD
            if section == "6.16":
                penalty = (None, Penalty.STANDARD, Penalty.SERIOUS,
                           Penalty.LOSS_OF_RACK)[rng.integers(4)]
            declared = (DeclaredFoul(section, penalty),)
    frozen = {b for b in objects if rng.random() < 0.05}
    return ShotEvents(cue_ball_start=start, first_contact=contact, cushion_after_contact=after,
                      cushion_balls=anytime, pocketed=tuple(pocketed), off_table=off,
                      crossed_head_string_before_contact=before, ever_crossed_head_string=ever,
                      frozen_to_cushion=frozen, final_positions=final, declared_fouls=declared)


def _legal_spot(ruleset: Ruleset, state: GameState, rng: np.random.Generator) -> Point:
    """A free spot for the cue ball in hand: in its zone, or now and then just past the head
    string under kitchen-only (a 6.10 foul)."""
    (x_min, x_max), (y_min, y_max) = _open_area(ruleset)
    r = ruleset.table.ball_radius
    others = [p for n, p in state.positions.items() if n != CUE_BALL]
    if state.cue_ball_in_hand is CueBallZone.KITCHEN:
        hs = ruleset.table.head_string_x
        x_max = hs - 1e-3 if rng.random() < 0.95 else hs + 0.2
    for _ in range(200):
        x, y = rng.uniform(x_min, x_max), rng.uniform(y_min, y_max)
        if all(math.hypot(x - u, y - v) >= 2 * r for u, v in others):
            return (float(x), float(y))
    raise RulesetCheckError("found no free spot for the cue ball")


def _open_area(ruleset: Ruleset) -> tuple[Point, Point]:
    """An x range and a y range of the playing surface clear of every pocket and cushion,
    so random positions need no costlier test."""
    table = ruleset.table
    margin = max(table.corner_mouth, table.side_mouth) + table.ball_radius
    return ((margin, table.length - margin), (margin, table.width - margin))


def _random_layout(ruleset: Ruleset, balls: list[int], rng: np.random.Generator
                   ) -> dict[int, Point] | None:
    """Random non-overlapping rest positions for ``balls``, or None if packing fails."""
    (x_min, x_max), (y_min, y_max) = _open_area(ruleset)
    reach = 2 * ruleset.table.ball_radius + 1e-6
    placed: dict[int, Point] = {}
    for ball in balls:
        for _ in range(50):
            x, y = rng.uniform(x_min, x_max), rng.uniform(y_min, y_max)
            if all(math.hypot(x - u, y - v) >= reach for u, v in placed.values()):
                placed[ball] = (float(x), float(y))
                break
        else:
            return None
    return placed
