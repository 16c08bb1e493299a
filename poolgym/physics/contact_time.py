"""Exact times of contact for balls moving under constant acceleration.

Between two events every ball moves on a parabola, p(t) = p0 + v t + a t^2 / 2 (sliding and
rolling friction are constant decelerations in a fixed direction). Contact with a line is
then a quadratic in t and contact with a point or another ball a quartic. These functions
return the first time in [0, horizon] at which a gap closes, so the simulation can land
exactly on every contact: nothing tunnels and no contact is blurred.

All are compiled kernels (``poolgym.physics.jit``) on float64 scalars: the event loop
(``event_core``) calls them for every candidate pair, and they can be called from Python.
"""

from __future__ import annotations

import math

from poolgym.physics.jit import kernel

INF = math.inf
# A gap that is already closed counts as a contact only when closing faster than this
# (squared-distance units per second): balls resting against each other are not colliding.
_APPROACH_EPS = 1e-12
_TIME_TOL = 1e-13
# The critical points of a squared distance only split the search into monotone pieces: a
# microsecond's fraction is plenty (the distance is flat there, to second order).
_CUT_TOL = 1e-9
# What ``_convex_entry`` returns when it cannot decide (times are never negative).
_UNDECIDED = -1.0


@kernel()
def quadratic_entry(c0: float, c1: float, c2: float, horizon: float) -> float:
    """First t in [0, horizon] where g(t) = c0 + c1 t + c2 t^2 falls to 0 from above.

    ``c0`` is the current gap (positive when open). A closed gap that is closing gives 0.
    Returns ``inf`` when the gap does not close within the horizon.
    """
    if c0 <= 0.0:
        if c1 < -1e-12:
            return 0.0
        if c2 >= 0.0:
            return INF
        # Opening (or at rest) but accelerating back: g closes again at the larger root.
        disc = c1 * c1 - 4.0 * c2 * c0
        t = (-c1 - math.sqrt(max(disc, 0.0))) / (2.0 * c2)
        return t if 0.0 < t <= horizon else INF
    if c2 == 0.0:
        if c1 >= 0.0:
            return INF
        t = -c0 / c1
        return t if t <= horizon else INF
    disc = c1 * c1 - 4.0 * c2 * c0
    if disc < 0.0:
        return INF
    sq = math.sqrt(disc)
    # Numerically stable roots; the smaller non-negative one is where g first reaches 0.
    q = -0.5 * (c1 + math.copysign(sq, c1))
    r1 = q / c2
    r2 = c0 / q if q != 0.0 else INF
    lo, hi = (r1, r2) if r1 < r2 else (r2, r1)
    if lo >= 0.0:
        t = lo
    elif hi >= 0.0:
        t = hi
    else:
        return INF
    return t if t <= horizon else INF


@kernel(inline=True)
def _cubic_roots(d0: float, d1: float, d2: float, d3: float, lo: float, hi: float):
    """Real roots in (lo, hi) of d0 + d1 t + d2 t^2 + d3 t^3, in increasing order, as
    (count, r0, r1, r2): a cubic has at most three, the unused slots hold ``hi``."""
    # Split (lo, hi) at the cubic's own critical points so it is monotone on each piece.
    cut1 = cut2 = hi
    a, b, c = 3.0 * d3, 2.0 * d2, d1
    if a != 0.0:
        disc = b * b - 4.0 * a * c
        if disc > 0.0:
            sq = math.sqrt(disc)
            k1, k2 = (-b - sq) / (2.0 * a), (-b + sq) / (2.0 * a)
            if k2 < k1:
                k1, k2 = k2, k1
            if lo < k1 < hi:
                cut1 = k1
                if lo < k2 < hi:
                    cut2 = k2
            elif lo < k2 < hi:
                cut1 = k2
    elif b != 0.0:
        k = -c / b
        if lo < k < hi:
            cut1 = k
    count = 0
    r0 = r1 = r2 = hi
    a_ = lo
    fa = d0 + lo * (d1 + lo * (d2 + lo * d3))
    for i in range(3):
        b_ = cut1 if i == 0 else (cut2 if i == 1 else hi)
        fb = d0 + b_ * (d1 + b_ * (d2 + b_ * d3))
        if (fa < 0.0) != (fb < 0.0):
            root = _refine(d0, d1, d2, d3, 0.0, a_, b_, fa, fb, _CUT_TOL)
            if count == 0:
                r0 = root
            elif count == 1:
                r1 = root
            else:
                r2 = root
            count += 1
        if b_ == hi:
            break
        a_, fa = b_, fb
    return count, r0, r1, r2


@kernel()
def _refine(c0: float, c1: float, c2: float, c3: float, c4: float,
            a: float, b: float, fa: float, fb: float, tol: float) -> float:
    """A root of the polynomial f = c0 + c1 t + ... + c4 t^4, which changes sign on [a, b]
    and is monotone there (f(a) = fa, f(b) = fb), to ``tol`` seconds. The returned time is
    on a's side of the root (where f has fa's sign), at most ``tol`` before it (``tol`` is
    ``_TIME_TOL`` for contact times, ``_CUT_TOL`` for the critical points that split them).

    Newton's method kept inside the shrinking bracket (a secant step, or bisection, when a
    step leaves it); once the steps are below ``tol`` the next point is put just past the
    root, which closes the bracket. About five evaluations where regula falsi needed ten to forty near
    double precision. Polynomials are evaluated inline (Horner): this is the innermost loop.
    """
    d1, d2, d3 = 2.0 * c2, 3.0 * c3, 4.0 * c4
    a_negative = fa < 0.0
    x = a
    x_next = (a * fb - b * fa) / (fb - fa) if fb != fa else 0.5 * (a + b)
    for _ in range(100):
        if not a < x_next < b:
            # Newton left the bracket (near a flat end of the piece): a secant step inside it.
            x_next = (a * fb - b * fa) / (fb - fa) if fb != fa else 0.5 * (a + b)
            if not a < x_next < b or (x_next - a) * (b - x_next) == 0.0:
                x_next = 0.5 * (a + b)
        x = x_next
        fx = c0 + x * (c1 + x * (c2 + x * (c3 + x * c4)))
        if (fx < 0.0) == a_negative:
            a, fa = x, fx
        else:
            b, fb = x, fx
        if b - a <= tol:
            break
        slope = c1 + x * (d1 + x * (d2 + x * d3))
        x_next = x - fx / slope if slope != 0.0 else a
        if abs(x_next - x) < 0.5 * tol:
            # Converged from one side: the next point goes just past the root, closing the bracket.
            x_next = a + 0.5 * tol if x == a else b - 0.5 * tol
    return a


@kernel()
def quartic_entry(c0: float, c1: float, c2: float, c3: float, c4: float, horizon: float) -> float:
    """First t in [0, horizon] where f(t) = c0 + c1 t + ... + c4 t^4 falls to 0 from above.

    f is a squared distance minus the squared contact distance, so f(0) = c0 is positive
    while the gap is open. The interval is split at f's critical points (roots of the cubic
    f'), f is monotone on each piece, and the first piece where f crosses zero downwards is
    refined. The returned time is at or just before the crossing: the gap is never negative.
    """
    if c0 <= 0.0 and c1 < -_APPROACH_EPS:
        return 0.0
    if c0 > 0.0:
        # Most candidates never meet: a lower bound of f over [0, horizon] (c4 >= 0, and the
        # negative terms at their largest) that stays positive rules them out without roots.
        h = horizon
        bound = c0
        if c1 < 0.0:
            bound += c1 * h
        if c2 < 0.0:
            bound += c2 * h * h
        if c3 < 0.0:
            bound += c3 * h * h * h
        if bound > 0.0:
            return INF
        # f'' = 2 c2 + 6 c3 t + 12 c4 t^2 is smallest at t = -c3 / (4 c4) (or an end).
        turn = -c3 / (4.0 * c4) if c4 > 0.0 else (h if c3 < 0.0 else 0.0)
        turn = min(max(turn, 0.0), h)
        if 2.0 * c2 + turn * (6.0 * c3 + turn * 12.0 * c4) >= 0.0:
            t = _convex_entry(c0, c1, c2, c3, c4, h)
            if t != _UNDECIDED:
                return t
    count, r0, r1, r2 = _cubic_roots(c1, 2.0 * c2, 3.0 * c3, 4.0 * c4, 0.0, horizon)
    a, fa = 0.0, c0
    for i in range(count + 1):
        b = horizon if i == count else (r0 if i == 0 else (r1 if i == 1 else r2))
        fb = c0 + b * (c1 + b * (c2 + b * (c3 + b * c4)))
        if fa > 0.0 and fb <= 0.0:
            return _refine(c0, c1, c2, c3, c4, a, b, fa, fb, _TIME_TOL)
        a, fa = b, fb
    return INF


@kernel()
def point_entry(dx: float, dy: float, vx: float, vy: float, ax: float, ay: float,
                r2: float, horizon: float) -> float:
    """First time in [0, horizon] the centre, offset (dx, dy) from a fixed point and moving
    with (vx, vy) under (ax, ay), comes within sqrt(r2) of it (a jaw tip, a pocket hole)."""
    c0 = dx * dx + dy * dy - r2
    c1 = 2.0 * (dx * vx + dy * vy)
    c2 = vx * vx + vy * vy + dx * ax + dy * ay
    c3 = vx * ax + vy * ay
    c4 = 0.25 * (ax * ax + ay * ay)
    return quartic_entry(c0, c1, c2, c3, c4, horizon)


@kernel(inline=True)
def _convex_entry(c0: float, c1: float, c2: float, c3: float, c4: float, horizon: float) -> float:
    """``quartic_entry`` where f is convex on [0, horizon] and f(0) > 0: Newton's method from
    t = 0. On a convex function its steps rise towards the first root without passing it,
    and leave once the slope turns upwards (the gap's minimum stayed open), so no critical
    point has to be found first. Returns a time at most ``_TIME_TOL`` before the root, or
    ``_UNDECIDED`` when the steps creep (a near tangency), for the general search to decide."""
    d1, d2, d3 = 2.0 * c2, 3.0 * c3, 4.0 * c4
    t, f = 0.0, c0
    for _ in range(100):
        slope = c1 + t * (d1 + t * (d2 + t * d3))
        if slope >= 0.0:
            return INF
        t_next = t - f / slope
        if t_next > horizon:
            return INF
        f_next = c0 + t_next * (c1 + t_next * (c2 + t_next * (c3 + t_next * c4)))
        if f_next <= 0.0:
            # Past the root by round-off: refine inside the bracket just found.
            return _refine(c0, c1, c2, c3, c4, t, t_next, f, f_next, _TIME_TOL)
        if t_next - t <= _TIME_TOL:
            return t_next
        t, f = t_next, f_next
    return _UNDECIDED
