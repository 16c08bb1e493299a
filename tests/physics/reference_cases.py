"""Fixed shots whose results are stored as reference data (``data/reference_results.json``).

The reference was produced by the simulator before the event core was made faster; the
tests in ``test_reference_results.py`` hold the current simulator to it. Non-chaotic shots
(straight-in, cuts, rails, draw and follow) are compared ball by ball; chaotic ones (breaks
and random shots from the rack, where the last bit of a root can change the outcome) by
their statistics.

Regenerate only on a deliberate physics change: ``python -m tests.physics.reference_cases``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from poolgym.physics import Shot, Simulator
from poolgym.table import Table

DATA = Path(__file__).parent / "data" / "reference_results.json"
TABLE = "9ft"
CHAOTIC_SHOTS = 1000
CHAOTIC_SEED = 2024


def _rack(table: Table) -> dict[int, tuple[float, float]]:
    layout = {0: (0.2 * table.length, table.width / 2.0)}
    layout.update(zip((1, 2, 3, 4, 9, 5, 6, 7, 8), table.rack_positions((1, 2, 3, 2, 1))))
    return layout


def non_chaotic_cases(table: Table) -> list[tuple[str, dict, Shot]]:
    """(name, layout, shot): straight-ins, cut shots, rail shots, draw, follow and stun."""
    cases = []
    L, W = table.length, table.width
    cue, obj = (0.8, W / 2.0), (1.6, W / 2.0)
    for speed in (0.8, 2.0, 4.0):
        cases.append((f"straight_{speed}", {0: cue, 1: obj}, Shot(speed=speed)))
    for vertical in (-0.4, 0.0, 0.4):
        cases.append((f"draw_follow_{vertical}", {0: cue, 1: obj}, Shot(speed=2.5, vertical=vertical)))
    for cut_deg in (15.0, 30.0, 45.0, 60.0):
        # Ghost-ball aim: the cue ball's centre meets the object ball off-centre by sin(cut).
        offset = 2.0 * table.ball_radius * math.sin(math.radians(cut_deg))
        aim = math.degrees(math.atan2(offset, obj[0] - cue[0]))
        cases.append((f"cut_{cut_deg:g}", {0: cue, 1: obj}, Shot(speed=2.0, angle_deg=aim, side=0.1)))
    for angle, side in ((60.0, 0.0), (75.0, 0.3), (100.0, -0.3), (-30.0, 0.2)):
        cases.append((f"rail_{angle:g}_{side:g}", {0: (L / 2.0, W / 2.0)}, Shot(speed=3.0, angle_deg=angle, side=side)))
    return cases


def chaotic_stats(sim: Simulator, table: Table) -> dict[str, dict[str, list[float]]]:
    """Per-shot balls pocketed, cue-ball scratches and time to rest for breaks (tournament
    noise on a centre-hit 8 m/s break) and random shots from the rack."""
    rack = _rack(table)
    rng = np.random.default_rng(CHAOTIC_SEED)
    noisy = Simulator(table, sim.params, noise="tournament")
    aim = math.degrees(math.atan2(rack[1][1] - rack[0][1], rack[1][0] - rack[0][0]))
    breaks = [noisy.simulate(rack, Shot(speed=8.0, angle_deg=aim), rng=rng) for _ in range(CHAOTIC_SHOTS)]
    shots = [Shot(speed=float(rng.uniform(0.8, 9.0)), angle_deg=float(rng.uniform(0.0, 360.0)),
                  side=float(rng.uniform(-0.5, 0.5)), vertical=float(rng.uniform(-0.5, 0.5)))
             for _ in range(CHAOTIC_SHOTS)]
    randoms = [sim.simulate(rack, s) for s in shots]
    return {name: {"pocketed": [len(r.pocketed) for r in results],
                   "scratch": [float(0 in r.pocketed) for r in results],
                   "duration": [r.duration for r in results]}
            for name, results in (("break", breaks), ("random", randoms))}


def compute() -> dict:
    """Every stored figure, from the simulator as it is now."""
    table = Table.preset(TABLE)
    sim = Simulator(table)
    exact = {}
    for name, layout, shot in non_chaotic_cases(table):
        res = sim.simulate(layout, shot)
        exact[name] = {"positions": {str(b): list(p) for b, p in res.positions.items()},
                       "pocketed": {str(b): p for b, p in res.pocketed.items()},
                       "events": [type(e).__name__ for e in res.events],
                       "event_times": [e.time for e in res.events],
                       "duration": res.duration}
    stats = {name: {key: [float(np.mean(v)), float(np.std(v))] for key, v in figures.items()}
             for name, figures in chaotic_stats(sim, table).items()}
    return {"table": TABLE, "chaotic_shots": CHAOTIC_SHOTS, "exact": exact, "chaotic": stats}


if __name__ == "__main__":
    DATA.write_text(json.dumps(compute(), indent=1) + "\n")
    print(f"wrote {DATA}")
