"""SB3's per-env ``Monitor`` for a batched env's tables: ``TableMonitor`` writes table
``i``'s episodes to ``<folder>/<i>.monitor.csv`` and puts ``info["episode"]`` on the step
that ends one, as ``make_vec_env(..., monitor_dir=folder)`` does for env ``i`` of a
``DummyVecEnv``: the same files, rows and infos (the training log, the plots and SB3's own
episode statistics read them alike). The batched env's tables are stepped by the batch,
not through gym wrappers, so the monitor sits over the ``VecEnv``."""

from __future__ import annotations

import os
import time

import numpy as np
from stable_baselines3.common.monitor import ResultsWriter
from stable_baselines3.common.vec_env import VecEnvWrapper

from poolgym.envs.sb3_vec_env import BatchedSB3VecEnv


class TableMonitor(VecEnvWrapper):
    """Per-table episode returns, lengths and times of ``venv`` (module docstring: the
    tables' own float rewards, ``BatchedSB3VecEnv.step_rewards``); with
    ``folder`` None nothing is written, the infos still carry ``episode``.
    ``override_existing`` False appends to the files of a continued run."""

    def __init__(self, venv: "BatchedSB3VecEnv", folder: str | None, env_id: str, override_existing: bool = True) -> None:
        super().__init__(venv)
        self.t_start = time.time()
        self.writers = None
        if folder is not None:
            os.makedirs(folder, exist_ok=True)
            self.writers = [ResultsWriter(os.path.join(folder, str(i)), header={"t_start": self.t_start,
                                                                               "env_id": env_id},
                                          override_existing=override_existing) for i in range(self.num_envs)]
        self.rewards: list[list[float]] = [[] for _ in range(self.num_envs)]

    def reset(self):
        self.rewards = [[] for _ in range(self.num_envs)]
        return self.venv.reset()

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        # Monitor sums each env's own reward (a Python float), not the float32 the VecEnv returns.
        exact = self.venv.step_rewards
        for i, info in enumerate(infos):
            self.rewards[i].append(float(exact[i]))
            if dones[i]:
                episode = {"r": round(sum(self.rewards[i]), 6), "l": len(self.rewards[i]),
                           "t": round(time.time() - self.t_start, 6)}
                if self.writers is not None:
                    self.writers[i].write_row(episode)
                info["episode"] = episode
                self.rewards[i] = []
        return obs, rewards, dones, infos

    def close(self) -> None:
        if self.writers is not None:
            for writer in self.writers:
                writer.close()
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """The batched env's action masks (``MaskablePPO`` asks the wrapper)."""
        return self.venv.action_masks()
