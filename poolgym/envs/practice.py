"""Practice environments that make learning feasible before whole games."""

from __future__ import annotations

import math
import numbers
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from poolgym.envs.candidates import NO_SLOTS
from poolgym.envs.choice import CHOICE_MODES, MASKED_MODES, make_action_mapper
from poolgym.envs.observations import flatten_observation, observation_spaces, observe, observe_candidates
from poolgym.envs.pool_env import make_table
from poolgym.envs.rendering import DEFAULT_RENDER_FPS, DEFAULT_WIDTH, RENDER_MODES, RenderMixin
from poolgym.numbers import quote, real, seed as check_seed
from poolgym.physics import Shot, ShotResult, Simulator
from poolgym.physics.invariants import random_layout
from poolgym.render.animation import Motion, Still
from poolgym.render.geometry import in_hand_spot
from poolgym.rules import CueBallZone, GameState, Ruleset, ShotCall
from poolgym.table import Table


class _PotBallTargets(Ruleset):
    """The one-ball "rules" of the pot-ball drill: the target is the only legal first ball.
    Used only to drive the shared action mapping (candidates and calls)."""

    name = "pot_ball"

    def __init__(self, table: Table, target: int) -> None:
        super().__init__(table=table)
        self.target = target

    def legal_targets(self, state: GameState) -> frozenset[int]:
        return frozenset({self.target})

    def call_options(self, state: GameState) -> tuple[ShotCall, ...]:
        return (ShotCall(),)


class PotBallEnv(RenderMixin, gym.Env):
    """## Description

    A drill: balls lie at random on the table; pot the given target ball in any pocket with
    one shot, without scratching.

    ## Action Space

    As ``PoolEnv``'s, "aim" by default. Only the target can be chosen (the choice modes'
    slots: the target into each pocket, one safety); placement, decision and call are
    ignored.

    ## Observation Space

    As ``PoolEnv``'s, without ``match`` and ``lookahead``; ``targets`` flags the target.

    ## Rewards

    ``pot_reward`` when the target drops and the cue ball stays up, ``scratch_penalty`` when
    the cue ball drops or any ball leaves the table (WPA 6.1, 6.5), ``miss_penalty``
    otherwise; with ``shaping``, a miss earns up to 0.5 more for bringing the target closer
    to a pocket. The info holds ``target``, ``potted``, ``scratched`` (the cue ball dropped
    or left the table) and ``off_table`` (the balls that left it).

    ## Starting State

    The cue ball and ``n_balls`` object balls at uniform random non-overlapping spots; the
    target is one of them (``reset``'s info names it).

    ## Episode End

    Terminated after the one shot.

    ## Arguments

    | argument | meaning |
    |---|---|
    | ``n_balls`` | a number, or a (low, high) range drawn per episode (1 to 15) |
    | ``pot_reward``, ``scratch_penalty``, ``miss_penalty``, ``shaping`` | the rewards above; shape a miss |
    | ``table``, ``action_mode``, ``obs_mode``, ``noise``, ``max_speed``, ``max_cut_deg``, ``pot_residual``, ``elevation`` | as ``PoolEnv``'s |
    | ``render_mode``, ``width``, ``height``, ``render_fps`` | as ``PoolEnv``'s (the target ringed) |

    ## Version History

    - v1: tournament execution noise.
    - v0: initial release.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": DEFAULT_RENDER_FPS}

    def __init__(self, table: Table | str = "9ft", n_balls: int | tuple[int, int] = (1, 5),
                 action_mode: str = "aim", obs_mode: str = "dict", noise: Any = "none",
                 max_speed: float = 8.0, max_cut_deg: float = 5.0, pot_reward: float = 1.0,
                 scratch_penalty: float = -1.0,
                 miss_penalty: float = 0.0, shaping: bool = False, render_mode: str | None = None,
                 width: int = DEFAULT_WIDTH, height: int | None = None,
                 render_fps: int = DEFAULT_RENDER_FPS, elevation: bool = False,
                 pot_residual: str = "stroke") -> None:
        # NumPy integers are taken as the Python ones (poolgym.numbers), bools are not counts.
        bounds = (n_balls, n_balls) if isinstance(n_balls, numbers.Integral) else n_balls
        if (not isinstance(bounds, (tuple, list)) or len(bounds) != 2
                or not all(isinstance(b, numbers.Integral) and not isinstance(b, bool) for b in bounds)
                or not 1 <= bounds[0] <= bounds[1] <= 15):
            raise ValueError(f"n_balls must be an int or a (low, high) range within 1..15, got {quote(n_balls)}")
        low, high = int(bounds[0]), int(bounds[1])
        for name, value in (("pot_reward", pot_reward), ("scratch_penalty", scratch_penalty),
                            ("miss_penalty", miss_penalty)):
            try:
                finite = math.isfinite(real(value, name))
            except ValueError:
                finite = False
            if not finite:
                raise ValueError(f"{name} must be a finite number, got {quote(value)}")
        self._init_render(render_mode, width, height, render_fps)
        self.table = make_table(table)
        self.n_balls = (low, high)
        self.simulator = Simulator(self.table, noise=noise)
        self.mapper = make_action_mapper(self.table, action_mode, max_speed=max_speed, max_cut_deg=max_cut_deg,
                                         sigma_deg=self.simulator.noise.angle_deg, elevation=elevation,
                                         pot_residual=pot_residual)
        self.action_space = self.mapper.space
        self.choice = action_mode in CHOICE_MODES
        self.observation_space = observation_spaces(obs_mode, choice=self.choice)
        self.obs_mode = obs_mode
        self.rewards = (pot_reward, scratch_penalty, miss_penalty)
        self.shaping = shaping
        self.state: GameState | None = None
        self.target = 1
        # The drill's "rules" for the current layout (the target is the only legal ball), as
        # the action mapping reads them; agents that play on states use them too.
        self.rules = _PotBallTargets(self.table, self.target)
        self._done = True
        self._last_result = None
        self._verdict = ""  # the last shot's verdict, as rendered frames say it

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if options:  # checked before anything changes, as the game envs' options are
            raise ValueError(f"PotBallEnv.reset takes no options, got {quote(sorted(map(str, options)))}"
                             if isinstance(options, dict) else
                             f"reset options must be a mapping, got {type(options).__name__} {quote(options)}")
        super().reset(seed=check_seed(seed))
        n = int(self.np_random.integers(self.n_balls[0], self.n_balls[1] + 1))
        layout = random_layout(self.table, n, self.np_random)
        self.target = int(self.np_random.integers(1, n + 1))
        self.rules = _PotBallTargets(self.table, self.target)
        self.state = GameState(game="pot_ball", balls=layout, awaiting_break=False,
                               cue_ball_in_hand=CueBallZone.NONE)
        self._done = False
        self._last_result = None
        self._verdict = ""
        if self.render_mode is not None:
            self._render_restart(self._render_scene())
            self._render_human()
        return self._observation(), {"target": self.target}

    def step(self, action):
        staged = self.stage_shot(action)
        return self.finish_shot(self.simulator.simulate_executed(*staged, trajectories=self.render_mode is not None))

    def stage_shot(self, action) -> tuple[dict[int, tuple[float, float]], Shot]:
        """The first phase of ``step``: ``action`` validated and decoded, its layout and its
        shot as executed (the noise drawn from the env's generator); nothing else changes
        until ``finish_shot``. In between the shot is simulated, here or with other tables'
        shots in one call (``Simulator.simulate_layouts``)."""
        if self._done:
            raise ResetNeeded("the episode is over: call reset() before step()")
        action = self.mapper.validate(action)
        move = self.mapper.decode(action, self.state, self.rules)
        rng = self.np_random if not self.simulator.noise.is_zero else None
        shot = self.simulator.executed([move.shot], rng)[0]
        return self.simulator.validate_layout(self.state.positions), shot

    def finish_shot(self, result: ShotResult):
        """The last phase of ``step``: the simulated shot's ``result`` judged, the step's
        observation, reward, flags and info."""
        self._last_result = result
        off_table = tuple(sorted(result.off_table))
        potted = self.target in result.pocketed
        scratched = 0 in result.pocketed or 0 in result.off_table
        pot_reward, scratch_penalty, miss_penalty = self.rewards
        if scratched or off_table:
            reward = scratch_penalty
        elif potted:
            reward = pot_reward
        else:
            reward = miss_penalty
            if self.shaping:
                before = self._pocket_distance(self.state.position(self.target))
                after = self._pocket_distance(result.positions[self.target])
                reward += 0.5 * max(0.0, before - after) / max(before, 1e-9)
        self.state = GameState(game="pot_ball", balls=result.positions,
                               out_of_play=tuple(b for b in (*result.pocketed, *off_table) if b != 0),
                               awaiting_break=False,
                               cue_ball_in_hand=CueBallZone.ANYWHERE if scratched else CueBallZone.NONE)
        self._done = True
        if self.render_mode is not None:
            self._verdict = ("scratch: the cue ball dropped" if 0 in result.pocketed
                             else f"foul: {_ball_names(off_table)} off the table" if off_table
                             else f"potted the {self.target}" if potted else "missed")
            end = self._render_scene(paths=False)
            self._render_add(Motion(result, (end.status[0], "shooting"), end, highlight=self.target))
            self._render_human()
        info = {"target": self.target, "potted": potted, "scratched": scratched, "off_table": off_table}
        return self._observation(), float(reward), True, False, info

    @property
    def last_shot(self) -> ShotResult | None:
        """The episode's ``ShotResult`` (its event log, and paths when rendering), or None
        before the shot; not in the step's info, so that vector envs do not copy it."""
        return self._last_result

    def _pocket_distance(self, position) -> float:
        return min(math.hypot(position[0] - p.hole_centre[0], position[1] - p.hole_centre[1])
                   for p in self.table.pockets)

    def _observation(self):
        obs = observe(self.state, (self.target,), self.table, 0)
        if self.choice:
            # Once the shot is played there is nothing left to choose.
            slots = NO_SLOTS if self._done else self.mapper.slots(self.state, self.rules)
            obs.update(observe_candidates(slots))
        return obs if self.obs_mode == "dict" else flatten_observation(obs)

    def action_masks(self) -> np.ndarray:
        """The masks of a masked action mode (see ``PoolEnv.action_masks``)."""
        if not self.mapper.masked:
            raise ValueError(f"action_masks() needs a masked action mode {list(MASKED_MODES)}, "
                             f"not {self.mapper.mode!r}")
        return self.mapper.action_masks(self.state, self.rules)

    def _render_scene(self, paths: bool = True) -> Still:
        """The table as it is now: the target ringed, the last shot's paths unless ``paths``
        is False, and the drill's status."""
        if self.state is None:
            return Still({}, ("", ""))
        positions = self.state.positions
        trajectories = self._last_result.trajectories if paths and self._last_result is not None else None
        in_hand = (in_hand_spot(self.table, positions)
                   if self.state.cue_ball_in_hand is not CueBallZone.NONE else None)
        return Still(positions, (f"pot ball {self.target} in any pocket", self._verdict),
                     paths=trajectories, highlight=self.target, in_hand=in_hand)


def _ball_names(balls: tuple[int, ...]) -> str:
    """"the cue ball", "the 3" or "the cue ball, the 3 and the 5"."""
    names = ["the cue ball" if b == 0 else f"the {b}" for b in balls]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
