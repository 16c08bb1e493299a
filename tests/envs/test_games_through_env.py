"""Real shots through the game environments: the rules' decisions reach the agent."""

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401
from poolgym.envs import PoolEnv
from poolgym.rules import CueBallZone, GameState

from .helpers import Recorder, raw_action, straight_in


def _env(game="nine_ball", opponent=None, **kwargs):
    env = PoolEnv(game=game, opponent=opponent if opponent is not None else "random", **kwargs)
    env.reset(seed=0)
    return env


def _set(env, balls, shooter=0, **fields):
    env.state = GameState(game=env.rules.name, balls=balls, awaiting_break=False,
                          cue_ball_in_hand=CueBallZone.NONE, shooter=shooter, **fields)


def test_a_deliberate_scratch_gives_the_opponent_ball_in_hand_and_the_foul_reward():
    soft = raw_action(PoolEnv().mapper, 90.0, 0.5)
    opponent = Recorder(soft)
    env = _env(opponent=opponent)
    t = env.table
    # The cue ball runs along the left rail into the foot-left corner; the 1 is far away.
    _set(env, {0: (t.length - 0.5, t.ball_radius + 0.001), 1: (0.6, 0.9), 9: (0.4, 0.9)})
    obs, reward, terminated, truncated, info = env.step(raw_action(env.mapper, 0.0, 2.0))
    outcome = info["outcome"]
    assert outcome.shooter == 0
    assert {f.section for f in outcome.fouls} >= {"6.1"}
    assert info["reward_terms"]["foul"] == 1.0
    assert info["reward_terms"]["ball_in_hand_conceded"] == 1.0
    weights = env.weights.as_dict()
    assert reward == pytest.approx(sum(weights[k] * v for k, v in info["reward_terms"].items()))
    seen_obs, _ = opponent.seen[0]
    assert seen_obs["cue_ball_in_hand"] == 1  # anywhere
    assert seen_obs["player"] == 1


def test_a_legal_pot_keeps_the_turn():
    opponent = Recorder(np.zeros(8, dtype=np.float32))
    env = _env(opponent=opponent)
    cb, ob, angle = straight_in(env.table)
    _set(env, {0: cb, 1: ob, 2: (0.5, 0.3), 9: (0.5, 0.9)})
    obs, reward, terminated, truncated, info = env.step(raw_action(env.mapper, angle, 2.0, vertical=-0.3))
    assert info["outcome"].pocketed_legally == (1,)
    assert info["reward_terms"]["legal_pot"] == 1.0 and reward == pytest.approx(1.0)
    assert opponent.seen == [] and info["to_act"] == 0
    assert obs["targets"][2] == 1 and not terminated


def test_nine_ball_game_ends_with_the_winner_in_info():
    env = _env()
    cb, ob, angle = straight_in(env.table)
    _set(env, {0: cb, 9: ob})
    obs, reward, terminated, truncated, info = env.step(raw_action(env.mapper, angle, 2.0, vertical=-0.3))
    assert terminated and info["winner"] == 0
    assert info["reward_terms"]["rack_won"] == 1.0
    assert reward == pytest.approx(1.0 + 10.0)


def test_race_to_two_racks_continues_after_the_first():
    env = _env(race_to=2)
    cb, ob, angle = straight_in(env.table)
    _set(env, {0: cb, 9: ob})
    *_, terminated, truncated, info = env.step(raw_action(env.mapper, angle, 2.0, vertical=-0.3))
    assert not terminated and info["racks_won"] == (1, 0)
    assert env.state.rack_number == 2  # re-racked; the opponent broke it inside the step


def test_opponent_shots_happen_inside_step_and_count_from_the_agents_side():
    calls = []

    def opponent(obs, info):
        calls.append(obs["player"])
        return raw_action(env.mapper, 180.0, 0.5)  # a soft miss: a foul, ball in hand to us

    env = _env(opponent=opponent)
    _set(env, {0: (1.0, 0.6), 1: (2.0, 0.3), 9: (2.0, 0.9)})
    obs, reward, terminated, truncated, info = env.step(raw_action(env.mapper, 180.0, 0.5))
    assert calls == [1]
    assert info["reward_terms"]["ball_in_hand_gained"] == 1.0
    assert obs["cue_ball_in_hand"] == 1 and info["to_act"] == 0


def test_an_overlapping_cue_ball_placement_is_a_6_10_foul_not_an_error():
    env = _env()
    _set(env, {1: (1.5, 0.6), 9: (2.0, 0.6)})
    env.state = GameState(game="nine_ball", balls={1: (1.5, 0.6), 9: (2.0, 0.6)}, awaiting_break=False,
                          cue_ball_in_hand=CueBallZone.ANYWHERE)
    action = raw_action(env.mapper, 0.0, 1.0, place=(1.5, 0.6))
    *_, info = env.step(action)
    assert "6.10" in [f.section for f in info["outcome"].fouls]
    assert info["reward_terms"]["foul"] == 1.0


def test_push_out_response_is_taken_from_the_decision_component():
    """WPA 2.4 through the env: the agent pushes out, the opponent passes back, the agent
    must shoot again."""
    def opponent(obs, info):
        assert obs["pending"] != 0 and obs["choices"].sum() == 2
        return raw_action(env.mapper, 0.0, 1.0, decision=1.0)  # the last choice: pass back

    env = _env(opponent=opponent)
    _set(env, {0: (0.6, 0.6), 1: (1.6, 0.3), 9: (1.6, 0.9)}, push_out_available=True)
    push = raw_action(env.mapper, 90.0, 0.5, call=1.0)  # call bins: no call, push out
    *_, info = env.step(push)
    assert info["outcome"].push_out is True
    assert info["to_act"] == 0  # passed back


@pytest.mark.parametrize("mode", ["rgb_array"])
def test_rgb_frames_show_the_balls_where_the_state_says(mode):
    from poolgym.render import table_to_pixel
    from poolgym.render.colors import ball_color

    env = gym.make("poolgym/NineBall-v0", render_mode=mode)
    env.reset(seed=1)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    state = env.unwrapped.state
    for ball, (x, y) in state.positions.items():
        col, row = table_to_pixel(env.unwrapped.table, (x, y), frame.shape[1])
        # off-centre by a third of the radius, clear of the number disc
        px = frame[int(round(row)), int(round(col + 0.6 * 0.028575 / env.unwrapped.table.length * frame.shape[1]))]
        if ball in (1, 2, 3, 4, 5, 6, 7, 8):
            assert tuple(px) == ball_color(ball)


def test_human_mode_runs_headless(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gym.make("poolgym/NineBall-v0", render_mode="human")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    assert env.render() is None
    env.close()


def test_pocketing_the_eight_before_the_group_is_cleared_loses_the_eight_ball_game():
    env = _env(game="eight_ball")
    cb, ob, angle = straight_in(env.table)
    _set(env, {0: cb, 8: ob, 1: (0.5, 0.3), 9: (0.5, 0.9)}, groups=("solids", "stripes"))
    obs, reward, terminated, truncated, info = env.step(raw_action(env.mapper, angle, 2.0, vertical=-0.3))
    assert 8 in dict(info["outcome"].pocketed)
    assert terminated and info["winner"] == 1
    assert info["reward_terms"]["rack_lost"] == 1.0 and reward <= -10.0


def test_a_frozen_stable_baselines3_model_plays_as_the_opponent(tmp_path):
    from stable_baselines3 import PPO

    from poolgym.envs.opponents import SB3Policy

    trainee = PoolEnv(game="nine_ball", obs_mode="flat")
    model = PPO("MlpPolicy", trainee, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=32)
    model.save(tmp_path / "frozen")
    opponent = SB3Policy(str(tmp_path / "frozen"), algorithm="PPO")
    env = PoolEnv(game="nine_ball", obs_mode="flat", opponent=opponent)
    obs, _ = env.reset(seed=4)
    players = set()
    for _ in range(10):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        players.update(o.shooter for o in info["outcomes"])
        if terminated:
            obs, _ = env.reset()
    assert players == {0, 1}  # the model took shots inside step
    with pytest.raises(ValueError, match="unknown stable-baselines3 algorithm"):
        SB3Policy(str(tmp_path / "frozen"), algorithm="PPX")


def test_straight_pool_scores_accrue_through_the_env():
    env = _env(game="straight_pool", ruleset_kwargs={"target_score": 3})
    assert env.rules.target_score == 3
    cb, ob, angle = straight_in(env.table)
    balls = {0: cb, 1: ob, **{b: (0.3 + 0.08 * b, 0.25) for b in range(2, 8)}}
    _set(env, balls, target_score=3)
    # aim-assisted calls are the rules' ball-and-pocket calls; raw mode picks a call by bin:
    call_index = next(i for i, c in enumerate(env.rules.call_options(env.state))
                      if c.ball == 1 and c.pocket == "foot_right")
    n_calls = len(env.rules.call_options(env.state))
    call = -1 + (2 * call_index + 1) / n_calls
    obs, reward, terminated, truncated, info = env.step(raw_action(env.mapper, angle, 2.0, vertical=-0.3,
                                                                   call=call))
    assert info["outcome"].points == (1, 0)
    assert info["reward_terms"]["points"] == 1.0 and info["to_act"] == 0
    assert env.state.scores == (1, 0)
    assert obs["scores"][0] == pytest.approx(1 / 3)
