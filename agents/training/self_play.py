"""Self-play against a league of past snapshots (``self_play`` in a training config).

The learner plays the single-agent game env (NineBall-v1: alternating breakers, its own
observation format); the other side is drawn afresh at every episode by ``LeagueOpponents``:

- with probability ``ladder_share`` (or while the league is empty) a name of the opponent
  ladder (``ladder``, e.g. ``legal-random``, ``bot:weak``), so the learner keeps meeting
  fixed play and cannot drift into a style only its own snapshots lose to;
- otherwise one of the last ``league_size`` snapshots, uniformly.

``poolgym.agents.training.train.train`` saves a snapshot every ``snapshot_every`` steps
(``<run>/league/snapshot_<steps>.zip``, with its env record, so it plays as any saved model:
``poolgym eval``, an env opponent) and hands its path to every env (``add_snapshot``
through ``VecEnv.env_method``). A snapshot opponent plays with its recorded mapping and
observation format (``poolgym.agents.evaluation.loading.PolicyAgent``; a MaskablePPO snapshot predicts with
the masks of its own side), deterministically. The draws come from a generator seeded by
the env's first ``reset(seed=...)`` (the vec env seeds each worker apart), so a run
replays the same league schedule.

This is the single-agent route; the two-player ``poolgym.envs.aec.PoolAECEnv`` offers the
same game to learners that drive both seats themselves.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np


class LeagueOpponents(gym.Wrapper):
    """A game env whose opponent is drawn from the ladder and a league of snapshots at each
    reset (module docstring)."""

    def __init__(self, env: gym.Env, ladder: tuple[str, ...] = ("legal-random",), league_size: int = 8,
                 ladder_share: float = 0.25) -> None:
        super().__init__(env)
        game = env.unwrapped
        if not hasattr(game, "opponent") or game.opponent is None:
            raise ValueError("self-play needs a game env with an opponent (not a solo or drill env)")
        self.ladder, self.league_size, self.ladder_share = tuple(ladder), league_size, ladder_share
        self.league: list[str] = []
        self.rng = np.random.default_rng(0)
        self._seeded = False
        self._agents: dict[str, object] = {}  # loaded opponents by spec (a snapshot loads once)
        self.current: str | None = None

    def add_snapshot(self, path: str) -> None:
        """Add the saved model at ``path`` to the league (the oldest leaves past ``league_size``)."""
        self.league.append(str(path))
        for old in self.league[:-self.league_size]:
            self._agents.pop(old, None)
        del self.league[:-self.league_size]

    def draw(self) -> str:
        """The next opponent's spec: a ladder name or a snapshot path."""
        if not self.league or (self.ladder and self.rng.random() < self.ladder_share):
            return self.ladder[int(self.rng.integers(len(self.ladder)))]
        return self.league[int(self.rng.integers(len(self.league)))]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None and not self._seeded:
            self.rng, self._seeded = np.random.default_rng([seed, 0x5E1F]), True
        self.current = self.draw()
        game = self.env.unwrapped
        if self.current not in self._agents:
            from poolgym.agents.evaluation.loading import make_agent

            self._agents[self.current] = make_agent(self.current, game.rules, seed=int(self.rng.integers(2**31)),
                                                    noise=game.simulator.noise, max_speed=game.mapper.max_speed)
        game.opponent, game.opponent_name = self._agents[self.current], self.current
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, {**info, "opponent": self.current}
