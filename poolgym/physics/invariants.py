"""Checks every simulated shot must pass, and random layouts to run them on."""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from poolgym import events as ev
from poolgym.physics.result import ShotResult
from poolgym.physics.shot import Shot
from poolgym.table import Table

# At rest two balls may touch; an overlap beyond this is a physics failure.
MAX_OVERLAP = 0.0005
# Balls at rest against a cushion sit one radius from it, up to round-off.
_CUSHION_TOLERANCE = 1e-6


def shot_violations(table: Table, layout: Mapping[int, tuple[float, float]], result: ShotResult) -> list[str]:
    """Every way ``result`` breaks the simulation's invariants, in words; empty when sound.

    Balls are conserved (each ball of the layout is either at rest on the table or
    pocketed, once), none is off the playing surface unless pocketed (no escapes, no
    tunnelling through a cushion), no two overlap by more than 0.5 mm at rest, all values
    are finite, and the event log agrees with the result.
    """
    problems = []
    on_table, dropped = set(result.positions), set(result.pocketed)
    if on_table & dropped:
        problems.append(f"balls both on the table and pocketed: {sorted(on_table & dropped)}")
    if on_table | dropped != set(layout):
        problems.append(f"balls not conserved: layout {sorted(layout)}, "
                        f"after {sorted(on_table)} + pocketed {sorted(dropped)}")
    for ball, (x, y) in result.positions.items():
        if not (math.isfinite(x) and math.isfinite(y)):
            problems.append(f"ball {ball} has a non-finite position ({x}, {y})")
        elif not table.contains(x, y, tolerance=_CUSHION_TOLERANCE):
            problems.append(f"ball {ball} escaped: at rest at ({x:.6f}, {y:.6f}), off the playing surface")
    balls = sorted(result.positions)
    limit = 2.0 * table.ball_radius - MAX_OVERLAP
    for i, a in enumerate(balls):
        ax, ay = result.positions[a]
        for b in balls[i + 1:]:
            bx, by = result.positions[b]
            if math.hypot(ax - bx, ay - by) < limit:
                problems.append(f"balls {a} and {b} overlap by "
                                f"{(2 * table.ball_radius - math.hypot(ax - bx, ay - by)) * 1000:.3f} mm at rest")
    if ev.pocketed(result.events) != result.pocketed:
        problems.append("the event log's pocketed balls differ from the result's")
    times = [e.time for e in result.events]
    if any(b < a for a, b in zip(times, times[1:])) or not math.isfinite(result.duration):
        problems.append("events are not in time order or the duration is not finite")
    return problems


def random_layout(table: Table, n_object_balls: int, rng: np.random.Generator,
                  min_gap: float = 0.0) -> dict[int, tuple[float, float]]:
    """Cue ball and object balls 1..n at uniformly random non-overlapping spots."""
    if not 0 <= n_object_balls <= 15:
        raise ValueError(f"n_object_balls must be in [0, 15], got {n_object_balls}")
    R = table.ball_radius
    layout: dict[int, tuple[float, float]] = {}
    for ball in range(n_object_balls + 1):
        for _ in range(10_000):
            x = float(rng.uniform(R, table.length - R))
            y = float(rng.uniform(R, table.width - R))
            if table.contains(x, y) and all(math.hypot(x - px, y - py) >= 2 * R + min_gap
                                            for px, py in layout.values()):
                layout[ball] = (x, y)
                break
        else:
            raise RuntimeError("could not place the balls: the table is too crowded")
    return layout


def random_shot(rng: np.random.Generator, max_speed: float = 12.0, max_offset: float = 0.7) -> Shot:
    """A shot with uniform speed in [0.1, max_speed], any direction and tip offsets
    uniform in the disc of radius ``max_offset``."""
    r = max_offset * math.sqrt(rng.uniform())
    phi = rng.uniform(0.0, 2 * math.pi)
    return Shot(speed=float(rng.uniform(0.1, max_speed)), angle_deg=float(rng.uniform(0.0, 360.0)),
                side=float(r * math.cos(phi)), vertical=float(r * math.sin(phi)))
