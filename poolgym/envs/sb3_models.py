"""Saved stable-baselines3 models that carry their environment.

``poolgym train`` writes, inside the model's zip next to SB3's own entries, a JSON entry
``poolgym_env.json`` (``ENV_RECORD``): the env id, every keyword argument the env was made
with, and the action mapping and observation format as the env resolved them::

    {"format": "poolgym.model_env", "version": 1,
     "env_id": "poolgym/PotBall-v0",
     "env_kwargs": {"obs_mode": "flat", "action_mode": "aim", "max_cut_deg": 2.0, ...},
     "action_mode": "aim", "min_speed": 0.3, "max_speed": 8.0, "max_tip_offset": 0.5,
     "max_cut_deg": 2.0, "obs_mode": "flat", "observe_match": false, "sigma_deg": 0.125,
     "noise": {...}}

``observe_match`` (the ``match`` entry of the v1 game envs), ``sigma_deg`` (the aim noise
the choice modes' candidate features assume), ``elevation`` (the elevated cue's action
component), ``pot_residual`` (what a pot's cut residual turns in the choice modes) and
``lookahead`` / ``lookahead_samples`` (the choice modes' lookahead observation entry) are
absent from records written before them, and read as False, 0, False, "stroke", False and 2. ``algorithm`` (the model's class, e.g. "MaskablePPO") is written by
``poolgym train``; a spec without an ``ALGO:`` prefix loads with it (``parse_model_spec``).

The record is read within ``MAX_RECORD_BYTES`` (stopped while it decompresses) and
``MAX_RECORD_DEPTH`` levels, and its fields are checked (``check_record``), so a crafted
zip is a one-line ``ValueError`` naming the file, not a traceback or a huge read; a model
recorded at another game than the one it is asked to play is refused (``recorded_game``).

``action_mapper(record, table)`` rebuilds the mapping; ``check_spaces`` refuses a model
whose spaces disagree with its record or with this poolgym's observation format, and
``check_env_matches`` one used in an env of another mapping, each naming both sides. A zip
without the record (an older model) falls back to inferring the modes from its spaces,
with a warning (``infer_record``).

``load_model`` is the one way models are loaded. It reads a model as data
(``poolgym.envs.model_data``): the zip within bounds, and every entry SB3 would unpickle
rebuilt from plain values, so loading runs no code from the file. A model that needs
unpickling (a policy class of other code, a foreign zip) is refused in one line unless
``trusted=True`` (``--trust-model``), which hands the file to SB3's own load.
"""

from __future__ import annotations

import json
import math
import io
import os
import warnings
import zipfile
import zlib
from dataclasses import asdict, is_dataclass
from typing import Any

import numpy as np

from poolgym.envs.lookahead import DEFAULT_SAMPLES as DEFAULT_LOOKAHEAD_SAMPLES
from poolgym.envs.lookahead import check_samples as check_lookahead_samples
from poolgym.envs.model_data import MAX_DATA_BYTES, plain_objects, read_data, read_model_zip
from poolgym.files import read_bounded_member
from poolgym.numbers import quote

ENV_RECORD = "poolgym_env.json"
RECORD_FORMAT = "poolgym.model_env"
RECORD_VERSION = 1
SB3_ALGORITHMS = ("PPO", "SAC", "TD3", "A2C", "DDPG", "MaskablePPO")
# Algorithms of sb3-contrib (the ``train`` extra) rather than stable-baselines3 itself.
CONTRIB_ALGORITHMS = ("MaskablePPO",)
# A record is a few hundred bytes of flat settings: anything far larger or deeper is not one.
MAX_RECORD_BYTES = 1 << 20
MAX_RECORD_DEPTH = 8


def check_model_path(path: str) -> str:
    """The model file ``path`` names (``path`` itself, or ``path.zip`` for a name given
    without the suffix SB3 adds when saving), or a one-line ``ValueError`` naming ``path``
    when there is no such file."""
    path = str(path)
    if not os.path.isfile(path) and not path.endswith(".zip") and os.path.isfile(path + ".zip"):
        path += ".zip"
    if not os.path.isfile(path):
        raise ValueError(f"model file {path!r} does not exist")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"model file {path!r} is not a saved stable-baselines3 model (not a zip)")
    return path


def load_model(path: str, algorithm: str = "PPO", device: str = "cpu", trusted: bool = False,
               env=None, **kwargs):
    """The stable-baselines3 model of class ``algorithm`` saved at ``path``, read as data
    (module docstring); ``env`` and ``kwargs`` go to SB3's ``load`` (a resumed run's env
    and hyperparameters). Unless ``trusted``, a model that can only be read by unpickling
    some of it is refused (``check_loadable``). ``ValueError`` (one line, naming the file
    or the value and the choices) for an unknown algorithm, a missing file, one over the
    bounds or one that is not a model of that class."""
    cls = algorithm_class(algorithm)
    path, raw, custom_objects = _read_model(path, algorithm, trusted)
    try:
        return cls.load(io.BytesIO(raw), env=env, device=device, custom_objects=custom_objects, **kwargs)
    except Exception as exc:  # noqa: BLE001 -- whatever a crafted file raises while SB3 reads it
        message = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise ValueError(f"model file {path!r} is not a loadable {algorithm} model: "
                         f"{message[:300]}") from None


def check_loadable(path: str, algorithm: str = "PPO", trusted: bool = False) -> None:
    """``ValueError`` (one line, naming the file) when ``load_model`` would refuse the model
    at ``path`` before SB3 reads it: a file over the bounds, of another algorithm, or, unless
    ``trusted``, one that can only be read by unpickling some of it."""
    _read_model(path, algorithm, trusted)


def _read_model(path: str, algorithm: str, trusted: bool) -> tuple[str, bytes, dict | None]:
    """The model file ``path`` names, its bytes (read within bounds) and the entries that
    stand in for its pickled ones (None when ``trusted``: SB3 unpickles them)."""
    cls = algorithm_class(algorithm)
    path = check_model_path(path)
    raw, members = read_model_zip(path)
    data = read_data(path, members)
    saved = saved_algorithm(path)
    if saved is not None and saved != algorithm:
        raise ValueError(f"model file {path!r} holds a {saved} model (its policy class says so), "
                         f"not a {algorithm} one: load it as {saved}:{path}")
    # Every pickled entry gets its plain stand-in: SB3 then unpickles nothing.
    return path, raw, None if trusted else plain_objects(data, cls, read_env_record(path), path)


# The policy classes' modules that say which algorithm saved a model without a record.
_POLICY_MODULES = {"sb3_contrib.common.maskable.policies": "MaskablePPO",
                   "poolgym.agents.training.canonical_policy": "MaskablePPO"}


def saved_algorithm(path: str) -> str | None:
    """The algorithm a saved model's policy class belongs to when it is one only that
    algorithm uses (``_POLICY_MODULES``: sb3-contrib's maskable policies and poolgym's
    ``CanonicalPolicy``, built on them), read from SB3's
    ``data`` entry within ``MAX_DATA_BYTES``; None when it does not tell."""
    try:
        data = read_zip_json(path, "data", MAX_DATA_BYTES, depth=None)
    except ValueError:  # not readable: SB3's load says what is wrong
        return None
    policy = data.get("policy_class") if isinstance(data, dict) else None
    module = policy.get("__module__") if isinstance(policy, dict) else None
    return _POLICY_MODULES.get(module) if isinstance(module, str) else None


def algorithm_class(algorithm: str):
    """The model class named ``algorithm`` (one of ``SB3_ALGORITHMS``): stable-baselines3's,
    or sb3-contrib's for ``CONTRIB_ALGORITHMS``."""
    if algorithm not in SB3_ALGORITHMS:
        raise ValueError(f"unknown stable-baselines3 algorithm {algorithm!r}; choose one of "
                         f"{list(SB3_ALGORITHMS)}")
    if algorithm in CONTRIB_ALGORITHMS:
        try:
            import sb3_contrib
        except ImportError:
            raise ValueError(f"{algorithm} needs sb3-contrib (pip install 'poolgym[train]')") from None
        return getattr(sb3_contrib, algorithm)
    import stable_baselines3

    return getattr(stable_baselines3, algorithm)


def parse_model_spec(spec: str) -> tuple[str, str]:
    """(algorithm, path) of a saved-model spec ``"[ALGO:]path.zip"``: the prefix when it
    names one of ``SB3_ALGORITHMS``, else the algorithm the model's record names (``poolgym
    train`` writes it), else the one its policy class tells (``saved_algorithm``), else PPO."""
    head, sep, rest = spec.partition(":")
    if sep and head in SB3_ALGORITHMS:
        return head, rest
    try:
        record = read_env_record(spec)
    except ValueError:  # no such file, or a bad record: loading it names the problem
        return "PPO", spec
    if record is not None and "algorithm" in record:
        return record["algorithm"], spec
    return saved_algorithm(spec) or "PPO", spec


def is_maskable(model) -> bool:
    """Whether ``model`` (a model or its policy) predicts with action masks (sb3-contrib's
    maskable algorithms take ``action_masks`` in ``predict``)."""
    import inspect

    predict = getattr(model, "predict", None)
    return predict is not None and "action_masks" in inspect.signature(predict).parameters


# ============================================================================ the record
def _plain(value: Any) -> Any:
    """``value`` as JSON data (dataclasses as dicts; other objects by their repr)."""
    if is_dataclass(value) and not isinstance(value, type):
        return _plain(asdict(value))
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, bool, int)) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    return repr(value)


def env_record(env, env_id: str | None, env_kwargs: dict | None) -> dict:
    """The record of the env a model is trained on: ``env`` (made with ``env_kwargs``;
    wrappers are looked through) resolves the mapping and the observation format."""
    game = env.unwrapped
    return {"format": RECORD_FORMAT, "version": RECORD_VERSION, "env_id": env_id,
            "env_kwargs": _plain(dict(env_kwargs or {})), **env_side(env),
            "sigma_deg": getattr(game.mapper, "sigma_deg", 0.0), "noise": _plain(game.simulator.noise)}


def write_env_record(path: str, record: dict) -> None:
    """Add ``record`` to the saved model's zip at ``path`` (SB3 ignores the entry)."""
    with zipfile.ZipFile(path, "a") as archive:
        if ENV_RECORD in archive.namelist():
            raise ValueError(f"{path} already holds {ENV_RECORD}")
        archive.writestr(ENV_RECORD, json.dumps(record, indent=1))


def read_zip_json(path: str, name: str, limit: int, depth: int | None = MAX_RECORD_DEPTH) -> Any:
    """The JSON entry ``name`` of the zip at ``path`` (None when there is none), read within
    ``limit`` bytes and ``depth`` levels (None: any the parser takes); a one-line
    ``ValueError`` naming the file and the entry otherwise."""
    try:
        with zipfile.ZipFile(path) as archive:
            if name not in archive.namelist():
                return None
            raw = read_bounded_member(archive, name, limit, name)
    # RuntimeError: an encrypted entry; NotImplementedError: an unknown compression method.
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError) as exc:
        raise ValueError(f"{path}: cannot read {name}: {type(exc).__name__}: {exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise ValueError(f"{path}: {name} is nested too deeply") from None
    except ValueError as exc:  # not UTF-8, not JSON
        raise ValueError(f"{path}: {name} is not JSON: {type(exc).__name__}: {exc}"[:500]) from None
    if depth is not None and _depth(data) > depth:
        raise ValueError(f"{path}: {name} is nested deeper than {depth} levels")
    return data


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in a JSON value (0 for a scalar), found without
    recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, (dict, list)):
            level += 1
            deepest = max(deepest, level)
            stack.extend((v, level) for v in (value.values() if isinstance(value, dict) else value))
    return deepest


def read_env_record(path: str) -> dict | None:
    """The env record inside the saved model at ``path``, or None when it has none. A record
    over ``MAX_RECORD_BYTES`` (stopped while it decompresses) or ``MAX_RECORD_DEPTH``
    levels, or one without the fields of its format (``check_record``), is a one-line
    ``ValueError`` naming the file."""
    path = check_model_path(path)
    record = read_zip_json(path, ENV_RECORD, MAX_RECORD_BYTES)
    if record is None:
        return None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f"{path}: {ENV_RECORD} is not a {RECORD_FORMAT} record")
    if record.get("version") != RECORD_VERSION:
        raise ValueError(f"{path}: {ENV_RECORD} version {quote(record.get('version'))} is not "
                         f"one this poolgym reads ({RECORD_VERSION})")
    check_record(record, path)
    return record


# The record's fields and the types they take; those in LATER_FIELDS may be absent.
_RECORD_FIELDS: dict[str, tuple[type, ...]] = {
    "action_mode": (str,), "min_speed": (int, float), "max_speed": (int, float),
    "max_tip_offset": (int, float), "max_cut_deg": (int, float), "obs_mode": (str,),
    "observe_match": (bool,), "elevation": (bool,), "pot_residual": (str,), "sigma_deg": (int, float),
    "algorithm": (str,), "env_id": (str, type(None)), "env_kwargs": (dict,),
    "lookahead": (bool,), "lookahead_samples": (int,),
}
_OPTIONAL_RECORD_FIELDS = ("sigma_deg", "algorithm", "env_id", "env_kwargs", "noise")


def check_record(record: dict, path: str = "the model") -> None:
    """``ValueError`` naming the file and the field when ``record`` lacks a field of its
    format or holds one of the wrong type or range (the mapping it describes is built to
    find out), so a crafted record fails here, not deep in loading."""
    from poolgym.table import Table

    for name, types in _RECORD_FIELDS.items():
        if name not in record:
            if name in LATER_FIELDS or name in _OPTIONAL_RECORD_FIELDS:
                continue
            raise ValueError(f"{path}: {ENV_RECORD} has no {name!r} (a record has "
                             f"{sorted(_RECORD_FIELDS)})")
        value = record[name]
        if isinstance(value, bool) != (bool in types) or not isinstance(value, types):
            raise ValueError(f"{path}: {ENV_RECORD} field {name!r} must be "
                             f"{' or '.join(t.__name__ for t in types)}, got {type(value).__name__} "
                             f"{quote(value)}")
    if "algorithm" in record and record["algorithm"] not in SB3_ALGORITHMS:
        raise ValueError(f"{path}: {ENV_RECORD} field 'algorithm' must be one of {list(SB3_ALGORITHMS)}, "
                         f"got {quote(record['algorithm'])}")
    try:
        action_mapper(record, Table.preset("9ft"))
        record_observation_space(record)
        check_lookahead_samples(recorded_mapping(record)["lookahead_samples"])
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path}: {ENV_RECORD}: {exc}") from None


def recorded_game(record: dict) -> str | None:
    """The game a model was trained at: its record's ``env_kwargs["game"]``, else the game
    its registered ``env_id`` plays; None when the record does not say (a practice env, an
    inferred record, an id not registered here)."""
    import gymnasium

    game = (record.get("env_kwargs") or {}).get("game")
    if isinstance(game, str):
        return game
    env_id = record.get("env_id")
    if isinstance(env_id, str) and env_id in gymnasium.registry:
        game = gymnasium.registry[env_id].kwargs.get("game")
        return game if isinstance(game, str) else None
    return None


def infer_record(model, path: str = "the model") -> dict:
    """A record inferred from an older model's spaces (action mode by its size, obs mode
    by its kind, today's default speeds and cut), with a warning that it is a guess."""
    from gymnasium import spaces

    from poolgym.envs.actions import ACTION_MODES

    n = int(np.prod(model.action_space.shape))
    modes = {len(components): mode for mode, components in ACTION_MODES.items()}
    if n not in modes:
        raise ValueError(f"{path}: the model's action space has {n} components; poolgym's "
                         f"action modes have {sorted(modes)} ({', '.join(f'{m}: {k}' for k, m in sorted(modes.items()))})")
    warnings.warn(f"{path} does not record the env it was trained on; assuming action_mode "
                  f"{modes[n]!r} with max_speed 10 m/s and max_cut_deg 5 (retrain, or check "
                  f"the env it was trained with)", stacklevel=2)
    obs_mode = "dict" if isinstance(model.observation_space, spaces.Dict) else "flat"
    return {"format": RECORD_FORMAT, "version": RECORD_VERSION, "env_id": None, "env_kwargs": {},
            "action_mode": modes[n], "min_speed": 0.3, "max_speed": 10.0, "max_tip_offset": 0.5,
            "max_cut_deg": 5.0, "obs_mode": obs_mode, "noise": None, "inferred": True}


def action_mapper(record: dict, table):
    """The action mapping a record describes, on ``table`` (an ``ActionMapper``, or a
    ``ChoiceMapper`` for the choice modes)."""
    from poolgym.envs.choice import make_action_mapper

    return make_action_mapper(table, record["action_mode"], min_speed=record["min_speed"],
                              max_speed=record["max_speed"], max_tip_offset=record["max_tip_offset"],
                              max_cut_deg=record["max_cut_deg"], sigma_deg=record.get("sigma_deg", 0.0),
                              elevation=record.get("elevation", False),
                              pot_residual=recorded_mapping(record)["pot_residual"])


def record_observation_space(record: dict):
    """The observation space a record describes (format, match score, candidate slots)."""
    from poolgym.envs.choice import CHOICE_MODES
    from poolgym.envs.observations import observation_spaces

    return observation_spaces(record["obs_mode"], match=record.get("observe_match", False),
                              choice=record["action_mode"] in CHOICE_MODES,
                              lookahead=recorded_mapping(record)["lookahead"])


def _size(space) -> int:
    from gymnasium import spaces

    return int(spaces.flatdim(space))


def check_spaces(model, record: dict, path: str = "the model") -> None:
    """``ValueError`` naming both sides when the model's spaces are not those its record
    describes in this poolgym (another action mode, another observation size)."""
    from gymnasium import spaces

    from poolgym.table import Table

    n_model = int(np.prod(model.action_space.shape))
    n_record = int(np.prod(action_mapper(record, Table.preset("9ft")).space.shape))
    if n_model != n_record:
        raise ValueError(f"{path}: the model acts with {n_model} components but its record says "
                         f"action_mode {record['action_mode']!r} ({n_record} components)")
    expected = record_observation_space(record)
    model_dict = isinstance(model.observation_space, spaces.Dict)
    if model_dict != isinstance(expected, spaces.Dict) or _size(model.observation_space) != _size(expected):
        raise ValueError(f"{path}: the model takes {'dict' if model_dict else 'flat'} observations of "
                         f"size {_size(model.observation_space)}; this poolgym's {record['obs_mode']!r} "
                         f"observations have size {_size(expected)} (trained with another "
                         f"observation format)")


MAPPING_FIELDS = ("action_mode", "min_speed", "max_speed", "max_tip_offset", "max_cut_deg", "obs_mode",
                  "observe_match", "elevation", "pot_residual", "lookahead", "lookahead_samples")
# Mapping fields added after the first records: a record without one was written before the
# option existed, when its value was this.
LATER_FIELDS = {"observe_match": False, "elevation": False, "pot_residual": "stroke", "lookahead": False,
                "lookahead_samples": DEFAULT_LOOKAHEAD_SAMPLES}


def recorded_mapping(record: dict) -> dict:
    """A record's mapping fields, those it predates at the value they then had."""
    return {k: record.get(k, LATER_FIELDS.get(k)) for k in MAPPING_FIELDS}


def env_side(env) -> dict:
    """An env's mapping and observation format, as the record's fields."""
    game = env.unwrapped
    m = game.mapper
    return {"action_mode": m.mode, "min_speed": m.min_speed, "max_speed": m.max_speed,
            "max_tip_offset": m.max_tip_offset, "max_cut_deg": m.max_cut_deg, "obs_mode": game.obs_mode,
            "observe_match": bool(getattr(game, "observe_match", False)),
            "elevation": bool(getattr(m, "elevation", False)),
            # The raw and aim modes' residuals turn the stroke.
            "pot_residual": getattr(m, "pot_residual", "stroke"),
            "lookahead": bool(getattr(game, "lookahead", False)),
            "lookahead_samples": getattr(game, "lookahead_samples", DEFAULT_LOOKAHEAD_SAMPLES)}


def check_env_matches(record: dict, env, path: str = "the model") -> None:
    """``ValueError`` naming both sides when a model recorded with ``record`` would act in
    ``env`` with another action mapping or observation format than it was trained with."""
    side, saved = env_side(env), recorded_mapping(record)
    differ = [f"{k}: model {saved[k]!r}, env {side[k]!r}" for k in MAPPING_FIELDS if saved[k] != side[k]]
    if differ:
        raise ValueError(f"{path} was trained with another action mapping or observation format "
                         f"than this env's: {'; '.join(differ)}")
