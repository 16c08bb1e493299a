"""``PoolEnv.step`` is all or nothing: whatever fails inside it, the env is left exactly as
it was, and the next step plays as if the failed one had never been tried."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolgym.envs import PoolEnv
from poolgym.envs.pool_env import OpponentError
from poolgym.saved_game import RecordGame

RAW_ACTION_SIZE = 8


class FlakyOpponent:
    """A random-action policy that fails once, on its ``fail_at``-th call, in one of several
    ways, before it draws anything."""

    def __init__(self, n: int, fail_at: int, kind: str, seed: int) -> None:
        self.n, self.fail_at, self.kind = n, fail_at, kind
        self.rng = np.random.default_rng(seed)
        self.calls = 0
        self.armed = True

    def __call__(self, obs, info):
        self.calls += 1
        if self.armed and self.calls == self.fail_at:
            self.armed = False
            if self.kind == "raise":
                raise RuntimeError("the opponent crashed")
            if self.kind == "nan":
                return np.full(self.n, np.nan, dtype=np.float32)
            return np.zeros(self.n + 1, dtype=np.float32)  # wrong shape
        return self.rng.uniform(-1.0, 1.0, self.n).astype(np.float32)


def _snapshot(env: PoolEnv):
    return (env.state, tuple(env.racks_won), env.np_random.bit_generator.state, env._done,
            env._before_first_move, env._last_result)


def _agent_actions(seed: int, n: int):
    rng = np.random.default_rng(seed)
    while True:
        yield rng.uniform(-1.0, 1.0, n).astype(np.float32)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), fail_at=st.integers(1, 6), kind=st.sampled_from(["raise", "nan", "shape"]),
       race_to=st.integers(1, 2))
def test_an_opponent_failure_leaves_the_env_unchanged_and_the_game_goes_on_as_if_untried(seed, fail_at, kind,
                                                                                      race_to):
    def make(flaky_at):
        return PoolEnv(noise="tournament", race_to=race_to, breaker="agent", rack_model="benchmark",
                       opponent=FlakyOpponent(RAW_ACTION_SIZE, flaky_at, kind, seed))

    env, twin = make(fail_at), make(0)  # the twin's opponent never fails
    env.reset(seed=seed)
    twin.reset(seed=seed)
    actions = _agent_actions(seed, env.action_space.shape[0])
    failed = False
    for _ in range(40):
        action = next(actions)
        before = _snapshot(env)
        calls_before = env.opponent.calls
        try:
            result = env.step(action)
        except OpponentError as exc:
            assert "the opponent's move failed (<" in str(exc) and "FlakyOpponent" in str(exc)
            after = _snapshot(env)
            assert after[:2] == before[:2] and after[2] == before[2] and after[3:] == before[3:]
            failed = True
            # the opponent is asked again from the same point: it now answers as the twin's did
            env.opponent.calls = calls_before
            result = env.step(action)
        expected = twin.step(action)
        assert result[1] == expected[1] and result[2] == expected[2]
        assert env.state == twin.state and env.racks_won == twin.racks_won
        if result[2]:
            break
    if env.opponent.fail_at <= env.opponent.calls:
        assert failed


def test_a_bad_agent_action_changes_nothing_and_records_nothing():
    env = RecordGame(PoolEnv(opponent="legal-random", noise="tournament"))
    env.reset(seed=3)
    game = env.unwrapped
    env.step(np.zeros(game.action_space.shape, dtype=np.float32))
    recorded = len(env.saved_game.moves)
    before = _snapshot(game)
    with pytest.raises(ValueError, match="not finite"):
        env.step(np.full(game.action_space.shape, np.nan, dtype=np.float32))
    assert _snapshot(game)[:4] == before[:4]
    assert len(env.saved_game.moves) == recorded


def test_an_agent_opponent_that_raises_leaves_its_own_generator_and_the_recording_unchanged(monkeypatch):
    env = RecordGame(PoolEnv(opponent="legal-random", noise="tournament", breaker="agent"))
    env.reset(seed=5)
    game = env.unwrapped
    opponent_rng = game.opponent.rng.bit_generator.state
    real_choose = type(game.opponent).choose

    def choose_then_fail(self, state):
        real_choose(self, state)  # draws from the opponent's generator, then fails
        raise RuntimeError("lost the thread")

    monkeypatch.setattr(type(game.opponent), "choose", choose_then_fail)
    before = _snapshot(game)
    with pytest.raises(OpponentError, match="legal-random.*lost the thread"):
        env.step(np.zeros(game.action_space.shape, dtype=np.float32))
    assert _snapshot(game)[:4] == before[:4]
    assert game.opponent.rng.bit_generator.state == opponent_rng
    assert env.saved_game.moves == ()  # the agent's shot was rolled back, so it was never recorded


def test_an_opponent_that_fails_while_breaking_in_reset_leaves_an_episode_that_needs_a_reset():
    env = PoolEnv(breaker="opponent", opponent=FlakyOpponent(RAW_ACTION_SIZE, 1, "raise", 0))
    with pytest.raises(OpponentError):
        env.reset(seed=0)
    with pytest.raises(Exception, match="reset"):
        env.step(np.zeros(env.action_space.shape, dtype=np.float32))
