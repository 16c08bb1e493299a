"""Learning curves in racks won (``curve`` in a training config): ``curve.json`` and
``curve.png`` in the run directory, rewritten at every evaluation point.

How racks are played (one way): ``poolgym.agents.evaluation.evaluate.run_match`` under
``poolgym.agents.evaluation.protocol.protocol(curve.protocol)`` (NineBall-v1 by default: its rules, rack gaps,
tournament noise and stroke cap), alternating breaks, seeded so that every point plays the
same racks. The network plays as ``poolgym.agents.evaluation.loading.PolicyAgent`` with the mapping and
observation format recorded for the model (deterministic actions; a MaskablePPO model
predicts with the masks), the same agent ``poolgym eval`` builds from the saved file.

At each point (every ``every_steps`` steps, and step 0 -- the untrained network), the
network plays ``racks`` racks against each of ``opponents``; at the end ``final_racks``
against each of ``final_opponents``. Each point's win rates also go to the run's
tensorboard log as scalars (``curve/<opponent>/racks_won``, ``curve_final/...``), at the
step they were measured. Beside it, on the same racks: the untrained network
(the starting weights, frozen) and the ladder's ``fixed`` agent played through the same
action mapping (its move encoded by the model's mapper and decoded back, ``MappedAgent``),
so the reference is what this action design can express, not the ladder agent's own
exact stroke. Rates carry 95% Wilson intervals.

A continued run (``train(..., resume=<out>/model.zip)``) keeps the points of the curve it
continues (same protocol, seed and action mode); its references are measured afresh (its
untrained network is the resumed one). Both files are written atomically.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any, Callable

from poolgym.agents.evaluation import EVAL_TABLES
from poolgym.agents.evaluation.evaluate import run_match, wilson_interval
from poolgym.agents.evaluation.loading import PolicyAgent, make_agent
from poolgym.agents.evaluation.protocol import protocol
from poolgym.agents.training.train_config import CurveConfig
from poolgym.envs.opponents import SB3Policy
from poolgym.envs.sb3_models import action_mapper
from poolgym.files import atomic_write_json, atomic_writer

CURVE_JSON, CURVE_PNG = "curve.json", "curve.png"


class MappedAgent:
    """A ladder agent whose moves pass through an action mapping: encoded to the nearest
    action and decoded back, so it plays only what that mapping can express."""

    def __init__(self, agent, mapper, rules) -> None:
        self.agent, self.mapper, self.rules = agent, mapper, rules

    def reseed(self, seed) -> None:
        if hasattr(self.agent, "reseed"):
            self.agent.reseed(seed)

    def choose(self, state):
        action = self.mapper.encode(self.agent.choose(state), state, self.rules)
        return self.mapper.decode(action, state, self.rules)


def model_agent(model, record: dict, rules, deterministic: bool = True, noise=None) -> PolicyAgent:
    """A model (or a policy) in memory as the agent ``poolgym eval`` would make of its file,
    its lookahead features (if it has them) played under ``noise``."""
    return PolicyAgent.from_record(SB3Policy(model, deterministic=deterministic), rules, record, noise)


class Curve:
    """Measures and writes the curve of one run (module docstring). ``untrained`` is the
    starting policy (frozen); ``record`` the model's env record; ``previous`` the curve data
    of the run this one continues, whose points are kept when it was measured the same way.
    ``progress(label, racks)``, when given, makes the progress display of one measurement (a
    context manager with a ``callback(done, total)`` called per rack, as
    ``poolgym.agents.tools.progress.Progress``): one per curve point and one for the final
    measurement, each labelled with what it plays."""

    def __init__(self, cfg: CurveConfig, record: dict, untrained, out: str | Path, seed: int,
                 previous: dict | None = None, progress: Callable[[str, int], Any] | None = None) -> None:
        self.cfg, self.record, self.seed = cfg, record, seed
        self.progress = progress
        self._callback = None
        self._logged = 0  # how many of ``data["points"]`` have gone to tensorboard
        self.protocol = protocol(cfg.protocol)
        rules = self.protocol.rules
        fixed = make_agent("fixed", rules, seed=seed, noise=self.protocol.noise, max_speed=self.protocol.max_speed)
        self.references = {"untrained": model_agent(untrained, record, rules, cfg.deterministic,
                                                    self.protocol.noise),
                           "fixed": MappedAgent(fixed, action_mapper(record, rules.table), rules)}
        self.out = Path(out)
        self.data = {"protocol": self.protocol.describe(), "env_id": cfg.protocol, "seed": seed,
                     "action_mode": record["action_mode"], "deterministic": cfg.deterministic,
                     "points": [], "references": [], "final": []}
        same = ("protocol", "env_id", "seed", "action_mode", "deterministic")
        if isinstance(previous, dict) and all(previous.get(k) == self.data[k] for k in same):
            self.data["points"] = list(previous.get("points", []))
        self._start = time.perf_counter()

    def racks_won(self, agent, opponent: str, racks: int) -> dict:
        """``agent``'s racks won against ``opponent`` on this curve's seeded racks."""
        p = self.protocol
        other = make_agent(opponent, p.rules, seed=self.seed + 1, noise=p.noise, max_speed=p.max_speed)
        match = run_match(p.rules, [agent, other], ("agent", opponent), racks, seed=self.seed, noise=p.noise,
                          progress=self._callback, racks_at_once=EVAL_TABLES)
        wins = sum(1 for r in match.racks if r.winner == 0)
        low, high = wilson_interval(wins, racks)
        return {"opponent": opponent, "racks": racks, "wins": wins, "win_rate": wins / racks,
                "ci95": [low, high]}

    def _reference(self, name: str, opponent: str, racks: int) -> dict:
        for row in self.data["references"]:
            if (row["agent"], row["opponent"], row["racks"]) == (name, opponent, racks):
                return row
        row = {"agent": name, **self.racks_won(self.references[name], opponent, racks)}
        self.data["references"].append(row)
        return row

    def _to_play(self, opponents, racks: int) -> int:
        """The racks a measurement against ``opponents`` plays: the network's, and the
        references' not measured yet."""
        measured = {(r["agent"], r["opponent"], r["racks"]) for r in self.data["references"]}
        return sum(racks * (1 + sum((name, o, racks) not in measured for name in self.references))
                   for o in opponents)

    @contextlib.contextmanager
    def _measuring(self, label: str, opponents, racks: int):
        """A progress display (``progress``) for one measurement, fed by ``racks_won``."""
        if self.progress is None:
            yield
            return
        with self.progress(label, self._to_play(opponents, racks)) as shown:
            self._callback = shown.callback
            try:
                yield
            finally:
                self._callback = None

    def point(self, model, timesteps: int) -> list[dict]:
        """Measure the current network against ``opponents`` and rewrite the files."""
        agent = model_agent(model, self.record, self.protocol.rules, self.cfg.deterministic, self.protocol.noise)
        rows = []
        label = f"curve point at {int(timesteps)} steps ({', '.join(self.cfg.opponents)})"
        with self._measuring(label, self.cfg.opponents, self.cfg.racks):
            for opponent in self.cfg.opponents:
                for name in self.references:
                    self._reference(name, opponent, self.cfg.racks)
                rows.append({"timesteps": int(timesteps), "time_s": round(time.perf_counter() - self._start, 2),
                             **self.racks_won(agent, opponent, self.cfg.racks)})
        self.data["points"] += rows
        self.write()
        return rows

    def final(self, model, timesteps: int) -> list[dict]:
        """The trained network and the references against ``final_opponents``."""
        agent = model_agent(model, self.record, self.protocol.rules, self.cfg.deterministic, self.protocol.noise)
        rows = []
        label = f"curve's final racks ({', '.join(self.cfg.final_opponents)})"
        with self._measuring(label, self.cfg.final_opponents, self.cfg.final_racks):
            for opponent in self.cfg.final_opponents:
                row = {"timesteps": int(timesteps), "opponent": opponent,
                       "trained": self.racks_won(agent, opponent, self.cfg.final_racks)}
                for name in self.references:
                    row[name] = self._reference(name, opponent, self.cfg.final_racks)
                rows.append(row)
        self.data["final"] = rows
        self.write()
        return rows

    def log_points(self, logger) -> None:
        """Write the points not logged yet to an SB3 ``logger`` (tensorboard) as scalars
        ``curve/<opponent>/racks_won``, each at the step it was measured."""
        for row in self.data["points"][self._logged:]:
            logger.record(f"curve/{row['opponent']}/racks_won", row["win_rate"])
            logger.dump(step=row["timesteps"])
        self._logged = len(self.data["points"])

    def log_final(self, logger, timesteps: int) -> None:
        """Write the final measurement to ``logger``: the network's and the references'
        win rates as ``curve_final/<opponent>/<agent>``."""
        for row in self.data["final"]:
            for name in ("trained", *self.references):
                logger.record(f"curve_final/{row['opponent']}/{name}", row[name]["win_rate"])
        logger.dump(step=int(timesteps))

    def write(self) -> None:
        """``curve.json`` and ``curve.png`` in the run directory."""
        atomic_write_json(self.out / CURVE_JSON, self.data)
        plot_curve(self.data, self.out / CURVE_PNG)


def plot_curve(data: dict, path: str | Path) -> Path:
    """One panel per opponent: racks won by the network over training steps (95% band),
    the untrained network and ``fixed`` as bands on the same racks, the final measurement
    as a square with its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents = list(dict.fromkeys([p["opponent"] for p in data["points"]] +
                                   [f["opponent"] for f in data["final"]]))
    fig, axes = plt.subplots(1, max(1, len(opponents)), figsize=(4.6 * max(1, len(opponents)), 3.8),
                             squeeze=False)
    for ax, opponent in zip(axes.flat, opponents):
        points = [p for p in data["points"] if p["opponent"] == opponent]
        if points:
            x = [p["timesteps"] for p in points]
            ax.plot(x, [p["win_rate"] for p in points], marker="o", label="network")
            ax.fill_between(x, [p["ci95"][0] for p in points], [p["ci95"][1] for p in points], alpha=0.25)
        racks = points[0]["racks"] if points else None
        for name, colour in (("untrained", "tab:grey"), ("fixed", "tab:orange")):
            ref = next((r for r in data["references"] if r["agent"] == name and r["opponent"] == opponent
                        and (racks is None or r["racks"] == racks)), None)
            if ref is not None:
                ax.axhline(ref["win_rate"], color=colour, linestyle="--", label=f"{name} ({ref['racks']} racks)")
                ax.axhspan(ref["ci95"][0], ref["ci95"][1], color=colour, alpha=0.12)
        for row in (f for f in data["final"] if f["opponent"] == opponent):
            t = row["trained"]
            ax.errorbar([row["timesteps"]], [t["win_rate"]],
                        yerr=[[t["win_rate"] - t["ci95"][0]], [t["ci95"][1] - t["win_rate"]]],
                        fmt="s", color="black", capsize=4, label=f"final ({t['racks']} racks)")
        ax.set_ylim(0, 1)
        ax.set_xlabel("training steps")
        ax.set_ylabel("racks won")
        ax.set_title(f"vs {opponent}", fontsize=10)
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"{data['protocol']} (95% Wilson intervals)", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    with atomic_writer(path, "wb") as f:
        fig.savefig(f, format="png", dpi=100)
    plt.close(fig)
    return path
