"""The lookahead env (what the shipped 9-ball agent reads: NineBall-v1, choice_canonical,
``lookahead=True``, eight plays per stroke) batched on one process and on two
(``num_workers``), and with ``--threads`` on one process of two threads (``num_threads``),
alternating in one run: table steps/s by wall clock, best of the rounds. Only the env's
calls are timed (``step``, ``action_masks``), not the masked-random draws.
Usage: python benchmarks/lookahead_env_workers.py TABLES STEPS ROUNDS [--threads] [--json FILE]"""
import argparse
import time

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401  (registers the ids)
from poolgym.files import atomic_write_json

KWARGS = dict(obs_mode="flat", action_mode="choice_canonical", lookahead=True, lookahead_samples=8)
# Each set-up's key in the figures, and its cores.
SETUPS = {"1": {"num_workers": 1}, "2": {"num_workers": 2}, "threads2": {"num_threads": 2}}

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("tables", type=int)
parser.add_argument("steps", type=int)
parser.add_argument("rounds", type=int)
parser.add_argument("--threads", action="store_true", help="also one process of two threads")
parser.add_argument("--json", help="also write the figures to this file")
args = parser.parse_args()


def table_steps_per_s(config: str, seed: int) -> float:
    """Table steps/s of the set-up ``config`` (a key of ``SETUPS``)."""
    env = gym.make_vec("poolgym/NineBall-v1", num_envs=args.tables, **SETUPS[config], **KWARGS)
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


configs = ["1", "2", *(["threads2"] if args.threads else [])]
figures = {config: [] for config in configs}
for r in range(args.rounds):
    for config in (configs if r % 2 == 0 else configs[::-1]):
        figures[config].append(table_steps_per_s(config, 1000 + r))
        name = ", ".join(f"{key}={value}" for key, value in SETUPS[config].items())
        print(f"round {r} {name}: {figures[config][-1]:.1f} table steps/s", flush=True)
best = {k: max(v) for k, v in figures.items()}
print(f"best: one process {best['1']:.1f}, two {best['2']:.1f} table steps/s, ratio {best['2'] / best['1']:.2f}")
if args.threads:
    print(f"best: one process of two threads {best['threads2']:.1f} table steps/s, "
          f"ratio {best['threads2'] / best['1']:.2f}")
if args.json:
    command = f"python benchmarks/lookahead_env_workers.py {args.tables} {args.steps} {args.rounds}"
    atomic_write_json(args.json, {"command": command + (" --threads" if args.threads else ""),
                                  "env": "poolgym/NineBall-v1", "kwargs": KWARGS,
                                  "table_steps_per_s": {k: [round(x, 1) for x in v] for k, v in figures.items()},
                                  "ratio_best": round(best["2"] / best["1"], 3),
                                  **({"threads_ratio_best": round(best["threads2"] / best["1"], 3)}
                                     if args.threads else {})})
