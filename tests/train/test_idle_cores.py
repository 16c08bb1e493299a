"""The update threads sized to the idle cores: ``/proc/stat`` read, and the training callback
that gives torch a second thread only when a core sat idle during the rollout."""

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


def test_the_callback_updates_on_one_thread_when_no_core_was_idle(monkeypatch):
    """A rollout during which every core was busy (another run training beside this one):
    the update gets one thread; after a rollout with a core idle, two; one again for the
    next rollout."""
    import torch

    before = torch.get_num_threads()
    reads = iter([(0, 0, 2), (0, 200, 2),      # a busy rollout: no idle tick
                  (0, 200, 2), (95, 400, 2)])  # a core idle for most of it
    monkeypatch.setattr(idle_cores, "read_cpu_times", lambda: next(reads))
    callback = _update_threads(1, 2)
    try:
        callback.on_rollout_start()
        assert torch.get_num_threads() == 1
        callback.on_rollout_end()
        assert torch.get_num_threads() == 1
        callback.on_rollout_start()
        callback.on_rollout_end()
        assert torch.get_num_threads() == 2
        callback.on_training_end()
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
