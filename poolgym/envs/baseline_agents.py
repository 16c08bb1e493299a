"""The baseline agents of the opponent ladder: they need only the rules, the table and
geometry, so they live here and serve both the environments and ``agents/``.

Each is an agent with ``choose(state) -> Decision | ShotMove`` and ``reseed(seed)``:

- ``random`` (``RandomAgent``): uniformly random well-formed moves: a random decision, a
  random call the rules allow, a random free cue-ball spot in the zone and a random stroke
  (any direction, speed 0.3 m/s up to ``max_speed``, tip offsets up to 0.5 radii). Most of
  its strokes hit nothing, so it loses most racks by three fouls (WPA 6.14).
- ``legal-random`` (``LegalRandomAgent``): the same random tips, call and spot, but the
  stroke is aimed at a random legal ball: a random line from the cue ball that meets that
  ball before any other (up to ``LEGAL_AIM_TRIES`` draws), at a random speed from the one
  that carries the cue ball ``REACH_FACTOR`` times the distance to that ball (so it gets
  there) up to ``max_speed``. It rarely fouls by missing everything or hitting a wrong
  ball first; its random pace still scratches and fails to reach a rail.
- ``fixed`` (``FixedAgent``): deterministic. The easiest target (the aim-assisted ranking's
  first candidate, ``ActionMapper.candidates``: cut angle and distance), struck straight at
  the ghost ball at ``FIXED_SPEED`` with a centre tip. The break: the cue ball on the head
  string's centre (or the nearest free spot along it), struck at ``FIXED_BREAK_SPEED``
  straight at the centre of the legal ball nearest it. Cue-ball placement in hand: see
  ``FixedAgent.place``. A pending decision takes the first choice the rules list.

``BASELINE_AGENTS`` maps the ladder names to the classes.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from poolgym.envs.actions import ActionMapper, ShotMove, ghost_ball_angle, pocket_aim_point
from poolgym.numbers import quote, real
from poolgym.physics import PhysicsParams, Shot
from poolgym.rules import CueBallZone, Decision, GameState, Ruleset, ShotCall, get_ruleset
from poolgym.table import Table

Point = tuple[float, float]
Move = Decision | ShotMove

MIN_SPEED = 0.3  # m/s, the slowest random stroke (the action mappings' lower bound)
MAX_TIP = 0.5  # ball radii, the largest random tip offset
FIXED_SPEED = 3.0  # m/s, the fixed agent's pot speed: firm enough to reach any pocket
FIXED_BREAK_SPEED = 8.0  # m/s, the fixed agent's break (capped at max_speed)
# Where the fixed agent puts the cue ball in hand: this far behind the ghost ball on the
# line from the pocket through the object ball (a straight-in shot).
FIXED_PLACEMENT_BACKOFF = 0.3  # m
# Draws of (legal ball, line) the legal-random agent makes to find a line that meets that
# ball first; when none does (every legal ball hidden), it plays its last draw.
LEGAL_AIM_TRIES = 20
# The legal-random agent's slowest stroke carries the cue ball this many times the
# distance to its ball (on the default cloth): enough to arrive with some pace.
REACH_FACTOR = 2.0


def decision_options(state: GameState) -> list[Decision]:
    """Every answer to the pending decision (each ball for a spot request)."""
    pending = state.pending
    out = []
    for choice in pending.choices:
        if choice.value == "spot_ball":
            out += [Decision(choice, ball=b, player=pending.player) for b in pending.balls]
        else:
            out.append(Decision(choice, player=pending.player))
    return out


def is_free_spot(table: Table, state: GameState, spot: Point) -> bool:
    """Whether the cue ball fits at ``spot``: on the surface, touching no object ball."""
    if not table.contains(*spot):
        return False
    # ``state.balls`` directly: ``state.positions`` would build a fresh dict per call, and
    # ``random_spot`` asks up to 200 times per state.
    clearance = 2 * table.ball_radius + 1e-4
    sx, sy = spot
    hypot = math.hypot
    for n, x, y in state.balls:
        if n != 0 and not hypot(sx - x, sy - y) > clearance:
            return False
    return True


def in_zone(table: Table, zone: CueBallZone, spot: Point) -> bool:
    """Whether ``spot`` lies in the cue ball's zone (the kitchen or the whole table)."""
    return zone is not CueBallZone.KITCHEN or spot[0] < table.head_string_x


def first_ball_hit(table: Table, state: GameState, cue: Point, angle_deg: float) -> int | None:
    """The object ball the cue ball, rolling straight from ``cue`` along ``angle_deg``,
    would touch first (None when it touches none)."""
    return _first_ball_hit(state.balls, 2 * table.ball_radius, cue, angle_deg)


def _first_ball_hit(balls, reach: float, cue: Point, angle_deg: float) -> int | None:
    """``first_ball_hit`` over a state's ``balls`` (number, x, y), in their order (that of
    ``state.positions``), for a contact distance ``reach``."""
    return _first_hit(_offsets(balls, cue), reach * reach, angle_deg)


def _offsets(balls, cue: Point) -> list[tuple[int, float, float, float]]:
    """Each object ball of ``balls`` (number, x, y), in their order, as (number, dx, dy,
    squared distance) from ``cue``: what every line from ``cue`` is tested against, worked
    out once for the legal-random agent's up to ``LEGAL_AIM_TRIES`` lines."""
    cx, cy = cue
    return [(ball, x - cx, y - cy, (x - cx) ** 2 + (y - cy) ** 2) for ball, x, y in balls if ball != 0]


def _first_hit(offsets: list[tuple[int, float, float, float]], reach2: float, angle_deg: float) -> int | None:
    """The ball of ``offsets`` (``_offsets``) that the line along ``angle_deg`` comes within
    ``sqrt(reach2)`` of first (None when none): the earliest contact, the first listed on a tie."""
    radians = math.radians(angle_deg)
    dx, dy = math.cos(radians), math.sin(radians)
    sqrt = math.sqrt
    best, best_t = None, math.inf
    for ball, rx, ry, r2 in offsets:
        along = rx * dx + ry * dy
        if along <= 0:
            continue
        across2 = r2 - along * along
        if across2 >= reach2:
            continue
        t = along - sqrt(reach2 - across2)
        if t < best_t:
            best, best_t = ball, t
    return best


def uniform(rng: np.random.Generator, low: float, high: float) -> float:
    """``float(rng.uniform(low, high))``: the same number from the same draw, at a third of
    the call's cost. NumPy's ``uniform`` is ``low + (high - low) * next_double`` (its
    ``random_uniform``) and ``rng.random()`` is that ``next_double``, so the agents' moves
    and their generators' states are unchanged. A range ``uniform`` refuses (negative, not
    finite) goes to it, and is refused as before."""
    span = high - low
    if 0.0 <= span < math.inf:
        return float(low + span * rng.random())
    return float(rng.uniform(low, high))


def reach_speed(distance: float, params: PhysicsParams = PhysicsParams()) -> float:
    """The launch speed (m/s) that rolls a centre-struck cue ball ``distance`` metres before
    it stops: it slides down to 5/7 of its speed, then rolls to rest against rolling
    resistance (the sliding part's distance is left out, so this errs a little long)."""
    rolling = math.sqrt(2.0 * params.mu_roll * params.gravity * max(distance, 0.0))
    return max(MIN_SPEED, 7.0 / 5.0 * rolling)


def _rules(rules: Ruleset | str) -> Ruleset:
    return get_ruleset(rules) if isinstance(rules, str) else rules


def _check_max_speed(max_speed: float) -> float:
    # Any real number (NumPy's too, poolgym.numbers) within the range; bools are not speeds.
    if isinstance(max_speed, bool) or not isinstance(max_speed, numbers.Real) \
            or not MIN_SPEED < max_speed <= 15.0:
        raise ValueError(f"max_speed must be in ({MIN_SPEED}, 15] m/s, got {quote(max_speed)}")
    return real(max_speed, "max_speed")


class RandomAgent:
    """Uniformly random well-formed moves (``random`` of the ladder; module docstring)."""

    def __init__(self, rules: Ruleset | str = "nine_ball", seed: int | None = 0,
                 max_speed: float = 10.0) -> None:
        self.rules = _rules(rules)
        self.table = self.rules.table
        self.max_speed = _check_max_speed(max_speed)
        self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.rules.name!r})"

    def reseed(self, seed) -> None:
        """Restart the random moves from ``seed`` (a match does this every rack, so a rack
        plays the same wherever and in whatever order it is played)."""
        self.rng = np.random.default_rng(seed)

    def choose(self, state: GameState) -> Move:
        """A random decision, or a random call, spot and stroke."""
        rng = self.rng
        if state.pending is not None:
            options = decision_options(state)
            return options[int(rng.integers(len(options)))]
        calls = self.rules.call_options(state)
        call = calls[int(rng.integers(len(calls)))]
        spot = None if state.cue_ball_in_hand is CueBallZone.NONE else self.random_spot(state)
        angle, slowest = self.aim(state, spot if spot is not None else state.position(0))
        speed = uniform(rng, slowest, self.max_speed)
        side, vertical = uniform(rng, -MAX_TIP, MAX_TIP), uniform(rng, -MAX_TIP, MAX_TIP)
        return ShotMove(call, spot, Shot(speed, angle, side, vertical))

    def aim(self, state: GameState, cue: Point) -> tuple[float, float]:
        """The stroke direction (degrees) and the slowest speed to draw: any, ``MIN_SPEED``."""
        return uniform(self.rng, -180.0, 180.0), MIN_SPEED

    def random_spot(self, state: GameState) -> Point:
        """A uniformly random free spot in the cue ball's zone (rejection sampling; after
        200 misses, a fixed spot near the head rail)."""
        R = self.table.ball_radius
        x_high = (self.table.head_string_x - 1e-4 if state.cue_ball_in_hand is CueBallZone.KITCHEN
                  else self.table.length - R)
        rng, y_high = self.rng, self.table.width - R
        for _ in range(200):
            spot = (uniform(rng, R, x_high), uniform(rng, R, y_high))
            if is_free_spot(self.table, state, spot):
                return spot
        return (R + 0.1, self.table.width / 2.0)


class LegalRandomAgent(RandomAgent):
    """``random`` with the stroke aimed at a random legal ball (``legal-random``).

    The direction is uniform over the angles at which the cue ball, travelling straight,
    meets the chosen ball: within ``asin(2R / d)`` of the line of centres, d the distance.
    """

    def aim(self, state: GameState, cue: Point) -> tuple[float, float]:
        on_table = state.object_balls_on_table
        targets = sorted([b for b in self.rules.legal_targets(state) if b in on_table])
        if not targets:  # nothing legal to hit: any ball, the rules will judge it
            targets = sorted(on_table)
        if not targets:
            return super().aim(state, cue)
        # Worked out once per shot, not per draw: the balls' offsets from the cue ball, the
        # line to each target drawn (its distance, direction and half-width), the generator.
        rng, n = self.rng, len(targets)
        reach = 2 * self.table.ball_radius
        offsets, reach2 = _offsets(state.balls, cue), reach * reach
        lines = {}
        for _ in range(LEGAL_AIM_TRIES):
            # ``integers(1)`` is 0 and draws nothing (NumPy returns the low end of an empty range).
            ball = targets[int(rng.integers(n))] if n > 1 else targets[0]
            line = lines.get(ball)
            if line is None:
                line = lines[ball] = self._line(state, cue, ball, reach)
            d, centre, half = line
            # A hair inside the tangent lines, so the contact is never a numerical graze.
            angle = centre + uniform(rng, -0.98 * half, 0.98 * half)
            if _first_hit(offsets, reach2, angle) == ball:
                break
        return angle, min(reach_speed(REACH_FACTOR * d), self.max_speed)

    @staticmethod
    def _line(state: GameState, cue: Point, ball: int, reach: float) -> tuple[float, float, float]:
        """The distance from ``cue`` to ``ball``, the direction of the line of centres and the
        half-width (degrees) of the lines that meet the ball."""
        (bx, by), (cx, cy) = state.position(ball), cue
        d = math.hypot(bx - cx, by - cy)
        return (d, math.degrees(math.atan2(by - cy, bx - cx)),
                math.degrees(math.asin(min(1.0, reach / max(d, 1e-9)))))


class FixedAgent:
    """The deterministic ``fixed`` agent (module docstring): easiest target, straight at
    the ghost ball, ``FIXED_SPEED``, centre tip; a fixed break and placement rule."""

    def __init__(self, rules: Ruleset | str = "nine_ball", seed: int | None = 0,
                 max_speed: float = 10.0) -> None:
        self.rules = _rules(rules)
        self.table = self.rules.table
        self.max_speed = _check_max_speed(max_speed)
        self.mapper = ActionMapper(self.table, "aim", max_speed=self.max_speed)

    def __repr__(self) -> str:
        return f"FixedAgent({self.rules.name!r})"

    def reseed(self, seed) -> None:
        """Nothing to reseed: the agent is deterministic (kept for the agent protocol)."""

    def choose(self, state: GameState) -> Move:
        """The first decision choice, the fixed break, or the easiest pot (docstring)."""
        if state.pending is not None:
            return decision_options(state)[0]
        if state.awaiting_break:
            return self.break_shot(state)
        spot = None if state.cue_ball_in_hand is CueBallZone.NONE else self.place(state)
        cue = spot if spot is not None else state.position(0)
        ball, pocket, call = self.mapper.candidates(state, self.rules, cue)[0]
        angle = ghost_ball_angle(self.table, cue, state.position(ball), pocket)
        return ShotMove(call, spot, Shot(min(FIXED_SPEED, self.max_speed), angle), ball, pocket)

    def break_shot(self, state: GameState) -> ShotMove:
        """From the head string's centre straight at the nearest legal ball's centre."""
        spot = self._first_free(state, self._head_string_spots())
        targets = [b for b in self.rules.legal_targets(state) if b in state.object_balls_on_table] \
            or list(state.object_balls_on_table)
        ball = min(sorted(targets), key=lambda b: math.dist(spot, state.position(b)))
        bx, by = state.position(ball)
        angle = math.degrees(math.atan2(by - spot[1], bx - spot[0]))
        calls = self.rules.call_options(state)
        call = ShotCall() if ShotCall() in calls else calls[0]
        return ShotMove(call, spot, Shot(min(FIXED_BREAK_SPEED, self.max_speed), angle), ball)

    def place(self, state: GameState) -> Point:
        """The placement rule: for each (ball, pocket) candidate in order of how easy a
        straight-in shot would be (the object ball's distance to the pocket), the spot
        ``FIXED_PLACEMENT_BACKOFF`` behind the ghost ball on the pocket line, when it is
        free and in the zone; else the first free spot along the head string."""
        zone = state.cue_ball_in_hand
        R = self.table.ball_radius
        centre = (self.table.head_string_x / 2.0, self.table.width / 2.0)
        options = self.mapper.candidates(state, self.rules, centre)
        legal = self.rules.legal_targets(state)
        options = [c for c in options if c[0] in legal] or options

        def straight_in(choice) -> Point:
            ball, pocket, _ = choice
            bx, by = state.position(ball)
            px, py = pocket_aim_point(self.table, pocket)
            d = math.hypot(px - bx, py - by) or 1e-9
            back = 2 * R + FIXED_PLACEMENT_BACKOFF
            return (bx - back * (px - bx) / d, by - back * (py - by) / d)

        ranked = sorted(options, key=lambda c: math.dist(state.position(c[0]),
                                                         pocket_aim_point(self.table, c[1])))
        for choice in ranked:
            spot = straight_in(choice)
            if in_zone(self.table, zone, spot) and is_free_spot(self.table, state, spot):
                return spot
        return self._first_free(state, self._head_string_spots())

    def _head_string_spots(self) -> list[Point]:
        """Spots just behind the head string, from its centre outwards."""
        R = self.table.ball_radius
        x = self.table.head_string_x - 2 * R
        mid = self.table.width / 2.0
        offsets = [0.0] + [s * k * 2.5 * R for k in range(1, 12) for s in (1, -1)]
        return [(x, mid + o) for o in offsets if R < mid + o < self.table.width - R]

    def _first_free(self, state: GameState, spots: list[Point]) -> Point:
        for spot in spots:
            if is_free_spot(self.table, state, spot):
                return spot
        R = self.table.ball_radius
        return (R + 0.1, self.table.width / 2.0)


BASELINE_AGENTS = {"random": RandomAgent, "legal-random": LegalRandomAgent, "fixed": FixedAgent}


def make_baseline_agent(name: str, rules: Ruleset | str, seed: int | None = 0,
                        max_speed: float = 10.0):
    """The baseline agent a ladder name names (``BASELINE_AGENTS``)."""
    if name not in BASELINE_AGENTS:
        raise ValueError(f"unknown baseline agent {name!r}; choose one of {sorted(BASELINE_AGENTS)}")
    return BASELINE_AGENTS[name](rules, seed=seed, max_speed=max_speed)
