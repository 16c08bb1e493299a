"""Spotting balls on the foot spot and the foot line (WPA 1.4, digest 2 and 8.12)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from poolgym.table import Table

Point = tuple[float, float]
# Two balls closer than this (beyond touching) overlap; absorbs float rounding of tangency.
_OVERLAP_TOLERANCE = 1e-9


def is_free(position: Point, balls: Mapping[int, Point], radius: float) -> bool:
    """Whether a ball centred at ``position`` overlaps none of ``balls``."""
    x, y = position
    limit = 2.0 * radius - _OVERLAP_TOLERANCE
    hypot = math.hypot
    for bx, by in balls.values():
        if not hypot(x - bx, y - by) >= limit:  # a NaN distance is no room either
            return False
    return True


def spot_position(balls: Mapping[int, Point], table: Table, cue_ball_gap: float = 0.001,
                  cue_ball: int = 0) -> Point:
    """Where the next ball to be spotted goes, given the balls on the table (WPA 1.4).

    The foot spot if free. Otherwise the first free point of the foot line towards the foot
    cushion, which touches the ball in the way (with ``cue_ball_gap`` left if that ball is
    the cue ball). If the whole foot line is taken, the nearest free point of the long string
    on the other side of the foot spot, towards the head.
    """
    r = table.ball_radius
    fx, fy = table.foot_spot
    if is_free((fx, fy), balls, r):
        return (fx, fy)
    # Free candidate points on the long string are the foot spot and the points where the
    # spotted ball just touches a ball near the string (tangency), on either side of it.
    candidates = []
    for number, (bx, by) in balls.items():
        reach = 2.0 * r + (cue_ball_gap if number == cue_ball else 0.0)
        dy = by - fy
        if abs(dy) < reach:
            half = math.sqrt(reach * reach - dy * dy)
            candidates.extend((bx - half, bx + half))
    towards_foot = sorted(x for x in candidates if fx <= x <= table.length - r)
    for x in towards_foot:
        if _free_on_string(x, fy, balls, r, cue_ball, cue_ball_gap):
            return (x, fy)
    towards_head = sorted((x for x in candidates if r <= x <= fx), reverse=True)
    for x in towards_head:
        if _free_on_string(x, fy, balls, r, cue_ball, cue_ball_gap):
            return (x, fy)
    raise ValueError("no free point on the long string to spot a ball")


def _free_on_string(x: float, y: float, balls: Mapping[int, Point], r: float,
                    cue_ball: int, cue_ball_gap: float) -> bool:
    for number, (bx, by) in balls.items():
        reach = 2.0 * r + (cue_ball_gap if number == cue_ball else 0.0)
        if math.hypot(x - bx, y - by) < reach - _OVERLAP_TOLERANCE:
            return False
    return True


def spot_balls(balls: Mapping[int, Point], to_spot: Iterable[int], table: Table,
               cue_ball_gap: float = 0.001, lowest_first: bool = True) -> list[tuple[int, Point]]:
    """Spot several balls one after another (WPA 1.4; order: digest 8.12).

    Returns ``(ball, position)`` in spotting order; ``balls`` (the balls on the table) is not
    changed. With ``lowest_first`` the lowest number goes first, so nearest the foot spot.
    """
    placed = dict(balls)
    out = []
    for ball in sorted(set(to_spot), reverse=not lowest_first):
        if ball in placed:
            raise ValueError(f"ball {ball} is on the table; only balls off it can be spotted")
        where = spot_position(placed, table, cue_ball_gap)
        placed[ball] = where
        out.append((ball, where))
    return out
