"""What bounds the batched env's speed-up: the simulator's compiled calls (the one that plays
every table's shots, ``poolgym.physics.batch.play_layouts``, and those that play one table's
shot alone: ``play_batch``, ``frozen_contacts``, ``event_core.run_shot``) and the candidate
slots' (``pot_geometry``'s kernels, as ``poolgym.envs.candidates`` calls them) beside the
rest of a batched step, and the single env's whole step, in CPU time, alternating in one
process.

NineBall-v1 against legal-random, masked random actions (only the env's calls timed). Per
round: the single env for ``STEPS * TABLES / 4`` steps, then the batched env of ``TABLES``
tables for ``STEPS / 4`` steps. ``ceiling`` is the single env's step over the simulator's
compiled time a table step: the batched env's speed-up over the single env were the rest
of its step free; ``ceiling_with_slots`` counts the slots' kernels as well.
Usage: python benchmarks/compiled_share.py TABLES STEPS ROUNDS [--modes choice_discrete,aim] [--json FILE]"""
import argparse
import time

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401  (registers the ids)
from poolgym.agents.tools.speed_compare import random_actions
from poolgym.files import atomic_write_json
from poolgym.envs import candidates
from poolgym.physics import event_core, simulator

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("tables", type=int)
parser.add_argument("steps", type=int)
parser.add_argument("rounds", type=int)
parser.add_argument("--modes", default="choice_discrete,aim")
parser.add_argument("--json", help="also write the figures to this file")
args = parser.parse_args()

_compiled_cpu = {"simulation": 0.0, "slots": 0.0}


def _timed(kernel, part: str):
    def timed(*a, **k):
        start = time.process_time()
        try:
            return kernel(*a, **k)
        finally:
            _compiled_cpu[part] += time.process_time() - start
    return timed


# The names the simulator and the slots call them by.
for _name in ("play_layouts", "play_batch", "frozen_contacts"):
    setattr(simulator, _name, _timed(getattr(simulator, _name), "simulation"))
event_core.run_shot = _timed(event_core.run_shot, "simulation")


class _TimedGeometry:
    """``pot_geometry`` as the slots module reads it, each kernel timed."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        value = getattr(self._module, name)
        return _timed(value, "slots") if callable(value) else value


candidates.geometry = _TimedGeometry(candidates.geometry)


def single_cpu(env, steps: int, rng, nvec) -> float:
    spent, masked = 0.0, nvec is not None
    for _ in range(steps):
        masks = env.unwrapped.action_masks()[None] if masked else None
        action = random_actions(env.action_space, masks, rng, nvec)
        action = action[0] if masked else action
        start = time.process_time()
        out = env.step(action)
        if out[2] or out[3]:
            env.reset()
        spent += time.process_time() - start
    return spent


def batched_cpu(env, steps: int, rng, nvec) -> tuple[float, dict]:
    spent, masked = 0.0, nvec is not None
    _compiled_cpu.update(simulation=0.0, slots=0.0)
    for _ in range(steps):
        action = random_actions(env.action_space, env.action_masks() if masked else None, rng, nvec)
        start = time.process_time()
        env.step(action)
        spent += time.process_time() - start
    return spent, dict(_compiled_cpu)


results = {"tables": args.tables, "steps": args.steps, "rounds": args.rounds, "modes": {}}
for mode in args.modes.split(","):
    single = gym.make("poolgym/NineBall-v1", action_mode=mode)
    batched = gym.make_vec("poolgym/NineBall-v1", num_envs=args.tables, action_mode=mode)
    masked = getattr(single.unwrapped.mapper, "masked", False)
    nvec = single.action_space.nvec if masked else None
    rng = np.random.default_rng(0)
    single.reset(seed=0)
    batched.reset(seed=0)
    single_cpu(single, 50, rng, nvec)  # warm-up: kernels loaded, caches filled
    batched_cpu(batched, 5, rng, nvec)
    rounds = []
    for _ in range(args.rounds):
        s_steps, b_steps = args.steps * args.tables // 4, args.steps // 4
        s = single_cpu(single, s_steps, rng, nvec)
        b, compiled = batched_cpu(batched, b_steps, rng, nvec)
        table_steps = b_steps * args.tables
        rounds.append({"single_us_per_step": 1e6 * s / s_steps,
                       "batched_us_per_table_step": 1e6 * b / table_steps,
                       "compiled_us_per_table_step": 1e6 * compiled["simulation"] / table_steps,
                       "slots_us_per_table_step": 1e6 * compiled["slots"] / table_steps})
    batched.close()
    single.close()
    med = {key: round(float(np.median([r[key] for r in rounds])), 2) for key in rounds[0]}
    med["batched_over_single"] = round(med["single_us_per_step"] / med["batched_us_per_table_step"], 3)
    med["compiled_share_of_batched_step"] = round(med["compiled_us_per_table_step"]
                                                  / med["batched_us_per_table_step"], 3)
    med["ceiling"] = round(med["single_us_per_step"] / med["compiled_us_per_table_step"], 2)
    med["rest_us_per_table_step_for_8x"] = round(med["single_us_per_step"] / 8
                                                 - med["compiled_us_per_table_step"], 2)
    both = med["compiled_us_per_table_step"] + med["slots_us_per_table_step"]
    med["ceiling_with_slots"] = round(med["single_us_per_step"] / both, 2)
    med["rest_us_per_table_step_for_8x_with_slots"] = round(med["single_us_per_step"] / 8 - both, 2)
    results["modes"][mode] = {"rounds": rounds, "medians": med}
    print(mode, med, flush=True)

if args.json:
    atomic_write_json(args.json, results)
