"""What a simulated shot returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from poolgym import events as ev
from poolgym.physics.shot import Shot

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class MotionPhase:
    """One stretch of a ball's path under constant acceleration, from ``t0`` to ``t1``.

    ``mode`` is ``"sliding"``, ``"rolling"``, ``"still"`` or ``"airborne"`` (a flight under
    gravity); ``position`` and ``velocity`` are at ``t0``. The path is exact: p(t) = p0 +
    v0 (t - t0) + a (t - t0)^2 / 2. ``height``, ``vertical_velocity`` and
    ``vertical_acceleration`` give the height of the ball's lowest point above the bed the
    same way: 0 on the bed, the cushion height on a rail top, a parabola in the air.
    """

    t0: float
    t1: float
    mode: str
    position: Point
    velocity: Point
    acceleration: Point
    height: float = 0.0
    vertical_velocity: float = 0.0
    vertical_acceleration: float = 0.0

    def position_at(self, t: float) -> Point:
        tau = t - self.t0
        (x, y), (vx, vy), (ax, ay) = self.position, self.velocity, self.acceleration
        return (x + (vx + 0.5 * ax * tau) * tau, y + (vy + 0.5 * ay * tau) * tau)

    def height_at(self, t: float) -> float:
        """Height of the ball's lowest point above the bed at time t."""
        tau = t - self.t0
        return self.height + (self.vertical_velocity + 0.5 * self.vertical_acceleration * tau) * tau

    def velocity_at(self, t: float) -> Point:
        tau = t - self.t0
        return (self.velocity[0] + self.acceleration[0] * tau, self.velocity[1] + self.acceleration[1] * tau)


@dataclass(frozen=True)
class ShotResult:
    """The outcome of one shot.

    - ``positions``: ball -> (x, y) for every ball left on the table, at rest.
    - ``off_table``: ball -> (x, y) where it left the table (WPA 8.5), for each ball
      driven off it; those balls are neither in ``positions`` nor in ``pocketed``.
    - ``pocketed``: ball -> pocket id, in the order the balls dropped.
    - ``events``: the typed event log in time order (``poolgym.events``).
    - ``duration``: simulated seconds from the strike until everything is at rest.
    - ``shot``: the shot as executed (after execution noise).
    - ``trajectories``: ball -> its motion phases in time order, only when requested
      (``simulate(..., trajectories=True)``); ``sample_path`` turns them into points.
    - ``log``: the simulator's own form of the log (``poolgym.physics.row_log.RowLog``),
      from which ``events`` is decoded on first use (pass ``events=None`` with it); the
      rules read their facts from it without decoding (``poolgym.events.log_facts``).
      None for a result built from its events.
    """

    positions: dict[int, Point]
    pocketed: dict[int, str]
    events: tuple[ev.Event, ...] | None
    duration: float
    shot: Shot
    trajectories: dict[int, tuple[MotionPhase, ...]] | None = field(default=None, repr=False)
    off_table: dict[int, Point] = field(default_factory=dict)
    log: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.events is None:
            if self.log is None:
                raise ValueError("a ShotResult needs its events or the simulator's log of them")
            # Left unset: ``__getattr__`` decodes it from ``log`` when first read.
            object.__delattr__(self, "events")

    @classmethod
    def deferred(cls, build: Callable[[], "ShotResult"]) -> "ShotResult":
        """A result whose fields are those of ``build()``, called when any is first read
        (then never again): for a batched env, whose rules read compiled facts, not the
        result, which only ``PoolEnv.last_shot`` and the move listeners may ask for. Read,
        compared, copied or pickled, it is ``build()``'s result."""
        new = object.__new__(cls)
        new.__dict__["_build"] = build
        return new

    def __getstate__(self) -> dict:
        if "_build" in self.__dict__:
            self._fill()
        return self.__dict__

    def _fill(self) -> None:
        """Set a deferred result's fields from its ``build()``."""
        state = self.__dict__
        built = state["_build"]()
        del state["_build"]
        state.update(built.__dict__)

    def __getattr__(self, name: str):
        # Only reached for an attribute not set: every field of a deferred result not built
        # yet, and ``events`` of a result built from its log.
        if "_build" in self.__dict__:
            self._fill()
            return getattr(self, name)
        if name == "events":
            log = self.__dict__.get("log")
            if log is not None:
                events = log.events()
                object.__setattr__(self, "events", events)
                return events
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def event_log(self):
        """What the rules judge: ``log`` when the simulator wrote one (its facts read
        without decoding the events), else ``events``."""
        return self.log if self.log is not None else self.events

    @property
    def first_contact(self) -> int | None:
        """The first ball the cue ball touched, or None."""
        return ev.first_contact(self.events)

    @property
    def miscue(self) -> bool:
        """Whether the tip offset was beyond the miscue limit."""
        return bool(self.events) and isinstance(self.events[0], ev.Strike) and self.events[0].miscue

    @property
    def cushion_after_contact(self) -> frozenset[int]:
        """Balls that reached a cushion after the cue ball's first contact."""
        return ev.cushion_after_contact(self.events)

    def sample_path(self, ball: int, dt: float = 1.0 / 60.0, height: bool = False) -> np.ndarray:
        """Rows (t, x, y) along ``ball``'s path every ``dt`` seconds and at every phase change;
        (t, x, y, z) with ``height``, z the height of the ball's lowest point above the bed."""
        if self.trajectories is None:
            raise ValueError("this result has no trajectories: simulate(..., trajectories=True)")
        if ball not in self.trajectories:
            raise ValueError(f"ball {ball} was not in this shot; balls are {sorted(self.trajectories)}")
        if not (math.isfinite(dt) and dt > 0):
            raise ValueError(f"dt must be a positive number of seconds, got {dt!r}")
        rows = []
        for n, phase in enumerate(self.trajectories[ball]):
            span = phase.t1 - phase.t0
            steps = max(1, int(math.ceil(span / dt)))
            # Each phase starts where the previous one ended: skip the repeated point.
            for i in range(0 if n == 0 else 1, steps + 1):
                t = phase.t0 + min(i * dt, span)
                if height:
                    rows.append((t, *phase.position_at(t), phase.height_at(t)))
                else:
                    rows.append((t, *phase.position_at(t)))
        return np.asarray(rows, dtype=float).reshape(-1, 4 if height else 3)
