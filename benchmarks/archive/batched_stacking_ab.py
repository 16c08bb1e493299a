"""The batched env's stacking (poolgym.envs.stacking) against Gymnasium's generic functions
(``concatenate`` into ``create_empty_array``; ``VectorEnv._add_info`` table by table), in one
process: two envs of N tables from the same seeds and actions, one stacking each way, stepped
alternately (the order swapped every step, each round played twice with the orders swapped),
the CPU time of each env's calls (``action_masks`` and ``step``) summed; every step's outputs
are checked equal, dtypes and key order included.
On a busy machine this resolves differences of a few percent that separate processes do not.
The cyclic garbage collector is off while they step (collected between rounds): a collection
lands on whichever env allocates past its threshold, and that alone made one of two equal
envs 5% slower than the other.
Usage: python benchmarks/archive/batched_stacking_ab.py N STEPS ROUNDS (NineBall-v1, choice_discrete)."""
import gc
import sys
import time

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import concatenate, create_empty_array

import poolgym  # noqa: F401
from poolgym.agents.tools.speed_compare import random_actions

N, STEPS, ROUNDS = (int(a) for a in sys.argv[1:4])


def generic(env):
    """``env`` stacking with Gymnasium's own functions."""
    space = env.single_observation_space

    def add_infos(infos):
        stacked = {}
        for i, info in enumerate(infos):
            stacked = env._add_info(stacked, info, i)
        return stacked

    env._stack = lambda observations: concatenate(space, observations, create_empty_array(space, N))
    env._stack_infos = add_infos
    return env


def same(a, b) -> bool:
    if isinstance(b, dict):
        return type(a) is dict and list(a) == list(b) and all(same(a[k], b[k]) for k in b)
    return (type(a) is np.ndarray and (a.dtype, a.shape, a.strides) == (b.dtype, b.shape, b.strides)
            and (a.tolist() == b.tolist() if b.dtype == object else a.tobytes() == b.tobytes()))


cpu = {"generic": 0.0, "poolgym": 0.0}
timed = 0
# Each round twice, the first to step swapped: the one that steps first in a step runs slower
# (caches), so each env takes each place on every step of every round.
for rnd, flip in ((r, f) for r in range(ROUNDS) for f in (0, 1)):
    envs = {"generic": generic(gym.make_vec("poolgym/NineBall-v1", num_envs=N, action_mode="choice_discrete")),
            "poolgym": gym.make_vec("poolgym/NineBall-v1", num_envs=N, action_mode="choice_discrete")}
    rngs = {name: np.random.default_rng(rnd) for name in envs}
    for env in envs.values():
        env.reset(seed=1000 * rnd)
    gc.collect()
    gc.disable()
    nvec = envs["poolgym"].single_action_space.nvec
    for step in range(STEPS):
        outputs = {}
        for name in (("generic", "poolgym") if (step + flip) % 2 == 0 else ("poolgym", "generic")):
            env = envs[name]
            start = time.process_time()
            masks = env.action_masks()
            between = time.process_time()
            actions = random_actions(env.action_space, masks, rngs[name], nvec)
            before = time.process_time()
            outputs[name] = (masks, *env.step(actions))
            if step >= 3:  # the first steps warm both
                cpu[name] += (between - start) + (time.process_time() - before)
        timed += step >= 3
        assert all(same(a, b) for a, b in zip(outputs["poolgym"], outputs["generic"])), f"round {rnd} step {step}"
    gc.enable()
print(f"N={N}: {timed} batched steps ({timed * N} table steps) per env, outputs equal at every step")
for name, seconds in cpu.items():
    print(f"{name:8s} {seconds:.3f} s CPU  {timed * N / seconds:6.0f} table steps/s  "
          f"{1e3 * seconds / timed:.2f} ms a step")
print(f"poolgym / generic: {cpu['generic'] / cpu['poolgym']:.3f} x the steps/s; "
      f"{1e3 * (cpu['generic'] - cpu['poolgym']) / timed:.3f} ms less a batched step")
