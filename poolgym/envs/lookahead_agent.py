"""``lookahead-greedy``: the canonical stroke whose lookahead features score best.

The agent reads what a choice-mode env with ``lookahead=True`` shows a policy
(``poolgym.envs.lookahead``: for the four easiest pot slots and each of nine canonical
strokes, the made, scratch and foul rates over noisy plays, the shooter's next chance and
the opponent's) and plays the (slot, stroke) of the highest ``stroke_value``. Every move it
makes is an action of ``choice_discrete`` (``lookahead.stroke_action``), so it is what a
network over the same observation can learn to choose exactly: the heuristic the learned
agents are measured against, and the teacher of ``nine_ball_bc_lookahead.yaml``.

Where the features show no pot (a break, a pending decision, no pot among the four
slots) it plays as ``fixed`` does (``poolgym.envs.baseline_agents.FixedAgent``).
"""

from __future__ import annotations

import numpy as np

from poolgym.envs import lookahead as la
from poolgym.envs.baseline_agents import FixedAgent, Move
from poolgym.envs.choice import ChoiceMapper
from poolgym.physics import Noise, Simulator
from poolgym.rules import GameState, Ruleset, get_ruleset

# Noisy plays per stroke: 8 ran 0.49 of 100 racks against bot:fast where 2 ran 0.32 of 60
# (NineBall-v1 protocol, seed 4242); more did not win more (16: 0.48).
SAMPLES = 8
# ``stroke_value``'s weights, chosen on 100 racks against bot:fast (seed 4242): four
# weightings of the same terms won 49-50 racks each, so the choice among them is not a
# measured gain.
MADE_WEIGHT, OPPONENT_WEIGHT, FOUL_WEIGHT = 0.5, 0.7, 0.5

_F = {name: i for i, name in enumerate(la.FEATURES)}


def stroke_value(features: np.ndarray) -> np.ndarray:
    """The value of each stroke from its features (last axis in ``lookahead.FEATURES``
    order): the shooter's next chance, plus half the made rate, less the opponent's
    chance and half the foul rate (weights above)."""
    f = np.asarray(features)
    return (f[..., _F["next_make"]] + MADE_WEIGHT * f[..., _F["made"]]
            - OPPONENT_WEIGHT * f[..., _F["opponent_make"]] - FOUL_WEIGHT * f[..., _F["foul"]])


def best_stroke(features: np.ndarray, slots) -> tuple[int, tuple[int, int]] | None:
    """The (slot index, stroke) of the highest ``stroke_value`` among the pot slots of
    ``slots`` (the state's candidate slots) in ``features`` (``lookahead_features``' vector);
    None when none of the first ``LOOKAHEAD_SLOTS`` is a pot. Ties go to the lower slot,
    then the earlier stroke."""
    values = stroke_value(np.asarray(features).reshape(la.LOOKAHEAD_SLOTS, len(la.STROKES), la.N_FEATURES))
    pots = [i for i, slot in enumerate(slots[:la.LOOKAHEAD_SLOTS]) if slot is not None and slot.kind == "pot"]
    if not pots:
        return None
    flat = values[pots].reshape(-1)
    k = int(np.argmax(flat))
    return pots[k // len(la.STROKES)], la.STROKES[k % len(la.STROKES)]


class LookaheadGreedyAgent:
    """``lookahead-greedy`` (module docstring): plays the best canonical stroke of the
    lookahead features, ``samples`` noisy plays each under ``noise`` (the env's), strokes up
    to ``max_speed`` in ``choice_discrete``'s bins; otherwise as ``fixed``."""

    def __init__(self, rules: Ruleset | str = "nine_ball", seed: int | None = 0, max_speed: float = 10.0,
                 noise: Noise | str = "tournament", samples: int = SAMPLES) -> None:
        self.rules = get_ruleset(rules) if isinstance(rules, str) else rules
        self.fallback = FixedAgent(self.rules, seed=seed, max_speed=max_speed)  # checks max_speed
        self.max_speed = self.fallback.max_speed
        self.simulator = Simulator(self.rules.table, noise=noise)
        self.samples = la.check_samples(samples)
        self.mapper = ChoiceMapper(self.rules.table, "choice_discrete", max_speed=self.max_speed,
                                   sigma_deg=self.simulator.noise.angle_deg)

    def __repr__(self) -> str:
        return f"LookaheadGreedyAgent({self.rules.name!r}, samples={self.samples})"

    def reseed(self, seed) -> None:
        """Nothing to reseed: the features' plays are seeded by the layout (kept for the
        agent protocol)."""

    def action(self, state: GameState) -> np.ndarray:
        """The ``choice_discrete`` action of the agent's move in ``state`` (its mapper's)."""
        chosen = self._chosen(state)
        if chosen is None:
            return self.mapper.encode(self.fallback.choose(state), state, self.rules)
        return la.stroke_action(self.mapper, *chosen)

    def choose(self, state: GameState) -> Move:
        chosen = self._chosen(state)
        if chosen is None:
            return self.fallback.choose(state)
        return self.mapper.decode(la.stroke_action(self.mapper, *chosen), state, self.rules)

    def _chosen(self, state: GameState) -> tuple[int, tuple[int, int]] | None:
        if state.pending is not None or state.awaiting_break or state.is_over:
            return None
        features = la.lookahead_features(state, self.rules, self.simulator, self.mapper, self.samples)
        return best_stroke(features, self.mapper.slots(state, self.rules))
