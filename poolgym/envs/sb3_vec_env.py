"""The batched game envs for stable-baselines3 and sb3-contrib: ``BatchedSB3VecEnv`` is
an SB3 ``VecEnv`` over a batched env (``poolgym.envs.batched``: ``BatchedPoolEnv``,
``BatchedPotBallEnv``), with SB3's autoreset (a
table whose episode ends is reset in the same step, its last observation in
``info["terminal_observation"]``, ``info["TimeLimit.truncated"]`` when the step limit cut
it), the tables' ``action_masks`` for ``MaskablePPO`` and, with ``monitor_dir``, SB3's
``Monitor`` files and ``info["episode"]`` per table::

    from poolgym.envs.sb3_vec_env import make_sb3_vec_env
    venv = make_sb3_vec_env("poolgym/NineBall-v1", num_envs=8, seed=0,
                            action_mode="choice_discrete", obs_mode="flat")
    MaskablePPO("MlpPolicy", venv).learn(10_000)

Imported on use only (it imports stable-baselines3).
"""

from __future__ import annotations

from typing import Any

import os
import time

import gymnasium as gym
import numpy as np
from stable_baselines3.common.monitor import ResultsWriter
from stable_baselines3.common.vec_env import VecEnv

from poolgym.envs.batched import BatchedTables


def make_sb3_vec_env(env_id: str | gym.envs.registration.EnvSpec, num_envs: int, seed: int | None = None, monitor_dir: str | None = None,
                     first_index: int = 0, override_existing: bool = True, **kwargs: Any) -> "BatchedSB3VecEnv":
    """``BatchedSB3VecEnv`` of ``gym.make_vec(env_id, num_envs, **kwargs)`` (a batched id),
    its tables seeded ``seed + i`` at the first reset; ``monitor_dir`` and the rest as
    ``BatchedSB3VecEnv``'s."""
    batched = gym.make_vec(env_id, num_envs=num_envs, **kwargs)
    if not isinstance(batched, BatchedTables):
        name = env_id if isinstance(env_id, str) else env_id.id
        raise ValueError(f"{name!r} has no batched form; wrap gym.make({name!r}) in SB3's DummyVecEnv instead")
    venv = BatchedSB3VecEnv(batched, monitor_dir, first_index, override_existing)
    if seed is not None:
        venv.seed(seed)
    return venv


class BatchedSB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` over a batched env (module docstring). With ``monitor_dir``, table
    ``i``'s episodes go to ``<monitor_dir>/<first_index + i>.monitor.csv`` and the step that
    ends one carries ``info["episode"]``, as ``make_vec_env(..., monitor_dir=...)``'s
    ``Monitor`` does for env ``i`` (the same rows: the tables' own float rewards summed);
    ``override_existing`` False appends to the files of a continued run."""

    def __init__(self, batched: BatchedTables, monitor_dir: str | None = None, first_index: int = 0,
                 override_existing: bool = True) -> None:
        self.batched = batched
        super().__init__(batched.num_envs, batched.single_observation_space, batched.single_action_space)
        self._actions = None
        self.t_start = time.time()
        self.writers = None
        if monitor_dir is not None:
            os.makedirs(monitor_dir, exist_ok=True)
            env_id = str(batched.spec.id if batched.spec is not None else None)
            self.writers = [ResultsWriter(os.path.join(monitor_dir, str(first_index + i)),
                                          header={"t_start": self.t_start, "env_id": env_id},
                                          override_existing=override_existing) for i in range(self.num_envs)]
        self._episode_rewards: list[list[float]] = [[] for _ in range(self.num_envs)]

    def reset(self):
        seeds, options = self._seeds, self._options
        observations = []
        for i in range(self.num_envs):
            obs, self.reset_infos[i] = self.batched.reset_table(i, seed=seeds[i], options=options[i] or None)
            observations.append(obs)
        self._episode_rewards = [[] for _ in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        return self._stack(observations)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        actions = list(gym.vector.utils.iterate(self.batched.action_space, self._actions))
        played = self.batched.play_tables(list(range(self.num_envs)), actions)
        observations, infos = [], []
        rewards = np.zeros(self.num_envs)
        dones = np.zeros(self.num_envs, bool)
        for i in range(self.num_envs):
            obs, reward, terminated, truncated, info = played[i]
            rewards[i], dones[i] = reward, terminated or truncated
            info = dict(info)
            self._episode_rewards[i].append(float(reward))
            if dones[i]:
                self._end_episode(i, info)
                info["TimeLimit.truncated"] = bool(truncated and not terminated)
                info["terminal_observation"] = obs
                obs, _ = self.batched.reset_table(i)
            observations.append(obs)
            infos.append(info)
        return self._stack(observations), rewards.astype(np.float32), dones, infos

    def _end_episode(self, i: int, info: dict) -> None:
        """Table ``i``'s episode ended: its ``info["episode"]`` and monitor row."""
        rewards, self._episode_rewards[i] = self._episode_rewards[i], []
        episode = {"r": round(sum(rewards), 6), "l": len(rewards), "t": round(time.time() - self.t_start, 6)}
        if self.writers is not None:
            self.writers[i].write_row(episode)
        info["episode"] = episode

    def action_masks(self) -> np.ndarray:
        """Every table's action masks, stacked (each table's ``action_masks``)."""
        return np.stack([table.action_masks() for table in self.batched.tables])

    def close(self) -> None:
        if self.writers is not None:
            for writer in self.writers:
                writer.close()
        self.batched.close()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self.batched.tables[i], attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        for i in self._get_indices(indices):
            setattr(self.batched.tables[i], attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        return [getattr(self.batched.tables[i], method_name)(*method_args, **method_kwargs)
                for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]  # the tables are bare envs

    def _stack(self, observations: list):
        if isinstance(observations[0], dict):
            return {key: np.stack([o[key] for o in observations]) for key in observations[0]}
        return np.stack(observations)
