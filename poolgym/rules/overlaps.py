"""Finding overlapping balls without comparing every pair.

A position from outside (a saved game, a state's JSON) may list thousands of balls; the
pairwise check is quadratic in them. Balls are put in square cells one diameter wide, so a
ball can only overlap balls in its own and the eight neighbouring cells, and a cell holds
at most four balls that do not overlap: each ball is compared with a bounded number of
others, and the search stops once ``limit`` overlaps are found.
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def overlapping_pairs(balls: Iterable[tuple[int, float, float]], radius: float, tolerance: float,
                      limit: int = 10) -> list[tuple[int, int]]:
    """Pairs ``(n, m)``, ``n`` before ``m`` in ``balls``, whose centres are closer than
    ``2 * radius - tolerance``; at most ``limit`` of them, in the order found."""
    diameter = 2.0 * radius
    reach = diameter - tolerance
    cells: dict[tuple[int, int], list[tuple[int, float, float]]] = {}
    found: list[tuple[int, int]] = []
    for n, x, y in balls:
        cx, cy = math.floor(x / diameter), math.floor(y / diameter)
        for dx, dy in _NEIGHBOURHOOD:
            near = cells.get((cx + dx, cy + dy))
            if near is None:
                continue
            for m, u, v in near:
                if math.hypot(x - u, y - v) < reach:
                    found.append((m, n))
                    if len(found) >= limit:
                        return found
        cell = cells.get((cx, cy))
        if cell is None:
            cells[(cx, cy)] = [(n, x, y)]
        else:
            cell.append((n, x, y))
    return found


# A cell and its eight neighbours, in the order they are searched.
_NEIGHBOURHOOD = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1))
