"""Playing one move of a game: the simulation and judging shared by the environments."""

from __future__ import annotations

import numpy as np

from poolgym.envs.actions import ShotMove
from poolgym.physics import ShotResult, Simulator
from poolgym.rules import GameState, Ruleset, ShotEvents


def simulate_move(simulator: Simulator, rules: Ruleset, state: GameState, move: ShotMove,
                  rng: np.random.Generator, trajectories: bool) -> tuple[ShotEvents, ShotResult | None]:
    """Simulate ``move`` from ``state`` and return the facts for the rules (and the result).

    A cue-ball placement no stroke can be played from (overlapping a ball) is not simulated:
    the events record the placement alone and the rules judge it a WPA 6.10 foul.
    """
    layout = state.positions
    if move.placement is not None:
        layout[0] = move.placement
        try:
            simulator.validate_layout(layout)
        except ValueError:
            return ShotEvents(cue_ball_start=move.placement, final_positions=layout), None
    result = simulator.simulate(layout, move.shot, rng=None if simulator.noise.is_zero else rng,
                                trajectories=trajectories)
    events = ShotEvents.from_log(result.events, simulator.table, final_positions=result.positions,
                                 options=rules.options)
    return events, result
