"""Decisions: the choices a player must make before play goes on (WPA 1.5, 2.4, 3.3, 4.3, 9.4).

A state with a ``PendingDecision`` blocks play until ``Ruleset.apply_decision`` answers it
with a ``Decision`` whose ``choice`` is one of the pending ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class DecisionKind(str, Enum):
    """What a pending decision is about; the WPA section that grants it is in the comment."""

    PUSH_OUT_RESPONSE = "push_out_response"  # WPA 2.4, 9.4: shoot, or hand the table back
    UNCALLED_POT_RESPONSE = "uncalled_pot_response"  # ten-ball, digest 8.6: shoot or hand back
    SPOT_REQUEST = "spot_request"  # WPA 1.5: spot the legal ball nearest the head string?
    EIGHT_BALL_DRY_BREAK = "eight_ball_dry_break"  # WPA 3.3(d)
    EIGHT_BALL_EIGHT_ON_BREAK = "eight_ball_eight_on_break"  # WPA 3.3(e)
    EIGHT_BALL_EIGHT_AND_SCRATCH_ON_BREAK = "eight_ball_eight_and_scratch_on_break"  # WPA 3.3(f)
    EIGHT_BALL_BREAK_FOUL = "eight_ball_break_foul"  # WPA 3.3(g), 3.3(h)
    STRAIGHT_POOL_BREAK_FOUL = "straight_pool_break_foul"  # WPA 4.3: accept or re-break


class Choice(str, Enum):
    """An answer to a pending decision. "Decider" is the player the decision is pending for."""

    SHOOT = "shoot"  # the decider plays the position himself
    PASS_BACK = "pass_back"  # the other player must play the position
    SPOT_BALL = "spot_ball"  # WPA 1.5: spot ``Decision.ball`` on the foot spot
    DECLINE_SPOT = "decline_spot"  # WPA 1.5: play the position without spotting
    ACCEPT_TABLE = "accept_table"  # WPA 3.3(d)(1), (g)(1), (h)(1), 4.3: play on as the table lies
    RERACK_AND_BREAK = "rerack_and_break"  # re-rack; the decider breaks (3.3(d)(2), (e)(2), (f)(2))
    RERACK_OPPONENT_BREAKS = "rerack_opponent_breaks"  # re-rack; the other player breaks (3.3(d)(3))
    SPOT_EIGHT_AND_ACCEPT = "spot_eight_and_accept"  # WPA 3.3(e)(1)
    SPOT_EIGHT_KITCHEN_IN_HAND = "spot_eight_kitchen_in_hand"  # WPA 3.3(f)(1)
    KITCHEN_IN_HAND = "kitchen_in_hand"  # WPA 3.3(g)(2), (h)(2): cue ball in hand in the kitchen
    REBREAK = "rebreak"  # WPA 4.3: the offending breaker breaks again


@dataclass(frozen=True)
class PendingDecision:
    """A decision ``player`` must make before the next shot: one of ``choices``.

    ``balls`` lists the balls a ``SPOT_BALL`` choice may name (WPA 1.5 ties).
    """

    kind: DecisionKind
    player: int
    choices: tuple[Choice, ...]
    balls: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", DecisionKind(self.kind))
        object.__setattr__(self, "choices", tuple(Choice(c) for c in self.choices))
        object.__setattr__(self, "balls", tuple(int(b) for b in self.balls))
        if self.player not in (0, 1):
            raise ValueError(f"a decision is made by player 0 or 1, not {self.player!r}")
        if not self.choices:
            raise ValueError("a pending decision needs at least one choice")

    def to_dict(self) -> dict:
        return {"kind": self.kind.value, "player": self.player,
                "choices": [c.value for c in self.choices], "balls": list(self.balls)}

    @classmethod
    def from_dict(cls, data: dict) -> "PendingDecision":
        return cls(kind=data["kind"], player=data["player"], choices=tuple(data["choices"]),
                   balls=tuple(data.get("balls", ())))


@dataclass(frozen=True)
class Decision:
    """The answer to the pending decision. ``player``, when given, must be the decider."""

    choice: Choice
    ball: int | None = None
    player: int | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "choice", Choice(self.choice))
        except ValueError:
            raise ValueError(f"unknown decision choice {self.choice!r}; choices are "
                             f"{[c.value for c in Choice]}") from None
