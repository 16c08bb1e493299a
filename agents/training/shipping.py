"""A finished training run copied into the package as a pretrained agent
(``poolgym.agents.pretrained``): its model, config, summary, curve, a compact training log
(the env episodes per 10,000 steps, or what a behaviour-cloning run was fitted to) and a
card saying what it is."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from poolgym.agents.training.run_folder import read_summary
from poolgym.envs.sb3_models import read_env_record
from poolgym.files import atomic_write_bytes, atomic_write_text

#: Steps per row of the compact training log (the monitor files are too large to ship).
LOG_EVERY_STEPS = 10_000


def training_log(monitor_dir: Path) -> list[dict]:
    """Episodes of every monitor file in step order, summed per ``LOG_EVERY_STEPS`` steps of
    one env: episodes, mean return and mean length per bucket. A curriculum's run keeps one
    folder per stage (``stage0``, ``stage1``, ...): each env's steps run on across them."""
    monitor_dir = Path(monitor_dir)
    stages = sorted((p for p in monitor_dir.glob("stage*") if p.is_dir() and p.name[5:].isdigit()),
                    key=lambda p: int(p.name[5:])) or [monitor_dir]
    rows: dict[int, list[tuple[float, int]]] = {}
    env_steps: dict[str, int] = {}
    for stage in stages:
        for path in sorted(stage.glob("*.monitor.csv")):
            steps = env_steps.get(path.name, 0)
            with path.open() as f:
                next(f)  # the JSON header line
                for row in csv.DictReader(f):
                    steps += int(row["l"])
                    rows.setdefault(steps // LOG_EVERY_STEPS, []).append((float(row["r"]), int(row["l"])))
            env_steps[path.name] = steps
    return [{"env_steps_from": k * LOG_EVERY_STEPS, "episodes": len(v),
             "mean_return": round(sum(r for r, _ in v) / len(v), 4),
             "mean_length": round(sum(n for _, n in v) / len(v), 2)} for k, v in sorted(rows.items())]


def ship_run(run_dir: str | Path, dest: str | Path, game: str, description: str,
             extra: dict | None = None) -> dict:
    """Copy the run in ``run_dir`` (``poolgym train --out``) to ``dest`` as a pretrained
    agent of ``game``; returns the card written there, with ``extra``'s fields added (what
    playing costs, say). A behaviour-cloning run's training log and card say what it was
    fitted to (its ``steps`` are training samples). ``ValueError`` when the run is not
    finished (no model or summary) or its model carries no env record."""
    run, dest = Path(run_dir), Path(dest)
    for name in ("model.zip", "summary.json"):
        if not (run / name).is_file():
            raise ValueError(f"{run} is not a finished run: no {name}")
    record = read_env_record(str(run / "model.zip"))
    if record is None:
        raise ValueError(f"{run / 'model.zip'} carries no env record")
    summary = read_summary(run / "summary.json")
    dest.mkdir(parents=True, exist_ok=True)
    # Each file copied whole, then renamed into place: a shipped agent is never half copied.
    atomic_write_bytes(dest / "model.zip", (run / "model.zip").read_bytes())
    for name in ("curve.json", "curve.png"):
        if (run / name).is_file():
            atomic_write_bytes(dest / name, (run / name).read_bytes())
    atomic_write_text(dest / "summary.json", json.dumps(summary, indent=1))
    atomic_write_text(dest / "config.json", json.dumps(summary["config"], indent=1))
    imitation = summary.get("imitation")
    log = imitation if imitation is not None else training_log(run / "monitor")
    atomic_write_text(dest / "training_log.json", json.dumps(log, indent=0))
    card = {"game": game, "env_id": record["env_id"], "algorithm": record["algorithm"],
            "action_mode": record["action_mode"], "seed": summary["config"]["seed"],
            "steps": summary["steps"], "train_time_s": summary["train_time_s"],
            "config_source": Path(summary["config_source"]).name, "description": description}
    if imitation is not None:
        card["steps_are"] = "imitation samples"
    card.update(extra or {})
    atomic_write_text(dest / "card.json", json.dumps(card, indent=1))
    return card
