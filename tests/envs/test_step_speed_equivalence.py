"""The step's fast paths give what the plain computations give."""

import math

import numpy as np
import pytest

from poolgym.envs.actions import ActionMapper
from poolgym.envs.baseline_agents import first_ball_hit, is_free_spot
from poolgym.envs.pool_env import PoolEnv
from poolgym.table import Table


def _reference_first_ball_hit(table, state, cue, angle_deg):
    dx, dy = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    reach = 2 * table.ball_radius
    best, best_t = None, math.inf
    for ball, (x, y) in state.positions.items():
        if ball == 0:
            continue
        along = (x - cue[0]) * dx + (y - cue[1]) * dy
        across2 = (x - cue[0]) ** 2 + (y - cue[1]) ** 2 - along * along
        if along <= 0 or across2 >= reach * reach:
            continue
        t = along - math.sqrt(reach * reach - across2)
        if t < best_t:
            best, best_t = ball, t
    return best


def test_first_ball_hit_and_free_spots_match_the_positions_dict():
    env = PoolEnv(game="nine_ball")
    env.reset(seed=5)
    state, table = env.state, env.table
    rng = np.random.default_rng(0)
    R = table.ball_radius
    for _ in range(500):
        cue = (float(rng.uniform(R, table.length - R)), float(rng.uniform(R, table.width - R)))
        angle = float(rng.uniform(-180, 180))
        assert first_ball_hit(table, state, cue, angle) == _reference_first_ball_hit(table, state, cue, angle)
        expected = table.contains(*cue) and all(math.hypot(cue[0] - x, cue[1] - y) > 2 * R + 1e-4
                                                for n, (x, y) in state.positions.items() if n != 0)
        assert is_free_spot(table, state, cue) == expected


@pytest.mark.parametrize("action", [
    [0.0] * 8, [1.0, -1.0, 0.5, -0.0, 0, 0, 0, 0], np.float32([1.0000001, -1.0000004, 0, 0, 0, 0, 0, 0.3]),
    np.arange(8) % 2,
])
def test_validate_matches_the_clip(action):
    mapper = ActionMapper(Table.preset("9ft"))
    got = mapper.validate(action)
    want = np.clip(np.asarray(action).astype(np.float64), -1.0, 1.0)
    assert got.dtype == np.float64 and got.tobytes() == want.tobytes()


def test_the_remembered_potential_follows_a_state_set_from_outside():
    env = PoolEnv(game="nine_ball", reward_weights={"shaping": 1.0})
    env.reset(seed=1)
    first = env.state
    env.step(env.action_space.sample())
    env.state = first
    assert env._remembered_potential() == env.potential()
