"""``hypot``: the length of (x, y) exactly as CPython's ``math.hypot`` computes it.

numba compiles ``math.hypot`` to the C library's, which rounds differently from CPython's
in about one case in two hundred. One last bit is enough for a break to end differently,
and the simulation is chaotic: the kernels use this one so that a shot gives the same
result, to the last bit, as the interpreted formulas (and as earlier versions) did.

CPython (3.8 and later, ``vector_norm`` in Modules/mathmodule.c) scales the larger
coordinate into [0.5, 1), squares both coordinates exactly (Dekker's product), sums the
squares with compensation, takes the square root and applies one differential correction:
the result is correctly rounded in nearly every case.
"""

from __future__ import annotations

import math

import numpy as np

from poolgym.physics.jit import kernel

# The smallest positive normal double: coordinates below 2**-1024 are scaled by it first.
_DBL_MIN = 2.2250738585072014e-308
# Veltkamp's splitting constant for doubles, 2**27 + 1.
_SPLIT = 134217729.0


@kernel()
def _exact_product(x, y):
    """(hi, lo) with hi + lo = x * y exactly (Dekker's mul12, as CPython's ``dl_mul``)."""
    t = x * _SPLIT
    xh = t - (t - x)
    xl = x - xh
    t = y * _SPLIT
    yh = t - (t - y)
    yl = y - yh
    p = xh * yh
    q = xh * yl + xl * yh
    z = p + q
    return z, p - z + q + xl * yl


@kernel()
def _biased_exponent(x):
    """The exponent field of the double ``x`` (0 for zero and subnormals, 2047 for inf/nan)."""
    return (np.float64(x).view(np.int64) >> 52) & 0x7FF


@kernel()
def _norm(x, y, largest):
    """sqrt(x^2 + y^2) for finite x, y >= 0 with ``largest`` = max(x, y) > 2**-1024."""
    biased = _biased_exponent(largest)
    if 1 <= biased <= 2044:
        # frexp's exponent is biased - 1022 for a normal number, and 2**-(biased - 1022) is
        # a normal number too: the scale straight from its bits, without libm's calls.
        scale = np.int64((2045 - biased) << 52).view(np.float64)
    else:
        _, exponent = math.frexp(largest)
        scale = math.ldexp(1.0, -exponent)
    total, frac1, frac2 = 1.0, 0.0, 0.0
    for value in (x, y):
        value *= scale  # lossless
        hi, lo = _exact_product(value, value)
        s = total + hi  # compensated: the sum and its rounding error
        frac2 += (total - s) + hi
        total = s
        frac1 += lo
    h = math.sqrt(total - 1.0 + (frac1 + frac2))
    hi, lo = _exact_product(-h, h)
    s = total + hi
    frac2 += (total - s) + hi
    total = s
    frac1 += lo
    h += (total - 1.0 + (frac1 + frac2)) / (2.0 * h)  # differential correction
    return h / scale


@kernel("float64(float64, float64)")
def hypot(x, y):
    """sqrt(x^2 + y^2), bit for bit as CPython's ``math.hypot(x, y)``."""
    x, y = abs(x), abs(y)
    largest = max(x, y)
    if math.isinf(x) or math.isinf(y):
        return math.inf
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if largest == 0.0:
        return largest
    # 2**-exponent would overflow for the smallest subnormals: bring them up first (frexp
    # only for a subnormal, whose exponent field is 0).
    if _biased_exponent(largest) == 0 and math.frexp(largest)[1] < -1023:
        return _DBL_MIN * _norm(x / _DBL_MIN, y / _DBL_MIN, largest / _DBL_MIN)
    return _norm(x, y, largest)
