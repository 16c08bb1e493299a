"""The choice action modes: candidate slots, masks, candidate features and shaping."""

import math
from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import poolgym  # noqa: F401  (registers the env ids)
from poolgym.agents.bot.shot_search import object_ball_error
from poolgym.aiming import aim_point, direction_deg, ghost_ball, pot_chance
from poolgym.envs import PoolEnv
from poolgym.envs import candidates as cand
from poolgym.envs.choice import PARAM_BINS, ChoiceMapper, bin_value, make_action_mapper
from poolgym.envs.play import simulate_move
from poolgym.envs.rewards import PotentialShaping
from poolgym.envs.sb3_models import action_mapper, check_env_matches, env_side
from poolgym.physics import Simulator
from poolgym.physics.invariants import random_layout
from poolgym.rules import CueBallZone, Decision, GameState, ShotCall, get_ruleset
from poolgym.table import Table

from .helpers import check_env_closes, check_masked_env, straight_in

GAMES = ("nine_ball", "eight_ball", "ten_ball", "straight_pool")
TABLE = Table.preset("9ft")
R = TABLE.ball_radius
SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def split_masks(mapper: ChoiceMapper, flat: np.ndarray) -> list[np.ndarray]:
    return np.split(flat, np.cumsum(mapper.nvec)[:-1])


def masked_sample(mapper: ChoiceMapper, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform random action among the values the masks allow."""
    return np.array([rng.choice(np.flatnonzero(m)) for m in split_masks(mapper, masks)], dtype=np.int64)


class MaskedRandom:
    """An env opponent playing uniform random masked choice_discrete moves (seeded), given
    to the env in its action mode through ``encode`` (as the bots act)."""

    def __init__(self, game: str, seed: int, mode: str = "choice_discrete") -> None:
        self.rules = get_ruleset(game, table=TABLE)
        self.mapper = ChoiceMapper(TABLE, "choice_discrete")
        self.env_mapper = ChoiceMapper(TABLE, mode)
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs, info):
        state = info["state"]
        action = masked_sample(self.mapper, self.mapper.action_masks(state, self.rules), self.rng)
        return self.env_mapper.encode(self.mapper.decode(action, state, self.rules), state, self.rules)


def valid_slots(mapper, state, rules):
    return [i for i, s in enumerate(mapper.slots(state, rules)) if s is not None]


# ------------------------------------------------------------------ masks never allow an illegal move
@settings(max_examples=40, **SETTINGS)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**31 - 1), moves=st.integers(0, 20))
def test_masks_allow_only_legal_moves(game, seed, moves):
    """Random seeded game states of every game (reached by random masked moves): every valid
    slot decodes to a call the rules accept and a shot they judge (simulated), every offered choice to a
    decision they accept, and decoding never plays a masked slot in either mode."""
    env = PoolEnv(game, opponent="solo", action_mode="choice_discrete", noise="tournament",
                  rack_model="benchmark")
    box = ChoiceMapper(env.table, "choice")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves + 1):
        if env._done:
            break
        state, mapper = env.state, env.mapper
        masks = env.action_masks()
        slot_mask, *params, decision_mask = split_masks(mapper, masks)
        assert all(m.any() for m in split_masks(mapper, masks))
        if state.pending is None:
            valid = valid_slots(mapper, state, env.rules)
            assert valid and list(np.flatnonzero(slot_mask)) == valid
            for i in valid:
                action = masked_sample(mapper, masks, rng)
                action[0] = i
                move = mapper.decode(mapper.validate(action), state, env.rules)
                env.rules.check_call(state, move.call)  # raises on an illegal call
                assert move.call in env.rules.call_options(state)
                events, _ = simulate_move(env.simulator, env.rules, state, move, rng, False)
                env.rules.apply_shot(state, move.call, events)  # the rules judge it, no ValueError
            # A masked slot given anyway is refused, naming it; any Box scores play a valid slot.
            for i in np.flatnonzero(~slot_mask):
                action = masked_sample(mapper, masks, rng)
                action[0] = i
                with pytest.raises(ValueError, match=rf"^action slot {i} is not offered in this state"):
                    mapper.decode(mapper.validate(action), state, env.rules)
            for _ in range(3):
                scores = rng.uniform(-1, 1, box.space.shape)
                move = box.decode(box.validate(scores), state, env.rules)
                played = [i for i in valid if (box.slots(state, env.rules)[i].ball, box.slots(state, env.rules)[i].pocket,
                                               box.slots(state, env.rules)[i].call)
                          == (move.target, move.pocket, move.call)]
                assert played
                best = max(valid, key=lambda i: (scores[i], -i))
                assert box.decode(box.validate(scores), state, env.rules) == box.play(
                    box.slots(state, env.rules)[best], dict(zip(("cut", "speed", "side", "vertical", "place_distance",
                                                                  "place_angle", "decision"), scores[cand.N_SLOTS:])),
                    state)
        else:
            for index in np.flatnonzero(decision_mask):
                action = masked_sample(mapper, masks, rng)
                action[-1] = index
                move = mapper.decode(mapper.validate(action), state, env.rules)
                assert isinstance(move, Decision)
                env.rules.apply_decision(state, move)  # raises on a choice not offered
        env.play_move(masked_sample(mapper, masks, rng))  # the rules judge it (no ValueError)


# ------------------------------------------------------------------ API checks and learners
@pytest.mark.parametrize("obs_mode", ["dict", "flat"])
@pytest.mark.parametrize("action_mode", ["choice", "choice_discrete"])
def test_check_env_passes(action_mode, obs_mode):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gym.make("poolgym/NineBall-v1", action_mode=action_mode, obs_mode=obs_mode, opponent="solo")
    if action_mode == "choice_discrete":  # check_env, stepping with what the masks offer
        check_masked_env(env.unwrapped)
        check_env_closes(env)
    else:
        check_env(env.unwrapped, skip_render_check=True)
    sb3_check_env(env.unwrapped)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    if obs_mode == "dict":
        assert obs["candidates"].shape == (cand.N_SLOTS * cand.N_FEATURES,)
        assert obs["slot_mask"].sum() >= 1


def play_legal_game(env, act, seed: int) -> int:
    """Play one episode with ``act(obs, env)``; every agent move must respect the masks and
    be a legal call. Returns the number of agent moves."""
    mapper, rules = env.unwrapped.mapper, env.unwrapped.rules
    obs, info = env.reset(seed=seed)
    moves, done = 0, False
    while not done:
        state = env.unwrapped.state
        action = act(obs, env)
        if state.pending is None:
            move = mapper.decode(mapper.validate(action), state, rules)
            rules.check_call(state, move.call)
            if mapper.mode == "choice_discrete":
                assert env.unwrapped.action_masks()[int(action[0])]
        obs, _, terminated, truncated, info = env.step(action)
        moves += 1
        done = terminated or truncated
    assert info["winner"] in (0, 1) or truncated
    return moves


def test_maskable_ppo_learns_and_plays_a_legal_game():
    from sb3_contrib import MaskablePPO

    env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", opponent=MaskedRandom("nine_ball", 1))
    model = MaskablePPO("MultiInputPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256
    moves = play_legal_game(env, lambda obs, e: model.predict(obs, action_masks=e.unwrapped.action_masks(),
                                                               deterministic=True)[0], seed=5)
    assert moves >= 1


def test_ppo_learns_and_plays_a_legal_game():
    from stable_baselines3 import PPO

    env = gym.make("poolgym/NineBall-v1", action_mode="choice", obs_mode="flat",
                   opponent=MaskedRandom("nine_ball", 2, "choice"))
    model = PPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256
    assert play_legal_game(env, lambda obs, e: model.predict(obs, deterministic=True)[0], seed=6) >= 1


# ------------------------------------------------------------------ candidate features
def open_table_state(balls: dict) -> GameState:
    return GameState(game="nine_ball", balls=balls, awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE)


def features_of(slot_index: int, slots) -> dict[str, float]:
    row = cand.slot_features(slots).reshape(cand.N_SLOTS, cand.N_FEATURES)[slot_index]
    return dict(zip(cand.FEATURES, row))


def test_straight_in_shot_features():
    cue, ball, _ = straight_in(TABLE)
    rules = get_ruleset("nine_ball", table=TABLE)
    state = open_table_state({0: cue, 1: ball, 9: (0.4, 0.3)})
    slots = cand.candidate_slots(state, rules, sigma_deg=0.0)
    first = slots[0]
    assert (first.kind, first.ball, first.pocket) == ("pot", 1, "foot_right")
    f = features_of(0, slots)
    diagonal = math.hypot(TABLE.length, TABLE.width)
    assert f["valid"] == 1 and f["kind_pot"] == 1 and f["pocket_foot_right"] == 1
    assert f["ball"] == pytest.approx(1 / 15)
    assert f["cut"] * 180 < 1.0  # the ball lies on the pocket's line: no cut to speak of
    assert f["cue_to_ghost"] * diagonal == pytest.approx(math.dist(cue, ball) - 2 * R, abs=2e-3)
    assert f["ball_to_pocket"] * diagonal == pytest.approx(math.dist(ball, aim_point(TABLE, "foot_right")), abs=1e-5)
    assert f["cue_path_blocked"] == 0 and f["ball_path_blocked"] == 0
    assert f["make_probability"] > 0.999
    assert f["pocket_visible_angle"] > 0
    # The env's noise lowers it as the closed form says.
    noisy = cand.candidate_slots(state, rules, sigma_deg=2.0)[0]
    assert noisy.make_probability == pytest.approx(
        pot_chance(TABLE, cue, ball, "foot_right", {9: (0.4, 0.3)}, 2.0)) and noisy.make_probability < 0.99
    # 9-ball's one legal ball: six pot slots, one safety slot, no push out.
    assert list(cand.slot_mask(slots)) == [1] * 6 + [0] * 10 + [1, 0, 0, 0]


def test_blocked_lines_are_flagged_and_have_no_chance():
    cue, ball, _ = straight_in(TABLE)
    rules = get_ruleset("nine_ball", table=TABLE)
    between = ((cue[0] + ball[0]) / 2, (cue[1] + ball[1]) / 2)
    state = open_table_state({0: cue, 1: ball, 9: between})
    slot = next(s for s in cand.candidate_slots(state, rules, 0.0) if s and s.pocket == "foot_right")
    assert slot.cue_blocked and not slot.ball_blocked and slot.make_probability == 0.0
    pocket = aim_point(TABLE, "foot_right")
    beyond = ((ball[0] + pocket[0]) / 2, (ball[1] + pocket[1]) / 2)
    state = open_table_state({0: cue, 1: ball, 9: beyond})
    slots = cand.candidate_slots(state, rules, 0.0)
    index = next(i for i, s in enumerate(slots) if s and s.pocket == "foot_right")
    f = features_of(index, slots)
    assert f["ball_path_blocked"] == 1 and f["cue_path_blocked"] == 0 and f["make_probability"] == 0.0
    # Pots rank by their make probability at the reference noise: a blocked one after every open one.
    pots = [s for s in slots[:cand.N_POT_SLOTS] if s is not None]
    others = {n: p for n, p in state.positions.items() if n not in (0, 1)}
    reference = [pot_chance(TABLE, cue, ball, s.pocket, others, cand.RANKING_SIGMA_DEG) for s in pots]
    assert reference == sorted(reference, reverse=True) and reference[index] == 0.0
    assert index == len([r for r in reference if r > 0])


def test_push_out_and_called_safety_slots():
    rules = get_ruleset("ten_ball", table=TABLE)
    state = GameState(game="ten_ball", balls={0: (0.6, 0.6), 1: (1.8, 0.4), 2: (2.0, 1.0), 10: (1.2, 0.9)},
                      awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE, push_out_available=True)
    slots = cand.candidate_slots(state, rules, 0.0)
    assert slots[cand.PUSH_OUT_SLOT].call == ShotCall.push()
    assert slots[cand.N_POT_SLOTS].call == ShotCall.safety_shot() and slots[cand.N_POT_SLOTS].ball == 1
    # Called shots only on the legal first ball (the 1), each a call the rules offer.
    pots = [s for s in slots[:cand.N_POT_SLOTS] if s is not None]
    assert {s.ball for s in pots} == {1} and all(s.call in rules.call_options(state) for s in pots)
    without = cand.candidate_slots(replace(state, push_out_available=False), rules, 0.0)
    assert without[cand.PUSH_OUT_SLOT] is None


def test_in_hand_placement_is_relative_to_the_slot():
    cue, ball, _ = straight_in(TABLE)
    rules = get_ruleset("nine_ball", table=TABLE)
    state = GameState(game="nine_ball", balls={1: ball, 9: (0.4, 0.3)}, awaiting_break=False,
                      cue_ball_in_hand=CueBallZone.ANYWHERE)
    mapper = ChoiceMapper(TABLE, "choice_discrete")
    slot = mapper.slots(state, rules)[0]
    assert (slot.ball, slot.pocket) == (1, "foot_right")
    straight = np.array([0, PARAM_BINS["cut"] // 2, 3, 2, 2, 2, 3, 0])  # (0, 0) placement: 30 cm straight behind
    move = mapper.decode(straight, state, rules)
    assert math.dist(move.placement, slot.contact) == pytest.approx(0.30, abs=1e-6)
    pocket = aim_point(TABLE, "foot_right")
    # The cue ball, the ghost ball and the pocket are on one line.
    u = np.subtract(slot.contact, move.placement)
    v = np.subtract(pocket, slot.contact)
    assert abs(u[0] * v[1] - u[1] * v[0]) / (np.linalg.norm(u) * np.linalg.norm(v)) < 1e-9
    assert slot.make_probability > 0.999 and slot.cut_deg < 1e-6


# ------------------------------------------------------------------ encoding (bots in the choice modes)
@pytest.mark.parametrize("mode", ["choice", "choice_discrete"])
@pytest.mark.parametrize("game", GAMES)
def test_encode_inverts_decode(game, mode):
    rules = get_ruleset(game, table=TABLE)
    mapper = make_action_mapper(TABLE, mode)
    rng = np.random.default_rng(7)
    exact = 0
    for seed in range(8):
        layout = random_layout(TABLE, int(rng.integers(3, 10)), np.random.default_rng(seed))
        zone = (CueBallZone.NONE, CueBallZone.ANYWHERE)[seed % 2]
        balls = layout if zone is CueBallZone.NONE else {n: p for n, p in layout.items() if n != 0}
        state = replace(rules.new_game(rng=seed), balls=balls, awaiting_break=False, cue_ball_in_hand=zone)
        for _ in range(5):
            action = (rng.uniform(-1, 1, mapper.space.shape) if mode == "choice"
                      else masked_sample(mapper, mapper.action_masks(state, rules), rng))
            move = mapper.decode(mapper.validate(action), state, rules)
            again = mapper.decode(mapper.validate(mapper.encode(move, state, rules)), state, rules)
            assert (again.call, again.target, again.pocket) == (move.call, move.target, move.pocket)
            assert again.shot.speed == pytest.approx(move.shot.speed)
            if move.placement is not None:
                # Exact when the placement is one the slot's (distance, angle) reach without
                # being moved into the zone or off a ball.
                slot = next(s for s in mapper.slots(state, rules) if s and (s.ball, s.pocket, s.call)
                            == (move.target, move.pocket, move.call))
                given = (action[24:26] if mode == "choice" else
                         [bin_value(int(action[5]), PARAM_BINS["place_distance"]),
                          bin_value(int(action[6]), PARAM_BINS["place_angle"])])
                if not np.allclose(cand.placement_parameters(state, TABLE, slot, move.placement), given):
                    continue
                assert math.dist(again.placement, move.placement) < 1e-6
                exact += 1
            assert again.shot.angle_deg == pytest.approx(move.shot.angle_deg, abs=1e-6)
            if mode == "choice_discrete":
                used = 7 if move.placement is not None else 5  # placement bins matter in hand only
                assert list(mapper.encode(move, state, rules))[1:used] == list(action)[1:used]
    assert exact >= 5  # in-hand placements were checked too


def test_bad_discrete_actions_are_rejected():
    mapper = ChoiceMapper(TABLE, "choice_discrete")
    with pytest.raises(ValueError, match="slot"):
        mapper.validate([20, 0, 0, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="shape"):
        mapper.validate([0, 0, 0])
    with pytest.raises(ValueError, match="whole numbers"):
        mapper.validate([0.5, 0, 0, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="action_mode"):
        make_action_mapper(TABLE, "choices")
    with pytest.raises(ValueError, match="choice_discrete"):
        PoolEnv(opponent="solo", action_mode="choice").action_masks()
    with pytest.raises(ValueError, match="shaping gamma must be a number in \\[0, 1\\], got 1.5"):
        PoolEnv(opponent="solo", shaping_gamma=1.5)


# ------------------------------------------------------------------ the fixed policy beats random choices
def test_slot_zero_straight_pots_more_than_random_choices():
    """Over the same 100 seeded layouts and noise, "slot 0, straight, medium speed" pots far
    more often than uniform random choice-mode actions (measured: 56% against 7.5% over 200
    layouts; asserted with a margin of half the gap)."""
    rules = get_ruleset("nine_ball", table=TABLE)
    simulator = Simulator(TABLE, noise="tournament")
    mapper = ChoiceMapper(TABLE, "choice", sigma_deg=simulator.noise.angle_deg)
    fixed = np.concatenate([[1.0], -np.ones(cand.N_SLOTS - 1), [0.0, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0]])
    pots = {"fixed": 0, "random": 0}
    n = 100
    for seed in range(n):
        rng = np.random.default_rng(seed)
        state = open_table_state(random_layout(TABLE, int(rng.integers(2, 8)), rng))
        for name in pots:
            action = fixed if name == "fixed" else rng.uniform(-1, 1, mapper.space.shape)
            move = mapper.decode(mapper.validate(action), state, rules)
            events, _ = simulate_move(simulator, rules, state, move, np.random.default_rng(1000 + seed), False)
            pots[name] += bool(rules.apply_shot(state, move.call, events)[1].pocketed_legally)
    assert pots["fixed"] / n >= pots["random"] / n + 0.24, pots


# ------------------------------------------------------------------ shaping
def shaped_episode(weights: dict, gamma: float = 0.9, seed: int = 4):
    env = PoolEnv("nine_ball", opponent=MaskedRandom("nine_ball", 3), action_mode="choice_discrete",
                  noise="tournament", reward_weights=weights, shaping_gamma=gamma, breaker="agent")
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    states, rewards, terms = [env.state], [], []
    done = False
    while not done:
        _, reward, terminated, truncated, info = env.step(masked_sample(env.mapper, env.action_masks(), rng))
        states.append(None if terminated else env.state)
        rewards.append(reward)
        terms.append(info["reward_terms"])
        done = terminated or truncated or len(rewards) >= 60
    return env, states, rewards, terms


def test_shaping_telescopes_over_an_episode():
    gamma = 0.9
    env, states, rewards, terms = shaped_episode({"shaping": 1.0}, gamma)
    sigma = env.simulator.noise.angle_deg
    phi = [PotentialShaping.potential(s, env.rules, sigma, 0) for s in states]
    # From the other side the potential changes sign.
    assert [PotentialShaping.potential(s, env.rules, sigma, 1) for s in states] == [-p for p in phi]
    shaping = [t["shaping"] for t in terms]
    assert len(shaping) >= 2 and any(p > 0 for p in phi)
    T = len(shaping)
    discounted = sum(gamma ** t * f for t, f in enumerate(shaping))
    assert discounted == pytest.approx(gamma ** T * phi[T] - phi[0], abs=1e-9)
    assert phi[T] == 0.0 or states[T] is not None  # Phi is 0 at the episode's end
    assert all(-2.0 <= f <= 1.0 for f in shaping)


def test_shaping_off_leaves_rewards_unchanged():
    _, states_on, rewards_on, terms_on = shaped_episode({"shaping": 1.0})
    _, states_off, rewards_off, terms_off = shaped_episode({})
    assert states_on == states_off  # shaping draws nothing from the generators
    assert all(t["shaping"] == 0.0 for t in terms_off)
    assert rewards_off == pytest.approx([r - t["shaping"] for r, t in zip(rewards_on, terms_on)])
    assert any(t["shaping"] != 0.0 for t in terms_on)


# ------------------------------------------------------------------ the two-player env
@pytest.mark.parametrize("mode", ["choice", "choice_discrete"])
def test_two_player_env_offers_the_choice_modes(mode):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from poolgym.envs.aec import PoolAECEnv

    api_test(PoolAECEnv("eight_ball", action_mode=mode), num_cycles=20)
    env = PoolAECEnv("nine_ball", action_mode=mode, noise="tournament")
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for agent in env.agent_iter(60):
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        me = env.possible_agents.index(agent)
        other = env.possible_agents[1 - me]
        game_obs, other_obs = obs, env.observe(other)
        if mode == "choice_discrete":  # PettingZoo's classic {"observation", "action_mask"}
            assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks(agent))
            game_obs, other_obs = obs["observation"], other_obs["observation"]
        if env.state.pending is None:
            assert env.state.shooter == me and game_obs["slot_mask"].any()
            assert not other_obs["slot_mask"].any()
        if mode == "choice_discrete":
            action = masked_sample(env.mapper, env.action_masks(agent), rng)
        else:
            action = rng.uniform(-1, 1, env.action_space(agent).shape)
        env.step(action)


# ------------------------------------------------------------------ bots act in the choice modes
class Intended:
    """Stands in for a bot inside its env policy and keeps the moves it chose."""

    def __init__(self, bot) -> None:
        self.bot, self.moves = bot, []

    def choose(self, state):
        move = self.bot.choose(state)
        self.moves.append(move)
        return move


@pytest.mark.parametrize("mode", ["choice", "choice_discrete"])
@pytest.mark.parametrize("game", ["nine_ball", "eight_ball"])
def test_bots_play_their_moves_as_env_opponents(game, mode):
    """The search bot's moves reach the env through ``ChoiceMapper.encode``: every move the
    slots can express (a pot or safety on a slot's ball and pocket) keeps its call and
    ball, and its speed (to the speed bins in choice_discrete). Moves no slot expresses
    (combinations, banks beyond the 16 best pots) are the documented approximations."""
    from poolgym.agents.bot.player import HeuristicBot

    policy = HeuristicBot(game, budget="fast", seed=3).policy(mode)
    policy.agent = intended = Intended(policy.agent)
    env = PoolEnv(game, opponent=policy, action_mode=mode, breaker="opponent", race_to=2)
    played = []
    env.move_listeners.append(lambda record: played.append(record) if record.player == 1 else None)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(6):
        action = (masked_sample(env.mapper, env.action_masks(), rng) if mode == "choice_discrete"
                  else rng.uniform(-1, 1, env.action_space.shape))
        if env.step(action)[2]:
            break
    assert len(played) == len(intended.moves) >= 3
    speed_step = (env.mapper.max_speed - env.mapper.min_speed) / (PARAM_BINS["speed"] - 1)
    expressed = 0
    for record, move in zip(played, intended.moves):
        if isinstance(move, Decision):
            assert record.move.choice == move.choice
            continue
        slots = env.mapper.slots(record.before, env.rules)
        if not any(slot is not None and (slot.call, slot.ball) == (move.call, move.target) for slot in slots):
            continue
        expressed += 1
        assert (record.move.call, record.move.target) == (move.call, move.target)
        assert abs(record.move.shot.speed - min(move.shot.speed, env.mapper.max_speed)) <= (
            1e-9 if mode == "choice" else speed_step / 2 + 1e-9)
    assert expressed >= 2


@pytest.mark.parametrize("mode", ["choice", "choice_discrete"])
def test_pot_ball_offers_the_choice_modes(mode):
    from poolgym.envs import PotBallEnv

    env = PotBallEnv(action_mode=mode, n_balls=(1, 4))
    if mode == "choice_discrete":  # check_env, stepping with what the masks offer
        check_masked_env(env)
    else:
        check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=8)
    slots = env.mapper.slots(env.state, env.rules)
    pots = [s for s in slots if s is not None and s.kind == "pot"]
    assert len(pots) == 6 and {s.ball for s in pots} == {info["target"]}
    assert list(obs["slot_mask"]) == [1] * 6 + [0] * 10 + [1, 0, 0, 0]
    if mode == "choice_discrete":
        assert env.action_masks()[:cand.N_SLOTS].tolist() == [True] * 6 + [False] * 10 + [True, False, False, False]
    _, _, terminated, _, _ = env.step(env.action_space.sample())
    assert terminated


def test_two_player_shaping_is_zero_sum_and_potential_based():
    pytest.importorskip("pettingzoo")
    from poolgym.envs.aec import PoolAECEnv

    gamma = 0.95
    runs = {}
    for weight in (0.0, 1.0):
        env = PoolAECEnv("nine_ball", action_mode="choice_discrete", noise="tournament",
                         reward_weights={"shaping": weight}, shaping_gamma=gamma)
        env.reset(seed=9)
        rng = np.random.default_rng(9)
        turns = []
        while not any(env.terminations.values()) and env.turns < 40:
            phi_before = PotentialShaping.potential(env.state, env.rules, env.simulator.noise.angle_deg, 0)
            env.step(masked_sample(env.mapper, env.action_masks(), rng))
            phi_after = PotentialShaping.potential(env.state, env.rules, env.simulator.noise.angle_deg, 0)
            turns.append((dict(env.rewards), phi_before, phi_after))
        runs[weight] = turns
    assert len(runs[0.0]) == len(runs[1.0]) >= 3
    for (off, _, _), (on, phi, phi_next) in zip(runs[0.0], runs[1.0]):
        shaping = gamma * phi_next - phi
        assert on["player_0"] - off["player_0"] == pytest.approx(shaping)
        assert on["player_1"] - off["player_1"] == pytest.approx(-shaping)
    assert any(phi != 0 for _, phi, _ in runs[1.0])


# ------------------------------------------------------------------ the pot's cut residual
def cut_pot(cut_deg: float, distance: float = 0.8):
    """A ``cut_deg`` cut (its sign the side) of the 1 into the foot-right pocket from
    ``distance`` metres: the open-table state (the 9 out of the way), the ghost ball and the
    pocket's aim point."""
    target = aim_point(TABLE, "foot_right")
    ball = (TABLE.length - 0.9, TABLE.width - 0.45)
    ghost = ghost_ball(ball, target, R)
    back = math.atan2(ghost[1] - ball[1], ghost[0] - ball[0]) + math.radians(cut_deg)
    cue = (ghost[0] + distance * math.cos(back), ghost[1] + distance * math.sin(back))
    return open_table_state({0: cue, 1: ball, 9: (0.4, 0.3)}), ghost, target


def played_error(mapper, state, cut: float, speed: float = 2.0) -> float:
    """Degrees the 1 leaves off its line to the pocket when ``mapper`` (Box ``choice`` mode)
    plays the 1's foot-right pot slot with residual ``cut`` at ``speed``, without noise."""
    rules = get_ruleset("nine_ball", table=TABLE)
    slots = mapper.slots(state, rules)
    index = next(i for i, s in enumerate(slots) if s and (s.ball, s.pocket) == (1, "foot_right"))
    action = -np.ones(mapper.space.shape)
    action[index] = 1.0
    params = dict.fromkeys(mapper.params, 0.0)
    params["cut"] = cut
    params["speed"] = 2 * (speed - mapper.min_speed) / (mapper.max_speed - mapper.min_speed) - 1
    action[cand.N_SLOTS:] = [params[p] for p in mapper.params]
    move = mapper.decode(mapper.validate(action), state, rules)
    result = Simulator(TABLE).simulate(state.positions, move.shot)
    return object_ball_error(result.events, 1, aim_point(TABLE, "foot_right"))


@pytest.mark.parametrize("cut_deg,distance", [(20.0, 0.8), (-35.0, 1.2), (50.0, 0.4)])
def test_a_pots_cut_residual_turns_the_object_ball_by_its_degrees(cut_deg, distance):
    state, _, _ = cut_pot(cut_deg, distance)
    mapper = make_action_mapper(TABLE, "choice", max_cut_deg=5.0, pot_residual="object_ball")
    ghost_line = played_error(mapper, state, 0.0)
    # Throw: the ghost-ball stroke sends the ball off its line, to the side it is cut to.
    assert 0.3 < abs(ghost_line) < 3.0
    for cut in (-0.4, 0.4):  # +/-2 degrees counter-clockwise
        assert played_error(mapper, state, cut) - ghost_line == pytest.approx(5.0 * cut, abs=0.25)
    # So a residual can take the throw out.
    assert abs(played_error(mapper, state, -ghost_line / 5.0)) < 0.15


def test_the_default_stroke_residual_turns_the_stroke():
    state, ghost, _ = cut_pot(30.0)
    rules = get_ruleset("nine_ball", table=TABLE)
    stroke = make_action_mapper(TABLE, "choice_discrete", max_cut_deg=5.0)
    assert stroke.pot_residual == "stroke"  # the default
    index = next(i for i, s in enumerate(stroke.slots(state, rules)) if s and (s.ball, s.pocket) == (1, "foot_right"))
    action = np.zeros(len(stroke.nvec), dtype=np.int64)
    action[0], action[1] = index, 6  # the cut bin one step above 0: +1 degree of stroke
    move = stroke.decode(stroke.validate(action), state, rules)
    assert move.shot.angle_deg == pytest.approx(direction_deg(state.position(0), ghost) + 1.0)
    for mode in ("choice", "aim"):
        with pytest.raises(ValueError, match="pot_residual must be one of"):
            make_action_mapper(TABLE, mode, pot_residual="ghost")


def test_variant_yaml_takes_the_pot_residual_and_names_a_bad_value(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text("id: test/StrokeResidual-v0\ngame: nine_ball\naction_mode: choice_discrete\n"
                    "pot_residual: stroke\n")
    assert gym.make(poolgym.register_from_yaml(good)).unwrapped.mapper.pot_residual == "stroke"
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: test/BadResidual-v0\ngame: nine_ball\naction_mode: aim\npot_residual: ghost\n")
    with pytest.raises(ValueError, match="pot_residual must be one of"):
        poolgym.register_from_yaml(bad)


def test_model_records_carry_the_pot_residual():
    env = PoolEnv(action_mode="choice_discrete", pot_residual="object_ball")
    record = env_side(env)
    assert record["pot_residual"] == "object_ball"
    assert action_mapper(record, TABLE).pot_residual == "object_ball"
    older = {k: v for k, v in record.items() if k != "pot_residual"}  # written before the option
    assert action_mapper(older, TABLE).pot_residual == "stroke"
    with pytest.raises(ValueError, match="pot_residual: model 'stroke', env 'object_ball'"):
        check_env_matches(older, env)
    check_env_matches(older, PoolEnv(action_mode="choice_discrete"))
    # The raw and aim modes turn the stroke, as records of them always did.
    check_env_matches({k: v for k, v in env_side(PoolEnv(action_mode="aim")).items() if k != "pot_residual"},
                      PoolEnv(action_mode="aim"))
