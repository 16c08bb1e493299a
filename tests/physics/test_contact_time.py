"""``contact_time``: first contact times of parabolic motions against a brute-force search."""

from __future__ import annotations

import numpy as np
import pytest

from poolgym.physics.contact_time import INF, quartic_entry

R2 = (2 * 0.028575) ** 2


def _coefficients(d, v, a):
    """f(t) = |d + v t + a t^2 / 2|^2 - R2 as quartic coefficients (the simulator's form)."""
    (dx, dy), (vx, vy), (ax, ay) = d, v, a
    return (dx * dx + dy * dy - R2, 2.0 * (dx * vx + dy * vy), vx * vx + vy * vy + dx * ax + dy * ay,
            vx * ax + vy * ay, 0.25 * (ax * ax + ay * ay))


def _brute_first_crossing(c, horizon, samples=200_001):
    t = np.linspace(0.0, horizon, samples)
    f = c[0] + t * (c[1] + t * (c[2] + t * (c[3] + t * c[4])))
    below = np.nonzero(f <= 0.0)[0]
    if below.size == 0:
        return INF, t[1] - t[0]
    return t[below[0]], t[1] - t[0]


@pytest.mark.parametrize("seed", range(6))
def test_first_contact_matches_a_dense_search(seed):
    rng = np.random.default_rng(seed)
    checked = found = 0
    for _ in range(300):
        d = rng.uniform(-0.8, 0.8, 2)
        if d @ d <= R2:
            continue
        # Half the motions head at the other ball (with a miss distance), half anywhere.
        aimed = -d / np.linalg.norm(d) * rng.uniform(0.5, 4.0) + rng.normal(0.0, 0.3, 2)
        v = aimed if rng.uniform() < 0.5 else rng.uniform(-4.0, 4.0, 2)
        a = rng.normal(0.0, 2.0, 2)
        horizon = float(rng.uniform(0.05, 3.0))
        c = _coefficients(d, v, a)
        t = quartic_entry(*c, horizon)
        expected, step = _brute_first_crossing(c, horizon)
        checked += 1
        if expected == INF:
            # A miss, or a graze the grid stepped over: the gap then closes by a hair only.
            if t != INF:
                f_t = c[0] + t * (c[1] + t * (c[2] + t * (c[3] + t * c[4])))
                assert f_t >= 0.0 and min(c[0] + s * (c[1] + s * (c[2] + s * (c[3] + s * c[4])))
                                          for s in np.linspace(t, min(t + step, horizon), 50)) > -1e-9
            continue
        found += 1
        assert expected - step <= t <= expected + 1e-12
        assert c[0] + t * (c[1] + t * (c[2] + t * (c[3] + t * c[4]))) >= 0.0  # never past contact
    assert found > 50 and checked > 200


def test_touching_and_closing_is_an_immediate_contact():
    assert quartic_entry(0.0, -1.0, 0.0, 0.0, 0.0, 1.0) == 0.0


def test_parting_balls_never_meet():
    assert quartic_entry(0.01, 0.5, 1.0, 0.1, 0.01, 5.0) == INF
