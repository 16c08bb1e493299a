"""The batched env for stable-baselines3 (``BatchedSB3VecEnv``), on one process or two:
the same steps as SB3's ``DummyVecEnv`` of ``gym.make`` envs from the same seeds (SB3's
autoreset, the terminal observation in the info), the tables' attributes and methods, and
sb3-contrib's ``MaskablePPO`` trains on it unchanged."""

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401
from poolgym.envs.sb3_vec_env import BatchedSB3VecEnv, make_sb3_vec_env

KWARGS = {"action_mode": "choice_discrete", "obs_mode": "flat", "max_episode_steps": 5}


@pytest.mark.parametrize("num_workers", [1, 2])
def test_the_sb3_adapter_steps_as_dummy_vec_env(num_workers):
    from stable_baselines3.common.vec_env import DummyVecEnv

    seed, n = 3301, 4
    batched = make_sb3_vec_env("poolgym/NineBall-v1", n, seed=seed, num_workers=num_workers, **KWARGS)
    assert len(batched.processes) == num_workers - 1
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
    # The tables' attributes and methods, a worker's too (table 3 is in the worker).
    assert batched.has_attr("action_masks") and not batched.has_attr("no_such_attribute")
    assert batched.get_attr("racks_won") == dummy.get_attr("racks_won")
    assert batched.get_attr("racks_won", indices=[3]) == dummy.get_attr("racks_won", indices=[3])
    assert batched.env_method("potential", indices=[1, 3]) == dummy.env_method("potential", indices=[1, 3])
    batched.set_attr("label", "table 3", indices=[3])
    batched.set_attr("label", "table 0", indices=[0])
    assert batched.get_attr("label", indices=[0, 3]) == ["table 0", "table 3"]
    for a, b in zip(batched.env_method("reset", seed=9, indices=[3]), dummy.env_method("reset", seed=9, indices=[3])):
        assert np.array_equal(a[0], b[0])
    assert np.array_equal(batched.env_method("action_masks", indices=[3])[0], dummy.env_method("action_masks", indices=[3])[0])
    batched.close()
    dummy.close()


@pytest.mark.parametrize("num_workers", [1, 2])
def test_per_table_reset_options_reset_as_dummy_vec_env(num_workers):
    """SB3's ``set_options`` with a different option per table: each table reset with its own."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    batched = make_sb3_vec_env("poolgym/NineBall-v1", 4, num_workers=num_workers, **KWARGS)
    dummy = DummyVecEnv([lambda: gym.make("poolgym/NineBall-v1", **KWARGS)] * 4)
    for venv in (batched, dummy):
        venv.seed(3401)
        venv.set_options([{"breaker": 0}, {"breaker": 1}, {"breaker": 1}, {"breaker": 0}])
    assert np.array_equal(batched.reset(), dummy.reset())
    assert [info["outcomes"] for info in batched.reset_infos] == [info["outcomes"] for info in dummy.reset_infos]
    # The options mattered: the opponent broke on tables 1 and 2 only.
    assert [bool(info["outcomes"]) for info in batched.reset_infos] == [False, True, True, False]
    batched.close()
    dummy.close()


def test_the_adapter_refuses_an_env_that_resets_on_the_next_step():
    with pytest.raises(ValueError, match="leave it out"):
        make_sb3_vec_env("poolgym/NineBall-v1", 2, autoreset_mode="SameStep")
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=2)
    with pytest.raises(ValueError, match="make it with autoreset_mode=AutoresetMode.SAME_STEP"):
        BatchedSB3VecEnv(vec)
    vec.close()


@pytest.mark.parametrize("num_workers", [1, 2])
def test_maskable_ppo_trains_on_the_batched_env(num_workers):
    import torch
    from sb3_contrib import MaskablePPO

    venv = make_sb3_vec_env("poolgym/NineBall-v1", 4, seed=7, num_workers=num_workers, **KWARGS)
    torch.manual_seed(0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=2, seed=0, device="cpu")
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    assert model.num_timesteps >= 256
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
