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

``action_mapper(record, table)`` rebuilds the mapping; ``check_spaces`` refuses a model
whose spaces disagree with its record or with this poolgym's observation format, and
``check_env_matches`` one used in an env of another mapping, each naming both sides. A zip
without the record (an older model) falls back to inferring the modes from its spaces,
with a warning (``infer_record``).

``load_model`` is the one way models are loaded. A model file is code: SB3 unpickles
parts of it, so only load files you trust (it warns once per process). It passes
``custom_objects`` for the schedules, which are only needed to train further, so those
are not unpickled.
"""

from __future__ import annotations

import json
import math
import os
import warnings
import zipfile
from dataclasses import asdict, is_dataclass
from typing import Any

import numpy as np

from poolgym.envs.lookahead import DEFAULT_SAMPLES as DEFAULT_LOOKAHEAD_SAMPLES

ENV_RECORD = "poolgym_env.json"
RECORD_FORMAT = "poolgym.model_env"
RECORD_VERSION = 1
SB3_ALGORITHMS = ("PPO", "SAC", "TD3", "A2C", "DDPG", "MaskablePPO")
# Algorithms of sb3-contrib (the ``train`` extra) rather than stable-baselines3 itself.
CONTRIB_ALGORITHMS = ("MaskablePPO",)
# Entries of a saved model only needed to go on training: replaced rather than unpickled.
_NOT_UNPICKLED = {"lr_schedule": 0.0, "learning_rate": 0.0, "clip_range": 0.0,
                  "clip_range_vf": None, "exploration_schedule": 0.0}
_warned = False


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


def load_model(path: str, algorithm: str = "PPO", device: str = "cpu"):
    """The stable-baselines3 model of class ``algorithm`` saved at ``path``.

    Warns once per process that a model file is code; ``ValueError`` (one line, naming the
    value and the choices) for an unknown algorithm, a missing file or one that is not a
    model of that class."""
    global _warned
    cls = algorithm_class(algorithm)
    path = check_model_path(path)
    if not _warned:
        _warned = True
        warnings.warn("a stable-baselines3 model file is code (parts of it are unpickled): "
                      "load only model files you trust", stacklevel=2)
    try:
        return cls.load(path, device=device, custom_objects=dict(_NOT_UNPICKLED))
    except (KeyError, ValueError, RuntimeError, zipfile.BadZipFile) as exc:
        raise ValueError(f"model file {path!r} is not a loadable {algorithm} model: "
                         f"{type(exc).__name__}: {exc}".replace("\n", " ")) from None


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
    train`` writes it), else PPO."""
    head, sep, rest = spec.partition(":")
    if sep and head in SB3_ALGORITHMS:
        return head, rest
    try:
        record = read_env_record(spec)
    except ValueError:  # no such file: loading it names the problem
        record = None
    return (record or {}).get("algorithm", "PPO"), spec


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


def read_env_record(path: str) -> dict | None:
    """The env record inside the saved model at ``path``, or None when it has none."""
    path = check_model_path(path)
    with zipfile.ZipFile(path) as archive:
        if ENV_RECORD not in archive.namelist():
            return None
        record = json.loads(archive.read(ENV_RECORD).decode())
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f"{path}: {ENV_RECORD} is not a {RECORD_FORMAT} record")
    if record.get("version") != RECORD_VERSION:
        raise ValueError(f"{path}: {ENV_RECORD} version {record.get('version')!r} is not "
                         f"one this poolgym reads ({RECORD_VERSION})")
    return record


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
