"""Frozen dataclass records built from values already in their stored form.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``; for the
records made on every shot and every env step (outcomes, shot facts, candidate slots) that
is a large part of their cost. ``stored`` makes the same instance without it.
"""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache
from typing import Any, TypeVar

T = TypeVar("T")


@lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def stored(cls: type[T], **values: Any) -> T:
    """An instance of the frozen dataclass ``cls`` with every field set to ``values`` (each
    field given, each value already what ``__init__`` would store): the same ``__dict__``,
    in field order, as ``cls(**values)``, so equality, hash, repr and pickles are those of
    an instance built the usual way. Nothing is converted or checked, and no
    ``__post_init__`` runs: the caller checks what it has to. A missing field is a
    ``KeyError``, an unknown one a ``TypeError``."""
    names = _field_names(cls)
    if len(values) != len(names):
        raise TypeError(f"{cls.__name__} has fields {list(names)}, got {sorted(values)}")
    new = object.__new__(cls)
    # The callers on every shot give the fields in field order: their dict is set as it is.
    new.__dict__.update(values if tuple(values) == names else {name: values[name] for name in names})
    return new
