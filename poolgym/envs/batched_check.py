"""One game, one truth, checked: ``play_side_by_side`` steps an id's batched env
(``gym.make_vec(id, num_envs=N)``) and one ``gym.make(id)`` env per table with the same
seeds and actions, and raises ``BatchedMismatch`` at the first table whose observation
(bit for bit), reward, flags or info facts differ. The tests run it over many seeds; a
researcher can run it on a variant's batched form::

    from poolgym.envs.batched_check import play_side_by_side
    play_side_by_side("poolgym/NineBall-v1", seeds=range(500, 532), steps=200, policy="masked",
                      action_mode="choice_discrete")
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import gymnasium as gym
import numpy as np

from poolgym.envs.batched import BatchedTables
from poolgym.envs.sharded import ShardedTables

POLICIES = ("masked", "random")


class BatchedMismatch(AssertionError):
    """A table of the batched env gave something other than its single env."""


def table_info(infos: dict, i: int) -> dict:
    """Table ``i``'s info out of a vector env's stacked infos (``key`` and its ``_key`` mask)."""
    info = {}
    for key, value in infos.items():
        if key.startswith("_"):
            continue
        if isinstance(value, dict):
            if infos[f"_{key}"][i]:
                info[key] = table_info(value, i)
        elif infos[f"_{key}"][i]:
            info[key] = value[i]
    return info


def same_observation(batched, i: int, single) -> bool:
    """Whether row ``i`` of a batched observation is ``single``, bit for bit and dtype."""
    if isinstance(single, dict):
        return set(batched) == set(single) and all(same_observation(batched[k], i, single[k]) for k in single)
    return same_single(batched[i], single)


def same_single(got, want) -> bool:
    """Whether two single observations are the same, bit for bit and dtype (an entry taken
    out of stacked infos may be a NumPy scalar where the observation holds a 0-d array)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and set(got) == set(want) and all(same_single(got[k], want[k]) for k in want)
    got, want = np.asarray(got), np.asarray(want)
    return got.dtype == want.dtype and np.array_equal(got, want)


def same_info(got: dict, want: dict) -> bool:
    """Whether two infos hold the same keys and values (sequences compared as lists)."""
    if set(got) != set(want):
        return False
    for key, value in want.items():
        if isinstance(value, dict):
            if not same_info(got[key], value):
                return False
        elif isinstance(value, (list, tuple)):
            if list(got[key]) != list(value):
                return False
        elif got[key] != value:
            return False
    return True


def play_side_by_side(env_id: str, seeds: Iterable[int], steps: int, policy: str = "masked",
                      max_episode_steps: int | None = None, num_threads: int | None = None,
                      num_workers: int | None = None, same_step: bool = False, **kwargs: Any) -> dict[str, int]:
    """Step ``gym.make_vec(env_id, num_envs=len(seeds), **kwargs)`` (its ``num_threads``
    and ``num_workers`` when given) and one ``gym.make`` env per seed ``steps`` times with the same actions
    (``policy``: "masked", drawn within each table's action masks, or "random", uniform
    over the action space; from a generator seeded by the first seed), comparing every
    table after the reset and every step, across autoresets (``NEXT_STEP``: a single env
    whose episode ended is reset when its table is; with ``same_step``, the batched env's
    ``SAME_STEP``: a single env whose episode ends is reset at once, its last observation
    and info compared with the table's ``final_obs`` and ``final_info``). Returns the table
    steps compared and the episode ends met; ``BatchedMismatch`` names the id, seed and
    step of the first difference."""
    seeds = [int(s) for s in seeds]
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {list(POLICIES)}, got {policy!r}")
    limit = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    threads = {} if num_threads is None else {"num_threads": num_threads}
    workers = {} if num_workers is None else {"num_workers": num_workers}
    if same_step:
        workers["autoreset_mode"] = gym.vector.AutoresetMode.SAME_STEP
    # Each single env its own copy of an opponent object, as each table has one
    # (``table_opponents``), copied before the tables are made.
    opponent = kwargs.get("opponent")
    own = None if opponent is None or isinstance(opponent, str) else [copy.deepcopy(opponent) for _ in seeds]
    vec = gym.make_vec(env_id, num_envs=len(seeds), **threads, **workers, **limit, **kwargs)
    if not isinstance(vec, (BatchedTables, ShardedTables)):
        raise ValueError(f"{env_id!r} has no batched form (no vector_entry_point)")
    singles = [gym.make(env_id, **limit, **({**kwargs, "opponent": own[i]} if own else kwargs))
               for i in range(len(seeds))]
    try:
        obs, infos = vec.reset(seed=seeds)
        for i, (o, info) in enumerate(env.reset(seed=s) for env, s in zip(singles, seeds)):
            _check(same_observation(obs, i, o) and same_info(table_info(infos, i), info), env_id, seeds[i], "reset")
        rng = np.random.default_rng(seeds[0])
        done = np.zeros(len(seeds), bool)
        ends = 0
        for step in range(steps):
            actions = _actions(vec, singles, done, rng, policy, env_id, seeds, step)
            obs, rewards, terminations, truncations, infos = vec.step(actions)
            for i, env in enumerate(singles):
                if done[i]:
                    (o, info), r, te, tr = env.reset(), 0.0, False, False
                else:
                    o, r, te, tr, info = env.step(actions[i])
                info_i = table_info(infos, i)
                if same_step and (te or tr):
                    _check(same_single(info_i.pop("final_obs"), o), env_id, seeds[i], step, "final observation")
                    _check(same_info(info_i.pop("final_info"), info), env_id, seeds[i], step, "final info")
                    o, info = env.reset()
                _check(same_observation(obs, i, o), env_id, seeds[i], step, "observation")
                _check(rewards[i] == r and terminations[i] == te and truncations[i] == tr, env_id, seeds[i], step,
                       "reward or flags")
                _check(same_info(info_i, info), env_id, seeds[i], step, "info")
                done[i] = (te or tr) and not same_step
            ends += int(np.sum(terminations | truncations))
    finally:
        vec.close()
        for env in singles:
            env.close()
    return {"table_steps": steps * len(seeds), "episode_ends": ends}


def _actions(vec, singles, done, rng: np.random.Generator, policy: str, env_id: str, seeds: list[int], step: int):
    """One step's actions for every table (``play_side_by_side``'s ``policy``); in the
    masked modes each playing table's masks are checked against its single env's first."""
    if policy == "masked":
        masks = vec.action_masks()
        nvec = vec.single_action_space.nvec
        actions = []
        for i, env in enumerate(singles):
            if not done[i]:
                _check(np.array_equal(masks[i], env.unwrapped.action_masks()), env_id, seeds[i], step, "action masks")
            parts = np.split(masks[i], np.cumsum(nvec)[:-1])
            actions.append([rng.choice(np.flatnonzero(p)) if p.any() else 0 for p in parts])
        return np.array(actions, dtype=vec.action_space.dtype)
    space = vec.action_space
    if hasattr(space, "low"):
        return rng.uniform(-1, 1, space.shape).astype(space.dtype)
    return rng.integers(0, space.nvec)


def _check(same: bool, env_id: str, seed: int, step, what: str = "reset") -> None:
    if not same:
        raise BatchedMismatch(f"{env_id}: the table seeded {seed} differs from gym.make at step {step} ({what})")
