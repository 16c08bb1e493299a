"""What a shot did, in the words a trainer turns into rewards: fouls, pots, spots, turn, result."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from poolgym.rules.decisions import PendingDecision
from poolgym.rules.state import CueBallZone


class Penalty(IntEnum):
    """How heavy a foul's penalty is; with several fouls on one shot the heaviest applies (WPA 6)."""

    STANDARD = 1  # the game's standard-foul penalty (e.g. WPA 2.7, 3.9, 4.9)
    BREAK_FOUL = 2  # 14.1 break foul, which outweighs a standard foul (WPA 4.10)
    SERIOUS = 3  # the game's serious-foul penalty (WPA 2.8, 3.10, 4.11)
    LOSS_OF_RACK = 4  # WPA 6.16
    LOSS_OF_MATCH = 5  # WPA 6.16
    DISQUALIFICATION = 6  # WPA 6.16 (expulsion from the tournament)


@dataclass(frozen=True)
class Foul:
    """One foul: the WPA ``section`` that makes it one (e.g. ``"6.2"``) and why."""

    section: str
    description: str
    penalty: Penalty = Penalty.STANDARD
    declared: bool = False  # entered by a referee rather than read from the events

    def to_dict(self) -> dict:
        return {"section": self.section, "description": self.description,
                "penalty": self.penalty.name.lower(), "declared": self.declared}


def heaviest_penalty(fouls: tuple[Foul, ...] | list[Foul]) -> Penalty | None:
    """The penalty that applies when several fouls happen on one shot (WPA 6, introduction)."""
    return max([f.penalty for f in fouls]) if fouls else None


@dataclass(frozen=True)
class Outcome:
    """The result of one shot.

    ``pocketed`` lists every ball that dropped (with its pocket), ``driven_off`` those that
    left the table, ``pocketed_legally`` the object balls that count for the shooter (they
    dropped on a legal shot and stay down), ``spotted`` the balls put back with where they
    went, ``reracked`` the balls racked again during play with where they went (14.1, WPA
    4.4). ``points`` are the score changes of players 0 and 1 (14.1). ``next_shooter`` is
    the player at the table afterwards (the decider when a decision is pending; None once
    the rack is over).
    """

    shooter: int
    break_shot: bool
    push_out: bool
    fouls: tuple[Foul, ...]
    penalty: Penalty | None
    pocketed: tuple[tuple[int, str], ...]
    driven_off: tuple[int, ...]
    pocketed_legally: tuple[int, ...]
    spotted: tuple[tuple[int, float, float], ...]
    turn_kept: bool
    next_shooter: int | None
    cue_ball_in_hand: CueBallZone
    points: tuple[int, int] = (0, 0)
    winner: int | None = None
    stalemate: bool = False
    end_reason: str = ""
    pending: PendingDecision | None = None
    warning_to: int | None = None
    warnings: tuple[str, ...] = ()
    reracked: tuple[tuple[int, float, float], ...] = ()

    def __deepcopy__(self, memo: dict) -> "Outcome":
        # Immutable all the way down (frozen, its fields tuples, enums and frozen records):
        # a copy would be equal in every respect, and vector envs deep-copy every step's
        # infos, which carry the step's outcomes.
        return self

    @property
    def legal(self) -> bool:
        """A shot is legal when no foul was committed (WPA 8.2)."""
        return not self.fouls

    @property
    def rack_over(self) -> bool:
        return self.winner is not None or self.stalemate

    @property
    def loser(self) -> int | None:
        return None if self.winner is None else 1 - self.winner

    @property
    def foul_sections(self) -> tuple[str, ...]:
        return tuple(f.section for f in self.fouls)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-compatible summary (for logs, transcripts and reward code)."""
        return {
            "shooter": self.shooter, "break_shot": self.break_shot, "push_out": self.push_out,
            "legal": self.legal, "fouls": [f.to_dict() for f in self.fouls],
            "penalty": None if self.penalty is None else self.penalty.name.lower(),
            "pocketed": [[b, p] for b, p in self.pocketed], "driven_off": list(self.driven_off),
            "pocketed_legally": list(self.pocketed_legally),
            "spotted": [[b, x, y] for b, x, y in self.spotted], "turn_kept": self.turn_kept,
            "next_shooter": self.next_shooter, "cue_ball_in_hand": self.cue_ball_in_hand.value,
            "points": list(self.points), "winner": self.winner, "stalemate": self.stalemate,
            "end_reason": self.end_reason,
            "pending": None if self.pending is None else self.pending.to_dict(),
            "warning_to": self.warning_to, "warnings": list(self.warnings),
            "reracked": [[b, x, y] for b, x, y in self.reracked],
        }
