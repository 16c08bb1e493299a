"""Playing a policy for a number of episodes and scoring it, with 95% intervals.

A policy is any callable ``policy(observation, info) -> action``, like the environments'
opponents. Names that config files and the command line use:

- ``"random"``: uniform random actions (``poolgym.envs.opponents.RandomPolicy``);
- ``"solo"`` (opponents only): no opponent, the agent plays every shot;
- ``"package.module:name"``: an imported policy callable; a class there is instantiated
  with no arguments (so a bot class plugs in as ``agents.bot:HeuristicBot``).

Scores: the mean episode reward, the success rate (in a game env, matches won: more racks
won than lost, from ``info["reward_terms"]``; in the pot-ball drill, the target potted
without a scratch) and legal pots per episode.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import asdict, dataclass
from typing import Any, Callable

import gymnasium as gym
import numpy as np

from poolgym.envs.opponents import RandomPolicy

Policy = Callable[[Any, dict], Any]
BUILTIN_OPPONENTS = ("random", "solo")


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% for z = 1.96)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def import_object(path: str, what: str = "policy") -> Any:
    """The object at ``"package.module:name"``; a ValueError says what could not be found."""
    module, _, name = path.partition(":")
    if not module or not name:
        raise ValueError(f"{what} {path!r} is neither a built-in name {list(BUILTIN_OPPONENTS)} "
                         f"nor an import path 'package.module:name'")
    try:
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot import {what} {path!r}: {exc}") from None
    return obj


def resolve_opponent(spec: str | Policy | None) -> str | Policy | None:
    """What to pass as an env's ``opponent`` for a config name, import path or callable."""
    if spec is None or callable(spec) or spec in BUILTIN_OPPONENTS:
        return spec
    obj = import_object(spec, "opponent")
    obj = obj() if isinstance(obj, type) else obj
    if not callable(obj):
        raise ValueError(f"opponent {spec!r} is not callable as policy(obs, info) -> action")
    return obj


def resolve_agent(spec: str | Policy, action_space: gym.Space, seed: int = 0) -> Policy:
    """A policy for the agent's side: ``"random"``, an import path or a callable."""
    if callable(spec):
        return spec
    if spec == "random":
        return RandomPolicy(action_space, seed=seed)
    obj = resolve_opponent(spec)
    if not callable(obj):
        raise ValueError(f"agent {spec!r} is not a policy; use 'random' or 'package.module:name'")
    return obj


@dataclass(frozen=True)
class Score:
    """The result of ``evaluate``: per-episode lists and their summaries."""

    episodes: int
    mean_reward: float
    reward_ci: tuple[float, float]
    successes: int
    success_rate: float
    success_ci: tuple[float, float]
    success_name: str
    mean_pots: float
    mean_length: float

    def to_dict(self) -> dict:
        return asdict(self)


def _episode(env: gym.Env, policy: Policy, seed: int) -> tuple[float, bool, float, int, str]:
    """Play one episode; (return, success, legal pots, steps, what success means)."""
    obs, info = env.reset(seed=seed)
    total, pots, steps = 0.0, 0.0, 0
    won = lost = 0.0
    potted = False
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(policy(obs, info))
        total += float(reward)
        steps += 1
        done = terminated or truncated
        terms = info.get("reward_terms")
        if terms is not None:
            won += terms.get("rack_won", 0.0)
            lost += terms.get("rack_lost", 0.0)
            pots += terms.get("legal_pot", 0.0)
        elif "potted" in info:
            potted = bool(info["potted"]) and not info.get("scratched", False)
            pots += float(potted)
    if "reward_terms" in info:
        return total, won > lost, pots, steps, "win rate"
    return total, potted, pots, steps, "pot rate"


def evaluate(policy: Policy | str, env_id: str, env_kwargs: dict | None = None, episodes: int = 100,
             seed: int = 0) -> Score:
    """Play ``episodes`` episodes of ``env_id`` (seeds ``seed``, ``seed + 1``, ...) and score
    them. The same seeds give the same starting positions, so two policies evaluated with
    one seed face the same racks."""
    env = gym.make(env_id, **dict(env_kwargs or {}))
    try:
        agent = resolve_agent(policy, env.action_space, seed=seed + 7919)
        rows = [_episode(env, agent, seed + i) for i in range(episodes)]
    finally:
        env.close()
    returns = np.array([r[0] for r in rows], dtype=np.float64)
    successes = sum(bool(r[1]) for r in rows)
    half = 1.96 * returns.std(ddof=1) / math.sqrt(episodes) if episodes > 1 else float("inf")
    mean = float(returns.mean())
    return Score(episodes=episodes, mean_reward=mean, reward_ci=(mean - half, mean + half),
                 successes=successes, success_rate=successes / episodes,
                 success_ci=wilson_interval(successes, episodes), success_name=rows[0][4],
                 mean_pots=float(np.mean([r[2] for r in rows])),
                 mean_length=float(np.mean([r[3] for r in rows])))
