"""Env arguments at the boundary: NumPy numbers taken as Python ones, bad flags, seeds and
options refused at once, an env that failed to reset refusing to step, messages that say
what was given."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import poolgym  # noqa: F401
from poolgym.envs.pool_env import OpponentError, PoolEnv
from poolgym.envs.practice import PotBallEnv
from poolgym.physics import Shot, Simulator


def test_numpy_numbers_are_taken_wherever_python_numbers_are():
    env = gym.make("poolgym/NineBall-v1", max_speed=np.float32(12.0), race_to=np.int64(3))
    game = env.unwrapped
    assert game.race_to == 3 and type(game.race_to) is int
    assert game.mapper.max_speed == 12.0 and type(game.mapper.max_speed) is float
    env.reset(seed=np.int64(4))
    env.step(env.action_space.sample())
    drill = gym.make("poolgym/PotBall-v1", n_balls=np.int64(3), max_speed=np.float32(6.0))
    drill.reset(seed=0)
    assert drill.unwrapped.n_balls == (3, 3)


def test_a_flag_that_is_not_a_bool_is_refused_when_the_env_is_made():
    with pytest.raises(ValueError, match="trajectories must be True or False, got 'no'"):
        gym.make("poolgym/NineBall-v1", trajectories="no")


@pytest.mark.parametrize("make", [lambda: PoolEnv(), lambda: PotBallEnv()])
@pytest.mark.parametrize("seed, given", [(1.5, "float 1.5"), (-1, "int -1"), (True, "bool True"), ("7", "str '7'")])
def test_a_seed_that_is_not_a_whole_number_is_refused_and_nothing_changes(make, seed, given):
    env = make()
    env.reset(seed=3)
    before = env.np_random.bit_generator.state
    with pytest.raises(ValueError, match=f"seed must be None or an integer >= 0, got {given}"):
        env.reset(seed=seed)
    assert env.np_random.bit_generator.state == before


def test_the_drill_refuses_unknown_reset_options():
    env = PotBallEnv()
    with pytest.raises(ValueError, match=r"PotBallEnv.reset takes no options, got \['breaker'\]"):
        env.reset(seed=0, options={"breaker": 0})
    env.reset(seed=0, options={})  # none given is fine


def test_step_after_a_reset_whose_opponent_failed_needs_a_reset():
    calls = []

    def opponent(obs, info):
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("the opponent broke down")
        return np.zeros(8, dtype=np.float32)

    env = PoolEnv(opponent=opponent, breaker="opponent")
    env.reset(seed=0)  # the opponent breaks
    with pytest.raises(OpponentError, match="the opponent broke down"):
        env.reset(seed=1)
    with pytest.raises(ResetNeeded):
        env.step(env.action_space.sample())


@pytest.mark.parametrize("slot", [np.uint64(2**64 - 1), 1e19, 20])
def test_an_out_of_range_slot_is_reported_as_given(slot):
    env = PoolEnv(action_mode="choice_discrete")
    env.reset(seed=0)
    action = np.zeros(len(env.action_space.nvec), dtype=np.asarray(slot).dtype)
    action[0] = slot
    with pytest.raises(ValueError, match=f"'slot': '{int(slot)} not in 0..19'"):
        env.step(action)


def test_overlapping_balls_are_reported_with_digits_enough_to_differ():
    with pytest.raises(ValueError, match="centres 0.057148 m apart, at least 0.057150 m needed"):
        Simulator().simulate({0: (1.0, 0.6), 1: (1.0 + 0.057148, 0.6)}, Shot(1.0, 0.0))
    with pytest.raises(ValueError, match="centres 0.05000 m apart, at least 0.05715 m needed"):
        Simulator().simulate({0: (1.0, 0.6), 1: (1.05, 0.6)}, Shot(1.0, 0.0))
