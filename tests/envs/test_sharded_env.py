"""The batched envs' tables in shards on several processes (``num_workers``): every table the
single env's, the outputs those of one process, a step all or nothing across the shards."""

import multiprocessing
import os

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401  (registers the ids)
from poolgym.envs.batched import BatchedPoolEnv, BatchedPotBallEnv
from poolgym.envs.batched_check import play_side_by_side
from poolgym.envs.pool_env import OpponentError
from poolgym.envs.sharded import ShardedTables, shard_sizes
from tests.worker_processes import worker_ends_with_its_parent


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    return a == b


def _masked_actions(vec, rng):
    nvec = vec.single_action_space.nvec
    cut = np.cumsum(nvec)[:-1]
    return np.array([[rng.choice(np.flatnonzero(p)) for p in np.split(row, cut)] for row in vec.action_masks()])


def test_shards_are_consecutive_and_as_even_as_can_be():
    assert shard_sizes(10, 3) == [4, 3, 3]
    assert shard_sizes(2, 5) == [1, 1]
    assert shard_sizes(7, 1) == [7]


@pytest.mark.parametrize("num_workers", [2, 3])
def test_every_table_is_the_single_env_across_autoresets(num_workers):
    counted = play_side_by_side("poolgym/NineBall-v1", range(4100, 4107), 60, policy="masked",
                                num_workers=num_workers, action_mode="choice_discrete", obs_mode="flat")
    assert counted["table_steps"] == 420 and counted["episode_ends"] > 0


def test_aim_dict_observations_and_truncation_are_the_single_env():
    counted = play_side_by_side("poolgym/NineBall-v1", range(4200, 4205), 40, policy="random", num_workers=2,
                                max_episode_steps=7, action_mode="aim")
    assert counted["episode_ends"] >= 5  # every table truncated at least once


def test_the_pot_ball_drill_sharded_is_the_single_env():
    counted = play_side_by_side("poolgym/PotBall-v1", range(4300, 4305), 12, policy="random", num_workers=2)
    assert counted["episode_ends"] == 30  # one shot an episode, every other step a reset


def test_the_outputs_are_those_of_one_process():
    """Stacked observations, rewards, flags, infos (their keys, masks and dtypes) and masks:
    the same arrays as the one-process batched env's, step after step."""
    kwargs = dict(num_envs=5, action_mode="choice_discrete")
    one = gym.make_vec("poolgym/NineBall-v1", **kwargs)
    sharded = gym.make_vec("poolgym/NineBall-v1", num_workers=2, **kwargs)
    assert isinstance(one, BatchedPoolEnv) and isinstance(sharded, ShardedTables)
    assert len(sharded.processes) == 1 and sharded.processes[0].is_alive()
    assert sharded.observation_space == one.observation_space and sharded.action_space == one.action_space
    assert sharded.metadata["autoreset_mode"] == one.metadata["autoreset_mode"]
    rng = np.random.default_rng(3)
    assert all(_same(a, b) for a, b in zip(one.reset(seed=77), sharded.reset(seed=77)))
    for _ in range(40):
        masks = one.action_masks()
        assert _same(masks, sharded.action_masks())
        actions = _masked_actions(one, rng)
        for a, b in zip(one.step(actions), sharded.step(actions)):
            assert _same(a, b)
    # A table reset, or a method called, right after a step: the masks on their way from
    # the worker are not taken for the tables' new ones.
    for seed in range(10):
        actions = _masked_actions(one, rng)
        one.step(actions), sharded.step(actions)
        assert all(_same(a, b) for a, b in zip(sharded.reset_table(4, seed=seed), one.reset_table(4, seed=seed)))
        assert _same(sharded.action_masks(), one.action_masks())
        actions = _masked_actions(one, rng)
        one.step(actions), sharded.step(actions)
        sharded.call("reset", seed=100 + seed), one.call("reset", seed=100 + seed)
        assert _same(sharded.action_masks(), one.action_masks())
    assert sharded.get_attr("racks_won") == one.get_attr("racks_won")
    assert sharded.call("potential") == one.call("potential")
    for i in (1, 4):
        assert _same(sharded.table_action_masks(i), one.table_action_masks(i))
        assert all(_same(a, b) for a, b in zip(sharded.reset_table(i, seed=5), one.reset_table(i, seed=5)))
    assert _same(sharded.action_masks(), one.action_masks())
    process = sharded.processes[0]
    sharded.close()
    one.close()
    assert not process.is_alive()


@pytest.mark.parametrize("bad_table", [0, 4])
def test_a_bad_action_in_any_shard_leaves_every_table_as_it_was(bad_table):
    """Table 0 steps in this process, table 4 in the worker: either refused, no table of
    either shard moves, and the error is the one the single env raises."""
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=5, num_workers=2, action_mode="aim")
    vec.reset(seed=11)
    actions = np.zeros((5, vec.single_action_space.shape[0]), np.float32)
    for _ in range(3):
        vec.step(actions)
    before = vec.get_attr("state"), [g.bit_generator.state for g in vec.get_attr("np_random")]
    bad = actions.copy()
    bad[bad_table, 0] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        vec.step(bad)
    assert (vec.get_attr("state"), [g.bit_generator.state for g in vec.get_attr("np_random")]) == before
    # The env goes on as if the refused step had not been asked for.
    single = gym.make_vec("poolgym/NineBall-v1", num_envs=5, action_mode="aim")
    single.reset(seed=11)
    for _ in range(4):
        expected = single.step(actions)
    assert all(_same(a, b) for a, b in zip(vec.step(actions), expected))
    vec.close()


def test_a_failing_opponent_in_the_worker_is_raised_here_and_undone_everywhere():
    """A policy opponent that fails in the worker's shard only: its ``OpponentError``
    raised in this process (noted as the worker's), every table of both shards put back."""
    parent = os.getpid()
    shape = gym.make("poolgym/NineBall-v1", action_mode="aim").action_space.shape

    def opponent(observation, info):
        if os.getpid() != parent:
            raise RuntimeError("no move from this policy in the worker")
        return np.zeros(shape, np.float32)

    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=4, num_workers=2, action_mode="aim", opponent=opponent,
                       breaker="agent")
    vec.reset(seed=21)
    actions = np.zeros((4, *shape), np.float32)
    with pytest.raises(OpponentError, match="no move from this policy in the worker") as raised:
        for _ in range(50):
            before = vec.get_attr("state"), [g.bit_generator.state for g in vec.get_attr("np_random")]
            vec.step(actions)
    assert (vec.get_attr("state"), [g.bit_generator.state for g in vec.get_attr("np_random")]) == before
    assert any("env worker process of tables 2..3" in note for note in raised.value.__notes__)
    vec.close()


def test_bad_arguments_are_refused_in_this_process():
    for n in (0, 2.5):
        with pytest.raises(ValueError, match="num_envs must be a whole number >= 1"):
            ShardedTables(BatchedPoolEnv, n, 2)
    for workers in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match=r"^num_workers must be None \(the \d+ cores available\) or a whole "
                                             r"number >= 1"):
            gym.make_vec("poolgym/NineBall-v1", num_envs=2, num_workers=workers)
    with pytest.raises(ValueError, match="render_mode is not batched"):
        gym.make_vec("poolgym/NineBall-v1", num_envs=2, num_workers=2, render_mode="rgb_array")
    with pytest.raises(ValueError, match=r"^action_mode must be one of \[.*got 'nonsense'$"):
        gym.make_vec("poolgym/NineBall-v1", num_envs=2, num_workers=2, action_mode="nonsense")
    assert multiprocessing.active_children() == []  # no worker left behind by a refusal
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=3, num_workers=2, action_mode="aim")
    vec.reset(seed=1)
    with pytest.raises(ValueError, match=r"^seed\[2\] must be None or an integer >= 0"):
        vec.reset(seed=[1, 2, -1])
    with pytest.raises(ValueError, match=r"^actions must hold one action per table \(3 rows"):
        vec.step(np.zeros((2, vec.single_action_space.shape[0]), np.float32))
    for i in (-1, 3, True):
        with pytest.raises(ValueError, match=rf"^table must be a whole number in 0..2, got {i!r}$"):
            vec.reset_table(i)
    with pytest.raises(ValueError, match="needs a masked action mode"):
        vec.action_masks()
    vec.close()


def test_more_workers_than_tables_gives_one_table_each_and_one_worker_no_process():
    vec = gym.make_vec("poolgym/PotBall-v1", num_envs=2, num_workers=4)
    assert isinstance(vec, ShardedTables) and vec.num_workers == 2 and len(vec.processes) == 1
    vec.close()
    assert isinstance(gym.make_vec("poolgym/PotBall-v1", num_envs=2, num_workers=1), BatchedPotBallEnv)


def test_a_worker_that_died_is_named_and_this_process_tables_are_untouched():
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=4, num_workers=2, action_mode="aim")
    vec.reset(seed=2)
    process = vec.processes[0]
    process.kill()
    process.join()
    before = [t.state for t in vec.local.tables]
    with pytest.raises(RuntimeError, match=r"^the env worker process of tables 2..3 has ended \(exit code -9"):
        vec.step(np.zeros((4, vec.single_action_space.shape[0]), np.float32))
    assert [t.state for t in vec.local.tables] == before
    vec.close()


def test_a_worker_ends_when_the_process_that_started_it_is_killed(tmp_path):
    """A forked worker holds no copy of its parent's end of the pipe: the parent killed,
    the worker reads the end of the pipe and ends (no orphan left stepping or waiting)."""
    assert worker_ends_with_its_parent(tmp_path, "import gymnasium as gym, poolgym\n"
                                                 "vec = gym.make_vec('poolgym/PotBall-v1', num_envs=2, num_workers=2)\n"
                                                 "vec.reset(seed=0)\n"
                                                 "worker = vec.processes[0]")
