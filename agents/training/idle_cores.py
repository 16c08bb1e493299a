"""How many of the machine's cores sat idle over a stretch of time, read from ``/proc/stat``.

Training gives torch a second thread for its gradient updates only when a core was idle
during the rollout before them. On a machine others use (two seeds trained at once, say),
a second thread has no core of its own: torch's OpenMP threads then wait at every
operation's barrier for a thread the scheduler has set aside, spinning while they wait,
and two runs on two cores each burned 3.4 times the CPU of a run alone for the same work.
"""

from __future__ import annotations

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


def threads_for(idle: float | None, rollout: int, update: int) -> int:
    """torch's threads for an update after a rollout that left ``idle`` cores idle while it
    ran on ``rollout`` threads: one more for each whole idle core (an idle core counts from
    half its time), up to ``update``; ``update`` when the idle time is unknown."""
    if idle is None:
        return update
    return max(1, min(update, rollout + int(idle + 0.5)))
