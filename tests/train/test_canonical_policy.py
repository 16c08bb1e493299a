"""``CanonicalPolicy``: one scorer shared by the foreseen strokes, each scored from its own
features; it plays choice_canonical's masked options and saves and loads like any
MaskablePPO model."""

import gymnasium as gym
import numpy as np
import pytest
import torch

import poolgym  # noqa: F401  (registers the ids)
from poolgym.envs import candidates as cand
from poolgym.envs import lookahead as la
from poolgym.envs.canonical import N_POT_STROKES
from poolgym.envs.observations import flat_entries

from poolgym.agents.training.canonical_policy import CanonicalPolicy
from poolgym.agents.training.train_config import parse_config

KWARGS = {"action_mode": "choice_canonical", "obs_mode": "flat", "lookahead": True, "lookahead_samples": 2}


@pytest.fixture(scope="module")
def model_and_obs():
    from sb3_contrib import MaskablePPO

    env = gym.make("poolgym/NineBall-v1", opponent="bot:fast", **KWARGS)
    model = MaskablePPO(CanonicalPolicy, env, seed=0, device="cpu", n_steps=64, batch_size=32,
                        policy_kwargs={"net_arch": [32, 32]})
    observations = []
    for seed in range(12):
        obs, _ = env.reset(seed=seed)
        if not env.unwrapped.state.awaiting_break and not env.unwrapped.state.is_over:
            observations.append((obs, env.unwrapped.action_masks()))
    assert len(observations) >= 3
    return model, env, observations


def test_a_strokes_score_follows_its_own_features(model_and_obs):
    """Swapping two strokes' lookahead features (and slots' candidate features) swaps their
    scores: the scorer knows a stroke by its features and its stroke kind, not its place."""
    model, _, observations = model_and_obs
    scorer = model.policy.mlp_extractor.scorer
    obs = torch.as_tensor(np.stack([o for o, _ in observations]))
    at = flat_entries(obs.shape[1])["lookahead"][0]
    n = la.N_FEATURES
    swapped = obs.clone()
    # Strokes 0 and 9 are the same stroke (soft draw) on slots 0 and 1: swap their outcomes
    # and their slots' candidate features; the scores must swap.
    first, second = slice(at, at + n), slice(at + 9 * n, at + 10 * n)
    swapped[:, first], swapped[:, second] = obs[:, second], obs[:, first]
    cat = flat_entries(obs.shape[1])["candidates"][0]
    w = cand.N_FEATURES
    a, b = slice(cat, cat + w), slice(cat + w, cat + 2 * w)
    swapped[:, a], swapped[:, b] = obs[:, b], obs[:, a]
    # The other eight strokes of slots 0 and 1 move with their slots' candidate features.
    for j in range(1, 9):
        x, y = slice(at + j * n, at + (j + 1) * n), slice(at + (9 + j) * n, at + (10 + j) * n)
        swapped[:, x], swapped[:, y] = obs[:, y], obs[:, x]
    with torch.no_grad():
        before, after = scorer(obs), scorer(swapped)
    assert before.shape == (len(obs), N_POT_STROKES)
    torch.testing.assert_close(after[:, :9], before[:, 9:18])
    torch.testing.assert_close(after[:, 9:18], before[:, :9])
    torch.testing.assert_close(after[:, 18:], before[:, 18:])
    # A stroke's own outcome moves its score alone.
    nudged = obs.clone()
    nudged[:, at + 5 * n + la.FEATURES.index("next_make")] += 0.5
    with torch.no_grad():
        moved = scorer(nudged) - before
    assert torch.all(moved[:, 5].abs() > 0) and torch.all(moved[:, [k for k in range(36) if k != 5]] == 0)


def test_it_plays_masked_options_and_saves_and_loads(model_and_obs, tmp_path):
    from sb3_contrib import MaskablePPO

    model, env, observations = model_and_obs
    for obs, masks in observations:
        action, _ = model.predict(obs, deterministic=True, action_masks=masks)
        assert masks[int(action)]
    model.learn(64)
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert isinstance(loaded.policy, CanonicalPolicy)
    for obs, masks in observations:
        assert model.predict(obs, deterministic=True, action_masks=masks)[0] == \
            loaded.predict(obs, deterministic=True, action_masks=masks)[0]


def test_it_refuses_spaces_it_cannot_read():
    from sb3_contrib import MaskablePPO

    discrete = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", obs_mode="flat", lookahead=True)
    with pytest.raises(ValueError, match="acts in action_mode 'choice_canonical'"):
        MaskablePPO(CanonicalPolicy, discrete, device="cpu")
    blind = gym.make("poolgym/NineBall-v1", action_mode="choice_canonical", obs_mode="flat")
    with pytest.raises(ValueError, match="needs the flat observation of a choice mode with lookahead=True"):
        MaskablePPO(CanonicalPolicy, blind, device="cpu")


@pytest.mark.parametrize("kwargs, message", [
    ({**KWARGS, "action_mode": "choice_discrete"}, "policy CanonicalPolicy needs key 'env.kwargs'"),
    ({**KWARGS, "lookahead": False}, "policy CanonicalPolicy needs key 'env.kwargs'"),
    ({**KWARGS, "obs_mode": "dict"}, "policy CanonicalPolicy needs key 'env.kwargs'"),
])
def test_a_config_naming_it_is_checked(kwargs, message):
    config = {"env": {"id": "poolgym/NineBall-v1", "kwargs": kwargs}, "algorithm": "MaskablePPO",
              "policy": "CanonicalPolicy", "total_steps": 100}
    with pytest.raises(ValueError, match=message):
        parse_config(config)
    parse_config({**config, "env": {"id": "poolgym/NineBall-v1", "kwargs": KWARGS}})
    with pytest.raises(ValueError, match="key 'policy' must be one of"):
        parse_config({**config, "policy": "pkg.mod:Policy"})
