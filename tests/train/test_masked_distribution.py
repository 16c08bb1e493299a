"""``PaddedMaskableMultiCategorical`` against sb3-contrib's ``MaskableMultiCategoricalDistribution``
on the choice mode's action dimensions: the same values, gradients, modes and samples."""

from __future__ import annotations

import numpy as np
import pytest
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableMultiCategoricalDistribution

from poolgym.agents.training.masked_distribution import PaddedMaskableMultiCategorical, use_padded_distribution

DIMS = [20, 11, 10, 5, 5, 5, 7, 11]  # NineBall-v1's choice_discrete action space
BATCH = 64


def _masks(rng, all_masked_dim: int | None = None) -> np.ndarray:
    masks = rng.random((BATCH, sum(DIMS))) < 0.5
    starts = np.cumsum([0] + DIMS[:-1])
    for start, n in zip(starts, DIMS):
        masks[np.arange(BATCH), start + rng.integers(0, n, size=BATCH)] = True  # one allowed choice at least
    if all_masked_dim is not None:
        masks[:, starts[all_masked_dim]:starts[all_masked_dim] + DIMS[all_masked_dim]] = False
    return masks


def _pair(logits, masks):
    stock, padded = MaskableMultiCategoricalDistribution(DIMS), PaddedMaskableMultiCategorical(DIMS)
    for dist in (stock, padded):
        dist.proba_distribution(logits)
        dist.apply_masking(masks)
    return stock, padded


@pytest.mark.parametrize("all_masked_dim", [None, 3])
def test_log_probs_entropies_modes_and_gradients_are_sb3_contribs(all_masked_dim):
    rng = np.random.default_rng(0)
    logits = th.randn(BATCH, sum(DIMS), generator=th.Generator().manual_seed(0), requires_grad=True)
    masks = _masks(rng, all_masked_dim)
    stock, padded = _pair(logits, masks)
    actions = stock.sample()
    assert th.allclose(padded.log_prob(actions), stock.log_prob(actions), atol=1e-5)
    assert th.allclose(padded.entropy(), stock.entropy(), atol=1e-5)
    assert th.equal(padded.mode(), stock.mode())
    grads = [th.autograd.grad(d.log_prob(actions).sum() + d.entropy().sum(), logits)[0] for d in (stock, padded)]
    assert th.allclose(grads[0], grads[1], atol=1e-5)


@pytest.mark.parametrize("batch", [1, 8, BATCH])
@pytest.mark.parametrize("all_masked_dim", [None, 3])
def test_samples_are_drawn_as_sb3_contrib_draws_them_and_only_allowed_choices(batch, all_masked_dim):
    """The same actions from the same generator, and the generator left where sb3-contrib's
    draws leave it, at the batch sizes of a rollout (8 envs), a single prediction and more."""
    rng = np.random.default_rng(batch)
    logits = th.randn(batch, sum(DIMS), generator=th.Generator().manual_seed(batch))
    masks = _masks(rng, all_masked_dim)[:batch]
    stock, padded = _pair(logits, masks)
    for seed in range(3):
        th.manual_seed(seed)
        expected, after_stock = stock.sample(), th.rand(4)
        th.manual_seed(seed)
        drawn, after_padded = padded.sample(), th.rand(4)
        assert th.equal(drawn, expected) and th.equal(after_padded, after_stock)
    starts = np.cumsum([0] + DIMS[:-1])
    allowed = masks[np.arange(batch)[:, None], starts + drawn.numpy()]
    if all_masked_dim is not None:
        allowed[:, all_masked_dim] = True  # nothing allowed there: uniform, as sb3-contrib
    assert allowed.all()


def test_masks_none_restores_the_unmasked_distribution():
    logits = th.randn(BATCH, sum(DIMS), generator=th.Generator().manual_seed(2))
    stock, padded = _pair(logits, _masks(np.random.default_rng(2)))
    for dist in (stock, padded):
        dist.apply_masking(None)
    assert th.allclose(padded.entropy(), stock.entropy(), atol=1e-5)
    with pytest.raises(RuntimeError, match="proba_distribution"):
        PaddedMaskableMultiCategorical(DIMS).apply_masking(None)


def test_training_installs_it_on_multidiscrete_policies_only():
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import poolgym  # noqa: F401

    env = gym.make("poolgym/NineBall-v1", obs_mode="flat", action_mode="choice_discrete")
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, policy_kwargs={"net_arch": [8]})
    use_padded_distribution(model.policy)
    assert isinstance(model.policy.action_dist, PaddedMaskableMultiCategorical)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.action_space.contains(action)
    canonical = gym.make("poolgym/NineBall-v1", obs_mode="flat", action_mode="choice_canonical")
    other = MaskablePPO("MlpPolicy", canonical, n_steps=16, batch_size=16, policy_kwargs={"net_arch": [8]})
    before = other.policy.action_dist
    use_padded_distribution(other.policy)
    assert other.policy.action_dist is before
