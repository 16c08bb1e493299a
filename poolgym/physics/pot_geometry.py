"""The closed-form geometry of many ghost-ball pots at once, compiled: what the choice modes'
pot slots (``poolgym.envs.candidates``) measure of every (ball, pocket) pot of a position.

Each formula is ``poolgym.aiming``'s, term for term and in the same order (``ghost_ball``,
``cut_angle_deg``, ``usable_half_width``, ``path_is_clear``, ``tolerance_of``), with
CPython's ``math.hypot`` (``poolgym.physics.hypot``) and its degree conversions (a product
with 180 / pi or pi / 180), so that every value equals the interpreted one to the last bit.
"""

from __future__ import annotations

import math

import numpy as np

from poolgym.physics.hypot import hypot
from poolgym.physics.jit import kernel

# CPython's math.degrees and math.radians: x * (180 / pi) and x * (pi / 180).
_RAD_TO_DEG = 180.0 / math.pi
_DEG_TO_RAD = math.pi / 180.0
# poolgym.aiming's constants (the same values; aiming imports nothing compiled).
MAX_CUT_DEG = 80.0
SIDE_POCKET_MAX_APPROACH_DEG = 70.0
JAW_MARGIN_RADII = 0.6

# The columns of ``pot_geometry``'s result, one row per pot.
(GHOST_X, GHOST_Y, CUT, D1, D2, HALF_WIDTH, VISIBLE, CUE_BLOCKED, BALL_BLOCKED, TOLERANCE,
 CUE_X, CUE_Y) = range(12)
COLUMNS = 12
# The entries of its ``place`` argument: the cue ball in hand (1) or not (0); the default
# placement's distance behind the ghost ball and the cosine and sine of its turn
# (``poolgym.envs.candidates.placement`` at (0, 0)); the zone's largest x and y.
IN_HAND, PLACE_METRES, PLACE_COS, PLACE_SIN, ZONE_X_HIGH, ZONE_Y_HIGH = range(6)


@kernel()
def _is_free(x, y, xs, ys, cue_index, clearance):
    """Whether (x, y) is more than ``clearance`` from every ball but the cue ball."""
    for k in range(len(xs)):
        if k != cue_index and not hypot(x - xs[k], y - ys[k]) > clearance:
            return False
    return True


@kernel()
def _into_zone(x, y, xs, ys, cue_index, radius, x_high, y_high):
    """``poolgym.envs.candidates._into_zone``: (x, y) moved into the zone, then off the
    balls it would overlap when a free spot lies a little further across the table."""
    x = min(max(x, radius), x_high)
    y = min(max(y, radius), y_high)
    clearance = 2 * radius + 1e-4
    others = len(xs) - (1 if cue_index >= 0 else 0)
    if others == 0 or _is_free(x, y, xs, ys, cue_index, clearance):
        return x, y
    for step in range(1, 9):
        for sign in (1.0, -1.0):
            cy = min(max(y + sign * step * radius, radius), y_high)
            if _is_free(x, cy, xs, ys, cue_index, clearance):
                return x, cy
    return x, y


@kernel()
def _cut_angle_deg(cx, cy, gx, gy, bx, by, tx, ty):
    """``poolgym.aiming.cut_angle_deg``."""
    ux, uy = gx - cx, gy - cy
    vx, vy = tx - bx, ty - by
    nu, nv = hypot(ux, uy), hypot(vx, vy)
    if nu == 0.0 or nv == 0.0:
        return 0.0
    cos = max(-1.0, min(1.0, (ux * vx + uy * vy) / (nu * nv)))
    return math.acos(cos) * _RAD_TO_DEG


@kernel()
def _path_is_clear(ax, ay, bx, by, xs, ys, skip, radius):
    """``poolgym.aiming.path_is_clear`` over the balls ``xs``, ``ys`` but those flagged in
    ``skip``."""
    limit = 2.0 * radius - 1e-6
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    reach = limit + 1e-9
    x0, x1 = min(ax, bx) - reach, max(ax, bx) + reach
    y0, y1 = min(ay, by) - reach, max(ay, by) + reach
    for k in range(len(xs)):
        if skip[k]:
            continue
        px, py = xs[k], ys[k]
        if px < x0 or px > x1 or py < y0 or py > y1:
            continue
        if length2 == 0.0:
            distance = hypot(px - ax, py - ay)
        else:
            t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
            distance = hypot(px - ax - t * dx, py - ay - t * dy)
        if distance < limit:
            return False
    return True


@kernel()
def pot_geometry(xs, ys, cue_index, pot_ball, pot_pocket, cue_x, cue_y, pockets, radius, place):
    """One row per pot k (``COLUMNS``, in the order of the column names above) of the ball
    at index ``pot_ball[k]`` of ``xs``, ``ys`` (the balls on the table; the cue ball, if
    there, at ``cue_index``, else -1) into the pocket at row ``pot_pocket[k]`` of
    ``pockets`` (aim x, aim y, axis x, axis y, mouth width, 1 for a side pocket), played from
    (``cue_x``, ``cue_y``), or with the cue ball in hand (``place``, above) from the pot's
    default placement: the ghost ball, the cut angle (degrees), the cue ball's and the
    object ball's travels, the usable half-width, the visible angle, the two paths blocked
    (1) or clear (0) by the other object balls, the aim tolerance (0 when a path is
    blocked) and the cue ball's spot -- ``poolgym.envs.candidates``' values of a pot slot."""
    n = len(pot_ball)
    out = np.zeros((n, COLUMNS))
    skip = np.zeros(len(xs), dtype=np.bool_)
    if cue_index >= 0:
        skip[cue_index] = True
    for k in range(n):
        b, p = pot_ball[k], pot_pocket[k]
        bx, by = xs[b], ys[b]
        tx, ty = pockets[p, 0], pockets[p, 1]
        # ghost_ball
        dx, dy = tx - bx, ty - by
        d = hypot(dx, dy)
        if d == 0.0:
            d = 1.0
        gx, gy = bx - 2.0 * radius * dx / d, by - 2.0 * radius * dy / d
        cx, cy = cue_x, cue_y
        if place[IN_HAND] != 0.0:
            # placement(state, table, slot, 0, 0): behind the ghost ball, away from the aim point
            vx, vy = gx - tx, gy - ty
            n = hypot(vx, vy)
            backx, backy = (vx / n, vy / n) if n > 1e-12 else (1.0, 0.0)
            c, s = place[PLACE_COS], place[PLACE_SIN]
            ux, uy = backx * c - backy * s, backx * s + backy * c
            metres = place[PLACE_METRES]
            cx, cy = _into_zone(gx + metres * ux, gy + metres * uy, xs, ys, cue_index, radius,
                                place[ZONE_X_HIGH], place[ZONE_Y_HIGH])
        # usable_half_width (its direction computed as ghost_ball's, the same formula)
        ax, ay = pockets[p, 2], pockets[p, 3]
        approach = math.acos(max(-1.0, min(1.0, (dx * ax + dy * ay) / d))) * _RAD_TO_DEG
        if pockets[p, 5] != 0.0 and approach > SIDE_POCKET_MAX_APPROACH_DEG:
            half_width = 0.0
        else:
            half_width = 0.5 * pockets[p, 4] * math.cos(approach * _DEG_TO_RAD) - JAW_MARGIN_RADII * radius
        d2 = hypot(bx - tx, by - ty)
        visible = 2.0 * math.atan2(half_width, max(d2, radius)) if half_width > 0 else 0.0
        cut = _cut_angle_deg(cx, cy, gx, gy, bx, by, tx, ty)
        d1 = hypot(cx - gx, cy - gy)
        skip[b] = True
        cue_blocked = not _path_is_clear(cx, cy, gx, gy, xs, ys, skip, radius)
        ball_blocked = not _path_is_clear(bx, by, tx, ty, xs, ys, skip, radius)
        skip[b] = False  # a pot's ball is never the cue ball
        tolerance = 0.0
        if not (cue_blocked or ball_blocked or cut > MAX_CUT_DEG or d1 < 1e-6 or half_width <= 0.0):
            tolerance = math.atan2(half_width, max(d2, radius))
            tolerance = tolerance * 2.0 * radius * math.cos(cut * _DEG_TO_RAD) / d1
        row = out[k]
        row[GHOST_X], row[GHOST_Y], row[CUT], row[D1], row[D2] = gx, gy, cut, d1, d2
        row[HALF_WIDTH], row[VISIBLE], row[TOLERANCE] = half_width, visible, tolerance
        row[CUE_X], row[CUE_Y] = cx, cy
        row[CUE_BLOCKED] = 1.0 if cue_blocked else 0.0
        row[BALL_BLOCKED] = 1.0 if ball_blocked else 0.0
    return out
