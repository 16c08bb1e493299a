"""Exact times of contact for balls moving under constant acceleration.

Between two events every ball moves on a parabola, p(t) = p0 + v t + a t^2 / 2 (sliding and
rolling friction are constant decelerations in a fixed direction). Contact with a line is
then a quadratic in t and contact with a point or another ball a quartic. These functions
return the first time in [0, horizon] at which a gap closes, so the simulation can land
exactly on every contact: nothing tunnels and no contact is blurred.

Plain floats on purpose: for one pair a few float operations beat numpy's call overhead.
"""

from __future__ import annotations

import math

INF = math.inf
# A gap that is already closed counts as a contact only when closing faster than this
# (squared-distance units per second): balls resting against each other are not colliding.
_APPROACH_EPS = 1e-12
_TIME_TOL = 1e-13


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


def _cubic_roots(d0: float, d1: float, d2: float, d3: float, lo: float, hi: float) -> list[float]:
    """Real roots in (lo, hi) of d0 + d1 t + d2 t^2 + d3 t^3, in increasing order."""
    # Split (lo, hi) at the cubic's own critical points so it is monotone on each piece.
    cuts = [lo]
    a, b, c = 3.0 * d3, 2.0 * d2, d1
    if a != 0.0:
        disc = b * b - 4.0 * a * c
        if disc > 0.0:
            sq = math.sqrt(disc)
            for r in sorted(((-b - sq) / (2.0 * a), (-b + sq) / (2.0 * a))):
                if lo < r < hi:
                    cuts.append(r)
    elif b != 0.0:
        r = -c / b
        if lo < r < hi:
            cuts.append(r)
    cuts.append(hi)
    roots = []
    f = lambda t: d0 + t * (d1 + t * (d2 + t * d3))  # noqa: E731
    fa = f(cuts[0])
    for i in range(len(cuts) - 1):
        a_, b_ = cuts[i], cuts[i + 1]
        fb = f(b_)
        if (fa < 0.0) != (fb < 0.0):
            roots.append(_bisect(f, a_, b_, fa))
        fa = fb
    return roots


def _bisect(f, a: float, b: float, fa: float) -> float:
    """A root of a function that changes sign on [a, b] (monotone there): regula falsi with
    bisection safeguard (Illinois variant), to about 1e-13 s."""
    fb = f(b)
    side = 0
    for _ in range(100):
        if b - a <= _TIME_TOL:
            break
        m = (a * fb - b * fa) / (fb - fa) if fb != fa else 0.5 * (a + b)
        if not a < m < b:
            m = 0.5 * (a + b)
        fm = f(m)
        if (fm < 0.0) == (fa < 0.0):
            a, fa = m, fm
            if side == -1:
                fb *= 0.5
            side = -1
        else:
            b, fb = m, fm
            if side == 1:
                fa *= 0.5
            side = 1
    return a


def quartic_entry(c0: float, c1: float, c2: float, c3: float, c4: float, horizon: float) -> float:
    """First t in [0, horizon] where f(t) = c0 + c1 t + ... + c4 t^4 falls to 0 from above.

    f is a squared distance minus the squared contact distance, so f(0) = c0 is positive
    while the gap is open. The interval is split at f's critical points (roots of the cubic
    f'), f is monotone on each piece, and the first piece where f crosses zero downwards is
    refined. The returned time is at or just before the crossing: the gap is never negative.
    """
    if c0 <= 0.0 and c1 < -_APPROACH_EPS:
        return 0.0
    cuts = [0.0]
    cuts.extend(_cubic_roots(c1, 2.0 * c2, 3.0 * c3, 4.0 * c4, 0.0, horizon))
    cuts.append(horizon)
    f = lambda t: c0 + t * (c1 + t * (c2 + t * (c3 + t * c4)))  # noqa: E731
    fa = c0
    for i in range(len(cuts) - 1):
        a, b = cuts[i], cuts[i + 1]
        fb = f(b)
        if fa > 0.0 and fb <= 0.0:
            return _bisect(f, a, b, fa)
        fa = fb
    return INF
