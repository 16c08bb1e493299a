"""The batched envs' ``num_threads``: the compiled call split into contiguous shares, one a
thread (``Simulator.layout_plays`` with ``poolgym.physics.threads.KernelThreads``), gives
every array of one call to the last bit, and every table what ``gym.make`` gives, for any
thread count (a count that does not divide the tables, more threads than plays, airborne
plays handed on to the airborne core in the calling thread); a call too small to pay for a
thread stays in one; the lookahead's plays (``Simulator.simulate_facts``) and their next
shots' chances shared too, the same features; the count is checked, capped at the tables
and passed through ``gym.make_vec`` and the SB3 adapter, and ``close`` stops the threads."""

from __future__ import annotations

import threading
from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401
from poolgym.envs.batched import BatchedPoolEnv, BatchedPotBallEnv
from poolgym.envs.batched_check import play_side_by_side
from poolgym.physics import Shot, Simulator, simulator
from poolgym.physics import event_core as core
from poolgym.physics.batch import T_STATUS
from poolgym.physics.invariants import random_layout, random_shot
from poolgym.physics.threads import KernelThreads, available_cores
from poolgym.table import Table

ARRAYS = ("tables", "durations", "spots", "ball_marks", "log_rows", "log_starts")


def _same_arrays(a, b) -> bool:
    """Whether two ``LayoutPlays`` hold the same arrays: shapes, dtypes and every bit."""
    return all(getattr(a, name).dtype == getattr(b, name).dtype and getattr(a, name).shape == getattr(b, name).shape
               and getattr(a, name).tobytes() == getattr(b, name).tobytes() for name in ARRAYS)


@pytest.fixture
def every_call_shared(monkeypatch):
    """Calls of a few plays shared too (a thread for every play), as larger ones are."""
    monkeypatch.setattr(simulator, "MIN_PLAYS_PER_THREAD", 1)


@pytest.mark.parametrize("num_threads", [1, 2, 3])
def test_every_table_is_the_single_env_on_any_thread_count(num_threads, every_call_shared):
    # Seven tables: no count above divides them.
    ends = play_side_by_side("poolgym/NineBall-v1", [7301 + 11 * k for k in range(7)], 40, "masked",
                             num_threads=num_threads, action_mode="choice_discrete")["episode_ends"]
    assert ends > 0
    play_side_by_side("poolgym/NineBall-v1", [7401, 7402, 7403, 7404, 7405], 20, "random",
                      num_threads=num_threads, action_mode="aim")
    play_side_by_side("poolgym/PotBall-v1", [7501 + k for k in range(5)], 20, "random",
                      num_threads=num_threads, action_mode="aim", obs_mode="flat")


def _random_plays(table: Table, count: int, seed: int) -> list:
    """Random strokes from random layouts, a third of them elevated (the level core hands
    each on: a downward strike leaves the bed)."""
    rng = np.random.default_rng(seed)
    plays = []
    for k in range(count):
        shot = random_shot(rng)
        if k % 3 == 0:
            shot = replace(shot, elevation_deg=float(rng.uniform(5.0, Shot.MAX_ELEVATION_DEG)))
        plays.append((random_layout(table, int(rng.integers(1, 16)), rng), shot))
    return plays


def test_layout_plays_on_threads_are_one_call_to_the_last_bit(every_call_shared):
    """Random plays, level and airborne, on 2 to 5 threads: 23 plays (no count divides
    them), 3 plays on 5 threads (more threads than plays) and one play."""
    table = Table.preset("9ft")
    sim = Simulator(table)
    plays = _random_plays(table, 23, 47)
    assert any(shot.elevation_deg > 0.0 for _, shot in plays[:8]) and any(shot.elevation_deg > 0.0 for _, shot in plays[8:])
    one = sim.layout_plays(plays)
    assert len(one.log_rows) > 0 and np.all(one.tables[:, T_STATUS] == core.DONE)
    for count in (2, 3, 4, 5):
        threads = KernelThreads(count)
        try:
            assert _same_arrays(sim.layout_plays(plays, threads), one), count
            for few in (plays[:3], plays[7:8]):
                assert _same_arrays(sim.layout_plays(few, threads), sim.layout_plays(few)), (count, len(few))
            # What the rules read and each result built from the arrays, too.
            threaded = sim.layout_plays(plays, threads)
            assert [threaded.facts(t) for t in range(len(plays))] == [one.facts(t) for t in range(len(plays))]
            assert [threaded.result(t) for t in range(len(plays))] == [one.result(t) for t in range(len(plays))]
        finally:
            threads.close()


def test_a_thread_gets_a_share_of_at_least_the_fewest_plays(monkeypatch):
    """A share costs more than a few plays save: a call of fewer than twice
    ``MIN_PLAYS_PER_THREAD`` plays stays in the calling thread, a larger one is shared
    among as many threads as it fills (and still gives one call's arrays)."""
    table = Table.preset("9ft")
    sim = Simulator(table)
    plays = _random_plays(table, 41, 48)
    least = simulator.MIN_PLAYS_PER_THREAD
    threads = KernelThreads(4)
    shared = []
    run = threads.run
    monkeypatch.setattr(threads, "run", lambda calls: shared.append(len(calls)) or run(calls))
    try:
        for count, shares in ((2 * least - 1, None), (2 * least, 2), (3 * least + 1, 3), (41, min(4, 41 // least))):
            shared.clear()
            assert _same_arrays(sim.layout_plays(plays[:count], threads), sim.layout_plays(plays[:count])), count
            assert shared == ([] if shares is None else [shares]), count
    finally:
        threads.close()


def test_simulate_facts_on_threads_are_one_call_to_the_last_bit(monkeypatch):
    """Plays from one layout, level and airborne, shared among 2 to 5 threads (shares of
    any size, then only of ``MIN_FACT_PLAYS_PER_THREAD`` plays or more): every fact of one
    call, bit for bit."""
    table = Table.preset("9ft")
    sim = Simulator(table)
    rng = np.random.default_rng(49)
    layout = random_layout(table, 9, rng)
    shots = [random_shot(rng) for _ in range(70)]
    shots = [replace(shot, elevation_deg=float(rng.uniform(5.0, Shot.MAX_ELEVATION_DEG))) if k % 4 == 0 else shot
             for k, shot in enumerate(shots)]
    strikes = np.array([sim.strike_state(shot.validate(sim.params.max_speed)) for shot in shots])
    one = sim.simulate_facts(layout, strikes)
    assert np.all(one.status == core.DONE) and one.pocketed.any() and (one.first >= 0).any()

    def same(a, b) -> bool:
        return a.nums == b.nums and all(x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
                                        for x, y in zip(a[1:], b[1:]))

    for least in (1, simulator.MIN_FACT_PLAYS_PER_THREAD):
        monkeypatch.setattr(simulator, "MIN_FACT_PLAYS_PER_THREAD", least)
        for count in (2, 3, 4, 5):
            threads = KernelThreads(count)
            shared = []
            run = threads.run
            monkeypatch.setattr(threads, "run", lambda calls: shared.append(len(calls)) or run(calls))
            try:
                assert same(sim.simulate_facts(layout, strikes, threads), one), (least, count)
                assert shared == [min(count, 70 // least)], (least, count)
                assert same(sim.simulate_facts(layout, strikes[:1], threads), sim.simulate_facts(layout, strikes[:1]))
            finally:
                threads.close()


def test_the_lookahead_on_threads_gives_every_table_the_same_features():
    """The lookahead env (the shipped agent's: ``choice_canonical``, eight plays a stroke)
    on two threads: observations (every entry), rewards and masks of one thread's at every
    step, with its plays and their chances shared among the threads."""
    kwargs = dict(action_mode="choice_canonical", lookahead=True, lookahead_samples=8)
    seen = {}
    for num_threads in (1, 2):
        vec = gym.make_vec("poolgym/NineBall-v1", num_envs=4, num_threads=num_threads, **kwargs)
        shared = []
        if num_threads == 2:
            run = vec._threads.run
            vec._threads.run = lambda calls: shared.append(len(calls)) or run(calls)
        obs, _ = vec.reset(seed=31)
        rng = np.random.default_rng(31)
        arrays, lookahead = [*obs.values()], [obs["lookahead"]]
        try:
            for _ in range(12):
                masks = vec.action_masks()
                obs, rewards, terminated, truncated, _ = vec.step(
                    np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
                arrays += [masks, *obs.values(), rewards, terminated, truncated]
                lookahead.append(obs["lookahead"])
        finally:
            vec.close()
        seen[num_threads] = arrays
        if num_threads == 2:
            assert shared.count(2) > 12  # the lookahead's calls were shared
    assert len(seen[1]) == len(seen[2]) and all(np.array_equal(a, b) for a, b in zip(seen[1], seen[2]))
    assert np.count_nonzero(np.concatenate(lookahead)) > 1000  # features worked out, not empty rows


def test_num_threads_is_checked_capped_at_the_tables_and_passed_through_make_vec():
    for bad in (0, -1, 2.5, True, "2"):
        with pytest.raises(ValueError, match=rf"^num_threads must be None \(the {available_cores()} cores available\) "
                                             rf"or a whole number >= 1, got {bad!r}$"):
            gym.make_vec("poolgym/NineBall-v1", num_envs=3, num_threads=bad)
    cases = [("poolgym/NineBall-v1", 4, 2, 2), ("poolgym/NineBall-v1", 3, 8, 3), ("poolgym/NineBall-v1", 1, None, 1),
             ("poolgym/PotBall-v1", 64, None, min(available_cores(), 64)), ("poolgym/PotBall-v1", 5, 1, 1),
             ("poolgym/PotBall-v1", 8, "default", 1)]
    for env_id, num_envs, num_threads, used in cases:
        vec = gym.make_vec(env_id, num_envs=num_envs, **({} if num_threads == "default" else {"num_threads": num_threads}))
        assert isinstance(vec, (BatchedPoolEnv, BatchedPotBallEnv)) and vec.num_threads == used
        assert (vec._threads is None) == (used == 1) and (used == 1 or vec._threads.count == used)
        vec.close()


def test_close_stops_the_threads(every_call_shared):
    def kernel_threads():
        return [t for t in threading.enumerate() if t.name.startswith("poolgym-kernel")]

    before = len(kernel_threads())
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=4, num_threads=3, action_mode="aim")
    vec.reset(seed=3)
    vec.step(np.zeros((4, vec.single_action_space.shape[0]), np.float32))
    assert len(kernel_threads()) == before + 2  # the calling thread plays the first share
    vec.close()
    assert len(kernel_threads()) == before


def test_the_sb3_adapter_passes_num_threads_on():
    from poolgym.envs.sb3_vec_env import make_sb3_vec_env

    venv = make_sb3_vec_env("poolgym/NineBall-v1", num_envs=3, seed=0, num_threads=2, action_mode="choice_discrete")
    assert venv.batched.num_threads == 2
    venv.close()


def test_a_share_that_raises_is_raised_after_every_share_ended():
    threads = KernelThreads(3)
    ended = []

    def fails():
        raise RuntimeError("share 2")

    def slow():
        threading.Event().wait(0.05)
        ended.append(1)
        return 1

    try:
        with pytest.raises(RuntimeError, match="share 2"):
            threads.run([lambda: 0, slow, fails])
        assert ended == [1]
        assert threads.run([lambda: "a", lambda: "b"]) == ["a", "b"]
        with pytest.raises(ValueError, match="calls must be 1 to 3, got 4"):
            threads.run([lambda: 0] * 4)
    finally:
        threads.close()
