"""``lookahead-greedy`` (``poolgym.envs.lookahead_agent``) and models that see the lookahead
entry playing on states (``PolicyAgent``): what they read is what the env observes, and
the greedy's move is the best stroke of those features, played as an action of
``choice_discrete``."""

import math

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401  (registers the ids)
from poolgym.aiming import aim_point
from poolgym.envs import lookahead as la
from poolgym.envs.actions import ShotMove
from poolgym.envs.lookahead_agent import LookaheadGreedyAgent, best_stroke, stroke_value
from poolgym.physics import Noise
from poolgym.rules import CueBallZone, Decision, GameState, get_ruleset

from poolgym.agents.evaluation.evaluate import run_match
from poolgym.agents.evaluation.loading import PolicyAgent, make_agent
from poolgym.agents.evaluation.protocol import protocol

MADE, SCRATCH, FOUL, CUE_X, CUE_Y, NEXT, OPPONENT = range(la.N_FEATURES)


def lookahead_env(samples: int = 2, **kwargs):
    return gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", obs_mode="dict", lookahead=True,
                    lookahead_samples=samples, **kwargs)


def played_states(count: int, seed: int = 3) -> list[GameState]:
    """States from racks played by lookahead-greedy against bot:fast under the protocol."""
    p = protocol("poolgym/NineBall-v1")
    agents = [LookaheadGreedyAgent(p.rules, max_speed=p.max_speed, samples=2),
              make_agent("bot:fast", p.rules, seed=1, noise=p.noise, max_speed=p.max_speed)]
    states = []
    for rack in range(8):
        match = run_match(p.rules, agents, ("greedy", "bot"), range(rack, rack + 1), seed=seed, noise=p.noise)
        states += [m.state for m in match.racks[0].moves if m.player == 0 and m.state.pending is None
                   and not m.state.awaiting_break]
        if len(states) >= count:
            break
    return states[:count]


def test_stroke_value_ranks_a_made_pot_with_position_over_a_scratch_and_a_miss():
    rows = np.zeros((3, la.N_FEATURES))
    rows[0, [MADE, NEXT]] = (1.0, 0.9)  # made, a good next shot
    rows[1, [MADE, SCRATCH, FOUL, OPPONENT]] = (0.0, 1.0, 1.0, 0.9)  # scratched: the opponent in hand
    rows[2, [OPPONENT]] = 0.6  # missed, the opponent left a shot
    values = stroke_value(rows)
    assert values[0] > values[2] > values[1]


def test_the_greedy_plays_the_best_stroke_of_the_features_the_env_observes():
    env = lookahead_env(samples=2)
    game = env.unwrapped
    agent = LookaheadGreedyAgent(game.rules, max_speed=game.mapper.max_speed, noise=game.simulator.noise, samples=2)
    checked = 0
    for state in played_states(6):
        game.state = state
        obs = game._observation(0)
        features = obs["lookahead"].reshape(la.LOOKAHEAD_SLOTS, len(la.STROKES), la.N_FEATURES)
        slots = game.mapper.slots(state, game.rules)
        pots = [i for i, s in enumerate(slots[:la.LOOKAHEAD_SLOTS]) if s is not None and s.kind == "pot"]
        if not pots:
            continue
        values = stroke_value(features)
        best = max((values[i, j], -i, -j) for i in pots for j in range(len(la.STROKES)))
        slot, stroke = -best[1], la.STROKES[-best[2]]
        assert best_stroke(obs["lookahead"], slots) == (slot, stroke)
        action = agent.action(state)
        np.testing.assert_array_equal(action, la.stroke_action(game.mapper, slot, stroke))
        # The move it makes is that action played through the env's mapping.
        move = agent.choose(state)
        assert isinstance(move, ShotMove)
        assert move == game.mapper.decode(action, state, game.rules)
        assert (move.target, move.pocket) == (slots[slot].ball, slots[slot].pocket)
        checked += 1
    assert checked >= 4


def test_where_the_features_show_no_pot_the_greedy_plays_as_fixed():
    rules = get_ruleset("nine_ball")
    agent = LookaheadGreedyAgent(rules, max_speed=12.0)
    fixed = make_agent("fixed", rules, max_speed=12.0)
    fresh = rules.new_game(rng=np.random.default_rng(0))
    assert fresh.awaiting_break and agent.choose(fresh) == fixed.choose(fresh)
    # Features of the first slots, none of them a pot (safeties, invalid slots): no stroke.
    state = played_states(1)[0]
    slots = agent.mapper.slots(state, rules)
    safety = next(s for s in slots if s is not None and s.kind == "safety")
    features = np.ones(la.SIZE)
    assert best_stroke(features, (safety, None, safety, None)) is None
    assert best_stroke(features, (None, slots[0], None, None)) == (1, la.STROKES[0])


def test_a_pending_decision_is_answered_as_fixed_answers_it():
    from poolgym.envs.play import simulate_move
    from poolgym.physics import Shot, Simulator

    p = protocol("poolgym/NineBall-v1")
    agent = LookaheadGreedyAgent(p.rules, max_speed=p.max_speed)
    fixed = make_agent("fixed", p.rules, max_speed=p.max_speed)
    # A push out after the break hands the opponent a decision (WPA 1.6).
    state = GameState(game="nine_ball", balls={0: (0.5, 0.5), 1: (1.5, 0.7), 9: (2.0, 0.3)},
                      awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE, push_out_available=True)
    call = next(c for c in p.rules.call_options(state) if c.push_out)
    move = ShotMove(call, None, Shot(1.0, 90.0), None, None)
    events, _ = simulate_move(Simulator(p.rules.table), p.rules, state, move, None, False)
    after, outcome = p.rules.apply_shot(state, call, events)
    assert after.pending is not None
    decision = agent.choose(after)
    assert isinstance(decision, Decision) and decision == fixed.choose(after)


def test_a_model_that_sees_the_lookahead_sees_what_the_env_shows_it():
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", obs_mode="flat", lookahead=True,
                   lookahead_samples=3)
    game = env.unwrapped
    seen = []

    def policy(obs, info):
        seen.append(obs)
        return np.array([int(np.flatnonzero(info["action_masks"][:20])[0]), 5, 2, 2, 2, 2, 3, 0])

    record = {"action_mode": "choice_discrete", "min_speed": game.mapper.min_speed,
              "max_speed": game.mapper.max_speed, "max_tip_offset": game.mapper.max_tip_offset,
              "max_cut_deg": game.mapper.max_cut_deg, "obs_mode": "flat", "observe_match": True,
              "sigma_deg": game.mapper.sigma_deg, "lookahead": True, "lookahead_samples": 3,
              "noise": {"speed": 0.075, "angle_deg": 0.125, "side": 0.0175, "vertical": 0.0175}}
    agent = PolicyAgent.from_record(policy, game.rules, record, noise="tournament")
    assert agent.simulator.noise == Noise.preset("tournament") and agent.lookahead_samples == 3
    for state in played_states(3, seed=5):
        game.state = state
        agent.choose(state)
        np.testing.assert_array_equal(seen[-1], game._observation(0))
    # Without the match's noise it foresees under the noise it was trained with.
    assert PolicyAgent.from_record(policy, game.rules, record).simulator.noise == Noise.make(record["noise"])
    # A record without lookahead adds no plays.
    plain = PolicyAgent.from_record(policy, game.rules, {**record, "lookahead": False})
    assert plain.lookahead_samples is None


def test_lookahead_greedy_is_a_named_agent_and_refuses_bad_arguments():
    p = protocol("poolgym/NineBall-v1")
    agent = make_agent("lookahead-greedy", p.rules, noise=p.noise, max_speed=p.max_speed)
    assert isinstance(agent, LookaheadGreedyAgent) and agent.simulator.noise == Noise.preset("tournament")
    with pytest.raises(ValueError, match="lookahead_samples must be a whole number of plays in 1..64"):
        LookaheadGreedyAgent(p.rules, samples=0)
    with pytest.raises(ValueError, match="max_speed must be in"):
        LookaheadGreedyAgent(p.rules, max_speed=40.0)
