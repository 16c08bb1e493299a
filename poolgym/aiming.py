"""Plane geometry of aiming: ghost balls, clear paths, mirrored cushions and a closed-form
estimate of how likely a shot is to drop.

The estimate is what the bot uses to judge a position without simulating it (the next
shot's quality); the shots it actually plays are always checked with the simulator.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from poolgym.table import Table

Point = tuple[float, float]

# Cut angles beyond this cannot be played reliably (the contact is a near-miss).
MAX_CUT_DEG = 80.0
# A side pocket refuses balls arriving more than this far off its axis.
SIDE_POCKET_MAX_APPROACH_DEG = 70.0
# Part of a ball radius the jaws take from a pocket's usable half-width.
JAW_MARGIN_RADII = 0.6


def distance_to_segment(p: Point, a: Point, b: Point) -> float:
    """Distance from ``p`` to the segment ``a``-``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    if length2 == 0.0:
        return math.dist(p, a)
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def path_is_clear(a: Point, b: Point, balls: Iterable[Point], radius: float) -> bool:
    """Whether a ball rolling from ``a`` to ``b`` passes every ball in ``balls``
    (``distance_to_segment`` of each at least two radii, less 1e-6 m)."""
    limit = 2.0 * radius - 1e-6
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    # A ball outside the segment's box grown by the limit (and a margin far above the
    # rounding of the distance) is clear of it: only the others need the distance, which is
    # distance_to_segment's formula term for term.
    reach = limit + 1e-9
    x0, x1 = min(ax, bx) - reach, max(ax, bx) + reach
    y0, y1 = min(ay, by) - reach, max(ay, by) + reach
    for p in balls:
        px, py = p
        if px < x0 or px > x1 or py < y0 or py > y1:
            continue
        if length2 == 0.0:
            distance = math.dist(p, a)
        else:
            t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
            distance = math.hypot(px - ax - t * dx, py - ay - t * dy)
        if distance < limit:
            return False
    return True


def aim_point(table: Table, pocket_id: str) -> Point:
    """Where a ball is sent to drop into a pocket: the middle of its mouth."""
    return _pocket_aim(table, pocket_id)[0]


def pocket_axis(table: Table, pocket_id: str) -> Point:
    """Unit vector pointing into the pocket along its axis."""
    return _pocket_aim(table, pocket_id)[1]


def _pocket_aim(table: Table, pocket_id: str) -> tuple[Point, Point, float, bool]:
    """``Table.pocket_aims`` of one pocket (an unknown id raises ``Table.pocket``'s error)."""
    aim = table.pocket_aims.get(pocket_id)
    if aim is None:
        table.pocket(pocket_id)
    return aim


def ghost_ball(ball: Point, target: Point, radius: float) -> Point:
    """Where the cue-ball centre must be at contact to send ``ball`` straight at ``target``."""
    dx, dy = target[0] - ball[0], target[1] - ball[1]
    d = math.hypot(dx, dy) or 1.0
    return (ball[0] - 2.0 * radius * dx / d, ball[1] - 2.0 * radius * dy / d)


def direction_deg(a: Point, b: Point) -> float:
    """The stroke angle (degrees, table frame) from ``a`` towards ``b``."""
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))


def cut_angle_deg(cue: Point, ghost: Point, ball: Point, target: Point) -> float:
    """Angle between the cue ball's path to the ghost ball and the object ball's path."""
    ux, uy = ghost[0] - cue[0], ghost[1] - cue[1]
    vx, vy = target[0] - ball[0], target[1] - ball[1]
    nu, nv = math.hypot(ux, uy), math.hypot(vx, vy)
    if nu == 0.0 or nv == 0.0:
        return 0.0
    cos = max(-1.0, min(1.0, (ux * vx + uy * vy) / (nu * nv)))
    return math.degrees(math.acos(cos))


def stroke_per_object_ball_deg(cue: Point, ghost: Point, ball: Point, target: Point, radius: float) -> float:
    """Degrees the stroke turns per degree the object ball's departure turns, near the
    ghost-ball line from ``cue`` to ``ghost`` (``ball`` sent towards ``target``): turning
    the stroke counter-clockwise moves the contact point so the line of centres, and the
    object ball with it, turns clockwise, by distance / (2R cos cut) times as much. The
    cosine is held at 0.2 or more (past a 78 degree cut the linear relation breaks down)
    and the distance at R or more."""
    cut = math.radians(cut_angle_deg(cue, ghost, ball, target))
    return -2.0 * radius * max(math.cos(cut), 0.2) / max(math.dist(cue, ghost), radius)


def rail_lines(table: Table) -> tuple[tuple[str, int, float], ...]:
    """The lines a ball centre bounces off at each rail: (name, axis, coordinate), where
    axis 0 means the line x = coordinate and 1 the line y = coordinate."""
    R = table.ball_radius
    return (("left", 1, R), ("right", 1, table.width - R),
            ("head", 0, R), ("foot", 0, table.length - R))


def mirror(point: Point, axis: int, coordinate: float) -> Point:
    """``point`` reflected in the line of ``rail_lines``."""
    if axis == 0:
        return (2.0 * coordinate - point[0], point[1])
    return (point[0], 2.0 * coordinate - point[1])


def bounce_point(a: Point, mirrored_b: Point, axis: int, coordinate: float) -> Point | None:
    """Where the straight line from ``a`` to a mirrored point crosses the rail line."""
    da = a[axis] - coordinate
    db = mirrored_b[axis] - coordinate
    if da * db >= 0.0:
        return None
    t = da / (da - db)
    return (a[0] + t * (mirrored_b[0] - a[0]), a[1] + t * (mirrored_b[1] - a[1]))


def on_rail(table: Table, point: Point, margin: float) -> bool:
    """Whether a bounce at ``point`` hits straight cushion, ``margin`` clear of every mouth."""
    return all(math.dist(point, p.mouth_centre) > 0.5 * max(table.corner_mouth, table.side_mouth) + margin
               for p in table.pockets)


def pot_chance(table: Table, cue: Point, ball: Point, pocket_id: str,
               others: Mapping[int, Point], sigma_deg: float) -> float:
    """Closed-form chance that a ghost-ball shot pots ``ball`` in ``pocket_id`` when the aim
    has Gaussian error ``sigma_deg``; 0 when a path is blocked or the cut is too thin.

    ``others`` are the balls that can block (neither the cue ball nor ``ball``). The object
    ball's error is the aim error scaled by d1 / (2 R cos(cut)), and the pocket accepts an
    error up to its usable half-width over the distance to it.
    """
    return chance_within(aim_tolerance(table, cue, ball, pocket_id, list(others.values())), sigma_deg)


def aim_tolerance(table: Table, cue: Point, ball: Point, pocket_id: str, blockers: Sequence[Point]) -> float:
    """The aim error (radians) a ghost-ball shot from ``cue`` can take and still pot ``ball``
    in ``pocket_id`` (``pot_chance``'s model); 0 when a path is blocked by one of
    ``blockers`` or the cut is too thin. One tolerance serves every noise level
    (``chance_within``)."""
    tolerance, ghost, target = open_tolerance(table, cue, ball, pocket_id)
    if tolerance == 0.0 or not paths_are_clear(cue, ghost, ball, target, blockers, table.ball_radius):
        return 0.0
    return tolerance


def open_tolerance(table: Table, cue: Point, ball: Point, pocket_id: str) -> tuple[float, Point, Point]:
    """``aim_tolerance`` before its path checks: (the tolerance if both paths are clear, the
    ghost ball, the aim point). A caller after the best of many pots checks the paths
    (``paths_are_clear``) only of those that would beat it."""
    R = table.ball_radius
    target = _pocket_aim(table, pocket_id)[0]
    ghost = ghost_ball(ball, target, R)
    d1 = math.dist(cue, ghost)
    cut = cut_angle_deg(cue, ghost, ball, target)
    if cut > MAX_CUT_DEG or d1 < 1e-6:
        return 0.0, ghost, target
    return (tolerance_of(cut, d1, math.dist(ball, target), usable_half_width(table, pocket_id, ball, target), R),
            ghost, target)


def paths_are_clear(cue: Point, ghost: Point, ball: Point, target: Point, blockers: Sequence[Point],
                    radius: float) -> bool:
    """Whether a ghost-ball shot's two paths, the cue ball's to the ghost ball and the object
    ball's to the aim point, pass every ball in ``blockers``."""
    return path_is_clear(cue, ghost, blockers, radius) and path_is_clear(ball, target, blockers, radius)


def tolerance_of(cut_deg: float, d1: float, d2: float, half_width: float, radius: float) -> float:
    """``aim_tolerance`` from its parts, for a shot whose paths are clear: the cut angle
    (degrees), the cue ball's travel to the ghost ball ``d1`` and the object ball's to the
    pocket ``d2`` (metres), the pocket's ``usable_half_width``; 0 when the cut is too thin,
    ``d1`` vanishes or the pocket shows no usable width."""
    if cut_deg > MAX_CUT_DEG or d1 < 1e-6 or half_width <= 0.0:
        return 0.0
    tolerance = math.atan2(half_width, max(d2, radius))
    return tolerance * 2.0 * radius * math.cos(math.radians(cut_deg)) / d1


def chance_within(tolerance: float, sigma_deg: float) -> float:
    """The chance that a Gaussian aim error of ``sigma_deg`` stays within ``tolerance``
    radians either side (0 for a tolerance of 0)."""
    return math.erf(tolerance / chance_divisor(sigma_deg))


def chance_divisor(sigma_deg: float) -> float:
    """``chance_within(t, sigma_deg)`` is ``math.erf(t / chance_divisor(sigma_deg))``: for
    callers that weigh many tolerances under one error."""
    return math.radians(max(sigma_deg, 1e-6)) * math.sqrt(2.0)


def usable_half_width(table: Table, pocket_id: str, ball: Point, target: Point) -> float:
    """How far off the pocket's centre line a ball may arrive and still drop: the mouth's
    half-width seen from the ball's direction, less the jaws' margin."""
    _, (ax, ay), mouth, side = _pocket_aim(table, pocket_id)
    dx, dy = target[0] - ball[0], target[1] - ball[1]
    d = math.hypot(dx, dy) or 1.0
    approach = math.degrees(math.acos(max(-1.0, min(1.0, (dx * ax + dy * ay) / d))))
    if side and approach > SIDE_POCKET_MAX_APPROACH_DEG:
        return 0.0
    return 0.5 * mouth * math.cos(math.radians(approach)) - JAW_MARGIN_RADII * table.ball_radius
