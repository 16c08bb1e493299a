"""Training that shares a machine: the quickstart's training alone, then two copies at once.

Researchers run several seeds at once. Each run here is the quickstart's training (its
config, its steps, no evaluation) in a fresh process, timed by its own training clock
(steps/s) and by the process's wall and CPU seconds (user + system, its env worker
included: ``os.wait4`` of a process counts the children it waited for). First one run
alone, then two started together (seeds 0 and 1). The JSON holds each run and the ratios
the target names: each run of the pair within 2.3x the wall of the run alone, the pair's
steps/s together at least 0.85x the lone run's, and each run at most 1.15x its CPU.

CPU seconds for the same work are the robust figure on a machine others are using too: a
run that spins or oversubscribes burns more of them whatever else runs.

    python benchmarks/two_runs_at_once.py --json benchmarks/results/throughput/two_runs_at_once.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from poolgym.agents.tools.script_io import write_json

QUICKSTART_CONFIG = "train/pot_ball_maskable_ppo.yaml"

# The child: the quickstart's config trained without evaluation; its summary's training
# time and rate on the last line of its output.
CHILD = """
import json, sys
from poolgym.agents.training.train import train
from poolgym.configs import config_path
steps = int(sys.argv[3]) if sys.argv[3] != "0" else None
summary = train(config_path(sys.argv[1]), out=sys.argv[2], steps=steps, seed=int(sys.argv[4]), evaluate=False)
print(json.dumps({"steps": summary["steps"], "train_time_s": summary["train_time_s"],
                  "steps_per_s": summary["steps_per_s"]}))
"""


def start(config: str, out: Path, steps: int | None, seed: int) -> tuple[subprocess.Popen, float]:
    """A training run in a fresh process, with its start time."""
    process = subprocess.Popen([sys.executable, "-c", CHILD, config, str(out), str(steps or 0), str(seed)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return process, time.perf_counter()


def finish(runs: list[tuple[subprocess.Popen, float]]) -> list[dict]:
    """Waits for every run; each one's wall and CPU seconds and its summary's rate."""
    results: dict[int, dict] = {}
    pending = {process.pid: (process, started) for process, started in runs}
    while pending:
        pid, status, usage = os.wait4(-1, 0)
        if pid not in pending:
            continue
        process, started = pending.pop(pid)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out, err = process.communicate()
        if process.returncode != 0:
            raise RuntimeError(f"a training run failed ({process.returncode}):\n{err[-4000:]}")
        summary = json.loads(out.strip().splitlines()[-1])
        results[pid] = dict(summary, wall_s=round(wall, 2),
                            cpu_s=round(usage.ru_utime + usage.ru_stime, 2),
                            cpu_user_s=round(usage.ru_utime, 2), cpu_sys_s=round(usage.ru_stime, 2))
    return [results[process.pid] for process, _ in runs]


def measure(config: str, steps: int | None) -> dict:
    """One run alone, then two at once; the runs and the target's ratios."""
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory(prefix="two_runs_") as tmp:
        tmp = Path(tmp)
        alone = finish([start(config, tmp / "alone", steps, 0)])[0]
        pair = finish([start(config, tmp / f"pair{seed}", steps, seed) for seed in (0, 1)])
    ratios = {
        "wall_vs_alone": [round(run["wall_s"] / alone["wall_s"], 3) for run in pair],
        "cpu_vs_alone": [round(run["cpu_s"] / alone["cpu_s"], 3) for run in pair],
        "together_steps_per_s_vs_alone": round(sum(run["steps_per_s"] for run in pair) / alone["steps_per_s"], 3),
    }
    targets = {
        "each_wall_within_2.3x": all(r <= 2.3 for r in ratios["wall_vs_alone"]),
        "together_at_least_0.85x_steps_per_s": ratios["together_steps_per_s_vs_alone"] >= 0.85,
        "each_cpu_at_most_1.15x": all(r <= 1.15 for r in ratios["cpu_vs_alone"]),
    }
    return {"config": config, "alone": alone, "pair": pair, "ratios": ratios, "targets_met": targets,
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                        "load_before": load_before}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=QUICKSTART_CONFIG,
                        help=f"a config in poolgym.configs (default {QUICKSTART_CONFIG}, the quickstart's)")
    parser.add_argument("--steps", type=int, help="training steps per run (default: the config's)")
    parser.add_argument("--json", metavar="FILE", help="write the result to FILE")
    args = parser.parse_args(argv)
    result = measure(args.config, args.steps)
    print(json.dumps(result, indent=1))
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
