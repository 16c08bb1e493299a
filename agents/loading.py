"""Agents from command-line specs, and environment policies played on states.

A spec is ``random``, ``bot`` (``bot:fast`` / ``bot:strong`` for another search budget),
a saved stable-baselines3 model (a path ending in ``.zip``, loaded as PPO unless written
``ALGO:path.zip``, e.g. ``SAC:model.zip``), or ``pkg.mod:name`` naming either an agent
(an object with ``choose(state)``) or a policy ``policy(obs, info) -> action``.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from gymnasium import spaces

from poolgym.envs.actions import ActionMapper
from poolgym.envs.observations import actor, flatten_observation, observe_game
from poolgym.rules import GameState, Ruleset

from agents.bot import HeuristicBot, RandomAgent

SB3_ALGORITHMS = ("PPO", "SAC", "TD3", "A2C", "DDPG")


class PolicyAgent:
    """An environment policy ``policy(obs, info) -> action`` playing on states: it sees the
    observation the env would give the player to act (``obs_mode`` "dict" or "flat") and
    ``info`` with ``state`` and ``player``; its action is decoded in ``action_mode``."""

    def __init__(self, policy, rules: Ruleset, action_mode: str = "raw", obs_mode: str = "dict",
                 max_speed: float = 10.0, max_cut_deg: float = 5.0) -> None:
        self.policy, self.rules, self.obs_mode = policy, rules, obs_mode
        self.mapper = ActionMapper(rules.table, action_mode, max_speed=max_speed, max_cut_deg=max_cut_deg)

    def choose(self, state: GameState):
        player = actor(state)
        obs = observe_game(state, self.rules, self.rules.table, player)
        if self.obs_mode == "flat":
            obs = flatten_observation(obs)
        action = self.policy(obs, {"state": state, "player": player})
        return self.mapper.decode(self.mapper.validate(action), state, self.rules)


def load_sb3(path: str, algorithm: str, rules: Ruleset) -> PolicyAgent:
    """A saved stable-baselines3 model as an agent; its spaces say the obs and action modes."""
    from poolgym.envs.opponents import SB3Policy

    policy = SB3Policy(path, algorithm=algorithm)
    model = policy.model
    obs_mode = "dict" if isinstance(model.observation_space, spaces.Dict) else "flat"
    n = int(np.prod(model.action_space.shape))
    modes = {len(ActionMapper(rules.table, m).components): m for m in ("raw", "aim")}
    if n not in modes:
        raise ValueError(f"the model's action space has {n} components; poolgym's modes have "
                         f"{sorted(modes)}")
    return PolicyAgent(policy, rules, modes[n], obs_mode)


def make_agent(spec: str, rules: Ruleset, seed: int = 0, noise: str = "none",
               action_mode: str = "raw", obs_mode: str = "dict") -> Any:
    """The agent a spec names (see the module docstring), seeded with ``seed``."""
    if spec == "random":
        return RandomAgent(rules, seed=seed)
    if spec == "bot" or spec.startswith("bot:"):
        budget = spec.partition(":")[2] or "normal"
        return HeuristicBot(rules, noise=noise, budget=budget, seed=seed)
    if spec.endswith(".zip"):
        algorithm, _, path = spec.rpartition(":") if spec.split(":")[0] in SB3_ALGORITHMS else ("", "", spec)
        return load_sb3(path, algorithm or "PPO", rules)
    module_name, sep, attribute = spec.partition(":")
    if not sep:
        raise ValueError(f"unknown agent {spec!r}: use random, bot[:fast|normal|strong], "
                         "a model.zip or pkg.module:name")
    target = getattr(importlib.import_module(module_name), attribute)
    if hasattr(target, "choose"):
        return target
    if callable(target):
        return PolicyAgent(target, rules, action_mode, obs_mode)
    raise ValueError(f"{spec} is neither an agent with choose(state) nor a policy(obs, info)")
