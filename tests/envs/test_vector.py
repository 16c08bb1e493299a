"""Every poolgym env runs in Gymnasium's sync and async vector envs and SB3's SubprocVecEnv."""

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401

from .test_env_api import ENV_IDS


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasium_sync_and_async_vector_envs(env_id):
    for vector_cls in (gym.vector.SyncVectorEnv, gym.vector.AsyncVectorEnv):
        envs = vector_cls([lambda: gym.make(env_id, obs_mode="flat")] * 2)
        try:
            obs, _ = envs.reset(seed=[1, 2])
            assert obs.shape[0] == 2 and not np.array_equal(obs[0], obs[1])
            for _ in range(3):
                obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
                assert envs.observation_space.contains(obs)
        finally:
            envs.close()


def test_sb3_subproc_vec_env_matches_dummy_vec_env():
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    results = []
    for cls in (DummyVecEnv, SubprocVecEnv):
        # "poolgym:" makes Gymnasium import poolgym (which registers the ids) in the workers.
        venv = make_vec_env("poolgym:poolgym/NineBall-v1", n_envs=2, seed=5, vec_env_cls=cls,
                            env_kwargs={"obs_mode": "flat"})
        obs = [venv.reset()]
        rng = np.random.default_rng(0)
        for _ in range(4):
            obs.append(venv.step(rng.uniform(-1, 1, (2, 8)).astype(np.float32))[0])
        venv.close()
        results.append(np.stack(obs))
    assert np.array_equal(results[0], results[1])
