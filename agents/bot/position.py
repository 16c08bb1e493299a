"""How good a position is for a player, without simulating: the best next shot's chance.

A position is scored from one player's side in [-WIN, WIN]: a won rack is ``WIN``, a lost
one ``-WIN``; when the player is at the table it is the closed-form chance of the best pot
open to him (``poolgym.aiming.pot_chance``), when the opponent is, minus the opponent's.
Pending decisions are resolved by the decider's best choice, and a re-rack is worth a
break's value to the breaker.
"""

from __future__ import annotations

import math

from poolgym.rules import CueBallZone, GameState, Ruleset, ShotCall
from poolgym.table import POCKET_IDS
from poolgym.envs.baseline_agents import decision_options

from poolgym.aiming import (aim_point, chance_within, ghost_ball, open_tolerance, path_is_clear, paths_are_clear,
                             usable_half_width)

WIN = 3.0
# The value of breaking a fresh rack, for the breaker (a made ball is likely, a run less so).
BREAK_VALUE = 0.2
# With the cue ball in hand the shooter places it this far behind the ghost ball.
IN_HAND_DISTANCE = 0.3
# How many pending decisions in a row are looked through (a re-rack may pend a spot request).
DECISION_DEPTH = 2


def pot_pairs(state: GameState, rules: Ruleset) -> list[tuple[int, str]]:
    """The (ball, pocket) pots open to the shooter: legal first balls into pockets, kept to
    the called ones where the game calls shots."""
    calls = rules.call_options(state)
    called = {(c.ball, c.pocket) for c in calls if c.names_ball}
    targets = sorted(b for b in rules.legal_targets(state) if b in state.object_balls_on_table)
    if called:
        return [(b, p) for b in targets for p in POCKET_IDS if (b, p) in called]
    return [(b, p) for b in targets for p in POCKET_IDS]


def shot_quality(state: GameState, rules: Ruleset, sigma_deg: float) -> float:
    """The shooter's best closed-form pot chance in ``state`` (0 when nothing is open)."""
    table = rules.table
    balls = state.positions
    zone = state.cue_ball_in_hand
    best = 0.0
    others, others_of = None, None
    for ball, pocket in pot_pairs(state, rules):
        position = balls[ball]
        if ball != others_of:  # the pairs come ball by ball
            others, others_of = {n: p for n, p in balls.items() if n not in (0, ball)}, ball
            blockers = list(others.values())
        if zone is CueBallZone.NONE:
            # pot_chance, its paths checked only when the pot would be the best so far (a
            # blocked pot's chance is 0, which changes no maximum).
            tolerance, ghost, target = open_tolerance(table, balls[0], position, pocket)
            chance = chance_within(tolerance, sigma_deg)
            if chance > best and paths_are_clear(balls[0], ghost, position, target, blockers, table.ball_radius):
                best = chance
        else:
            best = max(best, in_hand_chance(state, rules, ball, pocket, others, sigma_deg))
    return best


def in_hand_chance(state: GameState, rules: Ruleset, ball: int, pocket: str,
                   others: dict, sigma_deg: float) -> float:
    """The pot chance with the cue ball placed straight behind the ghost ball (or as near
    as the kitchen allows)."""
    table = rules.table
    R = table.ball_radius
    position = state.position(ball)
    kitchen = state.cue_ball_in_hand is CueBallZone.KITCHEN
    # Every way out is a chance of 0: the cheapest tests go first.
    if kitchen and position[0] < table.head_string_x:
        return 0.0
    target = aim_point(table, pocket)
    if usable_half_width(table, pocket, position, target) <= 0.0:
        return 0.0
    blockers = others.values()
    if not path_is_clear(position, target, blockers, R):
        return 0.0
    ghost = ghost_ball(position, target, R)
    dx, dy = ghost[0] - target[0], ghost[1] - target[1]
    d = math.hypot(dx, dy) or 1.0
    cue = (ghost[0] + IN_HAND_DISTANCE * dx / d, ghost[1] + IN_HAND_DISTANCE * dy / d)
    if kitchen:
        if cue[0] >= table.head_string_x:
            # Straight behind is past the string: shoot from the string's middle instead.
            cue = (table.head_string_x - 2 * R, min(max(cue[1], 2 * R), table.width - 2 * R))
    if not table.contains(*cue):
        cue = (ghost[0] + 2.5 * R * dx / d, ghost[1] + 2.5 * R * dy / d)
        if not table.contains(*cue):
            return 0.0
    # pot_chance from ``cue``, the object ball's path (checked above) not checked again.
    tolerance, ghost, _ = open_tolerance(table, cue, position, pocket)
    if tolerance == 0.0 or not path_is_clear(cue, ghost, blockers, R):
        return 0.0
    return chance_within(tolerance, sigma_deg)


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
