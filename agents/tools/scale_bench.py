"""``poolgym bench-envs``: environment steps per second with 1 and 2 local workers
(Gymnasium vector envs) and with Ray actors, to show how stepping scales with workers.

Each worker steps its own env with uniform random actions (resetting at episode ends); the
clock runs from the first step to the last, after every worker has started.
"""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401  (registers the ids)


def _env_fn(env_id: str):
    # "poolgym:" makes Gymnasium import poolgym in worker processes, registering the ids.
    return lambda: gym.make(f"poolgym:{env_id}", obs_mode="flat")


def vector_rate(env_id: str, workers: int, steps_per_worker: int, seed: int = 0) -> dict:
    """Steps/s of a ``workers``-env vector env (sync for 1, async subprocesses for more)."""
    cls = gym.vector.SyncVectorEnv if workers == 1 else gym.vector.AsyncVectorEnv
    envs = cls([_env_fn(env_id)] * workers, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    try:
        envs.reset(seed=seed)
        envs.action_space.seed(seed)
        start = time.perf_counter()
        for _ in range(steps_per_worker):
            envs.step(envs.action_space.sample())
        elapsed = time.perf_counter() - start
    finally:
        envs.close()
    total = workers * steps_per_worker
    return {"backend": "gymnasium.vector", "workers": workers, "steps": total,
            "steps_per_s": round(total / elapsed, 1), "steps_per_s_per_worker": round(total / elapsed / workers, 1)}


def ray_rate(env_id: str, workers: int, steps_per_worker: int, seed: int = 0,
             address: str | None = None) -> dict:
    """Steps/s of ``workers`` Ray actors, each stepping one env (a local Ray instance of
    ``workers`` CPUs, or the cluster at ``address``)."""
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, num_cpus=None if address else workers, include_dashboard=False,
                 log_to_driver=False)
    try:
        actor_cls = ray.remote(num_cpus=1)(_EnvWorker)
        actors = [actor_cls.remote(env_id, seed + i) for i in range(workers)]
        ray.get([a.ready.remote() for a in actors])
        start = time.perf_counter()
        done = ray.get([a.run.remote(steps_per_worker) for a in actors])
        elapsed = time.perf_counter() - start
    finally:
        if started_here:
            ray.shutdown()
    total = sum(done)
    return {"backend": "ray", "workers": workers, "steps": total,
            "steps_per_s": round(total / elapsed, 1), "steps_per_s_per_worker": round(total / elapsed / workers, 1)}


class _EnvWorker:
    """One env in a Ray actor, stepped with seeded random actions."""

    def __init__(self, env_id: str, seed: int) -> None:
        self.env = _env_fn(env_id)()
        self.env.reset(seed=seed)
        self.rng = np.random.default_rng(seed)

    def ready(self) -> bool:
        return True

    def run(self, steps: int) -> int:
        space = self.env.action_space
        for _ in range(steps):
            _, _, terminated, truncated, _ = self.env.step(self.rng.uniform(space.low, space.high).astype(space.dtype))
            if terminated or truncated:
                self.env.reset()
        return steps


def run(env_id: str = "poolgym/NineBall-v0", steps_per_worker: int = 300, with_ray: bool = True,
        address: str | None = None) -> list[dict]:
    rows = [vector_rate(env_id, 1, steps_per_worker), vector_rate(env_id, 2, steps_per_worker)]
    if with_ray:
        rows.append(ray_rate(env_id, 2, steps_per_worker, address=address))
    for row in rows:
        row["env"] = env_id
    return rows


def format_report(rows: list[dict]) -> str:
    lines = [f"{'env':24s} {'backend':18s} {'workers':>7s} {'steps':>7s} {'steps/s':>9s} {'per worker':>10s}"]
    for r in rows:
        lines.append(f"{r['env']:24s} {r['backend']:18s} {r['workers']:7d} {r['steps']:7d} "
                     f"{r['steps_per_s']:9.1f} {r['steps_per_s_per_worker']:10.1f}")
    return "\n".join(lines)
