"""A saved stable-baselines3 model read as data: its zip within bounds, and every entry
SB3 would unpickle rebuilt from plain values instead.

SB3 saves a model as a zip of ``data`` (a JSON object of the model's settings, in which a
value JSON cannot hold -- a space, the policy class, a schedule -- is a cloudpickle marked
``:serialized:``, with its plain fields written beside it), ``policy.pth`` and the
optimisers' ``*.pth`` (tensors, which SB3 reads with ``torch.load(weights_only=True)``).
Unpickling runs whatever code the pickle names, so a model is loaded with each pickled
entry replaced (SB3's ``custom_objects``) by one rebuilt here (``plain_objects``):

==========================================  ==========================================================
entry                                        rebuilt from
==========================================  ==========================================================
``observation_space``, ``action_space``      the env the model's record names (``sb3_models``), or one
                                             inferred from an older poolgym model's shapes, else the
                                             plain fields (a ``Discrete``; a ``Box`` with one bound for
                                             all components); it must agree with every plain field SB3
                                             wrote beside the pickle
``policy_class``, ``*_buffer_class``         the policy and buffer classes of stable-baselines3,
                                             sb3-contrib and poolgym, named by module and class
schedules (``lr_schedule``, ``clip_range``)  the constant or linear schedule its plain field writes out
``_last_obs``, ``ep_info_buffer``, ...       nothing: the state of an unfinished rollout, which a
                                             resumed run starts afresh
``train_freq``                               the algorithm's default (a resumed run's config gives its own)
==========================================  ==========================================================

Anything else pickled (a policy class of other code, action noise, policy keyword
arguments that are not plain values) is refused with one line naming the file and the
entry; the trust flag (``trusted=True``, ``--trust-model``) lets SB3 unpickle it.

Every member's declared size is checked against its limit before it is read, and the read
stops at that size (``read_model_zip``), so a small zip that expands to gigabytes is
refused, naming the file and the member, before it is read whole.
"""

from __future__ import annotations

import inspect
import io
import json
import math
import re
import warnings
import zipfile
import zlib
from types import SimpleNamespace
from typing import Any

from poolgym.files import FileTooLarge, read_bounded, read_bounded_member

# The file itself and each tensor member (the shipped 9-ball model is 2.2 MB, its policy.pth 2.2 MB).
MAX_MODEL_BYTES = 512 << 20
MAX_MEMBER_BYTES = 512 << 20
# All members together, expanded, and how many there may be (SB3 writes at most eight).
MAX_EXPANDED_BYTES = 1 << 30
MAX_MEMBERS = 64
# SB3's ``data``: 47 KB for the shipped model.
MAX_DATA_BYTES = 64 << 20
TRUST_HINT = "pass --trust-model (trusted=True) if you trust this file"
# The most components (or choices) a space rebuilt from a file's plain fields may have:
# poolgym's largest observation has 734, and a space is allocated before it is compared.
MAX_PLAIN_SPACE = 1 << 20

# Entries that hold the state of a rollout in progress: training starts them afresh.
_ROLLOUT_STATE = ("_last_obs", "_last_episode_starts", "_last_original_obs", "ep_info_buffer",
                  "ep_success_buffer")
_SCHEDULES = ("lr_schedule", "learning_rate", "clip_range", "clip_range_vf", "exploration_schedule")
_CLASSES = ("policy_class", "rollout_buffer_class", "replay_buffer_class")
_FLOAT = r"([-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan))"
_CONSTANT = re.compile(rf"ConstantSchedule\(val={_FLOAT}\)")
_LINEAR = re.compile(rf"LinearSchedule\(start={_FLOAT}, end={_FLOAT}, end_fraction={_FLOAT}\)")
_METHOD = re.compile(r"<function ([A-Za-z_][\w.]*)\.\w+ at 0x[0-9a-f]+>")
# What an entry that cannot be rebuilt from plain values is rebuilt as.
_UNKNOWN = object()


def read_model_zip(path: str) -> tuple[bytes, dict[str, bytes]]:
    """The bytes of the model file ``path`` and of each of its members, read within bounds
    (module docstring); a one-line ``ValueError`` naming the file (and the member) otherwise."""
    raw = read_bounded(path, MAX_MODEL_BYTES, "a model file")
    members: dict[str, bytes] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise ValueError(f"{path}: {len(infos)} members; a model file holds at most {MAX_MEMBERS}")
            total = 0
            for info in infos:
                limit = MAX_DATA_BYTES if info.filename == "data" else MAX_MEMBER_BYTES
                total += info.file_size
                if info.file_size > limit or total > MAX_EXPANDED_BYTES:
                    raise ValueError(f"{path}: member {info.filename!r} expands to {info.file_size} bytes; "
                                     f"a model's {'data' if limit == MAX_DATA_BYTES else 'member'} holds at most "
                                     f"{limit}, all members together {MAX_EXPANDED_BYTES}")
                try:
                    members[info.filename] = read_bounded_member(archive, info, info.file_size, info.filename)
                except FileTooLarge:
                    raise ValueError(f"{path}: member {info.filename!r} expands past the {info.file_size} "
                                     "bytes it declares") from None
    # RuntimeError: an encrypted member; NotImplementedError: an unknown compression method.
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        raise ValueError(f"{path}: not a readable model zip: {type(exc).__name__}: {exc}"[:500]) from None
    return raw, members


def read_data(path: str, members: dict[str, bytes]) -> dict:
    """SB3's ``data`` entry of the model ``path`` (its ``members``) as a JSON object; a
    one-line ``ValueError`` naming the file otherwise."""
    if "data" not in members:
        raise ValueError(f"{path}: not a saved stable-baselines3 model (no 'data' entry)")
    try:
        data = json.loads(members["data"].decode("utf-8"))
    except RecursionError:
        raise ValueError(f"{path}: data is nested too deeply") from None
    except ValueError as exc:  # not UTF-8, not JSON
        raise ValueError(f"{path}: data is not JSON: {type(exc).__name__}: {exc}"[:500]) from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: data is not a JSON object")
    return data


def pickled_entries(data: dict) -> list[str]:
    """The entries of ``data`` SB3 would unpickle."""
    return [key for key, value in data.items() if isinstance(value, dict) and ":serialized:" in value]


def plain_objects(data: dict, algorithm_cls, record: dict | None, path: str) -> dict[str, Any]:
    """Each pickled entry of the model's ``data`` rebuilt from plain values (module
    docstring), for SB3's ``custom_objects``; a one-line ``ValueError`` naming the file and
    the entry, and the trust flag, for one that cannot be."""
    spaces = _space_candidates(data, record)
    objects: dict[str, Any] = {}
    for key in pickled_entries(data):
        stored = {k: v for k, v in data[key].items() if k != ":serialized:"}
        if key in spaces:
            value = _matching_space(stored, spaces[key])
        elif key in _CLASSES:
            value = _matching_class(stored, _known_classes(algorithm_cls))
        elif key in _SCHEDULES:
            value = _schedule(stored)
        elif key in _ROLLOUT_STATE:
            value = None
        elif key == "train_freq":
            value = _default(algorithm_cls, key)
        else:
            value = _UNKNOWN
        if value is _UNKNOWN:
            raise ValueError(f"{path}: data entry {key!r} ({str(stored.get(':type:', '?'))[:80]}) can only be "
                             f"read by unpickling it, which runs code; {TRUST_HINT}")
        objects[key] = value
    return objects


# ============================================================================ spaces
def _space_candidates(data: dict, record: dict | None) -> dict[str, list]:
    """The spaces each of ``observation_space`` and ``action_space`` may be, most likely first:
    those of the model's record (or of one inferred from an older poolgym model's shapes),
    then those its plain fields describe."""
    from poolgym.envs.sb3_models import action_mapper, infer_record, record_observation_space
    from poolgym.table import Table

    candidates: dict[str, list] = {"observation_space": [], "action_space": []}
    records = [record] if record is not None else []
    if record is None:
        action = data.get("action_space")
        observation = data.get("observation_space")
        shape = action.get("_shape") if isinstance(action, dict) else None
        if isinstance(shape, list) and all(isinstance(n, int) for n in shape) and isinstance(observation, dict):
            from gymnasium import spaces

            dict_obs = observation.get(":type:") == str(spaces.Dict)
            stand_in = SimpleNamespace(action_space=SimpleNamespace(shape=tuple(shape)),
                                       observation_space=spaces.Dict({}) if dict_obs else None)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the caller warns that the record is a guess
                    records.append(infer_record(stand_in))
            except ValueError:  # not one of poolgym's action modes
                pass
    for rec in records:
        try:
            candidates["observation_space"].append(record_observation_space(rec))
            candidates["action_space"].append(action_mapper(rec, Table.preset("9ft")).space)
        except (ValueError, TypeError, KeyError):
            pass
    for key in candidates:
        stored = data.get(key)
        if isinstance(stored, dict):
            candidates[key].extend(_plain_spaces(stored))
    return candidates


def _plain_spaces(stored: dict) -> list:
    """The space the plain fields ``stored`` describe in full, if any: a ``Discrete``, or a
    ``Box`` with one bound for all its components; at most ``MAX_PLAIN_SPACE`` of either."""
    import numpy as np
    from gymnasium import spaces

    try:
        if stored.get(":type:") == str(spaces.Discrete):
            n = int(stored["n"])
            return [spaces.Discrete(n, start=int(stored.get("start", 0)))] if 0 < n <= MAX_PLAIN_SPACE else []
        if stored.get(":type:") == str(spaces.Box):
            dtype = np.dtype(stored["dtype"])
            shape = tuple(int(n) for n in stored["_shape"])
            if dtype.kind not in "fiu" or len(shape) > 8 or not 0 < math.prod(shape) <= MAX_PLAIN_SPACE:
                return []
            low, high = (dtype.type(float(stored[k])) for k in ("low_repr", "high_repr"))
            return [spaces.Box(low, high, shape, dtype)]
    except (KeyError, TypeError, ValueError):  # fields that are not those of a plain space
        pass
    return []


def _matching_space(stored: dict, candidates: list):
    """The first of ``candidates`` whose plain fields, as SB3 writes them, agree with every
    one of ``stored`` they share (its type always)."""
    for space in candidates:
        form = _stored_form(space)
        shared = (set(form) & set(stored)) - {"_np_random"}
        if ":type:" in shared and all(form[k] == stored[k] for k in shared):
            return space
    return _UNKNOWN


def _stored_form(value) -> dict:
    """``value``'s plain fields as SB3 writes them beside its pickle."""
    from stable_baselines3.common.save_util import data_to_json

    form = json.loads(data_to_json({"value": value}))["value"]
    form.pop(":serialized:", None)
    return form


# ============================================================================ classes
def _known_classes(algorithm_cls) -> list[type]:
    """The policy and buffer classes a model of ``algorithm_cls`` may name: its own policy
    aliases, poolgym's policies, and the buffers of stable-baselines3 and sb3-contrib."""
    from stable_baselines3.common import buffers

    known = list(getattr(algorithm_cls, "policy_aliases", {}).values())
    known += [buffers.RolloutBuffer, buffers.DictRolloutBuffer, buffers.ReplayBuffer, buffers.DictReplayBuffer]
    try:
        from sb3_contrib.common.maskable import buffers as maskable

        known += [maskable.MaskableRolloutBuffer, maskable.MaskableDictRolloutBuffer]
        from poolgym.agents.training.canonical_policy import POLICIES

        known += list(POLICIES.values())
    except ImportError:  # without sb3-contrib (the train extra): none of its classes
        pass
    return known


def _matching_class(stored: dict, known: list[type]):
    """The class of ``known`` in the module ``stored`` names whose methods ``stored``
    lists (SB3 writes a class's functions as ``<function Class.method at 0x...>``)."""
    module = stored.get("__module__")
    names = {m.group(1) for v in stored.values() if isinstance(v, str) for m in [_METHOD.search(v)] if m}
    init = _METHOD.search(str(stored.get("__init__", "")))
    if init is not None:
        names = {init.group(1)}
    matches = [c for c in known if c.__module__ == module and c.__qualname__ in names]
    return matches[0] if len(matches) == 1 else _UNKNOWN


# ============================================================================ the rest
def _schedule(stored: dict):
    """The constant or linear schedule ``stored`` writes out (SB3's ``FloatSchedule``)."""
    from stable_baselines3.common.utils import FloatSchedule, LinearSchedule

    text = stored.get("value_schedule")
    if stored.get(":type:") != str(FloatSchedule) or not isinstance(text, str):
        return _UNKNOWN
    constant, linear = _CONSTANT.fullmatch(text), _LINEAR.fullmatch(text)
    if constant is not None:
        return FloatSchedule(float(constant.group(1)))
    if linear is not None:
        return FloatSchedule(LinearSchedule(*(float(g) for g in linear.groups())))
    return _UNKNOWN


def _default(algorithm_cls, name: str):
    """The default of ``algorithm_cls``'s argument ``name``."""
    parameter = inspect.signature(algorithm_cls.__init__).parameters.get(name)
    if parameter is None or parameter.default is inspect.Parameter.empty:
        return _UNKNOWN
    return parameter.default
