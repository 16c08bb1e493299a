"""Staging a shot takes fast paths for its common cases: ``Shot.validate`` of a shot of plain
floats within every range in one test, and the execution noise drawn as one vector. Each
gives exactly what the full checks and the scalar draws give: the same shot or message, the
same numbers in the same order from the same generator."""

import itertools
import math

import numpy as np
import pytest

from poolgym.physics import Shot
from poolgym.physics.shot import Noise


def outcome(call):
    """What ``call()`` gives: ("ok", value) or ("error", its message)."""
    try:
        return "ok", call()
    except ValueError as exc:
        return "error", str(exc)


def bits(value):
    """A value's exact bits: floats (NumPy's too) as hex, containers item by item."""
    if isinstance(value, float):
        return float(value).hex()
    if isinstance(value, (tuple, list)):
        return tuple(bits(v) for v in value)
    if isinstance(value, Shot):
        return type(value).__name__, tuple(bits(getattr(value, f)) for f in value.__dataclass_fields__)
    return value


@pytest.mark.parametrize("seed", range(20))
def test_vector_normal_draws_are_the_scalar_draws_in_order(seed):
    # ``Noise.draws`` takes the speed, angle and tip draws as one vector of four: the same
    # numbers, in the same order, leaving the generator where four scalar draws leave it.
    vector, scalar = np.random.default_rng(seed), np.random.default_rng(seed)
    for size in (4, 5, 4, 1, 7):
        drawn = vector.normal(0.0, 1.0, size=size).tolist()
        assert [float(d).hex() for d in drawn] == [float(scalar.normal(0.0, 1.0)).hex() for _ in range(size)]
        assert vector.bit_generator.state == scalar.bit_generator.state
    for name in ("tournament", "fastfiz"):
        noise, scalar = Noise.preset(name), np.random.default_rng(seed)
        draws = noise.draws(np.random.default_rng(seed))
        assert [d.hex() for d in draws] == [float(scalar.normal(0.0, 1.0)).hex() for _ in range(len(draws))]
        assert len(draws) == (5 if noise.elevation_deg > 0 else 4)


def test_shot_validate_of_plain_floats_is_the_full_check():
    # NumPy float64 fields take the full checks (and are converted); plain floats of the
    # same values take the one-test common case when every check passes. Both must give
    # the same shot or the same message, on values at and around every bound.
    big, nan, inf = 1e308, math.nan, math.inf
    speeds = (3.0, 15.0, math.nextafter(15.0, inf), 1e-300, 0.0, -0.0, -2.0, nan, inf)
    angles = (0.0, -720.5, big, nan, -inf)
    tips = (0.0, 0.6, -0.8, math.nextafter(1.0, 0.0), 1.0, -1.0, nan)
    elevations = (0.0, 80.0, math.nextafter(80.0, inf), -0.0, -1e-300, nan)
    fast_taken = 0
    for values in itertools.product(speeds, angles, tips, tips, elevations):
        plain = Shot(*values)
        kind, got = outcome(lambda: plain.validate(15.0))
        ref_kind, expected = outcome(lambda: Shot(*map(np.float64, values)).validate(15.0))
        assert (kind, bits(got) if kind == "ok" else got) == \
            (ref_kind, bits(expected) if ref_kind == "ok" else expected), values
        if kind == "ok":
            assert got is plain  # a valid shot of plain floats is its own validated form
            fast_taken += 1
    assert fast_taken > 100
