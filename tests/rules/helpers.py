"""Positions and shortcuts shared by the rules tests."""

from __future__ import annotations

from poolgym.rules import CueBallZone, GameState
from poolgym.table import Table

TABLE = Table.preset("9ft")
R = TABLE.ball_radius
HEAD_STRING_X = TABLE.head_string_x
FOOT_SPOT = TABLE.foot_spot
KITCHEN_SPOT = (0.4, 0.5)  # a legal kitchen placement on the 9-ft table
MID = TABLE.width / 2


def spread(*numbers: int, x0: float = 1.0, y: float = 0.3, step: float = 0.1) -> dict:
    """Balls in a row across the table, well apart and clear of the foot spot and head string."""
    return {n: (x0 + i * step, y) for i, n in enumerate(numbers)}


def position(game: str, balls: dict, **fields) -> GameState:
    """A mid-rack position: the cue ball on the table unless a zone is given."""
    fields.setdefault("awaiting_break", False)
    fields.setdefault("cue_ball_in_hand", CueBallZone.NONE)
    fields.setdefault("shot_number", 5)
    return GameState(game=game, balls=balls, **fields)
