"""Blocked 9-ball positions: the lowest ball shielded so that no straight stroke reaches it,
the situation where a player kicks or jumps (the jump shot bench and tests)."""

from __future__ import annotations

import math

import numpy as np

from poolgym.rules import CueBallZone, GameState
from poolgym.table import Table

from poolgym.agents.bot.jumps import every_line_blocked

Point = tuple[float, float]
# Balls keep this far from the cushions, so a layout never starts frozen to one.
MARGIN = 0.08
# The cue ball to the lowest ball: a jump needs room, a kick a real distance.
TARGET_DISTANCE = (0.45, 1.3)
# Further balls lying anywhere, besides the blockers.
EXTRA_BALLS = (1, 4)


def blocked_position(table: Table, rng: np.random.Generator, max_tries: int = 1000) -> GameState:
    """A 9-ball position, player 0 to shoot with the cue ball where it lies, in which every
    straight stroke at the 1 ball (full to hairline either side) meets another ball first
    (``poolgym.agents.bot.jumps.every_line_blocked``). One or two balls lie across the
    line from the cue ball to the 1, at 4 radii from either ball or further, up to 0.6 radii
    beside it; 1-4 more balls anywhere; the 9 among them. Every draw comes from ``rng``."""
    R = table.ball_radius
    for _ in range(max_tries):
        cue = _spot(table, rng)
        angle = rng.uniform(-math.pi, math.pi)
        distance = rng.uniform(*TARGET_DISTANCE)
        target = (cue[0] + distance * math.cos(angle), cue[1] + distance * math.sin(angle))
        if not _inside(table, target):
            continue
        balls = {0: cue, 1: target}
        numbers = list(rng.permutation(np.arange(2, 10)))
        for _ in range(int(rng.integers(1, 3))):
            along = rng.uniform(4.0 * R, distance - 4.0 * R)
            beside = rng.uniform(-0.6 * R, 0.6 * R)
            spot = (cue[0] + along * math.cos(angle) - beside * math.sin(angle),
                    cue[1] + along * math.sin(angle) + beside * math.cos(angle))
            if _free(spot, balls, R):
                balls[int(numbers.pop())] = spot
        for _ in range(int(rng.integers(EXTRA_BALLS[0], EXTRA_BALLS[1] + 1))):
            spot = _spot(table, rng)
            if _free(spot, balls, R):
                balls[int(numbers.pop())] = spot
        if 9 not in balls:
            spot = _spot(table, rng)
            if not _free(spot, balls, R):
                continue
            balls[9] = spot
        others = [p for n, p in balls.items() if n not in (0, 1)]
        if every_line_blocked(cue, target, others, R):
            return GameState(game="nine_ball", balls=balls, awaiting_break=False,
                             cue_ball_in_hand=CueBallZone.NONE, shot_number=2, inning=2)
    raise RuntimeError(f"no blocked position in {max_tries} tries")


def _spot(table: Table, rng: np.random.Generator) -> Point:
    return (float(rng.uniform(MARGIN, table.length - MARGIN)), float(rng.uniform(MARGIN, table.width - MARGIN)))


def _inside(table: Table, p: Point) -> bool:
    return MARGIN <= p[0] <= table.length - MARGIN and MARGIN <= p[1] <= table.width - MARGIN


def _free(spot: Point, balls: dict[int, Point], radius: float) -> bool:
    """Apart from every ball (a millimetre's play)."""
    return all(math.dist(spot, p) > 2.0 * radius + 1e-3 for p in balls.values())
