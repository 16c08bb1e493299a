"""Event-driven table simulation: closed-form cloth friction between contacts, closed-form impulses at them.

Each ball moves on a parabola between events (sliding: the contact-point slip decays under
mu_slide * g; rolling: deceleration mu_roll * g), so its state at any time is known in
closed form. The simulation jumps from event to event: the next contact is found exactly
(``contact_time``), never stepped over, so nothing tunnels and no contact is blurred. At a
contact an impulse model (``contacts``) changes the velocities and all three spin
components of the balls involved: ball-ball contacts with restitution and friction against
the 3-D slip of the contact points (cut shots throw, a draw loses some draw), cushions at
their nose height (rails take top spin and draw, side spin bends the rebound).

The event loop itself is compiled (``event_core``); this module validates the input, sets
the shot up and turns the loop's arrays into the typed ``ShotResult``.
"""

from __future__ import annotations

import math
from functools import lru_cache, partial
from itertools import chain, compress
from typing import TYPE_CHECKING, Mapping, NamedTuple, Sequence

import numpy as np

from poolgym import events as ev
from poolgym.numbers import quote, real
from poolgym.physics import event_core as core
from poolgym.physics.batch import (M_ON, S_X, S_Y, T_FROZEN_CUE, T_FROZEN_CUSHION, T_PLAIN, T_STATUS, play_batch,
                                   play_layouts)
from poolgym.physics.frozen import frozen_contacts
from poolgym.physics.jit import compiled_call
from poolgym.physics.params import PhysicsParams
from poolgym.physics.result import MotionPhase, ShotResult
from poolgym.physics.row_log import RowLog
from poolgym.physics.shot import Noise, Shot
from poolgym.table import Table

if TYPE_CHECKING:  # the batched envs import it: no thread pool at import
    from poolgym.physics.threads import KernelThreads

_MODE_NAMES = ("sliding", "rolling", "still", "airborne")
MAX_BALL = 15
# The fewest plays ``layout_plays`` gives a thread of its own: a share costs about 0.1 ms
# (a call, the handoff, the merge), a play about 0.035 ms of compiled time, so a smaller
# share costs more than it saves (many of a batched step's calls are its few opponents' shots).
MIN_PLAYS_PER_THREAD = 8
# The same for ``simulate_facts``, whose plays keep only their facts (about 0.006 ms each in
# a lookahead position's call).
MIN_FACT_PLAYS_PER_THREAD = 32


class Simulator:
    """Simulates shots on one table.

    >>> sim = Simulator(Table.preset("9ft"))
    >>> res = sim.simulate({0: (0.6, 0.635), 1: (1.9, 0.635)}, Shot(speed=2.0))

    ``noise`` is a ``Noise`` or a preset name (``"none"``, ``"tournament"``); with noise on,
    ``simulate`` needs a ``numpy.random.Generator`` and the same generator state gives the
    same shot.
    """

    def __init__(self, table: Table | None = None, params: PhysicsParams | None = None,
                 noise: Noise | str | Mapping[str, float] = "none") -> None:
        if table is not None and not isinstance(table, Table):
            raise ValueError(f"table must be a poolgym.table.Table (Table.preset(name) for a "
                             f"preset), got {table!r}")
        if params is not None and not isinstance(params, PhysicsParams):
            raise ValueError(f"params must be a PhysicsParams, got {params!r}")
        self.table = table if table is not None else Table.preset("9ft")
        self.params = params if params is not None else PhysicsParams()
        self.noise = Noise.make(noise)
        self._build_nose()
        self._build_features()
        self._constants = self._build_constants()

    # ------------------------------------------------------------------ set-up
    def _build_features(self) -> None:
        """Cushion segments, protruding jaw tips and pocket holes as flat float tuples."""
        R = self.table.ball_radius
        boundary = self.table.boundary
        self._segments = []  # (id, ax, ay, ux, uy, nx, ny, length, bbox)
        for s in boundary:
            (ax, ay), (bx, by) = s.a, s.b
            length = math.hypot(bx - ax, by - ay)
            ux, uy = (bx - ax) / length, (by - ay) / length
            bbox = (min(ax, bx) - R, max(ax, bx) + R, min(ay, by) - R, max(ay, by) + R)
            self._segments.append((s.id, ax, ay, ux, uy, -uy, ux, length, bbox))
        # A ball can touch a vertex alone only where the outline turns right (a protruding
        # corner seen from the table): the jaw tips. Concave corners are met by their segments.
        self._tips = []  # (segment id reported, x, y, bbox)
        for i, s in enumerate(boundary):
            prev = boundary[i - 1]
            d1 = (prev.b[0] - prev.a[0], prev.b[1] - prev.a[1])
            d2 = (s.b[0] - s.a[0], s.b[1] - s.a[1])
            if d1[0] * d2[1] - d1[1] * d2[0] < 0.0:
                jaw = s if "_jaw_" in s.id else prev
                x, y = s.a
                self._tips.append((jaw.id, x, y, (x - R, x + R, y - R, y + R)))
        self._holes = []  # (pocket id, cx, cy, r, bbox)
        for p in self.table.pockets:
            cx, cy = p.hole_centre
            r = p.hole_radius
            self._holes.append((p.id, cx, cy, r, (cx - r, cx + r, cy - r, cy + r)))
        self._open_box = self._clear_interior()
        # The same features as the compiled loop's tables (columns ``event_core.S_*``,
        # ``Q_*``, ``H_*``) and the names its log rows index: segments, then tips.
        self._segment_table = np.array([s[1:8] + s[8] for s in self._segments], dtype=float).reshape(-1, 11)
        self._tip_table = np.array([q[1:3] + q[3] for q in self._tips], dtype=float).reshape(-1, 6)
        self._hole_table = np.array([h[1:4] + h[4] for h in self._holes], dtype=float).reshape(-1, 7)
        self._open_box_array = np.array(self._open_box, dtype=float)
        self._cushion_ids = tuple(s[0] for s in self._segments) + tuple(q[0] for q in self._tips)
        self._pocket_ids = tuple(h[0] for h in self._holes)
        # Row s: the cushion columns a ball resting on segment s is frozen to (its own, and
        # the jaw tips reported under its id), for ``frozen_contacts``.
        self._segment_marks = np.array([[s[0] == c for c in self._cushion_ids] for s in self._segments],
                                       dtype=bool).reshape(len(self._segments), len(self._cushion_ids))

    def _clear_interior(self) -> tuple[float, float, float, float]:
        """(x0, x1, y0, y1): an open rectangle that no feature's box (segment, tip or hole,
        grown by the contact distance) reaches, so a ball phase inside it needs no cushion
        search. Bounded by the innermost box edge near each rail; empty if any box intrudes.

        It also lies a ball radius inside the rail noses, so a centre inside it is on the
        playing surface (``Table.contains``: clear of every cushion and hole), which
        ``validate_layout`` uses to skip that check."""
        L, W, R = self.table.length, self.table.width, self.table.ball_radius
        boxes = ([s[-1] for s in self._segments] + [q[-1] for q in self._tips]
                 + [h[-1] for h in self._holes])
        x0 = max([b[1] for b in boxes if b[1] < 0.25 * L] + [R])
        x1 = min([b[0] for b in boxes if b[0] > 0.75 * L] + [L - R])
        y0 = max([b[3] for b in boxes if b[3] < 0.25 * W] + [R])
        y1 = min([b[2] for b in boxes if b[2] > 0.75 * W] + [W - R])
        for b in boxes:
            if b[0] < x1 and b[1] > x0 and b[2] < y1 and b[3] > y0:
                return (0.0, 0.0, 0.0, 0.0)
        return (x0, x1, y0, y1)

    def _build_nose(self) -> None:
        """The cushion contact's tilt: the nose touches the ball at ``Table.cushion_height``
        above the bed, above the centre and below the top."""
        R, h = self.table.ball_radius, self.table.cushion_height
        if not R < h < 2.0 * R:
            raise ValueError(f"Table.cushion_height must be in ({R}, {2.0 * R}) m (between the ball's "
                             f"centre and top), got {h!r}")
        self._sin_nose = h / R - 1.0
        self._cos_nose = math.sqrt(1.0 - self._sin_nose ** 2)

    def _build_constants(self) -> np.ndarray:
        """The constants vector of ``event_core.run_shot`` (entries ``event_core.P_*``)."""
        p, t = self.params, self.table
        values = {
            core.P_R: t.ball_radius, core.P_G_SLIDE: p.mu_slide * p.gravity,
            core.P_G_ROLL: p.mu_roll * p.gravity, core.P_SPIN_DEC: p.spin_deceleration,
            core.P_REST_SPEED: p.rest_speed, core.P_REST_SPIN: p.rest_spin,
            core.P_HEAD_X: t.head_string_x, core.P_FROZEN_TOL: p.frozen_tolerance,
            core.P_SIN_NOSE: self._sin_nose, core.P_COS_NOSE: self._cos_nose,
            core.P_BALL_E: p.ball_restitution, core.P_BALL_MU_MIN: p.ball_friction_min,
            core.P_BALL_MU_EXTRA: p.ball_friction_extra, core.P_BALL_MU_DECAY: p.ball_friction_decay,
            core.P_CUSHION_E: p.cushion_restitution, core.P_CUSHION_MU: p.cushion_friction,
            core.P_GRAVITY: p.gravity, core.P_BED_E: p.bed_restitution, core.P_BED_MU: p.mu_slide,
            core.P_MIN_HOP: p.min_hop_speed, core.P_NOSE_H: t.cushion_height,
            # Where a ball on the bed touches the nose: R cos(nose angle) from its centre,
            # so the nose edge lies this far inside the segment line (R from the centre).
            core.P_NOSE_INSET: t.ball_radius * (1.0 - self._cos_nose),
            core.P_RAIL_W: t.rail_width, core.P_LENGTH: t.length, core.P_WIDTH: t.width,
        }
        return np.array([values[i] for i in range(core.CONSTANTS)], dtype=float)

    # ------------------------------------------------------------------ validation
    def validate_layout(self, layout: Mapping[int, tuple[float, float]]) -> dict[int, tuple[float, float]]:
        """Check a layout; return it as {ball: (x, y)} of floats or raise ``ValueError``."""
        if not isinstance(layout, Mapping):
            raise ValueError(f"layout must be a mapping ball -> (x, y), got {type(layout).__name__}")
        out: dict[int, tuple[float, float]] = {}
        for ball, pos in layout.items():
            ball, point = self._checked_ball(ball, pos)
            out[ball] = point
        if 0 not in out:
            raise ValueError("layout must contain the cue ball (ball 0)")
        balls = sorted(out)
        limit = 2.0 * self.table.ball_radius - 1e-6
        limit2 = limit * limit
        for i, a in enumerate(balls):
            ax, ay = out[a]
            for b in balls[i + 1:]:
                bx, by = out[b]
                if (ax - bx) ** 2 + (ay - by) ** 2 < limit2:
                    self._raise_overlap(a, out[a], b, out[b])
        return out

    def validate_cue_placement(self, balls: dict[int, tuple[float, float]],
                               spot: tuple[float, float]) -> dict[int, tuple[float, float]]:
        """``validate_layout`` of ``balls`` with the cue ball placed at ``spot``, for
        ``balls`` that ``validate_layout`` would take as they are (a dict of plain ints and
        floats, on the surface, apart: the object balls of a state a rules transition built)
        and hold no cue ball: only the cue ball is checked. The same layout, or the same
        ``ValueError`` as ``validate_layout``."""
        ball, point = self._checked_ball(0, spot)
        limit = 2.0 * self.table.ball_radius - 1e-6
        limit2 = limit * limit
        ax, ay = point
        for b in sorted(balls):  # validate_layout's pairs with the cue ball, in its order
            bx, by = balls[b]
            if (ax - bx) ** 2 + (ay - by) ** 2 < limit2:
                self._raise_overlap(0, point, b, balls[b])
        out = dict(balls)
        out[ball] = point
        return out

    def _checked_ball(self, ball, pos) -> tuple[int, tuple[float, float]]:
        """One entry of a layout checked: (ball number, (x, y) as floats), or ``ValueError``."""
        if type(ball) is not int and (  # plain ints are the common case: no ABC checks
                isinstance(ball, bool) or not isinstance(ball, (int, np.integer))):
            raise ValueError(f"layout has unknown ball {ball!r}; balls are integers 0..{MAX_BALL} (0 = cue ball)")
        if not 0 <= ball <= MAX_BALL:
            raise ValueError(f"layout has unknown ball {ball!r}; balls are integers 0..{MAX_BALL} (0 = cue ball)")
        try:
            x, y = pos
        except (TypeError, ValueError):
            raise ValueError(f"layout[{ball}] must be a pair of numbers (x, y), got {quote(pos)}") from None
        # Plain floats need no conversion (real() would return them unchanged).
        if type(x) is not float or type(y) is not float:
            x, y = real(x, f"layout[{ball}] x"), real(y, f"layout[{ball}] y")
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"layout[{ball}] must be finite, got ({x}, {y})")
        # Inside the open box a ball is on the surface (see _clear_interior); elsewhere
        # the table decides.
        i0, i1, i2, i3 = self._open_box
        if not (i0 < x < i1 and i2 < y < i3) and not self.table.contains(x, y):
            raise ValueError(
                f"ball {ball} at ({x:.4f}, {y:.4f}) is off the playing surface: its centre must be "
                f"at least one ball radius ({self.table.ball_radius} m) inside the cushions, "
                f"x in [{self.table.ball_radius:.4f}, {self.table.length - self.table.ball_radius:.4f}], "
                f"y in [{self.table.ball_radius:.4f}, {self.table.width - self.table.ball_radius:.4f}] "
                "on the open table")
        return int(ball), (x, y)

    def _raise_overlap(self, a: int, pa: tuple[float, float], b: int, pb: tuple[float, float]) -> None:
        """The ``ValueError`` of balls ``a`` at ``pa`` and ``b`` at ``pb`` overlapping."""
        apart, needed = math.hypot(pa[0] - pb[0], pa[1] - pb[1]), 2 * self.table.ball_radius
        # As many digits as it takes to tell the two apart (at least five).
        digits = next((p for p in range(5, 10) if f"{apart:.{p}f}" != f"{needed:.{p}f}"), 10)
        raise ValueError(f"balls {a} and {b} overlap: centres {apart:.{digits}f} m apart, at least "
                         f"{needed:.{digits}f} m needed")

    # ------------------------------------------------------------------ public API
    def simulate(self, layout: Mapping[int, tuple[float, float]], shot: Shot,
                 rng: np.random.Generator | None = None, trajectories: bool = False) -> ShotResult:
        """Strike the cue ball (ball 0) of ``layout`` with ``shot`` and run until rest.

        With execution noise configured, ``rng`` supplies it (required). ``trajectories``
        records every ball's exact motion phases (for drawing and analysis); it costs
        nothing when off.
        """
        if not isinstance(shot, Shot):
            raise ValueError(f"shot must be a poolgym.physics.Shot, got {type(shot).__name__}")
        return self.simulate_many(layout, (shot,), rng, trajectories)[0]

    def simulate_many(self, layout: Mapping[int, tuple[float, float]], shots: Sequence[Shot],
                      rng: np.random.Generator | None = None, trajectories: bool = False) -> list[ShotResult]:
        """Play each of ``shots`` from the same ``layout``; one ``ShotResult`` per shot, in order.

        The same results as ``[simulate(layout, s, rng) for s in shots]`` (noise is drawn from
        ``rng`` shot by shot in that order), with the layout validated and its set-up (balls,
        frozen contacts) done once: for a bot's candidate search or noisy replays of one
        position. Every shot is validated before any is played.
        """
        checked = self._checked_shots(shots)
        return self._play(self.validate_layout(layout), checked, rng, trajectories)

    def simulate_many_validated(self, balls: dict[int, tuple[float, float]], shots: Sequence[Shot],
                                rng: np.random.Generator | None = None,
                                trajectories: bool = False) -> list[ShotResult]:
        """``simulate_many`` for a layout that is valid already, without checking it again.

        An internal path for the envs: ``balls`` must be what ``validate_layout`` returns
        (a dict ball -> (x, y) of plain ints and floats, on the surface, no two balls
        overlapping), such as a layout ``validate_layout`` has just returned or the
        positions of a ``GameState`` a rules transition produced from a simulated shot
        (the balls the simulator left at rest, and the rules' spots and racks). The
        shots and the noise are checked as in ``simulate_many``; the results are the same.
        """
        return self._play(balls, self._checked_shots(shots), rng, trajectories)

    def strikes_under(self, shots: Sequence[Shot], draws: Sequence[tuple[float, ...]]) -> np.ndarray:
        """The strike states (``strike_state``) of each of ``shots`` executed under each of
        ``draws`` (``Noise.draws`` of this simulator's noise; one empty tuple without
        noise), shot by shot: ``len(shots) * len(draws)`` rows, what ``simulate_facts``
        plays. The draws a generator gives ``simulate_many`` for ``[shot] * len(draws)``
        play each shot as it does there: the same plays of every shot under the same
        noise (common random numbers)."""
        return self._executed([(shot, d) for shot in self._checked_shots(shots) for d in draws])

    def paired_strikes(self, shots: Sequence[Shot], draws: Sequence[tuple[float, ...]]) -> np.ndarray:
        """The strike state of each of ``shots`` executed under the draw of the same index
        (``Noise.draws``; an empty tuple without noise): the strikes ``simulate_many``
        plays for ``shots`` when the draws come from its generator in order."""
        if len(draws) != len(shots):
            raise ValueError(f"one draw per shot: {len(shots)} shots, {len(draws)} draws")
        return self._executed(list(zip(self._checked_shots(shots), draws)))

    def _executed(self, pairs: list) -> np.ndarray:
        """The strike rows of validated (shot, draw) pairs under this simulator's noise."""
        if self.noise.is_zero:
            rows = [self.strike_state(s) for s, _ in pairs]
        else:
            rows = [self._strike(*self.noise.executed(s, d, self.params.max_speed)) for s, d in pairs]
        return np.array(rows, dtype=float).reshape(-1, 6)

    def simulate_facts(self, balls: dict[int, tuple[float, float]], strikes: np.ndarray,
                       threads: KernelThreads | None = None) -> "PlayFacts":
        """Play each strike row of ``strikes`` (``strikes_under``, ``paired_strikes``) from
        the layout ``balls`` (valid already, as for ``simulate_many_validated``) in one compiled call,
        and keep of each play only what a rules judge reads (``PlayFacts``): the plays of
        ``simulate_many_validated``, the same to the last bit, without a ``ShotResult``
        each. With ``threads`` the rows are split into contiguous shares (of
        ``MIN_FACT_PLAYS_PER_THREAD`` or more), each played on a thread of its own: the same
        arrays, each play being independent. A play past ``PhysicsParams.max_events`` or a
        ball at rest outside the cushion outline raises ``RuntimeError`` as
        ``simulate_many`` does."""
        start = _Start(self, balls)
        strikes = np.ascontiguousarray(strikes, dtype=float)
        fixed = (self._constants, self._segment_table, self._tip_table, self._hole_table, self._open_box_array,
                 start.frozen, self.params.max_events)
        shares = [slice(0, len(strikes))] if threads is None else threads.row_shares(len(strikes),
                                                                                     MIN_FACT_PLAYS_PER_THREAD)
        with compiled_call():
            if len(shares) == 1:
                facts = play_batch(start.x0, start.y0, start.cue, strikes, *fixed, None)
            else:
                parts = threads.run([partial(play_batch, start.x0, start.y0, start.cue, strikes[rows], *fixed, None)
                                     for rows in shares])
                facts = tuple(np.concatenate(column) for column in zip(*parts))
            airborne = np.flatnonzero(facts[0] == core.AIRBORNE_SHOT)
            if airborne.size:  # plays that leave the bed: the airborne core plays them
                core.airborne_core()
                again = play_batch(start.x0, start.y0, start.cue, strikes[airborne], *fixed, True)
                for column, played in zip(facts, again):
                    column[airborne] = played
        status, xs, ys, on, first, pocketed, off, after, anytime, late, departure = facts
        if (status == core.TOO_MANY_EVENTS).any():
            raise RuntimeError(f"shot exceeded PhysicsParams.max_events={self.params.max_events}; "
                               f"layout {start.layout()} strike {strikes[int(np.argmax(status))].tolist()}")
        outside = on & ((xs < 0.0) | (xs > self.table.length) | (ys < 0.0) | (ys > self.table.width))
        for p, k in zip(*np.nonzero(outside)):
            self._check_at_rest(start.nums[k], float(xs[p, k]), float(ys[p, k]), start, strikes[p].tolist())
        return PlayFacts(tuple(start.nums), status, xs, ys, on, first, pocketed, off, after, anytime, late,
                         departure)

    def _check_at_rest(self, ball: int, x: float, y: float, start: "_Start", shot) -> None:
        # Table validation makes this impossible; a ball escaping is a simulator bug, and
        # it is reported rather than handed to the rules as a position. (Inside the
        # rectangle is inside the outline, Table.inside_outline's first test.)
        if not (0.0 <= x <= self.table.length and 0.0 <= y <= self.table.width) and not self.table.inside_outline(x, y):
            raise RuntimeError(f"ball {ball} came to rest outside the cushion outline at "
                               f"({x:.4f}, {y:.4f}); layout {start.layout()} shot {shot}")

    def _checked_shots(self, shots: Sequence[Shot]) -> list[Shot]:
        """Each of ``shots`` validated (plain floats), or ``ValueError`` naming the first bad one."""
        # A list (the usual argument) is a Sequence and no Shot: no ABC check for it.
        if type(shots) is not list and (isinstance(shots, Shot) or not isinstance(shots, Sequence)):
            raise ValueError(f"shots must be a sequence of poolgym.physics.Shot, got {type(shots).__name__}")
        max_speed = self.params.max_speed
        checked = []
        for i, shot in enumerate(shots):
            if not isinstance(shot, Shot):
                raise ValueError(f"shots[{i}] must be a poolgym.physics.Shot, got {type(shot).__name__}")
            checked.append(shot.validate(max_speed))  # plain floats from here on
        return checked

    def _play(self, balls: dict[int, tuple[float, float]], checked: list[Shot],
              rng: np.random.Generator | None, trajectories: bool) -> list[ShotResult]:
        start = _Start(self, balls)
        return [self._run(start, shot, trajectories) for shot in self._with_noise(checked, rng)]

    def _with_noise(self, checked: list[Shot], rng: np.random.Generator | None) -> list[Shot]:
        """Validated shots as executed under this simulator's noise, drawn from ``rng`` shot
        by shot in order (the shots themselves without noise)."""
        noise = self.noise
        if noise.is_zero:
            return checked
        if rng is None:
            raise ValueError("this Simulator has execution noise: pass rng=numpy.random.default_rng(seed)")
        max_speed = self.params.max_speed
        return [noise.apply(shot, rng, max_speed) for shot in checked]

    def executed(self, shots: Sequence[Shot], rng: np.random.Generator | None) -> list[Shot]:
        """Each of ``shots`` validated and executed under this simulator's noise, drawn from
        ``rng`` in order: what ``simulate_many`` plays, for ``simulate_executed`` and
        ``simulate_layouts`` (a batched env draws each table's noise from its own generator,
        then plays every table at once)."""
        return self._with_noise(self._checked_shots(shots), rng)

    def simulate_executed(self, balls: dict[int, tuple[float, float]], shot: Shot,
                          trajectories: bool = False) -> ShotResult:
        """An ``executed`` shot played from the valid layout ``balls`` (as for
        ``simulate_many_validated``): the result ``simulate_many_validated`` gives for it."""
        return self._run(_Start(self, balls), shot, trajectories)

    def simulate_layouts(self, plays: Sequence[tuple[dict[int, tuple[float, float]], Shot]],
                         threads: KernelThreads | None = None) -> list[ShotResult]:
        """Each ``(balls, shot)`` of ``plays`` (a valid layout and an ``executed`` shot)
        played in one compiled call (``layout_plays``, on ``threads`` as there), without
        paths: the results ``simulate_executed`` gives, the same to the last bit, one per play."""
        played = self.layout_plays(plays, threads)
        return [played.result(t) for t in range(len(plays))]

    def layout_plays(self, plays: Sequence[tuple[dict[int, tuple[float, float]], Shot]],
                     threads: KernelThreads | None = None) -> LayoutPlays:
        """Each ``(balls, shot)`` of ``plays`` (a valid layout and an ``executed`` shot)
        played in one compiled call (``poolgym.physics.batch.play_layouts``), with the facts
        the rules read of each (``LayoutPlays``): the tables of a batched env. Each play's
        ``ShotResult`` (``LayoutPlays.result``) is ``simulate_executed``'s, built only when
        asked for. With ``threads`` (``poolgym.physics.threads.KernelThreads``) the plays
        are split into as many contiguous shares (of ``MIN_PLAYS_PER_THREAD`` plays or
        more), each played in a call on a thread of its own: the same arrays, to the last
        bit, as one call (each play is independent)."""
        nums: list[int] = []
        points: list[tuple[float, float]] = []
        bounds = [0]
        for balls, _ in plays:
            order = sorted(balls)
            nums += order
            points += [balls[b] for b in order]
            bounds.append(len(nums))
        # One float array from the pairs (numpy's conversion of a list of tuples is slower).
        xy = np.fromiter(chain.from_iterable(points), float, 2 * len(points))
        x0, y0 = np.ascontiguousarray(xy[0::2]), np.ascontiguousarray(xy[1::2])
        shots = [shot for _, shot in plays]
        strikes = np.array([self.strike_state(shot) for shot in shots], dtype=float).reshape(-1, 6)
        starts = np.array(bounds, np.int64)
        layout = (x0, y0, np.array(nums, np.int64), starts, strikes, self._constants,
                  self._segment_table, self._tip_table, self._hole_table, self._open_box_array, self._segment_marks,
                  self.params.max_events)
        count = len(plays)
        shares = [slice(0, count)] if threads is None else threads.row_shares(count, MIN_PLAYS_PER_THREAD)
        with compiled_call():
            if len(shares) < 2:  # one thread, or too few plays to share
                *out, airborne = play_layouts(*layout, None, np.ones(count, np.bool_))
            else:
                # Share k: the plays owner == k, each call given every layout and its own
                # ``todo`` (no other play's arrays to slice and renumber).
                owner = np.repeat(np.arange(len(shares)), [rows.stop - rows.start for rows in shares])
                parts = threads.run([partial(play_layouts, *layout, None, owner == k) for k in range(len(shares))])
                airborne = sum(part[-1] for part in parts)
                out = _merged([part[:-1] for part in parts], owner, starts)
            if airborne:  # plays that leave the bed: the airborne core plays them, in this thread
                core.airborne_core()
                flew = out[0][:, T_STATUS] == core.AIRBORNE_SHOT
                again = play_layouts(*layout, True, flew)
                out = _merged([out, again], flew.astype(np.intp), starts)
        return LayoutPlays(self, shots, nums, points, bounds, out)

    def _run(self, start: _Start, shot: Shot, record: bool) -> ShotResult:
        """Play one validated shot from ``start`` in the compiled loop; its result."""
        strike = np.array(self.strike_state(shot), dtype=float)  # (vx, vy, wx, wy, wz, vz)
        max_events = self.params.max_events
        args = (start.x0, start.y0, start.cue, strike, self._constants, self._segment_table, self._tip_table,
                self._hole_table, self._open_box_array, start.frozen, max_events, record)
        with compiled_call():
            status, balls, on, log, phases, counts, _, duration = core.run_shot(*args, None)
            if status == core.AIRBORNE_SHOT:  # the ball leaves the bed: the airborne core plays it
                core.airborne_core()
                status, balls, on, log, phases, counts, _, duration = core.run_shot(*args, True)
        return self._result(start, shot, status, balls[:, core.X], balls[:, core.Y], on, log[:counts[core.C_LOG]],
                            phases[:counts[core.C_PHASES]] if record else None, duration)

    def _result(self, start: _Start, shot: Shot, status, xs: np.ndarray, ys: np.ndarray, on: np.ndarray,
                log: np.ndarray, phases: np.ndarray | None, duration: float) -> ShotResult:
        """The ``ShotResult`` of the compiled loop's arrays for one play (the balls' resting
        places and on-table flags, its log rows, its motion phases when recorded);
        ``RuntimeError`` for a play past ``max_events`` or a ball at rest outside the
        cushion outline."""
        if status == core.TOO_MANY_EVENTS:
            raise RuntimeError(f"shot exceeded PhysicsParams.max_events={self.params.max_events}; "
                               f"layout {start.layout()} shot {shot}")
        nums = start.nums
        xs, ys = xs.tolist(), ys.tolist()
        positions = {num: (x, y) for num, x, y, kept in zip(nums, xs, ys, on.tolist()) if kept}
        # A ball inside the table's rectangle is inside the outline (_check_at_rest's first
        # test): only a ball outside it needs the full check, in the same order as before.
        length, width = self.table.length, self.table.width
        for ball, (x, y) in positions.items():
            if not (0.0 <= x <= length and 0.0 <= y <= width):
                self._check_at_rest(ball, x, y, start, shot)
        log = RowLog(log.tolist(), self._strike_event(start, shot), float(duration), nums,
                     self._cushion_ids, self._pocket_ids)
        pocketed, off_table = log.ends()
        paths = None
        if phases is not None:
            paths = {num: [] for num in nums}
            for k, t0, t1, mode, x, y, vx, vy, ax, ay, z, vz, az in phases.tolist():
                paths[nums[int(k)]].append(MotionPhase(t0, t1, _MODE_NAMES[int(mode)], (x, y), (vx, vy), (ax, ay),
                                                       z, vz, az))
            paths = {num: tuple(p) for num, p in paths.items()}
        return ShotResult(positions, pocketed, None, float(duration), shot, paths, off_table, log=log)

    def _strike_event(self, start: _Start, shot: Shot) -> ev.Strike:
        miscue = math.hypot(shot.side, shot.vertical) > self.params.miscue_limit
        return ev.Strike(0.0, 0, start.cue_position, shot.speed, shot.angle_deg,
                         shot.side, shot.vertical, miscue, start.cushion_frozen, start.cue_frozen,
                         shot.elevation_deg)

    def strike_state(self, shot: Shot) -> tuple[float, float, float, float, float, float]:
        """Cue-ball velocity and spin right after the strike: (vx, vy, wx, wy, wz, vz).

        Standard cue-ball formulas (Alciatore TP A-30) along the cue: an offset of a fraction
        ``f`` of the radius leaves the ball at v = v_centre (1 + m/M) / (1 + m/M + 5 f^2 / 2)
        with spin 5 v f / (2 R) about the axis perpendicular to the offset.

        With the cue raised ``elevation_deg`` it pushes along d = cos(theta) h - sin(theta) z
        (h: the stroke's horizontal direction), and the tip offsets are measured across the
        cue: ``side`` along the player's right r, ``vertical`` along u = d x r (up, tilted
        back with the cue). The ball leaves along d, and spins at (5 v / 2 R) (vertical r -
        side u): side spin turns about the tilted axis u, whose horizontal part along the
        stroke is what curves a swerve or masse shot. A centre hit (no offsets) drives the
        ball through its centre, down into the bed, without spin: a jump shot. pooltool 0.6's
        instantaneous-point stick model takes its offsets across the cue too and gives the
        same velocity and spin, but drops the vertical velocity. The bed's answer to the
        downward part of v is ``run_shot``'s.
        """
        return self._strike(shot.speed, shot.angle_deg, shot.side, shot.vertical, shot.elevation_deg)

    def _strike(self, speed: float, angle_deg: float, side: float, vertical: float,
                elevation_deg: float) -> tuple[float, float, float, float, float, float]:
        """``strike_state`` of a shot with these (validated) fields."""
        p, R = self.params, self.table.ball_radius
        ratio = self.table.ball_mass / p.cue_mass
        v = speed * (1.0 + ratio) / (1.0 + ratio + 2.5 * (side * side + vertical * vertical))
        angle = math.radians(angle_deg)
        if p.squirt and side != 0.0:
            angle -= squirt_angle(side, self.table.ball_mass, p.cue_end_mass)
        cx, cy = math.cos(angle), math.sin(angle)
        spin = 2.5 * v / R
        if elevation_deg == 0.0:
            # Top spin turns about z x v_hat = (-cy, cx). Right english, a tip offset towards
            # the stroke's right (+y for a stroke along +x), has wz < 0: r x F with r along +y
            # and F along +x. Seen from above, with +y to the right of +x, that is anticlockwise.
            return v * cx, v * cy, -spin * vertical * cy, spin * vertical * cx, -spin * side, 0.0
        theta = math.radians(elevation_deg)
        st, ct = math.sin(theta), math.cos(theta)
        rx, ry = -cy, cx  # the player's right (z x h)
        # u = d x r = (sin(theta) h, cos(theta)) in (horizontal, z).
        wx = spin * (vertical * rx - side * st * cx)
        wy = spin * (vertical * ry - side * st * cy)
        wz = -spin * side * ct
        return v * ct * cx, v * ct * cy, wx, wy, wz, -v * st


class PlayFacts(NamedTuple):
    """What ``Simulator.simulate_facts`` keeps of each play (row p of every array; ball
    columns in ``nums`` order, the layout's ball numbers sorted): ``status`` (the event
    loop's, ``event_core.DONE``), the balls' resting ``xs``, ``ys`` and ``on`` (on the
    table), the ball index of the cue ball's ``first`` contact (-1 for none), the balls
    ``pocketed`` and driven ``off`` the table, those that reached a cushion they were not
    frozen to after the first contact (``cushion_after``) and at any time
    (``cushion_any``), ``late_drop``: a ball dropped after the rest, and the first-contact
    ball's ``departure`` (x, y at the contact, x, y at its next event; NaN for none)
    (``poolgym.physics.batch.play_batch``)."""

    nums: tuple[int, ...]
    status: np.ndarray
    xs: np.ndarray
    ys: np.ndarray
    on: np.ndarray
    first: np.ndarray
    pocketed: np.ndarray
    off: np.ndarray
    cushion_after: np.ndarray
    cushion_any: np.ndarray
    late_drop: np.ndarray
    departure: np.ndarray


class LayoutPlays:
    """The plays of ``Simulator.layout_plays``, one per (layout, shot), in order: the arrays
    of the compiled call (``poolgym.physics.batch.play_layouts``: ``tables``,
    ``durations``, ``spots``, ``ball_marks``, ``log_rows``, ``log_starts``; play ``t``
    holds the balls ``bounds[t]:bounds[t + 1]`` of the per-ball rows, whose ball numbers
    are ``nums``), the facts the rules read of play ``t`` (``facts``) and its
    ``ShotResult`` (``result``, or ``deferred_result`` to build it only when it is read)."""

    __slots__ = ("_sim", "_shots", "_points", "nums", "bounds", "tables", "durations", "spots", "ball_marks",
                 "log_rows", "log_starts", "_listed")

    def __init__(self, sim: Simulator, shots: list[Shot], nums: list[int], points: list[tuple[float, float]],
                 bounds: list[int], arrays: tuple) -> None:
        self._sim, self._shots, self._points, self.nums, self.bounds = sim, shots, points, nums, bounds
        self.tables, self.durations, self.spots, self.ball_marks, self.log_rows, self.log_starts = arrays
        self._listed = None

    def __len__(self) -> int:
        return len(self._shots)

    def result(self, t: int) -> ShotResult:
        """Play ``t``'s ``ShotResult``: ``Simulator.simulate_executed``'s of its layout and
        shot, the same to the last bit (``RuntimeError`` as there for a play past
        ``max_events`` or a ball at rest outside the cushion outline)."""
        s, e = self.bounds[t], self.bounds[t + 1]
        nums = self.nums[s:e]
        X, Y = zip(*self._points[s:e])
        row = self.tables[t]
        start = _Start.of(nums, X, Y, _ball_tuple(int(row[T_FROZEN_CUSHION])), _ball_tuple(int(row[T_FROZEN_CUE])))
        log = self.log_rows[self.log_starts[t]:self.log_starts[t + 1]]
        spots = self.spots[s:e]
        return self._sim._result(start, self._shots[t], row[T_STATUS], spots[:, S_X], spots[:, S_Y],
                                 self.ball_marks[s:e, M_ON] != 0, log, None, self.durations[t])

    def deferred_result(self, t: int) -> ShotResult:
        """``result(t)``, built when first read (``ShotResult.deferred``) when play ``t``
        is plain (``facts`` has its facts); at once otherwise, raising as ``result``."""
        if not self.tables[t, T_PLAIN]:
            return self.result(t)
        return ShotResult.deferred(lambda: self.result(t))

    def facts(self, t: int) -> tuple | None:
        """What ``poolgym.rules.ShotEvents.from_simulation`` takes of play ``t`` (the facts
        ``ShotEvents.from_log`` reads from its result): the cue ball's start, the first
        ball it touched (None), the balls driven to a cushion after that contact and at
        any time, ``(ball, pocket)`` of each drop in order, ``(ball, (x, y))`` of those
        after the rest, the balls off the table, whether the cue ball reached the head
        string before the contact and at all, the balls frozen to a cushion and to the
        cue ball at the strike, and the rows ``(ball, x, y)`` of the balls at rest,
        ascending. None when the play is not plain (``play_layouts``): its facts need the
        checks of ``ShotEvents.from_log``."""
        listed = self._listed
        if listed is None:  # every play's values as Python's, in a few calls
            listed = self._listed = (self.tables.tolist(), *self.spots.T.tolist(), *self.ball_marks.T.tolist())
        tables, xs, ys, drop_xs, drop_ys, on, hole, late, order = listed
        (_, first, before, ever, plain, frozen_cushion, frozen_cue, after, anytime, off, drops,
         any_late) = tables[t]
        if not plain:
            return None
        s, e = self.bounds[t], self.bounds[t + 1]
        nums = self.nums[s:e]
        rows = tuple(compress(zip(nums, xs[s:e], ys[s:e]), on[s:e]))
        pocketed = late_drops = ()
        if drops:
            every, pocket_ids = self.nums, self._sim._pocket_ids
            dropped = order[s:s + drops]
            pocketed = tuple([(every[i], pocket_ids[hole[i]]) for i in dropped])
            if any_late:
                late_drops = tuple([(every[i], (drop_xs[i], drop_ys[i])) for i in dropped if late[i]])
        return (tuple(self._points[s + nums.index(0)]), None if first < 0 else nums[first], _ball_set(after),
                _ball_set(anytime), pocketed, late_drops, _ball_set(off), before == 1, ever == 1,
                _ball_set(frozen_cushion), _ball_set(frozen_cue), rows)


def _merged(parts: list[tuple], owner: np.ndarray, bounds: np.ndarray) -> tuple:
    """The arrays of one ``play_layouts`` call (``tables``, ``durations``, ``spots``,
    ``ball_marks``, ``log_rows``, ``log_starts``) from those of several (``parts``), each
    of which played the layouts ``t`` with ``owner[t]`` its index (layout ``t`` holds the
    balls ``bounds[t]:bounds[t + 1]``): the level core's and the airborne core's, or the
    shares of a call split across threads. The first part's arrays are reused."""
    balls = np.repeat(owner, np.diff(bounds))
    merged = list(parts[0][:4])
    for k, part in enumerate(parts[1:], 1):
        tables, own_balls = owner == k, balls == k
        for mine, theirs, which in zip(merged, part[:4], (tables, tables, own_balls, own_balls)):
            mine[which] = theirs[which]
    # A part has log rows for its own layouts only (none for a play the level core handed
    # on): the merged row counts are the parts' summed, and each part's rows, in layout
    # order, move to their layout's place (whole arrays: no loop over the layouts).
    starts = sum((part[5] for part in parts[1:]), parts[0][5])
    rows = np.empty((starts[-1], core.LOG_COLUMNS))
    for part in parts:
        part_rows, part_starts = part[4], part[5]
        layout = np.repeat(np.arange(len(part_starts) - 1), np.diff(part_starts))
        rows[starts[layout] - part_starts[layout] + np.arange(len(part_rows))] = part_rows
    return (*merged, rows, starts)


@lru_cache(maxsize=4096)
def _ball_set(bits: int) -> frozenset[int]:
    """The balls whose bits are set in ``bits`` (bit b: ball b), shared between the plays
    (a frozenset is never changed)."""
    return frozenset(_ball_tuple(bits))


def _ball_tuple(bits: int) -> tuple[int, ...]:
    """The balls whose bits are set in ``bits``, ascending."""
    return tuple([b for b in range(bits.bit_length()) if bits >> b & 1])


class _Start:
    """What every shot from one validated layout shares: ball order, positions and the
    contacts frozen at the strike (balls against cushions, balls against the cue ball)."""

    def __init__(self, sim: Simulator, balls: dict[int, tuple[float, float]]) -> None:
        self.nums = nums = sorted(balls)
        self.cue = cue = nums.index(0)
        X, Y = zip(*[balls[b] for b in nums])  # each ball an (x, y) pair
        self.X, self.Y = X, Y
        self.cue_position = (X[cue], Y[cue])
        self.x0, self.y0 = np.array(X, dtype=float), np.array(Y, dtype=float)
        # frozen[k, c]: ball k rests against cushion c (the compiled loop's cushion order).
        with compiled_call():
            self.frozen, on_cushion, on_cue = frozen_contacts(
                self.x0, self.y0, cue, sim._segment_table, sim._segment_marks, sim._open_box_array,
                sim.table.ball_radius, sim.params.frozen_tolerance)
        self.cushion_frozen = tuple(compress(nums, on_cushion.tolist()))
        self.cue_frozen = tuple(compress(nums, on_cue.tolist()))

    @classmethod
    def of(cls, nums: list[int], X: tuple[float, ...], Y: tuple[float, ...], cushion_frozen: tuple[int, ...],
           cue_frozen: tuple[int, ...]) -> "_Start":
        """The start of a layout set up elsewhere (``play_layouts`` finds its frozen
        contacts), as far as a ``ShotResult`` reads it: no ``x0``, ``y0`` or ``frozen``."""
        new = object.__new__(cls)
        new.nums, new.X, new.Y = nums, X, Y
        new.cue = cue = nums.index(0)
        new.cue_position = (X[cue], Y[cue])
        new.cushion_frozen, new.cue_frozen = cushion_frozen, cue_frozen
        return new

    def layout(self) -> dict[int, tuple[float, float]]:
        """The layout as ball -> (x, y)."""
        return dict(zip(self.nums, zip(self.X, self.Y)))


def squirt_angle(side: float, ball_mass: float, end_mass: float) -> float:
    """Squirt (radians): how far an off-centre hit turns the cue ball's launch away from the
    side struck, right english to the left.

    Alciatore, TP A-31 ("Squirt angle from cue-tip offset and end mass"): with b the tip
    offset as a fraction of the radius, tan(squirt) = 5/2 b sqrt(1 - b^2) /
    (1 + m_ball / m_end + 5/2 (1 - b^2)). The cue's end mass m_end (the tip end's effective
    mass, which moves aside as the tip pushes the ball) sets how large it is: a low-squirt
    shaft has a small one. pooltool uses the same formula.
    """
    along = 1.0 - side * side
    return math.atan(2.5 * side * math.sqrt(along) / (1.0 + ball_mass / end_mass + 2.5 * along))
