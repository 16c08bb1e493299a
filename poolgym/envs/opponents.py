"""Opponents for the single-agent environments: whoever plays the other side inside ``step``.

An opponent is any callable ``policy(observation, info) -> action`` (the observation is from
its own side, in the env's observation format), or one of the names ``"solo"`` (the agent
plays both sides) and ``"random"`` (uniform random actions from a seeded generator).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from gymnasium import spaces

Policy = Callable[[Any, dict], Any]


class RandomPolicy:
    """Uniform random actions in the env's action space, from its own seeded generator."""

    def __init__(self, action_space, seed: int | None = None) -> None:
        self.space = action_space
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation, info: dict):
        if isinstance(self.space, spaces.MultiDiscrete):  # the choice_discrete action mode
            return self.rng.integers(self.space.nvec).astype(self.space.dtype)
        low, high = self.space.low, self.space.high
        return self.rng.uniform(low, high).astype(self.space.dtype)


class SB3Policy:
    """A frozen stable-baselines3 model as an opponent (deterministic actions).

    ``model`` is a loaded model or a path to a saved one (``algorithm`` names its class,
    e.g. ``"PPO"``). The model must have been trained on the same observation format.
    """

    def __init__(self, model, algorithm: str = "PPO", deterministic: bool = True) -> None:
        if isinstance(model, str):
            import stable_baselines3

            try:
                cls = getattr(stable_baselines3, algorithm)
            except AttributeError:
                raise ValueError(f"unknown stable-baselines3 algorithm {algorithm!r}") from None
            model = cls.load(model, device="cpu")
        self.model = model
        self.deterministic = deterministic

    def __call__(self, observation, info: dict):
        action, _ = self.model.predict(observation, deterministic=self.deterministic)
        return action


def make_opponent(spec, action_space) -> Policy | None:
    """The opponent policy for an env argument; None means solo play."""
    if spec is None or spec == "solo":
        return None
    if spec == "random":
        return RandomPolicy(action_space)
    if callable(spec):
        return spec
    raise ValueError(f"opponent must be 'solo', 'random' or a callable policy(obs, info) -> action, "
                     f"got {spec!r}")
