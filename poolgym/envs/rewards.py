"""Rewards: named terms read off the rules' ``Outcome``, each with a weight from config."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from poolgym.config import from_mapping
from poolgym.numbers import quote, real
from poolgym.rules import CueBallZone, Outcome


@dataclass(frozen=True)
class RewardWeights:
    """Weight of each reward term (reward = sum of weight * term over the step's shots).

    Terms, from the agent's side:

    - ``legal_pot``: object balls the agent pocketed legally (1 each). Default 1.
    - ``foul``: 1 when the agent's shot was a foul. Default -1.
    - ``ball_in_hand_conceded``: 1 when the agent's shot gave the opponent the cue ball in
      hand. Default -0.5 (on top of the foul).
    - ``ball_in_hand_gained``: 1 when the opponent's shot gave the agent the cue ball in
      hand. Default 0.5.
    - ``rack_won`` / ``rack_lost``: 1 when a rack ends won / lost. Defaults 10 and -10.
    - ``points``: 14.1 points, the agent's minus the opponent's. Default 1.
    - ``legal_shot`` (shaping, off by default): 1 for each foul-free shot of the agent.

    The defaults make a pot worth about a tenth of a rack and a foul cost as much as a pot
    (plus the ball in hand it concedes), which learns runs without learning to play safe
    only. In ``solo`` mode every shot is the agent's.
    """

    legal_pot: float = 1.0
    foul: float = -1.0
    ball_in_hand_conceded: float = -0.5
    ball_in_hand_gained: float = 0.5
    rack_won: float = 10.0
    rack_lost: float = -10.0
    points: float = 1.0
    legal_shot: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            try:
                number = real(value, f"reward weight {f.name!r}")
            except ValueError:
                number = math.nan  # named below
            if not math.isfinite(number):
                raise ValueError(f"reward weight {f.name!r} must be a finite number, got {quote(value)}")
            object.__setattr__(self, f.name, number)  # plain floats (see poolgym.numbers)

    @classmethod
    def from_config(cls, config: "RewardWeights | dict | None") -> "RewardWeights":
        """Weights from a mapping (unknown names are an error naming them) or defaults."""
        return from_mapping(cls, config, "reward terms")

    def as_dict(self) -> dict:
        return asdict(self)


def reward_terms(outcome: Outcome, agent: int, solo: bool = False) -> dict[str, float]:
    """The value of every term for one shot's outcome, from ``agent``'s side."""
    mine = solo or outcome.shooter == agent
    opponent = 1 - agent
    in_hand = outcome.cue_ball_in_hand is not CueBallZone.NONE
    won = lost = 0.0
    if outcome.winner is not None:
        if solo:
            won, lost = float(outcome.winner == outcome.shooter), float(outcome.winner != outcome.shooter)
        else:
            won, lost = float(outcome.winner == agent), float(outcome.winner == opponent)
    return {
        "legal_pot": float(len(outcome.pocketed_legally)) if mine else 0.0,
        "foul": 1.0 if mine and outcome.fouls else 0.0,
        "ball_in_hand_conceded": 1.0 if mine and not solo and in_hand and outcome.next_shooter != agent else 0.0,
        "ball_in_hand_gained": 1.0 if not mine and in_hand and outcome.next_shooter == agent else 0.0,
        "rack_won": won,
        "rack_lost": lost,
        "points": float(outcome.points[agent] - outcome.points[opponent]) if not solo else float(sum(outcome.points)),
        "legal_shot": 1.0 if mine and not outcome.fouls else 0.0,
    }


def weigh(terms: dict[str, float], weights: RewardWeights) -> float:
    return float(sum(getattr(weights, name) * value for name, value in terms.items()))
