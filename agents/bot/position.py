"""How good a position is for a player, without simulating: the best next shot's chance.

A position is scored from one player's side in [-WIN, WIN]: a won rack is ``WIN``, a lost
one ``-WIN``; when the player is at the table it is the closed-form chance of the best pot
open to him (``poolgym.aiming.pot_chance``), when the opponent is, minus the opponent's.
Pending decisions are resolved by the decider's best choice, and a re-rack is worth a
break's value to the breaker.
"""

from __future__ import annotations

import numpy as np

from poolgym.rules import CueBallZone, GameState, Ruleset, ShotCall
from poolgym.table import POCKET_IDS
from poolgym.envs.baseline_agents import decision_options

from poolgym.physics.jit import compiled_call
from poolgym.physics.pot_geometry import ZONE_ANYWHERE, ZONE_KITCHEN, ZONE_NONE, best_pot_chance

WIN = 3.0
# The value of breaking a fresh rack, for the breaker (a made ball is likely, a run less so).
BREAK_VALUE = 0.2
# How many pending decisions in a row are looked through (a re-rack may pend a spot request).
DECISION_DEPTH = 2


def pot_pairs(state: GameState, rules: Ruleset) -> list[tuple[int, str]]:
    """The (ball, pocket) pots open to the shooter: legal first balls into pockets, kept to
    the called ones where the game calls shots."""
    calls = rules.call_options(state)
    called = {(c.ball, c.pocket) for c in calls if c.names_ball}
    on = state.object_balls_on_table
    targets = sorted(b for b in rules.legal_targets(state) if b in on)
    if called:
        return [(b, p) for b in targets for p in POCKET_IDS if (b, p) in called]
    return [(b, p) for b in targets for p in POCKET_IDS]


def shot_quality(state: GameState, rules: Ruleset, sigma_deg: float) -> float:
    """The shooter's best closed-form pot chance in ``state`` (0 when nothing is open): for
    the cue ball where it lies, ``poolgym.aiming.pot_chance`` of each pot; in hand, that
    chance with the cue ball placed straight behind the ghost ball
    (``pot_geometry.IN_HAND_DISTANCE``, nearer where that spot is off the surface, on the
    head string where the kitchen stops it). Measured for all the pots in one compiled call
    (``poolgym.physics.pot_geometry.best_pot_chance``, the same values to the last bit), as
    the bot asks it of every outcome it simulates."""
    pairs = pot_pairs(state, rules)
    if not pairs:
        return 0.0
    with compiled_call():
        return best_pot_chance(np.array(state.balls), np.array([(b, _POCKET_ROW[p]) for b, p in pairs]),
                               _ZONE[state.cue_ball_in_hand], float(sigma_deg), *rules.table.surface_arrays)


_POCKET_ROW = {p: i for i, p in enumerate(POCKET_IDS)}
_ZONE = {CueBallZone.NONE: ZONE_NONE, CueBallZone.ANYWHERE: ZONE_ANYWHERE, CueBallZone.KITCHEN: ZONE_KITCHEN}


def state_value(state: GameState, rules: Ruleset, player: int, sigma_deg: float,
                depth: int = DECISION_DEPTH) -> float:
    """``state`` from ``player``'s side (see the module docstring)."""
    if state.winner is not None:
        return WIN if state.winner == player else -WIN
    if state.stalemate:
        return 0.0
    if state.pending is not None:
        if depth <= 0:
            return 0.0
        values = [state_value(rules.apply_decision(state, d), rules, player, sigma_deg, depth - 1)
                  for d in decision_options(state)]
        return max(values) if state.pending.player == player else min(values)
    if state.awaiting_break:
        return BREAK_VALUE if state.shooter == player else -BREAK_VALUE
    quality = shot_quality(state, rules, sigma_deg)
    return quality if state.shooter == player else -quality


def plain_call(calls: tuple[ShotCall, ...], safety: bool) -> ShotCall:
    """The call for a shot that names no pot: a safety where the game has one (when asked),
    else no call."""
    if safety and ShotCall.safety_shot() in calls:
        return ShotCall.safety_shot()
    if ShotCall() in calls:
        return ShotCall()
    return next((c for c in calls if c.safety), calls[0])
