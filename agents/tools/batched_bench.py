"""Steps per second of the batched env (``gym.make_vec(id, num_envs=N)``, ``BatchedPoolEnv``)
beside the single env (``gym.make``) and ``make_vec``'s wrapping of N single envs
(``vectorization_mode="sync"``), measured in one run (``poolgym bench-envs --batched``),
the batched env for each thread count asked for (its ``num_threads``) and each count of
processes (its ``num_workers``: the tables in shards, ``poolgym.envs.sharded``).

Only the envs' own calls are timed (``reset``, ``step``, ``action_masks``): drawing the
random actions is left out, so the three are compared on the same work. Actions are
masked-random in the masked modes (``choice_discrete``), uniform random otherwise, from a
seeded generator; each figure is the best of ``reps`` runs (the machine may be busy), and
the ratios are of figures from the same run.
"""

from __future__ import annotations

from collections.abc import Sequence

from poolgym.agents.tools import speed_compare
from poolgym.agents.tools.speed_compare import time_kind
from poolgym.physics.threads import thread_count

KINDS = ("single", "sync", "batched")
FIGURES = ("steps_per_s", "cpu_steps_per_s")


def run(env_id: str, modes: list[str], sizes: list[int], steps: int, reps: int, compare: str | None = None,
        threads: Sequence[int | None] = (1,), workers: Sequence[int] = (1,)) -> list[dict]:
    """One row per (mode, N, thread count the batched env uses for a count of ``threads``,
    None: its default; at most N, each once), and one per count of ``workers`` above one (at
    most N, on the first thread count): each kind's best table steps/s over ``reps`` runs
    (interleaved, so a busy spell hits all kinds alike), by wall clock and by CPU time (with
    workers, theirs too), and the batched env's ratios to the others and, with several
    thread or worker counts, to itself on the first thread count in one process. The single
    env and the sync wrapping are measured once per (mode, N), their figures in each of its
    rows. With ``compare`` (a commit), every figure is measured in
    fresh processes of this tree and of that commit, alternating (``speed_compare``; a
    commit whose batched env has no ``num_threads`` plays on one thread): each row then also
    holds the commit's figures and this tree's ratios."""
    rows = []
    for mode in modes:
        if compare is None:
            time_kind("batched", env_id, mode, 2, 3)  # compiles or loads the batched kernel first
        for n in sizes:
            per_table = max(1, steps // n)
            # Each measurement: (kind, num_threads, num_workers); the single env and the
            # wrapping once, the batched env once per count it uses (never more threads or
            # workers than tables).
            counts = list(dict.fromkeys(min(thread_count(k), n) for k in threads))
            processes = [w for w in dict.fromkeys(min(w, n) for w in workers) if w > 1]
            batched = [*((k, 1) for k in counts), *((counts[0], w) for w in processes)]
            runs = [("single", None, 1), ("sync", None, 1), *(("batched", k, w) for k, w in batched)]
            measured = {}
            if compare is None:
                best = {run: [0.0, 0.0] for run in runs}
                for rep in range(reps):
                    for kind, k, w in runs:
                        figures = time_kind(kind, env_id, mode, n, per_table, seed=rep, num_threads=k, num_workers=w)
                        best[kind, k, w] = [max(b, f) for b, f in zip(best[kind, k, w], figures)]
                for run, (wall, cpu) in best.items():
                    measured[run] = {"steps_per_s": round(wall, 1), "cpu_steps_per_s": round(cpu, 1)}
            else:
                cases = [dict(kind=kind, env_id=env_id, action_mode=mode, num_envs=n, steps=per_table,
                              num_threads=k, num_workers=w) for kind, k, w in runs]
                for run, figures in zip(runs, speed_compare.compare_keys("kind", cases, FIGURES, compare, reps)):
                    measured[run] = {f"{figure}{'' if name == speed_compare.CURRENT else f'_{name}'}": value
                                     for figure in FIGURES for name, value in figures[figure].items()}
            for k, w in batched:
                row = {"env_id": env_id, "action_mode": mode, "num_envs": n, "num_threads": k, "num_workers": w,
                       "table_steps": n * per_table, "reps": reps}
                for kind, key in (("single", (None, 1)), ("sync", (None, 1)), ("batched", (k, w))):
                    row.update({f"{kind}_{name}": value for name, value in measured[(kind, *key)].items()})
                row["batched_over_single"] = round(row["batched_steps_per_s"] / row["single_steps_per_s"], 3)
                row["batched_over_sync"] = round(row["batched_steps_per_s"] / row["sync_steps_per_s"], 3)
                if len(threads) > 1 or max(workers) > 1:
                    first = measured["batched", counts[0], 1]["steps_per_s"]
                    row["batched_over_first_threads"] = round(row["batched_steps_per_s"] / first, 3)
                rows.append(row)
    return rows


def format_report(rows: list[dict]) -> str:
    """The rows as text: table steps/s of each kind by wall clock, the batched env's ratios
    (``b/1st``: to itself on the first thread count asked for, in one process), the CPU-time figures; with a
    compared commit, each kind beside that commit's."""
    gain = "batched_over_first_threads" in rows[0]
    lines = [f"{'mode':<16}{'N':>4}{'thr':>4}{'wrk':>4}{'single':>10}{'sync':>10}{'batched':>10}{'b/single':>10}{'b/sync':>8}"
             + (f"{'b/1st':>7}" if gain else "") + f"{'cpu single':>12}{'cpu batched':>12}{'cpu b/single':>13}"]
    for r in rows:
        lines.append(f"{r['action_mode']:<16}{r['num_envs']:>4}{r['num_threads']:>4}{r.get('num_workers', 1):>4}"
                     f"{r['single_steps_per_s']:>10.0f}"
                     f"{r['sync_steps_per_s']:>10.0f}{r['batched_steps_per_s']:>10.0f}"
                     f"{r['batched_over_single']:>10.2f}{r['batched_over_sync']:>8.2f}"
                     + (f"{r['batched_over_first_threads']:>7.2f}" if gain else "")
                     + f"{r['single_cpu_steps_per_s']:>12.0f}{r['batched_cpu_steps_per_s']:>12.0f}"
                     f"{r['batched_cpu_steps_per_s'] / r['single_cpu_steps_per_s']:>13.2f}")
    others = sorted({key.rsplit("_", 1)[-1] for key in rows[0] if key.startswith("single_steps_per_s_")} - {"ratio"})
    for other in others:
        lines += ["", f"beside {other} (this tree / {other} / ratio)",
                  f"{'kind':<9}{'mode':<16}{'N':>4}{'thr':>4}{'wrk':>4}{'wall':>10}{other:>10}{'ratio':>7}{'cpu':>10}{other:>10}"
                  f"{'ratio':>7}"]
        for r in rows:
            for kind in KINDS:
                lines.append(f"{kind:<9}{r['action_mode']:<16}{r['num_envs']:>4}{r['num_threads']:>4}"
                             f"{r.get('num_workers', 1):>4}"
                             + "".join(f"{r[f'{kind}_{fig}']:>10.0f}{r[f'{kind}_{fig}_{other}']:>10.0f}"
                                       f"{r[f'{kind}_{fig}_ratio']:>7.2f}" for fig in FIGURES))
    return "\n".join(lines)
