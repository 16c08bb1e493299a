"""Saved games: record a game played in a ``PoolEnv``, save it as JSON, replay it exactly.

A saved game holds the environment's configuration, the random state the episode started
from (the ``reset`` seed, or the generator's state when ``reset`` had none), the first
state, and every move of both players: the action, the shot as executed (after execution
noise) or the decision, and the state and outcome that followed. Replaying resets a fresh
environment to the same random state and plays the recorded actions, so every state,
outcome and noise draw is reproduced bit for bit::

    env = RecordGame(gymnasium.make("poolgym/NineBall-v0", noise="tournament"))
    obs, info = env.reset(seed=3)
    ...                                  # play until the episode ends
    env.save("game.json")
    steps = replay("game.json")          # raises ReplayMismatch if anything differs

``load`` validates a file and rejects a corrupt one with a ``SavedGameError`` that names
the file and the entry at fault.

Version 2 records with each move the action mapping it was decoded with (``"mapping"``:
the agent's mode, or ``"raw"`` for an opponent agent's moves, which the env encodes in raw
mode) and names the ladder opponent in the config; version 1 files, which have neither,
still load: their moves were all decoded with the agent's mapping. Version 3 records the
cue's elevation with each executed shot (``"elevation_deg"``); the shots of version 1 and 2
files, from before the cue could be raised, load with an elevation of 0. Version 4 records
in the config the rest of what shapes actions and states (``"max_cut_deg"``,
``"elevation"``, ``"pot_residual"``, ``"ruleset_kwargs"``); older files, from envs that
could not set them or before they were recorded, load with their defaults (5 degrees,
level, "stroke", none).

Every seed ``reset`` takes is recorded: a whole number in [0, ``SEED_LIMIT``) (a seed
beyond it, or one that is not a plain int, ``seed=True`` say, is refused at ``reset``,
before the episode starts, as one that could not be written and read back).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from poolgym.envs.observations import actor
from poolgym.envs.opponents import LADDER, SOLO, UNIFORM_ACTION, RandomPolicy
from poolgym.envs.pool_env import MoveRecord, PoolEnv
from poolgym.files import atomic_write_text, read_bounded
from poolgym.numbers import is_finite_number, quote
from poolgym.physics import Noise, PhysicsParams, Shot
from poolgym.rules import Decision, GameState, RuleOptions, check_state
from poolgym.table import Table

FORMAT = "poolgym.saved_game"
VERSION = 4
READABLE_VERSIONS = (1, 2, 3, 4)
# The seeds a recording takes: every whole number JSON writes and reads back (Python reads
# integers of up to 4,300 digits; 2**4096 has 1,234).
SEED_LIMIT = 2 ** 4096
_CONFIG_KEYS = ("game", "table", "opponent", "action_mode", "obs_mode", "noise", "reward_weights",
                "rule_options", "race_to", "max_speed")
# Keys added with the v1 envs; a version-1 game saved before them has their v0 values.
_OPTIONAL_CONFIG_KEYS = {"breaker": "agent", "rack_model": None, "observe_match": False}
# Version 2 has those keys and whether reset drew a seed for the opponent (it has
# ``reseed``): a replay's stand-in opponent draws it too, so the rack and every later
# draw are the same.
_V2_CONFIG_KEYS = _CONFIG_KEYS + tuple(_OPTIONAL_CONFIG_KEYS) + ("opponent_reseeded",)
# Version 4 adds the rest of what shapes actions and states; earlier files have these values
# (the envs' defaults: the arguments did not exist, or a game played with others was recorded
# without them and cannot be told apart).
_V4_CONFIG_DEFAULTS = {"max_cut_deg": 5.0, "elevation": False, "pot_residual": "stroke", "ruleset_kwargs": {}}
_V4_CONFIG_KEYS = _V2_CONFIG_KEYS + tuple(_V4_CONFIG_DEFAULTS)
# "random" in a version-1 file is today's "uniform-action"; a ladder name (or "agent" for
# any other agent with choose(state)) is recorded as the opponent, whose moves are recorded.
_V1_OPPONENTS = ("random", "solo", "policy")
_OPPONENTS = (UNIFORM_ACTION, SOLO, "policy", "agent") + LADDER
_SHOT_FIELDS = ("speed", "angle_deg", "side", "vertical", "elevation_deg")
# Shots saved before the cue could be raised (versions 1 and 2) have no elevation: level.
_LEVEL_SHOT_FIELDS = _SHOT_FIELDS[:4]
# A saved game is read whole: a long 14.1 match is a few megabytes, nothing needs more.
MAX_BYTES = 32 * 1024 * 1024
# What a corrupt entry can raise beyond ValueError: an integer past the float range, a
# missing key deep in a value, nesting past Python's recursion limit.
_ENTRY_ERRORS = (ValueError, TypeError, ArithmeticError, KeyError, RecursionError)


class SavedGameError(ValueError):
    """A saved game that cannot be loaded; the message names the file and the entry."""


class ReplayMismatch(AssertionError):
    """A replay diverged from the recording; the message names the move and what differs."""


@dataclass(frozen=True)
class SavedMove:
    """One recorded move: ``player`` acted with ``action``, decoded with the env's action
    mapping of mode ``mapping``; ``shot`` is the stroke as executed (None for a decision or
    an unplayable placement), ``decision`` the choice made (None for a shot); ``state`` and
    ``outcome`` (``Outcome.to_dict``, None for a decision) are what followed."""

    player: int
    action: tuple[float, ...]
    shot: dict[str, float] | None
    decision: str | None
    state: GameState
    outcome: dict[str, Any] | None
    mapping: str

    @classmethod
    def from_record(cls, record: MoveRecord) -> "SavedMove":
        shot = None
        if record.result is not None:
            shot = {name: float(getattr(record.result.shot, name)) for name in _SHOT_FIELDS}
        decision = record.move.choice.value if isinstance(record.move, Decision) else None
        outcome = record.outcome.to_dict() if record.outcome is not None else None
        return cls(record.player, record.action, shot, decision, record.after, outcome, record.mapping)

    def to_dict(self) -> dict:
        """The move as JSON-compatible values."""
        return {"player": self.player, "action": list(self.action), "shot": self.shot,
                "decision": self.decision, "state": self.state.to_dict(), "outcome": self.outcome,
                "mapping": self.mapping}


@dataclass(frozen=True)
class SavedGame:
    """A whole recorded episode (see the module docstring)."""

    config: dict[str, Any]
    seed: int | None
    rng_state: dict | None
    initial_state: GameState
    moves: tuple[SavedMove, ...]
    env_id: str | None = None

    def to_dict(self) -> dict:
        """The game as JSON-compatible values, tagged with the format and its version."""
        return {"format": FORMAT, "version": VERSION, "env_id": self.env_id, "config": self.config,
                "seed": self.seed, "rng_state": self.rng_state,
                "initial_state": self.initial_state.to_dict(),
                "moves": [m.to_dict() for m in self.moves]}

    def save(self, path: str | Path) -> None:
        """Write the game as JSON (floats written exactly, so a load gives it back equal),
        atomically: a failed write (a full disk) is an ``OSError`` naming ``path`` and leaves
        the previous file there intact."""
        atomic_write_text(path, json.dumps(self.to_dict(), indent=1))

    def make_env(self) -> PoolEnv:
        """A fresh environment with the recorded configuration (the opponent's moves are
        recorded, so a policy opponent is not needed to replay)."""
        return _make_env(self.config)


# ============================================================================ configuration
def env_config(env: PoolEnv) -> dict[str, Any]:
    """The JSON-compatible keyword arguments that rebuild ``env``'s game."""
    if isinstance(env.opponent, RandomPolicy):
        opponent = "uniform-action"
    elif env.solo:
        opponent = "solo"
    elif env.opponent_name in _OPPONENTS:
        opponent = env.opponent_name
    elif hasattr(env.opponent, "choose"):
        opponent = "agent"
    else:
        opponent = "policy"
    if env.ruleset_kwargs is None:
        raise ValueError("a game built from a Ruleset object (ruleset=...) cannot be recorded: its "
                         "arguments are not known; make the env with game= and ruleset_kwargs=")
    ruleset_kwargs = dict(env.ruleset_kwargs)
    try:
        recordable = json.loads(json.dumps(ruleset_kwargs)) == ruleset_kwargs
    except (TypeError, ValueError):
        recordable = False
    if not recordable:
        raise ValueError(f"ruleset_kwargs {quote(ruleset_kwargs)} cannot be recorded: a saved game "
                         "takes only JSON values (strings, numbers, true/false, null, lists, objects)")
    return {"game": env.rules.name, "table": asdict(env.table), "opponent": opponent,
            "opponent_reseeded": hasattr(env.opponent, "reseed"),
            "action_mode": env.mapper.mode, "obs_mode": env.obs_mode,
            "noise": asdict(env.simulator.noise), "reward_weights": env.weights.as_dict(),
            "rule_options": env.rules.options.to_dict(), "race_to": env.race_to,
            "max_speed": env.mapper.max_speed, "breaker": env.breaker_mode,
            "rack_model": asdict(env.rack_model), "observe_match": env.observe_match,
            "max_cut_deg": env.mapper.max_cut_deg, "elevation": env.elevation,
            # Only the choice modes' mappings have one; the others turn the stroke.
            "pot_residual": getattr(env.mapper, "pot_residual", "stroke"),
            "ruleset_kwargs": ruleset_kwargs}


def _unrecorded_policy(observation, info):
    raise RuntimeError("a replayed game plays the recorded moves; its opponent is never asked")


class _UnrecordedAgent:
    """Stands in for an opponent agent or policy in a replay, which plays its recorded
    moves; it takes the seed reset draws for the opponent, as the recorded one did."""

    def choose(self, state):
        raise RuntimeError("a replayed game plays the recorded moves; its opponent is never asked")

    def reseed(self, seed) -> None:
        """Take the seed (the draw from the env's generator is what matters)."""


def _make_env(config: dict[str, Any]) -> PoolEnv:
    kwargs = dict(config)
    reseeded = kwargs.pop("opponent_reseeded", False)
    kwargs["table"] = Table(**config["table"])
    kwargs["noise"] = Noise(**config["noise"])
    kwargs["rule_options"] = RuleOptions(**config["rule_options"])
    # The opponent's moves are in the file: no bot is built or asked. The uniform-action
    # opponent is kept because reset draws its seed (the replay's random state follows).
    if config["opponent"] not in ("uniform-action", "solo"):
        kwargs["opponent"] = _UnrecordedAgent() if reseeded else _unrecorded_policy
    return PoolEnv(**kwargs)


# ============================================================================ recording
class RecordGame(gym.Wrapper):
    """Records every move of a ``PoolEnv`` episode, both players', for ``save`` and ``replay``.

    Each ``reset`` starts a new recording. A ``reset`` without a seed is recorded by the
    state of the environment's generator, so the episode still replays exactly.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        if not isinstance(env.unwrapped, PoolEnv):
            raise ValueError(f"RecordGame records PoolEnv games, not {type(env.unwrapped).__name__}")
        env_config(env.unwrapped)  # what cannot be recorded is refused now, not at save
        self._game: PoolEnv = env.unwrapped
        self._game.move_listeners.append(self._record)
        self._moves: list[SavedMove] = []
        self._start: tuple[int | None, dict | None, GameState] | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT):
            raise ValueError(f"seed must be None or a whole number (a Python int) in [0, 2**4096) to be "
                             f"recorded, got {type(seed).__name__} {quote(seed)}")
        rng_state = None if seed is not None else self._game.np_random.bit_generator.state
        self._moves = []  # before reset: the opponent's break, if it breaks, is a move
        obs, info = self.env.reset(seed=seed, options=options)
        self._start = (seed, rng_state, self._game.initial_state)
        return obs, info

    def _record(self, record: MoveRecord) -> None:
        self._moves.append(SavedMove.from_record(record))

    @property
    def saved_game(self) -> SavedGame:
        """The episode so far (or the last one) as a ``SavedGame``."""
        if self._start is None:
            raise ValueError("nothing recorded yet: call reset() first")
        seed, rng_state, initial = self._start
        spec = self.env.spec
        return SavedGame(config=env_config(self._game), seed=seed, rng_state=rng_state,
                         initial_state=initial, moves=tuple(self._moves),
                         env_id=spec.id if spec is not None else None)

    def save(self, path: str | Path) -> None:
        """Write the episode so far (or the last one) to ``path`` as JSON."""
        self.saved_game.save(path)

    def close(self) -> None:
        if self._record in self._game.move_listeners:
            self._game.move_listeners.remove(self._record)
        super().close()


# ============================================================================ replaying
@dataclass(frozen=True)
class ReplayStep:
    """A move as the replay played it: the record, with the state and outcome it gave."""

    player: int
    state: GameState
    outcome: dict[str, Any] | None
    shot: dict[str, float] | None


def replay(game: SavedGame | str | Path, check: bool = True) -> list[ReplayStep]:
    """Play a saved game again in a fresh environment and return each move's result.

    With ``check`` (the default) every state, outcome and executed shot is compared with
    the recording, and the first difference raises ``ReplayMismatch`` naming the move.
    Without it the recorded actions are played as they come (e.g. under another
    configuration) until they run out or the game ends.
    """
    saved = load(game) if not isinstance(game, SavedGame) else game
    env = saved.make_env()
    # The recorded moves include the opponent's: reset stops before its first move.
    options = {"play_opponent": False, "breaker": saved.initial_state.breaker}
    if saved.seed is not None:
        env.reset(seed=saved.seed, options=options)
    else:
        env.np_random = np.random.Generator(np.random.PCG64())
        env.np_random.bit_generator.state = saved.rng_state
        env.reset(options=options)
    if check and env.state != saved.initial_state:
        raise ReplayMismatch("the first state differs from the recording: "
                             f"{env.state.to_json()} != {saved.initial_state.to_json()}")
    steps = []
    for i, move in enumerate(saved.moves):
        if check and actor(env.state) != move.player:
            raise ReplayMismatch(f"move {i}: player {actor(env.state)} is to act, the "
                                 f"recording says player {move.player}")
        try:
            record = env.play_move(np.asarray(move.action), mapping=move.mapping)
        except ResetNeeded:
            if not check:
                break
            raise ReplayMismatch(f"move {i}: the game was already over in the replay") from None
        step = SavedMove.from_record(record)
        steps.append(ReplayStep(step.player, step.state, step.outcome, step.shot))
        if check:
            for name in ("shot", "decision", "outcome", "state"):
                if getattr(step, name) != getattr(move, name):
                    raise ReplayMismatch(f"move {i} (player {move.player}): the {name} differs "
                                         f"from the recording:\nreplayed {getattr(step, name)}\n"
                                         f"recorded {getattr(move, name)}")
    env.close()
    return steps


# ============================================================================ loading
def load(path: str | Path) -> SavedGame:
    """Read and validate a saved game; ``SavedGameError`` names what is wrong and where."""
    path = Path(path)
    try:
        # Bounded while read: a link to /dev/zero, a FIFO or a growing file stops here.
        text = read_bounded(path, MAX_BYTES, "the saved game").decode("utf-8")
    except OSError as exc:
        raise SavedGameError(f"{path}: cannot read the saved game: {exc}") from None
    except UnicodeDecodeError as exc:
        raise SavedGameError(f"{path}: not a saved game (not valid JSON: not UTF-8 text, "
                             f"{exc.reason} at byte {exc.start})") from None
    except ValueError as exc:  # not a regular file, or past MAX_BYTES
        raise SavedGameError(str(exc)) from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise SavedGameError(f"{path}: not a saved game (its JSON is nested too deeply)") from None
    except ValueError as exc:  # JSONDecodeError, or an integer of more digits than Python reads
        raise SavedGameError(f"{path}: not a saved game (not valid JSON: {_short(exc)})") from None
    try:
        return from_dict(data)
    except SavedGameError as exc:
        raise SavedGameError(f"{path}: {exc}") from None
    except _ENTRY_ERRORS as exc:
        raise SavedGameError(f"{path}: not a valid saved game: {type(exc).__name__}: {_short(exc)}") from None


def _short(exc: BaseException) -> str:
    return quote(" ".join(str(exc).split()), limit=300).strip("'\"")


def from_dict(data: Any) -> SavedGame:
    """A ``SavedGame`` from its JSON dict, validated entry by entry."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SavedGameError(f"not a saved game: expected a JSON object with \"format\": \"{FORMAT}\"")
    version = data.get("version")
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        raise SavedGameError(f"unsupported saved-game version {quote(version)}; "
                             f"this poolgym reads versions {list(READABLE_VERSIONS)}")
    known = {"format", "version", "env_id", "config", "seed", "rng_state", "initial_state", "moves"}
    _check_keys(data, known, known - {"env_id"}, "the saved game")
    config = _config(data["config"], version)
    try:
        env = _make_env(config)
    except _ENTRY_ERRORS as exc:
        raise SavedGameError(f"config: {_short(exc)}") from None
    seed, rng_state = data["seed"], data["rng_state"]
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT):
        raise SavedGameError(f"seed must be a whole number in [0, 2**4096) or null, got {quote(seed)}")
    if seed is None:
        _check_rng_state(rng_state)
    if data["env_id"] is not None and not isinstance(data["env_id"], str):
        raise SavedGameError(f"env_id must be a string or null, got {quote(data['env_id'])}")
    initial = _state(data["initial_state"], env, "initial_state")
    if not isinstance(data["moves"], list):
        raise SavedGameError(f"moves must be a list, got {type(data['moves']).__name__}")
    moves = []
    for i, move in enumerate(data["moves"]):
        try:
            moves.append(_move(move, env, f"moves[{i}]", version))
        except _ENTRY_ERRORS as exc:
            if isinstance(exc, SavedGameError):
                raise
            raise SavedGameError(f"moves[{i}]: {type(exc).__name__}: {_short(exc)}") from None
    moves = tuple(moves)
    return SavedGame(config=config, seed=seed, rng_state=rng_state, initial_state=initial,
                     moves=moves, env_id=data["env_id"])


def _check_keys(data: dict, known: set[str], required: set[str], what: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise SavedGameError(f"{what} has unknown keys {quote(unknown)}; keys are {sorted(known)}")
    missing = sorted(required - set(data))
    if missing:
        raise SavedGameError(f"{what} is missing keys {missing}")


def _config(config: Any, version: int) -> dict:
    if not isinstance(config, dict):
        raise SavedGameError(f"config must be an object, got {type(config).__name__}")
    if version == 1:
        _check_keys(config, set(_CONFIG_KEYS) | set(_OPTIONAL_CONFIG_KEYS), set(_CONFIG_KEYS), "config")
        config = {**_OPTIONAL_CONFIG_KEYS, **config}
    else:
        keys = set(_V4_CONFIG_KEYS if version >= 4 else _V2_CONFIG_KEYS)
        _check_keys(config, keys, keys, "config")
        if not isinstance(config["opponent_reseeded"], bool):
            raise SavedGameError(f"config.opponent_reseeded must be true or false, "
                                 f"got {config['opponent_reseeded']!r}")
    for key, dataclass_ in (("table", Table), ("noise", Noise), ("rule_options", RuleOptions)):
        value = config[key]
        if not isinstance(value, dict):
            raise SavedGameError(f"config.{key} must be an object, got {quote(value)}")
        names = {f.name for f in fields(dataclass_)}
        _check_keys(value, names, set(), f"config.{key}")
    config = {**_V4_CONFIG_DEFAULTS, **config}
    if not isinstance(config["ruleset_kwargs"], dict):
        raise SavedGameError(f"config.ruleset_kwargs must be an object, got {quote(config['ruleset_kwargs'])}")
    if not isinstance(config["elevation"], bool):
        raise SavedGameError(f"config.elevation must be true or false, got {quote(config['elevation'])}")
    allowed = _V1_OPPONENTS if version == 1 else _OPPONENTS
    if config["opponent"] not in allowed:
        raise SavedGameError(f"config.opponent must be one of {list(allowed)}, got {quote(config['opponent'])}")
    if version == 1 and config["opponent"] == "random":
        config = {**config, "opponent": "uniform-action"}  # version 1's name for it
    return config


def _check_rng_state(value: Any) -> None:
    """A game without a seed records its generator's state: it must be one a PCG64 takes
    (tried for real, so ``replay`` cannot fail on it later)."""
    needs = ("a game without a seed needs rng_state, the PCG64 generator state its episode "
             "started from")
    if not (isinstance(value, dict) and value.get("bit_generator") == "PCG64"):
        raise SavedGameError(f"{needs}; got {quote(value)}")
    try:
        np.random.PCG64().state = value
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        raise SavedGameError(f"rng_state is not a PCG64 state ({type(exc).__name__}: {_short(exc)}); "
                             f"{needs}") from None


def _state(data: Any, env: PoolEnv, where: str) -> GameState:
    if not isinstance(data, dict):
        raise SavedGameError(f"{where} must be a GameState object, got {type(data).__name__}")
    try:
        state = GameState.from_dict(data)
        check_state(env.rules, state)
    except _ENTRY_ERRORS as exc:
        raise SavedGameError(f"{where}: {_short(exc)}") from None
    return state


def _move(data: Any, env: PoolEnv, where: str, version: int) -> SavedMove:
    if not isinstance(data, dict):
        raise SavedGameError(f"{where} must be an object, got {type(data).__name__}")
    keys = {"player", "action", "shot", "decision", "state", "outcome"} | ({"mapping"} if version > 1 else set())
    _check_keys(data, keys, keys, where)
    mapping = data.get("mapping", env.mapper.mode)
    modes = sorted({env.mapper.mode, env.opponent_mapper.mode})
    if mapping not in modes:
        raise SavedGameError(f"{where}.mapping must be one of {modes}, got {mapping!r}")
    if data["player"] not in (0, 1) or isinstance(data["player"], bool):
        raise SavedGameError(f"{where}.player must be 0 or 1, got {quote(data['player'])}")
    action = data["action"]
    mapper = env.mapper_for(mapping)
    # One number for the option index of a Discrete mode (``choice_canonical``).
    n = int(np.prod(mapper.space.shape, dtype=np.int64))
    if not isinstance(action, list) or len(action) != n or not all(is_finite_number(v) for v in action):
        raise SavedGameError(f"{where}.action must be a list of {n} numbers, got {quote(action)}")
    try:  # the mapping's own check: numbers in [-1, 1], or choice_discrete's bin indices
        mapper.validate(np.asarray(action, dtype=np.float64))
    except ValueError as exc:
        raise SavedGameError(f"{where}.action: {_short(exc)}") from None
    shot = _shot(data["shot"], where, version)
    if data["decision"] is not None and not isinstance(data["decision"], str):
        raise SavedGameError(f"{where}.decision must be a choice name or null, got {quote(data['decision'])}")
    if data["outcome"] is not None and not isinstance(data["outcome"], dict):
        raise SavedGameError(f"{where}.outcome must be an object or null, got {quote(data['outcome'])}")
    return SavedMove(data["player"], tuple(float(v) for v in action), shot, data["decision"],
                     _state(data["state"], env, f"{where}.state"), data["outcome"], mapping)


def _shot(shot: Any, where: str, version: int) -> dict[str, float] | None:
    """A move's executed shot: null, or the numbers of a stroke the simulator accepts (a
    version 1 or 2 shot, which has no elevation, is level)."""
    names = _SHOT_FIELDS if version >= 3 else _LEVEL_SHOT_FIELDS
    if shot is None:
        return None
    if not isinstance(shot, dict) or set(shot) != set(names) or not all(is_finite_number(v) for v in shot.values()):
        raise SavedGameError(f"{where}.shot must be null or an object of the numbers {list(names)}, got {quote(shot)}")
    shot = {name: shot.get(name, 0.0) for name in _SHOT_FIELDS}
    try:
        Shot(**shot).validate(PhysicsParams().max_speed)
    except ValueError as exc:
        raise SavedGameError(f"{where}.shot: {_short(exc)}") from None
    return shot


