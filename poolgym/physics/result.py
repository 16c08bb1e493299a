"""What a simulated shot returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from poolgym import events as ev
from poolgym.physics.shot import Shot

Point = tuple[float, float]


@dataclass(frozen=True)
class ShotResult:
    """The outcome of one shot.

    - ``positions``: ball -> (x, y) for every ball left on the table, at rest.
    - ``pocketed``: ball -> pocket id, in the order the balls dropped.
    - ``events``: the typed event log in time order (``poolgym.events``).
    - ``duration``: simulated seconds from the strike until everything is at rest.
    - ``shot``: the shot as executed (after execution noise).
    - ``trajectories``: ball -> array of rows (t, x, y), only when requested.
    """

    positions: dict[int, Point]
    pocketed: dict[int, str]
    events: tuple[ev.Event, ...]
    duration: float
    shot: Shot
    trajectories: dict[int, np.ndarray] | None = field(default=None, repr=False)

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
