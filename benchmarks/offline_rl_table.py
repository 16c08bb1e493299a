"""The offline-RL table of docs/datasets.md: runs of ``poolgym train`` from one dataset (CQL
and BC), each run's final curve point (the model, its untrained network and ``fixed`` on the
same protocol racks), its training figures, and, where given, its ``poolgym rate --json`` file.

    python benchmarks/offline_rl_table.py cql=runs/cql bc=runs/bc \
        --rating cql=cql_rating.json --rating bc=bc_rating.json \
        --json benchmarks/results/offline_rl/offline_rl.json --markdown benchmarks/results/offline_rl/table.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from poolgym.agents.tools.script_io import write_json, write_text
from poolgym.files import json_value, read_bounded

# Reading our own run folders: small JSON files, bounded all the same.
MAX_BYTES = 10_000_000


def _read(path: Path) -> dict:
    return json_value(read_bounded(path, MAX_BYTES, "a run's JSON file"), path, "a run's JSON file")


def _pairs(values: list[str], flag: str) -> dict[str, Path]:
    out = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise SystemExit(f"{flag}: {value!r} is not NAME=PATH")
        out[name] = Path(path)
    return out


def run_row(name: str, run: Path, rating: Path | None) -> dict:
    """One run's figures: algorithm, dataset, samples, training seconds, the curve's points and
    final results (trained, untrained, fixed per opponent), the fit to the recorded moves, the
    last loss terms (CQL) and the rating."""
    summary, curve = _read(run / "summary.json"), _read(run / "curve.json")
    imitation = summary["imitation"]
    row = {
        "name": name, "run": str(run), "algorithm": summary["config"]["algorithm"],
        "config": summary["config_source"], "dataset": imitation["dataset"], "rows": imitation["rows"],
        "samples": summary["steps"], "train_time_s": summary["train_time_s"],
        "held_out_action_agreement": imitation["held_out"].get("action_agreement"),
        "losses": imitation.get("losses"),
        "curve": [{k: p[k] for k in ("timesteps", "opponent", "racks", "wins", "win_rate", "ci95")}
                  for p in curve["points"]],
        "final": {f["opponent"]: {agent: {k: f[agent][k] for k in ("racks", "wins", "win_rate", "ci95")}
                                  for agent in ("trained", "untrained", "fixed")} for f in curve["final"]},
        "protocol": curve["protocol"], "seed": curve["seed"],
    }
    if rating is not None:
        rated = _read(rating)
        row["rating"] = {k: rated[k] for k in ("rating", "ci95", "racks", "seconds", "seed", "schedule") if k in rated}
    return row


def _rate(cell: dict) -> str:
    return f"{cell['win_rate']:.2f} [{cell['ci95'][0]:.2f}, {cell['ci95'][1]:.2f}] ({cell['racks']})"


def markdown(rows: list[dict]) -> str:
    opponents = list(rows[0]["final"])
    head = "| agent | " + " | ".join(f"racks won vs {o}" for o in opponents) + " | rating (95%) | samples, training time |"
    lines = [head, "|" + "---|" * (len(opponents) + 3)]
    for r in rows:
        rating = r.get("rating")
        rated = (f"{rating['rating']:.0f} [{rating['ci95'][0]:.0f}, {rating['ci95'][1]:.0f}] "
                 f"({rating['racks']} racks, {rating['seconds']:.0f} s)" if rating else "-")
        lines.append(f"| {r['algorithm']} (`{Path(r['config']).stem}`) | "
                     + " | ".join(_rate(r["final"][o]["trained"]) for o in opponents)
                     + f" | {rated} | {r['samples']:,}, {r['train_time_s']:.0f} s |")
    for agent in ("untrained", "fixed"):
        lines.append(f"| {agent} (same racks) | " + " | ".join(_rate(rows[0]["final"][o][agent]) for o in opponents)
                     + " | - | - |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="NAME=RUN_DIR, a run folder of poolgym train")
    parser.add_argument("--rating", action="append", default=[], help="NAME=FILE, poolgym rate --json output")
    parser.add_argument("--json", help="also write the figures to FILE")
    parser.add_argument("--markdown", help="also write the table to FILE")
    args = parser.parse_args()
    runs, ratings = _pairs(args.runs, "runs"), _pairs(args.rating, "--rating")
    rows = [run_row(name, run, ratings.get(name)) for name, run in runs.items()]
    finals = {json.dumps(r["final"][o][a], sort_keys=True) for r in rows for o in r["final"] for a in ("fixed",)}
    if len(finals) != len(rows[0]["final"]):
        raise SystemExit("the runs' fixed references differ: they were not measured on the same racks")
    text = markdown(rows)
    print(text)
    write_json(args.json, rows)
    write_text(args.markdown, text + "\n")


if __name__ == "__main__":
    main()
