"""Drawing from many tables' NumPy generators inside one compiled call, as a compiled step
must (``benchmarks/results/throughput/compiled_share.md``): each generator's bit-generator
state and its C draw functions (``bit_generator.ctypes``) made into numba's own
bit-generator value, so that numba's NumPy distributions draw from it. Checks that every
table draws what ``Generator.normal(0.0, 1.0, size=K)`` draws and that each generator ends in
the state NumPy leaves it in, then times the draws a table: in the one call, in Python, and
through one compiled call per table given the ``Generator`` itself.
Usage: python benchmarks/generator_draws.py TABLES ROUNDS [--json FILE]"""
import argparse
import ctypes
import timeit

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.random.distributions import random_standard_normal

from poolgym.files import atomic_write_json

DRAWS = 4  # a shot's noise: speed, angle, side, vertical

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("tables", type=int)
parser.add_argument("rounds", type=int)
parser.add_argument("--json", help="also write the figures to this file")
args = parser.parse_args()

_BIT_GENERATOR = types.NumPyRandomBitGeneratorType("bit_generator")


@intrinsic
def _bit_generator(typingctx, state, next_uint64, next_uint32, next_double):
    """numba's bit-generator value (``numba.np.random.generator_core``) of a state address
    and its draw functions' addresses: what numba unboxes from a ``Generator``, built here
    from integers."""
    sig = _BIT_GENERATOR(types.uintp, types.uintp, types.uintp, types.uintp)

    def codegen(context, builder, signature, llargs):
        value = cgutils.create_struct_proxy(_BIT_GENERATOR)(context, builder)
        value.parent = cgutils.get_null_value(value.parent.type)
        value.state_address = value.state = llargs[0]
        value.fnptr_next_uint64, value.fnptr_next_uint32, value.fnptr_next_double = llargs[1:]
        value.bit_generator = cgutils.get_null_value(value.bit_generator.type)
        return value._getvalue()

    return sig, codegen


@njit(nogil=True)
def normals(handles, out):
    """``out[i]``: standard normal draws from table ``i``'s generator (``handles[i]``), as
    ``Generator.normal(0.0, 1.0)`` computes them."""
    for i in range(handles.shape[0]):
        bits = _bit_generator(handles[i, 0], handles[i, 1], handles[i, 2], handles[i, 3])
        for k in range(out.shape[1]):
            out[i, k] = 0.0 + 1.0 * random_standard_normal(bits)


@njit(nogil=True)
def normals_of(generator, out):
    for k in range(out.shape[0]):
        out[k] = generator.normal(0.0, 1.0)


def handle(generator: np.random.Generator) -> tuple[int, int, int, int]:
    """The state address and the draw functions' addresses of ``generator``'s bit generator
    (valid while it lives)."""
    c = generator.bit_generator.ctypes
    address = lambda f: ctypes.cast(f, ctypes.c_void_p).value  # noqa: E731
    return c.state_address, address(c.next_uint64), address(c.next_uint32), address(c.next_double)


generators = [np.random.default_rng(900_000 + i) for i in range(args.tables)]
references = [np.random.default_rng(900_000 + i) for i in range(args.tables)]
handles = np.array([handle(g) for g in generators], dtype=np.uint64)
out, one = np.zeros((args.tables, DRAWS)), np.zeros(DRAWS)
equal = True
for _ in range(args.rounds):
    normals(handles, out)
    equal &= bool((out == np.array([r.normal(0.0, 1.0, size=DRAWS) for r in references])).all())
states_equal = all(g.bit_generator.state == r.bit_generator.state for g, r in zip(generators, references))
normals_of(references[0], one)


def _per_table(call, number: int) -> float:
    return min(timeit.repeat(call, number=number, repeat=5)) / number / args.tables * 1e6


figures = {
    "tables": args.tables, "rounds": args.rounds, "draws_a_table": DRAWS,
    "draws_equal": equal, "states_equal": states_equal,
    "us_a_table_in_one_call": _per_table(lambda: normals(handles, out), 200),
    "us_a_table_in_python": _per_table(lambda: [r.normal(0.0, 1.0, size=DRAWS).tolist() for r in references], 20),
    "us_a_table_one_call_each_given_the_generator": _per_table(
        lambda: [normals_of(r, one) for r in references], 20),
}
for key, value in figures.items():
    print(f"{key}: {round(value, 3) if isinstance(value, float) else value}")
if args.json:
    atomic_write_json(args.json, figures)
