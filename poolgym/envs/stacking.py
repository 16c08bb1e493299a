"""The batched envs' stacking of their tables' observations and infos: exactly what
Gymnasium's vector envs build (``gymnasium.vector.utils.concatenate``, ``VectorEnv._add_info``
called for each table in turn), one key at a time over all tables rather than one table
at a time over all keys. Gymnasium's generic functions stack an entry of every table with a
call of their own (dispatch, a mask allocated per key and table); here each key's arrays
are built once per step. tests/envs/test_stacking.py compares both on real steps and on
infos of every shape the generic function handles."""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any

import numpy as np
from gymnasium.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Space
from gymnasium.vector.utils import concatenate, create_empty_array

# The spaces whose batch is one array of the space's dtype (``concatenate`` stacks them).
_ARRAY_SPACES = (Box, Discrete, MultiDiscrete, MultiBinary)


def stack_observations(space: Space, items: Sequence) -> Any:
    """``concatenate(space, items, create_empty_array(space, len(items)))``: one entry per
    table, a ``Dict``'s by key, in new arrays."""
    if isinstance(space, Dict):
        return {key: stack_observations(subspace, [item[key] for item in items])
                for key, subspace in space.spaces.items()}
    if isinstance(space, _ARRAY_SPACES):
        try:
            stacked = np.asarray(items)
        except (TypeError, ValueError, OverflowError):  # ``concatenate`` raises its own error
            stacked = None
        # Entries of the space's dtype and shape: the array ``np.stack`` would write, value
        # for value. Any other (a cast, a shape error) is left to ``concatenate``.
        if stacked is not None and stacked.dtype == space.dtype and stacked.shape == (len(items), *space.shape):
            return stacked
    return concatenate(space, items, create_empty_array(space, len(items)))


def joins_stacks(space: Space) -> bool:
    """Whether batches of ``space`` stacked apart (``stack_observations``) join into the
    batch of all their items by ``join_stacked``: an array space, or a ``Dict`` of them."""
    if isinstance(space, Dict):
        return all(joins_stacks(subspace) for subspace in space.spaces.values())
    return isinstance(space, _ARRAY_SPACES)


def join_stacked(space: Space, parts: Sequence) -> Any:
    """Batches of ``space`` (``joins_stacks``), each ``stack_observations`` of some items,
    joined: the batch ``stack_observations`` makes of all the items in order (each is an
    array of the space's dtype, one row per item)."""
    if isinstance(space, Dict):
        return {key: join_stacked(subspace, [part[key] for part in parts]) for key, subspace in space.spaces.items()}
    return np.concatenate(parts)


class _Unstackable(Exception):
    """Infos whose stacking by ``VectorEnv._add_info`` depends on the order of the tables'
    calls (a key both a mapping and not, a key named as another's mask): left to it."""


def stack_infos(infos: Sequence[dict], num_envs: int) -> dict | None:
    """The vector info of ``infos`` (table ``i``'s is ``infos[i]``, ``i`` from 0): what
    ``VectorEnv._add_info`` gives, called for each table in turn from ``{}`` (a key per
    entry, its ``_key`` mask; nested mappings alike), or None for infos it stacks by the
    order of its calls (``_Unstackable``), for the caller to give to it. Infos it cannot
    stack (a value that does not convert to the first table's type) are given to it too,
    so that they are refused with its own error: which entry fails first depends on the
    order of its calls as well."""
    try:
        return _stack_level(list(range(len(infos))), list(infos), num_envs)
    except (_Unstackable, TypeError, ValueError, OverflowError):
        return None


def _stack_level(rows: list[int], infos: list[dict], num_envs: int) -> dict:
    """``stack_infos`` of one level: ``infos[k]`` is table ``rows[k]``'s (rows ascending)."""
    # The keys in the order ``_add_info`` first meets them (table by table), each followed
    # by its mask.
    keys = dict.fromkeys(infos[0]) if infos else {}
    for info in infos:
        if not info.keys() <= keys.keys():
            keys.update(dict.fromkeys(info))
    masks = [f"_{key}" for key in keys]
    if len(set(masks)) != len(masks) or not keys.keys().isdisjoint(masks):
        raise _Unstackable
    sizes = list(map(len, infos))
    stacked: dict = {}
    if all(size == 0 or size == len(keys) for size in sizes):
        # Each info holds every key or none (the usual case: a table's info has the same
        # keys each step; a reset's reward terms none): one set of rows for every key.
        holding = [k for k, size in enumerate(sizes) if size]
        if len(holding) < len(infos):
            rows, infos = [rows[k] for k in holding], [infos[k] for k in holding]
        if len(rows) == num_envs:
            shared_mask = np.ones(num_envs, dtype=np.bool_)
        else:
            shared_mask = np.zeros(num_envs, dtype=np.bool_)
            shared_mask[rows] = True
        for key, mask_key in zip(keys, masks):
            values = list(map(itemgetter(key), infos))
            stacked[key], stacked[mask_key] = _stack_entry(key, rows, values, num_envs), shared_mask.copy()
        return stacked
    for key, mask_key in zip(keys, masks):
        present = [row for row, info in zip(rows, infos) if key in info]
        values = [info[key] for info in infos if key in info]
        mask = np.zeros(num_envs, dtype=np.bool_)
        mask[present] = True
        stacked[key], stacked[mask_key] = _stack_entry(key, present, values, num_envs), mask
    return stacked


def _stack_entry(key: Any, rows: list[int], values: list, num_envs: int):
    """One key's array (or, for mappings, its nested vector info), as ``_add_info`` builds
    it: the first table's value sets its kind and dtype, each table's value is set in its row."""
    first = values[0]
    kind = type(first)
    kinds = set(map(type, values))
    full = len(rows) == num_envs
    if key == "final_obs":  # ``_add_info`` keeps final observations as objects, whatever they are
        array = np.full(num_envs, fill_value=None, dtype=object)
    elif any(issubclass(other, dict) for other in kinds):
        if not all(issubclass(other, dict) for other in kinds):
            raise _Unstackable
        return _stack_level(rows, values, num_envs)
    elif kind in (int, float, bool) or issubclass(kind, np.number):
        if len(kinds) == 1 and np.dtype(kind).kind in "biufc":
            # Numbers of one type throughout: converted at once, as one at a time.
            if full:
                return np.array(values, dtype=kind)
            array = np.zeros(num_envs, dtype=kind)
            array[rows] = values
            return array
        array = np.zeros(num_envs, dtype=kind)
    elif isinstance(first, np.ndarray):
        array = np.zeros((num_envs, *first.shape), dtype=first.dtype)
    elif full:
        # Objects in every row: each one stored as it is (``fromiter`` takes each value whole).
        return np.fromiter(values, dtype=object, count=num_envs)
    else:
        array = np.full(num_envs, fill_value=None, dtype=object)
    for row, value in zip(rows, values):
        array[row] = value
    return array
