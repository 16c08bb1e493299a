"""Candidate shots and their evaluation with the real simulator and rules.

Every candidate is a ``ShotMove`` (call, cue-ball placement, stroke). It is simulated,
judged by the ruleset, and scored by ``poolgym.agents.bot.position.state_value`` of the position it
leaves, from the shooter's side: a pot that keeps the turn scores the next shot's chance, a
miss scores minus the opponent's. With execution noise the best few candidates are played
again a few times with noise and ranked by their mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import groupby

import numpy as np

from poolgym import events as ev
from poolgym.envs.actions import ShotMove
from poolgym.envs.play import bulk_layout, judged_in_bulk, simulate_moves
from poolgym.physics import Shot, Simulator
from poolgym.physics.jit import compiled_call
from poolgym.physics.pot_geometry import ZONE_ANYWHERE, chances_after
from poolgym.rules import CueBallZone, GameState, Ruleset, ShotCall

from poolgym.aiming import (aim_point, bounce_point, cut_angle_deg, direction_deg, ghost_ball,
                             mirror, on_rail, path_is_clear, pot_chance, rail_lines, stroke_per_object_ball_deg)
from poolgym.agents.bot.jumps import JumpPlanner, jump_shot
from poolgym.agents.bot.position import WIN, plain_call, pot_pairs, state_value

Point = tuple[float, float]
# Taken off a break that fouls or hands the opponent a choice: a dry break re-racked
# again and again would never end a rack.
BREAK_FAULT_PENALTY = 1.0
# Object-ball direction errors (degrees) below this are left alone by the aim refinement.
AIM_ERROR_TOLERANCE_DEG = 0.05
# ``chances_after``'s ``place`` that values a cue ball in hand as ``shot_quality`` does.
_DEFAULT_PLACE_OFF = np.zeros(6)
MIN_SPEED = 0.3


@dataclass(frozen=True)
class SearchBudget:
    """How much the bot searches. ``speeds`` are cue-ball launch speeds (m/s) tried on pots,
    ``spins`` the (side, vertical) tip offsets; breaks are tried from ``break_spots`` spots
    across the kitchen (two rows when more than two) at ``break_speeds``, hitting the head
    ball ``break_offsets`` radii off centre; ``max_pairs`` caps the (ball, pocket) pots
    simulated per cue-ball position; ``top_k`` candidates are re-played ``noise_samples``
    times with execution noise; ``placements`` cue-ball spots are searched with ball in hand.
    """

    speeds: tuple[float, ...] = (0.7, 1.0, 1.4, 2.0, 2.8, 4.0)
    spins: tuple[tuple[float, float], ...] = ((0.0, 0.0), (0.0, 0.4), (0.0, -0.4),
                                              (0.3, 0.0), (-0.3, 0.0))
    max_pairs: int = 6
    refine_aim: bool = True
    top_k: int = 6
    noise_samples: int = 8
    placements: int = 5
    safety_speeds: tuple[float, ...] = (0.6, 1.0, 1.6, 2.6)
    safety_offsets: tuple[float, ...] = (-1.6, -1.0, -0.5, 0.0, 0.5, 1.0, 1.6)
    break_speeds: tuple[float, ...] = (7.0, 10.0)
    break_offsets: tuple[float, ...] = (-0.4, 0.0, 0.4)
    break_spots: int = 5
    bank_pairs: int = 3

    @classmethod
    def preset(cls, name: str) -> "SearchBudget":
        """``"weak"`` (the ladder's rung below ``"fast"``: one speed per pot, centre tip, no
        noise re-check, one cue-ball spot), ``"fast"`` (tests, quick looks), ``"normal"``
        (the default) or ``"strong"``."""
        if name == "normal":
            return cls()
        if name == "weak":
            return cls(speeds=(2.0,), spins=((0.0, 0.0),), max_pairs=2, refine_aim=False,
                       top_k=1, noise_samples=1, placements=1, safety_speeds=(1.6,),
                       safety_offsets=(0.0,), break_speeds=(10.0,), break_offsets=(0.0,),
                       break_spots=1, bank_pairs=1)
        if name == "fast":
            return cls(speeds=(0.9, 1.5, 2.5, 4.0), spins=((0.0, 0.0), (0.0, 0.4), (0.0, -0.4)),
                       max_pairs=3, top_k=3, noise_samples=4, placements=3,
                       safety_speeds=(0.8, 1.6, 2.6), safety_offsets=(-1.0, 0.0, 1.0),
                       break_speeds=(10.0,), break_offsets=(-0.3, 0.0, 0.3),
                       break_spots=3, bank_pairs=1)
        if name == "strong":
            return cls(speeds=(0.6, 0.8, 1.0, 1.3, 1.7, 2.2, 2.8, 3.6, 4.6),
                       spins=((0.0, 0.0), (0.0, 0.25), (0.0, 0.5), (0.0, -0.25), (0.0, -0.5),
                              (0.3, 0.0), (-0.3, 0.0), (0.3, 0.3), (-0.3, 0.3), (0.3, -0.3),
                              (-0.3, -0.3)),
                       max_pairs=8, top_k=10, noise_samples=16, placements=8,
                       break_speeds=(6.0, 8.0, 10.0),
                       break_offsets=(-0.6, -0.3, 0.0, 0.3, 0.6), break_spots=7, bank_pairs=5)
        raise ValueError(f"unknown search budget {name!r}; choose 'weak', 'fast', 'normal' or 'strong'")


@dataclass
class Scored:
    """A candidate move and its value (mean over noisy plays once re-checked)."""

    move: ShotMove
    value: float
    pots: bool = False  # the exact simulation pocketed the intended ball
    faulted: bool = False  # a foul, or a decision handed to the opponent (a dry break)


@dataclass(frozen=True)
class Play:
    """A noisy play judged in bulk (``ShotSearch.outcomes``): the move, its noise draw
    (``Noise.draws``), the shooter's value of the state it leaves and whether that state
    ends the rack; the state itself is built only when asked for."""

    move: ShotMove
    draw: tuple[float, ...]
    value: float
    ended: bool


class Outcomes:
    """Noisy plays of moves from one state (``ShotSearch.outcomes``), in order: each play's
    ``values`` (the shooter's ``state_value`` of the state it leaves), whether it ``ended``
    the rack, and that state (``state(i)``). A play judged in bulk has its state built on
    the first ask, from its executed stroke on the exact simulator (the same play)."""

    def __init__(self, search: "ShotSearch", state: GameState, plays: list, values: list[float],
                 ended: list[bool]) -> None:
        self._search, self._state, self._plays = search, state, plays
        self.values, self.ended = values, ended

    def __len__(self) -> int:
        return len(self._plays)

    def state(self, i: int) -> GameState:
        """The state play ``i`` leaves."""
        play = self._plays[i]
        if type(play) is Play:
            play = self._plays[i] = self._search._executed_state(self._state, play)
        return play

    def part(self, start: int, stop: int) -> "Outcomes":
        """Plays ``start`` to ``stop`` (one candidate's replays of a batch)."""
        return Outcomes(self._search, self._state, self._plays[start:stop], self.values[start:stop],
                        self.ended[start:stop])


class ShotSearch:
    """Generates and scores shots for the shooter of a state (see the module docstring).
    ``jump``: when every line to a legal ball is blocked, jump shots over the blockers are
    tried beside the kicks (``poolgym.agents.bot.jumps``)."""

    def __init__(self, rules: Ruleset, budget: SearchBudget, noisy: Simulator | None,
                 rng: np.random.Generator, sigma_deg: float, max_speed: float = 10.0,
                 jump: bool = False) -> None:
        self.rules = rules
        self.table = rules.table
        self.budget = budget
        self.exact = Simulator(self.table)
        self.noisy = noisy
        self.rng = rng
        self.sigma_deg = sigma_deg
        self.max_speed = max_speed
        self.jump = jump
        self.jumps = JumpPlanner(self.exact)

    # ------------------------------------------------------------------ scoring
    def play(self, state: GameState, move: ShotMove):
        """Simulate ``move`` exactly and judge it: (next state, outcome, simulation result or
        None for a placement no stroke can be played from)."""
        return self.play_many(self.exact, state, [move])[0]

    def play_many(self, simulator: Simulator, state: GameState, moves: list[ShotMove]) -> list[tuple]:
        """``play`` for each of ``moves`` on ``simulator`` (the exact one or the noisy one,
        its noise drawn from ``rng`` move by move in order), in one batch for each run of
        moves sharing a cue-ball placement (``simulate_moves``)."""
        apply = self.rules.apply_shot
        return [apply(state, move.call, events, simulated=True) + (result,)
                for move, events, result in self._simulated(simulator, state, moves)]

    def replayed(self, simulator: Simulator, state: GameState, moves: list[ShotMove]) -> list[GameState]:
        """The state each of ``moves`` leaves (``play_many``'s first items, without the
        outcomes: ``Ruleset.next_state``), for noisy replays that are only valued."""
        after = self.rules.next_state
        return [after(state, move.call, events, simulated=True)
                for move, events, _ in self._simulated(simulator, state, moves)]

    def outcomes(self, state: GameState, moves: list[ShotMove]) -> Outcomes:
        """Each of ``moves`` played on the noisy simulator (its noise drawn from ``rng`` move
        by move in order): the shooter's ``state_value`` of the state each play leaves,
        whether it ended the rack, and that state on demand (``Outcomes``). A run of moves
        from one cue-ball placement whose shots the rules judge in bulk is played, judged
        and valued together (``_judged``), the same values as through ``replayed`` to the
        last bit; a play of such a run that needs its own judgement (a ball spotted, one
        dropped after the rest) and every move of the other runs go through the rules one by
        one."""
        plays = []
        for _, run in groupby(moves, key=lambda m: m.placement):
            run = list(run)
            bulk = self._judged(self.noisy, state, run)
            if bulk is None:
                plays.extend(self.replayed(self.noisy, state, run))
                continue
            facts, verdict, values, draws = bulk
            own = _needs_own_judgement(facts, verdict).tolist()
            over = (verdict.won | verdict.lost).tolist()
            for p, move in enumerate(run):
                play = Play(move, draws[p], values[p], over[p])
                plays.append(self._executed_state(state, play) if own[p] else play)
        shooter = state.shooter
        values = [p.value if type(p) is Play else state_value(p, self.rules, shooter, self.sigma_deg) for p in plays]
        ended = [p.ended if type(p) is Play else p.is_over for p in plays]
        return Outcomes(self, state, plays, values, ended)

    def _executed_state(self, state: GameState, play: Play) -> GameState:
        """The state ``play`` (a move and its noise draw) leaves: its executed stroke
        (``Noise.executed``, as ``Noise.apply`` executes it on the noisy simulator) played
        on the exact simulator, the same play to the last bit."""
        noisy = self.noisy
        executed = Shot(*noisy.noise.executed(play.move.shot, play.draw, noisy.params.max_speed))
        return self.replayed(self.exact, state, [replace(play.move, shot=executed)])[0]

    def _judged(self, simulator: Simulator, state: GameState, run: list[ShotMove]):
        """``run`` (moves from one placement) played on ``simulator`` (its noise drawn from
        ``rng`` move by move), judged and valued in bulk: (``PlayFacts``, ``PlainVerdicts``,
        the shooter's ``state_value`` of each play's state, each play's noise draw); or None
        (``rng`` untouched) where the rules do not judge them so. A play that needs the
        rules' own judgement (``_needs_own_judgement``) has a value here that is not its
        state's."""
        call = run[0].call
        layout = (None if any(m.call != call for m in run)
                  else bulk_layout(simulator, self.rules, state, call, run[0].placement))
        if layout is None:
            return None
        noise = simulator.noise
        draws = [() if noise.is_zero else noise.draws(self.rng) for _ in run]
        facts, verdict = judged_in_bulk(simulator, self.rules, state, layout,
                                        simulator.paired_strikes([m.shot for m in run], draws))
        with compiled_call():
            chances = chances_after(np.array(facts.nums, dtype=np.int64), facts.xs, facts.ys, facts.on,
                                    verdict.foul, ~(verdict.won | verdict.lost), float(self.sigma_deg),
                                    *self.table.surface_arrays, _DEFAULT_PLACE_OFF, 0.0, 0.0, ZONE_ANYWHERE)
        # ``state_value`` for the shooter: a won or lost rack, else his next shot's chance
        # when he keeps the table and minus the opponent's (in hand after a foul) when not.
        values = [WIN if won else -WIN if lost else chance if kept else -chance
                  for won, lost, kept, chance in zip(verdict.won.tolist(), verdict.lost.tolist(),
                                                     verdict.kept.tolist(), chances.tolist())]
        return facts, verdict, values, draws

    def _simulated(self, simulator: Simulator, state: GameState, moves: list[ShotMove]):
        """(move, events, result) of each of ``moves`` on ``simulator``, simulated in one
        ``simulate_moves`` batch for each run of moves sharing a cue-ball placement."""
        for _, run in groupby(moves, key=lambda m: m.placement):
            run = list(run)
            yield from ((move, events, result) for move, (events, result)
                        in zip(run, simulate_moves(simulator, self.rules, state, run, self.rng)))

    def score(self, state: GameState, move: ShotMove) -> Scored:
        return self.score_many(state, [move])[0][0]

    def score_many(self, state: GameState, moves: list[ShotMove]) -> list[tuple[Scored, object]]:
        """Each of ``moves`` scored from its exact simulation (``play_many``, in batches),
        beside what ``object_ball_error`` reads of it: the simulation's result (None where
        none ran: a placement that cannot be played), whose event log is decoded only if it
        is read, or for a run of moves the rules judge in bulk (``_judged``) the first-contact
        ball's ``Departure``; a play of such a run that needs the rules' own judgement is
        played again on its own."""
        out = []
        for _, run in groupby(moves, key=lambda m: m.placement):
            run = list(run)
            bulk = self._judged(self.exact, state, run)
            if bulk is None:
                out.extend(self._exactly_scored(state, run))
                continue
            facts, verdict, values, _ = bulk
            own = np.flatnonzero(_needs_own_judgement(facts, verdict)).tolist()
            alone = dict(zip(own, self._exactly_scored(state, [run[p] for p in own])))
            for p, move in enumerate(run):
                if p in alone:
                    out.append(alone[p])
                    continue
                made = move.pocket is not None and not verdict.foul[p] and bool(
                    facts.pocketed[p, facts.nums.index(move.target)])
                out.append((Scored(move, values[p], made, bool(verdict.foul[p])), Departure(facts, p)))
        return out

    def _exactly_scored(self, state: GameState, run: list[ShotMove]) -> list[tuple[Scored, object]]:
        """``score_many``'s items for moves from one placement, each judged by the rules on
        its own (``play_many``)."""
        out = []
        for move, (next_state, outcome, result) in zip(run, self.play_many(self.exact, state, run)):
            made = move.pocket is not None and move.target in outcome.pocketed_legally
            faulted = bool(outcome.fouls) or (outcome.pending is not None
                                              and outcome.pending.player != state.shooter)
            value = state_value(next_state, self.rules, state.shooter, self.sigma_deg)
            out.append((Scored(move, value, made, faulted), result))
        return out

    def scored(self, state: GameState, moves: list[ShotMove]) -> list[Scored]:
        """Each of ``moves`` scored (``score_many`` without the results)."""
        return [scored for scored, _ in self.score_many(state, moves)]

    def recheck(self, state: GameState, scored: list[Scored], top_k: int | None = None,
                samples: int | None = None) -> list[Scored]:
        """The best ``top_k`` (the budget's unless given) re-scored by their mean value over
        ``samples`` noisy plays each (the budget's ``noise_samples`` unless given; no-op
        without noise); returns every candidate, best first."""
        scored = sorted(scored, key=lambda s: s.value, reverse=True)
        if self.noisy is None or self.noisy.noise.is_zero or not scored:
            return scored
        top_k = self.budget.top_k if top_k is None else top_k
        head = scored[:top_k]
        n = self.budget.noise_samples if samples is None else samples
        # Every candidate's replays in one batch: the noise is drawn in the same order as
        # replaying the candidates one after another.
        values = self.outcomes(state, [s.move for s in head for _ in range(n)]).values
        for i, s in enumerate(head):
            # The exact play counts as one more sample.
            s.value = (sum(values[i * n:(i + 1) * n]) + s.value) / (n + 1)
        return sorted(head, key=lambda s: s.value, reverse=True) + scored[top_k:]

    # ------------------------------------------------------------------ moves
    def move(self, state: GameState, call: ShotCall, placement: Point | None, angle: float,
             speed: float, side: float = 0.0, vertical: float = 0.0, target: int | None = None,
             pocket: str | None = None) -> ShotMove:
        speed = min(max(speed, MIN_SPEED), self.max_speed)
        return ShotMove(call, placement, Shot(speed, _wrap(angle), side, vertical), target, pocket)

    def safety_call(self, state: GameState) -> ShotCall:
        """The call of a shot that only has to hit a ball: a safety where the game has one."""
        return plain_call(self.rules.call_options(state), safety=True)

    def pot_candidates(self, state: GameState, cue: Point, placement: Point | None) -> list[Scored]:
        """Direct pots of the best ``max_pairs`` (ball, pocket) pairs, each at every speed
        and spin, aimed at the ghost ball and corrected for throw."""
        calls = self.rules.call_options(state)
        balls = state.positions
        ranked = []
        for ball, pocket in pot_pairs(state, self.rules):
            others = {n: p for n, p in balls.items() if n not in (0, ball)}
            chance = pot_chance(self.table, cue, balls[ball], pocket, others, self.sigma_deg)
            if chance > 0.0:
                ranked.append((chance, ball, pocket))
        ranked.sort(reverse=True)
        moves, aims = [], []
        for _, ball, pocket in ranked[:self.budget.max_pairs]:
            call = _pot_call(calls, ball, pocket)
            target = aim_point(self.table, pocket)
            angle = direction_deg(cue, ghost_ball(balls[ball], target, self.table.ball_radius))
            for speed in self.budget.speeds:
                for side, vertical in self.budget.spins:
                    moves.append(self.move(state, call, placement, angle, speed, side, vertical, ball, pocket))
                    aims.append((balls[ball], target))
        return self.aimed_many(state, moves, cue, aims)

    def aimed(self, state: GameState, move: ShotMove, cue: Point, ball: Point,
              target: Point) -> Scored:
        """Score ``move``; if the object ball left off its line to ``target`` (throw, spin),
        turn the stroke once by the error scaled back through the cut and score that."""
        return self.aimed_many(state, [move], cue, [(ball, target)])[0]

    def aimed_many(self, state: GameState, moves: list[ShotMove], cue: Point,
                   aims: list[tuple[Point, Point]]) -> list[Scored]:
        """``aimed`` for each of ``moves`` (from ``cue``; ``aims[i]``: the object ball's
        position and its target for ``moves[i]``), the first tries and then the turned
        strokes simulated in batches."""
        firsts = self.score_many(state, moves)
        if not self.budget.refine_aim:
            return [scored for scored, _ in firsts]
        R = self.table.ball_radius
        turned = {}
        for i, ((scored, result), move, (ball, target)) in enumerate(zip(firsts, moves, aims)):
            if scored.pots:
                continue
            error = (result.error(move.target, target) if isinstance(result, Departure)
                     else object_ball_error(result.events if result is not None else (), move.target, target))
            if error is None or abs(error) < AIM_ERROR_TOLERANCE_DEG:
                continue
            # Turn the object ball back by its error.
            turn = -error * stroke_per_object_ball_deg(cue, ghost_ball(ball, target, R), ball, target, R)
            shot = move.shot
            turned[i] = ShotMove(move.call, move.placement,
                                 Shot(shot.speed, _wrap(shot.angle_deg + turn), shot.side, shot.vertical),
                                 move.target, move.pocket)
        seconds = iter(self.scored(state, list(turned.values())))
        out = []
        for i, (scored, _) in enumerate(firsts):
            if i in turned:
                second = next(seconds)
                scored = second if second.value > scored.value else scored
            out.append(scored)
        return out

    def bank_candidates(self, state: GameState, cue: Point, placement: Point | None) -> list[Scored]:
        """One-cushion banks of the object ball, the bounce point swept along the rail."""
        calls = self.rules.call_options(state)
        balls = state.positions
        R = self.table.ball_radius
        found = []
        for ball, pocket in pot_pairs(state, self.rules):
            others = [p for n, p in balls.items() if n not in (0, ball)]
            target = aim_point(self.table, pocket)
            for _, axis, coordinate in rail_lines(self.table):
                virtual = mirror(target, axis, coordinate)
                bounce = bounce_point(balls[ball], virtual, axis, coordinate)
                if bounce is None or not on_rail(self.table, bounce, R):
                    continue
                ghost = ghost_ball(balls[ball], virtual, R)
                cut = cut_angle_deg(cue, ghost, balls[ball], virtual)
                if cut > 60.0 or not (path_is_clear(cue, ghost, others, R)
                                      and path_is_clear(balls[ball], bounce, others, R)
                                      and path_is_clear(bounce, target, others, R)):
                    continue
                length = math.dist(cue, ghost) + math.dist(balls[ball], bounce) + math.dist(bounce, target)
                found.append((length * (1.0 + cut / 45.0), ball, pocket, virtual))
        found.sort()
        moves, aims = [], []
        for _, ball, pocket, virtual in found[:self.budget.bank_pairs]:
            call = _pot_call(calls, ball, pocket)
            for shift in (-0.04, -0.02, 0.0, 0.02, 0.04):
                aim_at = _shift_along(virtual, balls[ball], shift)
                angle = direction_deg(cue, ghost_ball(balls[ball], aim_at, R))
                for speed in self.budget.speeds[-3:]:
                    moves.append(self.move(state, call, placement, angle, speed, 0.0, 0.0, ball, pocket))
                    aims.append((balls[ball], aim_at))
        return self.aimed_many(state, moves, cue, aims)

    def safety_candidates(self, state: GameState, cue: Point, placement: Point | None) -> list[Scored]:
        """Soft and firm hits on each legal ball at several thicknesses, and one-cushion
        kicks at it (and jumps over the blockers, with ``jump``) when every direct path is
        blocked; ``target`` set and no pocket."""
        call = self.safety_call(state)
        balls = state.positions
        R = self.table.ball_radius
        targets = sorted(b for b in self.rules.legal_targets(state) if b in balls) or sorted(
            b for b in balls if b != 0)
        moves = []
        for ball in targets[:3]:
            others = [p for n, p in balls.items() if n not in (0, ball)]
            aims = []
            d = math.dist(cue, balls[ball])
            base = direction_deg(cue, balls[ball])
            for k in self.budget.safety_offsets:
                # Stroke passing k radii beside the ball's centre; the cue ball touches it
                # where the stroke line comes within two radii of the centre.
                offset = math.asin(max(-1.0, min(1.0, k * R / max(d, 2 * R))))
                reach = d * math.cos(offset) - math.sqrt(max(0.0, 4 * R * R - (k * R) ** 2))
                a = math.radians(base) + offset
                contact = (cue[0] + reach * math.cos(a), cue[1] + reach * math.sin(a))
                if path_is_clear(cue, contact, others, R):
                    aims.append(math.degrees(a))
            if not aims:
                moves += self.kick_moves(state, cue, placement, ball)
                if self.jump:
                    moves += self.jump_moves(state, cue, placement, ball)
            for angle in aims:
                for speed in self.budget.safety_speeds:
                    moves.append(self.move(state, call, placement, angle, speed, target=ball))
        return self.scored(state, moves)

    def kick_candidates(self, state: GameState, cue: Point, placement: Point | None, ball: int) -> list[Scored]:
        """One-cushion kicks at ``ball`` at each safety speed, scored (the kicks of
        ``safety_candidates``)."""
        return self.scored(state, self.kick_moves(state, cue, placement, ball))

    def kick_moves(self, state: GameState, cue: Point, placement: Point | None, ball: int) -> list[ShotMove]:
        """The moves of ``kick_candidates``, unscored."""
        balls = state.positions
        others = [p for n, p in balls.items() if n not in (0, ball)]
        call = self.safety_call(state)
        return [self.move(state, call, placement, angle, speed, target=ball)
                for angle in self.kick_angles(cue, balls[ball], others)
                for speed in self.budget.safety_speeds]

    def jump_candidates(self, state: GameState, cue: Point, placement: Point | None, ball: int) -> list[Scored]:
        """Jump shots straight at ``ball`` over the balls in the way
        (``poolgym.agents.bot.jumps.JumpPlanner.strokes``), scored."""
        return self.scored(state, self.jump_moves(state, cue, placement, ball))

    def jump_moves(self, state: GameState, cue: Point, placement: Point | None, ball: int) -> list[ShotMove]:
        """The moves of ``jump_candidates``, unscored."""
        balls = state.positions
        others = [p for n, p in balls.items() if n not in (0, ball)]
        call = self.safety_call(state)
        angle = direction_deg(cue, balls[ball])
        strokes = self.jumps.strokes(cue, balls[ball], others, self.max_speed)
        return [ShotMove(call, placement, jump_shot(speed, _wrap(angle), elevation), ball)
                for speed, elevation in strokes]

    def kick_angles(self, cue: Point, point: Point, others: list[Point]) -> list[float]:
        """Stroke angles that reach ``point`` off one rail, the bounce swept along it."""
        R = self.table.ball_radius
        angles = []
        for _, axis, coordinate in rail_lines(self.table):
            virtual = mirror(point, axis, coordinate)
            bounce = bounce_point(cue, virtual, axis, coordinate)
            if bounce is None or not on_rail(self.table, bounce, 0.0):
                continue
            if path_is_clear(cue, bounce, others, R) and path_is_clear(bounce, point, others, R):
                angles += [direction_deg(cue, _shift_along(virtual, cue, s)) for s in (-0.03, 0.0, 0.03)]
        return angles

    def push_out_candidates(self, state: GameState, cue: Point) -> list[Scored]:
        """Soft rolls in twelve directions declared as a push out."""
        return self.scored(state, [self.move(state, ShotCall.push(), None, 30.0 * k, speed)
                                   for k in range(12) for speed in (0.5, 1.0)])

    def break_candidates(self, state: GameState) -> list[Scored]:
        """Breaks from a grid of kitchen spots, full and off-centre on the head ball at
        each break speed, plus soft clips of the rack's side (a 14.1 opening safety). Few
        breaks pot a ball, so the grid is wide: without noise the bot finds one that does."""
        calls = self.rules.call_options(state)
        call = plain_call(calls, safety=False)
        table = self.table
        R = table.ball_radius
        balls = state.positions
        head_ball = min((b for b in balls if b != 0), key=lambda b: balls[b][0])
        head = balls[head_ball]
        n = self.budget.break_spots
        ys = np.linspace(0.2, table.width - 0.2, n) if n > 1 else [table.width / 2.0]
        xs = (table.head_string_x - 3.0 * R, 0.6 * table.head_string_x)
        moves = []
        for x in xs[:1 + (n > 2)]:
            for y in ys:
                spot = (x, float(y))
                if not self.spot_is_free(spot, balls, kitchen=True):
                    continue
                d = math.dist(spot, head)
                base = direction_deg(spot, head)
                for k in self.budget.break_offsets:
                    angle = base + math.degrees(math.asin(k * R / d))
                    for speed in self.budget.break_speeds:
                        moves.append(self.move(state, call, spot, angle, speed, target=head_ball))
                for k in (-1.7, 1.7):
                    angle = base + math.degrees(math.asin(max(-1.0, min(1.0, k * R / d))))
                    moves.append(self.move(state, call, spot, angle, 2.0, target=head_ball))
        out = self.scored(state, moves)
        for scored in out:
            if scored.faulted:
                scored.value -= BREAK_FAULT_PENALTY
        return out

    # ------------------------------------------------------------------ placement
    def placement_spots(self, state: GameState) -> list[Point]:
        """Cue-ball spots for ball in hand, best first: behind each pot's ghost ball at a few
        distances and cut angles (kept inside the zone), ranked by the pot's chance."""
        table = self.table
        R = table.ball_radius
        balls = state.positions
        kitchen = state.cue_ball_in_hand is CueBallZone.KITCHEN
        ranked = []
        for ball, pocket in pot_pairs(state, self.rules):
            target = aim_point(table, pocket)
            ghost = ghost_ball(balls[ball], target, R)
            back = math.atan2(ghost[1] - target[1], ghost[0] - target[0])
            others = {n: p for n, p in balls.items() if n not in (0, ball)}
            for distance in (0.12, 0.25, 0.45):
                for turn_deg in (0.0, -20.0, 20.0, -40.0, 40.0, -60.0, 60.0):
                    a = back + math.radians(turn_deg)
                    spot = (ghost[0] + distance * math.cos(a), ghost[1] + distance * math.sin(a))
                    if not self.spot_is_free(spot, balls, kitchen):
                        continue
                    chance = pot_chance(table, spot, balls[ball], pocket, others, self.sigma_deg)
                    if chance > 0.0:
                        ranked.append((chance, spot, ball))
        ranked.sort(key=lambda r: r[0], reverse=True)
        spots, seen = [], set()
        for _, spot, ball in ranked:
            # Keep the spots diverse: one per ball and rough cut until the list is full.
            key = (ball, round(spot[0], 1), round(spot[1], 1))
            if key not in seen:
                seen.add(key)
                spots.append(spot)
        return spots + self.fallback_spots(state)

    def safety_spots(self, state: GameState) -> list[Point]:
        """Free spots a short way from the first legal ball, all round it, for a safety or
        at least a legal hit with ball in hand."""
        balls = state.positions
        kitchen = state.cue_ball_in_hand is CueBallZone.KITCHEN
        targets = sorted(b for b in self.rules.legal_targets(state) if b in balls)
        out = []
        for ball in targets[:1]:
            bx, by = balls[ball]
            for k in range(8):
                a = math.radians(45.0 * k + 22.5)
                spot = (bx + 0.3 * math.cos(a), by + 0.3 * math.sin(a))
                if self.spot_is_free(spot, balls, kitchen):
                    out.append(spot)
        return out + self.fallback_spots(state)

    def fallback_spots(self, state: GameState) -> list[Point]:
        """Free spots on a coarse grid of the zone, for safeties when no pot is open."""
        table = self.table
        kitchen = state.cue_ball_in_hand is CueBallZone.KITCHEN
        x_high = table.head_string_x - 0.05 if kitchen else table.length - 0.1
        out = []
        for x in np.linspace(0.1, x_high, 4):
            for y in np.linspace(0.15, table.width - 0.15, 4):
                if self.spot_is_free((float(x), float(y)), state.positions, kitchen):
                    out.append((float(x), float(y)))
        return out

    def spot_is_free(self, spot: Point, balls: dict, kitchen: bool) -> bool:
        R = self.table.ball_radius
        if kitchen and spot[0] >= self.table.head_string_x - 1e-4:
            return False
        if not self.table.contains(*spot):
            return False
        return all(math.dist(spot, p) > 2.0 * R + 1e-3 for n, p in balls.items() if n != 0)


class Departure:
    """How play ``p`` of a bulk run (``PlayFacts``) sent its first-contact ball off: what
    ``object_ball_error`` reads of a result's events."""

    __slots__ = ("facts", "p")

    def __init__(self, facts, p: int) -> None:
        self.facts, self.p = facts, p

    def error(self, ball: int, target: Point) -> float | None:
        """``object_ball_error`` of this play: the same degrees, or None."""
        facts, p = self.facts, self.p
        first = int(facts.first[p])
        if first < 0 or facts.nums[first] != ball:
            return None
        cx, cy, nx, ny = facts.departure[p].tolist()
        if math.isnan(nx):
            return None
        return _departure_error((cx, cy), (nx, ny), target)


def _departure_error(contact: Point, next_position: Point, target: Point) -> float | None:
    """Degrees between the line from ``contact`` to ``next_position`` and the line to
    ``target`` (None for a ball that hardly moved)."""
    if math.dist(contact, next_position) < 1e-3:
        return None
    return _wrap(direction_deg(contact, next_position) - direction_deg(contact, target))


def _needs_own_judgement(facts, verdict) -> np.ndarray:
    """Which plays of a run judged in bulk (``ShotSearch._judged``) the rules must judge one
    by one: a ball to spot (``verdict.spot``) or one dropped after the rest."""
    return verdict.spot | facts.late_drop


def object_ball_error(events, ball: int, target: Point) -> float | None:
    """Degrees between the way ``ball`` left after the cue ball hit it and the way to
    ``target`` (None when the cue ball hit another ball first or not at all)."""
    contact = next_position = None
    for e in events:
        if contact is None:
            if isinstance(e, ev.BallBall) and 0 in (e.a, e.b):
                if ball not in (e.a, e.b):
                    return None
                contact = e.position_b if e.b == ball else e.position_a
            continue
        next_position = _position_of(e, ball)
        if next_position is not None:
            break
    if contact is None or next_position is None:
        return None
    return _departure_error(contact, next_position, target)


def _pot_call(calls: tuple[ShotCall, ...], ball: int, pocket: str) -> ShotCall:
    """The call for potting ``ball`` in ``pocket``: that call if the game takes it, else none."""
    called = ShotCall.called(ball, pocket)
    return called if called in calls else plain_call(calls, safety=False)


def _position_of(event, ball: int) -> Point | None:
    if isinstance(event, (ev.BallCushion, ev.Pocketed)) and event.ball == ball:
        return event.position
    if isinstance(event, ev.BallBall) and ball in (event.a, event.b):
        return event.position_a if event.a == ball else event.position_b
    return None


def _shift_along(point: Point, origin: Point, shift: float) -> Point:
    """``point`` moved ``shift`` metres sideways, across the line from ``origin``."""
    dx, dy = point[0] - origin[0], point[1] - origin[1]
    d = math.hypot(dx, dy) or 1.0
    return (point[0] - shift * dy / d, point[1] + shift * dx / d)


def _wrap(angle: float) -> float:
    """An angle in degrees wrapped into [-180, 180)."""
    return (angle + 180.0) % 360.0 - 180.0

