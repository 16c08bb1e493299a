"""sb3-contrib's masked MultiDiscrete distribution, computed for all dimensions at once.

``MaskableMultiCategoricalDistribution`` builds one torch ``Categorical`` per action
dimension, twice per policy call (once from the logits, once more from the masked logits),
each normalising and checking its own slice. On the choice modes' eight dimensions that
bookkeeping costs more than the network: about 1 ms of every rollout call on a batch of
eight, and half the distribution's share of each minibatch update.
``PaddedMaskableMultiCategorical`` is the same distribution with the dimensions padded to
one ``(batch, dimensions, widest)`` tensor: one masking, one log-softmax (taken when first
read, so the unmasked logits are not normalised for nothing before a masking), one gather. The
masked logits are sb3-contrib's (-1e8 where the mask is False), the padding's are far below
them, so probabilities, log-probabilities, entropies and modes are sb3-contrib's up to
float rounding, and samples are the actions sb3-contrib draws from the same generator
(``sample``: all dimensions' draws in one call).

Training installs it on the policy (``use_padded_distribution``); a saved model keeps
sb3-contrib's own, which SB3 builds again on loading (the distribution holds no weights).
"""

from __future__ import annotations

import torch as th
from sb3_contrib.common.maskable.distributions import MaskableMultiCategoricalDistribution

# sb3-contrib's logit for a masked choice.
MASKED_LOGIT = -1e8
# The logit of a padding slot: below a masked choice, so that a dimension whose choices are
# all masked is uniform over its own choices, as in sb3-contrib.
PADDING_LOGIT = -1e9


class PaddedMaskableMultiCategorical(MaskableMultiCategoricalDistribution):
    """``MaskableMultiCategoricalDistribution`` over ``action_dims``, all dimensions in one
    padded tensor (module docstring)."""

    def __init__(self, action_dims: list[int]) -> None:
        super().__init__([int(n) for n in action_dims])
        self.width = max(self.action_dims)
        # Where each flat logit goes in the padded (dimension, choice) layout.
        self._slots = th.tensor([d * self.width + i for d, n in enumerate(self.action_dims) for i in range(n)])
        self._padding = th.ones(len(self.action_dims) * self.width, dtype=th.bool)
        self._padding[self._slots] = False
        self._logits: th.Tensor | None = None  # padded, unmasked
        self._masked: th.Tensor | None = None  # padded, as last masked
        self._log_probs: th.Tensor | None = None  # of ``_masked``, once read
        self._orders: dict[int, th.Tensor] = {}  # ``_draw_order`` by batch size

    def proba_distribution(self, action_logits: th.Tensor) -> "PaddedMaskableMultiCategorical":
        flat = action_logits.reshape(-1, sum(self.action_dims))
        padded = flat.new_full((flat.shape[0], self._padding.numel()), PADDING_LOGIT)
        padded[:, self._slots] = flat
        self._logits = padded
        self._masked = padded
        self._log_probs = None
        return self

    def apply_masking(self, masks) -> None:
        """Masked choices get sb3-contrib's logit; None restores the unmasked logits."""
        if self._logits is None:
            raise RuntimeError("apply_masking before proba_distribution: the distribution has no logits")
        self._log_probs = None
        if masks is None:
            self._masked = self._logits
            return
        flat = th.as_tensor(masks, dtype=th.bool).reshape(-1, sum(self.action_dims))
        keep = self._padding.repeat(flat.shape[0], 1)
        keep[:, self._slots] = flat
        self._masked = th.where(keep, self._logits, th.tensor(MASKED_LOGIT, dtype=self._logits.dtype))

    def _normalised(self) -> th.Tensor:
        """The log-probabilities, ``(batch, dimensions, widest)``, of the logits as last masked."""
        if self._log_probs is None:
            if self._masked is None:
                raise RuntimeError("the distribution has no logits: call proba_distribution first")
            shaped = self._masked.view(-1, len(self.action_dims), self.width)
            self._log_probs = shaped - shaped.logsumexp(-1, keepdim=True)
        return self._log_probs

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        chosen = actions.reshape(-1, len(self.action_dims)).long().unsqueeze(-1)
        return self._normalised().gather(2, chosen).squeeze(-1).sum(dim=1)

    def entropy(self) -> th.Tensor:
        # Masked and padding choices have probability 0 (exp underflows), so they add nothing.
        log_probs = self._normalised()
        return -(log_probs.exp() * log_probs).sum(dim=(1, 2))

    def sample(self) -> th.Tensor:
        # sb3-contrib draws ``multinomial(probs_d, 1)`` dimension by dimension, and torch draws
        # one sample as argmax(probs / q) with q exponential, filled row by row from the
        # global generator. Drawing every dimension's q in one call, in the same order, and
        # taking the argmax over the padded layout (padding: probability 0) picks the same
        # actions and leaves the generator where those calls leave it.
        probs = self._normalised().exp()
        batch = probs.shape[0]
        q = th.empty(batch * sum(self.action_dims) + 1, dtype=probs.dtype)
        q[:-1].exponential_()  # the draws; the last is what the padding divides by
        q[-1] = 1.0
        return (probs / q[self._draw_order(batch)]).argmax(dim=-1)

    def _draw_order(self, batch: int) -> th.Tensor:
        """For each padded (row, dimension, choice), the index of its exponential draw:
        dimension d's ``batch x n_d`` draws follow those of the dimensions before it, row by
        row; padding points at the last draw (set to 1)."""
        order = self._orders.get(batch)
        if order is None:
            dims, width = self.action_dims, self.width
            padding = batch * sum(dims)
            order = th.full((batch, len(dims), width), padding, dtype=th.long)
            start = 0
            for d, n in enumerate(dims):
                order[:, d, :n] = start + th.arange(batch * n).view(batch, n)
                start += batch * n
            self._orders[batch] = order
        return order

    def mode(self) -> th.Tensor:
        return self._normalised().argmax(dim=-1)


def use_padded_distribution(policy) -> None:
    """Give ``policy`` (an sb3-contrib ``MaskableActorCriticPolicy``) the padded form of its
    masked MultiDiscrete distribution; other policies (SB3's own, SAC's without a
    distribution) and distributions (a Discrete action space, a MultiBinary one) are left
    as they are."""
    if type(getattr(policy, "action_dist", None)) is MaskableMultiCategoricalDistribution:
        policy.action_dist = PaddedMaskableMultiCategorical(policy.action_dist.action_dims)
