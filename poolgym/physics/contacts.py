"""Closed-form contact impulses: ball-cushion (Han 2005) and ball-ball (frictional, inelastic).

Both act on a ball's full state: velocity (vx, vy) and spin (wx, wy, wz). Components are
taken with right-handed cross products of (x, y, z), the same convention as the rest of
the simulator (rolling is w = z x v / R). Both are compiled kernels (``poolgym.physics.jit``)
on float64 scalars, called by the event loop and callable from Python; the result depends
on nothing but the inputs.
"""

from __future__ import annotations

import math

from poolgym.physics.hypot import hypot
from poolgym.physics.jit import kernel


@kernel(inline=True)
def cushion_impulse(vx: float, vy: float, wx: float, wy: float, wz: float,
                    nx: float, ny: float, R: float, sin_nose: float, cos_nose: float,
                    restitution: float, friction: float) -> tuple[float, float, float, float, float]:
    """The ball's (vx, vy, wx, wy, wz) right after it meets a cushion.

    Han's impulse model (I. Han, "Dynamics in carom and three cushion billiards", Journal
    of Mechanical Science and Technology 19(4), 2005, eqs. 14-23; the form pooltool 0.6
    implements as ``han_2005``). The cushion touches the ball at its nose, a height h above
    the bed, on a contact normal tilted down by theta with sin(theta) = h / R - 1
    (``sin_nose``). The normal impulse (1 + e) times the approach speed along that normal
    is applied there, with Coulomb friction against the slip of the contact point, which
    either stops the slip (sticking) or is mu times the normal impulse along it (sliding).
    Because the contact point sits above the centre, both impulses act on all three spin
    components: the rail takes top spin and draw out of a ball, and side spin bends the
    rebound. The vertical impulse, which Han's model keeps, is taken by the bed here (balls
    never leave it).

    ``(nx, ny)`` is the unit normal from the cushion towards the ball; the ball must be
    approaching (v . n < 0).
    """
    # Cushion frame: e1 into the cushion, e2 = z x e1 along it.
    e1x, e1y = -nx, -ny
    e2x, e2y = -e1y, e1x
    u = vx * e1x + vy * e1y          # approach speed, > 0
    w = vx * e2x + vy * e2y          # speed along the cushion
    a1 = wx * e1x + wy * e1y         # spin about e1
    a2 = wx * e2x + wy * e2y         # spin about e2 (top spin for a ball heading in)
    # Slip of the contact point, in the contact plane (Han eq. 14), and the normal
    # impulse per unit mass (eq. 17): the ball's vertical velocity is zero.
    sx = u * sin_nose + R * a2
    sy = -w - R * wz * cos_nose + R * a1 * sin_nose
    pn = (1.0 + restitution) * u * cos_nose
    slip = hypot(sx, sy)
    # Per unit mass a tangential impulse p changes the slip by 7/2 p (eq. 16).
    if slip <= 3.5 * friction * pn:
        px, py = sx / 3.5, sy / 3.5
    else:
        px, py = friction * pn * sx / slip, friction * pn * sy / slip
    # Into the rail frame (eqs. 21-22) and onto the ball (eq. 23): I / (m R) = 2 R / 5.
    p_e1 = -px * sin_nose - pn * cos_nose
    p_e2 = py
    p_z = px * cos_nose - pn * sin_nose
    k = 2.5 / R
    u += p_e1
    w += p_e2
    a1 -= k * p_e2 * sin_nose
    a2 += k * (p_e1 * sin_nose - p_z * cos_nose)
    wz += k * p_e2 * cos_nose
    return (u * e1x + w * e2x, u * e1y + w * e2y,
            a1 * e1x + a2 * e2x, a1 * e1y + a2 * e2y, wz)


@kernel(inline=True)
def ball_ball_impulse(vk: tuple[float, float], wk: tuple[float, float, float],
                      vj: tuple[float, float], wj: tuple[float, float, float],
                      nx: float, ny: float, R: float, restitution: float,
                      friction_min: float, friction_extra: float, friction_decay: float):
    """Both balls' ((vx, vy), (wx, wy, wz)) right after ball k meets ball j.

    Equal masses; ``(nx, ny)`` is the unit normal from k's centre to j's and the balls are
    closing. The normal impulse carries restitution e; friction acts against the full 3-D
    slip of the contact points, which side spin makes horizontal and top or back spin
    vertical. Its coefficient follows the slip speed s as Alciatore measured it (TP A-14):
    mu = min + extra * exp(-decay * s). The tangential impulse is mu times the normal one,
    or what stops the slip if that is less (sticking: a change of 7 p for an impulse p per
    unit mass). This is the frictional, inelastic model of Alciatore's technical proofs
    A-5, A-6 and A-14, as pooltool 0.6 implements it (``frictional_inelastic``), with the
    friction taken on the normal impulse (Coulomb). Its horizontal part throws the object
    ball; its vertical part changes both balls' top and back spin (a draw shot loses some
    draw in the contact). The vertical impulse it implies is taken by the bed.
    """
    tx, ty = -ny, nx  # z x n
    vkn, vkt = vk[0] * nx + vk[1] * ny, vk[0] * tx + vk[1] * ty
    vjn, vjt = vj[0] * nx + vj[1] * ny, vj[0] * tx + vj[1] * ty
    # Spin about the tangent t (the one that makes the contact points slide vertically).
    wkt = wk[0] * tx + wk[1] * ty
    wjt = wj[0] * tx + wj[1] * ty
    closing = vkn - vjn
    pn = 0.5 * (1.0 + restitution) * closing
    # Contact points at +R n (on k) and -R n (on j): slip of k's surface past j's.
    slip_t = vkt - vjt + R * (wk[2] + wj[2])
    slip_z = -R * (wkt + wjt)
    slip = hypot(slip_t, slip_z)
    pt = pz = 0.0
    if slip > 0.0:
        mu = friction_min + friction_extra * math.exp(-friction_decay * slip)
        p = min(mu * pn, slip / 7.0)
        pt, pz = p * slip_t / slip, p * slip_z / slip
    # k receives -pn n - (pt t + pz z); j the opposite. The friction's torque about each
    # centre is the same for both balls: R n x (-(pt t + pz z)) = R (pz t - pt z).
    k = 2.5 / R
    dwt, dwz = k * pz, -k * pt
    vkn, vjn = vkn - pn, vjn + pn
    vkt, vjt = vkt - pt, vjt + pt
    return (((vkn * nx + vkt * tx, vkn * ny + vkt * ty),
             (wk[0] + dwt * tx, wk[1] + dwt * ty, wk[2] + dwz)),
            ((vjn * nx + vjt * tx, vjn * ny + vjt * ty),
             (wj[0] + dwt * tx, wj[1] + dwt * ty, wj[2] + dwz)))


@kernel()
def surface_impulse(vx: float, vy: float, vz: float, wx: float, wy: float, wz: float,
                    nx: float, ny: float, nz: float, R: float, restitution: float, friction: float):
    """A ball's (vx, vy, vz, wx, wy, wz) right after it meets a fixed surface: the bed, a
    rail top, or a cushion's nose edge met in the air.

    ``(nx, ny, nz)`` is the unit normal from the contact point to the ball's centre, and the
    ball must be approaching (v . n < 0). The normal impulse per unit mass is (1 + e) times
    the approach speed; friction acts against the slip of the contact point, Coulomb with
    coefficient ``friction`` or what stops the slip if that is less (a tangential impulse p
    per unit mass changes the slip by 7/2 p, I = 2/5 m R^2). This is the rigid-body impulse
    model Han 2005 applies at the cushion (see ``cushion_impulse``), with the contact normal
    in any direction; on the bed (n = z) it is the bounce of a ball driven down into the
    slate by an elevated cue (Alciatore, TP A-30's strike followed by the bed's reaction).
    """
    # Velocity of the contact point, at -R n from the centre: v + w x (-R n).
    cx = vx - R * (wy * nz - wz * ny)
    cy = vy - R * (wz * nx - wx * nz)
    cz = vz - R * (wx * ny - wy * nx)
    approach = -(vx * nx + vy * ny + vz * nz)
    pn = (1.0 + restitution) * approach
    # Slip: the contact point's velocity in the tangent plane.
    cn = cx * nx + cy * ny + cz * nz
    sx, sy, sz = cx - cn * nx, cy - cn * ny, cz - cn * nz
    slip = math.sqrt(sx * sx + sy * sy + sz * sz)
    p = 0.0
    if slip > 0.0:
        p = min(friction * pn, slip / 3.5)
        sx, sy, sz = sx / slip, sy / slip, sz / slip
    # Impulse pn n - p s on the ball; its torque about the centre is (-R n) x (-p s).
    k = 2.5 / R * p
    return (vx + pn * nx - p * sx, vy + pn * ny - p * sy, vz + pn * nz - p * sz,
            wx + k * (ny * sz - nz * sy), wy + k * (nz * sx - nx * sz), wz + k * (nx * sy - ny * sx))


@kernel(inline=True)
def ball_ball_impulse_3d(vk, wk, vj, wj, nx: float, ny: float, nz: float, R: float, restitution: float,
                         friction_min: float, friction_extra: float, friction_decay: float):
    """``ball_ball_impulse`` for balls whose centres are at different heights (one in the
    air, or on a rail top): the same frictional, inelastic model (Alciatore TP A-5, A-6,
    A-14) along a 3-D contact normal ``(nx, ny, nz)`` from k's centre to j's. ``vk``, ``wk``,
    ``vj``, ``wj`` are 3-vectors; returns ((vk, wk), (vj, wj)) after the contact. The
    vertical parts of the impulse stay with the balls (the caller lets the bed answer a
    ball driven into it)."""
    closing = (vk[0] - vj[0]) * nx + (vk[1] - vj[1]) * ny + (vk[2] - vj[2]) * nz
    pn = 0.5 * (1.0 + restitution) * closing
    # Contact points: +R n on k, -R n on j. Relative velocity of k's point past j's.
    rx = vk[0] - vj[0] + R * ((wk[1] + wj[1]) * nz - (wk[2] + wj[2]) * ny)
    ry = vk[1] - vj[1] + R * ((wk[2] + wj[2]) * nx - (wk[0] + wj[0]) * nz)
    rz = vk[2] - vj[2] + R * ((wk[0] + wj[0]) * ny - (wk[1] + wj[1]) * nx)
    rn = rx * nx + ry * ny + rz * nz
    sx, sy, sz = rx - rn * nx, ry - rn * ny, rz - rn * nz
    slip = math.sqrt(sx * sx + sy * sy + sz * sz)
    p = 0.0
    if slip > 0.0:
        mu = friction_min + friction_extra * math.exp(-friction_decay * slip)
        p = min(mu * pn, slip / 7.0)
        sx, sy, sz = sx / slip, sy / slip, sz / slip
    # k receives -pn n - p s, j the opposite; the friction's torque on each is
    # (+-R n) x (-+p s) = -R p (n x s), the same for both.
    k = 2.5 / R * p
    dwx, dwy, dwz = -k * (ny * sz - nz * sy), -k * (nz * sx - nx * sz), -k * (nx * sy - ny * sx)
    return (((vk[0] - pn * nx - p * sx, vk[1] - pn * ny - p * sy, vk[2] - pn * nz - p * sz),
             (wk[0] + dwx, wk[1] + dwy, wk[2] + dwz)),
            ((vj[0] + pn * nx + p * sx, vj[1] + pn * ny + p * sy, vj[2] + pn * nz + p * sz),
             (wj[0] + dwx, wj[1] + dwy, wj[2] + dwz)))
