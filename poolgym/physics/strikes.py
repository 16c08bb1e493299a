"""Strike rows of many shots under many noise draws in one compiled call: what
``Simulator.strikes_under`` gives, to the last bit, without a ``Shot`` or a tuple per play.

A lookahead plays every canonical stroke of every pot slot a few times under the same
draws (``poolgym.envs.lookahead``): hundreds of strike rows per position. Each row is
``Noise.executed`` of the shot under its draw, then ``Simulator.strike_state`` of the
executed values, with the same operations in the same order (numba keeps IEEE arithmetic
without fast-math, and ``math.hypot`` is CPython's, ``poolgym.physics.hypot``).
"""

from __future__ import annotations

import math

import numpy as np

from poolgym.physics.hypot import hypot
from poolgym.physics.jit import compiled_call, kernel
from poolgym.physics.shot import Noise, Shot

# Columns of a shot row: Shot's fields in order.
SPEED, ANGLE, SIDE, VERTICAL, ELEVATION = range(5)
MAX_ELEVATION_DEG = Shot.MAX_ELEVATION_DEG


def noise_draws(noise: Noise, rng: np.random.Generator, count: int) -> np.ndarray:
    """The standard normal draws of ``count`` shots, row by row as ``noise.draws(rng)`` gives
    them one shot after another (speed, angle, side, vertical, then the elevation's when it
    has noise): the same numbers from the same generator state, in one call. A generator's
    normal draws are one stream whatever the call sizes; ``tests/physics/test_strikes.py``
    holds the two ways equal."""
    return rng.normal(0.0, 1.0, size=(count, 5 if noise.elevation_deg > 0.0 else 4))


def strike_rows(simulator, shots: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """``simulator.strikes_under`` of the shots ``shots`` (rows of ``Shot``'s fields, each a
    shot ``Shot.validate`` passes) under the draws ``draws`` (``noise_draws`` rows; one row,
    unused, when the simulator has no noise): ``len(shots) * len(draws)`` strike rows, shot
    by shot, the same to the last bit."""
    noise, params, table = simulator.noise, simulator.params, simulator.table
    sigmas = np.array([noise.speed, noise.angle_deg, noise.side, noise.vertical, noise.elevation_deg])
    with compiled_call():
        return executed_strikes(np.ascontiguousarray(shots, dtype=np.float64),
                                np.ascontiguousarray(draws, dtype=np.float64), sigmas, not noise.is_zero,
                                params.max_speed, table.ball_mass / params.cue_mass, table.ball_radius,
                                params.squirt, table.ball_mass, params.cue_end_mass)


@kernel()
def executed_strikes(shots, draws, sigmas, noisy, max_speed, ratio, radius, squirt, ball_mass, end_mass):
    """Row ``s * len(draws) + d``: the strike state (vx, vy, wx, wy, wz, vz) of shot row
    ``s`` executed under draw row ``d`` with the standard deviations ``sigmas`` (``Noise``'s
    fields in ``Shot``'s order; the shot itself where not ``noisy``), as
    ``Simulator._strike(*Noise.executed(shot, draw, max_speed))``; ``ratio`` is the ball's
    mass over the cue's, ``squirt`` and ``end_mass`` as ``PhysicsParams``'."""
    count = draws.shape[0]
    out = np.empty((shots.shape[0] * count, 6))
    for s in range(shots.shape[0]):
        for d in range(count):
            speed, angle = shots[s, SPEED], shots[s, ANGLE]
            side, vertical, elevation = shots[s, SIDE], shots[s, VERTICAL], shots[s, ELEVATION]
            if noisy:
                # Noise.executed: Python's min(a, max(b, x)) is x unless x > b, then a unless it is below.
                speed = speed + sigmas[SPEED] * draws[d, SPEED]
                speed = speed if speed > 1e-3 else 1e-3
                speed = speed if speed < max_speed else max_speed
                side = side + sigmas[SIDE] * draws[d, SIDE]
                vertical = vertical + sigmas[VERTICAL] * draws[d, VERTICAL]
                reach = hypot(side, vertical)
                if reach >= 0.99:
                    side, vertical = side * 0.99 / reach, vertical * 0.99 / reach
                if sigmas[ELEVATION] > 0.0:
                    elevation = elevation + sigmas[ELEVATION] * draws[d, ELEVATION]
                    elevation = elevation if elevation > 0.0 else 0.0
                    elevation = elevation if elevation < MAX_ELEVATION_DEG else MAX_ELEVATION_DEG
                angle = angle + sigmas[ANGLE] * draws[d, ANGLE]
            row = s * count + d
            v = speed * (1.0 + ratio) / (1.0 + ratio + 2.5 * (side * side + vertical * vertical))
            turn = math.radians(angle)
            if squirt and side != 0.0:  # squirt_angle
                along = 1.0 - side * side
                turn -= math.atan(2.5 * side * math.sqrt(along) / (1.0 + ball_mass / end_mass + 2.5 * along))
            cx, cy = math.cos(turn), math.sin(turn)
            spin = 2.5 * v / radius
            if elevation == 0.0:
                out[row, 0], out[row, 1] = v * cx, v * cy
                out[row, 2], out[row, 3] = -spin * vertical * cy, spin * vertical * cx
                out[row, 4], out[row, 5] = -spin * side, 0.0
                continue
            theta = math.radians(elevation)
            st, ct = math.sin(theta), math.cos(theta)
            rx, ry = -cy, cx
            out[row, 0], out[row, 1] = v * ct * cx, v * ct * cy
            out[row, 2] = spin * (vertical * rx - side * st * cx)
            out[row, 3] = spin * (vertical * ry - side * st * cy)
            out[row, 4], out[row, 5] = -spin * side * ct, -v * st
    return out
