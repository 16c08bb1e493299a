"""The move records ``PoolEnv.finish_move`` hands to ``move_listeners`` are the records
``MoveRecord(...)`` builds: the same fields, equality, repr and pickles."""

import pickle
from dataclasses import fields

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401
from poolgym.envs.pool_env import MoveRecord


def test_move_records_are_the_records_init_builds():
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete").unwrapped
    records = []
    env.move_listeners.append(records.append)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(60):
        mask = env.action_masks()
        parts = np.split(mask, np.cumsum(env.action_space.nvec)[:-1])
        action = np.array([int(rng.choice(np.flatnonzero(p))) if p.any() else 0 for p in parts])
        if env.step(action)[2]:
            env.reset(seed=int(rng.integers(1000)))
    kinds = {type(r.move).__name__ for r in records}
    assert len(records) > 60 and {"ShotMove", "Decision"} <= kinds
    assert any(r.outcome is not None and r.outcome.fouls for r in records)
    for record in records:
        built = MoveRecord(*[getattr(record, f.name) for f in fields(MoveRecord)])
        assert record == built and repr(record) == repr(built)
        assert list(vars(record)) == list(vars(built)) and pickle.dumps(record) == pickle.dumps(built)
        assert all(type(v) is float for v in record.action)
