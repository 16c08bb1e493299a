"""Drawing geometry shared by the pygame and matplotlib renderers, in table metres.

Both renderers show the table from above with x (head to foot) left to right and y downwards:
the y = 0 ("left") rail is at the top. That is the view of a player standing at the head
end, so the picture is not mirrored. A ball off the bed (in a jump, on a rail top) is drawn
over its shadow, raised and enlarged by its height (``lifted``); its path is dashed there.
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
# A ball off the bed is drawn this many metres up the picture per metre of height, and
# larger as if seen by an eye this high above the bed (see ``lifted``). A 10 cm jump then
# shows the ball two diameters up the picture from its shadow, a fifth larger.
LIFT_SHIFT = 1.0
EYE_HEIGHT = 0.5


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


def lifted(point: Point, height: float) -> tuple[Point, float]:
    """Where a ball whose lowest point is ``height`` metres above the bed is drawn, and the
    factor its radius is drawn at.

    The pictures are seen from above and a little from the bottom edge: a ball off the bed
    rises up the picture by ``LIFT_SHIFT`` times its height and grows as if nearer an eye
    ``EYE_HEIGHT`` above the bed, while its shadow stays on the bed at ``point``. A ball on
    the bed (height 0) is drawn at ``point``, at its own size.
    """
    return (point[0], point[1] - LIFT_SHIFT * height), 1.0 + height / EYE_HEIGHT


def path_pieces(trajectory: Sequence | np.ndarray) -> list[tuple[np.ndarray, bool]]:
    """A ball's path cut where it leaves or comes back to the bed: (xy, off_bed) pairs in
    order, each ``xy`` an (n, 2) array starting where the previous piece ended.

    ``off_bed`` is true through the air and along a rail top: in motion phases, an
    ``"airborne"`` phase or one above the bed; in rows of (t, x, y, z), a step with either
    end above the bed (rows of (t, x, y) are all on the bed).
    """
    if len(trajectory) and hasattr(trajectory[0], "position_at"):
        return _phase_pieces(trajectory)
    rows = np.asarray(trajectory, dtype=float)
    if rows.ndim != 2 or rows.shape[1] not in (3, 4):
        raise ValueError(f"a trajectory is rows of (t, x, y), rows of (t, x, y, z) or motion phases; "
                         f"got shape {rows.shape}")
    xy = rows[:, 1:3]
    if rows.shape[1] == 3 or len(rows) < 2:
        return [(xy, False)] if len(rows) else []
    above = rows[:, 3] > 0.0
    steps = above[:-1] | above[1:]
    pieces, start = [], 0
    for i in range(1, len(steps) + 1):
        if i == len(steps) or steps[i] != steps[start]:
            pieces.append((xy[start:i + 1], bool(steps[start])))
            start = i
    return pieces


def trajectory_items(trajectories: Mapping | None) -> Iterable[tuple[int, list[tuple[np.ndarray, bool]]]]:
    """(ball, path pieces) pairs (``path_pieces``) for the paths worth drawing: at least two
    points."""
    for ball, trajectory in (trajectories or {}).items():
        pieces = path_pieces(trajectory)
        if sum(len(xy) for xy, _ in pieces) - len(pieces) + 1 >= 2:
            yield int(ball), pieces


def off_bed(phase) -> bool:
    """Whether a motion phase is off the bed: in the air or on a rail top."""
    return phase.mode == "airborne" or phase.height > 0.0


def _phase_pieces(phases: Sequence) -> list[tuple[np.ndarray, bool]]:
    pieces: list[tuple[list, bool]] = []
    last = phases[0].position
    for phase in phases:
        steps = max(1, math.ceil((phase.t1 - phase.t0) / PATH_DT))
        points = [phase.position_at(t) for t in np.linspace(phase.t0, phase.t1, steps + 1)[1:]]
        above = off_bed(phase)
        if pieces and pieces[-1][1] == above:
            pieces[-1][0].extend(points)
        else:
            pieces.append(([last] + points, above))
        last = points[-1]
    return [(np.asarray(points, dtype=float), above) for points, above in pieces]


def dashes(xy: np.ndarray, on: float, off: float) -> list[np.ndarray]:
    """The polyline ``xy`` cut into dashes ``on`` long with gaps ``off`` long (same units),
    measured along the line from its start; each dash is an (m, 2) array of its corners."""
    xy = np.asarray(xy, dtype=float)
    if len(xy) < 2:
        return []
    along = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(xy, axis=0).T))])
    total, period = along[-1], on + off
    out = []
    for start in np.arange(0.0, total, period):
        end = min(start + on, total)
        inside = (along > start) & (along < end)
        ends = [np.array([np.interp(s, along, xy[:, 0]), np.interp(s, along, xy[:, 1])]) for s in (start, end)]
        out.append(np.vstack([ends[0], xy[inside], ends[1]]))
    return out


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
