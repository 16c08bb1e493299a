"""Checks every simulated shot must pass, and random layouts to run them on."""

from __future__ import annotations

import math
from collections import Counter
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
# A ball leaves the table exactly at a rail's outer edge, or at rest at the cushion height.
_EDGE_TOLERANCE = 1e-9


def shot_violations(table: Table, layout: Mapping[int, tuple[float, float]], result: ShotResult) -> list[str]:
    """Every way ``result`` breaks the simulation's invariants, in words; empty when sound.

    Balls are conserved (each ball of the layout ends exactly once: at rest on the table,
    pocketed or off the table), none is off the playing surface unless pocketed or driven
    off (no escapes, no tunnelling through a cushion), no two overlap by more than 0.5 mm at
    rest, all values are finite, and the event log agrees with the result: the same balls
    pocketed, one ``OffTable`` event for each ball off the table, where it left (past a
    rail's outer edge, or at rest on a rail top).
    """
    problems = []
    on_table, dropped, off = set(result.positions), set(result.pocketed), set(result.off_table)
    for (name_a, a), (name_b, b) in ((("on the table", on_table), ("pocketed", dropped)),
                                     (("on the table", on_table), ("off the table", off)),
                                     (("pocketed", dropped), ("off the table", off))):
        if a & b:
            problems.append(f"balls both {name_a} and {name_b}: {sorted(a & b)}")
    if on_table | dropped | off != set(layout):
        problems.append(f"balls not conserved: layout {sorted(layout)}, after {sorted(on_table)} + "
                        f"pocketed {sorted(dropped)} + off the table {sorted(off)}")
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
    problems += _off_table_violations(table, result)
    times = [e.time for e in result.events]
    if any(b < a for a, b in zip(times, times[1:])) or not math.isfinite(result.duration):
        problems.append("events are not in time order or the duration is not finite")
    return problems


def _off_table_violations(table: Table, result: ShotResult) -> list[str]:
    """The off-table part of ``shot_violations``: one ``OffTable`` event per ball in
    ``result.off_table``, at the same point, and that point where a ball can leave the
    table: past a rail's outer edge (its centre on the line ``Table.rail_width`` beyond a
    nose line) or at rest on a rail top (at the cushion height, between the nose edges and
    the outer edge)."""
    problems = []
    leaving = [e for e in result.events if isinstance(e, ev.OffTable)]
    counts = Counter(e.ball for e in leaving)
    twice = sorted(b for b, n in counts.items() if n > 1)
    if twice:
        problems.append(f"balls leave the table more than once in the event log: {twice}")
    if set(counts) != set(result.off_table):
        problems.append(f"the event log's off-table balls {sorted(counts)} differ from the result's "
                        f"{sorted(result.off_table)}")
    L, W, w, tol = table.length, table.width, table.rail_width, _EDGE_TOLERANCE
    # The rail top begins at the cushion's nose edge, where a ball on the bed touches the
    # nose: R (1 - cos(nose angle)) inside the nose line.
    R = table.ball_radius
    edge = R * (1.0 - math.sqrt(1.0 - (table.cushion_height / R - 1.0) ** 2)) + tol
    for e in leaving:
        x, y = e.position
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(e.height)):
            problems.append(f"ball {e.ball} left the table at a non-finite point ({x}, {y}, {e.height})")
            continue
        where = result.off_table.get(e.ball)
        if where is not None and where != (x, y):
            problems.append(f"ball {e.ball} left the table at ({x:.6f}, {y:.6f}) in the log but at "
                            f"({where[0]:.6f}, {where[1]:.6f}) in the result")
        past_edge = min(abs(x + w), abs(x - L - w)) <= tol or min(abs(y + w), abs(y - W - w)) <= tol
        within = -w - tol <= x <= L + w + tol and -w - tol <= y <= W + w + tol
        on_rail_top = (abs(e.height - table.cushion_height) <= tol and within
                       and (x <= edge or x >= L - edge or y <= edge or y >= W - edge))
        if not (within and (past_edge or on_rail_top)):
            problems.append(f"ball {e.ball} left the table at ({x:.6f}, {y:.6f}), height {e.height:.6f}: "
                            "neither at a rail's outer edge nor on a rail top")
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
