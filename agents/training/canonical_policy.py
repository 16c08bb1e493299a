"""``CanonicalPolicy``: MaskablePPO's policy for ``choice_canonical`` with the lookahead
observation (``policy: CanonicalPolicy`` in a training config).

In ``choice_canonical`` the first 36 options are the strokes the lookahead entry foresees
(``poolgym.envs.canonical``), so each of them has its own features: what the stroke leaves
(its seven lookahead values), the pot it plays (its slot's candidate features) and which
stroke it is. One small network, shared by all 36, scores each from those features alone:
an afterstate value over simulated outcomes in the manner of TD-Gammon (Tesauro 1995), which
learns one rule for every pot and stroke instead of 36 separate ones. A stroke's logit is
its score plus a linear read of the policy MLP over the whole observation; every other
option's logit (safeties, breaks, decisions, the other pots) is that read alone. The value
MLP sees the observation and the 36 scores.
"""

from __future__ import annotations

from functools import partial

import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from poolgym.envs import candidates as cand
from poolgym.envs import lookahead as la
from poolgym.envs.canonical import N_POT_STROKES
from poolgym.envs.observations import flat_entries

# The shared stroke scorer's hidden layers.
SCORER_LAYERS = (64, 64)
# A stroke as the scorer sees it: which of the three speeds and which of the three tip heights.
_SPEEDS = sorted({s for s, _ in la.STROKES})
_VERTICALS = sorted({v for _, v in la.STROKES})


def _mlp(sizes: list[int], activation: type[nn.Module]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes, sizes[1:]):
        layers += [nn.Linear(a, b), activation()]
    return nn.Sequential(*layers)


class StrokeScorer(nn.Module):
    """The score of each foreseen stroke (batch, 36) from a flat observation, one network
    shared by all of them (module docstring)."""

    def __init__(self, observation_size: int, activation: type[nn.Module]) -> None:
        super().__init__()
        entries = flat_entries(observation_size)
        if "lookahead" not in entries or "candidates" not in entries:
            raise ValueError("CanonicalPolicy needs the flat observation of a choice mode with lookahead=True "
                             f"(its size {observation_size} is not one)")
        self.lookahead_at = entries["lookahead"][0]
        self.candidates_at = entries["candidates"][0]
        strokes = th.zeros(len(la.STROKES), len(_SPEEDS) + len(_VERTICALS))
        for j, (speed, vertical) in enumerate(la.STROKES):
            strokes[j, _SPEEDS.index(speed)] = 1.0
            strokes[j, len(_SPEEDS) + _VERTICALS.index(vertical)] = 1.0
        self.register_buffer("strokes", strokes)
        width = la.N_FEATURES + cand.N_FEATURES + strokes.shape[1]
        self.net = nn.Sequential(_mlp([width, *SCORER_LAYERS], activation), nn.Linear(SCORER_LAYERS[-1], 1))

    def forward(self, obs: th.Tensor) -> th.Tensor:
        n, slots, strokes = obs.shape[0], la.LOOKAHEAD_SLOTS, len(la.STROKES)
        foreseen = obs[:, self.lookahead_at:self.lookahead_at + la.SIZE].reshape(n, slots, strokes, la.N_FEATURES)
        pots = obs[:, self.candidates_at:self.candidates_at + cand.N_SLOTS * cand.N_FEATURES]
        pots = pots.reshape(n, cand.N_SLOTS, cand.N_FEATURES)[:, :slots, None, :].expand(n, slots, strokes, -1)
        which = self.strokes[None, None].expand(n, slots, strokes, -1)
        return self.net(th.cat([foreseen, pots, which], dim=-1)).reshape(n, N_POT_STROKES)


class _Extractor(nn.Module):
    """The policy and value latents: the policy MLP's output with the 36 stroke scores
    after it, and the value MLP over the observation and those scores."""

    def __init__(self, observation_size: int, net_arch, activation: type[nn.Module]) -> None:
        super().__init__()
        pi, vf = (net_arch.get("pi", []), net_arch.get("vf", [])) if isinstance(net_arch, dict) else (net_arch, net_arch)
        self.scorer = StrokeScorer(observation_size, activation)
        self.policy_net = _mlp([observation_size, *pi], activation)
        self.value_net = _mlp([observation_size + N_POT_STROKES, *vf], activation)
        self.hidden_dim_pi = pi[-1] if pi else observation_size
        self.latent_dim_pi = self.hidden_dim_pi + N_POT_STROKES
        self.latent_dim_vf = vf[-1] if vf else observation_size + N_POT_STROKES

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        scores = self.scorer(features)
        return (th.cat([self.policy_net(features), scores], dim=1),
                self.value_net(th.cat([features, scores], dim=1)))

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return th.cat([self.policy_net(features), self.scorer(features)], dim=1)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(th.cat([features, self.scorer(features)], dim=1))


class _OptionLogits(nn.Module):
    """Every option's logit: a linear read of the policy latent, plus, for the 36
    foreseen strokes, their scores."""

    def __init__(self, hidden: int, options: int) -> None:
        super().__init__()
        self.hidden = hidden
        self.read = nn.Linear(hidden, options)

    def forward(self, latent: th.Tensor) -> th.Tensor:
        logits = self.read(latent[:, :self.hidden])
        scores = latent[:, self.hidden:]
        return th.cat([logits[:, :N_POT_STROKES] + scores, logits[:, N_POT_STROKES:]], dim=1)


class CanonicalPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's actor-critic with the shared stroke scorer (module docstring); it takes
    ``MaskableActorCriticPolicy``'s arguments (``net_arch`` shapes the policy and value
    MLPs) and needs ``choice_canonical``'s ``Discrete`` actions and a flat observation with
    the lookahead entry."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, *args, **kwargs) -> None:
        if not isinstance(action_space, spaces.Discrete) or action_space.n <= N_POT_STROKES:
            raise ValueError(f"CanonicalPolicy acts in action_mode 'choice_canonical' (a Discrete of options), "
                             f"not {action_space}")
        if not isinstance(observation_space, spaces.Box) or len(observation_space.shape) != 1:
            raise ValueError(f"CanonicalPolicy reads the flat observation (obs_mode 'flat'), not {observation_space}")
        super().__init__(observation_space, action_space, *args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _Extractor(self.features_dim, self.net_arch, self.activation_fn)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        # The options' logits read the latent as the module docstring says, not as one Linear.
        self.action_net = _OptionLogits(self.mlp_extractor.hidden_dim_pi, int(self.action_space.n))
        if self.ortho_init:
            self.action_net.apply(partial(self.init_weights, gain=0.01))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)


# The policies a training config may name beside SB3's own (``policy: ...``).
POLICIES = {"CanonicalPolicy": CanonicalPolicy}


def policy_class(name: str):
    """What a config's ``policy`` names: one of ``POLICIES``, else SB3's own name as it is."""
    return POLICIES.get(name, name)

