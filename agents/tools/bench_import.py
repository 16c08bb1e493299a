"""The first import's cost beside another commit's: ``poolgym bench-import``.

A fresh install compiles the simulator's numba kernels on its first ``import poolgym`` and
first shot (``poolgym.physics.jit``); every later process loads them from the disk cache.
Both figures are measured here in fresh processes, each tree and the commit ``--compare
REV`` alternating (``speed_compare``'s machinery: a ``git archive`` export of the commit,
the same probe script on both sides):

- **fresh cache**: ``import poolgym`` plus one simulated 9-ball break (the bench's break
  shot: 8 m/s at the one ball on the 7-ft table), with ``NUMBA_CACHE_DIR`` pointing at a new
  empty folder, so every kernel is compiled as on a first install and a kernel compiled
  lazily on first use counts too;
- **warm cache**: the same with a folder each tree filled before the measurements.

Each tree is imported once before the measurements (its bytecode is then written, as an
installer writes it). The best (lowest) figure of ``repeats`` processes is reported: the
machine is shared, and the least disturbed run is the best.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from poolgym.agents.tools import speed_compare

# The figures of one process of the probe (seconds) that the report carries.
FIGURES = ("seconds", "import_s", "shot_s")


def _timed(tree: Path, cache: Path) -> dict[str, float]:
    """One fresh process of ``tree``: import and first shot with its kernel cache in ``cache``."""
    return speed_compare.measure(tree, "first_import", {}, env={"NUMBA_CACHE_DIR": str(cache)})


def run(rev: str | None = None, repeats: int = 3) -> dict[str, Any]:
    """The best of ``repeats`` fresh processes, fresh and warm cache, for this tree and (with
    ``rev``) that commit, alternating; with ``rev`` the ratios this tree / the commit."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a whole number >= 1, got {repeats!r}")
    with tempfile.TemporaryDirectory(prefix="poolgym-bench-import-") as tmp:
        root = Path(tmp)
        trees = {speed_compare.CURRENT: speed_compare.ROOT}
        if rev is not None:
            trees[speed_compare.export(rev, root)] = root / "tree"
        warm = {name: root / f"warm-{i}" for i, name in enumerate(trees)}
        for name, tree in trees.items():  # bytecode written, warm caches filled
            _timed(tree, warm[name])
        runs: dict[str, dict[str, list[dict[str, float]]]] = {name: {"fresh": [], "warm": []} for name in trees}
        for rep in range(repeats):
            for i, (name, tree) in enumerate(trees.items()):
                fresh = root / f"fresh-{rep}-{i}"
                runs[name]["fresh"].append(_timed(tree, fresh))
                shutil.rmtree(fresh, ignore_errors=True)
                runs[name]["warm"].append(_timed(tree, warm[name]))
    report: dict[str, Any] = {"compare": rev, "repeats": repeats, "trees": list(trees), "cache": {}}
    for cache in ("fresh", "warm"):
        best = {name: min(runs[name][cache], key=lambda r: r["seconds"]) for name in trees}
        entry: dict[str, Any] = {"best": {name: {k: round(best[name][k], 3) for k in FIGURES} for name in trees},
                                 "all_seconds": {name: [round(r["seconds"], 3) for r in runs[name][cache]]
                                                 for name in trees}}
        if rev is not None:
            old = best[list(trees)[1]]["seconds"]
            entry["ratio"] = round(best[speed_compare.CURRENT]["seconds"] / old, 3) if old else None
        report["cache"][cache] = entry
    return report


def format_report(report: dict[str, Any]) -> str:
    """A plain table: per cache state the best seconds of each tree (import and first break,
    with the import's share), and the ratio this tree / the commit."""
    trees = report["trees"]
    rows = []
    for cache, title in (("fresh", "fresh cache (compiles)"), ("warm", "warm cache")):
        entry = report["cache"][cache]
        cells = [title] + [f"{entry['best'][t]['seconds']:.2f} ({entry['best'][t]['import_s']:.2f} import)"
                           for t in trees]
        if "ratio" in entry:
            cells.append("-" if entry["ratio"] is None else f"{entry['ratio']:.2f}")
        rows.append(cells)
    titles = ["import + first break, s"] + trees + (["ratio"] if len(trees) > 1 else [])
    widths = [max(len(t), *(len(r[i]) for r in rows)) for i, t in enumerate(titles)]
    lines = [titles, *rows]
    return "\n".join("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(line))
                     for line in lines) + f"\n(best of {report['repeats']} fresh processes per tree and row)"
