"""Drawing geometry shared by the pygame and matplotlib renderers, in table metres.

Both renderers show the table from above with x (head to foot) left to right and y downwards:
the y = 0 ("left") rail is at the top. That is the view of a player standing at the head
end, so the picture is not mirrored.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from poolgym.table import Point, Table

# Cushion rubber from the nose to the wooden rail, then the rail itself: together wide enough
# to hold the side-pocket holes, which reach about 0.135 m behind the cushion nose.
CUSHION_WIDTH = 0.05
RAIL_WIDTH = 0.10
# Trajectories are parabolas between phase changes; sampled this finely they draw smoothly.
PATH_DT = 1.0 / 120.0


def outer_margin() -> float:
    """Distance from the cushion noses to the outer edge of the wooden rail."""
    return CUSHION_WIDTH + RAIL_WIDTH


def diamonds(table: Table) -> list[Point]:
    """Sight marks on the rail tops: every eighth of the length, every quarter of the width."""
    mid = CUSHION_WIDTH + RAIL_WIDTH / 2.0
    L, W = table.length, table.width
    marks = []
    for i in (1, 2, 3, 5, 6, 7):  # the side pockets sit at the fourth
        marks += [(i * L / 8.0, -mid), (i * L / 8.0, W + mid)]
    for j in (1, 2, 3):
        marks += [(-mid, j * W / 4.0), (L + mid, j * W / 4.0)]
    return marks


def outline(table: Table) -> list[Point]:
    """Vertices of the playing region: the cushion noses, jaws and pocket backs, in order."""
    return [s.a for s in table.boundary]


def path_xy(trajectory: Sequence | np.ndarray) -> np.ndarray:
    """A ball's path as an (n, 2) array of (x, y).

    ``trajectory`` is either rows of (t, x, y), as ``ShotResult.sample_path`` gives, or the
    ball's motion phases from ``ShotResult.trajectories``.
    """
    if len(trajectory) and hasattr(trajectory[0], "position_at"):
        return _sample_phases(trajectory)
    rows = np.asarray(trajectory, dtype=float)
    if rows.ndim != 2 or rows.shape[1] != 3:
        raise ValueError(f"a trajectory is rows of (t, x, y) or motion phases; got shape {rows.shape}")
    return rows[:, 1:3]


def trajectory_items(trajectories: Mapping | None) -> Iterable[tuple[int, np.ndarray]]:
    """(ball, path) pairs for the paths worth drawing: at least two points."""
    for ball, trajectory in (trajectories or {}).items():
        xy = path_xy(trajectory)
        if len(xy) >= 2:
            yield int(ball), xy


def _sample_phases(phases: Sequence) -> np.ndarray:
    points = [phases[0].position]
    for phase in phases:
        steps = max(1, math.ceil((phase.t1 - phase.t0) / PATH_DT))
        points += [phase.position_at(t) for t in np.linspace(phase.t0, phase.t1, steps + 1)[1:]]
    return np.asarray(points, dtype=float)


def in_hand_spot(table: Table, positions: Mapping[int, Point]) -> Point:
    """Where to show a cue ball that is in hand: the head spot, or the free point nearest to
    it in the kitchen (a grid two and a half ball widths apart) when a ball lies there.
    Only a marker: the player places the cue ball anywhere its zone allows."""
    r = table.ball_radius
    hx, hy = table.head_spot
    step = 5.0 * r
    others = [p for b, p in positions.items() if b != 0]
    spots = [(hx - i * step, hy + j * step) for i in range(0, 4) for j in range(-3, 4)]
    spots.sort(key=lambda p: math.hypot(p[0] - hx, p[1] - hy))
    for x, y in spots:
        if r < x and r < y < table.width - r and all(math.hypot(x - ox, y - oy) > 2.2 * r for ox, oy in others):
            return (x, y)
    return (hx, hy)
