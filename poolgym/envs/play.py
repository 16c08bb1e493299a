"""Playing one move of a game: the simulation and judging shared by the environments."""

from __future__ import annotations

import numpy as np

from poolgym.envs.actions import ShotMove
from poolgym.physics import ShotResult, Simulator
from poolgym.rules import GameState, Ruleset, ShotEvents


def simulate_move(simulator: Simulator, rules: Ruleset, state: GameState, move: ShotMove,
                  rng: np.random.Generator, trajectories: bool,
                  state_checked: bool = False) -> tuple[ShotEvents, ShotResult | None]:
    """Simulate ``move`` from ``state`` and return the facts for the rules (and the result).

    A cue-ball placement no stroke can be played from (overlapping a ball) is not simulated:
    the events record the placement alone and the rules judge it a WPA 6.10 foul.
    ``state_checked``: the caller built ``state`` itself through the rules' transitions
    (``new_game``, ``apply_shot``, ``apply_decision``, ``next_rack``), whose layouts are
    checked already, so the simulator need not check the balls again (the cue ball's
    placement from hand is always checked).
    """
    return simulate_replays(simulator, rules, state, move, rng, 1, trajectories, state_checked)[0]


def simulate_replays(simulator: Simulator, rules: Ruleset, state: GameState, move: ShotMove,
                     rng: np.random.Generator, count: int, trajectories: bool = False,
                     state_checked: bool = False) -> list[tuple[ShotEvents, ShotResult | None]]:
    """``count`` plays of ``move`` from ``state`` (each with its own execution noise from
    ``rng`` when the simulator has noise), as ``simulate_move`` returns them, simulated in
    one ``Simulator.simulate_many`` call: a bot's noisy re-checks of a candidate.
    ``state_checked`` as in ``simulate_move``."""
    layout = state.positions
    if move.placement is not None:
        layout[0] = move.placement
        try:
            # The validated layout is played as it is: no second check.
            layout = simulator.validate_layout(layout)
        except ValueError:
            return [(ShotEvents(cue_ball_start=move.placement, final_positions=dict(layout)), None)
                    for _ in range(count)]
        state_checked = True
    play = simulator.simulate_many_validated if state_checked else simulator.simulate_many
    results = play(layout, [move.shot] * count, rng=None if simulator.noise.is_zero else rng,
                   trajectories=trajectories)
    return [(ShotEvents.from_log(result.events, simulator.table, final_positions=result.positions,
                                 options=rules.options), result)
            for result in results]
