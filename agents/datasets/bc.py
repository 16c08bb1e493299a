"""Behaviour cloning from a Minari dataset (``algorithm: BC`` in a training config).

The network trained is the policy of the algorithm that fine-tunes it
(``hyperparameters`` are that algorithm's, so ``policy_kwargs`` shape the same network):

- ``choice_discrete`` (``MultiDiscrete``) and ``choice_canonical`` (``Discrete``):
  MaskablePPO's, by cross-entropy on the recorded
  actions under the recorded ``action_masks`` (the masks of the state each action was
  taken in, ``poolgym.agents.datasets.collect``): the negative log-likelihood of the masked
  distribution, the one MaskablePPO samples from.
- a Box action mode (``choice``: the strokes as played, no bins): PPO's, by the negative
  log-likelihood of its diagonal Gaussian (the mean is fitted to the recorded actions,
  the learned standard deviation to what the mean misses).

The model is saved as a model of that algorithm, so ``poolgym train --resume`` fine-tunes
it and ``poolgym eval`` / ``baselines`` play it like any other.

The budget (``total_steps``) counts training samples (minibatch rows), so ``curve``
points fall every ``curve.every_steps`` samples; ``imitation`` says where the data comes
from and how it is fitted::

    imitation:
      dataset: poolgym/nine-ball/bot-fast-v0   # a Minari dataset id (MINARI_DATASETS_PATH),
                                               # or a list of them, read together
      batch_size: 256
      learning_rate: 0.001                     # Adam, on the whole network
      validation_share: 0.1                    # episodes held out for the reported fit
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np


@dataclass(frozen=True)
class ImitationData:
    """Every recorded decision of a dataset: ``observations`` (n, ...), ``actions`` (n, k)
    and ``masks`` (n, sum of nvec; None for Box actions, which have none), with the episode
    each row came from."""

    observations: np.ndarray
    actions: np.ndarray
    masks: np.ndarray | None
    episodes: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)

    def rows(self, keep: np.ndarray) -> "ImitationData":
        masks = None if self.masks is None else self.masks[keep]
        return ImitationData(self.observations[keep], self.actions[keep], masks, self.episodes[keep])


def load_imitation_data(dataset_id: str | Sequence[str], observation_space, action_space,
                        mapping: dict | None = None) -> ImitationData:
    """The decisions of a dataset, or of several read together (their episodes numbered in
    turn, so a held-out share takes whole episodes of each), checked against the network's
    spaces (``ValueError`` naming both when they differ, or when a ``MultiDiscrete``
    dataset has no ``action_masks`` infos) and, when ``mapping`` is given (the training
    env's mapping fields, ``poolgym.envs.sb3_models.recorded_mapping``), against the action mapping and observation
    format the dataset was recorded in: equal spaces can still mean different strokes (a
    pot's residual turning the stroke or the object ball, another stroke cap)."""
    from gymnasium import spaces

    from poolgym.agents.datasets.collect import require_minari

    require_minari()
    masked = isinstance(action_space, (spaces.MultiDiscrete, spaces.Discrete))
    observations, actions, masks, episodes = [], [], [], []
    first = 0  # the number the next dataset's episode 0 takes
    for name, dataset in checked_datasets(dataset_id, observation_space, action_space, mapping):
        # Every episode is checked as it is read (poolgym.agents.datasets.checks): lengths,
        # finite values within the spaces, each action one its mask offered.
        for episode in dataset.episodes():
            if masked and episode.masks is None:
                raise ValueError(f"imitation.dataset {name!r} records no action_masks (collect it in "
                                 f"a masked action mode with poolgym collect)")
            n = len(episode.actions)
            # Minari keeps the final observation (and its info): no action was taken there.
            observations.append(np.asarray(episode.observations[:n]))
            actions.append(np.asarray(episode.actions))
            if masked:
                masks.append(np.asarray(episode.masks[:n], dtype=bool))
            episodes.append(np.full(n, first + episode.id))
        first += dataset.total_episodes
    if not actions:
        raise ValueError(f"imitation.dataset {dataset_id!r} holds no episodes; collect some with poolgym collect")
    return ImitationData(np.concatenate(observations), np.concatenate(actions),
                         np.concatenate(masks) if masked else None, np.concatenate(episodes))


def checked_datasets(dataset_id: str | Sequence[str], observation_space, action_space,
                     mapping: dict | None = None) -> Iterator[tuple[str, Any]]:
    """Each dataset ``dataset_id`` names (one id or several), read through
    ``poolgym.agents.datasets.checks``, with its name, once its spaces equal the network's and,
    when ``mapping`` is given, its recorded mapping is the training env's; ``ValueError``
    naming the dataset otherwise (or when it is missing)."""
    from poolgym.agents.datasets.checks import read_dataset

    for name in [dataset_id] if isinstance(dataset_id, str) else list(dataset_id):
        try:
            dataset = read_dataset(name)
        except FileNotFoundError as exc:
            raise ValueError(f"imitation.dataset {name!r} cannot be loaded ({exc}); build it with "
                             f"poolgym collect (docs/datasets.md) under MINARI_DATASETS_PATH") from None
        for space, theirs, ours in (("observation", dataset.observation_space, observation_space),
                                    ("action", dataset.action_space, action_space)):
            if theirs != ours:
                raise ValueError(f"imitation.dataset {name!r}: its {space} space {theirs} is not the "
                                 f"network's {ours}")
        if mapping is not None:
            _check_mapping(dataset.env_spec, name, mapping)
        yield name, dataset


def _check_mapping(spec, name: str, mapping: dict) -> None:
    """``ValueError`` naming every field in which the env a dataset was recorded in (its
    env ``spec``, parsed from the file) maps actions or observations differently from
    ``mapping``. The recorded env is rebuilt from
    its registered id with its recorded arguments, never from the entry point the file
    names, and without its opponent (which may be an import path; a dataset is data)."""
    import gymnasium as gym

    from poolgym.envs.sb3_models import env_side

    if spec is None or not isinstance(spec.id, str) or spec.id not in gym.registry:
        raise ValueError(f"imitation.dataset {name!r} names no registered env it was recorded in "
                         f"(got {getattr(spec, 'id', None)!r})")
    env = gym.make(spec.id, **{k: v for k, v in (spec.kwargs or {}).items() if k != "opponent"})
    try:
        recorded = env_side(env)
    finally:
        env.close()
    differ = [f"{k}: dataset {recorded.get(k)!r}, config {v!r}" for k, v in mapping.items() if recorded.get(k) != v]
    if differ:
        raise ValueError(f"imitation.dataset {name!r} was recorded with another action mapping or observation "
                         f"format than the config's env: {'; '.join(differ)}")


def split_by_episode(data: ImitationData, share: float, seed: int) -> tuple[ImitationData, ImitationData]:
    """(training rows, held-out rows): a ``share`` of the episodes, drawn with ``seed``, held
    out whole (rows of one rack are alike, so a row split would flatter the fit)."""
    ids = np.unique(data.episodes)
    rng = np.random.default_rng(seed)
    held = rng.choice(ids, size=int(round(share * len(ids))), replace=False) if share > 0 else ids[:0]
    out = np.isin(data.episodes, held)
    return data.rows(~out), data.rows(out)


def fit(policy, data: ImitationData, samples: int, batch_size: int, learning_rate: float, seed: int,
        every: int = 0, on_point: Callable[[int], None] | None = None) -> int:
    """Train ``policy`` (a MaskablePPO or PPO policy) for ``samples`` rows of ``data`` in shuffled
    minibatches of at most ``batch_size`` (the data reshuffled each pass; a minibatch may
    span two passes); ``on_point(samples_seen)`` every ``every`` samples. Returns the samples seen."""
    import torch

    if len(data) == 0:
        raise ValueError("the imitation dataset has no decisions to learn from")
    optimiser = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    policy.set_training_mode(True)
    seen, next_point, order = 0, every, np.empty(0, dtype=np.int64)
    while seen < samples:
        # A minibatch ends at the budget and at the next point, so points fall where asked.
        take = min(batch_size, samples - seen, next_point - seen if every > 0 else batch_size)
        while len(order) < take:  # passes over the data follow on, each in its own order
            order = np.concatenate([order, rng.permutation(len(data))])
        batch, order = order[:take], order[take:]
        loss = -log_likelihood(policy, data.rows(batch)).mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        seen += take
        if on_point is not None and every > 0 and seen >= next_point:
            next_point += every
            policy.set_training_mode(False)
            on_point(seen)
            policy.set_training_mode(True)
    policy.set_training_mode(False)
    return seen


def _distribution(policy, data: ImitationData):
    """The policy's action distribution on ``data``'s observations (masked where it has masks)."""
    obs, _ = policy.obs_to_tensor(data.observations)
    if data.masks is None:
        return policy.get_distribution(obs)
    return policy.get_distribution(obs, action_masks=data.masks)


def log_likelihood(policy, data: ImitationData):
    """The (masked) distribution's log-probability of each recorded action (a torch tensor)."""
    import torch

    actions = torch.as_tensor(data.actions, device=policy.device)
    return _distribution(policy, data).log_prob(actions.float() if data.masks is None else actions)


def fit_report(policy, data: ImitationData) -> dict:
    """How well ``policy`` reproduces ``data``: mean negative log-likelihood, and for
    ``MultiDiscrete`` actions the share of rows whose slot, and whose whole action, the
    deterministic (masked mode) policy repeats (for ``Discrete`` ones, whose action); for
    Box actions the mean absolute
    difference between the deterministic action (the mean, clipped to the space as played)
    and the recorded one."""
    import torch

    if len(data) == 0:
        return {"rows": 0}
    with torch.no_grad():
        nll = -log_likelihood(policy, data).mean().item()
        mode = _distribution(policy, data).mode().cpu().numpy()
    report = {"rows": int(len(data)), "nll": round(nll, 4)}
    if data.masks is None:
        low, high = policy.action_space.low, policy.action_space.high
        report["action_mae"] = round(float(np.mean(np.abs(np.clip(mode, low, high) - data.actions))), 4)
        return report
    if mode.ndim == 1:  # one index per row (choice_canonical)
        return {**report, "action_agreement": round(float(np.mean(mode == data.actions)), 4)}
    return {**report, "slot_agreement": round(float(np.mean(mode[:, 0] == data.actions[:, 0])), 4),
            "action_agreement": round(float(np.mean(np.all(mode == data.actions, axis=1))), 4)}
