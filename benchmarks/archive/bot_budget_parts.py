"""Where bot:strong's edge over bot:normal comes from: bot:normal's search budget with one
group of bot:strong's fields put in (its strokes, its noisy re-checks, its break search, its
ball-in-hand and bank search), each played head to head against bot:normal under the
NineBall-v1 protocol, beside bot:strong itself, with its CPU seconds a move.

    python benchmarks/archive/bot_budget_parts.py --parts strokes,rechecks,breaks,strong --racks 200 \\
        --seed 4242 --json benchmarks/archive/results/bot_budget_parts_seed4242.json

A part's racks won are the racks won by the budget with that part against bot:normal (Wilson
95%), its CPU seconds a move those of its own moves after the break
(``bot_cpu_per_move.Timed``: process time), and bot:normal's own the same way in the same run.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from poolgym.agents.bot.player import HeuristicBot
from poolgym.agents.bot.shot_search import SearchBudget
from poolgym.agents.evaluation.evaluate import run_match, summarize
from poolgym.agents.evaluation.protocol import protocol
from poolgym.agents.tools.script_io import write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, where bot_cpu_per_move.py is
from bot_cpu_per_move import Timed  # noqa: E402

# The groups of ``SearchBudget`` fields in which bot:strong's budget differs from bot:normal's.
PARTS = {
    "strokes": ("speeds", "spins", "max_pairs"),
    "rechecks": ("top_k", "noise_samples"),
    "breaks": ("break_speeds", "break_offsets", "break_spots"),
    "others": ("placements", "bank_pairs"),
}


def budget(part: str) -> SearchBudget:
    """bot:normal's budget with ``part``'s fields taken from bot:strong's (``"strong"``: all of
    them, bot:strong itself; ``"normal"``: none)."""
    normal, strong = SearchBudget.preset("normal"), SearchBudget.preset("strong")
    if part == "strong":
        return strong
    if part == "normal":
        return normal
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}; choose from {['normal', 'strong', *PARTS]}")
    return replace(normal, **{field: getattr(strong, field) for field in PARTS[part]})


def play(part: str, racks: int, seed: int) -> dict:
    """``part``'s budget against bot:normal on ``racks`` protocol racks: its racks won, their
    interval, its break-and-runs and pot success, and both sides' CPU seconds a move."""
    p = protocol("poolgym/NineBall-v1")
    clocks = [[0, 0.0], [0, 0.0]]
    bots = [Timed(HeuristicBot(p.rules, noise=p.noise, budget=budget(part), seed=seed, max_speed=p.max_speed),
                  clocks[0]),
            Timed(HeuristicBot(p.rules, noise=p.noise, budget="normal", seed=seed + 1, max_speed=p.max_speed),
                  clocks[1])]
    match = run_match(p.rules, bots, (part, "bot:normal"), racks, seed=seed, noise=p.noise)
    stats = summarize(match)["agents"][part]
    return {"part": part, "fields": list(PARTS.get(part, ())), "racks": racks, "seed": seed,
            "wins": stats["wins"], "win_rate": stats["win_rate"], "win_rate_ci95": stats["win_rate_ci95"],
            "break_and_runs": stats["break_and_runs"], "pot_success": stats["pot_success"],
            "cpu_s_per_move": clocks[0][1] / max(clocks[0][0], 1),
            "normal_cpu_s_per_move": clocks[1][1] / max(clocks[1][0], 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="strokes,rechecks,breaks,others,strong")
    parser.add_argument("--racks", type=int, default=200)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    rows = []
    for part in args.parts.split(","):
        rows.append(play(part, args.racks, args.seed))
        r = rows[-1]
        lo, hi = r["win_rate_ci95"]
        print(f"{part}: {r['wins']}/{r['racks']} ({r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]) vs bot:normal, "
              f"{r['break_and_runs']} break-and-runs, pot success {r['pot_success']:.3f}, "
              f"{r['cpu_s_per_move']:.4f} CPU s a move (bot:normal {r['normal_cpu_s_per_move']:.4f})", flush=True)
    write_json(args.json, {"command": "python benchmarks/archive/bot_budget_parts.py " + " ".join(argv or sys.argv[1:]),
                           "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
