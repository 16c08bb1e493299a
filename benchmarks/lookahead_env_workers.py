"""The lookahead env (what the shipped 9-ball agent reads: NineBall-v1, choice_canonical,
``lookahead=True``, eight plays per stroke) batched on one process and on two
(``num_workers``), alternating in one run: table steps/s by wall clock, best of the rounds.
Only the env's calls are timed (``step``, ``action_masks``), not the masked-random draws.
Usage: python benchmarks/lookahead_env_workers.py TABLES STEPS ROUNDS [--json FILE]"""
import argparse
import time

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401  (registers the ids)
from poolgym.files import atomic_write_json

KWARGS = dict(obs_mode="flat", action_mode="choice_canonical", lookahead=True, lookahead_samples=8)

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("tables", type=int)
parser.add_argument("steps", type=int)
parser.add_argument("rounds", type=int)
parser.add_argument("--json", help="also write the figures to this file")
args = parser.parse_args()


def table_steps_per_s(num_workers: int, seed: int) -> float:
    env = gym.make_vec("poolgym/NineBall-v1", num_envs=args.tables, num_workers=num_workers, **KWARGS)
    rng = np.random.default_rng(seed)
    try:
        env.reset(seed=seed)
        masks, spent = env.action_masks(), 0.0
        for _ in range(args.steps):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            start = time.perf_counter()
            env.step(actions)
            masks = env.action_masks()
            spent += time.perf_counter() - start
    finally:
        env.close()
    return args.tables * args.steps / spent


figures = {1: [], 2: []}
for r in range(args.rounds):
    for workers in ((1, 2) if r % 2 == 0 else (2, 1)):
        figures[workers].append(table_steps_per_s(workers, 1000 + r))
        print(f"round {r} num_workers={workers}: {figures[workers][-1]:.1f} table steps/s", flush=True)
best = {k: max(v) for k, v in figures.items()}
print(f"best: one process {best[1]:.1f}, two {best[2]:.1f} table steps/s, ratio {best[2] / best[1]:.2f}")
if args.json:
    atomic_write_json(args.json, {"command": f"python benchmarks/lookahead_env_workers.py {args.tables} {args.steps} "
                                             f"{args.rounds}", "env": "poolgym/NineBall-v1", "kwargs": KWARGS,
                                  "table_steps_per_s": {str(k): [round(x, 1) for x in v] for k, v in figures.items()},
                                  "ratio_best": round(best[2] / best[1], 3)})
