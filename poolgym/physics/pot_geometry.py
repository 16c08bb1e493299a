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
    # A squared distance this far either side of the limit's square decides the comparison
    # as the correctly rounded distance would (their rounding errors are below 1e-15 of
    # it): only a ball within a billionth of the limit needs ``hypot``.
    far, near = limit * limit * (1.0 + 1e-9), limit * limit * (1.0 - 1e-9)
    for k in range(len(xs)):
        if skip[k]:
            continue
        px, py = xs[k], ys[k]
        if px < x0 or px > x1 or py < y0 or py > y1:
            continue
        if length2 == 0.0:
            ex, ey = px - ax, py - ay
        else:
            t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
            ex, ey = px - ax - t * dx, py - ay - t * dy
        square = ex * ex + ey * ey
        if square > far:
            continue
        if square < near or hypot(ex, ey) < limit:
            return False
    return True


@kernel()
def _ghost_ball(bx, by, tx, ty, radius):
    """``poolgym.aiming.ghost_ball``: where the cue ball's centre must be at contact to send
    the ball at (bx, by) straight at (tx, ty)."""
    dx, dy = tx - bx, ty - by
    d = hypot(dx, dy)
    if d == 0.0:
        d = 1.0
    return bx - 2.0 * radius * dx / d, by - 2.0 * radius * dy / d


@kernel()
def _half_width(bx, by, tx, ty, pocket, radius):
    """``poolgym.aiming.usable_half_width`` of the ball at (bx, by) sent to (tx, ty) in the
    pocket whose row of ``pockets`` is ``pocket``."""
    dx, dy = tx - bx, ty - by
    d = hypot(dx, dy)
    if d == 0.0:
        d = 1.0
    approach = math.acos(max(-1.0, min(1.0, (dx * pocket[2] + dy * pocket[3]) / d))) * _RAD_TO_DEG
    if pocket[5] != 0.0 and approach > SIDE_POCKET_MAX_APPROACH_DEG:
        return 0.0
    return 0.5 * pocket[4] * math.cos(approach * _DEG_TO_RAD) - JAW_MARGIN_RADII * radius


@kernel()
def _tolerance_of(cut, d1, d2, half_width, radius):
    """``poolgym.aiming.tolerance_of``: the aim tolerance (radians) of a pot whose paths are
    clear, from its cut angle (degrees), the two travels and the usable half-width."""
    if cut > MAX_CUT_DEG or d1 < 1e-6 or half_width <= 0.0:
        return 0.0
    tolerance = math.atan2(half_width, max(d2, radius))
    return tolerance * 2.0 * radius * math.cos(cut * _DEG_TO_RAD) / d1


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
        gx, gy = _ghost_ball(bx, by, tx, ty, radius)
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
        half_width = _half_width(bx, by, tx, ty, pockets[p], radius)
        d2 = hypot(bx - tx, by - ty)
        visible = 2.0 * math.atan2(half_width, max(d2, radius)) if half_width > 0 else 0.0
        cut = _cut_angle_deg(cx, cy, gx, gy, bx, by, tx, ty)
        d1 = hypot(cx - gx, cy - gy)
        skip[b] = True
        cue_blocked = not _path_is_clear(cx, cy, gx, gy, xs, ys, skip, radius)
        ball_blocked = not _path_is_clear(bx, by, tx, ty, xs, ys, skip, radius)
        skip[b] = False  # a pot's ball is never the cue ball
        tolerance = 0.0 if cue_blocked or ball_blocked else _tolerance_of(cut, d1, d2, half_width, radius)
        row = out[k]
        row[GHOST_X], row[GHOST_Y], row[CUT], row[D1], row[D2] = gx, gy, cut, d1, d2
        row[HALF_WIDTH], row[VISIBLE], row[TOLERANCE] = half_width, visible, tolerance
        row[CUE_X], row[CUE_Y] = cx, cy
        row[CUE_BLOCKED] = 1.0 if cue_blocked else 0.0
        row[BALL_BLOCKED] = 1.0 if ball_blocked else 0.0
    return out


# ``best_pot_chance``'s cue-ball zones (``poolgym.rules.CueBallZone``): played from where
# it lies, in hand anywhere, in hand in the kitchen.
ZONE_NONE, ZONE_ANYWHERE, ZONE_KITCHEN = 0, 1, 2
# ``poolgym.agents.bot.position``'s placement of a cue ball in hand: this far behind the
# ghost ball, else 2.5 ball radii behind it when that spot is off the surface.
IN_HAND_DISTANCE = 0.3
IN_HAND_NEAR_RADII = 2.5
# The entries of ``best_pot_chance``'s ``dims``: ``Table.surface_arrays``' last array.
DIM_RADIUS, DIM_LENGTH, DIM_WIDTH, DIM_HEAD_STRING = range(4)


@kernel()
def _on_surface(x, y, outline, holes, dims):
    """``poolgym.table.Table.contains`` (its default tolerance): inside the cushion outline
    (the segments ``outline``: a x, a y, b x, b y), a radius clear of every cushion, and off
    every hole (``holes``: x, y, radius)."""
    r = dims[DIM_RADIUS] - 1e-9
    if not (r <= x <= dims[DIM_LENGTH] - r and r <= y <= dims[DIM_WIDTH] - r):
        inside = False
        m = len(outline)
        for i in range(m):
            ax, ay = outline[i, 0], outline[i, 1]
            j = i + 1 if i + 1 < m else 0
            bx, by = outline[j, 0], outline[j, 1]
            if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
                inside = not inside
        if not inside:
            return False
        for i in range(m):
            ax, ay = outline[i, 0], outline[i, 1]
            dx, dy = outline[i, 2] - ax, outline[i, 3] - ay
            t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
            if hypot(x - ax - t * dx, y - ay - t * dy) < r:
                return False
    for i in range(len(holes)):
        if hypot(x - holes[i, 0], y - holes[i, 1]) < holes[i, 2]:
            return False
    return True


@kernel()
def _open_tolerance(cx, cy, bx, by, tx, ty, gx, gy, pocket, radius):
    """``poolgym.aiming.open_tolerance``'s tolerance for the cue ball at (cx, cy), the ball
    at (bx, by), its aim point (tx, ty) and ghost ball (gx, gy)."""
    d1 = hypot(cx - gx, cy - gy)
    cut = _cut_angle_deg(cx, cy, gx, gy, bx, by, tx, ty)
    if cut > MAX_CUT_DEG or d1 < 1e-6:  # the half-width is not needed
        return 0.0
    return _tolerance_of(cut, d1, hypot(bx - tx, by - ty), _half_width(bx, by, tx, ty, pocket, radius), radius)


@kernel()
def _chance_within(tolerance, sigma_deg):
    """``poolgym.aiming.chance_within``."""
    sigma = max(sigma_deg, 1e-6) * _DEG_TO_RAD
    return math.erf(tolerance / (sigma * math.sqrt(2.0)))


@kernel()
def _in_hand_chance(b, p, xs, ys, skip, zone, sigma_deg, pockets, outline, holes, dims):
    """``poolgym.agents.bot.position.in_hand_chance`` of the ball at index ``b`` into the
    pocket at row ``p``: the cue ball placed straight behind the ghost ball."""
    radius = dims[DIM_RADIUS]
    bx, by = xs[b], ys[b]
    kitchen = zone == ZONE_KITCHEN
    if kitchen and bx < dims[DIM_HEAD_STRING]:
        return 0.0
    tx, ty = pockets[p, 0], pockets[p, 1]
    if _half_width(bx, by, tx, ty, pockets[p], radius) <= 0.0:
        return 0.0
    if not _path_is_clear(bx, by, tx, ty, xs, ys, skip, radius):
        return 0.0
    gx, gy = _ghost_ball(bx, by, tx, ty, radius)
    dx, dy = gx - tx, gy - ty
    d = hypot(dx, dy)
    if d == 0.0:
        d = 1.0
    cx, cy = gx + IN_HAND_DISTANCE * dx / d, gy + IN_HAND_DISTANCE * dy / d
    if kitchen and cx >= dims[DIM_HEAD_STRING]:
        # Straight behind is past the string: from the string's middle instead.
        cx = dims[DIM_HEAD_STRING] - 2 * radius
        cy = min(max(cy, 2 * radius), dims[DIM_WIDTH] - 2 * radius)
    if not _on_surface(cx, cy, outline, holes, dims):
        cx, cy = gx + IN_HAND_NEAR_RADII * radius * dx / d, gy + IN_HAND_NEAR_RADII * radius * dy / d
        if not _on_surface(cx, cy, outline, holes, dims):
            return 0.0
    tolerance = _open_tolerance(cx, cy, bx, by, tx, ty, gx, gy, pockets[p], radius)
    if tolerance == 0.0 or not _path_is_clear(cx, cy, gx, gy, xs, ys, skip, radius):
        return 0.0
    return _chance_within(tolerance, sigma_deg)


@kernel()
def best_pot_chance(balls, pairs, zone, sigma_deg, pockets, outline, holes, dims):
    """``poolgym.agents.bot.position.shot_quality``: the best closed-form chance of the pots
    ``pairs`` (rows of ball number, pocket row of ``pockets``) of the balls ``balls`` (rows
    of number, x, y, by number; the cue ball, number 0, first when on the table), under an
    aim error of ``sigma_deg``, with the cue ball in ``zone`` (``ZONE_NONE``: from where it
    lies); the table is ``Table.surface_arrays``. Each pot's blockers are the balls but the
    cue ball and its own; every value is ``poolgym.aiming``'s to the last bit."""
    n = len(balls)
    xs, ys = balls[:, 1].copy(), balls[:, 2].copy()
    skip = np.zeros(n, dtype=np.bool_)
    if n > 0 and balls[0, 0] == 0.0:
        skip[0] = True
    radius = dims[DIM_RADIUS]
    best = 0.0
    for k in range(len(pairs)):
        b = -1
        for i in range(n):
            if balls[i, 0] == pairs[k, 0]:
                b = i
        p = pairs[k, 1]
        skip[b] = True
        if zone == ZONE_NONE:
            bx, by = xs[b], ys[b]
            tx, ty = pockets[p, 0], pockets[p, 1]
            gx, gy = _ghost_ball(bx, by, tx, ty, radius)
            chance = _chance_within(_open_tolerance(xs[0], ys[0], bx, by, tx, ty, gx, gy, pockets[p], radius),
                                    sigma_deg)
            # The paths are checked only for a pot that would be the best so far.
            if chance > best and _path_is_clear(xs[0], ys[0], gx, gy, xs, ys, skip, radius) \
                    and _path_is_clear(bx, by, tx, ty, xs, ys, skip, radius):
                best = chance
        else:
            chance = _in_hand_chance(b, p, xs, ys, skip, zone, sigma_deg, pockets, outline, holes, dims)
            if chance > best:
                best = chance
        skip[b] = False  # a pot's ball is never the cue ball
    return best


@kernel()
def chances_after(nums, xs, ys, on, in_hand, need, sigma_deg, pockets, outline, holes, dims, place, cue_x, cue_y,
                  hand_zone):
    """For each play p with ``need[p]`` (a rotation game's shot: row p of ``xs``, ``ys``,
    ``on`` holds where the balls ``nums``, by number, came to rest and whether they are on
    the table): the best closed-form chance of the lowest object ball left into any pocket.
    From the cue ball where it lies (``best_pot_chance``), or with ``in_hand[p]`` (the cue
    ball off the table, in hand in ``hand_zone``): with ``place`` in hand
    (``place[IN_HAND]`` 1), from each pot's default placement (``pot_geometry``, from
    (``cue_x``, ``cue_y``)) as ``poolgym.envs.candidates.best_pot_chance`` gives it; else
    as ``best_pot_chance`` values a cue ball in hand (``poolgym.agents.bot.position``'s
    ``shot_quality``). 0 where no object ball is left."""
    plays, n = on.shape
    out = np.zeros(plays)
    count = len(pockets)
    rows = np.arange(count)
    for p in range(plays):
        if not need[p]:
            continue
        left = 0
        for k in range(n):
            if on[p, k] and not (in_hand[p] and nums[k] == 0):
                left += 1
        balls = np.empty((left, 3))
        i, target = 0, -1
        for k in range(n):
            if on[p, k] and not (in_hand[p] and nums[k] == 0):
                balls[i, 0], balls[i, 1], balls[i, 2] = nums[k], xs[p, k], ys[p, k]
                if nums[k] != 0 and target < 0:
                    target = i
                i += 1
        if target < 0:
            continue
        if in_hand[p] and place[IN_HAND] != 0.0:
            geometry = pot_geometry(balls[:, 1].copy(), balls[:, 2].copy(), -1, np.full(count, target, np.int64),
                                    rows, cue_x, cue_y, pockets, dims[DIM_RADIUS], place)
            best = _chance_within(geometry[0, TOLERANCE], sigma_deg)
            for k in range(1, count):
                best = max(best, _chance_within(geometry[k, TOLERANCE], sigma_deg))
            out[p] = best
        else:
            pairs = np.empty((count, 2), np.int64)
            pairs[:, 0], pairs[:, 1] = int(balls[target, 0]), rows
            out[p] = best_pot_chance(balls, pairs, hand_zone if in_hand[p] else ZONE_NONE, sigma_deg, pockets,
                                     outline, holes, dims)
    return out


# ``candidate_slots``' layout (``poolgym.envs.candidates``): its slots, in slot order, are
# ``POT_SLOTS`` pot slots, ``SAFETY_SLOTS`` safety slots and one push-out slot.
POT_SLOTS, SAFETY_SLOTS = 16, 3
SLOTS = POT_SLOTS + SAFETY_SLOTS + 1
# A slot's kind (its ``codes`` column ``KIND``); ``NO_SLOT`` where the slot is invalid.
NO_SLOT, POT, SAFETY, PUSH_OUT = -1, 0, 1, 2
# The columns of its ``codes``: the kind, the ball's number and the pocket's row (-1 for
# none), and the pot's call: its row of ``calls``, -1 for the pots of the no-call shot.
KIND, BALL, POCKET, CALL = range(4)
# The columns of its ``values``: the contact point, the cue ball's spot, the cut angle
# (degrees), the two travels, the two paths blocked (1) or clear (0), the visible angle and
# the make probability.
(CONTACT_X, CONTACT_Y, SLOT_CUE_X, SLOT_CUE_Y, SLOT_CUT, SLOT_D1, SLOT_D2, SLOT_CUE_BLOCKED, SLOT_BALL_BLOCKED,
 SLOT_VISIBLE, MAKE) = range(11)
SLOT_VALUES = 11
# Each slot's features (``poolgym.envs.candidates.FEATURES``): the valid flag, the kind's
# one-hot, the ball, the pocket's one-hot, then the scaled values from ``FEATURE_CUT`` on.
FEATURE_KIND, FEATURE_BALL, FEATURE_POCKET, FEATURE_CUT = 1, 4, 5, 11
SLOT_FEATURES = 18


@kernel()
def _index_of(balls, number):
    """The row of ``balls`` (rows of number, x, y) holding ball ``number``."""
    for i in range(len(balls)):
        if balls[i, 0] == number:
            return i
    return -1


@kernel()
def _ranks_before(key, i, j):
    """Whether pot ``i`` ranks before pot ``j``: ``key``'s rows compared as Python compares
    tuples (the first column that differs decides), then their order."""
    for c in range(key.shape[1]):
        if key[i, c] != key[j, c]:
            return key[i, c] < key[j, c]
    return i < j


@kernel()
def candidate_slots(balls, targets, calls, no_call, safety_call, push_call, cue_x, cue_y, place, pockets, dims,
                    ranking_divisor, divisor):
    """``poolgym.envs.candidates.candidate_slots`` of a position where a shot is due, as
    arrays: the balls ``balls`` (rows of number, x, y, by number; the cue ball first when on
    the table), the legal first balls ``targets`` (numbers, ascending; every object ball when
    none is legal), the rules' ball-and-pocket calls ``calls`` (rows of ball number, pocket
    row of ``pockets``), whether the no-call shot, a called safety and a push out are
    offered, the cue ball's spot (``cue_x``, ``cue_y``) or, with ``place[IN_HAND]`` 1, its
    zone in hand (``pot_geometry``'s ``place``), the table (``Table.surface_arrays``' first
    and last), and the ``chance_divisor`` of the ranking's and the env's aim error.

    Returns ``codes`` (``SLOTS`` x the columns ``KIND``..``CALL``), ``values`` (``SLOTS`` x
    ``SLOT_VALUES``; zeros where unused), the ``SLOTS`` x ``SLOT_FEATURES`` features
    flattened (float32, in [0, 1]), the valid flags (int8) and the best make probability of
    the valid slots (0 when none). Pots are ranked by (-chance at ``ranking_divisor``,
    ``difficulty_of``, ball, pocket row), then their order; safeties by distance from the
    cue ball's spot, then ball number."""
    radius = dims[DIM_RADIUS]
    codes = np.full((SLOTS, 4), -1, np.int64)
    values = np.zeros((SLOTS, SLOT_VALUES))
    cue_index = 0 if len(balls) > 0 and balls[0, 0] == 0.0 else -1
    xs, ys = balls[:, 1].copy(), balls[:, 2].copy()

    # The pots: the calls on a legal first ball (all the calls when none is), else each
    # legal first ball into each pocket with the no-call shot.
    n_calls = len(calls)
    used = np.zeros(n_calls, np.bool_)
    for c in range(n_calls):
        for t in targets:
            if calls[c, 0] == t:
                used[c] = True
    if not used.any():
        used[:] = True  # no call names a legal first ball: all of them are played
    if n_calls > 0:
        n = int(used.sum())
    elif no_call:
        n = len(targets) * len(pockets)
    else:
        n = 0
    pot_ball = np.empty(n, np.int64)
    pot_pocket = np.empty(n, np.int64)
    pot_number = np.empty(n, np.int64)
    pot_call = np.full(n, -1, np.int64)
    k = 0
    if n_calls > 0:
        for c in range(n_calls):
            if used[c]:
                pot_number[k], pot_pocket[k], pot_call[k] = calls[c, 0], calls[c, 1], c
                k += 1
    elif no_call:
        for t in targets:
            for p in range(len(pockets)):
                pot_number[k], pot_pocket[k] = t, p
                k += 1
    for k in range(n):
        pot_ball[k] = _index_of(balls, pot_number[k])
    rows = pot_geometry(xs, ys, cue_index, pot_ball, pot_pocket, cue_x, cue_y, pockets, radius, place)
    key = np.empty((n, 4))
    for k in range(n):
        cut = rows[k, CUT]
        key[k, 0] = -math.erf(rows[k, TOLERANCE] / ranking_divisor)
        # ``poolgym.envs.actions.difficulty_of(cut, d1 + d2)``
        key[k, 1] = cut + 20.0 * (rows[k, D1] + rows[k, D2]) + (1000.0 if cut > MAX_CUT_DEG else 0.0)
        key[k, 2], key[k, 3] = pot_number[k], pot_pocket[k]
    order = np.arange(n)
    for i in range(1, n):  # an insertion sort: stable, and n is at most 90
        current = order[i]
        j = i - 1
        while j >= 0 and _ranks_before(key, current, order[j]):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = current
    for s in range(min(n, POT_SLOTS)):
        k = order[s]
        row = rows[k]
        codes[s, KIND], codes[s, BALL], codes[s, POCKET], codes[s, CALL] = POT, pot_number[k], pot_pocket[k], pot_call[k]
        v = values[s]
        v[CONTACT_X], v[CONTACT_Y], v[SLOT_CUE_X], v[SLOT_CUE_Y] = row[GHOST_X], row[GHOST_Y], row[CUE_X], row[CUE_Y]
        v[SLOT_CUT], v[SLOT_D1], v[SLOT_D2] = row[CUT], row[D1], row[D2]
        v[SLOT_CUE_BLOCKED], v[SLOT_BALL_BLOCKED], v[SLOT_VISIBLE] = row[CUE_BLOCKED], row[BALL_BLOCKED], row[VISIBLE]
        v[MAKE] = math.erf(row[TOLERANCE] / divisor)

    # The safeties: the legal first balls nearest the cue ball's spot, a full hit on each.
    if safety_call or no_call:
        m = len(targets)
        distance = np.empty(m)
        index = np.empty(m, np.int64)
        for i in range(m):
            index[i] = _index_of(balls, targets[i])
            distance[i] = hypot(cue_x - xs[index[i]], cue_y - ys[index[i]])
        taken = np.zeros(m, np.bool_)
        skip = np.zeros(len(xs), np.bool_)
        if cue_index >= 0:
            skip[cue_index] = True
        centre_x, centre_y = dims[DIM_LENGTH] / 2.0, dims[DIM_WIDTH] / 2.0
        for s in range(min(m, SAFETY_SLOTS)):
            best = -1
            for i in range(m):  # targets ascend: the first of equal distances has the lower number
                if not taken[i] and (best < 0 or distance[i] < distance[best]):
                    best = i
            taken[best] = True
            b = index[best]
            bx, by = xs[b], ys[b]
            cx, cy = cue_x, cue_y
            if place[IN_HAND] != 0.0:
                # placement(state, table, slot, 0, 0): behind the ball, away from the table's centre
                vx, vy = centre_x - bx, centre_y - by
                norm = hypot(vx, vy)
                backx, backy = (vx / norm, vy / norm) if norm > 1e-12 else (-1.0, 0.0)
                ax, ay = bx + 2 * radius * backx, by + 2 * radius * backy
                c, si = place[PLACE_COS], place[PLACE_SIN]
                ux, uy = backx * c - backy * si, backx * si + backy * c
                metres = place[PLACE_METRES]
                cx, cy = _into_zone(ax + metres * ux, ay + metres * uy, xs, ys, cue_index, radius,
                                    place[ZONE_X_HIGH], place[ZONE_Y_HIGH])
            tx, ty = bx - cx, by - cy
            norm = hypot(tx, ty)
            tx, ty = (tx / norm, ty / norm) if norm > 1e-12 else (1.0, 0.0)
            contact_x, contact_y = bx - 2 * radius * tx, by - 2 * radius * ty
            skip[b] = True
            blocked = not _path_is_clear(cx, cy, contact_x, contact_y, xs, ys, skip, radius)
            skip[b] = False
            slot = POT_SLOTS + s
            codes[slot, KIND], codes[slot, BALL] = SAFETY, targets[best]
            v = values[slot]
            v[CONTACT_X], v[CONTACT_Y], v[SLOT_CUE_X], v[SLOT_CUE_Y] = contact_x, contact_y, cx, cy
            v[SLOT_D1] = hypot(cx - contact_x, cy - contact_y)
            v[SLOT_CUE_BLOCKED] = 1.0 if blocked else 0.0

    if push_call:
        codes[SLOTS - 1, KIND] = PUSH_OUT
        if len(targets) > 0:
            codes[SLOTS - 1, BALL] = targets[0]

    # The features, as float32, clipped to [0, 1]; the valid flags; the best make probability.
    diagonal = hypot(dims[DIM_LENGTH], dims[DIM_WIDTH])
    features = np.zeros(SLOTS * SLOT_FEATURES, np.float32)
    valid = np.zeros(SLOTS, np.int8)
    best = 0.0
    for s in range(SLOTS):
        kind = codes[s, KIND]
        if kind == NO_SLOT:
            continue
        valid[s] = 1
        v = values[s]
        if v[MAKE] > best:
            best = v[MAKE]
        f = features[s * SLOT_FEATURES:(s + 1) * SLOT_FEATURES]
        f[0] = 1.0
        f[FEATURE_KIND + kind] = 1.0
        f[FEATURE_BALL] = max(codes[s, BALL], 0) / 15.0
        if codes[s, POCKET] >= 0:
            f[FEATURE_POCKET + codes[s, POCKET]] = 1.0
        f[FEATURE_CUT] = v[SLOT_CUT] / 180.0
        f[FEATURE_CUT + 1] = v[SLOT_D1] / diagonal
        f[FEATURE_CUT + 2] = v[SLOT_D2] / diagonal
        f[FEATURE_CUT + 3] = v[SLOT_CUE_BLOCKED]
        f[FEATURE_CUT + 4] = v[SLOT_BALL_BLOCKED]
        f[FEATURE_CUT + 5] = v[SLOT_VISIBLE] / math.pi
        f[FEATURE_CUT + 6] = v[MAKE]
        for c in range(SLOT_FEATURES):
            f[c] = min(max(f[c], np.float32(0.0)), np.float32(1.0))
    return codes, values, features, valid, best
