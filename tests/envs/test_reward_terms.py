"""The reward terms stated as rules, beside the stored snapshots of earlier output: whose each
term is and its sign, on hand-built outcomes and on played steps; and every reward is finite."""

import math

import gymnasium as gym
import numpy as np
import pytest

from poolgym.agents.tools.soak import random_action
from poolgym.envs.rewards import RewardWeights, reward_terms, weigh
from poolgym.rules import CueBallZone, Foul, Outcome, Penalty

DEFAULTS = RewardWeights()
# The largest weight allowed (``rewards.MAX_REWARD_WEIGHT``), either sign.
BOUND = 1e6


def outcome(shooter=0, pocketed_legally=(), fouled=False, next_shooter=None, in_hand=CueBallZone.NONE,
            points=(0, 0), winner=None) -> Outcome:
    fouls = (Foul("6.2", "the cue ball touched no ball"),) if fouled else ()
    return Outcome(shooter=shooter, break_shot=False, push_out=False, fouls=fouls,
                   penalty=Penalty.STANDARD if fouled else None,
                   pocketed=tuple((b, "foot_left") for b in pocketed_legally), driven_off=(),
                   pocketed_legally=tuple(pocketed_legally), spotted=(), turn_kept=bool(pocketed_legally),
                   next_shooter=next_shooter if next_shooter is not None else shooter,
                   cue_ball_in_hand=in_hand, points=points, winner=winner)


def reward(o: Outcome, agent: int, solo: bool = False, **weights) -> float:
    return weigh(reward_terms(o, agent, solo), RewardWeights(**weights) if weights else DEFAULTS)


def test_a_legal_pot_pays_the_shooter_per_ball_and_nobody_else():
    pots = outcome(shooter=0, pocketed_legally=(3, 5))
    assert reward(pots, 0) == 2 * DEFAULTS.legal_pot + DEFAULTS.legal_shot == 2.0
    assert reward(pots, 1) == 0.0
    assert reward(pots, 0, legal_pot=0.25) == 0.5


def test_a_foul_costs_its_shooter_and_the_ball_in_hand_is_the_opponents_gain():
    foul = outcome(shooter=0, fouled=True, next_shooter=1, in_hand=CueBallZone.ANYWHERE)
    terms = reward_terms(foul, 0)
    assert (terms["foul"], terms["ball_in_hand_conceded"], terms["ball_in_hand_gained"]) == (1.0, 1.0, 0.0)
    assert reward(foul, 0) == DEFAULTS.foul + DEFAULTS.ball_in_hand_conceded == -1.5
    other = reward_terms(foul, 1)
    assert (other["foul"], other["ball_in_hand_conceded"], other["ball_in_hand_gained"]) == (0.0, 0.0, 1.0)
    assert reward(foul, 1) == DEFAULTS.ball_in_hand_gained == 0.5
    # A foul that leaves the cue ball where it lies hands nothing over: the foul term only.
    assert reward(outcome(shooter=0, fouled=True, next_shooter=1), 0) == -1.0
    assert reward(outcome(shooter=0, fouled=True, next_shooter=1), 1) == 0.0


def test_a_won_rack_is_the_winners_gain_and_the_losers_loss():
    won = outcome(shooter=1, pocketed_legally=(9,), winner=1)
    assert reward_terms(won, 1)["rack_won"] == 1.0 and reward_terms(won, 1)["rack_lost"] == 0.0
    assert reward_terms(won, 0)["rack_won"] == 0.0 and reward_terms(won, 0)["rack_lost"] == 1.0
    assert reward(won, 1) == DEFAULTS.legal_pot + DEFAULTS.rack_won == 11.0
    assert reward(won, 0) == DEFAULTS.rack_lost == -10.0
    # Won on the opponent's foul: the winner did not shoot.
    lost_on_a_foul = outcome(shooter=0, fouled=True, next_shooter=None, winner=1)
    assert reward(lost_on_a_foul, 1, rack_won=3.0) == 3.0
    assert reward(lost_on_a_foul, 0, rack_lost=-3.0, foul=0.0) == -3.0


def test_points_are_the_agents_minus_the_opponents():
    scored = outcome(shooter=0, pocketed_legally=(4,), points=(1, 0))
    assert reward_terms(scored, 0)["points"] == 1.0 and reward_terms(scored, 1)["points"] == -1.0
    penalised = outcome(shooter=1, fouled=True, next_shooter=0, points=(0, -2))
    assert reward_terms(penalised, 0)["points"] == 2.0 and reward_terms(penalised, 1)["points"] == -2.0


def test_a_legal_shot_counts_for_its_shooter_only():
    safe = outcome(shooter=1, next_shooter=0)
    assert reward_terms(safe, 1)["legal_shot"] == 1.0 and reward_terms(safe, 0)["legal_shot"] == 0.0
    assert reward_terms(outcome(shooter=1, fouled=True), 1)["legal_shot"] == 0.0


def test_in_solo_play_every_shot_is_the_agents_and_concedes_nothing():
    foul = outcome(shooter=1, fouled=True, next_shooter=0, in_hand=CueBallZone.ANYWHERE)
    terms = reward_terms(foul, 0, solo=True)
    assert terms["foul"] == 1.0 and terms["ball_in_hand_conceded"] == 0.0
    assert reward_terms(outcome(shooter=1, pocketed_legally=(2,)), 0, solo=True)["legal_pot"] == 1.0
    won = outcome(shooter=0, pocketed_legally=(9,), winner=0)
    assert reward_terms(won, 0, solo=True)["rack_won"] == 1.0


def _by_rule(outcomes, agent: int, w: RewardWeights) -> float:
    """A step's reward from its outcomes by the rules of ``RewardWeights``' docstring."""
    total = 0.0
    for o in outcomes:
        mine = o.shooter == agent
        in_hand = o.cue_ball_in_hand is not CueBallZone.NONE
        total += w.legal_pot * len(o.pocketed_legally) * mine
        total += w.foul * (mine and bool(o.fouls))
        total += w.ball_in_hand_conceded * (mine and in_hand and o.next_shooter != agent)
        total += w.ball_in_hand_gained * (not mine and in_hand and o.next_shooter == agent)
        total += w.rack_won * (o.winner == agent) + w.rack_lost * (o.winner == 1 - agent)
        total += w.points * (o.points[agent] - o.points[1 - agent])
        total += w.legal_shot * (mine and not o.fouls)
    return total


# Distinct powers of two: each term's part of a reward can be told apart.
WEIGHTS = dict(legal_pot=1.0, foul=-2.0, ball_in_hand_conceded=-4.0, ball_in_hand_gained=8.0, rack_won=16.0,
               rack_lost=-32.0, points=64.0, legal_shot=128.0)


@pytest.mark.parametrize("env_id", ["poolgym/NineBall-v1", "poolgym/StraightPool-v1"])
def test_every_steps_reward_follows_the_rules_from_its_outcomes(env_id):
    weights = RewardWeights(**WEIGHTS)
    # The choice mode's pot slots pot often enough for every common term to show.
    env = gym.make(env_id, reward_weights=WEIGHTS, opponent="legal-random", action_mode="choice_discrete")
    rng = np.random.default_rng(0)
    seen = set()
    for seed in range(3):
        env.reset(seed=seed)
        for _ in range(25):
            _, r, terminated, truncated, info = env.step(random_action(env, rng))
            assert r == pytest.approx(_by_rule(info["outcomes"], 0, weights), abs=1e-9)
            seen.update(name for name, value in info["reward_terms"].items() if value)
            if terminated or truncated:
                break
    env.close()
    assert {"legal_pot", "foul", "ball_in_hand_conceded", "ball_in_hand_gained", "legal_shot"} <= seen


@pytest.mark.parametrize("weights, name", [({"legal_pot": 1.0e308}, "legal_pot"),
                                           ({"rack_lost": -1.0e7}, "rack_lost")])
def test_reward_weights_beyond_the_bound_are_refused_naming_the_field(weights, name):
    with pytest.raises(ValueError, match=rf"^reward weight '{name}' must lie from -1e\+06 to 1e\+06, so that every "
                                         rf"reward is finite, got -?1e\+(308|07)$"):
        gym.make("poolgym/NineBall-v1", reward_weights=weights)


def test_a_variant_file_with_a_weight_beyond_the_bound_names_the_file(tmp_path):
    import poolgym

    path = tmp_path / "huge.yaml"
    path.write_text("id: rewards/Huge-v0\ngame: nine_ball\nreward:\n  legal_pot: 1.0e+308\n")
    with pytest.raises(ValueError, match=rf"^{path}: reward weight 'legal_pot' must lie from -1e\+06 to 1e\+06"):
        poolgym.register_from_yaml(path)


def test_rewards_at_the_bound_stay_finite():
    """Every weight at the bound, either sign, over played steps of 14.1 (points) and 9-ball."""
    for sign in (1.0, -1.0):
        weights = {name: sign * BOUND for name in WEIGHTS} | {"shaping": BOUND}
        for env_id in ("poolgym/StraightPool-v1", "poolgym/NineBall-v1"):
            env = gym.make(env_id, reward_weights=weights, opponent="legal-random")
            rng = np.random.default_rng(1)
            env.reset(seed=2)
            for _ in range(10):
                _, r, terminated, truncated, _ = env.step(random_action(env, rng))
                assert math.isfinite(r)
                if terminated or truncated:
                    break
            env.close()
