"""Playing a policy for a number of episodes and scoring it, with 95% intervals.

A policy is any callable ``policy(observation, info) -> action``, like the environments'
opponents; in the masked action modes (``choice_discrete``, ``choice_canonical``) its ``info`` also holds the env's
``action_masks()`` (``info["action_masks"]``), which a maskable model predicts with.

Names that config files and the command line use:

- opponents: the ladder names (``"random"``, ``"legal-random"``, ``"fixed"``,
  ``"bot:weak"``, ``"bot:fast"``, ``"bot:normal"``, ``"bot"``, ``"bot:strong"``, ``"bot:pro"``,
  ``"bot:pro-deep"``), a saved model ``"[ALGO:]path.zip"``, ``"uniform-action"`` and
  ``"solo"`` go to the env as they are (``poolgym.envs.opponents``);
- agents (the side being scored): ``"uniform-action"`` (uniform random actions,
  ``poolgym.envs.opponents.RandomPolicy``); the baseline ladder agents ``"random"``,
  ``"legal-random"`` and ``"fixed"`` (``LadderPolicy``: their moves encoded in the env's
  action mapping); a saved model ``"[ALGO:]path.zip"`` (refused when the env's action
  mapping or observation format is not the one recorded in it);
- ``"package.module:name"``: an imported policy callable; a class there is instantiated
  with no arguments.

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

from poolgym.envs.baseline_agents import BASELINE_AGENTS, make_baseline_agent
from poolgym.envs.opponents import LADDER, SOLO, UNIFORM_ACTION, RandomPolicy
from poolgym.envs.seeded_tables import play_seeds, tables_like
from poolgym.numbers import integer

Policy = Callable[[Any, dict], Any]
BUILTIN_OPPONENTS = LADDER + ("bot", SOLO, UNIFORM_ACTION)


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
    if spec is None or callable(spec) or spec in BUILTIN_OPPONENTS or (
            isinstance(spec, str) and spec.endswith(".zip")):
        return spec
    obj = import_object(spec, "opponent")
    obj = obj() if isinstance(obj, type) else obj
    if not callable(obj):
        raise ValueError(f"opponent {spec!r} is not callable as policy(obs, info) -> action")
    return obj


class LadderPolicy:
    """A baseline ladder agent playing the agent's side of an env: its move in the env's
    state, encoded with the env's action mapping (exact in raw mode; in aim mode the
    nearest (ball, pocket) candidate, the cut clipped to the mapping's range)."""

    def __init__(self, agent, env: gym.Env) -> None:
        self.agent, self.env = agent, env.unwrapped

    def __call__(self, observation, info: dict):
        state, rules = self.env.state, self.env.rules
        if state.winner is not None or state.stalemate:
            # The opponent won on its break before the agent's first move: the env's one
            # step then only checks the action, and there is no move to encode.
            space = self.env.action_space
            return np.zeros(space.shape, dtype=space.dtype)
        self.agent.rules = rules  # the pot-ball drill's rules change with each layout's target
        return self.env.mapper.encode(self.agent.choose(state), state, rules)


def resolve_agent(spec: str | Policy, env: gym.Env, seed: int = 0, trusted: bool = False) -> Policy:
    """A policy for the agent's side of ``env`` (module docstring); ``trusted`` lets a saved
    model be unpickled (``poolgym.envs.sb3_models.load_model``)."""
    if callable(spec):
        return spec
    if spec == UNIFORM_ACTION:
        return RandomPolicy(env.action_space, seed=seed)
    if spec in BASELINE_AGENTS:
        game = env.unwrapped
        agent = make_baseline_agent(spec, game.rules, seed=seed, max_speed=game.mapper.max_speed)
        return LadderPolicy(agent, env)
    if isinstance(spec, str) and spec.endswith(".zip"):
        from poolgym.envs.opponents import SB3Policy
        from poolgym.envs.sb3_models import check_env_matches, check_spaces, infer_record, parse_model_spec

        algorithm, path = parse_model_spec(spec)
        policy = SB3Policy(path, algorithm=algorithm, trusted=trusted)
        record = policy.env_record if policy.env_record is not None else infer_record(policy.model, path)
        check_spaces(policy.model, record, path)
        check_env_matches(record, env, path)
        return policy
    obj = resolve_opponent(spec)
    if not callable(obj):
        raise ValueError(f"agent {spec!r} is not a policy; use {UNIFORM_ACTION!r}, "
                         f"{sorted(BASELINE_AGENTS)}, [ALGO:]path.zip or 'package.module:name'")
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
        """The fields as plain data; ``reward_ci`` is None where one episode gives no
        interval (its bounds are infinite, which JSON cannot hold)."""
        out = asdict(self)
        if not all(math.isfinite(bound) for bound in self.reward_ci):
            out["reward_ci"] = None
        return out


def with_action_masks(env: gym.Env, info: dict) -> dict:
    """``info`` with the env's ``action_masks()`` under ``"action_masks"`` in a masked
    action mode (what a maskable policy predicts with, ``SB3Policy``); as it is in the
    other modes."""
    if not getattr(env.unwrapped.mapper, "masked", False):
        return info
    return {**info, "action_masks": env.unwrapped.action_masks()}


class _Tally:
    """One episode's score as it is played: its return, racks won and lost or the target
    potted, legal pots and steps (``_episode``, ``_episodes_on_tables``)."""

    __slots__ = ("total", "pots", "steps", "won", "lost", "potted", "info")

    def __init__(self) -> None:
        self.total, self.pots, self.steps, self.won, self.lost = 0.0, 0.0, 0, 0.0, 0.0
        self.potted, self.info = False, {}

    def add(self, reward, info: dict) -> None:
        """One step's reward and info."""
        self.total += float(reward)
        self.steps += 1
        self.info = info
        terms = info.get("reward_terms")
        if terms is not None:
            self.won += terms.get("rack_won", 0.0)
            self.lost += terms.get("rack_lost", 0.0)
            self.pots += terms.get("legal_pot", 0.0)
        elif "potted" in info:
            self.potted = bool(info["potted"]) and not info.get("scratched", False)
            self.pots += float(self.potted)

    def row(self) -> tuple[float, bool, float, int, str]:
        """(return, success, legal pots, steps, what success means) of the ended episode."""
        if "reward_terms" in self.info:
            return self.total, self.won > self.lost, self.pots, self.steps, "win rate"
        return self.total, self.potted, self.pots, self.steps, "pot rate"


def _episode(env: gym.Env, policy: Policy, seed: int) -> tuple[float, bool, float, int, str]:
    """Play one episode; (return, success, legal pots, steps, what success means)."""
    obs, info = env.reset(seed=seed)
    tally = _Tally()
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(policy(obs, with_action_masks(env, info)))
        tally.add(reward, info)
        done = terminated or truncated
    return tally.row()


def _episodes_on_tables(tables, policy, seeds: range) -> list[tuple[float, bool, float, int, str]]:
    """``_episode`` of each seed, played on the batched env's ``tables`` with one call of a
    batched policy (``SB3Policy.act_batch``) for all the tables it acts on
    (``poolgym.envs.seeded_tables.play_seeds``), in seed order."""
    games = [table.unwrapped for table in tables.tables]
    masked = getattr(games[0].mapper, "masked", False)

    def actions(which: list[int], observations: list) -> list:
        return list(policy.act_batch(observations, [games[j].action_masks() for j in which] if masked else None))

    def record(j: int, tally: _Tally, action, step: tuple) -> None:
        tally.add(step[1], step[4])

    return [tally.row() for tally in play_seeds(tables, seeds, lambda *_: _Tally(), actions, record)]


def evaluate(policy: Policy | str, env_id: str, env_kwargs: dict | None = None, episodes: int = 100,
             seed: int = 0, trusted: bool = False, num_envs: int = 1) -> Score:
    """Play ``episodes`` episodes of ``env_id`` (seeds ``seed``, ``seed + 1``, ...) and score
    them. The same seeds give the same starting positions, so two policies evaluated with
    one seed face the same racks. ``trusted``: a saved model ``policy`` may be unpickled.

    ``num_envs`` above one plays that many episodes at a time on the id's batched env, the
    policy called once for all its tables, when its batched actions are those it takes
    alone (``batchable``: a network choosing deterministically among discrete actions,
    ``SB3Policy``): the same episodes and scores as one env. A batched product rounds
    differently from one row's, by about 1e-5 of a logit, so an action chosen between two
    logits that close could differ. Other policies (continuous or sampled actions, agents
    that draw from one generator across episodes), and ids without a batched env, play
    one env."""
    if integer(num_envs, "num_envs") < 1:
        raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs}")
    env = gym.make(env_id, **dict(env_kwargs or {}))
    tables = None
    try:
        agent = resolve_agent(policy, env, seed=seed + 7919, trusted=trusted)
        if getattr(agent, "batchable", False):
            tables = tables_like(env, min(num_envs, episodes))
        if tables is None:
            rows = [_episode(env, agent, seed + i) for i in range(episodes)]
        else:
            rows = _episodes_on_tables(tables, agent, range(seed, seed + episodes))
    finally:
        env.close()
        if tables is not None:
            tables.close()
    returns = np.array([r[0] for r in rows], dtype=np.float64)
    successes = sum(bool(r[1]) for r in rows)
    half = 1.96 * returns.std(ddof=1) / math.sqrt(episodes) if episodes > 1 else float("inf")
    mean = float(returns.mean())
    return Score(episodes=episodes, mean_reward=mean, reward_ci=(mean - half, mean + half),
                 successes=successes, success_rate=successes / episodes,
                 success_ci=wilson_interval(successes, episodes), success_name=rows[0][4],
                 mean_pots=float(np.mean([r[2] for r in rows])),
                 mean_length=float(np.mean([r[3] for r in rows])))
