"""The compiled event loop: one shot from the strike until every ball is at rest.

``run_shot`` holds the balls' motion phases in arrays, keeps the pending events in a binary
heap ordered by (time, kind, sequence number), and jumps from event to event: transitions
(sliding to rolling, rolling to rest), ball-ball contacts, cushion and jaw-tip contacts,
pocket drops and the cue ball's head-string crossings. After each event only the balls
whose motion changed are scheduled again, and their candidate partners are pruned by the
boxes their phases sweep. ``poolgym.physics.simulator`` sets the shot up and turns what
this returns (a log of rows, the final phases, optionally every phase) into the public
``ShotResult``; the formulas are documented there and in ``contact_time``/``contacts``.

Everything here is a compiled kernel (``poolgym.physics.jit``) on float64 and int64
arrays of fixed layout, so one compilation serves every shot and table. numba counts the
references of every array a kernel is handed and of every row view it takes (an atomic
increment and decrement each; about a quarter of a shot's time), so ``run_shot`` hands its
calls borrowed views (``poolgym.physics.borrow``), which are not counted, and the kernels
index rows in place (``segments[i, S_AX]``, not ``s = segments[i]``) and skip calls whose
work a test of the caller's can rule out.
"""

from __future__ import annotations

import math

import numpy as np

from poolgym.physics.borrow import alive, borrowed
from poolgym.physics.contact_time import INF, point_entry, quadratic_entry, quartic_entry
from poolgym.physics.contacts import ball_ball_impulse, ball_ball_impulse_3d, cushion_impulse, surface_impulse
from poolgym.physics.hypot import hypot
from poolgym.physics.jit import compile_later, kernel

# Motion modes of a phase. A ball on a surface (sliding, rolling, still) is on the bed or
# on a rail top (its height column says which); an airborne one flies under gravity.
SLIDING, ROLLING, STILL, AIRBORNE = 0, 1, 2, 3
# Event kinds, in the order they are processed when they fall at the same time. A log row's
# kind is the kind of the event that wrote it (a tip contact is logged as a cushion contact,
# a flight or a rail roll ending in a pocket as a drop); ``OFF`` rows are balls leaving the
# table. LAND ends a flight and RAIL a roll on a rail top; their ``other`` says how (the
# ``LAND_*`` and ``RAIL_*`` codes, plus the hole's index for a drop).
TRANSITION, BALL, SEGMENT, TIP, HOLE, HEAD, LAND, RAIL = range(8)
OFF = 8
LAND_BED, LAND_RAIL, LAND_OFF, LAND_HOLE = range(4)
RAIL_OFF, RAIL_FALL, RAIL_HOLE = 0, 1, 5  # RAIL_FALL + side (0-3), RAIL_HOLE + hole

# Columns of the ball table: the current phase's start time, position, velocity, spin and
# acceleration, its end time, the box its centre sweeps (x0, x1, y0, y1), and the height of
# the ball's lowest point above the bed with its vertical velocity and acceleration.
T0, X, Y, VX, VY, WX, WY, WZ, AX, AY, TEND, BX0, BX1, BY0, BY1, Z, VZ, AZ = range(18)
BALL_COLUMNS = 18
# Entries of the constants vector ``run_shot`` takes (see ``Simulator._constants``).
(P_R, P_G_SLIDE, P_G_ROLL, P_SPIN_DEC, P_REST_SPEED, P_REST_SPIN, P_HEAD_X, P_FROZEN_TOL,
 P_SIN_NOSE, P_COS_NOSE, P_BALL_E, P_BALL_MU_MIN, P_BALL_MU_EXTRA, P_BALL_MU_DECAY,
 P_CUSHION_E, P_CUSHION_MU, P_GRAVITY, P_BED_E, P_BED_MU, P_MIN_HOP, P_NOSE_H, P_NOSE_INSET,
 P_RAIL_W, P_LENGTH, P_WIDTH) = range(25)
CONSTANTS = 25
# Columns of the feature tables: segments (start, unit direction, unit normal into the
# table, length, box grown by R), jaw tips (point, box) and holes (centre, radius, box).
S_AX, S_AY, S_UX, S_UY, S_NX, S_NY, S_LEN, S_B0, S_B1, S_B2, S_B3 = range(11)
Q_X, Q_Y, Q_B0, Q_B1, Q_B2, Q_B3 = range(6)
H_X, H_Y, H_R, H_B0, H_B1, H_B2, H_B3 = range(7)
# Columns of a log row: kind, time, two integers (balls, or a ball and a feature index),
# two positions and a flag. A cushion row's feature index counts segments first, then tips.
L_KIND, L_TIME, L_A, L_B, L_X1, L_Y1, L_X2, L_Y2, L_FLAG = range(9)
LOG_COLUMNS = 9
# Columns of a recorded phase: ball, start and end time, mode, position, velocity,
# acceleration, then height, vertical velocity and vertical acceleration.
F_BALL, F_T0, F_T1, F_MODE, F_X, F_Y, F_VX, F_VY, F_AX, F_AY, F_Z, F_VZ, F_AZ = range(13)
PHASE_COLUMNS = 13
# Columns of a queued event beside its time: kind, sequence number, ball, other (ball or
# feature), the ball's phase version and the other ball's when queued.
E_KIND, E_SEQ, E_K, E_OTHER, E_VER_K, E_VER_OTHER = range(6)
# Counters shared by the kernels: events queued so far (the sequence), heap size, log rows
# and recorded phases.
C_SEQ, C_HEAP, C_LOG, C_PHASES = range(4)
# Return codes of ``run_shot``. ``AIRBORNE_SHOT``: the level core (``air`` None) met a shot
# that leaves the bed, which only the airborne core (``air=True``, ``airborne_core``) plays.
DONE, TOO_MANY_EVENTS, AIRBORNE_SHOT = 0, 1, 2

_SLIP_EPS = 1e-7
# After a grazing root (gap closed but not closing), contacts are searched again this much
# later, so the search moves past the touch instead of finding it again.
_RETRY_DT = 1e-9
# The slowest parting speed (m/s) after a contact. A ball driven by its own spin into
# another ball or a cushion (a follow shot pushing its object ball) would otherwise meet it
# again and again in ever shorter intervals (inelastic collapse); parting at 1 mm/s makes
# that a bounded sequence of soft pushes, at an energy cost of micro-joules.
_MIN_SEPARATION = 1e-3
# Contacts of the same two balls closer in time than this are one contact resolved in
# steps (a ball pinched between a landing ball and the bed), logged once.
_PINCH_DT = 1e-9
# Heap slots per shot. Valid queued events are at most n (n + 2) for n balls (each ball's
# transition, cushion and head-string event, and one contact per partner), 288 for 16 balls;
# a full heap is compacted by dropping the stale ones, which the loop would skip anyway.
_HEAP_SLOTS = 1024


@kernel()
def state_at(B, mode, k, t, R, spin_dec):
    """(x, y, vx, vy, wx, wy, wz) of ball k at time t, in closed form."""
    tau = t - B[k, T0]
    if mode[k] == AIRBORNE:  # no cloth in the air: straight across, spin kept
        return (B[k, X] + B[k, VX] * tau, B[k, Y] + B[k, VY] * tau, B[k, VX], B[k, VY],
                B[k, WX], B[k, WY], B[k, WZ])
    wz0 = B[k, WZ]
    spun = abs(wz0) - spin_dec * tau
    wz = math.copysign(spun, wz0) if spun > 0.0 else 0.0
    if mode[k] == STILL:
        return B[k, X], B[k, Y], 0.0, 0.0, 0.0, 0.0, wz
    ax, ay = B[k, AX], B[k, AY]
    vx, vy = B[k, VX] + ax * tau, B[k, VY] + ay * tau
    x = B[k, X] + (B[k, VX] + 0.5 * ax * tau) * tau
    y = B[k, Y] + (B[k, VY] + 0.5 * ay * tau) * tau
    if mode[k] == ROLLING:
        return x, y, vx, vy, -vy / R, vx / R, wz
    # Sliding friction torque turns the spin about z x u_hat, u_hat = -a / (mu_s g).
    c = 2.5 * tau / R
    return x, y, vx, vy, B[k, WX] + c * ay, B[k, WY] - c * ax, wz


@kernel()
def height_at(B, mode, k, t):
    """(z, vz) of ball k at time t: the height of its lowest point above the bed, and its
    vertical velocity."""
    if mode[k] != AIRBORNE:
        return B[k, Z], 0.0
    tau = t - B[k, T0]
    return B[k, Z] + (B[k, VZ] + 0.5 * B[k, AZ] * tau) * tau, B[k, VZ] + B[k, AZ] * tau


@kernel()
def _parabola_range(p, v, a, duration):
    """Min and max of p + v t + a t^2 / 2 over t in [0, duration]."""
    end = p + (v + 0.5 * a * duration) * duration
    lo, hi = (p, end) if p <= end else (end, p)
    if a != 0.0:
        t_turn = -v / a
        if 0.0 < t_turn < duration:
            turn = p + 0.5 * v * t_turn
            lo, hi = min(lo, turn), max(hi, turn)
    return lo, hi


@kernel()
def _close_phase(B, mode, k, t, phases, count):
    """Record ball k's current phase as ending at t (if it lasted at all)."""
    if t <= B[k, T0]:
        return  # a phase replaced at the instant it began leaves nothing to draw
    r = count[C_PHASES]
    phases[r, F_BALL], phases[r, F_T0], phases[r, F_T1], phases[r, F_MODE] = k, B[k, T0], t, mode[k]
    phases[r, F_X], phases[r, F_Y], phases[r, F_VX], phases[r, F_VY] = B[k, X], B[k, Y], B[k, VX], B[k, VY]
    phases[r, F_AX], phases[r, F_AY] = B[k, AX], B[k, AY]
    phases[r, F_Z], phases[r, F_VZ], phases[r, F_AZ] = B[k, Z], B[k, VZ], B[k, AZ]
    count[C_PHASES] += 1


@kernel("(float64[:, ::1], int64[::1], int64[::1], int64, float64, float64, float64, float64, float64, "
        "float64, float64, float64, boolean, float64[::1], boolean, float64[:, ::1], int64[::1], float64)")
def _set_phase(B, mode, ver, k, t, x, y, vx, vy, wx, wy, wz, force_roll, P, record, phases, count, level):
    """Start a new motion phase of ball k at time t from the given state, on the surface at
    height ``level`` (0: the bed; the cushion height: a rail top)."""
    if record:
        _close_phase(B, mode, k, t, phases, count)
    R, g_slide, g_roll = P[P_R], P[P_G_SLIDE], P[P_G_ROLL]
    speed = hypot(vx, vy)
    ux, uy = vx - R * wy, vy + R * wx
    slip = hypot(ux, uy)
    if slip > _SLIP_EPS and not force_roll:
        m = SLIDING
        ax, ay = -g_slide * ux / slip, -g_slide * uy / slip
        duration = 2.0 * slip / (7.0 * g_slide)
    elif speed > P[P_REST_SPEED]:
        m = ROLLING
        ax, ay = -g_roll * vx / speed, -g_roll * vy / speed
        duration = speed / g_roll
        wx, wy = -vy / R, vx / R
    else:
        m = STILL
        vx = vy = wx = wy = ax = ay = 0.0
        duration = INF
    B[k, T0], B[k, X], B[k, Y] = t, x, y
    B[k, VX], B[k, VY], B[k, WX], B[k, WY], B[k, WZ] = vx, vy, wx, wy, wz
    B[k, AX], B[k, AY] = ax, ay
    B[k, Z], B[k, VZ], B[k, AZ] = level, 0.0, 0.0
    mode[k] = m
    B[k, TEND] = t + duration
    ver[k] += 1
    if m == STILL:
        B[k, BX0], B[k, BX1], B[k, BY0], B[k, BY1] = x, x, y, y
    else:
        B[k, BX0], B[k, BX1] = _parabola_range(x, vx, ax, duration)
        B[k, BY0], B[k, BY1] = _parabola_range(y, vy, ay, duration)


@kernel()
def _flight_end(P, x, y, z, vx, vy, vz):
    """(tau, how) for a flight from (x, y) at height z with velocity (vx, vy, vz): how long
    until it lands on the bed (``LAND_BED``), on a rail top (``LAND_RAIL``: coming down to
    the cushion height over the band between the nose edges and the rail's outer edge) or
    its centre passes that outer edge (``LAND_OFF``), whichever comes first. Pockets and
    contacts on the way are the caller's."""
    g, h, w = P[P_GRAVITY], P[P_NOSE_H], P[P_RAIL_W]
    L, W, inset = P[P_LENGTH], P[P_WIDTH], P[P_NOSE_INSET]
    z = max(z, 0.0)
    t_bed = (vz + math.sqrt(vz * vz + 2.0 * g * z)) / g
    # The centre leaves the outer edge of the rails (straight lines in the air).
    t_out = INF
    if vx > 0.0:
        t_out = min(t_out, (L + w - x) / vx)
    elif vx < 0.0:
        t_out = min(t_out, (-w - x) / vx)
    if vy > 0.0:
        t_out = min(t_out, (W + w - y) / vy)
    elif vy < 0.0:
        t_out = min(t_out, (-w - y) / vy)
    t_out = max(t_out, 0.0)
    disc = vz * vz + 2.0 * g * (z - h)
    if disc >= 0.0:
        t_rail = (vz + math.sqrt(disc)) / g  # coming down through the cushion height
        if 1e-9 < t_rail < t_out:
            xr, yr = x + vx * t_rail, y + vy * t_rail
            # Beyond a nose edge the ball comes down on the cushion's top.
            if xr < inset or xr > L - inset or yr < inset or yr > W - inset:
                return t_rail, LAND_RAIL
    if t_bed < t_out:
        return t_bed, LAND_BED
    return t_out, LAND_OFF


@kernel()
def _set_flight(B, mode, ver, k, t, x, y, z, vx, vy, vz, wx, wy, wz, P, record, phases, count):
    """Start an airborne phase of ball k at time t: a parabola under gravity, spin kept."""
    if record:
        _close_phase(B, mode, k, t, phases, count)
    tau, _ = _flight_end(P, x, y, z, vx, vy, vz)
    B[k, T0], B[k, X], B[k, Y] = t, x, y
    B[k, VX], B[k, VY], B[k, WX], B[k, WY], B[k, WZ] = vx, vy, wx, wy, wz
    B[k, AX], B[k, AY] = 0.0, 0.0
    B[k, Z], B[k, VZ], B[k, AZ] = max(z, 0.0), vz, -P[P_GRAVITY]
    mode[k] = AIRBORNE
    B[k, TEND] = t + tau
    ver[k] += 1
    B[k, BX0], B[k, BX1] = min(x, x + vx * tau), max(x, x + vx * tau)
    B[k, BY0], B[k, BY1] = min(y, y + vy * tau), max(y, y + vy * tau)


@kernel()
def _resume(B, mode, ver, k, t, x, y, z, vx, vy, vz, wx, wy, wz, support, P, record, phases, count):
    """Go on from a 3-D state: a ball on a surface at height ``support`` (>= 0; -1 for none)
    driven into it bounces (``surface_impulse`` with the bed's restitution and the cloth's
    friction); it flies if it leaves upwards faster than the hop threshold or has no
    surface under it, and slides or rolls on the surface otherwise."""
    if support >= 0.0 and vz < 0.0:
        vx, vy, vz, wx, wy, wz = surface_impulse(vx, vy, vz, wx, wy, wz, 0.0, 0.0, 1.0, P[P_R],
                                                 P[P_BED_E], P[P_BED_MU])
    if support < 0.0 or vz > P[P_MIN_HOP]:
        _set_flight(B, mode, ver, k, t, x, y, z, vx, vy, vz, wx, wy, wz, P, record, phases, count)
    else:
        _set_phase(B, mode, ver, k, t, x, y, vx, vy, wx, wy, wz, False, P, record, phases, count, support)


# ---------------------------------------------------------------------- event heap
@kernel("(float64[::1], int64[:, ::1], int64, int64)")
def _before(times, events, i, j):
    """Whether heap entry i comes before entry j: by time, then kind, then sequence."""
    if times[i] != times[j]:
        return times[i] < times[j]
    if events[i, E_KIND] != events[j, E_KIND]:
        return events[i, E_KIND] < events[j, E_KIND]
    return events[i, E_SEQ] < events[j, E_SEQ]


@kernel("(float64[::1], int64[:, ::1], int64, int64)")
def _swap(times, events, i, j):
    times[i], times[j] = times[j], times[i]
    for c in range(6):
        events[i, c], events[j, c] = events[j, c], events[i, c]


@kernel("(float64[::1], int64[:, ::1], int64)", inline=True)
def _sift_up(times, events, i):
    while i > 0:
        parent = (i - 1) >> 1
        if not _before(times, events, i, parent):
            break
        _swap(times, events, i, parent)
        i = parent


@kernel("(float64[::1], int64[:, ::1], int64, int64)", inline=True)
def _sift_down(times, events, i, size):
    while True:
        first = i
        left = 2 * i + 1
        if left < size and _before(times, events, left, first):
            first = left
        if left + 1 < size and _before(times, events, left + 1, first):
            first = left + 1
        if first == i:
            return
        _swap(times, events, i, first)
        i = first


@kernel(inline=True)
def _is_current(events, i, on, ver):
    """Whether queued event i still applies: its balls are on the table, in the phases it
    was computed for."""
    k = events[i, E_K]
    if not on[k] or ver[k] != events[i, E_VER_K]:
        return False
    if events[i, E_KIND] == BALL:
        j = events[i, E_OTHER]
        return on[j] and ver[j] == events[i, E_VER_OTHER]
    return True


@kernel(inline=True)
def _compact(times, events, count, on, ver):
    """Drop every stale event from a full heap and restore the heap order."""
    size = 0
    for i in range(count[C_HEAP]):
        if _is_current(events, i, on, ver):
            times[size] = times[i]
            # Element by element: an array assignment brings numba's shape-mismatch message
            # (string formatting) into the compilation.
            for c in range(6):
                events[size, c] = events[i, c]
            size += 1
    count[C_HEAP] = size
    for i in range(size // 2 - 1, -1, -1):
        _sift_down(times, events, i, size)


@kernel("(float64[::1], int64[:, ::1], int64[::1], boolean[::1], int64[::1], float64, int64, int64, int64, "
        "int64)")
def _push(times, events, count, on, ver, time, kind, k, other, ver_other):
    """Queue an event of ball k (in its current phase) with ``other``."""
    if count[C_HEAP] == times.shape[0]:
        _compact(times, events, count, on, ver)
        if count[C_HEAP] == times.shape[0]:
            raise RuntimeError("the event heap is full of current events")
    count[C_SEQ] += 1
    i = count[C_HEAP]
    times[i] = time
    events[i, E_KIND], events[i, E_SEQ], events[i, E_K] = kind, count[C_SEQ], k
    events[i, E_OTHER], events[i, E_VER_K], events[i, E_VER_OTHER] = other, ver[k], ver_other
    count[C_HEAP] = i + 1
    _sift_up(times, events, i)


@kernel(inline=True)
def _pop(times, events, count):
    """Move the first queued event to the slot just past the heap and return that slot."""
    last = count[C_HEAP] - 1
    _swap(times, events, 0, last)
    count[C_HEAP] = last
    _sift_down(times, events, 0, last)
    return last


# ---------------------------------------------------------------------- scheduling
@kernel("(float64[:, ::1], int64[::1], int64[::1], boolean[::1], int64, float64, int64, float64[::1], "
        "float64[::1], int64[:, ::1], int64[::1])")
def _schedule_pairs(B, mode, ver, on, k, t, only, P, times, events, count):
    """Queue ball k's contacts with every other ball (or only with ball ``only`` >= 0).

    Partners are pruned by the swept boxes of both phases."""
    R, spin_dec = P[P_R], P[P_SPIN_DEC]
    if t == B[k, T0]:  # scheduled as its phase starts: the state is the phase's own
        xk, yk, vxk, vyk = B[k, X], B[k, Y], B[k, VX], B[k, VY]
    else:
        xk, yk, vxk, vyk, _, _, _ = state_at(B, mode, k, t, R, spin_dec)
    axk, ayk = B[k, AX], B[k, AY]
    # height_at's values, called only for a flight: most partners are on a surface, and a
    # call passes (and counts references to) its arrays.
    zk, vzk = height_at(B, mode, k, t) if mode[k] == AIRBORNE else (B[k, Z], 0.0)
    azk = B[k, AZ]
    tk_end = B[k, TEND]
    reach = 2.0 * R
    d2 = reach * reach
    bk0, bk1 = B[k, BX0] - reach, B[k, BX1] + reach
    bk2, bk3 = B[k, BY0] - reach, B[k, BY1] + reach
    k_still = mode[k] == STILL
    first, stop = (0, B.shape[0]) if only < 0 else (only, only + 1)
    for j in range(first, stop):
        if j == k or not on[j] or (k_still and mode[j] == STILL):
            continue
        if B[j, BX0] > bk1 or B[j, BX1] < bk0 or B[j, BY0] > bk3 or B[j, BY1] < bk2:
            continue
        horizon = min(tk_end, B[j, TEND]) - t
        if horizon <= 0.0:
            continue
        axj, ayj = B[j, AX], B[j, AY]
        if mode[j] == STILL:
            xj, yj, vxj, vyj = B[j, X], B[j, Y], 0.0, 0.0
        else:
            tau = t - B[j, T0]
            vxj, vyj = B[j, VX] + axj * tau, B[j, VY] + ayj * tau
            xj = B[j, X] + (B[j, VX] + 0.5 * axj * tau) * tau
            yj = B[j, Y] + (B[j, VY] + 0.5 * ayj * tau) * tau
        zj, vzj = height_at(B, mode, j, t) if mode[j] == AIRBORNE else (B[j, Z], 0.0)
        dx, dy = xj - xk, yj - yk
        dvx, dvy = vxj - vxk, vyj - vyk
        dax, day = axj - axk, ayj - ayk
        dz, dvz, daz = zj - zk, vzj - vzk, B[j, AZ] - azk
        if dz == 0.0 and dvz == 0.0 and daz == 0.0:  # both on one surface
            c0 = dx * dx + dy * dy - d2
            c1 = 2.0 * (dx * dvx + dy * dvy)
            c2 = dvx * dvx + dvy * dvy + dx * dax + dy * day
            c3 = dvx * dax + dvy * day
            c4 = 0.25 * (dax * dax + day * day)
        else:  # the same quartic in three dimensions: heights are parabolas too
            c0 = dx * dx + dy * dy + dz * dz - d2
            c1 = 2.0 * (dx * dvx + dy * dvy + dz * dvz)
            c2 = dvx * dvx + dvy * dvy + dvz * dvz + dx * dax + dy * day + dz * daz
            c3 = dvx * dax + dvy * day + dvz * daz
            c4 = 0.25 * (dax * dax + day * day + daz * daz)
        tau = quartic_entry(c0, c1, c2, c3, c4, horizon)
        if tau != INF:
            _push(times, events, count, on, ver, t + tau, BALL, k, j, ver[j])


@kernel(inline=True)
def _clear_of_features(B, k, open_box):
    """Whether ball k's current phase stays clear of every cushion, jaw and hole."""
    return open_box[0] < B[k, BX0] and B[k, BX1] < open_box[1] and open_box[2] < B[k, BY0] and B[k, BY1] < open_box[3]


@kernel()
def _schedule_cushions(B, mode, ver, on, k, t, P, segments, tips, holes, open_box, times, events, count):
    """Queue ball k's first contact with a cushion segment, a jaw tip or a pocket hole.
    A phase clear of them all (``_clear_of_features``) finds none: the frequent caller
    tests that first and skips the call."""
    b0, b1, b2, b3 = B[k, BX0], B[k, BX1], B[k, BY0], B[k, BY1]
    R = P[P_R]
    if t == B[k, T0]:
        x, y, vx, vy = B[k, X], B[k, Y], B[k, VX], B[k, VY]
    else:
        x, y, vx, vy, _, _, _ = state_at(B, mode, k, t, R, P[P_SPIN_DEC])
    ax, ay = B[k, AX], B[k, AY]
    horizon = B[k, TEND] - t
    best, kind, which = INF, -1, -1
    for i in range(segments.shape[0]):
        if segments[i, S_B0] > b1 or segments[i, S_B1] < b0 or segments[i, S_B2] > b3 or segments[i, S_B3] < b2:
            continue
        nx, ny = segments[i, S_NX], segments[i, S_NY]
        c0 = nx * (x - segments[i, S_AX]) + ny * (y - segments[i, S_AY]) - R
        tau = quadratic_entry(c0, nx * vx + ny * vy, 0.5 * (nx * ax + ny * ay), min(horizon, best))
        if tau < best:
            px = x + (vx + 0.5 * ax * tau) * tau - segments[i, S_AX]
            py = y + (vy + 0.5 * ay * tau) * tau - segments[i, S_AY]
            if 0.0 <= segments[i, S_UX] * px + segments[i, S_UY] * py <= segments[i, S_LEN]:
                best, kind, which = tau, SEGMENT, i
    for i in range(tips.shape[0]):
        if tips[i, Q_B0] > b1 or tips[i, Q_B1] < b0 or tips[i, Q_B2] > b3 or tips[i, Q_B3] < b2:
            continue
        tau = point_entry(x - tips[i, Q_X], y - tips[i, Q_Y], vx, vy, ax, ay, R * R, min(horizon, best))
        if tau < best:
            best, kind, which = tau, TIP, i
    for i in range(holes.shape[0]):
        if holes[i, H_B0] > b1 or holes[i, H_B1] < b0 or holes[i, H_B2] > b3 or holes[i, H_B3] < b2:
            continue
        r = holes[i, H_R]
        tau = point_entry(x - holes[i, H_X], y - holes[i, H_Y], vx, vy, ax, ay, r * r, min(horizon, best))
        if tau < best:
            best, kind, which = tau, HOLE, i
    if kind >= 0:
        _push(times, events, count, on, ver, t + best, kind, k, which, 0)


@kernel(inline=True)
def _inside_outline(segments, x, y):
    """Whether (x, y) lies inside the cushion outline (crossing number over the segments)."""
    inside = False
    for i in range(segments.shape[0]):
        ax, ay = segments[i, S_AX], segments[i, S_AY]
        bx = ax + segments[i, S_UX] * segments[i, S_LEN]
        by = ay + segments[i, S_UY] * segments[i, S_LEN]
        if (ay > y) != (by > y):
            if x < ax + (y - ay) * (bx - ax) / (by - ay):
                inside = not inside
    return inside


@kernel(inline=True)
def _schedule_flight(B, mode, ver, on, k, t, P, segments, tips, holes, times, events, count):
    """Queue the end of ball k's flight and its first contact with a cushion's nose edge or
    a jaw tip on the way.

    The nose edge is a horizontal line at the cushion height, ``P_NOSE_INSET`` inside each
    segment (where a ball on the bed touches it at the nose angle); a flying ball meets it
    when its centre comes within R of that line, so a high ball clears the cushion and a
    low one rebounds off the edge, up or down. A jaw tip is a vertical post up to the
    cushion height: a ball whose centre is below its top meets its side, one above it its
    top corner. A flight that comes down over a pocket's hole, or on the bed outside
    the outline (in a pocket's throat), drops into that pocket."""
    R, g, h = P[P_R], P[P_GRAVITY], P[P_NOSE_H]
    tau_end, how = _flight_end(P, B[k, X], B[k, Y], B[k, Z], B[k, VX], B[k, VY], B[k, VZ])
    other = how
    if how != LAND_OFF:
        xe, ye = B[k, X] + B[k, VX] * tau_end, B[k, Y] + B[k, VY] * tau_end
        nearest, best_d = -1, INF
        for i in range(holes.shape[0]):
            d = hypot(xe - holes[i, H_X], ye - holes[i, H_Y])
            if d < holes[i, H_R]:
                nearest, best_d = i, 0.0
                break
            if d < best_d:
                nearest, best_d = i, d
        if best_d == 0.0 or (how == LAND_BED and not _inside_outline(segments, xe, ye)):
            other = LAND_HOLE + nearest
    _push(times, events, count, on, ver, B[k, TEND], LAND, k, other, 0)
    # Contacts with the nose edges and jaw tips, from the state at t.
    x, y, vx, vy, _, _, _ = state_at(B, mode, k, t, R, P[P_SPIN_DEC])
    z, vz = height_at(B, mode, k, t)
    horizon = B[k, TEND] - t
    b0, b1, b2, b3 = B[k, BX0], B[k, BX1], B[k, BY0], B[k, BY1]
    inset = P[P_NOSE_INSET]
    d0, d1, d2 = R + z - h, vz, -0.5 * g  # centre height above the nose edge
    best, kind, which = INF, -1, -1
    for i in range(segments.shape[0]):
        if segments[i, S_B0] > b1 or segments[i, S_B1] < b0 or segments[i, S_B2] > b3 or segments[i, S_B3] < b2:
            continue
        nx, ny = segments[i, S_NX], segments[i, S_NY]
        e0 = nx * (x - segments[i, S_AX]) + ny * (y - segments[i, S_AY]) - inset
        e1 = nx * vx + ny * vy
        c0 = e0 * e0 + d0 * d0 - R * R
        c1 = 2.0 * (e0 * e1 + d0 * d1)
        c2 = e1 * e1 + d1 * d1 + 2.0 * d0 * d2
        c3 = 2.0 * d1 * d2
        c4 = d2 * d2
        tau = quartic_entry(c0, c1, c2, c3, c4, min(horizon, best))
        if tau < best:
            px, py = x + vx * tau - segments[i, S_AX], y + vy * tau - segments[i, S_AY]
            if 0.0 <= segments[i, S_UX] * px + segments[i, S_UY] * py <= segments[i, S_LEN]:
                best, kind, which = tau, SEGMENT, i
    for i in range(tips.shape[0]):
        if tips[i, Q_B0] > b1 or tips[i, Q_B1] < b0 or tips[i, Q_B2] > b3 or tips[i, Q_B3] < b2:
            continue
        # The post's side, met by a ball whose centre is below its top ...
        px, py = x - tips[i, Q_X], y - tips[i, Q_Y]
        tau = point_entry(px, py, vx, vy, 0.0, 0.0, R * R, min(horizon, best))
        if tau < best and d0 + (d1 + d2 * tau) * tau <= 0.0:
            best, kind, which = tau, TIP, i
        # ... and its top corner, a point at the cushion height, by one above it.
        c0 = px * px + py * py + d0 * d0 - R * R
        c1 = 2.0 * (px * vx + py * vy + d0 * d1)
        c2 = vx * vx + vy * vy + d1 * d1 + 2.0 * d0 * d2
        tau = quartic_entry(c0, c1, c2, 2.0 * d1 * d2, d2 * d2, min(horizon, best))
        if tau < best and d0 + (d1 + d2 * tau) * tau > 0.0:
            best, kind, which = tau, TIP, i
    if kind >= 0:
        _push(times, events, count, on, ver, t + best, kind, k, which, 0)


@kernel(inline=True)
def _schedule_rail(B, mode, ver, on, k, t, P, holes, times, events, count):
    """Queue the end of ball k's roll on a rail top: its centre passing over the cushion's
    nose edge back towards the bed (it rolls off the edge, ``_roll_off_edge``), passing the
    rail's outer edge (off the table), or entering a pocket's hole. A ball that stops on the
    rail top is off the table at the end of the shot."""
    R, inset = P[P_R], P[P_NOSE_INSET]
    L, W, w = P[P_LENGTH], P[P_WIDTH], P[P_RAIL_W]
    x, y, vx, vy, _, _, _ = state_at(B, mode, k, t, R, P[P_SPIN_DEC])
    ax, ay = B[k, AX], B[k, AY]
    horizon = B[k, TEND] - t
    best, other = INF, -1
    # Off: gaps to the outer edge, each closing to zero.
    for c0, c1, c2 in ((x + w, vx, 0.5 * ax), (L + w - x, -vx, -0.5 * ax),
                       (y + w, vy, 0.5 * ay), (W + w - y, -vy, -0.5 * ay)):
        tau = quadratic_entry(c0, c1, c2, min(horizon, best))
        if tau < best:
            best, other = tau, RAIL_OFF
    # Back over the bed: every coordinate outside the nose edges comes back inside; the
    # side crossed last is the edge the ball rolls off.
    back, side = 0.0, -1
    lo_x, hi_x, lo_y, hi_y = inset, L - inset, inset, W - inset
    for i, (c0, c1, c2) in enumerate(((lo_x - x, -vx, -0.5 * ax), (x - hi_x, vx, 0.5 * ax),
                                      (lo_y - y, -vy, -0.5 * ay), (y - hi_y, vy, 0.5 * ay))):
        if c0 > 0.0:
            tau = quadratic_entry(c0, c1, c2, horizon)
            if tau >= back:
                back, side = tau, i
    if 0.0 < back < best:
        xb, yb = x + (vx + 0.5 * ax * back) * back, y + (vy + 0.5 * ay * back) * back
        if lo_x - 1e-9 <= xb <= hi_x + 1e-9 and lo_y - 1e-9 <= yb <= hi_y + 1e-9:
            best, other = back, RAIL_FALL + side
    for i in range(holes.shape[0]):
        r = holes[i, H_R]
        tau = point_entry(x - holes[i, H_X], y - holes[i, H_Y], vx, vy, ax, ay, r * r, min(horizon, best))
        if tau < best:
            best, other = tau, RAIL_HOLE + i
    if other >= 0:
        _push(times, events, count, on, ver, t + best, RAIL, k, other, 0)


@kernel(inline=True)
def _roll_off_edge(B, mode, ver, k, t, x, y, vx, vy, wx, wy, wz, side, P, record, phases, count):
    """Ball k, rolling on a rail top with the given state at t, has its centre over the
    cushion's nose edge (side 0-3: the x = inset, x = L - inset, y = inset, y = W - inset
    edge). It pivots over the edge, rolling on it, until the edge no longer holds it up,
    then flies.

    A sphere rolling over an edge with speed v0 across it leaves it when the normal force
    vanishes, at the angle phi from the vertical with cos(phi) = (10 + 7 v0^2 / (g R)) / 17
    (energy with rolling, I = 2/5 m R^2, and g cos(phi) = v^2 / R there); at or above
    v0^2 = g R it leaves at once. It flies on from there with v = sqrt(g R cos(phi)) along
    the tangent, rolling about the edge, its speed along the edge and its spin about the
    vertical kept. The pivot itself takes no time here (a few hundredths of a second at
    most). Bouncing down the edge instead would be hundreds of tiny impacts."""
    R, g, h = P[P_R], P[P_GRAVITY], P[P_NOSE_H]
    nx = 1.0 if side == 0 else (-1.0 if side == 1 else 0.0)
    ny = 1.0 if side == 2 else (-1.0 if side == 3 else 0.0)
    tx, ty = -ny, nx
    across = max(vx * nx + vy * ny, 0.0)
    along = vx * tx + vy * ty
    cos_phi = min(1.0, (10.0 + 7.0 * across * across / (g * R)) / 17.0)
    # Just past the point of leaving, where the edge falls away from the ball.
    cos_phi *= 1.0 - 1e-9
    sin_phi = math.sqrt(1.0 - cos_phi * cos_phi)
    v = max(across, math.sqrt(g * R * cos_phi))
    x, y = x + R * sin_phi * nx, y + R * sin_phi * ny
    z = h + R * cos_phi - R
    v_n, vz = v * cos_phi, -v * sin_phi
    vx, vy = v_n * nx + along * tx, v_n * ny + along * ty
    # Rolling about the edge (z x n) and along it (z x t).
    wx, wy = (v * (-ny) + along * (-ty)) / R, (v * nx + along * tx) / R
    _set_flight(B, mode, ver, k, t, x, y, z, vx, vy, vz, wx, wy, wz, P, record, phases, count)


@kernel()
def _schedule_head_string(B, ver, on, k, after, P, times, events, count):
    """Queue the cue ball's next crossing of the head string strictly after ``after``."""
    horizon = B[k, TEND] - B[k, T0]
    c = B[k, X] - P[P_HEAD_X]
    b, a = B[k, VX], 0.5 * B[k, AX]
    lower = after - B[k, T0] + 1e-12
    first = INF
    if a == 0.0:
        if b != 0.0:
            r = -c / b
            if lower < r <= horizon:
                first = r
    else:
        disc = b * b - 4.0 * a * c
        if disc >= 0.0:
            sq = math.sqrt(disc)
            r1, r2 = (-b - sq) / (2.0 * a), (-b + sq) / (2.0 * a)
            if lower < r1 <= horizon:
                first = r1
            if lower < r2 <= horizon and r2 < first:
                first = r2
    if first != INF:
        _push(times, events, count, on, ver, B[k, T0] + first, HEAD, k, -1, 0)


@kernel(inline=True)
def _on_bed(B, mode, k):
    """Whether ball k is on the bed: not flying and not on a rail top."""
    return mode[k] != AIRBORNE and not B[k, Z] > 0.0


@kernel(inline=True)
def _schedule_on_bed(B, mode, ver, on, k, t, cue, P, segments, tips, holes, open_box, times, events, count):
    """``_schedule`` for a ball on the bed (``_on_bed``), inlined where it is frequent."""
    if mode[k] != STILL:
        _push(times, events, count, on, ver, B[k, TEND], TRANSITION, k, -1, 0)
        # A phase clear of every cushion, jaw and hole (most) saves the call and its arrays.
        if not _clear_of_features(B, k, open_box):
            _schedule_cushions(B, mode, ver, on, k, t, P, segments, tips, holes, open_box, times, events, count)
        if k == cue:
            _schedule_head_string(B, ver, on, k, t, P, times, events, count)
    _schedule_pairs(B, mode, ver, on, k, t, -1, P, times, events, count)


@kernel()
def _schedule(B, mode, ver, on, k, t, cue, P, segments, tips, holes, open_box, times, events, count, air):
    """Queue every event ball k may take part in from time t on its current phase. ``air``
    as ``run_shot``'s: in the level core no ball flies or rides a rail top, and the
    scheduling of those is not compiled there."""
    if _on_bed(B, mode, k):
        _schedule_on_bed(B, mode, ver, on, k, t, cue, P, segments, tips, holes, open_box, times, events, count)
        return
    if mode[k] == AIRBORNE:
        if air is not None:
            _schedule_flight(B, mode, ver, on, k, t, P, segments, tips, holes, times, events, count)
            if k == cue:
                _schedule_head_string(B, ver, on, k, t, P, times, events, count)
    elif mode[k] != STILL:  # on a rail top
        _push(times, events, count, on, ver, B[k, TEND], TRANSITION, k, -1, 0)
        if air is not None:
            _schedule_rail(B, mode, ver, on, k, t, P, holes, times, events, count)
        if k == cue:
            _schedule_head_string(B, ver, on, k, t, P, times, events, count)
    _schedule_pairs(B, mode, ver, on, k, t, -1, P, times, events, count)


# ---------------------------------------------------------------------- the shot
@kernel("(float64[:, ::1], int64[::1], int64, float64, int64, int64, float64, float64, float64, float64, "
        "float64)")
def _log(log, count, kind, t, a, b, x1, y1, x2, y2, flag):
    r = count[C_LOG]
    log[r, L_KIND], log[r, L_TIME], log[r, L_A], log[r, L_B] = kind, t, a, b
    log[r, L_X1], log[r, L_Y1], log[r, L_X2], log[r, L_Y2], log[r, L_FLAG] = x1, y1, x2, y2, flag
    count[C_LOG] += 1


@kernel("(float64[:, ::1], int64, int64)")
def _grown(rows, used, needed):
    """``rows`` with room for ``needed`` more rows past the first ``used``."""
    if used + needed <= rows.shape[0]:
        return rows
    bigger = np.empty((2 * rows.shape[0] + needed, rows.shape[1]))
    for i in range(used):  # element by element, as in ``_compact``
        for c in range(rows.shape[1]):
            bigger[i, c] = rows[i, c]
    return bigger


@kernel(inline=True)
def _ball_ball(B, mode, ver, on, k, j, t, cue, P, segments, tips, holes, open_box, times, events, count,
               log, record, phases, air):
    """Resolve the contact of balls k and j, both on the bed or both on a rail top, at time
    t (or pass a grazing touch), log it and schedule both balls' new phases."""
    R, spin_dec = P[P_R], P[P_SPIN_DEC]
    sk = state_at(B, mode, k, t, R, spin_dec)
    sj = state_at(B, mode, j, t, R, spin_dec)
    nx, ny = sj[0] - sk[0], sj[1] - sk[1]
    dist = hypot(nx, ny)
    nx, ny = nx / dist, ny / dist
    closing = (sk[2] - sj[2]) * nx + (sk[3] - sj[3]) * ny
    if closing <= 0.0:
        # The gap closed at a grazing root without closing: nothing to resolve.
        _schedule_pairs(B, mode, ver, on, k, t + _RETRY_DT, j, P, times, events, count)
        return
    ((vxk, vyk), wk), ((vxj, vyj), wj) = ball_ball_impulse(
        (sk[2], sk[3]), (sk[4], sk[5], sk[6]), (sj[2], sj[3]), (sj[4], sj[5], sj[6]), nx, ny, R,
        P[P_BALL_E], P[P_BALL_MU_MIN], P[P_BALL_MU_EXTRA], P[P_BALL_MU_DECAY])
    # Balls must leave a contact at least _MIN_SEPARATION apart in speed (see there).
    still_closing = (vxk - vxj) * nx + (vyk - vyj) * ny
    if still_closing > -_MIN_SEPARATION:
        push = 0.5 * (still_closing + _MIN_SEPARATION)
        vxk, vyk, vxj, vyj = vxk - push * nx, vyk - push * ny, vxj + push * nx, vyj + push * ny
    if sk[2] ** 2 + sk[3] ** 2 >= sj[2] ** 2 + sj[3] ** 2:
        _log(log, count, BALL, t, k, j, sk[0], sk[1], sj[0], sj[1], 0.0)
    else:
        _log(log, count, BALL, t, j, k, sj[0], sj[1], sk[0], sk[1], 0.0)
    _set_phase(B, mode, ver, k, t, sk[0], sk[1], vxk, vyk, wk[0], wk[1], wk[2], False, P, record, phases, count,
               B[k, Z])
    _set_phase(B, mode, ver, j, t, sj[0], sj[1], vxj, vyj, wj[0], wj[1], wj[2], False, P, record, phases, count,
               B[j, Z])
    _schedule(B, mode, ver, on, k, t, cue, P, segments, tips, holes, open_box, times, events, count, air)
    _schedule(B, mode, ver, on, j, t, cue, P, segments, tips, holes, open_box, times, events, count, air)


@kernel(inline=True)
def _ball_ball_3d(B, mode, ver, on, k, j, t, cue, P, segments, tips, holes, open_box, times, events, count,
                  log, record, phases, air):
    """``_ball_ball`` for balls at different heights (one in the air or on a rail top):
    the contact normal is 3-D (``ball_ball_impulse_3d``), and a ball on a surface driven
    down into it bounces off it (``_resume``)."""
    R, spin_dec = P[P_R], P[P_SPIN_DEC]
    sk = state_at(B, mode, k, t, R, spin_dec)
    sj = state_at(B, mode, j, t, R, spin_dec)
    zk, vzk = height_at(B, mode, k, t)
    zj, vzj = height_at(B, mode, j, t)
    nx, ny, nz = sj[0] - sk[0], sj[1] - sk[1], zj - zk
    dist = math.sqrt(nx * nx + ny * ny + nz * nz)
    nx, ny, nz = nx / dist, ny / dist, nz / dist
    closing = (sk[2] - sj[2]) * nx + (sk[3] - sj[3]) * ny + (vzk - vzj) * nz
    if closing <= 0.0:
        _schedule_pairs(B, mode, ver, on, k, t + _RETRY_DT, j, P, times, events, count)
        return
    (vk, wk), (vj, wj) = ball_ball_impulse_3d(
        (sk[2], sk[3], vzk), (sk[4], sk[5], sk[6]), (sj[2], sj[3], vzj), (sj[4], sj[5], sj[6]), nx, ny, nz, R,
        P[P_BALL_E], P[P_BALL_MU_MIN], P[P_BALL_MU_EXTRA], P[P_BALL_MU_DECAY])
    vxk, vyk, vzk = vk
    vxj, vyj, vzj = vj
    still_closing = (vxk - vxj) * nx + (vyk - vyj) * ny + (vzk - vzj) * nz
    if still_closing > -_MIN_SEPARATION:
        push = 0.5 * (still_closing + _MIN_SEPARATION)
        vxk, vyk, vzk = vxk - push * nx, vyk - push * ny, vzk - push * nz
        vxj, vyj, vzj = vxj + push * nx, vyj + push * ny, vzj + push * nz
    # A ball driven into the bed by a ball landing on it bounces back into that ball at
    # once: one pinch, resolved in steps (ball, bed, ball again). It is logged once.
    last = count[C_LOG] - 1
    again = (last >= 0 and log[last, L_KIND] == BALL and t - log[last, L_TIME] < _PINCH_DT
             and ((log[last, L_A] == k and log[last, L_B] == j) or (log[last, L_A] == j and log[last, L_B] == k)))
    if not again:
        if sk[2] ** 2 + sk[3] ** 2 >= sj[2] ** 2 + sj[3] ** 2:
            _log(log, count, BALL, t, k, j, sk[0], sk[1], sj[0], sj[1], 0.0)
        else:
            _log(log, count, BALL, t, j, k, sj[0], sj[1], sk[0], sk[1], 0.0)
    support_k = -1.0 if mode[k] == AIRBORNE else B[k, Z]
    support_j = -1.0 if mode[j] == AIRBORNE else B[j, Z]
    _resume(B, mode, ver, k, t, sk[0], sk[1], zk, vxk, vyk, vzk, wk[0], wk[1], wk[2], support_k, P, record,
            phases, count)
    _resume(B, mode, ver, j, t, sj[0], sj[1], zj, vxj, vyj, vzj, wj[0], wj[1], wj[2], support_j, P, record,
            phases, count)
    _schedule(B, mode, ver, on, k, t, cue, P, segments, tips, holes, open_box, times, events, count, air)
    _schedule(B, mode, ver, on, j, t, cue, P, segments, tips, holes, open_box, times, events, count, air)


@kernel(inline=True)
def _ball_cushion(B, mode, ver, on, k, kind, which, t, cue, P, segments, tips, holes, open_box, times,
                  events, count, log, record, phases, x0, y0, frozen, n_segments, air):
    """Resolve the contact of ball k, on the bed, with segment or jaw tip ``which`` at time
    t (or pass a grazing touch), log it and schedule the ball's new phase."""
    R = P[P_R]
    x, y, vx, vy, wx, wy, wz = state_at(B, mode, k, t, R, P[P_SPIN_DEC])
    if kind == SEGMENT:
        nx, ny = segments[which, S_NX], segments[which, S_NY]
        cushion = which
    else:
        nx, ny = x - tips[which, Q_X], y - tips[which, Q_Y]
        norm = hypot(nx, ny)
        nx, ny = nx / norm, ny / norm
        cushion = n_segments + which
    closing = -(vx * nx + vy * ny)  # (nx, ny) points from the cushion to the ball
    if closing <= 0.0:
        _schedule_cushions(B, mode, ver, on, k, t + _RETRY_DT, P, segments, tips, holes, open_box,
                           times, events, count)
        return
    vx, vy, wx, wy, wz = cushion_impulse(vx, vy, wx, wy, wz, nx, ny, R, P[P_SIN_NOSE], P[P_COS_NOSE],
                                         P[P_CUSHION_E], P[P_CUSHION_MU])
    leaving = vx * nx + vy * ny
    if leaving < _MIN_SEPARATION:
        vx, vy = vx + (_MIN_SEPARATION - leaving) * nx, vy + (_MIN_SEPARATION - leaving) * ny
    was_frozen = frozen[k, cushion] and hypot(x - x0[k], y - y0[k]) <= P[P_FROZEN_TOL]
    _log(log, count, SEGMENT, t, k, cushion, x, y, 0.0, 0.0, 1.0 if was_frozen else 0.0)
    _set_phase(B, mode, ver, k, t, x, y, vx, vy, wx, wy, wz, False, P, record, phases, count, 0.0)
    _schedule(B, mode, ver, on, k, t, cue, P, segments, tips, holes, open_box, times, events, count, air)


@kernel(inline=True)
def _air_cushion(B, mode, ver, on, k, kind, which, t, cue, P, segments, tips, holes, open_box, times, events,
                 count, log, record, phases, n_segments, air):
    """A flying ball meets a cushion's nose edge (``SEGMENT``) or a jaw tip's post (``TIP``):
    ``surface_impulse`` along the 3-D normal from the contact to the centre, with the
    cushion's restitution and friction; the ball flies on."""
    R = P[P_R]
    x, y, vx, vy, wx, wy, wz = state_at(B, mode, k, t, R, P[P_SPIN_DEC])
    z, vz = height_at(B, mode, k, t)
    if kind == SEGMENT:
        e = (segments[which, S_NX] * (x - segments[which, S_AX]) + segments[which, S_NY] * (y - segments[which, S_AY])
             - P[P_NOSE_INSET])
        nx, ny, nz = e * segments[which, S_NX], e * segments[which, S_NY], R + z - P[P_NOSE_H]
        cushion = which
    else:  # the post's side, or its top corner when the centre is above it
        nx, ny, nz = x - tips[which, Q_X], y - tips[which, Q_Y], max(R + z - P[P_NOSE_H], 0.0)
        cushion = n_segments + which
    norm = math.sqrt(nx * nx + ny * ny + nz * nz)
    nx, ny, nz = nx / norm, ny / norm, nz / norm
    if vx * nx + vy * ny + vz * nz >= 0.0:  # a grazing root: not closing
        _schedule(B, mode, ver, on, k, t + _RETRY_DT, cue, P, segments, tips, holes, open_box, times, events,
                  count, air)
        return
    vx, vy, vz, wx, wy, wz = surface_impulse(vx, vy, vz, wx, wy, wz, nx, ny, nz, R, P[P_CUSHION_E],
                                             P[P_CUSHION_MU])
    leaving = vx * nx + vy * ny + vz * nz
    if leaving < _MIN_SEPARATION:
        vx, vy, vz = (vx + (_MIN_SEPARATION - leaving) * nx, vy + (_MIN_SEPARATION - leaving) * ny,
                      vz + (_MIN_SEPARATION - leaving) * nz)
    _log(log, count, SEGMENT, t, k, cushion, x, y, 0.0, 0.0, 0.0)
    _set_flight(B, mode, ver, k, t, x, y, z, vx, vy, vz, wx, wy, wz, P, record, phases, count)
    _schedule(B, mode, ver, on, k, t, cue, P, segments, tips, holes, open_box, times, events, count, air)


# ``run_shot``'s arguments but the last, ``air``: None for the level core (compiled at
# import), True for the airborne core (compiled on first need, ``airborne_core``).
_RUN_SHOT_ARGS = ("float64[::1], float64[::1], int64, float64[::1], float64[::1], float64[:, ::1], "
                  "float64[:, ::1], float64[:, ::1], float64[::1], boolean[:, ::1], int64, boolean")


@kernel(f"({_RUN_SHOT_ARGS}, none)")
def run_shot(x0, y0, cue, strike, P, segments, tips, holes, open_box, frozen, max_events, record, air):
    """Play one shot: ball ``cue`` leaves (x0, y0)[cue] with ``strike`` = (vx, vy, wx, wy, wz,
    vz); a downward vz (an elevated cue) drives it into the bed first.

    ``air`` None is the level core: the same code with every airborne path (a strike into
    the bed, a flight, a landing, a rail top, a contact at different heights) left out
    before numba types it, so that the first import compiles the level shots' code alone.
    A level stroke never leaves the bed: the level core plays it as the airborne core
    (``air=True``) does, to the last bit. Where it would have to leave the bed (an elevated
    strike), the level core stops at once with status ``AIRBORNE_SHOT``: play the shot
    with ``air=True`` (``airborne_core`` first).

    ``P`` holds the constants (``P_*``), ``segments``/``tips``/``holes`` the table's features
    (``S_*``, ``Q_*``, ``H_*``), ``open_box`` the rectangle no feature reaches (x0, x1, y0,
    y1), ``frozen[k, c]`` whether ball k rested against cushion c (segments, then tips) at
    the strike. Returns (status, ball table, on-table flags, log rows, phase rows, counters,
    the time of the last event, the time everything is at rest), with status
    ``TOO_MANY_EVENTS`` when more than ``max_events`` events would be processed (or
    ``AIRBORNE_SHOT``, above). The log rows and the phase rows (every ball's phases, when
    ``record``) are the leading ``counters[C_LOG]`` and ``counters[C_PHASES]`` rows of their
    arrays; the ball table holds each ball's last phase.
    """
    n = x0.shape[0]
    R, spin_dec = P[P_R], P[P_SPIN_DEC]
    # Every call below gets borrowed views (no reference counting) of the arguments and of
    # the arrays made here. Those this returns stay alive to the return; the others (modes,
    # versions, the heap) are named in ``alive`` before each return, or numba would free
    # them after their last use by name, here.
    ball_table = np.zeros((n, BALL_COLUMNS))
    on_table = np.ones(n, np.bool_)
    counters = np.zeros(4, np.int64)
    log_rows = np.empty((64, LOG_COLUMNS))
    phase_rows = np.empty((64 if record else 0, PHASE_COLUMNS))
    modes = np.full(n, STILL, np.int64)
    versions = np.zeros(n, np.int64)
    heap_times = np.empty(_HEAP_SLOTS)
    heap_events = np.empty((_HEAP_SLOTS, 6), np.int64)
    B, on, count, log, phases = (borrowed(ball_table), borrowed(on_table), borrowed(counters),
                                 borrowed(log_rows), borrowed(phase_rows))
    mode, ver, times, events = borrowed(modes), borrowed(versions), borrowed(heap_times), borrowed(heap_events)
    x0, y0, strike, P, frozen = borrowed(x0), borrowed(y0), borrowed(strike), borrowed(P), borrowed(frozen)
    segments, tips, holes, open_box = borrowed(segments), borrowed(tips), borrowed(holes), borrowed(open_box)
    for k in range(n):
        B[k, X] = B[k, BX0] = B[k, BX1] = x0[k]
        B[k, Y] = B[k, BY0] = B[k, BY1] = y0[k]
        B[k, TEND] = INF
    n_segments = segments.shape[0]

    if strike[5] == 0.0:
        _set_phase(B, mode, ver, cue, 0.0, x0[cue], y0[cue], strike[0], strike[1], strike[2], strike[3],
                   strike[4], False, P, record, phases, count, 0.0)
    elif air is None:
        alive((modes, versions, heap_times, heap_events))
        return AIRBORNE_SHOT, ball_table, on_table, log_rows, phase_rows, counters, 0.0, 0.0
    else:
        _resume(B, mode, ver, cue, 0.0, x0[cue], y0[cue], 0.0, strike[0], strike[1], strike[5], strike[2],
                strike[3], strike[4], 0.0, P, record, phases, count)
    _schedule(B, mode, ver, on, cue, 0.0, cue, P, segments, tips, holes, open_box, times, events, count, air)
    processed = 0
    now = 0.0
    while count[C_HEAP] > 0:
        e = _pop(times, events, count)
        if not _is_current(events, e, on, ver):
            continue
        processed += 1
        if processed > max_events:
            alive((modes, versions, heap_times, heap_events))
            return TOO_MANY_EVENTS, ball_table, on_table, log_rows, phase_rows, counters, now, now
        time, kind, k, other = times[e], events[e, E_KIND], events[e, E_K], events[e, E_OTHER]
        now = time
        # Each event writes at most one log row and closes at most two phases. Room is
        # checked here, so that only a growth hands ``_grown`` an owned (counted) array.
        if count[C_LOG] + 1 > log.shape[0]:
            log_rows = _grown(log_rows, count[C_LOG], 1)
            log = borrowed(log_rows)
        if record and count[C_PHASES] + 2 > phases.shape[0]:
            phase_rows = _grown(phase_rows, count[C_PHASES], 2)
            phases = borrowed(phase_rows)
        if kind == TRANSITION:
            x, y, vx, vy, wx, wy, wz = state_at(B, mode, k, time, R, spin_dec)
            # Slip ends exactly at the end of a sliding phase: roll from there, never re-slide
            # on round-off. A rolling phase ends with the ball stopped.
            _set_phase(B, mode, ver, k, time, x, y, vx, vy, wx, wy, wz, mode[k] == SLIDING, P, record,
                       phases, count, B[k, Z])
            # The most frequent event: its scheduling inlined for a ball on the bed.
            if _on_bed(B, mode, k):
                _schedule_on_bed(B, mode, ver, on, k, time, cue, P, segments, tips, holes, open_box, times, events,
                                 count)
            else:
                _schedule(B, mode, ver, on, k, time, cue, P, segments, tips, holes, open_box, times, events, count,
                          air)
        elif kind == BALL:
            if mode[k] == AIRBORNE or mode[other] == AIRBORNE or B[k, Z] != B[other, Z]:
                if air is None:
                    alive((modes, versions, heap_times, heap_events))
                    return AIRBORNE_SHOT, ball_table, on_table, log_rows, phase_rows, counters, now, now
                _ball_ball_3d(B, mode, ver, on, k, other, time, cue, P, segments, tips, holes, open_box,
                              times, events, count, log, record, phases, air)
            else:
                _ball_ball(B, mode, ver, on, k, other, time, cue, P, segments, tips, holes, open_box,
                           times, events, count, log, record, phases, air)
        elif kind == SEGMENT or kind == TIP:
            if mode[k] == AIRBORNE:
                if air is None:
                    alive((modes, versions, heap_times, heap_events))
                    return AIRBORNE_SHOT, ball_table, on_table, log_rows, phase_rows, counters, now, now
                _air_cushion(B, mode, ver, on, k, kind, other, time, cue, P, segments, tips, holes, open_box,
                             times, events, count, log, record, phases, n_segments, air)
            else:
                _ball_cushion(B, mode, ver, on, k, kind, other, time, cue, P, segments, tips, holes, open_box,
                              times, events, count, log, record, phases, x0, y0, frozen, n_segments, air)
        elif kind == HOLE:
            x, y, _, _, _, _, _ = state_at(B, mode, k, time, R, spin_dec)
            if record:
                _close_phase(B, mode, k, time, phases, count)
            on[k] = False
            ver[k] += 1
            _log(log, count, HOLE, time, k, other, x, y, 0.0, 0.0, 0.0)
        elif kind == HEAD:
            x, y, vx, _, _, _, _ = state_at(B, mode, k, time, R, spin_dec)
            _log(log, count, HEAD, time, k, -1, x, y, 0.0, 0.0, 1.0 if vx > 0.0 else 0.0)
            _schedule_head_string(B, ver, on, k, time, P, times, events, count)
        elif air is None:  # LAND or RAIL: only a ball that left the bed meets them
            alive((modes, versions, heap_times, heap_events))
            return AIRBORNE_SHOT, ball_table, on_table, log_rows, phase_rows, counters, now, now
        else:  # LAND or RAIL
            x, y, vx, vy, wx, wy, wz = state_at(B, mode, k, time, R, spin_dec)
            z, vz = height_at(B, mode, k, time)
            if kind == LAND and other < LAND_OFF:
                _resume(B, mode, ver, k, time, x, y, z, vx, vy, vz, wx, wy, wz,
                        0.0 if other == LAND_BED else P[P_NOSE_H], P, record, phases, count)
                _schedule(B, mode, ver, on, k, time, cue, P, segments, tips, holes, open_box, times, events, count, air)
            elif kind == RAIL and RAIL_FALL <= other < RAIL_HOLE:
                _roll_off_edge(B, mode, ver, k, time, x, y, vx, vy, wx, wy, wz, other - RAIL_FALL, P, record,
                               phases, count)
                _schedule(B, mode, ver, on, k, time, cue, P, segments, tips, holes, open_box, times, events, count, air)
            else:  # off the table, or into a pocket
                if record:
                    _close_phase(B, mode, k, time, phases, count)
                on[k] = False
                ver[k] += 1
                if (kind == LAND and other == LAND_OFF) or (kind == RAIL and other == RAIL_OFF):
                    _log(log, count, OFF, time, k, -1, x, y, 0.0, 0.0, z)
                else:
                    hole = other - LAND_HOLE if kind == LAND else other - RAIL_HOLE
                    _log(log, count, HOLE, time, k, hole, x, y, 0.0, 0.0, 0.0)

    # At rest: the last translation and the last spin above the rest threshold have stopped.
    duration = now
    for k in range(n):
        if on[k]:
            duration = max(duration, B[k, T0] + max(0.0, abs(B[k, WZ]) - P[P_REST_SPIN]) / spin_dec)
    if record:
        phase_rows = _grown(phase_rows, count[C_PHASES], n)
        phases = borrowed(phase_rows)
        for k in range(n):
            if on[k]:
                _close_phase(B, mode, k, duration, phases, count)
    # A ball at rest on a rail top is off the table (WPA 8.5).
    log_rows = _grown(log_rows, count[C_LOG], n)
    log = borrowed(log_rows)
    for k in range(n):
        if on[k] and B[k, Z] > 0.0:
            on[k] = False
            _log(log, count, OFF, duration, k, -1, B[k, X], B[k, Y], 0.0, 0.0, B[k, Z])
    alive((modes, versions, heap_times, heap_events))
    return DONE, ball_table, on_table, log_rows, phase_rows, counters, now, duration


def airborne_core() -> None:
    """Make ``run_shot``'s airborne core (``air=True``) callable in this process: compiled,
    or loaded from the kernel cache, the first time a shot leaves the bed (nothing after)."""
    compile_later(run_shot, f"({_RUN_SHOT_ARGS}, boolean)")
