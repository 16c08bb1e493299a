"""Opponents for the single-agent environments: whoever plays the other side inside ``step``.

The env's ``opponent`` argument (``make_opponent``) is one of:

- a name of the opponent ladder, the same names as ``poolgym eval -a/-b``: ``"random"``,
  ``"legal-random"``, ``"fixed"`` (``poolgym.envs.baseline_agents``), ``"bot:weak"``,
  ``"bot:fast"``, ``"bot:normal"`` (``"bot"``), ``"bot:strong"`` (``poolgym.agents.bot.player.HeuristicBot``),
  ``"bot:pro"`` (``poolgym.agents.bot.pro.ProBot``), ``"bot:pro-deep"`` (the top rung: ``ProBot``
  with a deeper search),
  a pretrained agent shipped with poolgym (``"pretrained:nine_ball"``), or a saved
  stable-baselines3 model ``"path.zip"`` / ``"ALGO:path.zip"`` (both play with their own
  recorded observation format and action mapping);
- ``"solo"``: no opponent, the agent plays both sides;
- ``"uniform-action"``: uniform random actions in the env's action space (``RandomPolicy``),
  the v0 envs' opponent;
- an agent: any object with ``choose(state) -> Decision | ShotMove``;
- a policy: any callable ``policy(observation, info) -> action`` (the observation from its
  own side, in the env's observation format; the action in the env's action mapping).

An agent's moves are played through a raw-mode ``ActionMapper`` the env holds for the
purpose (raw mode encodes strokes and calls exactly), never through the agent's aim-mode
mapping, so an opponent plays the same whatever the agent's action mode.

The bots, pretrained agents and saved models live in ``agents/``: ``make_opponent`` imports
``poolgym.agents.evaluation.loading`` lazily for those names. It is the one place the env layer reaches up.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable

import numpy as np
from gymnasium import spaces

from poolgym.envs.baseline_agents import BASELINE_AGENTS, make_baseline_agent
from poolgym.envs.stacking import stack_observations
from poolgym.rules import Ruleset

Policy = Callable[[Any, dict], Any]
UNIFORM_ACTION = "uniform-action"
SOLO = "solo"
LADDER = ("random", "legal-random", "fixed", "bot:weak", "bot:fast", "bot:normal", "bot:strong", "bot:pro",
          "bot:pro-deep")


class RandomPolicy:
    """Uniform random actions in the env's action space, from its own seeded generator
    (the ``"uniform-action"`` opponent); in the masked action modes uniform among what
    ``info["action_masks"]`` offers (the env refuses the rest)."""

    def __init__(self, action_space, seed: int | None = None) -> None:
        self.space = action_space
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation, info: dict):
        masks = info.get("action_masks") if isinstance(info, dict) else None
        if isinstance(self.space, spaces.MultiDiscrete):  # the choice_discrete action mode
            if masks is None:
                return self.rng.integers(self.space.nvec).astype(self.space.dtype)
            parts = np.split(np.asarray(masks, dtype=bool), np.cumsum(self.space.nvec)[:-1])
            return np.array([self._offered(part) for part in parts], dtype=self.space.dtype)
        if isinstance(self.space, spaces.Discrete):  # the choice_canonical action mode
            index = self.rng.integers(self.space.n) if masks is None else self._offered(np.asarray(masks, dtype=bool))
            return self.space.dtype.type(self.space.start + index)
        low, high = self.space.low, self.space.high
        return self.rng.uniform(low, high).astype(self.space.dtype)


    def _offered(self, mask: np.ndarray) -> int:
        allowed = np.flatnonzero(mask)
        return int(allowed[self.rng.integers(len(allowed))])


class SB3Policy:
    """A frozen stable-baselines3 model as a policy ``policy(obs, info) -> action``
    (deterministic actions by default). A maskable model (sb3-contrib's ``MaskablePPO``)
    predicts with the masks in ``info["action_masks"]`` (the env's ``action_masks()``).

    ``model`` is a loaded model or a path to a saved one, loaded with
    ``poolgym.envs.sb3_models.load_model`` (``algorithm`` names its class, e.g. ``"PPO"``);
    ``env_record`` is then the env the model was trained on (``read_env_record``), or None
    for an older file that does not say; ``trusted`` goes to ``load_model`` (the file may
    be unpickled, which runs code: only for files you trust).
    """

    def __init__(self, model, algorithm: str = "PPO", deterministic: bool = True, trusted: bool = False) -> None:
        self.env_record = None
        if isinstance(model, str):
            from poolgym.envs.sb3_models import load_model, read_env_record

            self.env_record = read_env_record(model)
            model = load_model(model, algorithm, trusted=trusted)
        from poolgym.envs.sb3_models import is_maskable

        self.model = model
        self.deterministic = deterministic
        self.maskable = is_maskable(model)

    @property
    def batchable(self) -> bool:
        """Whether ``act_batch`` over many tables gives each the action it would get alone,
        so that ``poolgym.agents.evaluation.policy_eval.evaluate`` may batch the calls:
        deterministic actions chosen among discrete ones. A batched product rounds a
        network's outputs differently from one row's (by about 1e-5), which changes a
        discrete choice only between two outputs that close, but every continuous action."""
        return self.deterministic and isinstance(self.model.action_space,
                                                 (spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary))

    def act_batch(self, observations, masks=None) -> np.ndarray:
        """The actions for ``observations``, one per table (a list, or an array of rows),
        stacked as a vector env stacks them (``poolgym.envs.stacking``); ``masks`` their action
        masks, one per table, for a maskable model. One call of the network."""
        stacked = stack_observations(self.model.observation_space, observations)
        with _one_torch_thread():
            if self.maskable:
                if masks is None:
                    raise ValueError("a maskable model needs the action masks of every observation")
                actions, _ = self.model.predict(stacked, deterministic=self.deterministic,
                                                action_masks=np.asarray(masks, dtype=bool))
            else:
                actions, _ = self.model.predict(stacked, deterministic=self.deterministic)
        return actions

    def __call__(self, observation, info: dict):
        with _one_torch_thread():
            if self.maskable:
                # A maskable model (MaskablePPO) only chooses among what the masks allow.
                masks = info.get("action_masks")
                if masks is None:
                    raise ValueError("a maskable model needs the action masks in info['action_masks'] "
                                     "(the env's action_masks())")
                action, _ = self.model.predict(observation, deterministic=self.deterministic,
                                               action_masks=np.asarray(masks, dtype=bool))
                return action
            action, _ = self.model.predict(observation, deterministic=self.deterministic)
            return action


@contextmanager
def _one_torch_thread():
    """torch on one thread for the block, then as it was. A policy acting on one observation
    runs products too small to share: a second thread only spins (the shipped 9-ball agent
    took 15.5 ms of CPU time a move on two threads, 8.6 on one, the same moves on 289
    positions)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


_CHOICES = (f"opponent must be one of {list(LADDER)}, {SOLO!r}, {UNIFORM_ACTION!r}, "
            f"pretrained:NAME (e.g. 'pretrained:nine_ball'), [ALGO:]path.zip, pkg.module:name, an agent with choose(state) or a callable "
            f"policy(obs, info) -> action")


def make_opponent(spec, action_space, rules: Ruleset | None = None, noise: Any = "none",
                  max_speed: float = 10.0, elevation: bool = False):
    """The opponent for an env's ``opponent`` argument (module docstring): None for solo
    play, an agent with ``choose(state)``, or a policy callable. ``rules``, ``noise``,
    ``max_speed`` and ``elevation`` are the env's, for the ladder names (the bots plan with
    the env's noise; no opponent strokes faster than the env allows; the bots play jump
    shots only in an env with the elevated cue, where the rules allow them)."""
    if spec is None or spec == SOLO:
        return None
    if isinstance(spec, str):
        if spec == UNIFORM_ACTION:
            return RandomPolicy(action_space)
        if rules is None:
            raise ValueError(f"opponent {spec!r} needs the env's rules")
        if spec in BASELINE_AGENTS:
            return make_baseline_agent(spec, rules, seed=0, max_speed=max_speed)
        from poolgym.agents.evaluation.loading import make_agent  # the env layer's one reach into agents/

        try:
            return make_agent(spec, rules, seed=0, noise=noise, max_speed=max_speed, elevation=elevation)
        except ValueError as exc:
            raise ValueError(f"{_CHOICES}; {spec!r}: {exc}") from None
    if hasattr(spec, "choose") or callable(spec):
        return spec
    raise ValueError(f"{_CHOICES}, got {spec!r}")
