"""The update threads sized to the idle cores: ``/proc/stat`` read, and the training callback
that gives torch a second thread only when a core sat idle during the rollout."""

import os

import pytest

from poolgym.agents.training import idle_cores
from poolgym.agents.training.train import _update_threads

STAT = """cpu  100 5 50 1000 20 1 2 3 7 0
cpu0 50 2 25 500 10 0 1 1 0 0
cpu1 50 3 25 500 10 1 1 2 0 0
intr 12345 0 0
ctxt 999
"""


def test_cpu_times_read_idle_total_and_cores():
    # idle + iowait; the first eight fields summed (guest is inside user already); two cores.
    assert idle_cores.cpu_times(STAT) == (1020, 1181, 2)
    assert idle_cores.cpu_times("intr 1 2 3\n") is None
    assert idle_cores.cpu_times("") is None


def test_idle_cores_between_two_reads():
    assert idle_cores.idle_cores((1000, 2000, 2), (1090, 2100, 2)) == pytest.approx(1.8)
    assert idle_cores.idle_cores((1000, 2000, 2), (1000, 2100, 2)) == 0.0
    assert idle_cores.idle_cores(None, (1000, 2100, 2)) is None
    assert idle_cores.idle_cores((1000, 2100, 2), (1000, 2100, 2)) is None  # no tick passed


@pytest.mark.parametrize("idle, expected", [(0.0, 1), (0.4, 1), (0.6, 2), (0.95, 2), (7.0, 2), (None, 2)])
def test_threads_for_the_update(idle, expected):
    assert idle_cores.threads_for(idle, rollout=1, update=2) == expected


def test_read_cpu_times_of_this_machine_or_none(tmp_path):
    times = idle_cores.read_cpu_times()
    assert times is None or (times[0] <= times[1] and times[2] >= 1)
    assert idle_cores.read_cpu_times(tmp_path / "missing") is None


def _run_callback(monkeypatch, machine, run, rollouts):
    """The callback over ``rollouts`` rollouts of 10 s each, with ``/proc/stat`` reads
    ``machine`` and the run's CPU-second reads ``run`` (two of each per rollout): torch's
    thread count during each rollout and after it, then after training."""
    import torch

    from poolgym.agents.training import train as training

    clock = iter([0.0, 10.0] * rollouts)
    machine, run = iter(machine), iter(run)
    monkeypatch.setattr(idle_cores, "read_cpu_times", lambda: next(machine))
    monkeypatch.setattr(idle_cores, "cpu_seconds", lambda pids: next(run))
    monkeypatch.setattr(training, "time", type("Clock", (), {"perf_counter": staticmethod(lambda: next(clock))}))
    before = torch.get_num_threads()
    callback = _update_threads(1, 2)
    seen = []
    try:
        for _ in range(rollouts):
            callback.on_rollout_start()
            during = torch.get_num_threads()
            callback.on_rollout_end()
            seen.append((during, torch.get_num_threads()))
        callback.on_training_end()
        seen.append(torch.get_num_threads())
    finally:
        torch.set_num_threads(before)
    return seen


def test_the_callback_updates_on_one_thread_when_no_core_was_idle(monkeypatch):
    """A rollout during which every core was busy and the run had one of them (another run
    training beside this one): the update gets one thread; after a rollout with a core
    idle, two; one again for each rollout and after training."""
    machine = [(0, 0, 2), (0, 200, 2),      # a busy rollout: no idle tick
               (0, 200, 2), (95, 400, 2)]  # a core idle for most of it
    run = [0.0, 10.0, 10.0, 20.0]  # one core's worth of the run's CPU in each 10 s rollout
    assert _run_callback(monkeypatch, machine, run, 2) == [(1, 1), (1, 2), 1]


def test_the_callback_counts_the_runs_own_env_worker_as_a_free_core(monkeypatch):
    """A rollout stepped by this process and its env worker (``vec_env: batched_split``)
    on an otherwise idle two-core machine leaves 0.4 cores idle but the run used 1.6; the
    worker waits during the update, so the update gets two threads. Beside another run
    (no core idle, the run's two processes used one core between them), one. Where the
    run's CPU cannot be read, the rollout's own thread stands for it."""
    machine = [(0, 0, 2), (40, 200, 2)]  # 0.4 cores idle
    assert _run_callback(monkeypatch, machine, [0.0, 16.0], 1) == [(1, 2), 1]
    machine = [(0, 0, 2), (0, 200, 2)]
    assert _run_callback(monkeypatch, machine, [0.0, 10.0], 1) == [(1, 1), 1]
    machine = [(0, 0, 2), (40, 200, 2)]
    assert _run_callback(monkeypatch, machine, [None, None], 1) == [(1, 1), 1]


def test_process_cpu_seconds_read_from_proc(tmp_path):
    # A command name with spaces and a parenthesis: utime 250, stime 50 ticks at 100 per s.
    line = "4242 (python (x) y) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 3 0 10 1000 50"
    assert idle_cores.stat_cpu_seconds(line, 100) == pytest.approx(3.0)
    seconds = idle_cores.process_cpu_seconds(os.getpid())
    assert seconds is None or seconds > 0
    assert idle_cores.cpu_seconds([]) == 0.0
    assert idle_cores.cores_used(1.0, 4.0, 2.0) == pytest.approx(1.5)
    assert idle_cores.cores_used(None, 4.0, 2.0) is None


def test_worker_pids_found_through_wrappers():
    from poolgym.agents.training.train import _worker_pids

    process = type("Process", (), {"pid": 77})()
    inner = type("Split", (), {"processes": [process]})()
    wrapper = type("Wrapper", (), {"venv": inner})()
    assert _worker_pids(wrapper) == [77]
    assert _worker_pids(type("Dummy", (), {})()) == []
    assert _worker_pids(None) == []
