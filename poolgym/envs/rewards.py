"""Rewards: named terms read off the rules' ``Outcome``, each with a weight from config."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from poolgym.config import from_mapping
from poolgym.envs.candidates import best_make_probability, candidate_slots, shot_is_due
from poolgym.numbers import quote, real
from poolgym.rules import CueBallZone, GameState, Outcome


# The largest weight a reward term takes, either sign: a step's terms are counts of balls,
# fouls, racks and points (at most thousands over a step's shots), so every weighted sum
# stays far inside the float range, and a reward is never inf.
MAX_REWARD_WEIGHT = 1e6


def check_reward_bound(number: float, name: str) -> None:
    """``ValueError`` naming ``name`` unless ``number`` lies within +/- ``MAX_REWARD_WEIGHT``."""
    if abs(number) > MAX_REWARD_WEIGHT:
        raise ValueError(f"{name} must lie from {-MAX_REWARD_WEIGHT:g} to {MAX_REWARD_WEIGHT:g}, so that every "
                         f"reward is finite, got {number:g}")


@dataclass(frozen=True)
class RewardWeights:
    """Weight of each reward term (reward = sum of weight * term over the step's shots).

    Each weight is a finite number within +/- ``MAX_REWARD_WEIGHT``, so a reward is finite.
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
    - ``shaping`` (off by default; 1 turns it on): the potential-based shaping term
      F = gamma * Phi(s') - Phi(s) of ``PotentialShaping`` between the agent's successive
      observations (Ng, Harada and Russell, "Policy invariance under reward
      transformations: theory and application to reward shaping", ICML 1999), which leaves
      the optimal policy unchanged. Phi is the best closed-form make probability of the
      side to shoot, from the agent's side, so F lies in [-2, 1].

    Scales, with the default weights: the per-shot terms of a step (the agent's shot and
    the opponent's replies) are of order 1: -1.5 for a foul that concedes ball in hand, +1
    per ball pocketed legally, +0.5 when the opponent's foul hands the agent the cue ball,
    +/-1 per 14.1 point. The rack terms add +/-10 once, at the end of a rack, mostly decided
    by who pots the money ball, so they dominate an episode's return and its spread. A
    critic learns this more easily with returns normalised (e.g. stable-baselines3's
    ``VecNormalize(norm_reward=True)``), or with the rack weights scaled down towards the
    per-shot terms; the shaping term is bounded by [-2, 1] per step. In ``solo`` mode
    every shot is the agent's.
    """

    legal_pot: float = 1.0
    foul: float = -1.0
    ball_in_hand_conceded: float = -0.5
    ball_in_hand_gained: float = 0.5
    rack_won: float = 10.0
    rack_lost: float = -10.0
    points: float = 1.0
    legal_shot: float = 0.0
    shaping: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            try:
                number = real(value, f"reward weight {f.name!r}")
            except ValueError:
                number = math.nan  # named below
            if not math.isfinite(number):
                raise ValueError(f"reward weight {f.name!r} must be a finite number, got {quote(value)}")
            check_reward_bound(number, f"reward weight {f.name!r}")
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
    # A list, not a generator, for ``sum``: the same additions in the same order, cheaper.
    return float(sum([getattr(weights, name) * value for name, value in terms.items()]))


@dataclass(frozen=True)
class PotentialShaping:
    """Potential-based reward shaping (Ng, Harada and Russell, ICML 1999): the reward of a
    transition s -> s' gains F = ``gamma`` * Phi(s') - Phi(s), which changes no policy's
    ranking when ``gamma`` is the discount the agent learns with.

    Phi(s) is the best closed-form make probability (``poolgym.aiming.pot_chance`` under the
    env's aim noise, over the candidate pot slots) of the side to shoot in s, positive when
    that side is the agent, negative when it is the opponent, and 0 while a decision is
    pending, once the rack is over and at the end of the episode. Over an episode of T steps
    the discounted terms sum to gamma^T Phi(s_T) - Phi(s_0).
    """

    gamma: float = 0.99

    def __post_init__(self) -> None:
        if isinstance(self.gamma, bool) or not isinstance(self.gamma, (int, float)) \
                or not (math.isfinite(self.gamma) and 0.0 <= self.gamma <= 1.0):
            raise ValueError(f"shaping gamma must be a number in [0, 1], got {self.gamma!r}")

    @staticmethod
    def potential(state: GameState | None, rules, sigma_deg: float, player: int, slots=None) -> float:
        """Phi of ``state`` from ``player``'s side (0 for None, the end of the episode);
        ``slots`` are the state's candidate slots when the caller has them already."""
        if state is None or not shot_is_due(state):
            return 0.0
        if slots is None:
            slots = candidate_slots(state, rules, sigma_deg)
        best = best_make_probability(slots)
        return best if state.shooter == player else -best

    def term(self, before: float, after: float) -> float:
        """F for a transition from potential ``before`` to potential ``after``."""
        return self.gamma * after - before
