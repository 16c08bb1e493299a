"""Event-driven table simulation: closed-form cloth friction between contacts, closed-form impulses at them.

Each ball moves on a parabola between events (sliding: the contact-point slip decays under
mu_slide * g; rolling: deceleration mu_roll * g), so its state at any time is known in
closed form. The simulation jumps from event to event: the next contact is found exactly
(``contact_time``), never stepped over, so nothing tunnels and no contact is blurred. At a
contact an impulse model (``contacts``) changes the velocities and all three spin
components of the balls involved: ball-ball contacts with restitution and friction against
the 3-D slip of the contact points (cut shots throw, a draw loses some draw), cushions at
their nose height (rails take top spin and draw, side spin bends the rebound).
"""

from __future__ import annotations

import heapq
import math
from typing import Mapping, Sequence

import numpy as np

from poolgym import events as ev
from poolgym.numbers import quote, real
from poolgym.physics.contact_time import INF, quadratic_entry, quartic_entry
from poolgym.physics.contacts import ball_ball_impulse, cushion_impulse
from poolgym.physics.params import PhysicsParams
from poolgym.physics.result import MotionPhase, ShotResult
from poolgym.physics.shot import Noise, Shot
from poolgym.table import Table

SLIDING, ROLLING, STILL = 0, 1, 2
_MODE_NAMES = ("sliding", "rolling", "still")
# Event kinds, in the order they are processed when they fall at the same time.
_TRANSITION, _BALL, _SEGMENT, _TIP, _HOLE, _HEAD = range(6)
MAX_BALL = 15

_SLIP_EPS = 1e-7
# After a grazing root (gap closed but not closing), contacts are searched again this much
# later, so the search moves past the touch instead of finding it again.
_RETRY_DT = 1e-9
# The slowest parting speed (m/s) after a contact. A ball driven by its own spin into
# another ball or a cushion (a follow shot pushing its object ball) would otherwise meet it
# again and again in ever shorter intervals (inelastic collapse); parting at 1 mm/s makes
# that a bounded sequence of soft pushes, at an energy cost of micro-joules.
_MIN_SEPARATION = 1e-3


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

    def _clear_interior(self) -> tuple[float, float, float, float]:
        """(x0, x1, y0, y1): an open rectangle that no feature's box (segment, tip or hole,
        grown by the contact distance) reaches, so a ball phase inside it needs no cushion
        search. Bounded by the innermost box edge near each rail; empty if any box intrudes."""
        L, W = self.table.length, self.table.width
        boxes = ([s[-1] for s in self._segments] + [q[-1] for q in self._tips]
                 + [h[-1] for h in self._holes])
        x0 = max([b[1] for b in boxes if b[1] < 0.25 * L], default=0.0)
        x1 = min([b[0] for b in boxes if b[0] > 0.75 * L], default=L)
        y0 = max([b[3] for b in boxes if b[3] < 0.25 * W], default=0.0)
        y1 = min([b[2] for b in boxes if b[2] > 0.75 * W], default=W)
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

    # ------------------------------------------------------------------ validation
    def validate_layout(self, layout: Mapping[int, tuple[float, float]]) -> dict[int, tuple[float, float]]:
        """Check a layout; return it as {ball: (x, y)} of floats or raise ``ValueError``."""
        if not isinstance(layout, Mapping):
            raise ValueError(f"layout must be a mapping ball -> (x, y), got {type(layout).__name__}")
        out: dict[int, tuple[float, float]] = {}
        for ball, pos in layout.items():
            if isinstance(ball, bool) or not isinstance(ball, (int, np.integer)) or not 0 <= ball <= MAX_BALL:
                raise ValueError(f"layout has unknown ball {ball!r}; balls are integers 0..{MAX_BALL} (0 = cue ball)")
            try:
                x, y = pos
            except (TypeError, ValueError):
                raise ValueError(f"layout[{ball}] must be a pair of numbers (x, y), got {quote(pos)}") from None
            x, y = real(x, f"layout[{ball}] x"), real(y, f"layout[{ball}] y")
            if not (math.isfinite(x) and math.isfinite(y)):
                raise ValueError(f"layout[{ball}] must be finite, got ({x}, {y})")
            if not self.table.contains(x, y):
                raise ValueError(
                    f"ball {ball} at ({x:.4f}, {y:.4f}) is off the playing surface: its centre must be "
                    f"at least one ball radius ({self.table.ball_radius} m) inside the cushions, "
                    f"x in [{self.table.ball_radius:.4f}, {self.table.length - self.table.ball_radius:.4f}], "
                    f"y in [{self.table.ball_radius:.4f}, {self.table.width - self.table.ball_radius:.4f}] "
                    "on the open table")
            out[int(ball)] = (x, y)
        if 0 not in out:
            raise ValueError("layout must contain the cue ball (ball 0)")
        balls = sorted(out)
        limit = 2.0 * self.table.ball_radius - 1e-6
        for i, a in enumerate(balls):
            ax, ay = out[a]
            for b in balls[i + 1:]:
                bx, by = out[b]
                if (ax - bx) ** 2 + (ay - by) ** 2 < limit * limit:
                    raise ValueError(f"balls {a} and {b} overlap: centres {math.hypot(ax - bx, ay - by):.5f} m "
                                     f"apart, at least {2 * self.table.ball_radius:.5f} m needed")
        return out

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

    def _checked_shots(self, shots: Sequence[Shot]) -> list[Shot]:
        """Each of ``shots`` validated (plain floats), or ``ValueError`` naming the first bad one."""
        if isinstance(shots, Shot) or not isinstance(shots, Sequence):
            raise ValueError(f"shots must be a sequence of poolgym.physics.Shot, got {type(shots).__name__}")
        checked = []
        for i, shot in enumerate(shots):
            if not isinstance(shot, Shot):
                raise ValueError(f"shots[{i}] must be a poolgym.physics.Shot, got {type(shot).__name__}")
            checked.append(shot.validate(self.params.max_speed))  # plain floats from here on
        return checked

    def _play(self, balls: dict[int, tuple[float, float]], checked: list[Shot],
              rng: np.random.Generator | None, trajectories: bool) -> list[ShotResult]:
        start = _Start(self, balls)
        if not self.noise.is_zero:
            if rng is None:
                raise ValueError("this Simulator has execution noise: pass rng=numpy.random.default_rng(seed)")
            checked = [self.noise.apply(shot, rng, self.params.max_speed) for shot in checked]
        return [_ShotRun(self, start, shot, trajectories).run() for shot in checked]

    def strike_state(self, shot: Shot) -> tuple[float, float, float, float, float]:
        """Cue-ball velocity and spin right after the strike: (vx, vy, wx, wy, wz).

        Standard cue-ball formulas (Alciatore TP A.30): an offset of a fraction ``f`` of the
        radius leaves the ball at v = v_centre (1 + m/M) / (1 + m/M + 5 f^2 / 2) with spin
        5 v f / (2 R) about the axis perpendicular to the offset.
        """
        p, R = self.params, self.table.ball_radius
        ratio = self.table.ball_mass / p.cue_mass
        side, vertical = shot.side, shot.vertical
        v = shot.speed * (1.0 + ratio) / (1.0 + ratio + 2.5 * (side * side + vertical * vertical))
        angle = math.radians(shot.angle_deg)
        if p.squirt and side != 0.0:
            angle -= squirt_angle(side, self.table.ball_mass, p.cue_end_mass)
        cx, cy = math.cos(angle), math.sin(angle)
        spin = 2.5 * v / R
        # Top spin turns about z x v_hat = (-cy, cx). Right english, a tip offset towards
        # the stroke's right (+y for a stroke along +x), has wz < 0: r x F with r along +y
        # and F along +x. Seen from above, with +y to the right of +x, that is anticlockwise.
        return v * cx, v * cy, -spin * vertical * cy, spin * vertical * cx, -spin * side


class _Start:
    """What every shot from one validated layout shares: ball order, positions and the
    contacts frozen at the strike (balls against cushions, balls against the cue ball)."""

    def __init__(self, sim: Simulator, balls: dict[int, tuple[float, float]]) -> None:
        self.nums = sorted(balls)
        self.cue = self.nums.index(0)
        self.X = tuple(balls[b][0] for b in self.nums)
        self.Y = tuple(balls[b][1] for b in self.nums)
        R, tol = sim.table.ball_radius, sim.params.frozen_tolerance
        cx, cy = self.X[self.cue], self.Y[self.cue]
        self.frozen_segments: list[frozenset[str]] = []
        cushion_frozen, cue_frozen = [], []
        i0, i1, i2, i3 = sim._open_box
        for k, num in enumerate(self.nums):
            x, y = self.X[k], self.Y[k]
            if i0 + tol < x < i1 - tol and i2 + tol < y < i3 - tol:
                frozen = frozenset()  # more than R + tol from every cushion
            else:
                frozen = frozenset(seg_id for seg_id, sx, sy, ux, uy, nx, ny, length, _ in sim._segments
                                   if 0.0 <= ux * (x - sx) + uy * (y - sy) <= length
                                   and nx * (x - sx) + ny * (y - sy) <= R + tol)
            self.frozen_segments.append(frozen)
            if frozen:
                cushion_frozen.append(num)
            if k != self.cue and math.hypot(x - cx, y - cy) <= 2.0 * R + tol:
                cue_frozen.append(num)
        self.cushion_frozen, self.cue_frozen = tuple(cushion_frozen), tuple(cue_frozen)


class _ShotRun:
    """The mutable state of one shot; plain lists indexed by a local ball index."""

    def __init__(self, sim: Simulator, start: _Start, shot: Shot, record: bool) -> None:
        self.sim, self.shot = sim, shot
        p, t = sim.params, sim.table
        self.R = t.ball_radius
        self.D2 = (2.0 * self.R) ** 2
        self.g_slide = p.mu_slide * p.gravity
        self.g_roll = p.mu_roll * p.gravity
        self.spin_dec = p.spin_deceleration
        self.rest_speed = p.rest_speed
        self.head_x = t.head_string_x
        self.nums = start.nums
        n = len(self.nums)
        self.cue = start.cue
        self.T0 = [0.0] * n
        self.X = list(start.X)
        self.Y = list(start.Y)
        self.VX, self.VY = [0.0] * n, [0.0] * n
        self.WX, self.WY, self.WZ = [0.0] * n, [0.0] * n, [0.0] * n
        self.AX, self.AY = [0.0] * n, [0.0] * n
        self.MODE = [STILL] * n
        self.TEND = [INF] * n
        self.BOX = [(x, x, y, y) for x, y in zip(self.X, self.Y)]
        self.VER = [0] * n
        self.ON = [True] * n
        self.heap: list = []
        self.seq = 0
        self.log: list[ev.Event] = []
        self.pocketed: dict[int, str] = {}
        self.record = record
        self.phases: list[list[MotionPhase]] = [[] for _ in range(n)]
        self.start = start

    # ------------------------------------------------------------------ kinematics
    def state_at(self, k: int, t: float):
        """(x, y, vx, vy, wx, wy, wz) of ball k at time t, in closed form."""
        tau = t - self.T0[k]
        wz0 = self.WZ[k]
        spun = abs(wz0) - self.spin_dec * tau
        wz = math.copysign(spun, wz0) if spun > 0.0 else 0.0
        mode = self.MODE[k]
        if mode == STILL:
            return self.X[k], self.Y[k], 0.0, 0.0, 0.0, 0.0, wz
        ax, ay = self.AX[k], self.AY[k]
        vx, vy = self.VX[k] + ax * tau, self.VY[k] + ay * tau
        x = self.X[k] + (self.VX[k] + 0.5 * ax * tau) * tau
        y = self.Y[k] + (self.VY[k] + 0.5 * ay * tau) * tau
        if mode == ROLLING:
            return x, y, vx, vy, -vy / self.R, vx / self.R, wz
        # Sliding friction torque turns the spin about z x u_hat, u_hat = -a / (mu_s g).
        c = 2.5 * tau / self.R
        return x, y, vx, vy, self.WX[k] + c * ay, self.WY[k] - c * ax, wz

    def set_phase(self, k: int, t: float, x: float, y: float, vx: float, vy: float,
                  wx: float, wy: float, wz: float, force_roll: bool = False) -> None:
        """Start a new motion phase of ball k at time t from the given state."""
        if self.record:
            self._close_phase(k, t)
        R = self.R
        speed = math.hypot(vx, vy)
        ux, uy = vx - R * wy, vy + R * wx
        slip = math.hypot(ux, uy)
        if slip > _SLIP_EPS and not force_roll:
            mode = SLIDING
            ax, ay = -self.g_slide * ux / slip, -self.g_slide * uy / slip
            duration = 2.0 * slip / (7.0 * self.g_slide)
        elif speed > self.rest_speed:
            mode = ROLLING
            ax, ay = -self.g_roll * vx / speed, -self.g_roll * vy / speed
            duration = speed / self.g_roll
            wx, wy = -vy / R, vx / R
        else:
            mode = STILL
            vx = vy = wx = wy = ax = ay = 0.0
            duration = INF
        self.T0[k], self.X[k], self.Y[k] = t, x, y
        self.VX[k], self.VY[k], self.WX[k], self.WY[k], self.WZ[k] = vx, vy, wx, wy, wz
        self.AX[k], self.AY[k], self.MODE[k] = ax, ay, mode
        self.TEND[k] = t + duration
        self.VER[k] += 1
        if mode == STILL:
            self.BOX[k] = (x, x, y, y)
        else:
            self.BOX[k] = (*_parabola_range(x, vx, ax, duration), *_parabola_range(y, vy, ay, duration))

    # ------------------------------------------------------------------ scheduling
    def push(self, time: float, kind: int, k: int, other: int, ver_other: int) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (time, kind, self.seq, k, other, self.VER[k], ver_other))

    def schedule(self, k: int, t: float) -> None:
        """Queue every event ball k may take part in from time t on its current phase."""
        moving = self.MODE[k] != STILL
        if moving:
            self.push(self.TEND[k], _TRANSITION, k, -1, 0)
            self._schedule_cushions(k, t)
            if k == self.cue:
                self._schedule_head_string(k, t)
        self._schedule_pairs(k, t)

    def _schedule_pairs(self, k: int, t: float, partners=None) -> None:
        """Queue ball k's contacts with every other ball (or only with ``partners``).

        Partners are pruned by the swept boxes of both phases; the others' states at t are
        computed inline (the same closed form as ``state_at``), this being the hottest loop.
        """
        if t == self.T0[k]:  # scheduled as its phase starts: the state is the phase's own
            xk, yk, vxk, vyk = self.X[k], self.Y[k], self.VX[k], self.VY[k]
        else:
            xk, yk, vxk, vyk = self.state_at(k, t)[:4]
        axk, ayk = self.AX[k], self.AY[k]
        tk_end = self.TEND[k]
        reach = 2.0 * self.R
        bk0, bk1, bk2, bk3 = self.BOX[k]
        bk0, bk1, bk2, bk3 = bk0 - reach, bk1 + reach, bk2 - reach, bk3 + reach
        D2 = self.D2
        ON, MODE, BOX, TEND, VER = self.ON, self.MODE, self.BOX, self.TEND, self.VER
        T0, X, Y, VX, VY, AX, AY = self.T0, self.X, self.Y, self.VX, self.VY, self.AX, self.AY
        k_still = MODE[k] == STILL
        for j in range(len(ON)) if partners is None else partners:
            if j == k or not ON[j] or (k_still and MODE[j] == STILL):
                continue
            bj = BOX[j]
            if bj[0] > bk1 or bj[1] < bk0 or bj[2] > bk3 or bj[3] < bk2:
                continue
            horizon = min(tk_end, TEND[j]) - t
            if horizon <= 0.0:
                continue
            axj, ayj = AX[j], AY[j]
            if MODE[j] == STILL:
                xj, yj, vxj, vyj = X[j], Y[j], 0.0, 0.0
            else:
                tau = t - T0[j]
                vxj, vyj = VX[j] + axj * tau, VY[j] + ayj * tau
                xj = X[j] + (VX[j] + 0.5 * axj * tau) * tau
                yj = Y[j] + (VY[j] + 0.5 * ayj * tau) * tau
            dx, dy = xj - xk, yj - yk
            dvx, dvy = vxj - vxk, vyj - vyk
            dax, day = axj - axk, ayj - ayk
            c0 = dx * dx + dy * dy - D2
            c1 = 2.0 * (dx * dvx + dy * dvy)
            c2 = dvx * dvx + dvy * dvy + dx * dax + dy * day
            c3 = dvx * dax + dvy * day
            c4 = 0.25 * (dax * dax + day * day)
            tau = quartic_entry(c0, c1, c2, c3, c4, horizon)
            if tau != INF:
                self.push(t + tau, _BALL, k, j, VER[j])

    def _schedule_cushions(self, k: int, t: float) -> None:
        """Queue ball k's first contact with a cushion segment, a jaw tip or a pocket hole."""
        b0, b1, b2, b3 = self.BOX[k]
        i0, i1, i2, i3 = self.sim._open_box
        if i0 < b0 and b1 < i1 and i2 < b2 and b3 < i3:
            return  # the whole phase stays clear of every cushion, jaw and hole
        if t == self.T0[k]:
            x, y, vx, vy = self.X[k], self.Y[k], self.VX[k], self.VY[k]
        else:
            x, y, vx, vy = self.state_at(k, t)[:4]
        ax, ay = self.AX[k], self.AY[k]
        horizon = self.TEND[k] - t
        R = self.R
        best, kind, which = INF, -1, -1
        for i, (_, sx, sy, ux, uy, nx, ny, length, bb) in enumerate(self.sim._segments):
            if bb[0] > b1 or bb[1] < b0 or bb[2] > b3 or bb[3] < b2:
                continue
            c0 = nx * (x - sx) + ny * (y - sy) - R
            tau = quadratic_entry(c0, nx * vx + ny * vy, 0.5 * (nx * ax + ny * ay), min(horizon, best))
            if tau < best:
                px = x + (vx + 0.5 * ax * tau) * tau - sx
                py = y + (vy + 0.5 * ay * tau) * tau - sy
                if 0.0 <= ux * px + uy * py <= length:
                    best, kind, which = tau, _SEGMENT, i
        for i, (_, qx, qy, bb) in enumerate(self.sim._tips):
            if bb[0] > b1 or bb[1] < b0 or bb[2] > b3 or bb[3] < b2:
                continue
            tau = _point_entry(x - qx, y - qy, vx, vy, ax, ay, R * R, min(horizon, best))
            if tau < best:
                best, kind, which = tau, _TIP, i
        for i, (_, cx, cy, r, bb) in enumerate(self.sim._holes):
            if bb[0] > b1 or bb[1] < b0 or bb[2] > b3 or bb[3] < b2:
                continue
            tau = _point_entry(x - cx, y - cy, vx, vy, ax, ay, r * r, min(horizon, best))
            if tau < best:
                best, kind, which = tau, _HOLE, i
        if kind >= 0:
            self.push(t + best, kind, k, which, 0)

    def _schedule_head_string(self, k: int, after: float) -> None:
        """Queue the cue ball's next crossing of the head string strictly after ``after``."""
        horizon = self.TEND[k] - self.T0[k]
        c = self.X[k] - self.head_x
        b, a = self.VX[k], 0.5 * self.AX[k]
        roots = []
        if a == 0.0:
            if b != 0.0:
                roots.append(-c / b)
        else:
            disc = b * b - 4.0 * a * c
            if disc >= 0.0:
                sq = math.sqrt(disc)
                roots.extend(((-b - sq) / (2.0 * a), (-b + sq) / (2.0 * a)))
        lower = after - self.T0[k] + 1e-12
        hits = [r for r in roots if lower < r <= horizon]
        if hits:
            self.push(self.T0[k] + min(hits), _HEAD, k, -1, 0)

    # ------------------------------------------------------------------ main loop
    def run(self) -> ShotResult:
        sim, shot = self.sim, self.shot
        cue = self.cue
        vx, vy, wx, wy, wz = sim.strike_state(shot)
        self.log.append(self._strike_event())
        self.set_phase(cue, 0.0, self.X[cue], self.Y[cue], vx, vy, wx, wy, wz)
        self.schedule(cue, 0.0)
        max_events = sim.params.max_events
        processed = 0
        now = 0.0
        heap, VER, ON = self.heap, self.VER, self.ON
        while heap:
            time, kind, _, k, other, ver_k, ver_other = heapq.heappop(heap)
            if not ON[k] or VER[k] != ver_k:
                continue
            if kind == _BALL and (not ON[other] or VER[other] != ver_other):
                continue
            processed += 1
            if processed > max_events:
                raise RuntimeError(f"shot exceeded PhysicsParams.max_events={max_events}; "
                                   f"layout {dict(zip(self.nums, zip(self.start.X, self.start.Y)))} shot {shot}")
            now = time
            if kind == _TRANSITION:
                x, y, vx, vy, wx, wy, wz = self.state_at(k, time)
                # Slip ends exactly at the end of a sliding phase: roll from there, never re-slide
                # on round-off. A rolling phase ends with the ball stopped.
                self.set_phase(k, time, x, y, vx, vy, wx, wy, wz, force_roll=self.MODE[k] == SLIDING)
                self.schedule(k, time)
            elif kind == _BALL:
                self._ball_ball(k, other, time)
            elif kind == _SEGMENT or kind == _TIP:
                self._ball_cushion(k, kind, other, time)
            elif kind == _HOLE:
                self._drop(k, other, time)
            else:
                x, y, vx = self.state_at(k, time)[:3]
                self.log.append(ev.HeadStringCrossing(time, self.nums[k], (x, y), vx > 0.0))
                self._schedule_head_string(k, time)
        return self._result(now)

    # ------------------------------------------------------------------ contacts
    def _ball_ball(self, k: int, j: int, t: float) -> None:
        sk = self.state_at(k, t)
        sj = self.state_at(j, t)
        nx, ny = sj[0] - sk[0], sj[1] - sk[1]
        dist = math.hypot(nx, ny)
        nx, ny = nx / dist, ny / dist
        closing = (sk[2] - sj[2]) * nx + (sk[3] - sj[3]) * ny
        if closing <= 0.0:
            # The gap closed at a grazing root without closing: nothing to resolve.
            self._schedule_pairs(k, t + _RETRY_DT, (j,))
            return
        p = self.sim.params
        ((vxk, vyk), wk), ((vxj, vyj), wj) = ball_ball_impulse(
            (sk[2], sk[3]), sk[4:], (sj[2], sj[3]), sj[4:], nx, ny, self.R, p.ball_restitution,
            p.ball_friction_min, p.ball_friction_extra, p.ball_friction_decay)
        # Balls must leave a contact at least _MIN_SEPARATION apart in speed (see there).
        still_closing = (vxk - vxj) * nx + (vyk - vyj) * ny
        if still_closing > -_MIN_SEPARATION:
            push = 0.5 * (still_closing + _MIN_SEPARATION)
            vxk, vyk, vxj, vyj = vxk - push * nx, vyk - push * ny, vxj + push * nx, vyj + push * ny
        first, second = (k, j) if sk[2] ** 2 + sk[3] ** 2 >= sj[2] ** 2 + sj[3] ** 2 else (j, k)
        s_first, s_second = (sk, sj) if first == k else (sj, sk)
        self.log.append(ev.BallBall(t, self.nums[first], self.nums[second],
                                    (s_first[0], s_first[1]), (s_second[0], s_second[1])))
        self.set_phase(k, t, sk[0], sk[1], vxk, vyk, *wk)
        self.set_phase(j, t, sj[0], sj[1], vxj, vyj, *wj)
        self.schedule(k, t)
        self.schedule(j, t)

    def _ball_cushion(self, k: int, kind: int, which: int, t: float) -> None:
        x, y, vx, vy, wx, wy, wz = self.state_at(k, t)
        if kind == _SEGMENT:
            seg_id, _, _, _, _, nx, ny, _, _ = self.sim._segments[which]
        else:
            seg_id, qx, qy, _ = self.sim._tips[which]
            nx, ny = x - qx, y - qy
            norm = math.hypot(nx, ny)
            nx, ny = nx / norm, ny / norm
        closing = -(vx * nx + vy * ny)  # (nx, ny) points from the cushion to the ball
        if closing <= 0.0:
            self._schedule_cushions(k, t + _RETRY_DT)
            return
        sim = self.sim
        vx, vy, wx, wy, wz = cushion_impulse(vx, vy, wx, wy, wz, nx, ny, self.R, sim._sin_nose, sim._cos_nose,
                                             sim.params.cushion_restitution, sim.params.cushion_friction)
        leaving = vx * nx + vy * ny
        if leaving < _MIN_SEPARATION:
            vx, vy = vx + (_MIN_SEPARATION - leaving) * nx, vy + (_MIN_SEPARATION - leaving) * ny
        start = self.start
        was_frozen = (seg_id in start.frozen_segments[k]
                      and math.hypot(x - start.X[k], y - start.Y[k]) <= self.sim.params.frozen_tolerance)
        self.log.append(ev.BallCushion(t, self.nums[k], seg_id, (x, y), was_frozen))
        self.set_phase(k, t, x, y, vx, vy, wx, wy, wz)
        self.schedule(k, t)

    def _drop(self, k: int, which: int, t: float) -> None:
        x, y = self.state_at(k, t)[:2]
        pocket_id = self.sim._holes[which][0]
        if self.record:
            self._close_phase(k, t)
        self.ON[k] = False
        self.VER[k] += 1
        self.pocketed[self.nums[k]] = pocket_id
        self.log.append(ev.Pocketed(t, self.nums[k], pocket_id, (x, y)))

    # ------------------------------------------------------------------ bookkeeping
    def _strike_event(self) -> ev.Strike:
        sim, shot, start = self.sim, self.shot, self.start
        miscue = math.hypot(shot.side, shot.vertical) > sim.params.miscue_limit
        return ev.Strike(0.0, 0, (start.X[start.cue], start.Y[start.cue]), shot.speed, shot.angle_deg,
                         shot.side, shot.vertical, miscue, start.cushion_frozen, start.cue_frozen)

    def _rest_time(self, last_event: float) -> float:
        """When the last translation and the last spin (above the rest threshold) stop."""
        end = last_event
        rest_spin = self.sim.params.rest_spin
        for k in range(len(self.nums)):
            if self.ON[k]:
                end = max(end, self.T0[k] + max(0.0, abs(self.WZ[k]) - rest_spin) / self.spin_dec)
        return end

    def _result(self, last_event: float) -> ShotResult:
        duration = self._rest_time(last_event)
        self.log.append(ev.Rest(duration))
        positions = {self.nums[k]: (self.X[k], self.Y[k]) for k in range(len(self.nums)) if self.ON[k]}
        table = self.sim.table
        for ball, (x, y) in positions.items():
            # Table validation makes this impossible; a ball escaping is a simulator bug, and
            # it is reported rather than handed to the rules as a position.
            if not table.inside_outline(x, y):
                raise RuntimeError(f"ball {ball} came to rest outside the cushion outline at "
                                   f"({x:.4f}, {y:.4f}); layout {self.start} shot {self.shot}")
        paths = None
        if self.record:
            for k in range(len(self.nums)):
                if self.ON[k]:
                    self._close_phase(k, duration)
            paths = {self.nums[k]: tuple(self.phases[k]) for k in range(len(self.nums))}
        return ShotResult(positions, dict(self.pocketed), tuple(self.log), duration, self.shot, paths)

    def _close_phase(self, k: int, t: float) -> None:
        if t <= self.T0[k]:
            return  # a phase replaced at the instant it began leaves nothing to draw
        self.phases[k].append(MotionPhase(self.T0[k], t, _MODE_NAMES[self.MODE[k]], (self.X[k], self.Y[k]),
                                          (self.VX[k], self.VY[k]), (self.AX[k], self.AY[k])))


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


def _point_entry(dx: float, dy: float, vx: float, vy: float, ax: float, ay: float,
                 r2: float, horizon: float) -> float:
    """First time the centre, offset (dx, dy) from a fixed point, comes within sqrt(r2) of it."""
    c0 = dx * dx + dy * dy - r2
    c1 = 2.0 * (dx * vx + dy * vy)
    c2 = vx * vx + vy * vy + dx * ax + dy * ay
    c3 = vx * ax + vy * ay
    c4 = 0.25 * (ax * ax + ay * ay)
    return quartic_entry(c0, c1, c2, c3, c4, horizon)


def _parabola_range(p: float, v: float, a: float, duration: float) -> tuple[float, float]:
    """Min and max of p + v t + a t^2 / 2 over t in [0, duration]."""
    end = p + (v + 0.5 * a * duration) * duration
    lo, hi = (p, end) if p <= end else (end, p)
    if a != 0.0:
        t_turn = -v / a
        if 0.0 < t_turn < duration:
            turn = p + 0.5 * v * t_turn
            lo, hi = min(lo, turn), max(hi, turn)
    return lo, hi
