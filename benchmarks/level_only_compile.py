"""What the first import would cost if the event core's airborne code were compiled only
when a shot first needs it: the bound on what a lazily compiled level-shot specialization
can save (the throughput issue's target: half of ``dc398ea``'s compile time).

Three trees, each timed as ``poolgym bench-import`` times one (``import poolgym`` plus the
bench's 9-ball break, a fresh ``NUMBA_CACHE_DIR`` for every process, the trees
alternating, the best of ``--repeats``):

- this working tree;
- ``dc398ea``, the commit the issue's targets are measured against;
- ``level_only``: this tree's ``HEAD`` with every airborne path cut out of
  ``poolgym/physics/event_core.py`` (``cut_airborne``): a stroke with a downward velocity,
  a contact between balls at different heights, a cushion met in the air, a landing, a
  rail top, and the scheduling of flights and rail rolls. Each cut branch ends the shot
  at once (``run_shot`` returns ``TOO_MANY_EVENTS``; inside the inlined contact handlers
  the event queue is emptied), so the kernels it called are neither typed nor compiled.
  Level shots never reach those branches: the copy plays the break to the same bits
  (checked here, ``same_break``).

The level-only figure bounds what a level-shot specialization of the core would compile:
such a specialization would also carry the branch that hands an airborne shot to the
full core, and a jump shot would then compile the full core besides.

    python benchmarks/level_only_compile.py benchmarks/results/throughput/level_only_compile.json [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from poolgym.agents.tools import speed_compare
from poolgym.files import atomic_write_text

BASE = "dc398ea"
CORE = Path("poolgym") / "physics" / "event_core.py"

# (what the tree has, what the level-only copy has instead): each must occur once.
_CUTS = (
    ("""    if mode[k] == AIRBORNE:
        _schedule_flight(B, mode, ver, on, k, t, P, segments, tips, holes, times, events, count)
        if k == cue:
            _schedule_head_string(B, ver, on, k, t, P, times, events, count)
    elif mode[k] != STILL:""",
     """    if mode[k] == AIRBORNE:
        pass
    elif mode[k] != STILL:"""),
    ("""        if B[k, Z] > 0.0:
            _schedule_rail(B, mode, ver, on, k, t, P, holes, times, events, count)
        else:""",
     """        if B[k, Z] > 0.0:
            pass
        else:"""),
    ("""        _ball_ball_3d(B, mode, ver, on, k, j, t, cue, P, segments, tips, holes, open_box, times, events,
                      count, log, record, phases, sk, sj)
        return""",
     """        count[C_HEAP] = 0
        return"""),
    ("""        _air_cushion(B, mode, ver, on, k, kind, which, t, cue, P, segments, tips, holes, open_box, times,
                     events, count, log, record, phases, n_segments)
        return""",
     """        count[C_HEAP] = 0
        return"""),
    ("""    else:
        _resume(B, mode, ver, cue, 0.0, x0[cue], y0[cue], 0.0, strike[0], strike[1], strike[5], strike[2],
                strike[3], strike[4], 0.0, P, record, phases, count)""",
     """    else:
        return TOO_MANY_EVENTS, B, on, log, phases, count, 0.0, 0.0"""),
)
# The event loop's last branch (landings and rail events) up to the end of the loop.
_LOOP_TAIL = ("        else:  # LAND or RAIL\n", "    # At rest: the last translation")

_BREAK = """
import json
from poolgym.agents.tools import speed_compare
speed_compare._use_tree_agents()
from poolgym.agents.tools import bench
from poolgym.physics import Shot, Simulator
from poolgym.table import Table
table = Table.preset(bench.TABLE)
rack = bench.rack_start(table)
result = Simulator(table).simulate(dict(rack), Shot(speed=bench.BREAK_SPEED, angle_deg=bench.aim_deg(rack[0], rack[1])))
print(json.dumps({"positions": {str(k): [x.hex(), y.hex()] for k, (x, y) in sorted(result.positions.items())},
                  "pocketed": sorted(result.pocketed), "duration": result.duration.hex()}))
"""


def cut_airborne(source: str) -> str:
    """``event_core.py``'s ``source`` with its airborne paths cut (module docstring);
    ``ValueError`` naming the first passage that is not there once."""
    for old, new in _CUTS:
        if source.count(old) != 1:
            raise ValueError(f"event_core.py no longer holds this passage once: {old.splitlines()[0].strip()!r}")
        source = source.replace(old, new)
    start, end = (source.find(mark) for mark in _LOOP_TAIL)
    if start < 0 or end < start:
        raise ValueError("event_core.py's event loop no longer ends with its LAND or RAIL branch")
    return (source[:start] + "        else:\n            return TOO_MANY_EVENTS, B, on, log, phases, count, now, now\n\n"
            + source[end:])


def _break(tree: Path, cache: Path) -> dict:
    """The bench's break played by ``tree`` (its final positions, pockets and duration as
    exact hex floats)."""
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(cache))
    proc = subprocess.run([sys.executable, "-c", _BREAK], cwd=tree, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"the break failed in {tree}:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run(repeats: int) -> dict:
    """The three trees' best fresh-cache seconds, their ratios, and whether the cut copy
    plays the break as this tree does."""
    with tempfile.TemporaryDirectory(prefix="poolgym-level-only-") as tmp:
        root = Path(tmp)
        (root / "base").mkdir()
        (root / "level").mkdir()
        trees = {"this tree": speed_compare.ROOT, BASE: root / "base" / "tree", "level_only": root / "level" / "tree"}
        speed_compare.export(BASE, root / "base")
        head = speed_compare.export("HEAD", root / "level")
        core = trees["level_only"] / CORE
        core.write_text(cut_airborne(core.read_text()))
        warm = {name: root / f"warm-{i}" for i, name in enumerate(trees)}
        breaks = {name: _break(trees[name], warm[name]) for name in ("this tree", "level_only")}
        seconds = {name: [] for name in trees}
        for rep in range(repeats):
            for i, (name, tree) in enumerate(trees.items()):
                fresh = root / f"fresh-{rep}-{i}"
                seconds[name].append(speed_compare.measure(tree, "first_import", {},
                                                           env={"NUMBA_CACHE_DIR": str(fresh)})["seconds"])
                shutil.rmtree(fresh, ignore_errors=True)
    best = {name: min(values) for name, values in seconds.items()}
    return {"level_only_from": head, "repeats": repeats, "fresh_cache_seconds": {n: [round(s, 3) for s in v]
                                                                                 for n, v in seconds.items()},
            "best": {n: round(s, 3) for n, s in best.items()},
            "ratios": {f"this tree / {BASE}": round(best["this tree"] / best[BASE], 3),
                       f"level_only / {BASE}": round(best["level_only"] / best[BASE], 3),
                       "level_only / this tree": round(best["level_only"] / best["this tree"], 3)},
            "same_break": breaks["this tree"] == breaks["level_only"]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the JSON file to write")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    report = run(args.repeats)
    atomic_write_text(args.out, json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
