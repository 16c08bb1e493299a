"""The two-player env's inputs are refused as the single-player env refuses them: one line,
nothing changed."""

import numpy as np
import pytest
from gymnasium.error import ResetNeeded

from poolgym.envs.aec import PoolAECEnv


def _finished_env() -> PoolAECEnv:
    """A match truncated after its first turn, every agent stepped out with ``None``."""
    env = PoolAECEnv(action_mode="raw", max_turns=1)
    env.reset(seed=3)
    env.step(np.zeros(env.action_space("player_0").shape, dtype=np.float32))
    assert all(env.truncations.values())
    while env.agents:
        env.step(None)
    return env


def test_stepping_after_every_agent_is_done_asks_for_a_reset():
    env = _finished_env()
    with pytest.raises(ResetNeeded, match=r"^the match is over and every agent is done: call reset\(\) "
                                          r"before step\(\)$"):
        env.step(None)
    env.reset(seed=4)  # and the env plays on after one
    assert env.agents == ["player_0", "player_1"]


@pytest.mark.parametrize("seed, message", [
    (1.5, r"^seed must be None or an integer >= 0, got float 1\.5$"),
    ("7", r"^seed must be None or an integer >= 0, got str '7'$"),
    (-1, r"^seed must be None or an integer >= 0, got int -1$"),
    (True, r"^seed must be None or an integer >= 0, got bool True$"),
])
def test_bad_reset_seeds_are_refused_naming_the_seed(seed, message):
    env = PoolAECEnv(action_mode="raw")
    env.reset(seed=0)
    before = env.state
    with pytest.raises(ValueError, match=message):
        env.reset(seed=seed)
    assert env.state is before


@pytest.mark.parametrize("options, message", [
    ({"breaker": 2}, r"^reset option 'breaker' must be 0 \(player_0\) or 1 \(player_1\), got 2$"),
    ({"breaker": "1"}, r"^reset option 'breaker' must be 0 \(player_0\) or 1 \(player_1\), got '1'$"),
    ({"breaker": 1.0}, r"^reset option 'breaker' must be 0 \(player_0\) or 1 \(player_1\), got 1\.0$"),
    (["breaker"], r"^reset options must be a mapping, got list \['breaker'\]$"),
])
def test_bad_reset_options_are_refused_naming_the_option(options, message):
    env = PoolAECEnv(action_mode="raw")
    env.reset(seed=0)
    before = env.state
    with pytest.raises(ValueError, match=message):
        env.reset(seed=1, options=options)
    assert env.state is before


@pytest.mark.parametrize("breaker_mode", ["player_0", "random", "alternate"])
def test_the_breaker_option_names_the_first_racks_breaker_and_changes_nothing_else(breaker_mode):
    for breaker in (0, 1):
        named, plain = PoolAECEnv(action_mode="raw", breaker=breaker_mode), PoolAECEnv(action_mode="raw",
                                                                                        breaker=breaker_mode)
        named.reset(seed=5, options={"breaker": breaker})
        plain.reset(seed=5)
        assert named.state.breaker == breaker and named.agent_selection == f"player_{breaker}"
        # The same rack and the same generator afterwards: the option changes the breaker only.
        assert named.state.positions.keys() == plain.state.positions.keys()
        assert all(np.allclose(named.state.position(b), plain.state.position(b)) for b in named.state.positions)
        assert named.np_random.integers(2**31) == plain.np_random.integers(2**31)
