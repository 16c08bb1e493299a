"""Offline RL from a Minari dataset: discrete conservative Q-learning (``algorithm: CQL`` in a
training config), with TorchRL's ``DiscreteCQLLoss`` (the ``offline`` extra).

CQL (Kumar et al. 2020, https://arxiv.org/abs/2006.04779) fits Q-values by temporal
differences on the recorded transitions and adds ``logsumexp_a Q(s, a) - Q(s, a_data)``,
which keeps the values of moves the data never took from rising above those it took.

The network is the one behaviour cloning trains in ``choice_canonical`` (MaskablePPO's
policy, ``policy`` and ``policy_kwargs`` as in a BC config): its action logits are read as
Q-values. Every option the recorded mask did not offer is masked out of the Q-values
(TorchRL's ``action_mask_key``), so the conservative term's ``logsumexp`` and the
bootstrapped ``max_a Q(s', a)`` run over the offered options only. The model is saved as a
MaskablePPO model, so ``poolgym eval``, ``baselines`` and ``rate`` play it like any other:
played deterministically, it takes the offered option of highest Q (the env refuses the
others).

The ``imitation`` section says where the data comes from, as for BC, plus two keys::

    imitation:
      dataset: poolgym/nine-ball/lookahead-greedy-300-v0
      batch_size: 256
      learning_rate: 0.0003          # Adam, on the whole network
      validation_share: 0.1
      cql_alpha: 1.0                 # weight of the conservative term
      target_update: 0.005           # the target network's soft-update rate per minibatch

The discount is ``hyperparameters.gamma``; the budget (``total_steps``) counts training
samples (minibatch rows), as for BC.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np


@dataclass(frozen=True)
class Transitions:
    """Every recorded step of a dataset: ``observations`` and ``next_observations`` (n, ...),
    ``actions`` (n,), ``rewards`` (n,), ``terminated`` (n,; the game ended with that step, so
    nothing is bootstrapped after it), ``masks`` and ``next_masks`` (n, options; what each
    state offered) and the episode each row came from."""

    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    next_observations: np.ndarray
    terminated: np.ndarray
    masks: np.ndarray
    next_masks: np.ndarray
    episodes: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)

    def rows(self, keep: np.ndarray) -> "Transitions":
        return Transitions(*(getattr(self, name)[keep] for name in self.__dataclass_fields__))

    def decisions(self):
        """The rows as behaviour cloning's ``ImitationData`` (for ``bc.fit_report``)."""
        from poolgym.agents.datasets.bc import ImitationData

        return ImitationData(self.observations, self.actions.reshape(-1), self.masks, self.episodes)


def require_torchrl():
    """TorchRL's module, or ``ValueError`` saying how to install it (as ``require_minari``).
    Importing TorchRL sets the process's multiprocessing start method to "spawn"; it is put
    back as it was, since a spawned worker has not imported poolgym and so cannot make a
    registered id (Gymnasium's async vector envs, SB3's SubprocVecEnv)."""
    import multiprocessing

    start_method = multiprocessing.get_start_method(allow_none=True)
    try:
        import torchrl
        from torchrl.objectives import DiscreteCQLLoss  # noqa: F401
    except ImportError:
        raise ValueError("algorithm CQL needs TorchRL: pip install 'poolgym[offline]'") from None
    finally:
        multiprocessing.set_start_method(start_method, force=True)
    return torchrl


def load_transitions(dataset_id: str | Sequence[str], observation_space, action_space,
                     mapping: dict | None = None) -> Transitions:
    """The transitions of a dataset, or of several read together (episodes numbered in turn),
    read through ``poolgym.agents.datasets.checks`` and checked against the network's spaces
    and, when given, the training env's ``mapping`` (as ``bc.load_imitation_data`` does).
    ``ValueError`` names the dataset when its actions are not ``Discrete`` (``choice_canonical``)
    or it records no ``action_masks``."""
    from gymnasium import spaces

    from poolgym.agents.datasets.bc import checked_datasets
    from poolgym.agents.datasets.collect import require_minari

    require_minari()
    if not isinstance(action_space, spaces.Discrete):
        raise ValueError(f"algorithm CQL needs Discrete actions (action_mode choice_canonical), "
                         f"got {action_space}")
    columns: dict[str, list] = {name: [] for name in Transitions.__dataclass_fields__}
    first = 0
    for name, dataset in checked_datasets(dataset_id, observation_space, action_space, mapping):
        for episode in dataset.episodes():  # each checked as it is read
            if episode.masks is None:
                raise ValueError(f"imitation.dataset {name!r} records no action_masks (collect it in "
                                 f"choice_canonical with poolgym collect)")
            n = len(episode.actions)
            observations = np.asarray(episode.observations)
            masks = np.asarray(episode.masks, dtype=bool)
            columns["observations"].append(observations[:n])
            columns["next_observations"].append(observations[1:])
            columns["masks"].append(masks[:n])
            columns["next_masks"].append(masks[1:])
            columns["actions"].append(np.asarray(episode.actions, dtype=np.int64).reshape(n))
            columns["rewards"].append(np.asarray(episode.rewards, dtype=np.float32))
            columns["terminated"].append(np.asarray(episode.terminations, dtype=bool))
            columns["episodes"].append(np.full(n, first + episode.id))
        first += dataset.total_episodes
    if not columns["actions"]:
        raise ValueError(f"imitation.dataset {dataset_id!r} holds no episodes; collect some with poolgym collect")
    return Transitions(**{name: np.concatenate(parts) for name, parts in columns.items()})


def q_network(policy):
    """The ``torch.nn.Module`` reading a MaskablePPO ``policy``'s action logits as Q-values
    (observation -> one value per option); it shares the policy's parameters."""
    import torch

    class PolicyQValues(torch.nn.Module):
        def __init__(self, policy) -> None:
            super().__init__()
            self.policy = policy

        def forward(self, observation: torch.Tensor) -> torch.Tensor:
            features = self.policy.extract_features(observation, self.policy.pi_features_extractor)
            return self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))

    return PolicyQValues(policy)


def _batch(data: Transitions, device):
    """A TensorDict of ``data``'s rows in the keys TorchRL's losses read."""
    import torch
    from tensordict import TensorDict

    def tensor(array, dtype=None):
        return torch.as_tensor(array, dtype=dtype, device=device)

    n = len(data)
    terminated = tensor(data.terminated).reshape(n, 1)
    return TensorDict({
        "observation": tensor(data.observations, torch.float32),
        "action_mask": tensor(data.masks),
        "action": tensor(data.actions),
        ("next", "observation"): tensor(data.next_observations, torch.float32),
        # A final state that offers nothing would leave the max no option; such a state ends
        # the game (terminated), so what the max reads there is multiplied by zero.
        ("next", "action_mask"): tensor(data.next_masks | ~data.next_masks.any(axis=1, keepdims=True)),
        ("next", "reward"): tensor(data.rewards, torch.float32).reshape(n, 1),
        ("next", "terminated"): terminated,
        ("next", "done"): terminated,
    }, batch_size=[n])


class CQL:
    """Discrete CQL on a MaskablePPO ``policy`` (module docstring): ``loss(data)`` for rows of
    ``Transitions`` and ``step(data)`` for one Adam step and one soft target update."""

    def __init__(self, policy, gamma: float, alpha: float, learning_rate: float, target_update: float) -> None:
        import torch

        require_torchrl()
        from torchrl.modules import QValueActor
        from torchrl.objectives import DiscreteCQLLoss, SoftUpdate

        self.policy = policy
        self.alpha = alpha
        actor = QValueActor(q_network(policy), in_keys=["observation"], action_space="categorical",
                            action_mask_key="action_mask")
        self.loss_module = DiscreteCQLLoss(actor, action_space="categorical", delay_value=True)
        self.loss_module.make_value_estimator(gamma=gamma)
        self.target = SoftUpdate(self.loss_module, tau=target_update)
        self.optimiser = torch.optim.Adam(policy.parameters(), lr=learning_rate)

    def loss(self, data: Transitions) -> dict:
        """The loss terms on ``data`` (torch scalars): ``td`` (TorchRL's ``loss_qvalue``), ``cql``
        (the conservative term) and ``total`` = td + alpha * cql."""
        out = self.loss_module(_batch(data, self.policy.device))
        td, cql = out["loss_qvalue"], out["loss_cql"]
        return {"td": td, "cql": cql, "total": td + self.alpha * cql}

    def step(self, data: Transitions) -> dict:
        terms = self.loss(data)
        self.optimiser.zero_grad()
        terms["total"].backward()
        self.optimiser.step()
        self.target.step()
        return {name: float(value.detach()) for name, value in terms.items()}


def fit(policy, data: Transitions, samples: int, batch_size: int, learning_rate: float, seed: int,
        gamma: float, alpha: float, target_update: float, every: int = 0,
        on_point: Callable[[int], None] | None = None) -> tuple[int, list[dict]]:
    """Train ``policy`` by discrete CQL for ``samples`` rows of ``data`` in shuffled minibatches
    of at most ``batch_size`` (reshuffled each pass), ``on_point(samples_seen)`` every
    ``every`` samples. Returns the samples seen and the mean loss terms over each stretch of
    the run: between points, or without points over each tenth of the budget."""
    import torch

    if len(data) == 0:
        raise ValueError("the offline dataset has no transitions to learn from")
    torch.manual_seed(seed)
    learner = CQL(policy, gamma, alpha, learning_rate, target_update)
    rng = np.random.default_rng(seed)
    policy.set_training_mode(True)
    seen, next_point, order = 0, every, np.empty(0, dtype=np.int64)
    stretch = every if every > 0 else max(1, samples // 10)
    next_report = stretch
    losses: list[dict] = []
    window: list[dict] = []

    def close_window() -> None:
        if window:
            losses.append({"samples": seen, **{k: float(np.mean([w[k] for w in window])) for k in window[0]}})
            window.clear()
    while seen < samples:
        take = min(batch_size, samples - seen, next_point - seen if every > 0 else batch_size)
        while len(order) < take:
            order = np.concatenate([order, rng.permutation(len(data))])
        batch, order = order[:take], order[take:]
        window.append(learner.step(data.rows(batch)))
        seen += take
        if seen >= next_report:
            next_report += stretch
            close_window()
        if every > 0 and seen >= next_point:
            next_point += every
            if on_point is not None:
                policy.set_training_mode(False)
                on_point(seen)
                policy.set_training_mode(True)
    close_window()
    policy.set_training_mode(False)
    return seen, losses
