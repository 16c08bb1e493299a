"""The compiled frozen-ball test of a layout's set-up (``poolgym.physics.frozen``) marks
exactly the cushions and cue-ball contacts of the interpreted formula it replaced: on
layouts with balls frozen to rails, to jaws and to the cue ball, near-misses just outside
the tolerance, and random layouts."""

from __future__ import annotations

import math

import numpy as np

from poolgym.physics import Simulator
from poolgym.physics.simulator import _Start
from poolgym.table import Table


def interpreted(sim: Simulator, balls: dict[int, tuple[float, float]]):
    """``_Start``'s frozen matrix and contacts as the interpreted set-up computed them."""
    nums = sorted(balls)
    cue = nums.index(0)
    R, tol = sim.table.ball_radius, sim.params.frozen_tolerance
    cx, cy = balls[0]
    frozen = np.zeros((len(nums), len(sim._cushion_ids)), dtype=bool)
    cushion_frozen, cue_frozen = [], []
    i0, i1, i2, i3 = sim._open_box
    for k, num in enumerate(nums):
        x, y = balls[num]
        if not (i0 + tol < x < i1 - tol and i2 + tol < y < i3 - tol):
            marked = {seg_id for seg_id, sx, sy, ux, uy, nx, ny, length, _ in sim._segments
                      if 0.0 <= ux * (x - sx) + uy * (y - sy) <= length and nx * (x - sx) + ny * (y - sy) <= R + tol}
            if marked:
                cushion_frozen.append(num)
                frozen[k] = [c in marked for c in sim._cushion_ids]
        if k != cue and math.hypot(x - cx, y - cy) <= 2.0 * R + tol:
            cue_frozen.append(num)
    return frozen, tuple(cushion_frozen), tuple(cue_frozen)


def layouts(table: Table, count: int, seed: int):
    """Random layouts with balls pushed against the rails, into the jaws and onto the cue ball."""
    rng = np.random.default_rng(seed)
    R = table.ball_radius
    tol = Simulator(table).params.frozen_tolerance
    for _ in range(count):
        balls = {}
        for n in range(10):
            kind = rng.integers(4)
            if kind == 0:  # against a rail, exactly or a hair either side of the tolerance
                off = R + float(rng.choice([0.0, tol * 0.5, tol * 1.5, -1e-9]))
                side = rng.integers(4)
                x = float(rng.uniform(0.1, table.length - 0.1))
                y = float(rng.uniform(0.1, table.width - 0.1))
                x, y = [(off, y), (table.length - off, y), (x, off), (x, table.width - off)][side]
            elif kind == 1 and balls.get(0):  # against the cue ball
                a = float(rng.uniform(0, 2 * math.pi))
                d = 2 * R + float(rng.choice([0.0, tol * 0.5, tol * 1.5]))
                x, y = balls[0][0] + d * math.cos(a), balls[0][1] + d * math.sin(a)
            elif kind == 2:  # near a pocket's mouth (the jaws)
                p = table.pockets[int(rng.integers(len(table.pockets)))]
                cx, cy = table.length / 2, table.width / 2
                mx, my = p.mouth_centre
                t = float(rng.uniform(0.05, 0.2))
                x, y = mx + t * (cx - mx), my + t * (cy - my)
            else:
                x, y = float(rng.uniform(R, table.length - R)), float(rng.uniform(R, table.width - R))
            if all(math.dist((x, y), q) >= 2 * R - 1e-9 for q in balls.values()):
                balls[len(balls)] = (x, y)
        if 0 in balls:
            yield balls


def test_compiled_frozen_contacts_equal_the_interpreted_ones():
    table = Table.preset("9ft")
    sim = Simulator(table)
    counts = [0, 0, 0]
    for balls in layouts(table, 400, seed=3):
        start = _Start(sim, balls)
        frozen, cushion, cue = interpreted(sim, balls)
        np.testing.assert_array_equal(start.frozen, frozen)
        assert start.frozen.dtype == frozen.dtype and start.frozen.shape == frozen.shape
        assert (start.cushion_frozen, start.cue_frozen) == (cushion, cue)
        counts[0] += bool(cushion)
        counts[1] += bool(cue)
        counts[2] += bool(frozen[:, len(sim._segments):].any())  # a jaw tip's column marked
    assert min(counts[:2]) > 50 and counts[2] > 0
