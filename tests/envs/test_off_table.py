"""Balls that leave the table (an elevated cue) through the envs: judged as the rules say,
and nothing in the env layer expects every ball to be at rest or pocketed."""

import gymnasium as gym
import numpy as np
import pytest

from poolgym.envs import PoolEnv, PotBallEnv
from poolgym.envs.actions import ShotMove
from poolgym.physics import Shot
from poolgym.rules import CueBallZone, GameState, ShotCall

# Found by experiment: from 20 cm off the side rail, a 9 m/s stroke at 40 degrees straight
# at the rail flies the cue ball over it (it leaves past the rail's outer edge).
CUE_OFF = Shot(9.0, 90.0, 0.0, 0.0, 40.0)
# Found by experiment (no noise): with an object ball 1.5 cm in front of the cue ball, 35 cm
# off the side rail, an 11 m/s stroke at 16 degrees straight at the rail lifts the object
# ball off the bed; it meets the near cushion's nose in the air, flies back across the table
# about 8 cm up and over the far side rail, while the cue ball stays on the table. The
# strokes from 10 to 12 m/s at this elevation do the same.
OBJECT_OFF = Shot(11.0, 90.0, 0.0, 0.0, 16.0)
OBJECT_GAP = 0.015


def _near_the_rail(table, shot_number=3):
    return GameState(game="nine_ball", balls={0: (1.2, table.width - 0.2), 1: (0.6, 0.4), 5: (1.8, 0.5),
                                              9: (2.0, 0.9)},
                     awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE, shot_number=shot_number)


def test_cue_ball_off_the_table_through_nine_ball_v1_is_a_foul_with_ball_in_hand():
    env = gym.make("poolgym/NineBall-v1", elevation=True, render_mode="rgb_array")
    records = []
    game = env.unwrapped
    game.move_listeners.append(records.append)
    env.reset(seed=0, options={"breaker": 0})
    game.state = _near_the_rail(game.table)
    action = game.mapper.encode(ShotMove(ShotCall(), None, CUE_OFF), game.state, game.rules)
    obs, reward, terminated, truncated, info = env.step(action)
    mine = records[0]
    assert mine.player == 0 and mine.move.shot.elevation_deg == pytest.approx(40.0)
    assert 0 in mine.result.off_table and 0 not in mine.result.positions and 0 not in mine.result.pocketed
    outcome = info["outcome"]
    assert "6.1" in outcome.foul_sections and "driven off the table" in outcome.fouls[0].description
    assert outcome.driven_off == (0,)
    assert outcome.cue_ball_in_hand is CueBallZone.ANYWHERE and outcome.next_shooter == 1
    assert info["reward_terms"]["foul"] == 1.0 and info["reward_terms"]["ball_in_hand_conceded"] == 1.0
    assert reward <= -1.5
    assert records[1].player == 1 and records[1].before.cue_ball_in_hand is CueBallZone.ANYWHERE
    assert env.observation_space.contains(obs)
    assert env.render().ndim == 3  # the frame of a shot whose cue ball left the table


def test_object_ball_off_the_table_in_solo_play_is_a_6_5_foul():
    env = PoolEnv(elevation=True, max_speed=12.0, opponent="solo", action_mode="choice")
    env.reset(seed=0)
    table = env.table
    R = table.ball_radius
    y = table.width - 0.35
    env.state = GameState(game="nine_ball", balls={0: (1.2, y), 1: (1.2, y + 2 * R + OBJECT_GAP), 9: (2.0, 0.4)},
                          awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE, shot_number=3)
    action = env.mapper.encode(ShotMove(ShotCall(), None, OBJECT_OFF, 1), env.state, env.rules)
    obs, reward, terminated, truncated, info = env.step(action)
    assert set(env.last_shot.off_table) == {1} and 0 in env.last_shot.positions
    outcome = info["outcome"]
    assert outcome.foul_sections == ("6.5",) and outcome.driven_off == (1,)
    assert 1 not in env.state.positions and env.state.cue_ball_in_hand is CueBallZone.ANYWHERE
    balls = obs["balls"].reshape(-1, 3)
    assert tuple(balls[1]) == (0.0, 0.0, 0.0) and balls[9][2] == 1.0
    assert obs["slot_mask"].any()  # the candidates of the next shot, without the 1
    assert env.observation_space.contains(obs)


def test_pot_ball_counts_the_cue_ball_off_the_table_as_a_scratch():
    env = PotBallEnv(elevation=True, action_mode="raw", max_speed=10.0, render_mode="rgb_array")
    env.reset(seed=3)
    table = env.table
    env.state = GameState(game="pot_ball", balls={0: (1.2, table.width - 0.2), env.target: (0.6, 0.4)},
                          awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE)
    move = ShotMove(ShotCall(), None, Shot(9.0, 90.0, 0.0, 0.0, 40.0), env.target)
    action = env.mapper.encode(move, env.state, env.rules)
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["scratched"] and info["off_table"] == (0,) and not info["potted"]
    assert reward == -1.0 and terminated
    assert env.state.cue_ball_in_hand is CueBallZone.ANYWHERE
    assert tuple(obs["balls"][:3]) == (0.0, 0.0, 0.0)
    assert env.render().ndim == 3


def test_pot_ball_counts_an_object_ball_off_the_table_as_a_foul():
    env = PotBallEnv(elevation=True, action_mode="raw", max_speed=12.0)
    env.reset(seed=0)
    table = env.table
    R = table.ball_radius
    y = table.width - 0.35
    other = 2 if env.target != 2 else 3
    env.state = GameState(game="pot_ball", balls={0: (1.2, y), other: (1.2, y + 2 * R + OBJECT_GAP),
                                                  env.target: (2.0, 0.4)},
                          awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE)
    action = env.mapper.encode(ShotMove(ShotCall(), None, OBJECT_OFF), env.state, env.rules)
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["off_table"] == (other,) and not info["scratched"] and reward == -1.0
    assert other in env.state.out_of_play
    assert np.all(obs["balls"].reshape(-1, 3)[other] == 0.0)
