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

import time

import gymnasium as gym
import numpy as np

KINDS = ("single", "sync", "batched")


def _actions(space, masks, rng: np.random.Generator, nvec=None) -> np.ndarray:
    """Random actions for a batch (``space``, batched): masked-random per table when
    ``masks`` is given (``nvec``: one table's ``MultiDiscrete`` sizes)."""
    if masks is None:
        return rng.uniform(space.low, space.high).astype(space.dtype)
    cuts = np.cumsum(nvec)[:-1]
    return np.array([[rng.choice(np.flatnonzero(p)) for p in np.split(m, cuts)] for m in masks], space.dtype)


def time_kind(kind: str, env_id: str, mode: str, num_envs: int, steps: int, seed: int = 0) -> float:
    """Table steps per second of ``kind`` ("single": one ``gym.make`` env stepped
    ``num_envs * steps`` times; "sync" / "batched": ``make_vec`` with ``num_envs`` tables
    stepped ``steps`` times)."""
    rng = np.random.default_rng(seed)
    masked = mode == "choice_discrete"
    if kind == "single":
        env = gym.make(env_id, action_mode=mode)
        space = gym.vector.utils.batch_space(env.action_space, 1)
        spent = 0.0
        start = time.perf_counter()
        env.reset(seed=seed)
        done = False
        spent += time.perf_counter() - start
        for _ in range(num_envs * steps):
            start = time.perf_counter()
            if done:
                env.reset()
            masks = env.unwrapped.action_masks()[None] if masked else None
            spent += time.perf_counter() - start
            action = _actions(space, masks, rng, getattr(env.action_space, 'nvec', None))[0]
            start = time.perf_counter()
            _, _, terminated, truncated, _ = env.step(action)
            spent += time.perf_counter() - start
            done = terminated or truncated
        env.close()
        return num_envs * steps / spent
    vectorization = {"sync": "sync", "batched": None}[kind]
    envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=vectorization, action_mode=mode)
    spent = 0.0
    start = time.perf_counter()
    envs.reset(seed=seed)
    spent += time.perf_counter() - start
    for _ in range(steps):
        start = time.perf_counter()
        masks = (np.stack(envs.call("action_masks")) if kind == "sync" else envs.action_masks()) if masked else None
        spent += time.perf_counter() - start
        actions = _actions(envs.action_space, masks, rng, getattr(envs.single_action_space, 'nvec', None))
        start = time.perf_counter()
        envs.step(actions)
        spent += time.perf_counter() - start
    envs.close()
    return num_envs * steps / spent


def run(env_id: str, modes: list[str], sizes: list[int], steps: int, reps: int) -> list[dict]:
    """One row per (mode, N): each kind's best steps/s over ``reps`` runs (interleaved, so
    a busy spell hits all kinds alike) and the batched env's ratios to the others."""
    rows = []
    for mode in modes:
        time_kind("batched", env_id, mode, 2, 3)  # compiles or loads the batched kernel first
        for n in sizes:
            best = dict.fromkeys(KINDS, 0.0)
            for rep in range(reps):
                for kind in KINDS:
                    best[kind] = max(best[kind], time_kind(kind, env_id, mode, n, max(1, steps // n), seed=rep))
            rows.append({"env_id": env_id, "action_mode": mode, "num_envs": n, "table_steps": n * max(1, steps // n),
                         "reps": reps, **{f"{k}_steps_per_s": round(v, 1) for k, v in best.items()},
                         "batched_over_single": round(best["batched"] / best["single"], 3),
                         "batched_over_sync": round(best["batched"] / best["sync"], 3)})
    return rows


def format_report(rows: list[dict]) -> str:
    """The rows as a text table."""
    lines = [f"{'mode':<16}{'N':>4}{'single':>10}{'sync':>10}{'batched':>10}{'b/single':>10}{'b/sync':>8}"]
    for r in rows:
        lines.append(f"{r['action_mode']:<16}{r['num_envs']:>4}{r['single_steps_per_s']:>10.0f}"
                     f"{r['sync_steps_per_s']:>10.0f}{r['batched_steps_per_s']:>10.0f}"
                     f"{r['batched_over_single']:>10.2f}{r['batched_over_sync']:>8.2f}")
    return "\n".join(lines)
