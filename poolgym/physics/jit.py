"""How the simulator's numeric kernels are compiled: ``kernel``, numba's ``njit`` with an
on-disk cache that is invalidated by an edit to any kernel module.

numba compiles a function on its first call (or at import when given a signature) and,
with ``cache=True``, stores the machine code beside the module (``__pycache__``, or
numba's user-wide cache directory when the package folder is read-only), so every later
process loads it in milliseconds instead of compiling for seconds. numba checks such a
cache against the source of the function's own file only, while a kernel calls kernels of
the other modules and carries their compiled code with it: an edit there would leave a
stale cache in use. The cache locator below therefore stamps every kernel with the
contents of all kernel modules together.
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache

import numba
from numba.core import caching

# The modules whose functions are compiled; each kernel's cache is valid for this source.
KERNEL_MODULES = ("contact_time.py", "contacts.py", "event_core.py", "hypot.py")
_HERE = os.path.dirname(os.path.abspath(__file__))


@lru_cache(maxsize=None)
def _kernel_source_digest(stamps: tuple) -> bytes:
    digest = hashlib.sha256()
    for name in KERNEL_MODULES:
        with open(os.path.join(_HERE, name), "rb") as f:
            digest.update(f.read())
    return digest.digest()


def kernel_source_stamp() -> bytes:
    """A digest of every kernel module's source: the freshness stamp of each kernel's cache."""
    stamps = []
    for name in KERNEL_MODULES:
        st = os.stat(os.path.join(_HERE, name))
        stamps.append((st.st_mtime_ns, st.st_size))
    return _kernel_source_digest(tuple(stamps))


class _KernelSourceStamp:
    """Mixin for numba's file-backed cache locators: only for this folder's functions, and
    stamped with all kernel modules' source rather than the defining file's alone."""

    def get_source_stamp(self):
        return kernel_source_stamp()

    @classmethod
    def from_function(cls, py_func, py_file):
        if os.path.dirname(os.path.abspath(py_file)) != _HERE:
            return None
        return super().from_function(py_func, py_file)


# numba's own order: a user-given cache directory, then __pycache__, then the user-wide one.
_LOCATORS = [type(f"KernelSource{base.__name__}", (_KernelSourceStamp, base), {})
             for base in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
                          caching.UserWideCacheLocator)]
if not any(issubclass(c, _KernelSourceStamp) for c in caching.CacheImpl._locator_classes):
    caching.CacheImpl._locator_classes[:0] = _LOCATORS


def kernel(*signature):
    """Compile a function with numba (no Python objects inside, IEEE arithmetic as in
    Python: no fast-math, so results match the interpreted formulas) and cache the machine
    code on disk. With a ``signature`` it is compiled (or loaded from the cache) at import
    and every call converts its arguments to it; without one it is compiled on its first
    call for the argument types met. numba specializes a kernel for each constant integer
    argument it is called with (``Literal[int]``), so the kernels called with constants take
    a signature: one compilation each."""
    return numba.njit(*signature, cache=True, nogil=True)
