"""The v1 benchmark envs: noise, rack gaps, the breaker per episode, the match score in the
observation, and the v0 ids kept as they were."""

import math
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401  (registers the ids)
from poolgym.envs import BENCHMARK_DEFAULTS, PoolEnv
from poolgym.racking import BENCHMARK_RACK, RackModel
from poolgym.rules import CueBallZone, GameState, get_ruleset
from poolgym.rules.nine_ball import NineBall

from .helpers import raw_action

V1_GAMES = ["poolgym/NineBall-v1", "poolgym/EightBall-v1", "poolgym/TenBall-v1", "poolgym/StraightPool-v1"]
V0_GAMES = [i.replace("-v1", "-v0") for i in V1_GAMES]


@pytest.mark.parametrize("env_id", V1_GAMES)
def test_v1_game_envs_have_the_benchmark_defaults(env_id):
    env = gym.make(env_id).unwrapped
    assert not env.simulator.noise.is_zero
    assert env.rack_model == BENCHMARK_RACK and env.rules.rack_model == BENCHMARK_RACK
    assert env.breaker_mode == "random" and env.observe_match
    assert gym.spec(env_id).kwargs["opponent"] == BENCHMARK_DEFAULTS["opponent"]
    assert "match" in env.observation_space.spaces


@pytest.mark.parametrize("env_id", V0_GAMES)
def test_v0_game_envs_keep_their_first_defaults(env_id):
    env = gym.make(env_id).unwrapped
    assert env.simulator.noise.is_zero and env.rack_model.is_tight
    assert env.breaker_mode == "agent" and not env.observe_match
    assert "match" not in env.observation_space.spaces
    for seed in range(5):
        env.reset(seed=seed)
        assert env.initial_state.breaker == 0


def test_practice_v1_envs_have_noise_on():
    assert not gym.make("poolgym/PotBall-v1").unwrapped.simulator.noise.is_zero
    solo = gym.make("poolgym/NineBallSolo-v1").unwrapped
    assert not solo.simulator.noise.is_zero and solo.rack_model == BENCHMARK_RACK and solo.solo


def test_rack_gaps_keep_the_apex_on_the_foot_spot_and_never_overlap():
    table = get_ruleset("nine_ball").table
    R = table.ball_radius
    rules = get_ruleset("ten_ball").with_rack_model(RackModel(spacing_mm=1.0, jitter_mm=2.0))
    gaps = []
    for seed in range(200):
        balls = rules.new_game(rng=seed).positions
        assert balls[1] == pytest.approx(table.foot_spot, abs=1e-12)
        pairs = [(a, b) for a in balls for b in balls if a < b]
        assert all(math.dist(balls[a], balls[b]) >= 2 * R for a, b in pairs)
        gaps.append(min(math.dist(balls[1], balls[b]) - 2 * R for b in balls if b != 1))
    # the gaps are real and they vary from rack to rack
    assert np.mean(gaps) > 2e-4 and np.std(gaps) > 1e-4


def test_a_tight_rack_model_changes_nothing_and_draws_nothing():
    plain = get_ruleset("nine_ball")
    tight = plain.with_rack_model(RackModel())
    a, b = np.random.default_rng(4), np.random.default_rng(4)
    assert plain.new_game(rng=a) == tight.new_game(rng=b)
    assert a.bit_generator.state == b.bit_generator.state


def test_rack_gaps_come_from_the_seed():
    rules = get_ruleset("nine_ball").with_rack_model(BENCHMARK_RACK)
    assert rules.new_game(rng=3) == rules.new_game(rng=3)
    assert rules.new_game(rng=3).positions != rules.new_game(rng=4).positions


@pytest.mark.parametrize("bad", [{"spacing_mm": -0.1}, {"jitter_mm": math.nan}, {"jitter_mm": 9.0},
                                 {"spacing_mm": "wide"}, {"gap": 1.0}])
def test_bad_rack_models_are_refused_naming_the_field(bad):
    with pytest.raises(ValueError, match=next(iter(bad)) if "gap" not in bad else "unknown rack model"):
        RackModel.make(bad)
    with pytest.raises(ValueError):
        PoolEnv(rack_model=bad)


def test_the_breaker_is_drawn_per_episode_and_both_sides_break_about_equally():
    env = gym.make("poolgym/NineBall-v1").unwrapped
    breakers = []
    for seed in range(200):
        obs, info = env.reset(seed=seed)
        breakers.append(env.initial_state.breaker)
        if env.initial_state.breaker == 1:
            # the opponent's break happened inside reset and is reported there
            assert info["outcomes"] and info["outcomes"][0].break_shot
            assert info["outcomes"][0].shooter == 1
        else:
            assert info["outcomes"] == [] and obs["breaking"] == 1
    assert 80 <= sum(breakers) <= 120


def test_reset_option_breaker_overrides_the_draw_and_changes_nothing_else():
    env = gym.make("poolgym/NineBall-v1").unwrapped
    env.reset(seed=7, options={"breaker": 0})
    mine = env.initial_state
    env.reset(seed=7, options={"breaker": 1, "play_opponent": False})
    theirs = env.initial_state
    assert mine.breaker == 0 and theirs.breaker == 1
    assert mine.positions == theirs.positions  # same rack, same gaps
    assert env.state == theirs  # play_opponent=False stops before the opponent's break


@pytest.mark.parametrize("options, message", [({"breaker": 2}, "breaker"), ({"breaker": True}, "breaker"),
                                              ({"side": 0}, "unknown reset options"),
                                              ({"play_opponent": "no"}, "play_opponent")])
def test_bad_reset_options_are_refused_before_anything_changes(options, message):
    env = gym.make("poolgym/NineBall-v1").unwrapped
    env.reset(seed=1)
    state, rng_state = env.state, env.np_random.bit_generator.state
    with pytest.raises(ValueError, match=message):
        env.reset(seed=2, options=options)
    assert env.state == state and env.np_random.bit_generator.state == rng_state


def test_breaker_modes_alternate_and_fixed():
    alternate = PoolEnv(breaker="alternate", opponent="legal-random")
    assert [alternate.reset(seed=s) and alternate.initial_state.breaker for s in range(4)] == [0, 1, 0, 1]
    opponent = PoolEnv(breaker="opponent", opponent="legal-random")
    opponent.reset(seed=0)
    assert opponent.initial_state.breaker == 1
    with pytest.raises(ValueError, match="breaker must be one of"):
        PoolEnv(breaker="loser")


def test_the_match_score_is_in_the_observation_from_each_players_side():
    env = PoolEnv(race_to=3, observe_match=True, opponent="legal-random")
    env.reset(seed=0, options={"breaker": 0})
    env.racks_won = [2, 1]
    assert env._observation(0)["match"].tolist() == pytest.approx([2 / 3, 1 / 3])
    assert env._observation(1)["match"].tolist() == pytest.approx([1 / 3, 2 / 3])
    flat = PoolEnv(race_to=3, observe_match=True, obs_mode="flat", opponent="legal-random")
    obs, _ = flat.reset(seed=0)
    assert flat.observation_space.contains(obs)
    assert obs.shape[0] == PoolEnv(obs_mode="flat", opponent="legal-random").observation_space.shape[0] + 2


class _NineOnTheLip(NineBall):
    """A one-ball 9-ball rack: the 9 sits in front of the foot-right pocket."""

    name = "nine_on_the_lip"
    object_balls = (9,)

    def rack(self, rng):
        L, W = self.table.length, self.table.width
        return {9: (L - 0.25, W - 0.25)}


def _pot_the_nine_policy(mapper):
    def policy(obs, info):
        table = mapper.table
        cue = (table.head_string_x - 0.1, table.width / 2)
        nine = info["state"].position(9)
        # the ghost ball, so the 9 goes straight on to the corner
        ux, uy = (table.length - nine[0], table.width - nine[1])
        d = math.hypot(ux, uy)
        gx, gy = nine[0] - 2 * table.ball_radius * ux / d, nine[1] - 2 * table.ball_radius * uy / d
        angle = math.degrees(math.atan2(gy - cue[1], gx - cue[0]))
        return raw_action(mapper, angle, 3.0, place=cue, zone_x_high=table.head_string_x - 1e-4)
    return policy


def test_an_opponent_who_wins_before_the_agents_first_move_ends_the_episode_at_the_first_step():
    env = PoolEnv(ruleset=_NineOnTheLip(), breaker="opponent", rack_model="benchmark")
    env.opponent = _pot_the_nine_policy(env.mapper)
    obs, info = env.reset(seed=0)
    assert info["outcomes"][0].winner == 1
    obs, reward, terminated, truncated, info = env.step(np.zeros(env.action_space.shape, dtype=np.float32))
    assert terminated and not truncated and info["winner"] == 1
    assert reward == pytest.approx(env.weights.rack_lost)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(np.zeros(env.action_space.shape, dtype=np.float32))


_REGISTER_EACH_GAME = """
import poolgym
for game in ("nine_ball", "eight_ball", "ten_ball", "straight_pool"):
    poolgym.register_variant(f"me/{game}-v0", game=game)
    import gymnasium
    gymnasium.make(f"me/{game}-v0").reset(seed=0)
print("ok")
"""


def test_register_variant_accepts_every_built_in_game_in_a_fresh_process():
    out = subprocess.run([sys.executable, "-c", _REGISTER_EACH_GAME], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_v1_episode_including_breaker_and_rack_gaps_is_the_same_in_two_fresh_processes():
    script = """
import gymnasium as gym, numpy as np, poolgym, json
env = gym.make("poolgym/NineBall-v1", obs_mode="flat")
out = []
for seed in (1, 2, 3):
    obs, _ = env.reset(seed=seed)
    out.append([env.unwrapped.initial_state.to_json(), obs.tolist()])
    obs, r, *_ = env.step(np.linspace(-0.5, 0.5, env.action_space.shape[0]).astype(np.float32))
    out.append([obs.tolist(), r])
print(json.dumps(out))
"""
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert runs[0] == runs[1]
    assert GameState.from_json(__import__("json").loads(runs[0])[0][0]).cue_ball_in_hand is CueBallZone.KITCHEN
