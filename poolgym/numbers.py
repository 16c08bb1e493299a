"""Numbers at the boundary: every numeric input becomes a plain Python float (or int) here,
or a ``ValueError`` naming its field.

NumPy scalars keep their own precision through arithmetic (a float32 speed makes a float32
velocity under NumPy 2), and integers beyond the float range raise ``OverflowError`` far from
where they came in; converting once, where a value enters, keeps both out of the physics.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

# The longest rendering of a value quoted in an error message.
MAX_QUOTE = 80


def quote(value: Any, limit: int = MAX_QUOTE) -> str:
    """``repr(value)`` cut to ``limit`` characters, safe for huge integers and deep data."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # ints past the str-digits limit, self-nesting
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def real(value: Any, field: str) -> float:
    """``value`` as a Python float: a real number (Python or NumPy; not a bool) within the
    float range, else ``ValueError`` naming ``field``. NaN and infinities pass through (the
    caller's range check names them)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{field} must be a real number, got {type(value).__name__} {quote(value)}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{field} is too large: {quote(value)} is beyond the float range "
                         "(about 1.8e308)") from None


def integer(value: Any, field: str) -> int:
    """``value`` as a Python int: an integer (Python or NumPy; not a bool), else ``ValueError``
    naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{field} must be an integer, got {type(value).__name__} {quote(value)}")
    return int(value)


def seed(value: Any, field: str = "seed") -> int | None:
    """``value`` as a seed for numpy's generators: None, or a Python int >= 0 (from a Python
    or NumPy integer; not a bool), else ``ValueError`` naming ``field``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{field} must be None or an integer >= 0, got {type(value).__name__} {quote(value)}")
    return int(value)


def is_finite_number(value: Any) -> bool:
    """Whether ``value`` is a finite Python int or float (not a bool; an integer beyond the
    float range is not), as JSON data must be."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond the float range
        return False
