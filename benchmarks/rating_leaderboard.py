"""The leaderboard's numbers: the shipped ladder's ratings (``ladder_ratings.json``), each
training recipe rated from the racks of its run's final evaluation (``curve_final`` of
``benchmarks/results/recipes/*/summary.json``: 200 racks against each of its opponents,
draws counted as no win, as the run reported them) with the ladder's ratings held fixed,
the ladder figure, and the leaderboard's tables in Markdown.

    python benchmarks/rating_leaderboard.py --json benchmarks/results/rating/recipes.json \\
        --figure docs/images/ladder_ratings.png --markdown benchmarks/results/rating/leaderboard.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from poolgym.agents.evaluation import rating
from poolgym.agents.tools.script_io import write_json, write_text

RECIPES = Path(__file__).resolve().parent / "results" / "recipes"


def recipe_ratings(ladder: dict) -> list[dict]:
    """Every recipe run with a final evaluation against rated rungs, rated (seed 0)."""
    fixed = rating.ladder_ratings(ladder)
    out = []
    for summary_path in sorted(RECIPES.glob("*/summary.json")):
        summary = json.loads(summary_path.read_text())
        final = [e["trained"] for e in summary.get("curve_final") or [] if e["opponent"] in fixed]
        if not final:
            continue
        pairings = [rating.Pairing(rating.RATED, e["opponent"], e["wins"], 0, e["racks"] - e["wins"]) for e in final]
        value, (low, high) = rating.rate_pairings(pairings, fixed)
        out.append({"recipe": summary_path.parent.name, "config": summary.get("config_source"),
                    "rating": round(value, 1), "ci95": [round(low, 1), round(high, 1)],
                    "against": {e["opponent"]: [e["wins"], e["racks"]] for e in final},
                    "steps": summary["steps"], "unit": "samples" if "imitation" in summary else "steps",
                    "train_time_s": summary["train_time_s"]})
    return sorted(out, key=lambda r: -r["rating"])


def markdown(ladder: dict, recipes: list[dict]) -> str:
    """The leaderboard's tables: the ladder, its adjacent pairs, the recipes."""
    lines = ["| agent | rating | 95% interval | seconds a move | racks |", "|---|---|---|---|---|"]
    for name, row in sorted(ladder["ratings"].items(), key=lambda kv: -kv[1]["rating"]):
        spm = "-" if row["seconds_per_move"] is None else f"{row['seconds_per_move']:.4f}"
        lines.append(f"| `{name}` | {row['rating']:.0f} | [{row['ci95'][0]:.0f}, {row['ci95'][1]:.0f}] | {spm} "
                     f"| {row['racks']} |")
    lines += ["", "| higher | lower | difference | 95% interval | separated | head to head |",
              "|---|---|---|---|---|---|"]
    for pair in ladder["adjacent"]:
        h2h = pair["head_to_head"]
        text = "-" if h2h is None else (f"{h2h['score']:g}/{h2h['racks']} "
                                        f"[{h2h['ci95'][0]:.2f}, {h2h['ci95'][1]:.2f}]")
        lines.append(f"| `{pair['higher']}` | `{pair['lower']}` | {pair['difference']:.0f} | "
                     f"[{pair['ci95'][0]:.0f}, {pair['ci95'][1]:.0f}] | {'yes' if pair['separated'] else 'no'} "
                     f"| {text} |")
    lines += ["", "| recipe | rating | 95% interval | racks won | training | command |", "|---|---|---|---|---|---|"]
    for r in recipes:
        won = ", ".join(f"{w}/{n} vs {o}" for o, (w, n) in r["against"].items())
        lines.append(f"| {r['recipe']} | {r['rating']:.0f} | [{r['ci95'][0]:.0f}, {r['ci95'][1]:.0f}] | {won} | "
                     f"{r['steps']:,} {r['unit']}, {_duration(r['train_time_s'])} | "
                     f"`poolgym train {r['config']}` |")
    return "\n".join(lines) + "\n"


def _duration(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json")
    parser.add_argument("--figure")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    ladder = rating.read_ladder()
    recipes = recipe_ratings(ladder)
    write_json(args.json, recipes)
    text = markdown(ladder, recipes)
    write_text(args.markdown, text)
    print(text)
    if args.figure:
        import matplotlib

        matplotlib.use("Agg")
        rating.plot_ladder(ladder).savefig(args.figure, dpi=110)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
