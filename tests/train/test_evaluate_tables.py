"""``evaluate(..., num_envs=N)``: a network's episodes played on the batched env's tables,
one policy call for all of them, are those one env plays, episode for episode."""

import gymnasium as gym
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

import poolgym  # noqa: F401  (registers the ids)
from poolgym.agents.evaluation import policy_eval
from poolgym.agents.evaluation.policy_eval import evaluate
from poolgym.agents.pretrained import pretrained_model
from poolgym.envs.opponents import SB3Policy
from poolgym.envs.seeded_tables import tables_like

NINE = {"obs_mode": "flat", "action_mode": "choice_discrete", "opponent": "legal-random"}
CHOICE = {"obs_mode": "flat", "action_mode": "choice_discrete"}
AIM = {"obs_mode": "flat", "action_mode": "aim"}


def _fresh(algorithm, env_id: str, kwargs: dict, seed: int) -> SB3Policy:
    """An untrained network for the env (deterministic actions)."""
    env = gym.make(env_id, **kwargs)
    try:
        return SB3Policy(algorithm("MlpPolicy", env, seed=seed, policy_kwargs={"net_arch": [32, 32]}))
    finally:
        env.close()


def _rows_one_by_one(policy, env_id: str, kwargs: dict, seeds: range) -> list:
    env = gym.make(env_id, **kwargs)
    try:
        return [policy_eval._episode(env, policy, s) for s in seeds]
    finally:
        env.close()


def _rows_on_tables(policy, env_id: str, kwargs: dict, seeds: range, num_envs: int) -> list:
    env = gym.make(env_id, **kwargs)
    tables = tables_like(env, num_envs)
    try:
        return policy_eval._episodes_on_tables(tables, policy, seeds)
    finally:
        env.close()
        tables.close()


@pytest.mark.parametrize("algorithm, env_id, kwargs, seeds, num_envs", [
    (MaskablePPO, "poolgym/NineBall-v1", NINE, range(300, 330), 7),
    (MaskablePPO, "poolgym/NineBall-v1", {**NINE, "opponent": "fixed"}, range(5, 25), 16),
    (MaskablePPO, "poolgym/PotBall-v1", CHOICE, range(50, 90), 6),
    (MaskablePPO, "poolgym/NineBallSolo-v1", CHOICE, range(0, 12), 4),
])
def test_a_networks_episodes_on_the_tables_are_those_of_one_env(algorithm, env_id, kwargs, seeds, num_envs):
    policy = _fresh(algorithm, env_id, kwargs, seed=seeds.start)
    one = _rows_one_by_one(policy, env_id, kwargs, seeds)
    assert _rows_on_tables(policy, env_id, kwargs, seeds, num_envs) == one
    # Episodes that end differently (in the games, after different numbers of steps, so the
    # tables finish out of seed order).
    assert len({row[1:4] for row in one}) > 1


def test_the_shipped_network_scores_the_same_on_the_tables_as_in_one_env():
    kwargs = {"obs_mode": "flat", "action_mode": "choice_canonical", "lookahead": True, "lookahead_samples": 8,
              "opponent": "legal-random"}
    policy = SB3Policy(pretrained_model("nine_ball"), algorithm="MaskablePPO")
    one = evaluate(policy, "poolgym/NineBall-v1", kwargs, episodes=12, seed=2024)
    assert evaluate(policy, "poolgym/NineBall-v1", kwargs, episodes=12, seed=2024, num_envs=5) == one
    rows = _rows_on_tables(policy, "poolgym/NineBall-v1", kwargs, range(2024, 2036), 5)
    assert rows == _rows_one_by_one(policy, "poolgym/NineBall-v1", kwargs, range(2024, 2036))
    assert len({row[3] for row in rows}) > 1


def test_policies_that_do_not_batch_and_ids_without_tables_play_one_env(monkeypatch):
    played_on_tables = []
    original = policy_eval._episodes_on_tables
    monkeypatch.setattr(policy_eval, "_episodes_on_tables",
                        lambda *a: played_on_tables.append(a[1]) or original(*a))
    # A ladder agent draws from one generator across episodes, a sampling network from
    # torch's; a continuous action carries the batched product's rounding into the stroke.
    sampling = _fresh(MaskablePPO, "poolgym/NineBall-v1", NINE, 1)
    sampling.deterministic = False
    aiming = _fresh(PPO, "poolgym/PotBall-v1", AIM, 1)
    assert not (sampling.batchable or aiming.batchable)
    for agent, env_id, kwargs in (("legal-random", "poolgym/NineBall-v1", NINE),
                                  (sampling, "poolgym/NineBall-v1", NINE), (aiming, "poolgym/PotBall-v1", AIM)):
        evaluate(agent, env_id, kwargs, episodes=3, seed=1, num_envs=3)
    nine = gym.registry["poolgym/NineBall-v1"]
    gym.register("test/NoTables-v0", entry_point=nine.entry_point, kwargs=nine.kwargs,
                 max_episode_steps=nine.max_episode_steps)
    try:
        network = _fresh(MaskablePPO, "poolgym/NineBall-v1", NINE, 2)
        alone = evaluate(network, "test/NoTables-v0", NINE, episodes=4, seed=8, num_envs=4)
    finally:
        del gym.registry["test/NoTables-v0"]
    assert played_on_tables == []
    assert alone == evaluate(network, "poolgym/NineBall-v1", NINE, episodes=4, seed=8, num_envs=4)
    assert played_on_tables == [network]


@pytest.mark.parametrize("num_envs", [0, -2, 2.5, True])
def test_a_bad_num_envs_is_refused_in_one_line(num_envs):
    with pytest.raises(ValueError, match="num_envs must be"):
        evaluate("legal-random", "poolgym/NineBall-v1", NINE, episodes=2, num_envs=num_envs)


def test_act_batch_gives_each_row_the_action_it_gets_alone():
    env = gym.make_vec("poolgym/NineBall-v1", num_envs=9, **NINE)
    policy = _fresh(MaskablePPO, "poolgym/NineBall-v1", NINE, 3)
    obs, _ = env.reset(seed=70)
    for _ in range(6):
        masks = env.action_masks()
        batch = policy.act_batch(obs, masks)
        alone = [policy(obs[i], {"action_masks": masks[i]}) for i in range(9)]
        assert np.array_equal(batch, np.stack(alone))
        obs, *_ = env.step(batch)
    env.close()
    with pytest.raises(ValueError, match="masks"):
        policy.act_batch(obs)
    unmasked = _fresh(PPO, "poolgym/NineBall-v1", NINE, 4)  # discrete actions, the masks not read
    assert unmasked.batchable
    assert np.array_equal(unmasked.act_batch(obs), np.stack([unmasked(row, {}) for row in obs]))
