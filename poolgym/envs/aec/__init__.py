"""A PettingZoo AEC environment: two learning players at one table.

The player to act is whoever the rules say: the shooter keeps the table after a legal pot,
and a pending decision (push-out response, 8-ball break options, 14.1 re-break, spot
request) is made by its decider. Requires the ``multiagent`` extra (PettingZoo).

As in PettingZoo's classic environments, ``raw_env(**kwargs)`` is the environment itself
(``PoolAECEnv``) and ``env(**kwargs)`` wraps it with the standard wrappers. One module per
game and version gives the registered protocol's defaults, as PettingZoo's ``chess_v6``:
``nine_ball_v1``, ``eight_ball_v1``, ``ten_ball_v1`` and ``straight_pool_v1`` play under
the v1 benchmark protocol of ``poolgym/NineBall-v1`` and its siblings (tournament noise,
racks with gaps, the breaker drawn per episode, the match score observed, strokes up to
12 m/s; ``poolgym.envs.aec.versions``), each with its own ``metadata["name"]``::

    from poolgym.envs.aec import nine_ball_v1

    env = nine_ball_v1.env(action_mode="choice_discrete", race_to=3)
    env.reset(seed=0)
    for agent in env.agent_iter(100):
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from poolgym.envs.actions import ShotMove
from poolgym.envs.candidates import NO_SLOTS, shot_is_due
from poolgym.envs.choice import CHOICE_MODES
from poolgym.envs.observations import (actor, flatten_observation, observation_spaces, observe_candidates,
                                       observe_game)
from poolgym.envs.play import simulate_move
from poolgym.envs.pool_env import build_game, check_reset_options
from poolgym.racking import RackModel
from poolgym.envs.rendering import DEFAULT_RENDER_FPS, DEFAULT_WIDTH, RENDER_MODES, RenderMixin
from poolgym.envs.rewards import PotentialShaping, RewardWeights, reward_terms, weigh
from poolgym.numbers import integer, seed as check_seed
from poolgym.render.animation import Motion, Still
from poolgym.render.geometry import in_hand_spot
from poolgym.render.overlay import decision_verdict, game_status, shot_verdict, shooting
from poolgym.rules import CueBallZone


# Who breaks the first rack of an episode (``breaker=``).
BREAKER_MODES = ("player_0", "player_1", "random", "alternate")


def rack_in_play(state) -> bool:
    """Whether someone is to act: the rack is not over."""
    return state.winner is None and not state.stalemate


# The options ``reset`` takes.
RESET_OPTIONS = ("breaker",)


class PoolAECEnv(RenderMixin, AECEnv):
    """## Description

    A match of ``game`` between ``player_0`` and ``player_1``: ``race_to`` racks (one by
    default); who breaks the first rack is ``breaker``'s choice, the next racks' breakers
    the rules' (``Ruleset.next_breaker``). Each turn is one shot or one decision of the
    player to act.

    ## Action Space

    As ``poolgym.envs.PoolEnv`` (``action_mode`` "aim" by default, "raw", "choice",
    "choice_discrete" or "choice_canonical"; ``elevation=True`` adds the elevated cue's
    component, as there). "choice_discrete" is a ``MultiDiscrete`` (``FlatMaskMultiDiscrete``:
    its ``sample(mask)`` also takes the observation's flat ``action_mask``),
    "choice_canonical" a ``Discrete``; the others are ``Box`` spaces, which have no mask.
    ``action_masks(agent)`` gives the masks of the two discrete modes as ``MaskablePPO``
    reads them; the player not to act gets masks allowing only the first value of each
    dimension (a legal no-op: its action is never played).

    ## Observation Space

    In the discrete action modes the observation follows PettingZoo's
    classic convention: ``{"observation": <as PoolEnv>, "action_mask": int8 array}``, the
    mask being each dimension's legal values concatenated (``action_masks(agent)``). In the
    other modes it is ``PoolEnv``'s observation itself (``obs_mode`` "dict" or "flat"). In
    either case ``PoolEnv``'s part is seen from the observing player's side: the dict has
    ``targets`` (balls that may be hit first) and ``choices`` (the pending decision's
    options), which ``infos[agent]`` repeats as ``target_mask`` and ``choice_mask``; in the
    choice modes it also has the candidate slots' ``candidates`` features and ``slot_mask``
    (``PoolEnv``'s), for the player to act. The dict's ``Discrete`` entries are numpy
    ``int64`` values (their space's dtype).

    ## Usage

    ``env(**kwargs)`` adds PettingZoo's ``OrderEnforcingWrapper`` (``step``, ``observe``,
    ``render`` or ``agent_iter`` before ``reset`` is an ``AssertionError`` saying so) and, in
    the discrete modes, ``AssertOutOfBoundsWrapper``; ``raw_env(**kwargs)`` is this class (its
    own ``step`` before ``reset`` raises ``ResetNeeded``). The Box modes get no clipping
    wrapper: the env refuses an out-of-range action with a ``ValueError`` naming the
    component, where clipping would play another shot. ``pettingzoo.test.api_test`` passes;
    its only warnings are the advice it gives every env whose observation is a dict or whose
    action space is a ``MultiDiscrete`` (its own classic envs are exempted by name), none in
    the Box modes with ``obs_mode="flat"``. Through the wrappers the game state is
    ``env.unwrapped.state`` (a wrapper's ``state()`` is PettingZoo's global-state method).

    ## Rewards

    Each shot's outcome is scored for both players with ``RewardWeights`` (a foul costs its
    shooter and the ball in hand it gives is the opponent's gain; a won rack is +10 for the
    winner and -10 for the loser). ``reward_weights={"shaping": 1.0}`` adds potential-based
    shaping to both players every turn (``PotentialShaping`` with ``shaping_gamma``, see
    ``potentials``): what one gains the other loses.

    ## Episode End

    All agents terminate when a player has won ``race_to`` racks; truncated after
    ``max_turns`` turns. ``infos[agent]["racks_won"]`` holds the match score (player_0's,
    player_1's).

    ## Arguments

    ``game``, ``table``, ``action_mode``, ``obs_mode``, ``noise``, ``reward_weights``,
    ``rule_options``, ``ruleset_kwargs``, ``max_speed``, ``max_cut_deg``, ``elevation``
    (default False), ``pot_residual``, ``rack_model`` ("tight" by default, "benchmark" or a
    ``RackModel``), ``race_to`` (racks, default 1) and ``observe_match`` (the ``match``
    entry: racks won over ``race_to``, from the observer's side) as ``PoolEnv``;
    ``breaker`` ("player_0", the default, "player_1", "random": drawn from the reset
    seed, or "alternate": player_0 in the first episode, then each in turn; a reset's
    ``options={"breaker": 1}`` names it for one match); ``max_turns`` (default 500), ``render_mode`` (as ``PoolEnv``: "rgb_array",
    "rgb_array_list" or "human", which draws each shot in ``step``), ``width``,
    ``height``, ``render_fps``, ``shaping_gamma`` (default 0.99). The class's defaults
    are v0's; ``poolgym.envs.aec.nine_ball_v1`` and its siblings give the v1 protocol's.

    ## Version History

    - v1 (``<game>_v1`` modules): the benchmark protocol of the ``-v1`` game ids
      (tournament noise, ``rack_model="benchmark"``, ``breaker="random"``,
      ``observe_match=True``, strokes up to 12 m/s); the match arguments (``race_to``,
      ``breaker``) are new.
    - v0 (``env()``, ``raw_env()``): one rack, player_0 breaks, no noise, tight racks,
      strokes up to 10 m/s. The physics changed under it as under every version (spin
      through cushions and ball contacts).
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "poolgym_v0", "is_parallelizable": False,
                "render_fps": DEFAULT_RENDER_FPS}

    def __init__(self, game: str = "nine_ball", table: Any = "9ft", action_mode: str = "aim",
                 obs_mode: str = "dict", noise: Any = "none", reward_weights: dict | None = None,
                 rule_options: dict | None = None, max_turns: int = 500, max_speed: float = 10.0,
                 render_mode: str | None = None, shaping_gamma: float = 0.99, width: int = DEFAULT_WIDTH,
                 height: int | None = None, render_fps: int = DEFAULT_RENDER_FPS, elevation: bool = False,
                 pot_residual: str = "stroke", max_cut_deg: float = 5.0, ruleset_kwargs: dict | None = None,
                 rack_model: RackModel | str | dict | None = None, breaker: str = "player_0",
                 race_to: int = 1, observe_match: bool = False) -> None:
        super().__init__()
        self._init_render(render_mode, width, height, render_fps)
        if breaker not in BREAKER_MODES:
            raise ValueError(f"breaker must be one of {list(BREAKER_MODES)}, got {breaker!r}")
        self.race_to = integer(race_to, "race_to")
        if self.race_to < 1:
            raise ValueError(f"race_to must be a whole number of racks >= 1, got {race_to!r}")
        if not isinstance(observe_match, bool):
            raise ValueError(f"observe_match must be True or False, got {observe_match!r}")
        self.table, self.rules, self.rack_model, self.simulator, self.mapper = build_game(
            game, table, rule_options, ruleset_kwargs, rack_model, noise, action_mode, max_speed, max_cut_deg,
            elevation, pot_residual)
        self.choice = action_mode in CHOICE_MODES
        self.weights = RewardWeights.from_config(reward_weights)
        self.shaping = PotentialShaping(shaping_gamma)
        self.masked = self.mapper.masked
        self.breaker_mode = breaker
        self.observe_match = observe_match
        self._obs_space = observation_spaces(obs_mode, match=observe_match, choice=self.choice)
        self._act_space = self.mapper.space
        if self.masked:
            canonical = isinstance(self._act_space, spaces.Discrete)
            if not canonical:
                self._act_space = FlatMaskMultiDiscrete(self.mapper.nvec)
            width = int(self._act_space.n) if canonical else int(self.mapper.nvec.sum())
            self._obs_space = spaces.Dict({
                "observation": self._obs_space,
                "action_mask": spaces.Box(0, 1, shape=(width,), dtype=np.int8)})
        self.obs_mode = obs_mode
        self.max_turns = integer(max_turns, "max_turns")
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {self.max_turns}")
        self.possible_agents = ["player_0", "player_1"]
        self.state = None
        self.racks_won = [0, 0]
        self._episodes = 0
        self._last_result = None
        self._verdict = ""  # the last move's verdict, as rendered frames say it

    def observation_space(self, agent: str):
        self._player(agent)
        return self._obs_space

    def action_space(self, agent: str):
        self._player(agent)
        return self._act_space

    def _player(self, agent: str) -> int:
        """The index of ``agent`` in ``possible_agents``; another name is a ``ValueError``
        naming the agents."""
        if agent not in self.possible_agents:
            raise ValueError(f"unknown agent {agent!r}: the agents are {self.possible_agents}")
        return self.possible_agents.index(agent)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a match. ``seed``: None or an integer >= 0; ``options``: a mapping, whose
        ``"breaker"`` (0 or 1) names who breaks the first rack (player_0 or player_1; else
        ``breaker``'s mode decides). Both are checked before anything changes, as
        ``PoolEnv.reset`` checks its own; other option names are ignored, as PettingZoo's API
        test resets with one of its own."""
        seed = check_seed(seed)
        options = check_reset_options(options, RESET_OPTIONS, tuple(self.possible_agents), others_ignored=True)
        self.np_random = np.random.default_rng(seed)
        if self.breaker_mode == "random":
            # Drawn even when the options name the breaker, so that they change nothing else.
            breaker = int(self.np_random.integers(2))
        elif self.breaker_mode == "alternate":
            breaker = self._episodes % 2
        else:
            breaker = self.possible_agents.index(self.breaker_mode)
        breaker = options.get("breaker", breaker)
        self._episodes += 1
        self.state = self.rules.new_game(rng=self.np_random, breaker=breaker)
        self.racks_won = [0, 0]
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._masks(a) for a in self.agents}
        self.turns = 0
        self._last_result = None
        self.agent_selection = self.possible_agents[actor(self.state)]
        if self.render_mode is not None:
            self._verdict = f"new game: {self.possible_agents[self.state.breaker]} breaks"
            self._render_restart(self._render_scene())
            self._render_human()

    def observe(self, agent: str):
        player = self._player(agent)
        self._check_reset("observe")
        match = (tuple(self.racks_won), self.race_to) if self.observe_match else None
        obs = observe_game(self.state, self.rules, self.table, player, match=match)
        if self.choice:
            obs.update(observe_candidates(self._slots_for(agent)))
        obs = self._typed(obs) if self.obs_mode == "dict" else flatten_observation(obs)
        if self.masked:
            return {"observation": obs, "action_mask": self.action_masks(agent).astype(np.int8)}
        return obs

    def _typed(self, obs: dict) -> dict:
        """``obs`` with its ``Discrete`` entries (Python ints from ``observe_game``) as their
        space's numpy dtype, as PettingZoo's checker compares dtypes entry by entry."""
        space = self._obs_space["observation"] if self.masked else self._obs_space
        for key, sub in space.spaces.items():
            if isinstance(sub, spaces.Discrete):
                obs[key] = sub.dtype.type(obs[key])
        return obs

    def _check_reset(self, what: str) -> None:
        if self.state is None:
            raise ResetNeeded(f"call reset() before {what}()")

    def _slots_for(self, agent: str):
        """The candidate slots of the state when ``agent`` is to shoot; none otherwise."""
        slots = self.mapper.slots(self.state, self.rules)
        mine = shot_is_due(self.state) and self.state.shooter == self._player(agent)
        return slots if mine else NO_SLOTS

    def action_masks(self, agent: str | None = None) -> np.ndarray:
        """The masks of ``agent`` (default: the player to act) in a masked mode: its legal
        slots and choices ("choice_discrete") or options ("choice_canonical") when it is to
        act, else the first value of each dimension (the first option)."""
        if agent is not None:
            self._player(agent)
        self._check_reset("action_masks")
        acting = self.possible_agents[actor(self.state)]
        agent = acting if agent is None else agent
        masks = self.mapper.action_masks(self.state, self.rules)
        if agent == acting and rack_in_play(self.state):
            return masks
        idle = np.zeros_like(masks)
        if isinstance(self._act_space, spaces.Discrete):
            idle[0] = True
        else:
            idle[np.concatenate([[0], np.cumsum(self.mapper.nvec)[:-1]])] = True
        return idle

    def step(self, action) -> None:
        self._check_reset("step")
        if not self.agents:  # every agent is done and has been stepped out
            raise ResetNeeded("the match is over and every agent is done: call reset() before step()")
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
            decider = actor(self.state)
            self.state = self.rules.apply_decision(self.state, move)
            if self.render_mode is not None:
                self._verdict = decision_verdict(decider, move, self.possible_agents)
                self._render_add(self._render_scene(paths=False))
        if self.weights.shaping:
            for name, phi_before, phi_after in zip(self.possible_agents, before, self.potentials()):
                self.rewards[name] += self.weights.shaping * self.shaping.term(phi_before, phi_after)
        self.turns += 1
        over = False
        if outcome is not None and outcome.rack_over:
            over = self._end_rack(outcome)
        for name in self.agents:
            self.terminations[name] = over
            self.truncations[name] = not over and self.turns >= self.max_turns
            self.infos[name] = self._masks(name)
            if outcome is not None:
                self.infos[name]["outcome"] = outcome
        if not over:
            self.agent_selection = self.possible_agents[actor(self.state)]
        self._accumulate_rewards()
        self._render_human()

    def _end_rack(self, outcome) -> bool:
        """Count the rack ``outcome`` ended; rack the next one unless the match is over.
        Whether it is."""
        if outcome.winner is not None:
            self.racks_won[outcome.winner] += 1
        if max(self.racks_won) >= self.race_to:
            return True
        self.state = self.rules.next_rack(self.state, rng=self.np_random)
        return False

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
        before = self.state
        events, self._last_result = simulate_move(self.simulator, self.rules, before, move,
                                                  self.np_random, self.render_mode is not None)
        self.state, outcome = self.rules.apply_shot(before, move.call, events)
        if self.render_mode is not None:
            names = self.possible_agents
            status = (game_status(before, names, self.racks_won, self.race_to, in_hand=False),
                      shooting(before, names))
            self._verdict = shot_verdict(outcome, names)
            end = self._render_scene(paths=False)
            self._render_add(end if self._last_result is None else Motion(self._last_result, status, end))
        return outcome

    def _masks(self, agent: str) -> dict:
        obs = observe_game(self.state, self.rules, self.table, self._player(agent))
        return {"target_mask": obs["targets"], "choice_mask": obs["choices"], "racks_won": tuple(self.racks_won)}

    def _render_scene(self, paths: bool = True) -> Still:
        """The table as it is now, with the last shot's paths unless ``paths`` is False."""
        if self.state is None:
            return Still({}, ("", ""))
        state, positions = self.state, self.state.positions
        trajectories = self._last_result.trajectories if paths and self._last_result is not None else None
        in_hand = (in_hand_spot(self.table, positions)
                   if state.cue_ball_in_hand is not CueBallZone.NONE and rack_in_play(state) else None)
        status = game_status(state, self.possible_agents, self.racks_won, self.race_to)
        return Still(positions, (status, self._verdict),
                     paths=trajectories, in_hand=in_hand)


class FlatMaskMultiDiscrete(spaces.MultiDiscrete):
    """A ``MultiDiscrete`` whose ``sample(mask)`` also takes the mask flat: each dimension's
    int8 mask concatenated, as PettingZoo's classic ``action_mask`` (one 1-D array) and
    sb3-contrib's ``MaskablePPO`` give it. A tuple of per-dimension masks works as in
    Gymnasium."""

    def sample(self, mask=None, probability=None):
        if isinstance(mask, np.ndarray) and mask.ndim == 1:
            if mask.shape[0] != int(self.nvec.sum()):
                raise ValueError(f"a flat action mask has {int(self.nvec.sum())} entries (the sum of "
                                 f"nvec {self.nvec.tolist()}), got {mask.shape[0]}")
            mask = tuple(np.split(mask, np.cumsum(self.nvec)[:-1]))
        return super().sample(mask=mask, probability=probability)


# PettingZoo's classic naming: ``raw_env`` is the environment, ``env`` the wrapped one.
raw_env = PoolAECEnv


def env(**kwargs) -> AECEnv:
    """``PoolAECEnv(**kwargs)`` (v0's defaults) with PettingZoo's standard wrappers
    (``wrap``)."""
    return wrap(raw_env(**kwargs))


def wrap(wrapped: PoolAECEnv) -> AECEnv:
    """``wrapped`` in PettingZoo's standard wrappers: ``OrderEnforcingWrapper`` always,
    ``AssertOutOfBoundsWrapper`` in the discrete action modes."""
    if wrapped.masked:
        wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
