"""Steps per second of the batched env (``gym.make_vec(id, num_envs=N)``, ``BatchedPoolEnv``)
beside the single env (``gym.make``) and ``make_vec``'s wrapping of N single envs
(``vectorization_mode="sync"``), measured in one run (``poolgym bench-envs --batched``).

Only the envs' own calls are timed (``reset``, ``step``, ``action_masks``): drawing the
random actions is left out, so the three are compared on the same work. Actions are
masked-random in the masked modes (``choice_discrete``), uniform random otherwise, from a
seeded generator; each figure is the best of ``reps`` runs (the machine may be busy), and
the ratios are of figures from the same run.
"""

from __future__ import annotations

from poolgym.agents.tools import speed_compare
from poolgym.agents.tools.speed_compare import time_kind

KINDS = ("single", "sync", "batched")
FIGURES = ("steps_per_s", "cpu_steps_per_s")


def run(env_id: str, modes: list[str], sizes: list[int], steps: int, reps: int, compare: str | None = None) -> list[dict]:
    """One row per (mode, N): each kind's best table steps/s over ``reps`` runs (interleaved,
    so a busy spell hits all kinds alike), by wall clock and by CPU time, and the batched
    env's ratios to the others. With ``compare`` (a commit), every figure is measured in fresh
    processes of this tree and of that commit, alternating (``speed_compare``): each row then
    also holds the commit's figures and this tree's ratios to them."""
    rows = []
    for mode in modes:
        if compare is None:
            time_kind("batched", env_id, mode, 2, 3)  # compiles or loads the batched kernel first
        for n in sizes:
            per_table = max(1, steps // n)
            row = {"env_id": env_id, "action_mode": mode, "num_envs": n, "table_steps": n * per_table, "reps": reps}
            if compare is None:
                best = {kind: [0.0, 0.0] for kind in KINDS}
                for rep in range(reps):
                    for kind in KINDS:
                        figures = time_kind(kind, env_id, mode, n, per_table, seed=rep)
                        best[kind] = [max(b, f) for b, f in zip(best[kind], figures)]
                for kind, (wall, cpu) in best.items():
                    row[f"{kind}_steps_per_s"], row[f"{kind}_cpu_steps_per_s"] = round(wall, 1), round(cpu, 1)
            else:
                cases = [dict(kind=kind, env_id=env_id, action_mode=mode, num_envs=n, steps=per_table)
                         for kind in KINDS]
                for kind, measured in zip(KINDS, speed_compare.compare_keys("kind", cases, FIGURES, compare, reps)):
                    for figure in FIGURES:
                        for name, value in measured[figure].items():
                            suffix = "" if name == speed_compare.CURRENT else f"_{name}"
                            row[f"{kind}_{figure}{suffix}"] = value
            row["batched_over_single"] = round(row["batched_steps_per_s"] / row["single_steps_per_s"], 3)
            row["batched_over_sync"] = round(row["batched_steps_per_s"] / row["sync_steps_per_s"], 3)
            rows.append(row)
    return rows


def format_report(rows: list[dict]) -> str:
    """The rows as text: table steps/s of each kind by wall clock, the batched env's ratios,
    the CPU-time figures; with a compared commit, each kind beside that commit's."""
    lines = [f"{'mode':<16}{'N':>4}{'single':>10}{'sync':>10}{'batched':>10}{'b/single':>10}{'b/sync':>8}"
             f"{'cpu single':>12}{'cpu batched':>12}{'cpu b/single':>13}"]
    for r in rows:
        lines.append(f"{r['action_mode']:<16}{r['num_envs']:>4}{r['single_steps_per_s']:>10.0f}"
                     f"{r['sync_steps_per_s']:>10.0f}{r['batched_steps_per_s']:>10.0f}"
                     f"{r['batched_over_single']:>10.2f}{r['batched_over_sync']:>8.2f}"
                     f"{r['single_cpu_steps_per_s']:>12.0f}{r['batched_cpu_steps_per_s']:>12.0f}"
                     f"{r['batched_cpu_steps_per_s'] / r['single_cpu_steps_per_s']:>13.2f}")
    others = sorted({key.rsplit("_", 1)[-1] for key in rows[0] if key.startswith("single_steps_per_s_")} - {"ratio"})
    for other in others:
        lines += ["", f"beside {other} (this tree / {other} / ratio)",
                  f"{'kind':<9}{'mode':<16}{'N':>4}{'wall':>10}{other:>10}{'ratio':>7}{'cpu':>10}{other:>10}{'ratio':>7}"]
        for r in rows:
            for kind in KINDS:
                lines.append(f"{kind:<9}{r['action_mode']:<16}{r['num_envs']:>4}"
                             + "".join(f"{r[f'{kind}_{fig}']:>10.0f}{r[f'{kind}_{fig}_{other}']:>10.0f}"
                                       f"{r[f'{kind}_{fig}_ratio']:>7.2f}" for fig in FIGURES))
    return "\n".join(lines)
