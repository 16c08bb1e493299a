"""How the simulator's numeric kernels are compiled: ``kernel``, numba's ``njit`` with an
on-disk cache that is invalidated by an edit to any kernel module, and that never stops an
import.

numba compiles a function on its first call (or at import when given a signature) and,
with a cache, stores the machine code on disk, so every later process loads it in
milliseconds instead of compiling for seconds. numba checks such a cache against the
source of the function's own file only, while a kernel calls kernels of the other modules
and carries their compiled code with it: an edit there would leave a stale cache in use.
The cache locators below therefore stamp every kernel with the contents of all kernel
modules together.

Where the cache lives, first match wins:

1. ``NUMBA_CACHE_DIR``, when set (a writable folder: the place for a read-only install
   shared by users without a home, or a container);
2. the package's own ``poolgym/physics/__pycache__``, when it can be written;
3. the same folder read-only, when it holds the kernel's entry (an install made read-only
   after its first import, or a wheel that carries the cache): loaded, never written;
4. numba's user-wide cache folder (``~/.cache/numba``);
5. none: the kernels are compiled in memory in every process, with one warning line.

The first compilation prints one line on stderr saying what happens and that it happens
once. A cache entry that cannot be read (a truncated or empty ``.nbi`` / ``.nbc`` file, an
entry from an incompatible build) is deleted and the kernel compiled again, with one
warning line; an entry that cannot be saved (a full disk) only costs the next process a
compilation.
"""

from __future__ import annotations

import glob
import hashlib
import os
import sys
from functools import lru_cache

import numba
from numba.core import caching

# The modules whose functions are compiled; each kernel's cache is valid for this source.
KERNEL_MODULES = ("contact_time.py", "contacts.py", "event_core.py", "hypot.py", "pot_geometry.py", "frozen.py",
                  "batch.py", "strikes.py", "stroke_summary.py", "borrow.py")
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


class _ReadOnlyInTreeLocator(caching.InTreeCacheLocator):
    """The package's ``__pycache__`` when it cannot be written but holds this kernel's
    index: entries are loaded from it; saving one fails and is reported once (``_KernelCache``)."""

    def ensure_cache_path(self):
        if not os.access(self.get_cache_path(), os.R_OK | os.X_OK):
            raise OSError(f"cannot read {self.get_cache_path()}")

    @classmethod
    def from_function(cls, py_func, py_file):
        self = cls(py_func, py_file)
        folder = self.get_cache_path()
        # numba's index name: "<module>.<qualname>-<first line>.py<version><abiflags>.nbi".
        module = os.path.splitext(os.path.basename(py_file))[0]
        name = f"{module}.{py_func.__qualname__}".replace("<", "").replace(">", "")
        index = (f"{name}-{py_func.__code__.co_firstlineno}.py{sys.version_info[0]}{sys.version_info[1]}"
                 f"{getattr(sys, 'abiflags', '')}.nbi")
        if os.access(folder, os.W_OK) or not os.access(os.path.join(folder, index), os.R_OK):
            return None
        return self


# numba's own order (a user-given cache directory, then a writable __pycache__, then the
# user-wide one), with a read-only __pycache__ that holds the entries before the last.
_LOCATORS = [type(f"KernelSource{base.__name__}", (_KernelSourceStamp, base), {})
             for base in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
                          _ReadOnlyInTreeLocator, caching.UserWideCacheLocator)]
if not any(issubclass(c, _KernelSourceStamp) for c in caching.CacheImpl._locator_classes):
    caching.CacheImpl._locator_classes[:0] = _LOCATORS

# The one-line notes already printed in this process (each is printed once).
_said: set[str] = set()


def _say_once(kind: str, text: str) -> None:
    """Print ``text`` on stderr, once per process for each ``kind``."""
    if kind not in _said:
        _said.add(kind)
        print(f"poolgym: {text}", file=sys.stderr, flush=True)


class _KernelCache(caching.FunctionCache):
    """numba's per-function cache, made to heal rather than fail: an entry that cannot be
    loaded is deleted (the kernel is then compiled and saved afresh), one that cannot be
    saved is skipped; the first compilation of a process is announced."""

    def load_overload(self, sig, target_context):
        try:
            data = super().load_overload(sig, target_context)
        except Exception as exc:  # noqa: BLE001 -- any unreadable entry: a truncated pickle, EOF, a bad build
            removed = self._drop_entries()
            _say_once("bad-entry", f"warning: unreadable compile-cache entry of "
                                   f"{self._py_func.__qualname__} in {self.cache_path} "
                                   f"({type(exc).__name__}: {exc}); "
                                   f"{'deleted it, recompiling' if removed else 'cannot delete it, compiling in memory'}")
            data = None
        if data is None:
            _say_once("compiling", f"compiling the simulator's numba kernels (ten to twenty seconds, once: "
                                   f"later imports load them from {self.cache_path})")
        return data

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except Exception as exc:  # noqa: BLE001 -- a read-only or full cache folder: the next process compiles
            _say_once("not-saved", f"warning: could not save compiled kernels in {self.cache_path} "
                                   f"({type(exc).__name__}: {exc}); they are compiled again in the next "
                                   f"process (set NUMBA_CACHE_DIR to a writable folder)")

    def _drop_entries(self) -> bool:
        """Delete this kernel's index and data files; whether they are gone."""
        index = self._cache_file._index_path
        paths = [index, *glob.glob(glob.escape(index[:-len(".nbi")]) + ".*.nbc")]
        try:
            for path in paths:
                if os.path.exists(path):
                    os.remove(path)
        except OSError:
            return False
        return True


def kernel(*signature, inline: bool = False):
    """Compile a function with numba (no Python objects inside, IEEE arithmetic as in
    Python: no fast-math, so results match the interpreted formulas) and cache the machine
    code on disk. With a ``signature`` it is compiled (or loaded from the cache) at import
    and only then: every later call, from Python or from another kernel, converts its
    arguments to it (numba would otherwise compile a new specialization for each constant
    integer a caller passes, ``Literal[int]``); ``compile_later`` adds a signature named in
    advance, on its first need. Without one it is compiled on its first call
    for the argument types met. The cache is ``_KernelCache`` in the first place the module
    docstring lists; with none, the kernel is compiled in memory (one warning line).

    What a compilation costs: numba compiles every kernel as a library of its own, with the
    machine code of all the kernels it calls linked in, optimized and emitted again, and a
    Python entry point. ``inline=True`` (for kernels called from one place in other kernels)
    instead puts the function's body into its caller before typing: no library of its own,
    the same arithmetic, and no cache entry of its own (called from Python, as tests do, it
    is compiled in memory on its first call).
    No kernel gets numba's C-callable wrapper (``cfunc``): nothing takes a kernel's address."""

    def compile_kernel(py_func):
        dispatcher = numba.njit(nogil=True, no_cfunc_wrapper=True,
                                inline="always" if inline else "never")(py_func)
        try:
            # What numba's ``cache=True`` does (``Dispatcher.enable_caching``), with our cache
            # class. An inlined kernel's code lives in its callers' entries: none of its own.
            if not inline:
                dispatcher._cache = _KernelCache(py_func)
        except RuntimeError as exc:  # numba's "no locator available": nowhere to read or write
            _say_once("uncached", f"warning: no usable folder for the compiled-kernel cache ({exc}); "
                                  f"compiling in memory in every process (set NUMBA_CACHE_DIR to a "
                                  f"writable folder)")
        for sig in signature:
            dispatcher.compile(sig)
        if signature:
            # Each specialization would carry its own copy of every kernel below it.
            dispatcher.disable_compile()
        return dispatcher

    return compile_kernel


# The (kernel, signature) pairs ``compile_later`` has made callable in this process.
_compiled_later: set[tuple[str, str]] = set()


def compile_later(dispatcher, signature: str) -> None:
    """Make another ``signature`` of a kernel whose signatures were fixed at import
    (``kernel`` with signatures) callable: compiled, or loaded from the cache, on its first
    need, for a specialization most processes never use and the first import need not
    compile (``event_core.airborne_core``). A second call does nothing."""
    key = (dispatcher.py_func.__qualname__, signature)
    if key in _compiled_later:
        return
    dispatcher.disable_compile(False)
    try:
        dispatcher.compile(signature)
    finally:
        dispatcher.disable_compile()
    _compiled_later.add(key)


class _CompiledCall:
    """The context of ``compiled_call``: a ``SystemError`` chain that holds a Ctrl-C leaves it
    as ``KeyboardInterrupt`` (``raise_interrupt_from``); every other error as it came."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, traceback) -> bool:
        if isinstance(exc, SystemError):
            raise_interrupt_from(exc)
        return False


_COMPILED_CALL = _CompiledCall()


def compiled_call() -> _CompiledCall:
    """``with compiled_call(): kernel(...)``, wherever Python calls a kernel: a Ctrl-C that
    arrived inside the compiled code comes out as ``KeyboardInterrupt`` (one shared context,
    so a call costs no allocation)."""
    return _COMPILED_CALL


def raise_interrupt_from(exc: SystemError) -> None:
    """Raise ``KeyboardInterrupt`` when ``exc`` is a Ctrl-C that arrived inside a compiled
    call; return otherwise (the caller re-raises ``exc``).

    A kernel's machine code calls back into Python (numba unpickles its constants there);
    a SIGINT whose handler runs in such a callback leaves the ``KeyboardInterrupt`` at the
    bottom of a chain of ``SystemError``s ("returned a result with an exception set"),
    which a caller that handles Ctrl-C (``poolgym train`` saving its model, ``collect``
    keeping its episodes) would otherwise report as a crash.
    """
    seen = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        seen = seen.__cause__ or seen.__context__
