"""How many of the machine's cores a training run had over a stretch of time: those that sat
idle (``/proc/stat``) and those its own env worker processes used (``/proc/<pid>/stat``).

Training gives torch a second thread for its gradient updates only when a core was free
for it during the rollout before them: idle, or busy with the run's own env worker, which
waits on its pipe while the update runs. On a machine others use (two seeds trained at
once, say), a second thread has no core of its own: torch's OpenMP threads then wait at
every operation's barrier for a thread the scheduler has set aside, spinning while they
wait, and two runs on two cores each burned 3.4 times the CPU of a run alone for the same
work.
"""

from __future__ import annotations

import os
from pathlib import Path

PROC_STAT = Path("/proc/stat")


def cpu_times(text: str) -> tuple[int, int, int] | None:
    """(idle, total, cores) from ``/proc/stat``'s text: the idle and iowait ticks of the
    ``cpu`` line, the sum of its first eight fields (guest time is counted in user time
    already), and the number of ``cpuN`` lines; None when the text has no such line."""
    idle = total = None
    cores = 0
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "cpu" and len(fields) >= 5:
            ticks = [int(v) for v in fields[1:9]]
            idle, total = ticks[3] + (ticks[4] if len(ticks) > 4 else 0), sum(ticks)
        elif fields[0].startswith("cpu") and fields[0][3:].isdigit():
            cores += 1
    if idle is None or cores == 0:
        return None
    return idle, total, cores


def read_cpu_times(path: Path = PROC_STAT) -> tuple[int, int, int] | None:
    """``cpu_times`` of the machine now; None where there is no ``/proc/stat`` to read."""
    try:
        return cpu_times(path.read_text()[:1 << 20])
    except (OSError, ValueError):
        return None


def idle_cores(before: tuple[int, int, int] | None, after: tuple[int, int, int] | None) -> float | None:
    """The cores idle on average between two ``read_cpu_times``; None when either is None
    or no tick passed."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return (after[0] - before[0]) / (after[1] - before[1]) * after[2]


def stat_cpu_seconds(text: str, ticks_per_s: float) -> float:
    """The CPU seconds (user and system) in a ``/proc/<pid>/stat`` line: its fields after
    the command name (which may hold spaces and parentheses, so the last ``)`` ends it) are
    state (field 3) on, utime and stime fields 14 and 15, in clock ticks."""
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / ticks_per_s


def process_cpu_seconds(pid: int) -> float | None:
    """The CPU seconds process ``pid`` has used (``stat_cpu_seconds``); None where it
    cannot be read (the process is gone, or there is no ``/proc``)."""
    try:
        return stat_cpu_seconds(Path(f"/proc/{int(pid)}/stat").read_text()[:4096], os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def cpu_seconds(pids) -> float | None:
    """The CPU seconds the processes ``pids`` have used together; None when any cannot be read."""
    total = 0.0
    for pid in pids:
        seconds = process_cpu_seconds(pid)
        if seconds is None:
            return None
        total += seconds
    return total


def cores_used(before: float | None, after: float | None, seconds: float) -> float | None:
    """The cores used on average over ``seconds`` of wall clock by processes whose CPU
    seconds went from ``before`` to ``after`` (``cpu_seconds``); None when either is unknown."""
    if before is None or after is None or seconds <= 0:
        return None
    return max(0.0, after - before) / seconds


def threads_for(idle: float | None, rollout: int, update: int, run: float | None = None) -> int:
    """torch's threads for an update after a rollout on ``rollout`` threads that left
    ``idle`` cores idle while the run's own processes (this one and its env workers, which
    wait for the next step while the update runs) used ``run`` cores (None: taken as
    ``rollout``): a thread for each whole core of the two (counted from half a core), at
    least one, up to ``update``; ``update`` when the idle time is unknown."""
    if idle is None:
        return update
    return max(1, min(update, int(idle + (rollout if run is None else run) + 0.5)))
