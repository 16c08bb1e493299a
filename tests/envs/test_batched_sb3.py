"""The batched env for stable-baselines3 (``BatchedSB3VecEnv``): the same steps as SB3's
``DummyVecEnv`` of ``gym.make`` envs from the same seeds (SB3's autoreset, the terminal
observation in the info), and sb3-contrib's ``MaskablePPO`` trains on it unchanged."""

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401
from poolgym.envs.sb3_vec_env import make_sb3_vec_env

KWARGS = {"action_mode": "choice_discrete", "obs_mode": "flat", "max_episode_steps": 5}


def test_the_sb3_adapter_steps_as_dummy_vec_env():
    from stable_baselines3.common.vec_env import DummyVecEnv

    seed, n = 3301, 4
    batched = make_sb3_vec_env("poolgym/NineBall-v1", n, seed=seed, **KWARGS)
    dummy = DummyVecEnv([lambda: gym.make("poolgym/NineBall-v1", **KWARGS)] * n)
    dummy.seed(seed)
    assert np.array_equal(batched.reset(), dummy.reset())
    rng = np.random.default_rng(seed)
    ends = 0
    for _ in range(30):
        masks = np.stack(dummy.env_method("action_masks"))
        assert np.array_equal(np.stack(batched.env_method("action_masks")), masks)
        assert np.array_equal(batched.action_masks(), masks)
        nvec = batched.action_space.nvec
        actions = np.array([[rng.choice(np.flatnonzero(p)) for p in np.split(m, np.cumsum(nvec)[:-1])]
                            for m in masks])
        got, want = batched.step(actions), dummy.step(actions)
        for a, b in zip(got[:3], want[:3]):
            assert np.array_equal(a, b)
        for a, b in zip(got[3], want[3]):
            assert ("terminal_observation" in a) == ("terminal_observation" in b)
            if "terminal_observation" in b:
                ends += 1
                assert np.array_equal(a["terminal_observation"], b["terminal_observation"])
                assert a["TimeLimit.truncated"] == b["TimeLimit.truncated"]
            assert a["outcomes"] == b["outcomes"] and a["reward_terms"] == b["reward_terms"]
    assert ends >= 10


def test_maskable_ppo_trains_on_the_batched_env():
    import torch
    from sb3_contrib import MaskablePPO

    venv = make_sb3_vec_env("poolgym/NineBall-v1", 4, seed=7, **KWARGS)
    torch.manual_seed(0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=2, seed=0, device="cpu")
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    assert model.num_timesteps >= 256
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
