"""The MaskablePPO recipe's env alone (masked random actions, one process), per second of
CPU time, beside ``dc398ea`` (the throughput issue's commit) and ``3c5b2d5``: each figure the
best of five fresh processes, the trees alternating (``poolgym.agents.tools.speed_compare``,
the machinery of ``poolgym bench-train``). Run from the repository root:
``python benchmarks/archive/env_alone_cpu_time.py benchmarks/results/throughput/env_alone_cpu_time.json``.
"""

from __future__ import annotations

import json
import sys

from poolgym.agents.tools import speed_compare
from poolgym.files import atomic_write_text

CASE = dict(config="configs/train/nine_ball_maskable_ppo.yaml", steps=1000, seed=0)
REVS = ("dc398ea", "3c5b2d5")
REPS = 5


def main(path: str) -> None:
    rows = {}
    for rev in REVS:
        rows[rev] = speed_compare.compare("env_masked", [CASE], "cpu_steps_per_s", rev, reps=REPS)
        print(rev, rows[rev], flush=True)
    atomic_write_text(path, json.dumps({"probe": "env_masked", "key": "cpu_steps_per_s", "reps": REPS,
                                        "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
