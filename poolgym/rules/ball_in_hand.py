"""Cue ball in hand: where it may go and the fouls of playing from the kitchen
(WPA 1.5, 6.10, 6.11; digest 2 and 8.15)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from poolgym.rules.outcome import Foul
from poolgym.rules.spotting import is_free
from poolgym.rules.state import CueBallZone
from poolgym.table import Table

Point = tuple[float, float]
# Positions compare equal within this distance (the WPA 1.5 tie between balls).
_TIE_TOLERANCE = 1e-9


def placement_foul(zone: CueBallZone, position: Point, balls: Mapping[int, Point],
                   table: Table) -> Foul | None:
    """The 6.10 foul of a cue ball placed where it may not be, or None.

    Under kitchen-only, the cue-ball centre must be behind the head string (WPA 6.10, 8.1).
    Anywhere means on the playing surface without touching another ball (WPA 1.5): a
    placement off the surface or overlapping a ball is also scored as 6.10, since no shot
    can be legally played from there.
    """
    x, y = position
    if zone is CueBallZone.KITCHEN and not table.in_kitchen(x):
        return Foul("6.10", f"cue ball in hand in the kitchen was played from x={x:.4f}, "
                            f"on or past the head string (x={table.head_string_x:.4f})")
    if not table.contains(x, y):
        return Foul("6.10", f"cue ball placed off the playing surface at ({x:.4f}, {y:.4f})")
    others = {n: p for n, p in balls.items() if n != 0} if 0 in balls else balls  # only read
    if not is_free(position, others, table.ball_radius):
        return Foul("6.10", f"cue ball placed overlapping a ball at ({x:.4f}, {y:.4f})")
    return None


def head_string_foul(first_contact: int | None, first_contact_position: Point | None,
                     crossed_before_contact: bool, ever_crossed: bool,
                     table: Table) -> Foul | None:
    """The 6.11 foul of a shot with the cue ball in hand in the kitchen, or None.

    First paragraph: the first ball touched lies in the kitchen and the cue ball had not left
    the kitchen before touching it. Second paragraph: the cue ball neither crossed the head
    string nor touched a ball on or past it. A ball on the head string is playable (WPA 1.5).
    """
    contact_in_kitchen = (first_contact_position is not None
                          and table.in_kitchen(first_contact_position[0]))
    if first_contact is not None and contact_in_kitchen and not crossed_before_contact:
        return Foul("6.11", f"cue ball in hand in the kitchen first touched ball {first_contact}, "
                            "which lies in the kitchen, without leaving the kitchen first")
    if not ever_crossed and (first_contact is None or contact_in_kitchen):
        return Foul("6.11", "cue ball in hand in the kitchen neither crossed the head string "
                            "nor touched a ball on or past it")
    return None


def spot_request_candidates(balls: Mapping[int, Point], legal_targets: Iterable[int],
                            table: Table) -> tuple[int, ...]:
    """Balls the shooter may ask to have spotted (WPA 1.5), or () when he may not.

    Only when every legal object ball lies in the kitchen (the cue ball being in hand in the
    kitchen is the caller's condition): then the one nearest the head string, or each of the
    equally near ones for the player to choose from.
    """
    targets = [b for b in legal_targets if b in balls and b != 0]
    if not targets or not all(table.in_kitchen(balls[b][0]) for b in targets):
        return ()
    nearest = max(balls[b][0] for b in targets)
    return tuple(sorted(b for b in targets if nearest - balls[b][0] <= _TIE_TOLERANCE))
