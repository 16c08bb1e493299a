"""Playing one move of a game: the simulation and judging shared by the environments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from poolgym.envs.actions import ShotMove
from poolgym.physics import Shot, ShotResult, Simulator
from poolgym.rules import GameState, Ruleset, ShotEvents

if TYPE_CHECKING:
    from poolgym.physics.threads import KernelThreads


class StagedShot(NamedTuple):
    """A shot ready to be simulated: the validated ``layout`` it is played from (the cue
    ball at its placement) and the ``shot`` as executed (``Simulator.executed``: its noise
    drawn)."""

    layout: dict[int, tuple[float, float]]
    shot: Shot


def stage_shot(simulator: Simulator, state: GameState, move: ShotMove, rng: np.random.Generator,
               state_checked: bool = False) -> StagedShot | ShotEvents:
    """The first half of ``simulate_move``: the layout checked and the noise drawn from
    ``rng``, or, for a cue-ball placement no stroke can be played from, the events that
    record the placement alone (nothing is simulated, no noise drawn)."""
    placement = move.placement
    try:
        layout = placed_layout(simulator, state, placement, state_checked)
    except ValueError:
        if placement is None:
            raise
        return ShotEvents(cue_ball_start=placement, final_positions={**state.positions, 0: placement})
    return StagedShot(layout, simulator.executed([move.shot], None if simulator.noise.is_zero else rng)[0])


def shot_events(simulator: Simulator, rules: Ruleset, result: ShotResult) -> ShotEvents:
    """The facts the rules judge of a simulated shot's ``result``."""
    return ShotEvents.from_log(result.event_log, simulator.table, final_positions=result.positions,
                               options=rules.options)


def simulate_staged(simulator: Simulator, shots: Sequence[StagedShot], rules: Sequence[Ruleset],
                    threads: KernelThreads | None = None) -> list[tuple[ShotResult, ShotEvents]]:
    """Each of ``shots`` (``stage_shot``'s, of tables alike: one ``simulator`` plays them
    all) played in one compiled call (``Simulator.layout_plays``, on ``threads`` as
    there) and judged by the ``rules`` of the same index: per shot its ``ShotResult``
    (built when first read) and the facts for the rules, the same as
    ``Simulator.simulate_executed`` and ``shot_events`` give, read from the compiled facts
    without building the result. A play past ``max_events`` or a ball at rest outside the
    outline raises before any facts are made, as ``Simulator.simulate_layouts`` does."""
    plays = simulator.layout_plays(shots, threads)
    results = [plays.deferred_result(t) for t in range(len(plays))]
    played = []
    for t, (result, judge) in enumerate(zip(results, rules)):
        facts = plays.facts(t)
        events = (shot_events(simulator, judge, result) if facts is None
                  else ShotEvents.from_simulation(*facts, options=judge.options))
        played.append((result, events))
    return played


def simulate_move(simulator: Simulator, rules: Ruleset, state: GameState, move: ShotMove,
                  rng: np.random.Generator, trajectories: bool,
                  state_checked: bool = False) -> tuple[ShotEvents, ShotResult | None]:
    """Simulate ``move`` from ``state`` and return the facts for the rules (and the result).

    A cue-ball placement no stroke can be played from (overlapping a ball) is not simulated:
    the events record the placement alone and the rules judge it a WPA 6.10 foul.
    ``state_checked``: the caller built ``state`` itself through the rules' transitions
    (``new_game``, ``apply_shot``, ``apply_decision``, ``next_rack``), whose layouts are
    checked already, so the simulator need not check the balls again (the cue ball's
    placement from hand is always checked). The halves, for a batched env that simulates
    many tables at once: ``stage_shot``, then ``Simulator.simulate_executed`` (or
    ``simulate_layouts``) and ``shot_events``.
    """
    staged = stage_shot(simulator, state, move, rng, state_checked)
    if isinstance(staged, ShotEvents):
        return staged, None
    result = simulator.simulate_executed(staged.layout, staged.shot, trajectories)
    return shot_events(simulator, rules, result), result


def simulate_replays(simulator: Simulator, rules: Ruleset, state: GameState, move: ShotMove,
                     rng: np.random.Generator, count: int, trajectories: bool = False,
                     state_checked: bool = False) -> list[tuple[ShotEvents, ShotResult | None]]:
    """``count`` plays of ``move`` from ``state`` (each with its own execution noise from
    ``rng`` when the simulator has noise), as ``simulate_move`` returns them, simulated in
    one ``Simulator.simulate_many`` call: a bot's noisy re-checks of a candidate.
    ``state_checked`` as in ``simulate_move``."""
    return simulate_moves(simulator, rules, state, [move] * count, rng, trajectories, state_checked)


def simulate_moves(simulator: Simulator, rules: Ruleset, state: GameState, moves: Sequence[ShotMove],
                   rng: np.random.Generator, trajectories: bool = False,
                   state_checked: bool = False) -> list[tuple[ShotEvents, ShotResult | None]]:
    """Each of ``moves`` played from ``state``, as ``simulate_move`` returns it, in one
    ``Simulator.simulate_many`` call (the layout checked and set up once; noise drawn from
    ``rng`` move by move in order): a bot's candidates from one cue-ball spot. Every move
    must have the same ``placement`` (``ValueError`` otherwise). ``state_checked`` as in
    ``simulate_move``."""
    if not moves:
        return []
    placement = moves[0].placement
    if any(m.placement != placement for m in moves):
        raise ValueError("simulate_moves plays moves from one cue-ball placement; "
                         "these moves place the cue ball in different spots")
    try:
        layout = placed_layout(simulator, state, placement, state_checked)
    except ValueError:
        if placement is None:
            raise
        return [(ShotEvents(cue_ball_start=placement, final_positions={**state.positions, 0: placement}), None)
                for _ in moves]
    results = simulator.simulate_many_validated(layout, [m.shot for m in moves],
                                                rng=None if simulator.noise.is_zero else rng,
                                                trajectories=trajectories)
    return [(shot_events(simulator, rules, result), result) for result in results]


def placed_layout(simulator: Simulator, state: GameState, placement,
                  state_checked: bool = False) -> dict[int, tuple[float, float]]:
    """The validated layout a move from ``state`` is played from: the balls, with the cue
    ball at ``placement`` when it is placed from hand. ``ValueError`` (naming the ball) for
    a placement or a layout no stroke can be played from. ``state_checked`` as in
    ``simulate_move``: then only a placed cue ball is checked."""
    layout = state.positions
    if placement is None:
        return layout if state_checked else simulator.validate_layout(layout)
    # The validated layout is played as it is: no second check. From a checked state only
    # the placed cue ball needs one.
    if state_checked and 0 not in layout:
        return simulator.validate_cue_placement(layout, placement)
    return simulator.validate_layout({**layout, 0: placement})


def bulk_layout(simulator: Simulator, rules: Ruleset, state: GameState, call, placement,
                state_checked: bool = False) -> dict[int, tuple[float, float]] | None:
    """The validated layout (``placed_layout``) from which shots with ``call``, the cue ball
    at ``placement``, are judged in bulk (``judged_in_bulk``), or None where they are not:
    the rules judge them one by one (no ``plain_shots_apply``, or it says no), or no stroke
    can be played from the placement."""
    plain = getattr(rules, "plain_shots_apply", None)
    if plain is None or not plain(state, call, placement):
        return None
    try:
        return placed_layout(simulator, state, placement, state_checked)
    except ValueError:
        return None


def judged_in_bulk(simulator: Simulator, rules: Ruleset, state: GameState, layout, strikes: np.ndarray):
    """The strike rows ``strikes`` played from ``layout`` (``bulk_layout``'s) in one compiled
    call and judged together: (``Simulator.simulate_facts``' facts, the rules'
    ``plain_verdicts`` of them)."""
    facts = simulator.simulate_facts(layout, strikes)
    return facts, rules.plain_verdicts(state, facts.nums, facts.first, facts.pocketed, facts.off,
                                       facts.cushion_after, facts.cushion_any)
