"""Custom variants: register a game environment with its own rules, rack, table, rewards
and noise, from Python (``register_variant``) or from a YAML file (``register_from_yaml``).

A variant is ``PoolEnv`` with keyword arguments, registered with ``gymnasium.register``;
it may bring its own ``Ruleset`` subclass (a new game) given as a class or an import path
``"package.module:ClassName"``. The module of an import path may also be a Python file,
``"path/to/file.py:ClassName"``: in a YAML file a relative path is resolved against the YAML
file's own directory (``configs/variants/six_ball.yaml`` names
``../../examples/six_ball.py:SixBall``), so the file registers from any working directory;
in Python, against the working directory.

Trust: an import path runs the module it names, and a saved model (``opponent: x.zip``) is
unpickled. Unless it is loaded with ``trusted=True`` (``register_from_yaml``,
``register_directory``), a YAML file may name only registered games, no rack, and no import
path (``module:name``) or file of code (``.py``, ``.zip``, ``.pkl``) in any value but the
ladder's opponent names (``UNTRUSTED_OPPONENTS``: "legal-random", "bot:fast", ...,
and "pretrained:NAME"); nor may it register an id it did not register itself before (a built-in id, or one
registered from Python or another file) unless ``replace=True`` is passed. A shared variant
file is then data, never code, and cannot change what a known id means.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable

import gymnasium
from gymnasium.envs.registration import get_env_id, parse_env_id

from poolgym.envs import GAME_STEP_LIMIT
from poolgym.envs.opponents import LADDER, SOLO, UNIFORM_ACTION
from poolgym.envs.pool_env import PoolEnv, make_rule_options
from poolgym.physics import Noise
from poolgym.envs.rewards import RewardWeights
from poolgym.numbers import integer, quote
from poolgym.rules import Ruleset, available_rulesets, get_ruleset, register_ruleset
from poolgym.table import TABLE_SIZES, Table
from poolgym.yaml_files import load_yaml_file

# YAML keys and the Python types they take.
_YAML_KEYS: dict[str, tuple[type, ...]] = {
    "id": (str,), "game": (str,), "table": (str, dict), "rules_options": (dict,), "rack": (str,),
    "reward": (dict,), "noise": (str, dict), "opponent": (str,), "action_mode": (str,),
    "obs_mode": (str,), "race_to": (int,), "max_speed": (int, float), "max_episode_steps": (int,),
    "description": (str,), "elevation": (bool,), "pot_residual": (str,),
}
_ENV_KWARGS = ("opponent", "action_mode", "obs_mode", "race_to", "max_speed", "elevation", "pot_residual")
# The opponents an untrusted file may name: built from poolgym's own code and files (and
# "pretrained:NAME", looked up among the agents shipped with poolgym, never a path).
UNTRUSTED_OPPONENTS = LADDER + ("bot", SOLO, UNIFORM_ACTION)
PRETRAINED_PREFIX = "pretrained:"
# Suffixes of files that hold code: a Python module, a saved model or a pickle.
_CODE_SUFFIXES = (".py", ".zip", ".pkl", ".pickle")
# The YAML file (resolved) each id was registered from, for the replacement check.
_REGISTERED_FROM: dict[str, Path] = {}
# A variant id: ASCII only (Gymnasium's own pattern takes any Unicode digit, then files the
# id under another name, so an id like 'a/B-v٣' would register and never be found).
_ID = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+-v[0-9]+")


def resolved_id(env_id: str) -> str:
    """``env_id`` as Gymnasium files it: namespace, name and version number, so
    'poolgym/NineBall-v01' is 'poolgym/NineBall-v1' (``ValueError`` for an id that is not
    'namespace/Name-vN')."""
    if not isinstance(env_id, str) or not _ID.fullmatch(env_id):
        raise ValueError(f"a variant id looks like 'namespace/Name-v0' (ASCII letters, digits, '_', "
                         f"'.', '-'), got {quote(env_id)}")
    return get_env_id(*parse_env_id(env_id))


def _import(path: str, what: str):
    # The last colon: a file path may hold one (C:\...), a Python name never does.
    module, _, name = path.rpartition(":")
    if not module or not name:
        raise ValueError(f"{what} must be an import path 'package.module:name' or "
                         f"'path/to/file.py:name', got {path!r}")
    try:
        loaded = _load_file(Path(module)) if module.endswith(".py") else importlib.import_module(module)
        return getattr(loaded, name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot import {what} {path!r}: {exc}") from None


def _load_file(path: Path):
    """The module of the Python file ``path``, loaded once per file under a name of its own
    (``sys.modules`` keeps it, so its classes pickle within this process and its forks)."""
    path = path.resolve()
    if not path.is_file():
        raise ImportError(f"no file {str(path)!r}")
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:12]
    name = f"_poolgym_file_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}_{digest}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before running it, as an import does (dataclasses need it)
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return sys.modules[name]


def _relative_to(import_path: str, directory: Path) -> str:
    """``import_path`` with a relative ``file.py`` module resolved against ``directory``."""
    module, colon, name = import_path.rpartition(":")
    if colon and module.endswith(".py") and not Path(module).is_absolute():
        return f"{directory.resolve() / module}:{name}"
    return import_path


def _table(spec: Table | str | dict) -> Table:
    if isinstance(spec, Table):
        return spec
    if isinstance(spec, str):
        return Table.preset(spec)
    spec = dict(spec)
    preset = spec.pop("preset", "9ft")
    if preset not in TABLE_SIZES:
        raise ValueError(f"table preset must be one of {sorted(TABLE_SIZES)}, got {preset!r}")
    known = {f.name for f in fields(Table)}
    unknown = sorted(set(spec) - known)
    if unknown:
        raise ValueError(f"unknown table fields {unknown}; fields are {sorted(known)}")
    return Table.preset(preset, **spec)


def _game_name(game: str | type[Ruleset]) -> str:
    """The registry name of ``game``: a registered name, a Ruleset subclass, or an import
    path to one (registered on the way)."""
    if isinstance(game, str) and ":" not in game:
        if game not in available_rulesets():
            raise ValueError(f"unknown game {game!r}; registered games are {list(available_rulesets())}")
        return game
    cls = _import(game, "game") if isinstance(game, str) else game
    if not (isinstance(cls, type) and issubclass(cls, Ruleset)):
        raise ValueError(f"game must be a Ruleset subclass, got {cls!r}")
    if cls.name not in available_rulesets():
        register_ruleset(cls.name, cls)
    return cls.name


def _with_rack(game: str, rack: Callable | str) -> str:
    """A ruleset that racks with ``rack(rng, table) -> {ball: (x, y)}``, registered under a
    derived name so environments stay picklable by name."""
    rack_fn = _import(rack, "rack") if isinstance(rack, str) else rack
    if not callable(rack_fn):
        raise ValueError(f"rack must be a callable rack(rng, table) -> {{ball: (x, y)}}, got {rack_fn!r}")
    base = type(get_ruleset(game))
    name = f"{game}+{getattr(rack_fn, '__module__', 'rack')}.{getattr(rack_fn, '__qualname__', 'rack')}"
    if name not in available_rulesets():
        cls = type(f"{base.__name__}WithRack", (base,),
                   {"name": name, "rack": lambda self, rng: rack_fn(rng, self.table)})
        register_ruleset(name, cls)
    return name


def register_variant(id: str, game: str | type[Ruleset] = "nine_ball", table: Table | str | dict = "9ft",
                     rules_options: dict | None = None, rack: Callable | str | None = None,
                     reward: dict | None = None, noise: Any = "none",
                     max_episode_steps: int | None = GAME_STEP_LIMIT, **env_kwargs) -> str:
    """Register a game environment variant with Gymnasium and return its id.

    ``game`` is a registered ruleset name ("nine_ball", ...), a ``Ruleset`` subclass or an
    import path to one; ``rack`` optionally replaces the rack (a callable
    ``rack(rng, table)`` or its import path); ``rules_options`` are ``RuleOptions`` fields;
    ``reward`` are ``RewardWeights`` terms; the rest go to ``PoolEnv``. Everything is checked
    here, so a bad variant fails at registration, not in the middle of training. The id
    returned is the one Gymnasium files it under (``resolved_id``: 'Name-v01' is 'Name-v1').
    """
    # Filed under the id Gymnasium resolves it to ('-v01' is '-v1'), the id returned.
    id = resolved_id(id)
    if max_episode_steps is not None:
        max_episode_steps = integer(max_episode_steps, "max_episode_steps")
        if max_episode_steps < 1:
            raise ValueError(f"max_episode_steps must be at least 1 (or None for no limit), "
                             f"got {max_episode_steps}")
    name = _game_name(game)
    if rack is not None:
        name = _with_rack(name, rack)
    noise = Noise.make(noise)
    kwargs = dict(game=name, table=_table(table), rule_options=make_rule_options(rules_options),
                  reward_weights=RewardWeights.from_config(reward), noise=noise, **env_kwargs)
    PoolEnv(**kwargs).close()  # a bad argument fails here, not when the env is made
    gymnasium.register(id, entry_point="poolgym.envs.pool_env:PoolEnv", kwargs=kwargs,
                       max_episode_steps=max_episode_steps)
    return id


def register_from_yaml(path: str | Path, trusted: bool = False, replace: bool = False) -> str:
    """Register the variant described by a YAML file; errors name the key and the file.

    Unless ``trusted``, the file may name only registered games (``game: nine_ball``), no
    ``rack``, only ladder opponents and no import path or code file in any value (module
    docstring): an import path (``game: pkg.module:MyGame``) would run code from the file,
    a model path would be unpickled. Unless ``trusted`` or ``replace``, it may not register
    an id that exists and was not registered from this same file (a built-in id, say). An
    import path's module may be a Python file (``game: ../games/my_game.py:MyGame``); a
    relative one is found from the YAML file's own directory, not the working directory.
    """
    path = Path(path)
    spec = load_yaml_file(path, "the variant")
    if not isinstance(spec, dict):
        raise ValueError(f"{path}: a variant is a mapping of keys {sorted(_YAML_KEYS)}")
    for key, value in spec.items():
        if key not in _YAML_KEYS:
            raise ValueError(f"{path}: unknown key {quote(key)}; keys are {sorted(_YAML_KEYS)}")
        types = _YAML_KEYS[key]
        # YAML's true/false are Python bools, which are ints too: only a bool key takes them.
        if isinstance(value, bool) != (bool in types) or not isinstance(value, types):
            raise ValueError(f"{path}: key {key!r} must be {' or '.join(t.__name__ for t in types)}, "
                             f"got {type(value).__name__} {quote(value)}")
    for key in ("id", "game"):
        if key not in spec:
            raise ValueError(f"{path}: missing key {key!r}")
    if not trusted:
        if ":" in spec["game"]:
            raise ValueError(f"{path}: key 'game' is an import path ({quote(spec['game'])}), which runs "
                             "code; register the game first, or pass trusted=True if you trust this file")
        if "rack" in spec:
            raise ValueError(f"{path}: key 'rack' is an import path ({quote(spec['rack'])}), which runs "
                             "code; pass trusted=True if you trust this file")
        _check_untrusted_values(path, spec)
        _check_replacement(path, spec["id"], replace)
    spec.pop("description", None)
    for key in ("game", "rack"):
        if key in spec:
            spec[key] = _relative_to(spec[key], path.parent)
    try:
        env_id = register_variant(
            spec.pop("id"), game=spec.pop("game"), table=spec.pop("table", "9ft"),
            rules_options=spec.pop("rules_options", None), rack=spec.pop("rack", None),
            reward=spec.pop("reward", None), noise=spec.pop("noise", "none"),
            max_episode_steps=spec.pop("max_episode_steps", GAME_STEP_LIMIT),
            **{k: spec.pop(k) for k in _ENV_KWARGS if k in spec})
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    _REGISTERED_FROM[env_id] = path.resolve()
    return env_id


def _check_untrusted_values(path: Path, spec: dict) -> None:
    """Refuse, in an untrusted file, any value anywhere that names code: an import path
    (``module:name``) or a file of code (``_CODE_SUFFIXES``), but for the ladder opponents
    (``bot:fast``, ``pretrained:NAME``). An opponent that names no code but is not known is
    left to ``PoolEnv``, which lists the choices."""
    opponent = spec.get("opponent")
    if (opponent is not None and _names_code(opponent) and opponent not in UNTRUSTED_OPPONENTS
            and not opponent.startswith(PRETRAINED_PREFIX)):
        raise ValueError(f"{path}: key 'opponent' is {quote(opponent)}; an untrusted file names only "
                         f"the opponents {list(UNTRUSTED_OPPONENTS)} or {PRETRAINED_PREFIX}NAME (a model "
                         "file is unpickled, an import path runs code): pass trusted=True if you trust "
                         "this file")

    def visit(value: Any, key: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                visit(v, f"{key}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                visit(v, f"{key}[{i}]")
        elif isinstance(value, str) and _names_code(value):
            raise ValueError(f"{path}: key {key!r} is {quote(value)}, which names code (an import path "
                             "or a file of code); pass trusted=True if you trust this file")

    for key, value in spec.items():
        if key not in ("id", "description", "opponent"):
            visit(value, key)


def _names_code(value: str) -> bool:
    """Whether a string could name code: an import path or a file of code."""
    return ":" in value or value.lower().endswith(_CODE_SUFFIXES)


def _check_replacement(path: Path, env_id: str, replace: bool) -> None:
    """Refuse an untrusted file's id that is registered already, unless this same file
    registered it or ``replace`` says to; ids are compared as Gymnasium resolves them
    ('NineBall-v01' is 'NineBall-v1', which it would replace)."""
    given = env_id
    try:
        env_id = resolved_id(env_id)
    except ValueError as exc:
        raise ValueError(f"{path}: key 'id': {exc}") from None
    if replace or env_id not in gymnasium.registry or _REGISTERED_FROM.get(env_id) == path.resolve():
        return
    origin = _REGISTERED_FROM.get(env_id)
    by = f"from {origin}" if origin is not None else "by poolgym or from Python"
    spelled = f"{quote(given)} (to Gymnasium {quote(env_id)})" if given != env_id else quote(env_id)
    raise ValueError(f"{path}: key 'id' {spelled} is registered already ({by}); an untrusted "
                     "file does not replace it: pass replace=True to replace it, or choose another id")


def register_directory(directory: str | Path, trusted: bool = False, replace: bool = False) -> list[str]:
    """Register every ``*.yaml`` variant in ``directory``; returns their ids. ``trusted`` and
    ``replace`` as for ``register_from_yaml``, for every file."""
    return [register_from_yaml(p, trusted=trusted, replace=replace)
            for p in sorted(Path(directory).glob("*.yaml"))]
