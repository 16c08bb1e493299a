"""``poolgym soak``: many random shots through the simulator, checking every invariant.

Half the shots break or play from a 9-ball rack with the cue ball anywhere, half from
random layouts of 1-15 object balls; speeds up to 12 m/s, any direction, random spin. Each
result is checked with ``poolgym.physics.invariants.shot_violations``.
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from poolgym.physics import Simulator
from poolgym.physics.invariants import random_layout, random_shot, shot_violations
from poolgym.table import Table


def _rack_layout(table: Table, rng: np.random.Generator) -> dict[int, tuple[float, float]]:
    positions = table.rack_positions((1, 2, 3, 2, 1))
    others = [2, 3, 4, 5, 6, 7, 8]
    rng.shuffle(others)
    order = [1, *others[:3], 9, *others[3:]]
    layout = dict(zip(order, positions))
    cue = random_layout(table, 0, rng)[0]
    while any(np.hypot(cue[0] - x, cue[1] - y) < 2 * table.ball_radius for x, y in positions):
        cue = random_layout(table, 0, rng)[0]
    layout[0] = cue
    return layout


def run_physics_soak(shots: int, seed: int = 0, table_name: str = "9ft") -> dict:
    """Simulate ``shots`` random shots and count every kind of failure."""
    table = Table.preset(table_name)
    sim = Simulator(table)
    rng = np.random.default_rng(seed)
    failures: Counter[str] = Counter()
    examples: list[str] = []
    events = 0
    max_events = 0
    start = time.perf_counter()
    for i in range(shots):
        layout = _rack_layout(table, rng) if i % 2 == 0 else random_layout(table, int(rng.integers(1, 16)), rng)
        shot = random_shot(rng)
        try:
            result = sim.simulate(layout, shot)
        except Exception as exc:  # a crash is what the soak is looking for
            failures["crash"] += 1
            if len(examples) < 5:
                examples.append(f"shot {i}: {type(exc).__name__}: {exc}")
            continue
        events += len(result.events)
        max_events = max(max_events, len(result.events))
        for problem in shot_violations(table, layout, result):
            failures[_kind(problem)] += 1
            if len(examples) < 5:
                examples.append(f"shot {i}: {problem}; layout {layout}; {shot}")
    elapsed = time.perf_counter() - start
    return {
        "shots": shots, "seed": seed, "table": table_name,
        "crashes": failures["crash"], "escapes": failures["escape"], "overlaps": failures["overlap"],
        "lost_balls": failures["conservation"], "non_finite": failures["non-finite"],
        "log_mismatches": failures["log"], "seconds": round(elapsed, 2),
        "shots_per_s": round(shots / elapsed, 1), "mean_events": round(events / max(1, shots), 1),
        "max_events": max_events, "examples": examples,
    }


def _kind(problem: str) -> str:
    for key, kind in (("escaped", "escape"), ("overlap", "overlap"), ("conserved", "conservation"),
                      ("both on the table", "conservation"), ("non-finite", "non-finite")):
        if key in problem:
            return kind
    return "log"


def format_report(report: dict) -> str:
    lines = [f"{report['shots']} random shots on the {report['table']} table (seed {report['seed']}): "
             f"{report['shots_per_s']} shots/s, {report['seconds']} s, "
             f"{report['mean_events']} events per shot (max {report['max_events']})"]
    for key in ("crashes", "escapes", "overlaps", "lost_balls", "non_finite", "log_mismatches"):
        lines.append(f"  {key.replace('_', ' '):15s} {report[key]}")
    lines.extend(f"  e.g. {example}" for example in report["examples"])
    return "\n".join(lines)
