"""Whether compiled code computes what the Python step computes, function by function: the
``math`` functions the step's geometry calls (the legal-random opponent's aim, the free-spot
test, the rules' distances) and NumPy's draws, each compiled with numba and compared bit
for bit with CPython and NumPy on the same inputs. A compiled step must use only those
that agree, or a port that does.

numba's ``math.hypot`` is not CPython's: CPython (3.8 and later) computes it with a scaled,
corrected sum of squares (``vector_norm`` in ``Modules/mathmodule.c``). ``cpython_hypot``
below is that algorithm, compiled, checked beside it.

Inputs: differences of positions on a 9-foot table (metres, some tiny, some subnormal),
angles in degrees, ratios for ``asin``; draws from generators seeded 990000 on.
Usage: python benchmarks/compiled_exactness.py COUNT [--json FILE]"""
import argparse
import math

import numpy as np
from numba import njit

from poolgym.files import atomic_write_json

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("count", type=int)
parser.add_argument("--json", help="also write the figures to this file")
args = parser.parse_args()


@njit(inline="always")
def _split(x):
    """Veltkamp's split: ``x`` as a high half of 26 bits and the exact rest."""
    c = 134217729.0 * x
    hi = c - (c - x)
    return hi, x - hi


@njit(inline="always")
def _product(x, y):
    """``x * y`` and its rounding error, exactly (Dekker)."""
    xh, xl = _split(x)
    yh, yl = _split(y)
    p = xh * yh
    q = xh * yl + xl * yh
    z = p + q
    return z, p - z + q + xl * yl


@njit(inline="always")
def _sum(a, b):
    """``a + b`` and its rounding error, exactly (|a| >= |b|)."""
    x = a + b
    return x, (a - x) + b


@njit
def cpython_hypot(a, b):
    """CPython's ``math.hypot(a, b)``: its ``vector_norm`` of two coordinates."""
    x0, x1 = abs(a), abs(b)
    if math.isinf(x0) or math.isinf(x1):
        return math.inf
    if math.isnan(x0) or math.isnan(x1):
        return math.nan
    m = max(x0, x1)
    if m == 0.0:
        return m
    unit = 1.0
    _, e = math.frexp(m)
    if e < -1023:  # subnormal: lifted to normals, as CPython does before it recurses
        unit = 2.2250738585072014e-308
        x0, x1, m = x0 / unit, x1 / unit, m / unit
        _, e = math.frexp(m)
    scale = math.ldexp(1.0, -e)
    csum, frac1, frac2 = 1.0, 0.0, 0.0
    for v in (x0, x1):
        x = v * scale
        hi, lo = _product(x, x)
        csum, rest = _sum(csum, hi)
        frac1 += lo
        frac2 += rest
    h = math.sqrt(csum - 1.0 + (frac1 + frac2))
    hi, lo = _product(-h, h)
    csum, rest = _sum(csum, hi)
    frac1 += lo
    frac2 += rest
    h += (csum - 1.0 + (frac1 + frac2)) / (2.0 * h)
    return unit * (h / scale)


FUNCTIONS = ["hypot", "cpython_hypot", "atan2", "asin", "degrees", "radians", "cos", "sin", "sqrt"]


@njit
def compiled(dx, dy, angle, ratio, out):
    for i in range(dx.shape[0]):
        out[i, 0] = math.hypot(dx[i], dy[i])
        out[i, 1] = cpython_hypot(dx[i], dy[i])
        out[i, 2] = math.atan2(dy[i], dx[i])
        out[i, 3] = math.asin(ratio[i])
        out[i, 4] = math.degrees(angle[i] / 57.0)
        out[i, 5] = math.radians(angle[i])
        out[i, 6] = math.cos(math.radians(angle[i]))
        out[i, 7] = math.sin(math.radians(angle[i]))
        out[i, 8] = math.sqrt(abs(dx[i]))


def in_python(dx, dy, angle, ratio) -> np.ndarray:
    """CPython's values of ``compiled``'s columns (both hypot columns against ``math.hypot``)."""
    rows = [(math.hypot(x, y), math.atan2(y, x), math.asin(r), math.degrees(a / 57.0), math.radians(a),
             math.cos(math.radians(a)), math.sin(math.radians(a)), math.sqrt(abs(x)))
            for x, y, a, r in zip(dx.tolist(), dy.tolist(), angle.tolist(), ratio.tolist())]
    values = np.array(rows)
    return np.insert(values, 1, values[:, 0], axis=1)


@njit
def compiled_draws(generator, bounds, integers, doubles):
    for k in range(bounds.shape[0]):
        integers[k] = generator.integers(0, bounds[k])
        doubles[k] = generator.random()


rng = np.random.default_rng(990000)
n = args.count
dx = rng.uniform(-2.54, 2.54, n) * 10.0 ** rng.integers(-6, 1, n)
dy = rng.uniform(-1.27, 1.27, n) * 10.0 ** rng.integers(-6, 1, n)
dx[: n // 500] *= 1e-310  # a few subnormal
angle = rng.uniform(-180.0, 180.0, n)
ratio = rng.uniform(-1.0, 1.0, n)
out = np.zeros((n, len(FUNCTIONS)))
compiled(dx, dy, angle, ratio, out)
reference = in_python(dx, dy, angle, ratio)
differ = {name: int((out[:, k] != reference[:, k]).sum()) for k, name in enumerate(FUNCTIONS)}

# NumPy's draws: numba's Generator.integers and .random against NumPy's, and the states after.
bounds = rng.integers(1, 20, n // 10)
bounds[::7] = 1  # integers(1) draws nothing
ours, numpys = np.random.default_rng(990001), np.random.default_rng(990001)
integers, doubles = np.zeros(bounds.size, np.int64), np.zeros(bounds.size)
compiled_draws(ours, bounds, integers, doubles)
expected = [(numpys.integers(b), numpys.random()) for b in bounds]
draws_equal = bool((integers == [e[0] for e in expected]).all() and (doubles == [e[1] for e in expected]).all())
states_equal = ours.bit_generator.state == numpys.bit_generator.state

print(f"{n} inputs; values that differ from CPython's, by function:")
for name, count in differ.items():
    print(f"  {name:14s} {count}")
print(f"NumPy's integers and random, {bounds.size} each: draws equal {draws_equal}, states equal {states_equal}")
if args.json:
    atomic_write_json(args.json, {"command": f"python benchmarks/compiled_exactness.py {n}", "inputs": n,
                                  "differ": differ, "draws": int(bounds.size), "draws_equal": draws_equal,
                                  "states_equal": states_equal})
