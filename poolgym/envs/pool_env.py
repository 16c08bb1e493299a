"""The game environments: one class, variants by keyword arguments."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Callable, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from poolgym.config import from_mapping
from poolgym.numbers import quote, real, seed as check_seed
from poolgym.envs.actions import ActionMapper, ShotMove
from poolgym.envs.choice import CHOICE_MODES, MASKED_MODES, make_action_mapper
from poolgym.envs.lookahead import DEFAULT_SAMPLES as DEFAULT_LOOKAHEAD_SAMPLES, lookahead_features
from poolgym.envs.lookahead import check_samples as check_lookahead_samples
from poolgym.envs.observations import (actor, flat_game_observation, observation_spaces, observe_candidates,
                                       observe_game)
from poolgym.envs.play import StagedShot, shot_events, stage_shot
from poolgym.envs.rendering import DEFAULT_RENDER_FPS, DEFAULT_WIDTH, RENDER_MODES, RenderMixin
from poolgym.envs.opponents import make_opponent
from poolgym.envs.rewards import PotentialShaping, RewardWeights, reward_terms, weigh
from poolgym.physics import ShotResult, Simulator
from poolgym.racking import RackModel
from poolgym.records import stored
from poolgym.render.animation import Motion, Still
from poolgym.render.geometry import in_hand_spot
from poolgym.render.overlay import PLAYER_NAMES, decision_verdict, game_status, shot_verdict, shooting
from poolgym.rules import CueBallZone, Decision, GameState, Outcome, RuleOptions, Ruleset, ShotEvents, get_ruleset
from poolgym.table import Table


# The reward terms every step reports (the fields of RewardWeights, whatever their values).
_TERM_NAMES = tuple(f.name for f in fields(RewardWeights))


class OpponentError(RuntimeError):
    """The opponent's move failed (its policy raised, or its action or move was refused);
    inside ``step`` the env is left exactly as it was before the call."""


def make_table(table: Table | str) -> Table:
    return table if isinstance(table, Table) else Table.preset(table)


# Who breaks the first rack of an episode (``breaker=``); ``reset(options={"breaker": 0 | 1})``
# overrides it for one episode (0 = the agent).
BREAKER_MODES = ("agent", "opponent", "random", "alternate")
# ``reset`` options: ``breaker`` (0 = the agent, 1 = the opponent) for this episode, and
# ``play_opponent=False`` to stop before the opponent's first move (tools such as replays
# that play every move themselves with ``play_move``).
RESET_OPTIONS = ("breaker", "play_opponent")
# The keys every step's (and reset's) info holds: plain values and the rules' small frozen
# records. "outcome" is the agent's shot's ``Outcome`` and "decision" the agent's answer to a
# pending decision (``Decision``), each None when the agent's move was the other kind (or no
# move was played); "winner" is -1 (``NOBODY``) until the episode is over, "to_act" -1 once it
# is, so each key keeps one type and Gymnasium's vector envs stack them.
INFO_KEYS = ("player", "outcomes", "reward_terms", "racks_won", "outcome", "decision", "winner", "to_act")
NOBODY = -1


def check_reset_options(options, known: tuple[str, ...], players: tuple[str, str],
                        others_ignored: bool = False) -> dict:
    """``options`` (None or a mapping of names in ``known``) as a dict of those names, its
    ``breaker`` (if given) as the int 0 or 1 (``players`` names them), else ``ValueError``
    naming the option and what is allowed; the game envs check their options with it before
    anything changes. With ``others_ignored`` a name not in ``known`` is left out instead of
    refused (PettingZoo's API test resets with an option of its own)."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a mapping, got {type(options).__name__} {quote(options)}")
    unknown = sorted(map(str, set(options) - set(known)))
    if unknown and not others_ignored:
        raise ValueError(f"unknown reset options {unknown}; options are {list(known)}")
    options = {name: value for name, value in options.items() if name in known}
    if "breaker" in options:
        breaker = options["breaker"]
        if isinstance(breaker, bool) or not isinstance(breaker, numbers.Integral) or breaker not in (0, 1):
            raise ValueError(f"reset option 'breaker' must be 0 ({players[0]}) or 1 ({players[1]}), "
                             f"got {quote(breaker)}")
        options["breaker"] = int(breaker)
    return options


def make_rule_options(options: RuleOptions | dict | None) -> RuleOptions:
    """``RuleOptions`` from a mapping; an unknown name is an error that names it."""
    return from_mapping(RuleOptions, options, "rule options")


class GameParts(NamedTuple):
    """What a game env (``PoolEnv``, the PettingZoo env) is built from."""

    table: Table
    rules: Ruleset
    rack_model: RackModel
    simulator: Simulator
    mapper: ActionMapper


def build_game(game: str, table: Table | str, rule_options: RuleOptions | dict | None,
               ruleset_kwargs: dict | None, rack_model: RackModel | str | dict | None, noise: Any,
               action_mode: str, max_speed: float, max_cut_deg: float, elevation: bool,
               pot_residual: str, ruleset: Ruleset | None = None) -> GameParts:
    """The table, the rules (``ruleset`` when given, else ``game`` with its options and
    arguments, racked by ``rack_model``), the simulator with its execution ``noise`` and the
    action mapping of ``action_mode``; each argument is checked by what it builds."""
    table = make_table(table)
    rules = ruleset if ruleset is not None else get_ruleset(
        game, options=make_rule_options(rule_options), table=table, **(ruleset_kwargs or {}))
    rack_model = RackModel.make(rack_model)
    rules = rules if rack_model.is_tight else rules.with_rack_model(rack_model)
    simulator = Simulator(table, noise=noise)
    mapper = make_action_mapper(table, action_mode, max_speed=max_speed, max_cut_deg=max_cut_deg,
                                sigma_deg=simulator.noise.angle_deg, elevation=elevation,
                                pot_residual=pot_residual)
    return GameParts(table, rules, rack_model, simulator, mapper)


@dataclass(frozen=True)
class MoveRecord:
    """One move as the environment played it.

    ``player`` acted with ``action`` (validated, as floats), which meant ``move`` (a
    ``ShotMove`` or a ``Decision``) in state ``before`` when decoded with the env's action
    mapping of mode ``mapping`` ("raw" or "aim"; ``PoolEnv.mapper_for``). A shot has its simulation
    ``result`` (None when the cue-ball placement overlapped a ball and nothing was struck)
    and the rules' ``outcome``; ``after`` is the state that followed, the next rack's
    when the move ended one.
    """

    player: int
    action: tuple[float, ...]
    move: ShotMove | Decision
    before: GameState
    result: ShotResult | None
    outcome: Outcome | None
    after: GameState
    mapping: str

    @property
    def decision(self) -> Decision | None:
        """The ``Decision`` when the move answered one, else None (the move was a shot)."""
        return self.move if isinstance(self.move, Decision) else None

    @property
    def layout(self) -> dict[int, tuple[float, float]]:
        """The balls as they lay when the shot was struck (the cue ball at its placement)."""
        layout = self.before.positions
        if isinstance(self.move, ShotMove) and self.move.placement is not None:
            layout[0] = self.move.placement
        return layout


class StagedMove(NamedTuple):
    """A move between ``PoolEnv.stage_move`` and ``PoolEnv.finish_move``: who plays it, the
    validated ``action``, the ``mapper`` that decoded it, the state ``before`` and the
    ``move``; for a shot, ``staged`` is its ``StagedShot`` (to simulate) or the events of a
    placement that overlapped a ball (nothing to simulate), else None."""

    player: int
    action: Any
    mapper: ActionMapper
    before: GameState
    move: ShotMove | Decision
    staged: StagedShot | ShotEvents | None

    @property
    def shot(self) -> StagedShot | None:
        """The shot to simulate, if any."""
        return self.staged if isinstance(self.staged, StagedShot) else None


class PoolEnv(RenderMixin, gym.Env):
    """## Description

    A game of pool under WPA rules, shot by shot: 9-ball, 8-ball, 10-ball or 14.1
    continuous (``game``). The agent is player 0. A step is one of its shots (or its answer
    to a pending decision) and the opponent's moves that follow. ``play_move(action)``
    plays one move of whoever is to act; ``move_listeners`` receive every ``MoveRecord``.

    ## Action Space

    | ``action_mode`` | space | components |
    |---|---|---|
    | "raw" | ``Box(-1, 1, (8,))`` | aim, speed, side, vertical, place_x, place_y, decision, call |
    | "aim" | ``Box(-1, 1, (10,))`` | target (ball and pocket, also the call), cut, speed, side, vertical, place_x, place_y, decision, push_out, safety |
    | "choice" | ``Box(-1, 1, (27,))`` | 20 slot scores (the best valid one is played), cut, speed, side, vertical, place_distance, place_angle, decision |
    | "choice_discrete" | ``MultiDiscrete([20, 11, 10, 5, 5, 5, 7, 11])`` | the slot, each parameter's bin, the decision's index |
    | "choice_canonical" | ``Discrete(86)`` | one of a fixed list of moves |

    Placement counts with the cue ball in hand, the decision when one is pending, so one
    policy plays a whole game. The choice modes' 20 slots are 16 pots ranked easiest
    first, 3 safeties and a push out; in the discrete two, ``action_masks()`` gives the
    valid actions for ``MaskablePPO``.
    ``elevation=True`` adds the cue's elevation, 0 to 80 degrees (not in
    "choice_canonical"). A placement on a ball is the WPA 6.10 foul, not an error.

    ## Observation Space

    ``obs_mode="dict"`` (below) or ``"flat"`` (one ``Box`` in ``gymnasium.spaces.flatten``'s
    order, for ``MlpPolicy``), from the observer's side: the agent's (in solo play, the
    player to act's).

    | entry | holds |
    |---|---|
    | ``balls`` | (x / length, y / width, on table) of balls 0-15, cue ball first |
    | ``targets`` | the balls that may legally be hit first |
    | ``cue_ball_in_hand`` | 0 no, 1 anywhere, 2 kitchen |
    | ``pending``, ``choices`` | the pending decision (0 none) and its choices |
    | ``push_out_available``, ``breaking`` | 1 when a push out is allowed; when a break is next |
    | ``group`` | the observer's 8-ball group: 0 open, 1 solids, 2 stripes |
    | ``scores``, ``fouls`` | 14.1 scores / target; fouls in a row / 3 (observer first) |
    | ``player`` | the observer |
    | ``match`` | with ``observe_match``: racks won / ``race_to`` (observer first) |
    | ``candidates``, ``slot_mask`` | choice modes: each slot's features; the playable slots |
    | ``lookahead`` | with ``lookahead=True``: what canonical strokes on the first pot slots leave |

    ## Rewards

    Weighted terms of the step's shots (``reward_weights``, ``RewardWeights``): legal pot
    +1, foul -1, ball in hand conceded -0.5 / gained +0.5, rack won +10 / lost -10, 14.1
    points +1; shaping off (``{"shaping": 1.0}``, discount ``shaping_gamma``). A ball
    off the table is a foul (WPA 6.1, 6.5); an object ball returns if the game spots it (9-ball: the 9).

    Every step's info has the same keys (``INFO_KEYS``):

    | key | holds |
    |---|---|
    | ``reward_terms`` | the step's terms |
    | ``outcomes`` | every shot's ``Outcome`` (fouls with their WPA sections, pocketed, legal) |
    | ``outcome`` | the agent's own, or None when the agent's move was a decision (a push-out's answer, a break option) |
    | ``decision`` | that decision, else None |
    | ``winner`` | the winner (0 = agent) once the episode is over, -1 until then |
    | ``to_act`` | who acts next, -1 once it is over |
    | ``player``, ``racks_won`` | the agent (0); racks won by each player |

    The state is ``env.unwrapped.state``, the last ``ShotResult``
    ``env.unwrapped.last_shot``; a policy opponent's info also has ``info["state"]``.

    ## Starting State

    A new rack from ``reset(seed=...)`` (with ``rack_model``'s gaps), the breaker with the
    cue ball in hand in the kitchen (``reset(options={"breaker": 0 | 1})`` for one
    episode). An opponent's break and run happen in ``reset``: in ``info["outcomes"]``,
    counted in the first step's reward (if they win the match, that step ends the episode
    unplayed); ``reset(options={"play_opponent": False})`` stops before them.

    ## Episode End

    Terminated when a player has won ``race_to`` racks (a stalemate re-racks); truncated
    at the registered step limit.

    ## Arguments

    | argument | meaning |
    |---|---|
    | ``game``, ``ruleset_kwargs``, ``rule_options``, ``ruleset`` | "nine_ball", "eight_ball", "ten_ball", "straight_pool"; its arguments (``{"target_score": 25}``); ``RuleOptions`` fields; or a ``Ruleset`` |
    | ``table`` | "9ft", "8ft", "7ft" or a ``Table`` |
    | ``opponent`` | a ladder name ("random" ... "bot:pro-deep"), "pretrained:NAME", "[ALGO:]path.zip", "uniform-action", "solo", an agent or a ``policy(obs, info)`` |
    | ``breaker`` | "agent", "opponent", "random" or "alternate" |
    | ``race_to``, ``observe_match`` | racks to win; observe the score |
    | ``rack_model`` | "tight" (None), "benchmark" (gaps), a mapping or a ``RackModel`` |
    | ``action_mode``, ``obs_mode``, ``elevation`` | above |
    | ``noise`` | "none", "tournament", "fastfiz" or a ``Noise`` |
    | ``max_speed``, ``max_cut_deg`` | fastest stroke (m/s); cut range (degrees) |
    | ``pot_residual`` | choice modes: the cut turns the "stroke" or the "object_ball" line |
    | ``lookahead``, ``lookahead_samples`` | choice modes: the ``lookahead`` entry; its noisy plays per stroke |
    | ``reward_weights``, ``shaping_gamma`` | ``RewardWeights`` fields; the shaping's discount (the learner's) |
    | ``render_mode`` | "rgb_array" (the picture above), "rgb_array_list" (every frame) or "human" (a window) |
    | ``width``, ``height``, ``render_fps``, ``trajectories`` | frame pixels (height: the table's proportions); frames per simulated second; the paths in ``last_shot`` |

    ## Version History

    - v1: the benchmark protocol (tournament noise, racks with gaps, random breaker,
      match observed, ``legal-random`` opponent, strokes up to 12 m/s).
    - v0: initial release.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": DEFAULT_RENDER_FPS}

    def __init__(self, game: str = "nine_ball", table: Table | str = "9ft", opponent: Any = "legal-random",
                 action_mode: str = "raw", obs_mode: str = "dict", noise: Any = "none",
                 reward_weights: RewardWeights | dict | None = None, rule_options: RuleOptions | dict | None = None,
                 race_to: int = 1, max_speed: float = 10.0, max_cut_deg: float = 5.0,
                 render_mode: str | None = None,
                 trajectories: bool = False, ruleset: Ruleset | None = None,
                 ruleset_kwargs: dict | None = None, breaker: str = "agent",
                 rack_model: RackModel | str | dict | None = None, observe_match: bool = False,
                 shaping_gamma: float = 0.99, width: int = DEFAULT_WIDTH, height: int | None = None,
                 render_fps: int = DEFAULT_RENDER_FPS, elevation: bool = False,
                 pot_residual: str = "stroke", lookahead: bool = False,
                 lookahead_samples: int = DEFAULT_LOOKAHEAD_SAMPLES) -> None:
        self._init_render(render_mode, width, height, render_fps)
        # NumPy numbers are taken as the Python ones (poolgym.numbers), bools are not numbers.
        if isinstance(race_to, bool) or not isinstance(race_to, numbers.Integral) or race_to < 1:
            raise ValueError(f"race_to must be a whole number of racks >= 1, got {quote(race_to)}")
        race_to = int(race_to)
        if not isinstance(trajectories, bool):
            raise ValueError(f"trajectories must be True or False, got {quote(trajectories)}")
        if isinstance(max_speed, numbers.Real) and not isinstance(max_speed, bool):
            max_speed = real(max_speed, "max_speed")  # a NumPy float as the Python one
        if breaker not in BREAKER_MODES:
            raise ValueError(f"breaker must be one of {list(BREAKER_MODES)}, got {breaker!r}")
        if not isinstance(observe_match, bool):
            raise ValueError(f"observe_match must be True or False, got {observe_match!r}")
        self.table, self.rules, self.rack_model, self.simulator, self.mapper = build_game(
            game, table, rule_options, ruleset_kwargs, rack_model, noise, action_mode, max_speed, max_cut_deg,
            elevation, pot_residual, ruleset)
        # The game's own arguments as given (saved games record them); None for a ruleset
        # passed as an object, whose arguments are its own.
        self.ruleset_kwargs = dict(ruleset_kwargs or {}) if ruleset is None else None
        self.elevation = self.mapper.elevation
        self.action_space = self.mapper.space
        self.choice = action_mode in CHOICE_MODES
        self.observe_match = observe_match
        if not isinstance(lookahead, bool):
            raise ValueError(f"lookahead must be True or False, got {lookahead!r}")
        if lookahead and not self.choice:
            raise ValueError(f"lookahead=True needs a choice action mode {list(CHOICE_MODES)}, "
                             f"not {action_mode!r} (its features follow the candidate slots)")
        self.lookahead, self.lookahead_samples = lookahead, check_lookahead_samples(lookahead_samples)
        self.observation_space = observation_spaces(obs_mode, match=observe_match, choice=self.choice,
                                                    lookahead=lookahead)
        self.obs_mode = obs_mode
        self.weights = RewardWeights.from_config(reward_weights)
        self.shaping = PotentialShaping(shaping_gamma)
        # Opponent agents' moves are encoded here: raw mode is exact for strokes and calls.
        self.opponent_mapper = ActionMapper(self.table, "raw", max_speed=max_speed, elevation=self.elevation)
        # One cache of the current state's derived values (legal targets, call options,
        # candidates) for both mappings and the observation.
        self.opponent_mapper.derived = self.mapper.derived
        self.opponent = make_opponent(opponent, self.action_space, rules=self.rules,
                                      noise=self.simulator.noise, max_speed=max_speed, elevation=self.elevation)
        # The name the opponent was given by (saved games record it), None for an object.
        self.opponent_name = opponent if isinstance(opponent, str) else None
        self.solo = self.opponent is None
        self.race_to = race_to
        self.trajectories = trajectories or render_mode is not None
        self.agent = 0
        self.breaker_mode = breaker
        self.state: GameState | None = None
        # The threads the lookahead's compiled calls share (``lookahead_features``): a
        # batched env's ``num_threads``; None plays them in this thread.
        self.kernel_threads = None
        # The last state the rules' transitions built here (``_enter``).
        self._built_state: GameState | None = None
        self.initial_state: GameState | None = None
        self.racks_won = [0, 0]
        self._done = True
        self._last_result = None
        self._episodes = 0
        # The opponent's outcomes before the agent's first move (it broke): they count in
        # the first step, as the opponent's replies count in the step they follow.
        self._before_first_move: list[Outcome] | None = None
        # Called with every move's MoveRecord, the opponent's included (recorders, soaks).
        self.move_listeners: list[Callable[[MoveRecord], None]] = []
        # Records of a step in progress, told to the listeners once it succeeds.
        self._held_records: list[MoveRecord] | None = None
        # What the rendered frames say: the players' names, the last move's verdict, the
        # racks won as of the moves drawn so far.
        self._names = PLAYER_NAMES if self.solo else ("agent", "opponent")
        self._verdict = ""
        self._drawn_racks = [0, 0]

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        breaker = self._breaker(options)  # checks the options before anything changes
        super().reset(seed=check_seed(seed))
        if hasattr(self.opponent, "reseed"):
            self.opponent.reseed(int(self.np_random.integers(2**63)))
        if self.breaker_mode == "random" and not self.solo:
            # Drawn even when the options name the breaker, so that they change nothing else.
            drawn = int(self.np_random.integers(2))
            breaker = drawn if breaker is None else breaker
        self._episodes += 1
        self._enter(self.rules.new_game(rng=self.np_random, breaker=breaker))
        self.initial_state = self.state
        self.racks_won = [0, 0]
        self._done = False
        self._last_result = None
        if self.render_mode is not None:
            self._verdict = f"new game: {self._names[self.state.breaker]} breaks"
            self._drawn_racks = [0, 0]
            self._render_restart(self._render_scene())
        outcomes: list[Outcome] = []
        if (options or {}).get("play_opponent", True):
            try:
                self._opponent_turns(outcomes)
            except OpponentError:
                # No half-started episode: the next call must be reset() (nor a previous
                # episode's opening outcomes, which would let step() play on).
                self._done, self._before_first_move = True, None
                raise
        self._before_first_move = outcomes
        self._render_human()
        return self._observation(self.agent), self._info(outcomes, {})

    def _breaker(self, options: dict | None) -> int | None:
        """The first rack's breaker (0 = the agent), or None to draw it from the seed."""
        options = check_reset_options(options, RESET_OPTIONS, ("the agent", "the opponent"))
        play = options.get("play_opponent", True)
        if not isinstance(play, bool):
            raise ValueError(f"reset option 'play_opponent' must be True or False, got {play!r}")
        if "breaker" in options:
            return options["breaker"]
        if self.breaker_mode == "agent" or self.solo:
            return self.agent
        if self.breaker_mode == "opponent":
            return 1 - self.agent
        if self.breaker_mode == "alternate":
            return (self.agent + self._episodes) % 2
        return None

    def step(self, action):
        """Play the agent's move and the opponent's replies. All or nothing: if anything
        fails (the agent's action, the opponent's policy, action or move), the env is left
        exactly as before the call (state, racks, random generators, episode flags) and no
        move reaches ``move_listeners``; an opponent's failure is an ``OpponentError``."""
        decision = None
        with self._all_or_nothing():
            outcomes, potential_before = self.begin_step(action)
            if not self._done:
                record = self.play_move(action)
                self._collect(record, outcomes)
                decision = record.decision
                self._opponent_turns(outcomes)
        result = self.end_step(outcomes, potential_before, decision)
        self._render_human()
        return result

    def begin_step(self, action) -> tuple[list[Outcome], float]:
        """The first phase of ``step``, inside its ``_all_or_nothing``: the outcomes the
        step starts with (the opponent's opening, after a reset) and the shaping potential
        before it. When the episode is over before the agent's first move (the opponent won
        the match in ``reset``), ``action`` is validated and nothing is played; otherwise
        the agent's move is played next (``play_move``, or ``stage_move`` and
        ``finish_move``), then the opponent's (``_opponent_turns``)."""
        first = self._before_first_move
        if self._done and first is None:
            raise ResetNeeded("the episode is over: call reset() before step()")
        self._before_first_move = None
        outcomes: list[Outcome] = list(first or [])
        potential_before = self._remembered_potential()
        if self._done:
            # The opponent won the match before the agent's first move: nothing to play.
            self.mapper.validate(action)
        return outcomes, potential_before

    def end_step(self, outcomes: list[Outcome], potential_before: float, decision: Decision | None = None):
        """The last phase of ``step``: its observation, reward, terminated and truncated
        flags and info from the step's ``outcomes`` (and the agent's ``decision``, when its
        move answered one)."""
        terms = dict.fromkeys(_TERM_NAMES, 0.0)
        for outcome in outcomes:
            for name, value in reward_terms(outcome, self.agent, self.solo).items():
                terms[name] += value
        if self.weights.shaping:
            terms["shaping"] = self.shaping.term(potential_before, self._remembered_potential())
        reward = weigh(terms, self.weights)
        player = actor(self.state) if self.solo else self.agent
        return self._observation(player), reward, self._done, False, self._info(outcomes, terms, decision=decision)

    # ------------------------------------------------------------------ rendering
    def _render_scene(self) -> Still:
        """The table as it is now, with the last shot's paths (``rgb_array``)."""
        if self.state is None:
            return Still({}, ("", ""))
        paths = self._last_result.trajectories if self._last_result is not None else None
        return self._still(self.state, self.state.positions, self._verdict, paths)

    def _still(self, state: GameState, positions: dict, verdict: str, paths=None) -> Still:
        status = (game_status(state, self._names, self._drawn_racks, self.race_to), verdict)
        in_hand = (in_hand_spot(self.table, positions)
                   if state.cue_ball_in_hand is not CueBallZone.NONE and not state.is_over else None)
        return Still(positions, status, paths=paths, in_hand=in_hand)

    def _render_move(self, record: MoveRecord) -> None:
        """Keep the frames of a move played (see ``poolgym.envs.rendering``)."""
        # The score as the move began, before this move's rack (if it ends one) is counted.
        before = (game_status(record.before, self._names, self._drawn_racks, self.race_to, in_hand=False),
                  shooting(record.before, self._names))
        if record.outcome is None:  # a decision: the balls do not move
            self._verdict = decision_verdict(record.player, record.move, self._names)
            self._render_add(self._still(record.after, record.after.positions, self._verdict))
            return
        outcome = record.outcome
        self._verdict = shot_verdict(outcome, self._names)
        if outcome.winner is not None:
            self._drawn_racks[outcome.winner] += 1
        if record.result is None:  # the placement overlapped a ball: nothing was struck
            self._render_add(self._still(record.after, record.layout, self._verdict))
            return
        # At rest the balls lie as the rules left them (spotted balls, a cue ball in hand),
        # unless the rack ended: then as the shot left them, before the next rack.
        rest = record.result.positions if outcome.rack_over else record.after.positions
        end = self._still(record.after, rest, self._verdict)
        self._render_add(Motion(record.result, before, end))

    # ------------------------------------------------------------------ play
    def _opponent_turns(self, outcomes: list[Outcome]) -> None:
        """Play the opponent's moves while the episode goes on, the env is not solo and the
        agent is not to act, appending their outcomes to ``outcomes``. An agent opponent's
        move is encoded with ``opponent_mapper``; a policy's action is the env's own. Any
        failure is raised as an ``OpponentError`` naming the opponent."""
        while self.opponent_to_act():
            self._collect(self.finish_opponent_move(self.stage_opponent_move(outcomes)), outcomes)

    def opponent_to_act(self) -> bool:
        """Whether the opponent plays next inside ``step``: the episode goes on, the env is
        not solo and the agent is not to act."""
        return not self._done and not self.solo and actor(self.state) != self.agent

    def stage_opponent_move(self, outcomes: list[Outcome]) -> StagedMove:
        """The opponent's next move, chosen and staged (``stage_move``). An agent opponent's
        move is encoded with ``opponent_mapper``; a policy's action (it sees the step's
        ``outcomes`` so far) is the env's own. Any failure is raised as an
        ``OpponentError`` naming the opponent."""
        opponent, theirs = self.opponent, 1 - self.agent
        try:
            if hasattr(opponent, "choose"):
                state, mapper = self.state, self.opponent_mapper
                move = opponent.choose(state)
                # ``stage_move`` refuses a move once the episode is over (after the encoding's
                # own checks), and decodes with the agent's mapping when that is raw as well.
                if self._done or self.mapper.mode == mapper.mode:
                    return self.stage_move(mapper.encode(move, state, self.rules), mapping=mapper.mode)
                # Else ``encode``, ``validate`` and ``decode`` in one pass (``ActionMapper.played``).
                return self._stage(*mapper.played(move, state, self.rules), mapper)
            action = opponent(self._observation(theirs), self._info(outcomes, {}, player=theirs))
            return self.stage_move(action)
        except Exception as exc:
            raise self._opponent_error(exc) from exc

    def finish_opponent_move(self, staged: StagedMove, result: ShotResult | None = None,
                             events: ShotEvents | None = None) -> MoveRecord:
        """``finish_move`` for the opponent's staged move; a failure (its move refused by
        the rules) is raised as an ``OpponentError``."""
        try:
            return self.finish_move(staged, result, events)
        except Exception as exc:
            raise self._opponent_error(exc) from exc

    def _opponent_error(self, exc: Exception) -> OpponentError:
        return OpponentError(f"the opponent's move failed ({self.opponent_name or self.opponent!r}): "
                             f"{type(exc).__name__}: {exc}")

    def _all_or_nothing(self) -> _AllOrNothing:
        """A context that restores everything a step changes if its block raises, and hands
        the block's move records to ``move_listeners`` only once it has finished."""
        return _AllOrNothing(self)

    def _save_step(self) -> tuple:
        """What a step changes (``_all_or_nothing``), saved; the move records held from now."""
        saved = (self.state, self._built_state, list(self.racks_won), self._done, self._last_result,
                 self._before_first_move, self.np_random.bit_generator.state,
                 [(g, g.bit_generator.state) for g in _generators(self.opponent)])
        self._held_records = []
        return saved

    def _restore_step(self, saved: tuple) -> None:
        """Everything ``_save_step`` saved put back; the held records dropped."""
        (self.state, self._built_state, self.racks_won, self._done, self._last_result,
         self._before_first_move, rng_state, opponent_rngs) = saved
        self.np_random.bit_generator.state = rng_state
        for generator, state in opponent_rngs:
            generator.bit_generator.state = state
        self._held_records = None

    def _release_records(self) -> None:
        """The held records told to the listeners (the step succeeded)."""
        records, self._held_records = self._held_records, None
        for record in records:
            self._tell_listeners(record)

    def _tell_listeners(self, record: MoveRecord) -> None:
        if self._held_records is not None:
            self._held_records.append(record)
            return
        if self.render_mode is not None:
            self._render_move(record)
        for listener in self.move_listeners:
            listener(record)

    def mapper_for(self, mapping: str) -> ActionMapper:
        """The env's action mapping of mode ``mapping``: the agent's (``mapper``), or the
        raw one opponent agents play through (``opponent_mapper``)."""
        for mapper in (self.mapper, self.opponent_mapper):
            if mapper.mode == mapping:
                return mapper
        raise ValueError(f"mapping must be {self.mapper.mode!r} or {self.opponent_mapper.mode!r}, "
                         f"got {mapping!r}")

    def play_move(self, action, mapping: str | None = None) -> MoveRecord:
        """Play one move for whoever is to act, with no opponent turn after it: a decision,
        or a shot simulated and judged. ``action`` is decoded with the mapping of mode
        ``mapping`` (``mapper_for``; default the agent's). ``step`` is built on it; replays
        and tools use it directly. Every listener in ``move_listeners`` is called with the
        record."""
        return self.finish_move(self.stage_move(action, mapping))

    def stage_move(self, action, mapping: str | None = None) -> StagedMove:
        """The first phase of ``play_move``: ``action`` validated and decoded for whoever is
        to act and, for a shot, its layout checked and its noise drawn (``stage_shot``).
        Nothing else changes until ``finish_move``; in between, ``staged.shot`` (when set) is
        simulated, here or with other tables' shots in one call (``simulate_staged``)."""
        if self._done:
            raise ResetNeeded("the episode is over: call reset() before playing a move")
        mapper = self.mapper if mapping is None else self.mapper_for(mapping)
        action = mapper.validate(action)
        return self._stage(action, mapper.decode(action, self.state, self.rules), mapper)

    def _stage(self, action: np.ndarray, move: Decision | ShotMove, mapper: ActionMapper) -> StagedMove:
        """``stage_move`` of a validated ``action`` that ``mapper`` decodes to ``move``."""
        before = self.state
        staged = None
        if isinstance(move, ShotMove):
            staged = stage_shot(self.simulator, before, move, self.np_random,
                                state_checked=before is self._built_state)
        return StagedMove(actor(before), action, mapper, before, move, staged)

    def finish_move(self, staged: StagedMove, result: ShotResult | None = None,
                    events: ShotEvents | None = None) -> MoveRecord:
        """The last phase of ``play_move``: the staged move's shot judged (``result``: the
        simulation of ``staged.shot``, with ``events`` its facts when known; simulated here
        when None) or its decision applied, the rack ended when it is over; the record,
        told to ``move_listeners``."""
        move, before, mapper, outcome = staged.move, staged.before, staged.mapper, None
        if isinstance(move, ShotMove):
            if isinstance(staged.staged, ShotEvents):  # the placement overlapped a ball
                events, result = staged.staged, None
            else:
                if result is None:
                    # One shot: the simulator's own call (the batched call, ``simulate_staged``,
                    # gains nothing for one table, and compiles on first use by a batched env).
                    result = self.simulator.simulate_executed(*staged.staged, self.trajectories)
                if events is None:
                    events = shot_events(self.simulator, self.rules, result)
            self._last_result = result
            # The events are the simulator's own facts of this state (``simulated``: the
            # rules skip their check of them; the state and outcome are the same).
            after, outcome = self.rules.apply_shot(before, move.call, events, simulated=True)
            self._enter(after)
            if outcome.rack_over:
                self._end_rack(outcome)
        else:
            self._enter(self.rules.apply_decision(before, move))
            result = None
        action = staged.action
        # ``tolist`` converts the components in one call (exactly, as ``float`` each would);
        # ``float`` then makes whole-number actions (the discrete modes) floats.
        values = action if type(action) is np.ndarray and action.ndim == 1 else np.atleast_1d(action)
        # Every field in its stored form (``stored``: without the frozen ``__init__``).
        record = stored(MoveRecord, player=staged.player, action=tuple(map(float, values.tolist())), move=move,
                        before=before, result=result, outcome=outcome, after=self.state, mapping=mapper.mode)
        self._tell_listeners(record)
        return record

    @staticmethod
    def _collect(record: MoveRecord, outcomes: list[Outcome]) -> None:
        if record.outcome is not None:
            outcomes.append(record.outcome)

    def _end_rack(self, outcome: Outcome) -> None:
        if outcome.winner is not None:
            self.racks_won[outcome.winner] += 1
        if max(self.racks_won) >= self.race_to:
            self._done = True
        else:
            self._enter(self.rules.next_rack(self.state, rng=self.np_random))

    def _enter(self, state: GameState) -> None:
        """Move to ``state``, a state the rules' transitions built (``new_game``,
        ``apply_shot``, ``apply_decision``, ``next_rack``): its layout is checked already, so
        the next shot from it skips the simulator's layout check. A state set from outside
        (``env.state = ...``) is not this one and is checked as before."""
        self.state = self._built_state = state

    # ------------------------------------------------------------------ views
    def _observation(self, player: int):
        match = (tuple(self.racks_won), self.race_to) if self.observe_match else None
        slots = self.mapper.slots(self.state, self.rules) if self.choice else None
        lookahead = None
        if self.lookahead:
            lookahead = lookahead_features(self.state, self.rules, self.simulator, self.mapper,
                                           self.lookahead_samples, state_checked=self.state is self._built_state,
                                           threads=self.kernel_threads)
        if self.obs_mode == "flat":
            # The flat vector written directly: what flattening the Dict observation gives.
            return flat_game_observation(self.state, self.rules, self.table, player, match=match,
                                         derived=self.mapper.derived, slots=slots, lookahead=lookahead)
        obs = observe_game(self.state, self.rules, self.table, player, match=match, derived=self.mapper.derived)
        if slots is not None:
            obs.update(observe_candidates(slots))
        if lookahead is not None:
            obs["lookahead"] = lookahead
        return obs

    def action_masks(self) -> np.ndarray:
        """The masks of ``action_mode="choice_discrete"`` or ``"choice_canonical"`` for the
        player to act now (``ChoiceMapper.action_masks``, ``CanonicalMapper.action_masks``), as
        sb3-contrib's ``MaskablePPO`` reads them."""
        if not self.mapper.masked:
            raise ValueError(f"action_masks() needs a masked action mode {list(MASKED_MODES)}, "
                             f"not {self.mapper.mode!r}")
        return self.mapper.action_masks(self.state, self.rules)

    def potential(self) -> float:
        """The shaping potential Phi of the current state from the agent's side
        (``PotentialShaping.potential``; in solo play every shooter is the agent); 0 when
        shaping is off or the episode is over."""
        if not self.weights.shaping or self._done or self.state is None:
            return 0.0
        player = self.state.shooter if self.solo else self.agent
        slots = self.mapper.slots(self.state, self.rules) if self.choice else None
        return PotentialShaping.potential(self.state, self.rules, self.simulator.noise.angle_deg, player, slots)

    def _remembered_potential(self) -> float:
        """``potential()``, kept with everything it is worked out from (the state, the
        weights, rules, mapping and noise, the episode's flags): a step's first call finds
        what the previous step's last call did, unless any of them changed between (a state
        set from outside, a reset, a swapped simulator)."""
        state = self.state
        inputs = (self.weights, self.rules, self.mapper, self.simulator.noise.angle_deg, self._done, self.agent,
                  self.solo)
        memo = self.__dict__.get("_potential_memo")
        if memo is not None and memo[0] is state and memo[1] == inputs:
            return memo[2]
        value = self.potential()
        self._potential_memo = (state, inputs, value)
        return value

    @property
    def last_shot(self) -> ShotResult | None:
        """The last shot's ``ShotResult`` (its event log, and paths with ``trajectories``):
        the shot that ended the last step, or None before the first shot of the episode.
        Not in the step's info, so that vector envs do not copy it on every step."""
        return self._last_result

    def _info(self, outcomes: list[Outcome], terms: dict, player: int | None = None,
              decision: Decision | None = None) -> dict:
        """The step's info (``INFO_KEYS``, every key on every step): small, so that vector
        envs copy (``DummyVecEnv`` deep-copies every info) or pickle (``SubprocVecEnv``) little
        per step; the state and the shot are read from the env (``state``, ``last_shot``).
        ``decision`` is the agent's answer when its move was one. A policy opponent's info
        (``player`` given) also carries the state it plays from, passed by reference, and in
        the masked modes its ``action_masks``."""
        info = {
            "player": self.agent if player is None else player,
            "outcomes": list(outcomes),
            "reward_terms": dict(terms),
            "racks_won": tuple(self.racks_won),
        }
        if player is not None:
            info["state"] = self.state
            if self.mapper.masked:  # what the policy may play: the masks are the contract
                info["action_masks"] = self.mapper.action_masks(self.state, self.rules)
        info["outcome"] = next((o for o in outcomes if self.solo or o.shooter == self.agent), None)
        info["decision"] = decision
        if self._done:
            info["winner"], info["to_act"] = max((0, 1), key=lambda p: self.racks_won[p]), NOBODY
        else:
            info["winner"], info["to_act"] = NOBODY, actor(self.state)
        return info


class _AllOrNothing:
    """``PoolEnv._all_or_nothing``'s context: a plain class rather than a generator's, as
    the batched env enters one per table every step. Entered, its step is ended by
    ``keep`` or ``undo`` (the block's end calls one; the batched env calls them itself
    when its tables' plays are held across processes)."""

    __slots__ = ("env", "saved")

    def __init__(self, env: PoolEnv) -> None:
        self.env = env

    def __enter__(self) -> None:
        self.saved = self.env._save_step()

    def __exit__(self, kind, error, traceback) -> bool:
        if kind is None:
            self.keep()
        else:
            self.undo()
        return False  # the error goes on

    def keep(self) -> None:
        """The step's changes kept: its move records told to the listeners."""
        self.env._release_records()

    def undo(self) -> None:
        """Everything the step changed put back, its records dropped."""
        self.env._restore_step(self.saved)


def _generators(opponent: Any) -> list[np.random.Generator]:
    """The numpy generators an opponent draws from: its attributes' and, one level down,
    their attributes' (a bot keeps its generator in its search)."""
    found = []
    # Read on every step (``_all_or_nothing``): one ``getattr`` per object, not a
    # ``hasattr`` then ``vars``.
    generator = np.random.Generator
    attributes = getattr(opponent, "__dict__", None)
    for value in attributes.values() if attributes is not None else ():
        if isinstance(value, generator):
            found.append(value)
        else:
            inner = getattr(value, "__dict__", None)
            if inner is not None:
                found += [v for v in inner.values() if isinstance(v, generator)]
    return found
