"""Compiled calls on several threads: the kernels release the GIL while they run
(``poolgym.physics.jit.kernel``: numba's ``nogil``), so a call split into shares, each
played on a thread of its own, runs on as many cores (``Simulator.layout_plays``, the
batched envs' ``num_threads``).

``import poolgym`` does not import it (the batched envs do): nothing of a thread pool is
loaded or started at import.
"""

from __future__ import annotations

import numbers
import os
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Callable, Sequence


def available_cores() -> int:
    """The cores this process may run on: its CPU affinity where the system keeps one
    (Linux: a container's or ``taskset``'s limit), else every core of the machine."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows: no affinity call
        return os.cpu_count() or 1


def thread_count(num_threads: Any, name: str = "num_threads") -> int:
    """``num_threads`` (an argument called ``name``) as a count: None for
    ``available_cores()``, else a whole number >= 1 (``ValueError`` naming it otherwise)."""
    if num_threads is None:
        return available_cores()
    if isinstance(num_threads, bool) or not isinstance(num_threads, numbers.Integral) or num_threads < 1:
        raise ValueError(f"{name} must be None (the {available_cores()} cores available) or a whole "
                         f"number >= 1, got {num_threads!r}")
    return int(num_threads)


class KernelThreads:
    """``count`` threads for compiled calls: the calling thread and a pool of ``count - 1``
    workers, kept from call to call (starting threads for every call would cost more than a
    small call) until ``close``."""

    def __init__(self, count: int) -> None:
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 2:
            raise ValueError(f"count must be a whole number >= 2 (one thread needs no pool), got {count!r}")
        self.count = int(count)
        self._pool = ThreadPoolExecutor(self.count - 1, thread_name_prefix="poolgym-kernel")

    def run(self, calls: Sequence[Callable[[], Any]]) -> list:
        """Each of ``calls`` (at most ``count``) at the same time: the first in the calling
        thread, the others on the pool's; their results in order. Every call has ended
        when this returns or raises (the first call's error, else the first other's)."""
        if not 1 <= len(calls) <= self.count:
            raise ValueError(f"calls must be 1 to {self.count}, got {len(calls)}")
        futures = [self._pool.submit(call) for call in calls[1:]]
        try:
            first = calls[0]()
        finally:
            wait(futures)
        return [first, *(future.result() for future in futures)]

    def row_shares(self, count: int, least: int) -> list[slice]:
        """``count`` rows cut into contiguous shares for ``run``, one per thread but none of
        fewer than ``least`` rows (one share of every row when there are too few): a call on
        rows independent of each other, split so that each share runs on a thread."""
        shares = min(self.count, count // least)
        if shares < 2:
            return [slice(0, count)]
        cuts = [count * k // shares for k in range(shares + 1)]
        return [slice(a, b) for a, b in zip(cuts, cuts[1:])]

    def close(self) -> None:
        """Stop the workers (after the calls under way); a later ``run`` raises."""
        self._pool.shutdown(wait=True)
