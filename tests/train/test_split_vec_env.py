"""``SplitVecEnv``: half the envs in this process, half in one worker, stepping as a
``DummyVecEnv`` of the same env functions does; and the recipe setting that uses it."""

from __future__ import annotations

import functools

import gymnasium as gym
import numpy as np
import pytest
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv

import poolgym  # noqa: F401
from poolgym.agents.training.split_vec_env import SplitVecEnv
from poolgym.agents.training.train import make_env
from tests.worker_processes import worker_ends_with_its_parent

KWARGS = dict(obs_mode="flat", action_mode="choice_discrete", opponent="legal-random")


def _vec(cls, n: int = 3, **kwargs):
    make = functools.partial(make_env, gym.spec("poolgym/NineBall-v1"), None, None)
    return make_vec_env(make, n_envs=n, seed=5, env_kwargs=dict(KWARGS, **kwargs), vec_env_cls=cls)


def _masked_steps(venv, steps: int) -> list:
    rng = np.random.default_rng(0)
    sizes = np.cumsum(venv.action_space.nvec)[:-1]
    record = [venv.reset()]
    for _ in range(steps):
        masks = np.stack(venv.env_method("action_masks"))
        actions = np.array([[rng.choice(np.flatnonzero(part)) for part in np.split(m, sizes)] for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        record.append((obs, rewards, dones, masks, [info.get("outcomes") for info in infos]))
    return record


@pytest.mark.parametrize("start_method", [None, "spawn"])
def test_it_steps_as_a_dummy_vec_env_of_the_same_envs(start_method):
    """Three envs (two here, one in the worker; forked by default, spawned too): the same
    observations, rewards, episode ends, action masks and outcomes over 40 masked random
    steps, episode ends and automatic resets included."""
    dummy = _vec(DummyVecEnv)
    split = _vec(functools.partial(SplitVecEnv, start_method=start_method))
    try:
        assert split.count == 2 and split.masked
        expected, got = _masked_steps(dummy, 40), _masked_steps(split, 40)
    finally:
        dummy.close()
        split.close()
    assert np.array_equal(expected[0], got[0])
    assert any(step[2].any() for step in expected[1:])  # an episode ended on the way
    for a, b in zip(expected[1:], got[1:]):
        assert all(np.array_equal(x, y) for x, y in zip(a[:4], b[:4])) and a[4] == b[4]


def test_attributes_and_methods_reach_the_env_they_name():
    split = _vec(SplitVecEnv)
    try:
        split.reset()
        assert split.has_attr("action_masks") and not split.has_attr("no_such_attribute")
        split.set_attr("marker", "worker", indices=[2])
        split.set_attr("marker", "here", indices=[0, 1])
        assert split.get_attr("marker") == ["here", "here", "worker"]
        assert split.get_attr("marker", indices=2) == ["worker"]
        masks = split.env_method("action_masks", indices=[2, 0])
        assert [m.shape for m in masks] == [(int(sum(split.action_space.nvec)),)] * 2
        assert split.env_is_wrapped(gym.wrappers.TimeLimit) == [True, True, True]
        # The worker, listed as SubprocVecEnv lists its own (training counts its CPU).
        assert split.processes == [split._process] and split.processes[0].pid is not None
    finally:
        split.close()
    assert split.closed and not split._process.is_alive()


def test_an_env_failing_in_the_worker_is_raised_here_with_its_traceback():
    split = _vec(SplitVecEnv, n=2)
    try:
        split.reset()
        with pytest.raises(RuntimeError, match="worker process failed(.|\n)*no_such_method"):
            split.env_method("no_such_method", indices=[1])
        split.step(np.stack([split.action_space.sample()] * 2) * 0)  # still answering after the error
    finally:
        split.close()


def test_one_env_needs_no_worker():
    split = _vec(SplitVecEnv, n=1)
    try:
        assert split._process is None and split.processes == [] and split.reset().shape[0] == 1
    finally:
        split.close()


def test_the_recipe_trains_the_same_model_to_the_last_bit_split_or_in_one_process(tmp_path):
    """The MaskablePPO recipe (``vec_env: batched_split``) cut to a tiny budget, trained as it
    is, split (single envs) and with every env in the training process: the same weights;
    torch is left on the envs' thread count (``torch_threads``), not the updates' own."""
    import torch
    import yaml

    from poolgym.agents.training.train import train

    recipe = yaml.safe_load(open("configs/train/nine_ball_maskable_ppo.yaml").read())
    assert recipe["vec_env"] == "batched_split"
    recipe["hyperparameters"].update(n_steps=16, batch_size=32, n_epochs=2, policy_kwargs={"net_arch": [16]})
    recipe.pop("curve")
    recipe.update(n_envs=4, total_steps=128, checkpoint_every=0)
    recipe["eval"].update(every_steps=0)
    from sb3_contrib import MaskablePPO

    weights = {}
    for vec_env in ("batched_split", "split", "dummy"):
        summary = train(dict(recipe, vec_env=vec_env), out=tmp_path / vec_env, update_threads=2, evaluate=False)
        assert summary["steps"] == 128 and torch.get_num_threads() == 1
        weights[vec_env] = MaskablePPO.load(tmp_path / vec_env / "model.zip").policy.state_dict()
    for vec_env in ("batched_split", "split"):
        assert weights[vec_env].keys() == weights["dummy"].keys()
        assert all(torch.equal(weights[vec_env][k], weights["dummy"][k]) for k in weights["dummy"])


def test_images_come_from_both_halves_as_a_dummy_vec_env_draws_them():
    """``render()``'s images: the worker's env draws its frame there and sends it back."""
    dummy = _vec(DummyVecEnv, render_mode="rgb_array", width=160)
    split = _vec(SplitVecEnv, render_mode="rgb_array", width=160)
    try:
        dummy.reset()
        split.reset()
        expected, got = dummy.get_images(), split.get_images()
    finally:
        dummy.close()
        split.close()
    assert split.render_mode == "rgb_array" and len(got) == 3
    assert all(np.array_equal(a, b) for a, b in zip(expected, got))


def test_an_env_the_worker_cannot_make_is_raised_and_no_worker_is_left():
    import multiprocessing

    def broken():
        raise ValueError("no table today")

    fns = [lambda: gym.make("poolgym/NineBall-v1", **KWARGS), broken]
    before = set(multiprocessing.active_children())
    with pytest.raises(RuntimeError, match="no table today"):
        SplitVecEnv(fns)
    left = set(multiprocessing.active_children()) - before
    for child in left:
        child.join(timeout=5)
    assert not [child for child in left if child.is_alive()]


def test_the_worker_ends_when_the_training_process_is_killed(tmp_path):
    """A forked worker holds no copy of the training process's end of the pipe: that process
    killed, the worker reads the end of the pipe and ends (no orphan left waiting)."""
    assert worker_ends_with_its_parent(
        tmp_path, "import gymnasium as gym, poolgym\n"
                  "from poolgym.agents.training.split_vec_env import SplitVecEnv\n"
                  "venv = SplitVecEnv([lambda: gym.make('poolgym/NineBall-v1', action_mode='choice_discrete')] * 2)\n"
                  "venv.reset()\n"
                  "worker = venv.processes[0]")
