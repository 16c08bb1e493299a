"""A PettingZoo AEC environment: two learning players at one table.

The player to act is whoever the rules say: the shooter keeps the table after a legal pot,
and a pending decision (push-out response, 8-ball break options, 14.1 re-break, spot
request) is made by its decider. Requires the ``multiagent`` extra (PettingZoo).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from poolgym.envs.actions import ShotMove
from poolgym.envs.candidates import shot_is_due
from poolgym.envs.choice import CHOICE_MODES, make_action_mapper
from poolgym.envs.observations import (actor, flatten_observation, observation_spaces, observe_candidates,
                                       observe_game)
from poolgym.envs.play import simulate_move
from poolgym.envs.pool_env import make_rule_options, make_table
from poolgym.envs.rendering import RENDER_MODES, RenderMixin, check_render_mode
from poolgym.envs.rewards import PotentialShaping, RewardWeights, reward_terms, weigh
from poolgym.numbers import integer
from poolgym.physics import Simulator
from poolgym.rules import get_ruleset


def rack_in_play(state) -> bool:
    """Whether someone is to act: the rack is not over."""
    return state.winner is None and not state.stalemate


class PoolAECEnv(RenderMixin, AECEnv):
    """## Description

    One rack of ``game`` between ``player_0`` (who breaks) and ``player_1``; each turn is
    one shot or one decision of the player to act.

    ## Action Space

    As ``poolgym.envs.PoolEnv`` (``action_mode`` "aim" by default, "raw", "choice" or
    "choice_discrete"). In "choice_discrete" ``action_masks(agent)`` gives the masks
    concatenated, as sb3-contrib's ``MaskablePPO`` reads them, and
    ``infos[agent]["action_mask"]`` the same as one int8 array per dimension (the tuple
    ``MultiDiscrete.sample(mask)`` takes, PettingZoo's convention); the player not to act
    gets masks allowing only the first value of each dimension.

    ## Observation Space

    As ``PoolEnv`` (``obs_mode`` "dict" or "flat"), from the observing player's side. The
    masks of the discrete choices are in the dict observation: ``targets`` (balls that may
    be hit first) and ``choices`` (the pending decision's options); ``infos[agent]`` repeats
    them as ``target_mask`` and ``choice_mask``. In the choice modes the observation also has
    the candidate slots' ``candidates`` features and ``slot_mask`` (``PoolEnv``'s), for the
    player to act.

    ## Rewards

    Each shot's outcome is scored for both players with ``RewardWeights`` (a foul costs its
    shooter and the ball in hand it gives is the opponent's gain; a won rack is +10 for the
    winner and -10 for the loser). ``reward_weights={"shaping": 1.0}`` adds potential-based
    shaping to both players every turn (``PotentialShaping`` with ``shaping_gamma``, see
    ``potentials``): what one gains the other loses.

    ## Episode End

    All agents terminate when the rack ends; truncated after ``max_turns`` turns.

    ## Arguments

    ``game``, ``table``, ``action_mode``, ``obs_mode``, ``noise``, ``reward_weights``,
    ``rule_options``, ``max_turns`` (default 500), ``max_speed``, ``render_mode``,
    ``shaping_gamma`` (default 0.99).

    ## Version History

    - v0: initial release.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "poolgym_v0", "is_parallelizable": False,
                "render_fps": 4}

    def __init__(self, game: str = "nine_ball", table: Any = "9ft", action_mode: str = "aim",
                 obs_mode: str = "dict", noise: Any = "none", reward_weights: dict | None = None,
                 rule_options: dict | None = None, max_turns: int = 500, max_speed: float = 10.0,
                 render_mode: str | None = None, shaping_gamma: float = 0.99) -> None:
        super().__init__()
        check_render_mode(render_mode)
        self.table = make_table(table)
        self.rules = get_ruleset(game, options=make_rule_options(rule_options), table=self.table)
        self.simulator = Simulator(self.table, noise=noise)
        self.mapper = make_action_mapper(self.table, action_mode, max_speed=max_speed,
                                         sigma_deg=self.simulator.noise.angle_deg)
        self.choice = action_mode in CHOICE_MODES
        self.weights = RewardWeights.from_config(reward_weights)
        self.shaping = PotentialShaping(shaping_gamma)
        self._obs_space = observation_spaces(obs_mode, choice=self.choice)
        self.obs_mode = obs_mode
        self.max_turns = integer(max_turns, "max_turns")
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {self.max_turns}")
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.state = None
        self._last_result = None

    def observation_space(self, agent: str):
        return self._obs_space

    def action_space(self, agent: str):
        return self.mapper.space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.np_random = np.random.default_rng(seed)
        self.state = self.rules.new_game(rng=self.np_random, breaker=0)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._masks(a) for a in self.agents}
        self.turns = 0
        self._last_result = None
        self.agent_selection = self.possible_agents[actor(self.state)]

    def observe(self, agent: str):
        obs = observe_game(self.state, self.rules, self.table, self.possible_agents.index(agent))
        if self.choice:
            obs.update(observe_candidates(self._slots_for(agent), self.table))
        return obs if self.obs_mode == "dict" else flatten_observation(obs)

    def _slots_for(self, agent: str):
        """The candidate slots of the state when ``agent`` is to shoot; none otherwise."""
        slots = self.mapper.slots(self.state, self.rules)
        mine = shot_is_due(self.state) and self.state.shooter == self.possible_agents.index(agent)
        return slots if mine else (None,) * len(slots)

    def action_masks(self, agent: str | None = None) -> np.ndarray:
        """The ``choice_discrete`` masks of ``agent`` (default: the player to act): its
        legal slots and choices when it is to act, else the first value of each dimension."""
        acting = self.possible_agents[actor(self.state)]
        agent = acting if agent is None else agent
        masks = self.mapper.action_masks(self.state, self.rules)
        if agent == acting and rack_in_play(self.state):
            return masks
        idle = np.zeros_like(masks)
        idle[np.concatenate([[0], np.cumsum(self.mapper.nvec)[:-1]])] = True
        return idle

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = self.mapper.decode(self.mapper.validate(action), self.state, self.rules)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        before = self.potentials()
        outcome = None
        if isinstance(move, ShotMove):
            outcome = self._shoot(move)
            for player, name in enumerate(self.possible_agents):
                self.rewards[name] = weigh(reward_terms(outcome, player), self.weights)
        else:
            self.state = self.rules.apply_decision(self.state, move)
        if self.weights.shaping:
            for name, phi_before, phi_after in zip(self.possible_agents, before, self.potentials()):
                self.rewards[name] += self.weights.shaping * self.shaping.term(phi_before, phi_after)
        self.turns += 1
        over = outcome is not None and outcome.rack_over
        for name in self.agents:
            self.terminations[name] = over
            self.truncations[name] = not over and self.turns >= self.max_turns
            self.infos[name] = self._masks(name)
            if outcome is not None:
                self.infos[name]["outcome"] = outcome
        if not over:
            self.agent_selection = self.possible_agents[actor(self.state)]
        self._accumulate_rewards()

    def potentials(self) -> tuple[float, float]:
        """Each player's shaping potential Phi of the current state (``PotentialShaping``:
        the shooter's best make probability, positive for the shooter, negative for the
        other player; 0 while a decision is pending, once the rack is over, or with shaping
        off)."""
        if not self.weights.shaping:
            return (0.0, 0.0)
        slots = self.mapper.slots(self.state, self.rules) if self.choice else None
        sigma = self.simulator.noise.angle_deg
        return tuple(PotentialShaping.potential(self.state, self.rules, sigma, p, slots) for p in (0, 1))

    def _shoot(self, move: ShotMove):
        events, self._last_result = simulate_move(self.simulator, self.rules, self.state, move,
                                                  self.np_random, self.render_mode is not None)
        self.state, outcome = self.rules.apply_shot(self.state, move.call, events)
        return outcome

    def _masks(self, agent: str) -> dict:
        obs = observe_game(self.state, self.rules, self.table, self.possible_agents.index(agent))
        masks = {"target_mask": obs["targets"], "choice_mask": obs["choices"]}
        if self.mapper.mode == "choice_discrete":
            flat = self.action_masks(agent).astype(np.int8)
            masks["action_mask"] = tuple(np.split(flat, np.cumsum(self.mapper.nvec)[:-1]))
        return masks

    def _render_scene(self):
        positions = self.state.positions if self.state is not None else {}
        paths = self._last_result.trajectories if self._last_result is not None else None
        return self.table, positions, paths, None
