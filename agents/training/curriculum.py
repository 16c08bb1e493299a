"""Curricula: one network trained on a sequence of envs (``stages`` in a training config).

A curriculum such as PotBall-v1 -> NineBallSolo-v1 -> NineBall-v1 carries one network from
stage to stage (``poolgym.agents.training.train.train`` swaps the model's vec env between stages, the step
count running on), so every stage must offer the same action space and observation space.
The choice action modes make the action spaces agree (20 candidate slots and the same
stroke parameters in the drill and in the games, given the same ``max_speed``,
``max_cut_deg`` and noise). The observations differ in one entry: the v1 game envs observe
the match score (``observe_match``) and the pot-ball drill has no match. ``WithMatchScore``
adds it to an env that lacks it as (0, 0): the score of a one-rack race that nobody has won
yet, exactly what NineBall-v1 (a race to one) shows at every shot of its rack, so the
network sees in the drill what it will see in the game. Solo stages are given
``observe_match: true`` in the config rather than the adapter.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from poolgym.envs.observations import flatten_observation, observation_space, observation_spaces


class WithMatchScore(gym.ObservationWrapper):
    """An env without the ``match`` observation entry, seen with it at (0, 0) (module
    docstring); flat observations are unflattened, extended and flattened again in the
    ``gymnasium.spaces.flatten`` order of the game envs."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        game = env.unwrapped
        self.obs_mode, choice = game.obs_mode, bool(getattr(game, "choice", False))
        self._plain = observation_space(match=False, choice=choice)
        self.observation_space = observation_spaces(self.obs_mode, match=True, choice=choice)

    def observation(self, observation):
        obs = dict(spaces.unflatten(self._plain, observation) if self.obs_mode == "flat" else observation)
        obs["match"] = np.zeros(2, dtype=np.float32)
        return flatten_observation(obs) if self.obs_mode == "flat" else obs


def adapt(env: gym.Env, target: spaces.Space, stage: str) -> gym.Env:
    """``env`` observing ``target``'s space: as it is when the spaces agree, through
    ``WithMatchScore`` when only the match entry is missing; else a ``ValueError`` naming
    the stage and both spaces' sizes."""
    if env.observation_space == target:
        return env
    if not getattr(env.unwrapped, "observe_match", False):
        adapted = WithMatchScore(env)
        if adapted.observation_space == target:
            return adapted
    raise ValueError(f"{stage}: its observations ({spaces.flatdim(env.observation_space)} values) are not "
                     f"the last stage's ({spaces.flatdim(target)}); use the same obs_mode and action "
                     "mode in every stage, and observe_match: true in the game stages")

