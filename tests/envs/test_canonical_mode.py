"""The ``choice_canonical`` action mode (``poolgym.envs.canonical``): every option is the
``choice_discrete`` action it stands for, the masks allow only what the rules accept, the
first options are the strokes the lookahead foresees, and the env passes the API checks."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import poolgym  # noqa: F401  (registers the ids)
from poolgym.envs import lookahead as la
from poolgym.envs.canonical import KINDS, N_OPTIONS, N_POT_STROKES, OPTIONS, CanonicalMapper
from poolgym.envs.choice import CHOICES, ChoiceMapper, make_action_mapper
from poolgym.envs.play import simulate_move
from poolgym.envs.pool_env import PoolEnv
from poolgym.rules import Decision

from .helpers import check_env_closes, check_masked_env

GAMES = ["nine_ball", "eight_ball", "ten_ball", "straight_pool"]


def discrete_twin(mapper: CanonicalMapper) -> ChoiceMapper:
    return ChoiceMapper(mapper.table, "choice_discrete", max_speed=mapper.max_speed, sigma_deg=mapper.sigma_deg)


@settings(max_examples=30, deadline=None)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**31 - 1), moves=st.integers(0, 12))
def test_every_allowed_option_is_a_move_the_rules_accept(game, seed, moves):
    """States of every game reached by random allowed options: a pending decision allows its
    offered answers only, a break the break options only, and every allowed option decodes,
    as its ``choice_discrete`` vector does, to a legal call the rules judge."""
    env = PoolEnv(game, opponent="solo", action_mode="choice_canonical", noise="tournament", rack_model="benchmark")
    twin = discrete_twin(env.mapper)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves + 1):
        if env._done:
            break
        state, mapper = env.state, env.mapper
        masks = env.action_masks()
        allowed = np.flatnonzero(masks)
        assert masks.shape == (N_OPTIONS,) and allowed.size
        kinds = {OPTIONS[i].kind for i in allowed}
        if state.pending is not None:
            assert kinds == {"decision"}
            assert {CHOICES[OPTIONS[i].choice] for i in allowed} == set(state.pending.choices)
        elif state.awaiting_break:
            assert kinds == {"break"}
        else:
            assert "decision" not in kinds and "break" not in kinds
        for i in allowed:
            move = mapper.decode(mapper.validate(i), state, env.rules)
            assert move == twin.decode(twin.validate(mapper.vector(i)), state, env.rules)
            if isinstance(move, Decision):
                env.rules.apply_decision(state, move)  # raises on a choice not offered
                continue
            assert move.call in env.rules.call_options(state)
            assert mapper.slots(state, env.rules)[OPTIONS[i].slot] is not None
            events, _ = simulate_move(env.simulator, env.rules, state, move, rng, False)
            env.rules.apply_shot(state, move.call, events)  # judged, no ValueError
        env.play_move(int(rng.choice(allowed)))


def test_the_first_options_are_the_strokes_the_lookahead_foresees():
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_canonical", obs_mode="dict", lookahead=True,
                   lookahead_samples=2, opponent="solo")
    game = env.unwrapped
    twin = discrete_twin(game.mapper)
    checked = 0
    for seed in range(6):
        env.reset(seed=seed)
        for _ in range(4):
            state = game.state
            if game._done or state.pending is not None:
                break
            if not state.awaiting_break:
                slots = game.mapper.slots(state, game.rules)
                for i in range(la.LOOKAHEAD_SLOTS):
                    for j, stroke in enumerate(la.STROKES):
                        option = la.stroke_action(game.mapper, i, stroke)
                        assert option == i * len(la.STROKES) + j and OPTIONS[option].kind == "pot_stroke"
                        if slots[i] is not None and slots[i].kind == "pot":
                            assert game.action_masks()[option]
                            assert game.mapper.decode(option, state, game.rules) == twin.decode(
                                la.stroke_action(twin, i, stroke), state, game.rules)
                            checked += 1
            env.step(int(np.flatnonzero(game.action_masks())[0]))
    assert checked >= 9 * 6


@pytest.mark.parametrize("game", GAMES)
def test_encode_finds_the_option_of_a_decoded_move(game):
    env = PoolEnv(game, opponent="solo", action_mode="choice_canonical", noise="tournament", rack_model="benchmark")
    rng = np.random.default_rng(7)
    env.reset(seed=7)
    checked = 0
    for _ in range(40):
        if env._done:
            env.reset(seed=int(rng.integers(1 << 30)))
        state, mapper = env.state, env.mapper
        allowed = np.flatnonzero(env.action_masks())
        for i in rng.choice(allowed, size=min(4, allowed.size), replace=False):
            move = mapper.decode(i, state, env.rules)
            back = mapper.encode(move, state, env.rules)
            assert back == i or mapper.decode(back, state, env.rules) == move
            checked += 1
        env.play_move(int(rng.choice(allowed)))
    assert checked > 60


def test_a_ladder_agent_plays_through_the_mapping():
    """A bot's moves, encoded to their nearest options, are played as the env's opponent."""
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_canonical", opponent="bot:fast")
    obs, _ = env.reset(seed=1)
    done, steps = False, 0
    while not done:
        obs, _, done, truncated, info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        done = done or truncated
        steps += 1
    assert info["winner"] in (0, 1) and steps >= 1


@pytest.mark.parametrize("action", [86, -1, 2.5, True, "3", [1, 2], np.uint64(2**63), float("nan")])
def test_bad_options_are_refused_naming_the_range(action):
    mapper = make_action_mapper(PoolEnv("nine_ball").table, "choice_canonical")
    with pytest.raises(ValueError, match=r"one option index, a whole number in 0\.\.85"):
        mapper.validate(action)
    assert mapper.validate(np.array([5])) == 5 and mapper.validate(3.0) == 3


def test_the_mode_has_no_elevated_cue():
    with pytest.raises(ValueError, match="plays level strokes only: elevation must be False"):
        gym.make("poolgym/NineBall-v1", action_mode="choice_canonical", elevation=True)


@pytest.mark.parametrize("obs_mode", ["dict", "flat"])
def test_check_env_passes(obs_mode):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gym.make("poolgym/NineBall-v1", action_mode="choice_canonical", obs_mode=obs_mode, opponent="solo")
    check_masked_env(env.unwrapped)  # check_env, stepping with what the masks offer
    check_env_closes(env)
    sb3_check_env(env.unwrapped)
    assert env.action_space == gym.spaces.Discrete(N_OPTIONS)


def test_the_two_player_env_offers_the_mode():
    from pettingzoo.test import api_test

    from poolgym.envs.aec import PoolAECEnv

    api_test(PoolAECEnv("nine_ball", action_mode="choice_canonical"), num_cycles=20)
    env = PoolAECEnv("nine_ball", action_mode="choice_canonical")
    env.reset(seed=2)
    first, second = env.possible_agents
    acting = env.agent_selection
    idle = second if acting == first else first
    assert env.observe(acting)["action_mask"].shape == (N_OPTIONS,)
    assert env.action_masks(idle).tolist() == [True] + [False] * (N_OPTIONS - 1)


def test_the_options_cover_every_kind_once_in_order():
    kinds = [o.kind for o in OPTIONS]
    assert kinds[:N_POT_STROKES] == ["pot_stroke"] * N_POT_STROKES
    assert tuple(k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k) == KINDS
    assert sorted(o.choice for o in OPTIONS if o.kind == "decision") == list(range(len(CHOICES)))
