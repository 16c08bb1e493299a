"""What every env worker process shares (the batched envs' shards, ``poolgym.envs.sharded``;
training's ``SplitVecEnv``): how it is started, and what it leaves to the process that
started it."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time

# How long a process polls its pipe (yielding its core to any process waiting for it)
# before it sleeps on it. The two sides of a lockstep step answer each other every step
# and the caller works between steps; a worker woken from sleep started its envs 1 to 3 ms
# late on a two-core virtual machine (benchmarks/results/throughput/sharded_env.md).
POLL_S = 0.01


def default_start_method() -> str:
    """``fork`` where the platform has it and this process runs no other thread (the
    worker then starts from this process as it is, its imports and compiled kernels
    loaded), else ``forkserver`` or ``spawn``, which need the worker's arguments to pickle."""
    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def settle_worker() -> None:
    """A worker's first act: Ctrl-C left to the parent, which closes the worker, and torch
    (when a policy opponent imported it) kept on one thread: a forked child must not enter
    the parent's OpenMP thread pool (it would wait on threads it does not have); on one
    thread torch runs every operation inline, as PyTorch's own DataLoader workers do."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def receive(conn) -> object:
    """The next message on ``conn``: the pipe polled for up to ``POLL_S``, then waited on
    asleep."""
    deadline = time.perf_counter() + POLL_S
    while not conn.poll(0) and time.perf_counter() < deadline:
        os.sched_yield()  # a process waiting to run on this core runs first
    return conn.recv()
