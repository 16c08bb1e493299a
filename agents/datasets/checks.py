"""Datasets opened as data: every Minari dataset poolgym reads passes these checks first.

A dataset folder (``<MINARI_DATASETS_PATH>/<id>/data``) holds ``metadata.json`` and
``main_data.hdf5``. Minari, given a ``metadata.json`` without a space, rebuilds the env its
``env_spec`` names (importing and calling the entry point the file chooses), and reads
episodes without checking them. So poolgym reads both files itself before Minari sees them:

- ``metadata.json`` is read with a size limit and must hold ``total_episodes``,
  ``total_steps``, ``data_format: hdf5`` and both spaces as Minari's plain JSON (Box,
  Discrete, MultiDiscrete, MultiBinary, Dict of them, within size limits). A missing space is
  refused unless the caller trusts the dataset (``trusted=True``), which lets Minari build
  the env its ``env_spec`` names; poolgym itself never builds one from a file.
- ``main_data.hdf5`` must hold exactly the groups ``episode_0`` .. ``episode_{n-1}`` the
  metadata declares, each of plain members (no links to other files). Every array's declared
  shape and type is checked before it is read: ``observations`` and every info one row more
  than ``actions``; ``rewards``, ``terminations`` and ``truncations`` one per action. What is
  read is then checked for range: observations and actions finite and within their spaces
  (a slot within the action space), rewards finite, and each recorded action offered by the
  recorded ``action_masks`` of its step. The steps of all episodes must add up to
  ``total_steps``.

Each refusal is one ``ValueError`` line naming the file, the dataset, the episode and the
field, and what is allowed. ``load_dataset`` is the one way poolgym opens a dataset
(``poolgym collect`` appending, ``describe``, behaviour cloning); ``read_dataset`` gives the
checked metadata and ``DatasetFiles.episodes`` the checked episodes.
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np
from gymnasium import spaces

from poolgym.files import read_bounded

METADATA_FILE = "metadata.json"
DATA_FILE = "main_data.hdf5"
# poolgym's metadata is a few kilobytes (a Box space lists its bounds); a megabyte is ample.
MAX_METADATA_BYTES = 1 << 20
# Elements of one space (a flat observation has a few hundred) and of one episode's array.
MAX_SPACE_ELEMENTS = 1 << 16
MAX_EPISODE_STEPS = 100_000
# What the declared shapes of one dataset may add up to before anything is read.
MAX_DATASET_BYTES = 8 << 30
SPACE_TYPES = ("Box", "Discrete", "MultiDiscrete", "MultiBinary", "Dict")
EPISODE_ARRAYS = ("observations", "actions", "rewards", "terminations", "truncations")


def dataset_folder(dataset_id: str) -> Path:
    """The folder Minari keeps ``dataset_id`` in (its ``data`` folder holds the files)."""
    from minari.storage import get_dataset_path

    return Path(get_dataset_path(dataset_id))


@dataclass(frozen=True)
class Episode:
    """One checked episode: ``observations`` (an array, or a dict of arrays for a Dict
    space) one row longer than ``actions``, ``rewards``, and ``masks`` (the recorded
    ``action_masks``, one row per observation; None when none were recorded) and
    ``terminations`` (one per action)."""

    id: int
    observations: Any
    actions: np.ndarray
    rewards: np.ndarray
    masks: np.ndarray | None
    terminations: np.ndarray | None = None


@dataclass(frozen=True)
class DatasetFiles:
    """A dataset's checked metadata: its id, ``data`` folder, spaces, env spec (parsed, never
    built) and totals. ``episodes()`` reads and checks its episodes one at a time."""

    dataset_id: str
    data: Path
    metadata: dict
    observation_space: spaces.Space
    action_space: spaces.Space
    env_spec: Any
    total_episodes: int
    total_steps: int

    def where(self, episode: int | None = None, field: str | None = None) -> str:
        """The start of a refusal: the file, the dataset and, when given, episode and field."""
        text = f"{self.data / DATA_FILE}: dataset {self.dataset_id}"
        if episode is not None:
            text += f": episode_{episode}"
        return text + (f": {field}" if field else "")

    def episodes(self) -> Iterator[Episode]:
        """Every episode, checked (module docstring), in order."""
        import h5py

        path = self.data / DATA_FILE
        try:
            file = h5py.File(path, "r")
        except OSError as exc:
            raise ValueError(f"{path}: dataset {self.dataset_id}: not a readable HDF5 file (truncated or "
                             f"damaged: {_first_line(exc)}); collect it again with poolgym collect") from None
        with file:
            try:
                names = set(file.keys())
                expected = {f"episode_{i}" for i in range(self.total_episodes)}
                missing = sorted(expected - names, key=_episode_order)
                if missing:
                    raise ValueError(f"{self.where(field=missing[0])}: missing; {METADATA_FILE} declares "
                                     f"total_episodes {self.total_episodes} (episode_0 .. "
                                     f"episode_{self.total_episodes - 1}) but the file holds {len(names)} groups")
                extra = sorted(names - expected)
                if extra:
                    raise ValueError(f"{self.where(field=extra[0])}: not one of the total_episodes "
                                     f"{self.total_episodes} {METADATA_FILE} declares (episode_0 .. "
                                     f"episode_{self.total_episodes - 1})")
                shapes = [self._declared_steps(file, i) for i in range(self.total_episodes)]
                if sum(shapes) != self.total_steps:
                    raise ValueError(f"{self.where()}: its episodes hold {sum(shapes)} steps, but "
                                     f"{METADATA_FILE} declares total_steps {self.total_steps}")
                row_bytes = 8 * (_elements(self.observation_space) + _elements(self.action_space) +
                                 (_mask_width(self.action_space) or 0) + 3)
                if (self.total_steps + self.total_episodes) * row_bytes > MAX_DATASET_BYTES:
                    raise ValueError(f"{self.where()}: {self.total_steps} steps would take more than "
                                     f"{MAX_DATASET_BYTES >> 30} GiB in memory; at most that is read")
                for i in range(self.total_episodes):
                    yield self._episode(file, i)
            except (OSError, RuntimeError, KeyError) as exc:  # a file damaged inside (h5py's read errors)
                raise ValueError(f"{self.where()}: cannot read the HDF5 file (damaged: {_first_line(exc)}); "
                                 f"collect it again with poolgym collect") from None

    def _declared_steps(self, file, i: int) -> int:
        """Episode ``i``'s steps (its ``actions`` rows), with every member's declared shape
        and type checked against it before anything is read."""
        group = _member(file, f"episode_{i}", self.where(i), group=True)
        actions = _member(group, "actions", self.where(i, "actions"))
        if actions.ndim < 1 or not 1 <= actions.shape[0] <= MAX_EPISODE_STEPS:
            raise ValueError(f"{self.where(i, 'actions')}: {_rows(actions)}; 1 to {MAX_EPISODE_STEPS} allowed")
        n = actions.shape[0]
        _check_declared(actions, self.action_space, n, self.where(i, "actions"))
        _check_declared(_member(group, "observations", self.where(i, "observations"), group=None),
                        self.observation_space, n + 1, self.where(i, "observations"),
                        note=f"one more than its {n} actions")
        for name, kinds, allowed in (("rewards", "fiu", "numbers"), ("terminations", "b", "booleans"),
                                     ("truncations", "b", "booleans")):
            array = _member(group, name, self.where(i, name))
            _check_shape(array, (n,), self.where(i, name), f"one per action, {n}")
            if array.dtype.kind not in kinds:
                raise ValueError(f"{self.where(i, name)}: type {array.dtype}; {allowed} allowed")
        if "infos" in group:
            _check_infos(_member(group, "infos", self.where(i, "infos"), group=True), n + 1, self.where(i, "infos"))
            _check_declared_masks(group, self.action_space, n + 1, self.where(i, "infos/action_masks"))
        return n

    def _episode(self, file, i: int) -> Episode:
        """Episode ``i`` read (its declared shapes checked already) and checked for range."""
        group = file[f"episode_{i}"]

        def where(field: str) -> str:
            return self.where(i, field)
        observations = _read_space(group["observations"], self.observation_space, where("observations"))
        actions = _read_space(group["actions"], self.action_space, where("actions"))
        rewards = group["rewards"][()]
        if not np.all(np.isfinite(rewards)):
            row, _ = _first_bad(np.isfinite(rewards))
            raise ValueError(f"{where('rewards')}: row {row} is {rewards[row]}; finite numbers allowed")
        masks = None
        if "infos" in group and "action_masks" in group["infos"]:
            masks = group["infos"]["action_masks"][()]
            _check_masks(masks, actions, self.action_space, where("infos/action_masks"))
        return Episode(i, observations, actions, rewards, masks, group["terminations"][()])


def read_dataset(dataset_id: str, data: str | os.PathLike | None = None, trusted: bool = False) -> DatasetFiles:
    """The checked metadata of ``dataset_id`` (kept in ``data``, by default its folder under
    Minari's data path): ``ValueError`` naming the file, the dataset and the field when it
    is missing, too large, not JSON, or declares spaces or totals poolgym cannot take. A
    space that is missing is refused unless ``trusted`` (then Minari builds the env the
    dataset's ``env_spec`` names to find it: that runs the code the file names)."""
    data = Path(data) if data is not None else dataset_folder(dataset_id) / "data"
    path = data / METADATA_FILE
    if not data.is_dir():
        raise FileNotFoundError(f"dataset {dataset_id} not found: no folder {data}")
    if not path.exists() or not (data / DATA_FILE).exists():
        raise ValueError(f"{data}: dataset {dataset_id}: not a whole dataset (a {METADATA_FILE} and a {DATA_FILE} "
                         f"allowed, found {sorted(p.name for p in data.iterdir())[:8]}); remove the folder or "
                         f"choose another id")
    if not (data / DATA_FILE).is_file() or not stat.S_ISREG(os.stat(data / DATA_FILE).st_mode):
        raise ValueError(f"{data / DATA_FILE}: dataset {dataset_id}: not a regular file; a file of HDF5 data allowed")
    raw = read_bounded(path, MAX_METADATA_BYTES, f"the metadata of dataset {dataset_id}")
    try:
        metadata = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise ValueError(f"{path}: dataset {dataset_id}: not JSON ({_first_line(exc)})") from None
    where = f"{path}: dataset {dataset_id}"
    if not isinstance(metadata, dict):
        raise ValueError(f"{where}: a JSON object of Minari's metadata allowed, got {type(metadata).__name__}")
    totals = {}
    for key, low in (("total_episodes", 0), ("total_steps", 0)):
        value = metadata.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{where}: key {key!r} is {value!r}; a whole number >= {low} allowed")
        totals[key] = value
    if metadata.get("data_format", "hdf5") != "hdf5":
        raise ValueError(f"{where}: key 'data_format' is {metadata.get('data_format')!r}; 'hdf5' allowed")
    found = {}
    for key in ("observation_space", "action_space"):
        if key not in metadata:
            if trusted:
                continue
            raise ValueError(f"{where}: key {key!r} is missing; a dataset must record its spaces (poolgym "
                             f"does not build the env its env_spec names: that would run code the file names; "
                             f"pass trusted=True only for a dataset you trust)")
        found[key] = parse_space(metadata[key], f"{where}: key {key!r}")
    if not isinstance(found.get("action_space", spaces.Discrete(2)),
                      (spaces.Box, spaces.Discrete, spaces.MultiDiscrete)):
        raise ValueError(f"{where}: key 'action_space' is a {type(found['action_space']).__name__}; "
                         f"Box, Discrete or MultiDiscrete allowed")
    env_spec = _parse_env_spec(metadata.get("env_spec"), f"{where}: key 'env_spec'")
    if len(found) < 2:  # trusted: Minari builds the env the spec names for the missing space
        from minari.dataset.minari_dataset import MinariDataset

        dataset = MinariDataset(data)
        found.setdefault("observation_space", dataset.observation_space)
        found.setdefault("action_space", dataset.action_space)
    return DatasetFiles(dataset_id, data, metadata, found["observation_space"], found["action_space"], env_spec,
                        totals["total_episodes"], totals["total_steps"])


def check_dataset(files: DatasetFiles) -> None:
    """Reads and checks every episode of ``files`` (``ValueError`` at the first fault)."""
    for _ in files.episodes():
        pass


def load_dataset(dataset_id: str, trusted: bool = False):
    """``minari.load_dataset(dataset_id)`` once every check of the module docstring has
    passed (``read_dataset``, then every episode): the one way poolgym opens a dataset."""
    from poolgym.agents.datasets.collect import require_minari

    minari = require_minari()
    check_dataset(read_dataset(dataset_id, trusted=trusted))
    return minari.load_dataset(dataset_id)


def parse_space(text: Any, where: str) -> spaces.Space:
    """A space from Minari's JSON form, checked before Minari's parser sees it: one of
    ``SPACE_TYPES`` with well-formed fields and at most ``MAX_SPACE_ELEMENTS`` elements."""
    if not isinstance(text, str):
        raise ValueError(f"{where}: a space as Minari's JSON string allowed, got {type(text).__name__}")
    try:
        tree = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{where}: not a space ({_first_line(exc)}); Minari's JSON form of a "
                         f"{'/'.join(SPACE_TYPES)} space allowed") from None
    _check_space_tree(tree, where, depth=0)
    from minari.serialization import deserialize_space

    try:
        space = deserialize_space(text)
    except Exception as exc:  # Minari's parser on a tree that passed the checks above
        raise ValueError(f"{where}: not a space ({type(exc).__name__}: {_first_line(exc)}); Minari's JSON "
                         f"form of a {'/'.join(SPACE_TYPES)} space allowed") from None
    return space


def _check_space_tree(tree: Any, where: str, depth: int) -> None:
    kinds = "/".join(SPACE_TYPES)
    if not isinstance(tree, dict) or tree.get("type") not in SPACE_TYPES:
        got = tree.get("type") if isinstance(tree, dict) else type(tree).__name__
        raise ValueError(f"{where}: space type {got!r}; {kinds} allowed (Minari's JSON form)")
    kind = tree["type"]
    if kind == "Dict":
        subspaces = tree.get("subspaces")
        if depth > 0 or not isinstance(subspaces, dict) or not subspaces:
            raise ValueError(f"{where}: a Dict space needs 'subspaces', a non-empty object of non-Dict spaces")
        for key, sub in subspaces.items():
            _check_space_tree(sub, f"{where}[{key!r}]", depth + 1)
        return
    if kind == "Discrete":
        for key in ("n", "start"):
            if not _whole(tree.get(key)) or (key == "n" and tree[key] < 1):
                raise ValueError(f"{where}: Discrete key {key!r} is {tree.get(key)!r}; a whole number allowed")
        return
    field = {"Box": "shape", "MultiBinary": "n", "MultiDiscrete": "nvec"}[kind]
    sizes = tree.get(field)
    sizes = [sizes] if kind == "MultiBinary" and _whole(sizes) else sizes
    if not isinstance(sizes, list) or not all(_whole(s) and s >= 1 for s in sizes) or \
            (kind != "Box" and not sizes) or \
            (len(sizes) if kind == "MultiDiscrete" else math.prod(sizes)) > MAX_SPACE_ELEMENTS:
        raise ValueError(f"{where}: {kind} key {field!r} is {_short(tree.get(field))}; a list of whole numbers "
                         f">= 1 with at most {MAX_SPACE_ELEMENTS} elements in all allowed")
    if kind == "Box":
        for key in ("low", "high"):
            bound = np.asarray(tree.get(key), dtype=object)
            if bound.shape != tuple(sizes) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                      for v in bound.ravel()):
                raise ValueError(f"{where}: Box key {key!r} must list {math.prod(sizes)} numbers of shape "
                                 f"{tuple(sizes)}")


def _parse_env_spec(text: Any, where: str):
    """The recorded env spec as data (``EnvSpec.from_json`` parses; nothing is imported or
    built), or None when there is none."""
    if text is None:
        return None
    from gymnasium.envs.registration import EnvSpec

    if not isinstance(text, str):
        raise ValueError(f"{where}: a JSON string allowed, got {type(text).__name__}")
    try:
        return EnvSpec.from_json(text)
    except Exception as exc:  # gymnasium's parser raises several kinds on malformed text
        raise ValueError(f"{where}: not an env spec ({type(exc).__name__}: {_first_line(exc)})") from None


def _member(parent, name: str, where: str, group: bool | None = False):
    """``parent[name]``, a plain member (stored in this file: no link to another file, no
    virtual or external dataset): a group when ``group`` is True, a dataset when False,
    either when None."""
    import h5py

    if name not in parent:
        raise ValueError(f"{where}: missing")
    link = parent.get(name, getlink=True)
    if not isinstance(link, h5py.HardLink):
        raise ValueError(f"{where}: a link ({type(link).__name__}); only members stored in this file allowed")
    item = parent[name]
    if isinstance(item, h5py.Dataset) and (item.is_virtual or item.external):
        raise ValueError(f"{where}: data kept outside this file; only members stored in this file allowed")
    if group is not None and isinstance(item, h5py.Group) != group:
        raise ValueError(f"{where}: a {'group' if isinstance(item, h5py.Group) else 'dataset'}; "
                         f"a {'group' if group else 'dataset'} allowed")
    return item


def _elements(space: spaces.Space) -> int:
    if isinstance(space, spaces.Dict):
        return sum(_elements(sub) for sub in space.spaces.values())
    return math.prod(_space_shape(space))


def _space_shape(space: spaces.Space) -> tuple:
    return (len(space.nvec),) if isinstance(space, spaces.MultiDiscrete) else tuple(space.shape)


def _check_declared(node, space: spaces.Space, rows: int, where: str, note: str = "") -> None:
    """The declared shape and type of ``node`` (a dataset, or a group for a Dict space)
    against ``space`` with ``rows`` rows, before anything is read."""
    import h5py

    if isinstance(space, spaces.Dict):
        if not isinstance(node, h5py.Group) or set(node.keys()) != set(space.spaces):
            got = sorted(node.keys()) if isinstance(node, h5py.Group) else "one array"
            raise ValueError(f"{where}: holds {got}; the keys {sorted(space.spaces)} of its Dict space allowed")
        for key, sub in space.spaces.items():
            _check_declared(_member(node, key, f"{where}/{key}", group=False), sub, rows, f"{where}/{key}", note)
        return
    if not isinstance(node, h5py.Dataset):
        raise ValueError(f"{where}: a group; one array allowed")
    _check_shape(node, (rows, *_space_shape(space)), where, note)
    kinds = "fiu" if isinstance(space, spaces.Box) else "iub" if isinstance(space, spaces.MultiBinary) else "iu"
    if node.dtype.kind not in kinds:
        raise ValueError(f"{where}: type {node.dtype}; {'numbers' if 'f' in kinds else 'whole numbers'} allowed")


def _check_shape(node, shape: tuple, where: str, note: str = "") -> None:
    if node.shape != shape:
        raise ValueError(f"{where}: {_rows(node)}; shape {shape} allowed{f' ({note})' if note else ''}")


def _rows(node) -> str:
    if node.ndim == 0:
        return "a single value"
    return f"{node.shape[0]} rows (shape {node.shape})"


def _check_infos(group, rows: int, where: str) -> None:
    """Every info array one row per observation, each row of bounded size."""
    import h5py

    for key in group.keys():
        item = _member(group, key, f"{where}/{key}", group=None)
        if isinstance(item, h5py.Group):
            _check_infos(item, rows, f"{where}/{key}")
        elif item.ndim < 1 or item.shape[0] != rows or math.prod(item.shape[1:]) > MAX_SPACE_ELEMENTS:
            raise ValueError(f"{where}/{key}: {_rows(item)}; {rows} rows (one per observation) of at most "
                             f"{MAX_SPACE_ELEMENTS} elements allowed")


def _mask_width(space: spaces.Space) -> int | None:
    if isinstance(space, spaces.MultiDiscrete):
        return int(np.sum(space.nvec))
    if isinstance(space, spaces.Discrete):
        return int(space.n)
    return None


def _check_declared_masks(group, space: spaces.Space, rows: int, where: str) -> None:
    width = _mask_width(space)
    if "infos" not in group or "action_masks" not in group["infos"]:
        return
    masks = group["infos"]["action_masks"]
    if width is None:
        raise ValueError(f"{where}: recorded for a {type(space).__name__} action space; masks go with "
                         f"Discrete and MultiDiscrete ones")
    _check_shape(masks, (rows, width), where, "one row per observation, one column per choice")
    if masks.dtype.kind != "b":
        raise ValueError(f"{where}: type {masks.dtype}; booleans allowed")


def _read_space(node, space: spaces.Space, where: str):
    """The values of ``node`` (declared shape already checked), each within ``space``."""
    if isinstance(space, spaces.Dict):
        return {key: _read_space(node[key], sub, f"{where}/{key}") for key, sub in space.spaces.items()}
    values = node[()]
    if values.dtype.kind == "f" and not np.all(np.isfinite(values)):
        row, element = _first_bad(np.isfinite(values))
        raise ValueError(f"{where}: {_place(row, element)} is {_value(values, row, element)}; finite numbers allowed")
    if isinstance(space, spaces.MultiBinary):
        low, high = np.zeros(space.shape, dtype=np.int64), np.ones(space.shape, dtype=np.int64)
    elif isinstance(space, spaces.MultiDiscrete):
        low = np.broadcast_to(np.asarray(getattr(space, "start", 0)), space.nvec.shape)
        high = low + space.nvec - 1
    elif isinstance(space, spaces.Discrete):
        low, high = np.int64(space.start), np.int64(space.start + space.n - 1)
    else:
        low, high = space.low, space.high
    inside = (values >= low) & (values <= high)
    if not np.all(inside):
        row, element = _first_bad(inside)
        k = element or 0
        allowed = f"{np.ravel(low)[k]} to {np.ravel(high)[k]} allowed (its {type(space).__name__} space)"
        raise ValueError(f"{where}: {_place(row, element)} is {_value(values, row, element)}; {allowed}")
    return values


def _first_bad(ok: np.ndarray) -> tuple[int, int | None]:
    """(row, element within the row, None for rows of one value) of the first False in ``ok``."""
    rows = ok.reshape(len(ok), -1)
    row = int(np.flatnonzero(~rows.all(axis=1))[0])
    return row, (int(np.flatnonzero(~rows[row])[0]) if ok.ndim > 1 else None)


def _place(row: int, element: int | None) -> str:
    return f"row {row}" + (f", element {element}" if element is not None else "")


def _value(values: np.ndarray, row: int, element: int | None):
    return values[row] if element is None else values[row].ravel()[element]


def _check_masks(masks: np.ndarray, actions: np.ndarray, space: spaces.Space, where: str) -> None:
    """Each recorded action offered by the mask of the step it was taken in."""
    n = len(actions)
    if isinstance(space, spaces.Discrete):
        offered = masks[np.arange(n), actions - int(space.start)]
    else:
        offsets = np.concatenate([[0], np.cumsum(space.nvec)[:-1]])
        columns = offsets + actions - np.asarray(getattr(space, "start", 0))
        offered = masks[np.arange(n)[:, None], columns]
    if not np.all(offered):
        row, element = _first_bad(offered)
        part = f" (its element {element}, {actions[row][element]})" if element is not None else ""
        raise ValueError(f"{where}: row {row} does not offer the recorded action {actions[row].tolist()}{part}; "
                         f"only actions its masks offer allowed")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _episode_order(name: str) -> int:
    return int(name.rsplit("_", 1)[1])
