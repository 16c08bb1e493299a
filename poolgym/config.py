"""Building the project's option dataclasses from plain mappings (Python or YAML)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")


def from_mapping(cls: type[T], value: Any, what: str) -> T:
    """``cls`` from ``value``: an instance as it is, None for the defaults, or a mapping of
    field -> value, where an unknown field is a ``ValueError`` naming it and the known ones.
    ``what`` names the option set in messages (e.g. "rule options")."""
    if value is None:
        return cls()
    if isinstance(value, cls):
        return value
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a mapping of name -> value, got {value!r}")
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(value) - known)
    if unknown:
        raise ValueError(f"unknown {what} {unknown}; they are {sorted(known)}")
    return cls(**value)
