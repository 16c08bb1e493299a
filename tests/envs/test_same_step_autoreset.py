"""The batched envs with ``autoreset_mode=AutoresetMode.SAME_STEP``: a table whose episode
ends is reset in that step, every output (observations, rewards, flags, infos with
``final_obs`` and ``final_info``, masks) the same as Gymnasium's ``SyncVectorEnv`` of the
single envs in that mode gives from the same seeds and actions, on one process or several."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import poolgym  # noqa: F401  (registers the ids)
from poolgym.envs.batched import BatchedPoolEnv


def _same(a, b) -> bool:
    """Deep equality: dicts (their keys in order), arrays (dtype and values; object arrays
    element by element), anything else by ``==``."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        if not isinstance(b, np.ndarray) or a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == object:
            return all(_same(x, y) for x, y in zip(a.ravel(), b.ravel()))
        return np.array_equal(a, b)
    return type(a) is type(b) and a == b


def _masked_actions(space, masks, rng):
    cut = np.cumsum(space.nvec)[:-1]
    return np.array([[rng.choice(np.flatnonzero(p)) for p in np.split(row, cut)] for row in masks])


def _play_against_sync(env_id: str, num_workers: int, steps: int, seed: int, **kwargs) -> int:
    """Both envs stepped alike; the episodes that ended."""
    n = 5
    batched = gym.make_vec(env_id, num_envs=n, num_workers=num_workers, autoreset_mode=AutoresetMode.SAME_STEP,
                           **kwargs)
    sync = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync",
                        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP}, **kwargs)
    assert batched.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    rng = np.random.default_rng(seed)
    ends = 0
    try:
        assert all(_same(a, b) for a, b in zip(batched.reset(seed=seed), sync.reset(seed=seed)))
        for _ in range(steps):
            masked = hasattr(batched.single_action_space, "nvec")
            if masked:
                masks = np.stack(sync.call("action_masks"))
                assert _same(batched.action_masks(), masks)
                actions = _masked_actions(batched.single_action_space, masks, rng)
            else:
                actions = np.stack([batched.single_action_space.sample() for _ in range(n)])
            got, want = batched.step(actions), sync.step(actions)
            for a, b in zip(got, want):
                assert _same(a, b)
            assert ("final_obs" in got[4]) == bool(np.any(want[2] | want[3]))
            ends += int(np.sum(want[2] | want[3]))
    finally:
        batched.close()
        sync.close()
    return ends


@pytest.mark.parametrize("num_workers", [1, 2])
def test_nine_ball_same_step_is_sync_vector_envs(num_workers):
    ends = _play_against_sync("poolgym/NineBall-v1", num_workers, 40, 5100, action_mode="choice_discrete",
                              obs_mode="flat", max_episode_steps=6)
    assert ends >= 20  # terminations and truncations, several on some steps


def test_aim_dict_observations_same_step_is_sync_vector_envs():
    assert _play_against_sync("poolgym/NineBall-v1", 2, 20, 5200, action_mode="aim", max_episode_steps=4) >= 20


def test_the_drill_same_step_is_sync_vector_envs():
    # One shot an episode: every table ends and is reset at every step.
    assert _play_against_sync("poolgym/PotBall-v1", 2, 6, 5300) == 30


def test_same_step_masks_are_the_reset_tables_own():
    """After a step that ends and resets a table, its masks are its new episode's (NEXT_STEP
    allows every action there instead, its next action being ignored)."""
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=3, autoreset_mode="SameStep", action_mode="choice_discrete",
                       max_episode_steps=1)
    vec.reset(seed=1)
    vec.step(_masked_actions(vec.single_action_space, vec.action_masks(), np.random.default_rng(0)))
    assert _same(vec.action_masks(), np.stack(vec.call("action_masks")))
    assert not vec.action_masks().all()
    vec.close()


@pytest.mark.parametrize("num_workers", [1, 2])
def test_an_autoreset_mode_not_offered_is_refused_in_one_line(num_workers):
    import multiprocessing

    before = len(multiprocessing.active_children())
    for bad in (AutoresetMode.DISABLED, "same_step", 1):
        with pytest.raises(ValueError, match="autoreset_mode must be AutoresetMode.NEXT_STEP or "
                                             "AutoresetMode.SAME_STEP"):
            gym.make_vec("poolgym/NineBall-v1", num_envs=3, num_workers=num_workers, autoreset_mode=bad)
    assert len(multiprocessing.active_children()) == before  # no worker started
    assert BatchedPoolEnv(2).metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP


@pytest.mark.parametrize("num_workers", [1, 2])
def test_every_table_is_the_single_env_reset_at_once(num_workers):
    """``play_side_by_side``'s ``same_step``: each table's final observation and info, and its
    reset, against a single env reset as soon as its episode ends."""
    from poolgym.envs.batched_check import play_side_by_side

    counted = play_side_by_side("poolgym/NineBall-v1", range(5400, 5406), 40, policy="masked", max_episode_steps=5,
                                num_workers=num_workers, same_step=True, action_mode="choice_discrete")
    assert counted["table_steps"] == 240 and counted["episode_ends"] >= 40
    counted = play_side_by_side("poolgym/NineBall-v1", range(5500, 5504), 20, policy="random", max_episode_steps=4,
                                num_workers=num_workers, same_step=True, action_mode="aim")
    assert counted["episode_ends"] >= 16


def test_the_same_step_check_names_a_final_observation_that_differs(monkeypatch):
    from poolgym.envs import batched
    from poolgym.envs.batched_check import BatchedMismatch, play_side_by_side

    ended = batched.BatchedTables.end_step

    def one_final_off(self, pending):
        stepped = ended(self, pending)
        for i, (obs, info) in stepped.finals.items():
            obs = obs.copy()
            obs[0] = np.nextafter(obs[0], np.float32(2))
            stepped.finals[i] = (obs, info)
        return stepped

    monkeypatch.setattr(batched.BatchedTables, "end_step", one_final_off)
    with pytest.raises(BatchedMismatch, match=r"differs from gym.make at step 0 \(final observation\)"):
        play_side_by_side("poolgym/NineBall-v1", [5600, 5601], 3, "masked", max_episode_steps=1, same_step=True,
                          action_mode="choice_discrete", obs_mode="flat")
