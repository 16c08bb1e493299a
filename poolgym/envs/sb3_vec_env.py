"""The batched game envs for stable-baselines3 and sb3-contrib: ``BatchedSB3VecEnv`` is
an SB3 ``VecEnv`` over a batched env (``poolgym.envs.batched``: ``BatchedPoolEnv``,
``BatchedPotBallEnv``, or ``ShardedTables`` of them on several processes), with SB3's
autoreset (a table whose episode ends is reset in the same step, Gymnasium's
``SAME_STEP``; its last observation in ``info["terminal_observation"]``,
``info["TimeLimit.truncated"]`` when the step limit cut it), the tables' ``action_masks``
for ``MaskablePPO`` and, with ``monitor_dir``, SB3's ``Monitor`` files and
``info["episode"]`` per table::

    from poolgym.envs.sb3_vec_env import make_sb3_vec_env
    venv = make_sb3_vec_env("poolgym/NineBall-v1", num_envs=8, seed=0,
                            action_mode="choice_discrete", obs_mode="flat")
    MaskablePPO("MlpPolicy", venv).learn(10_000)

``num_workers=2`` steps the tables in two processes (``gym.make_vec``'s argument); every
table steps exactly as with one.

Imported on use only (it imports stable-baselines3).
"""

from __future__ import annotations

from typing import Any

import os
import time

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.monitor import ResultsWriter
from stable_baselines3.common.vec_env import VecEnv

from poolgym.envs.batched import BatchedTables
from poolgym.envs.sharded import ShardedTables
from poolgym.envs.stacking import stack_observations

MASKS = "action_masks"


def make_sb3_vec_env(env_id: str | gym.envs.registration.EnvSpec, num_envs: int, seed: int | None = None,
                     monitor_dir: str | None = None, override_existing: bool = True,
                     **kwargs: Any) -> "BatchedSB3VecEnv":
    """``BatchedSB3VecEnv`` of ``gym.make_vec(env_id, num_envs, **kwargs)`` (a batched id;
    ``num_workers`` among the arguments spreads the tables over processes), its tables
    seeded ``seed + i`` at the first reset; ``monitor_dir`` and the rest as
    ``BatchedSB3VecEnv``'s."""
    name = env_id if isinstance(env_id, str) else env_id.id
    if "autoreset_mode" in kwargs:
        raise ValueError(f"autoreset_mode is SB3's own (the table reset in the step that ends it); "
                         f"leave it out of the arguments of {name!r}")
    batched = gym.make_vec(env_id, num_envs=num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
    if not isinstance(batched, (BatchedTables, ShardedTables)):
        batched.close()
        raise ValueError(f"{name!r} has no batched form; wrap gym.make({name!r}) in SB3's DummyVecEnv instead")
    venv = BatchedSB3VecEnv(batched, monitor_dir, override_existing)
    if seed is not None:
        venv.seed(seed)
    return venv


class BatchedSB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` over a batched env made with ``autoreset_mode=SAME_STEP`` (module
    docstring). With ``monitor_dir``, table ``i``'s episodes go to
    ``<monitor_dir>/<i>.monitor.csv`` and the step that ends one carries
    ``info["episode"]``, as ``make_vec_env(..., monitor_dir=...)``'s ``Monitor`` does for
    env ``i`` (the same rows: the tables' own float rewards summed); ``override_existing``
    False appends to the files of a continued run."""

    def __init__(self, batched: BatchedTables | ShardedTables, monitor_dir: str | None = None,
                 override_existing: bool = True) -> None:
        if batched.autoreset_mode is not AutoresetMode.SAME_STEP:
            raise ValueError(f"the batched env must reset a table in the step that ends it, as SB3 does: "
                             f"make it with autoreset_mode=AutoresetMode.SAME_STEP, not {batched.autoreset_mode}")
        self.batched = batched
        super().__init__(batched.num_envs, batched.single_observation_space, batched.single_action_space)
        self._actions = None
        self.t_start = time.time()
        self.writers = None
        if monitor_dir is not None:
            os.makedirs(monitor_dir, exist_ok=True)
            env_id = str(batched.spec.id if batched.spec is not None else None)
            self.writers = [ResultsWriter(os.path.join(monitor_dir, str(i)),
                                          header={"t_start": self.t_start, "env_id": env_id},
                                          override_existing=override_existing) for i in range(self.num_envs)]
        self._episode_rewards: list[list[float]] = [[] for _ in range(self.num_envs)]

    @property
    def processes(self) -> list:
        """The batched env's worker processes (none when every table steps here)."""
        return list(getattr(self.batched, "processes", ()))

    def reset(self):
        seeds, options = self._seeds, self._options
        if all(option == options[0] for option in options):
            observations, infos = self.batched.reset_each(seeds, options[0] or None)
        else:
            rows = [self.batched.reset_table(i, seed=seeds[i], options=options[i] or None)
                    for i in range(self.num_envs)]
            observations = stack_observations(self.batched.single_observation_space, [obs for obs, _ in rows])
            infos = [info for _, info in rows]
        self.reset_infos = list(infos)
        self._episode_rewards = [[] for _ in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        stepped = self.batched.step_tables(self._actions)
        dones = stepped.terminations | stepped.truncations
        infos = []
        for i, info in enumerate(stepped.infos):
            final = stepped.finals.get(i)
            info = dict(info if final is None else final[1])
            self._episode_rewards[i].append(float(stepped.rewards[i]))
            if final is not None:
                self._end_episode(i, info)
                info["TimeLimit.truncated"] = bool(stepped.truncations[i] and not stepped.terminations[i])
                info["terminal_observation"] = final[0]
            infos.append(info)
        return stepped.observations, stepped.rewards.astype(np.float32), dones, infos

    def _end_episode(self, i: int, info: dict) -> None:
        """Table ``i``'s episode ended: its ``info["episode"]`` and monitor row."""
        rewards, self._episode_rewards[i] = self._episode_rewards[i], []
        episode = {"r": round(sum(rewards), 6), "l": len(rewards), "t": round(time.time() - self.t_start, 6)}
        if self.writers is not None:
            self.writers[i].write_row(episode)
        info["episode"] = episode

    def action_masks(self) -> np.ndarray:
        """Every table's action masks, stacked (each table's ``action_masks``)."""
        return self.batched.action_masks()

    def close(self) -> None:
        if self.writers is not None:
            for writer in self.writers:
                writer.close()
        self.batched.close()

    def has_attr(self, attr_name: str) -> bool:
        """Whether the tables have ``attr_name`` (table 0, in this process, is asked: every
        table is built alike)."""
        try:
            self.batched.table_attr(0, attr_name)
        except AttributeError:
            return False
        return True

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [self.batched.table_attr(i, attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        for i in self._get_indices(indices):
            self.batched.set_table_attr(i, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        which = list(self._get_indices(indices))
        if method_name == MASKS and not method_args and not method_kwargs:
            # What sb3-contrib's MaskablePPO asks after every step: the masks of every
            # table at once (a worker's sent with its step).
            masks = self.action_masks()
            return [masks[i] for i in which]
        return [self.batched.table_call(i, method_name, *method_args, **method_kwargs) for i in which]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]  # the tables are bare envs
