"""The opponent ladder: every name as an env opponent in both action modes, the same move as
the evaluation agent of that name, legal-random against random, saved games with ladder
opponents."""

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401
from poolgym.agents.evaluation.evaluate import run_match, summarize
from poolgym.agents.evaluation.loading import make_agent
from poolgym.envs.actions import ShotMove
from poolgym.envs.baseline_agents import FixedAgent, LegalRandomAgent, RandomAgent, first_ball_hit
from poolgym.envs.observations import actor
from poolgym.envs.opponents import RandomPolicy
from poolgym.envs.pool_env import PoolEnv
from poolgym.rules import Decision, get_ruleset
from poolgym.saved_game import RecordGame, load, replay

LADDER = ("random", "legal-random", "fixed", "bot:weak", "bot:fast", "bot:normal")
V1_FILE = Path(__file__).resolve().parents[1] / "reliability" / "data" / "nine_ball_v1.json"


@pytest.mark.parametrize("mode", ["aim", "raw"])
@pytest.mark.parametrize("name", LADDER)
def test_each_ladder_name_is_an_env_opponent(name, mode):
    env = gym.make("poolgym/NineBall-v0", opponent=name, action_mode=mode)
    records = []
    env.unwrapped.move_listeners.append(records.append)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(4):
        obs, reward, terminated, truncated, info = env.step(rng.uniform(-1, 1, env.action_space.shape))
        assert env.observation_space.contains(obs) and np.isfinite(reward)
        if terminated or truncated:
            env.reset()
    theirs = [r for r in records if r.player == 1]
    assert theirs, "the opponent never played"
    # The opponent's moves go through the env's raw mapping, whatever the agent's mode.
    assert all(r.mapping == "raw" for r in theirs)
    assert all(r.mapping == mode for r in records if r.player == 0)
    env.close()


@pytest.mark.parametrize("mode", ["aim", "raw"])
@pytest.mark.parametrize("name", LADDER)
def test_env_opponent_makes_the_eval_agents_move(name, mode):
    """From the same state and seed, the env's opponent plays the move ``poolgym eval``'s
    agent of the same name chooses (up to the float round trip of the raw encoding)."""
    env = PoolEnv("nine_ball", opponent=name, action_mode=mode, noise="tournament")
    rules = env.rules
    agent = make_agent(name, rules, seed=0, noise="tournament")
    assert type(agent) is type(env.opponent)
    records = []
    env.move_listeners.append(records.append)
    compared = 0
    for seed in range(3):
        env.reset(seed=seed)
        env.play_move(np.full(env.action_space.shape, -0.2))  # the agent's break
        outcomes = []
        if not env._done and actor(env.state) == 1:
            env.opponent.reseed(1000 + seed)
            agent.reseed(1000 + seed)
            records.clear()
            env._opponent_turns(outcomes)
            first = records[0]
            expected = agent.choose(first.before)
            played = first.move
            assert type(played) is type(expected)
            if isinstance(expected, Decision):
                assert played.choice == expected.choice
            else:
                assert played.call == expected.call
                if expected.placement is None:
                    assert played.placement is None
                else:
                    assert played.placement == pytest.approx(expected.placement, abs=1e-9)
                for field in ("speed", "angle_deg", "side", "vertical"):
                    assert getattr(played.shot, field) == pytest.approx(getattr(expected.shot, field),
                                                                        abs=1e-9)
            compared += 1
    assert compared >= 2


def test_uniform_action_opponent_and_v0_ids():
    env = gym.make("poolgym/NineBall-v0")
    assert isinstance(env.unwrapped.opponent, RandomPolicy)  # v0 keeps its published opponent
    assert isinstance(PoolEnv().opponent, LegalRandomAgent)  # the class's default
    env.close()
    with pytest.raises(ValueError, match="bot:nonsense"):
        PoolEnv(opponent="bot:nonsense")
    with pytest.raises(ValueError, match="opponent must be one of"):
        PoolEnv(opponent=3)


def test_legal_random_loses_far_fewer_racks_by_three_fouls_than_random():
    """Measured on 200 racks each (tournament noise, seed 0): random 200/200 racks end by
    a third consecutive foul, legal-random about 1 in 4. 30 racks each here; the bounds
    leave room for the smaller sample."""
    rules = get_ruleset("nine_ball")
    rates = {}
    for name in ("random", "legal-random"):
        agents = [make_agent(name, rules, seed=0), make_agent(name, rules, seed=1)]
        match = run_match(rules, agents, (name + " A", name + " B"), 30, seed=0, noise="tournament")
        stats = summarize(match)["agents"]
        rates[name] = sum(s["racks_lost_by_three_fouls"] for s in stats.values()) / 30
    assert rates["random"] >= 0.9
    assert rates["legal-random"] <= 0.5
    assert rates["random"] - rates["legal-random"] >= 0.4


def test_legal_random_strikes_a_legal_ball_first_when_a_line_is_clear():
    rules = get_ruleset("nine_ball")
    agent = LegalRandomAgent(rules, seed=3)
    state = rules.new_game(rng=np.random.default_rng(0))
    for _ in range(20):
        move = agent.choose(state)
        assert first_ball_hit(rules.table, state, move.placement, move.shot.angle_deg) in \
            rules.legal_targets(state)
    random_agent = RandomAgent(rules, seed=3)
    hits = sum(first_ball_hit(rules.table, state, m.placement, m.shot.angle_deg) is not None
               for m in (random_agent.choose(state) for _ in range(200)))
    assert hits < 100  # the random agent's strokes mostly meet nothing


def test_fixed_agent_is_deterministic_and_plays_the_easiest_candidate():
    rules = get_ruleset("nine_ball")
    a, b = FixedAgent(rules), FixedAgent(rules)
    state = rules.new_game(rng=np.random.default_rng(2))
    brk = a.choose(state)
    assert brk == b.choose(state) and brk.shot.speed == 8.0 and brk.shot.side == 0.0
    env = PoolEnv("nine_ball", opponent="solo", action_mode="aim")
    env.reset(seed=2)
    env.play_move(np.array([-1, 0, 1, 0, 0, 0, 0, 0, -1, -1], dtype=np.float32))
    if env.state.pending is None and not env._done:
        move = a.choose(env.state)
        cue = move.placement or env.state.position(0)
        ball, pocket, _ = env.mapper.candidates(env.state, rules, cue)[0]
        assert isinstance(move, ShotMove) and (move.target, move.pocket) == (ball, pocket)
        assert move.shot.speed == 3.0 and (move.shot.side, move.shot.vertical) == (0.0, 0.0)


@pytest.mark.parametrize("name", ["legal-random", "fixed", "bot:fast"])
def test_a_game_with_a_ladder_opponent_replays_exactly(tmp_path, name):
    env = RecordGame(gym.make("poolgym/NineBall-v0", opponent=name, action_mode="aim", noise="tournament"))
    env.reset(seed=7)
    rng = np.random.default_rng(1)
    for _ in range(6):
        *_, terminated, truncated, _ = env.step(rng.uniform(-1, 1, 10))
        if terminated or truncated:
            break
    path = tmp_path / "game.json"
    env.save(path)
    saved = load(path)
    assert saved.config["opponent"] == name and saved.config["opponent_reseeded"]
    assert {m.mapping for m in saved.moves if m.player == 1} == {"raw"}
    steps = replay(path)  # raises ReplayMismatch on any difference
    assert len(steps) == len(saved.moves) > 2


def test_a_version_1_saved_game_still_loads_and_replays():
    """A file written by the version-1 code (before the ladder). Its moves replay, but not
    compared bit for bit: the simulator's physics changed since it was recorded."""
    saved = load(V1_FILE)
    assert saved.config["opponent"] == "uniform-action" and saved.config["breaker"] == "agent"
    assert all(m.mapping == "aim" for m in saved.moves)
    env = saved.make_env()
    env.reset(seed=saved.seed, options={"play_opponent": False})
    assert env.state == saved.initial_state  # the same rack from the same seed
    steps = replay(saved, check=False)
    assert 1 <= len(steps) <= len(saved.moves)


@pytest.mark.parametrize("name", ["legal-random", "bot:weak"])
def test_a_v1_game_where_the_ladder_opponent_breaks_replays_exactly(tmp_path, name):
    env = RecordGame(gym.make("poolgym/NineBall-v1", opponent=name, action_mode="aim"))
    env.reset(seed=5, options={"breaker": 1})
    saved_first = env.saved_game
    assert saved_first.moves and saved_first.moves[0].player == 1  # the opponent's break, in reset
    rng = np.random.default_rng(2)
    for _ in range(4):
        *_, terminated, truncated, _ = env.step(rng.uniform(-1, 1, 10))
        if terminated or truncated:
            break
    env.save(tmp_path / "game.json")
    assert len(replay(tmp_path / "game.json")) == len(env.saved_game.moves)
