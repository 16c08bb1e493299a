"""The compiled pot geometry (``poolgym.physics.pot_geometry``) equals ``poolgym.aiming``'s
interpreted formulas to the last bit, pot by pot, on random positions (blocked and clear
paths, thin cuts, side pockets seen from steep angles), and its constants are aiming's."""

from __future__ import annotations

import math

import numpy as np

from poolgym import aiming
from poolgym.physics import pot_geometry as geometry
from poolgym.table import POCKET_IDS, Table


def test_the_constants_are_aimings():
    assert (geometry.MAX_CUT_DEG, geometry.SIDE_POCKET_MAX_APPROACH_DEG, geometry.JAW_MARGIN_RADII) == \
        (aiming.MAX_CUT_DEG, aiming.SIDE_POCKET_MAX_APPROACH_DEG, aiming.JAW_MARGIN_RADII)


def test_every_pot_equals_the_interpreted_formulas():
    table = Table.preset("9ft")
    R = table.ball_radius
    aims = table.pocket_aims
    pockets = np.array(table.pocket_aim_rows)
    assert pockets.tolist() == [[*aims[p][0], *aims[p][1], aims[p][2], float(aims[p][3])] for p in POCKET_IDS]
    rng = np.random.default_rng(12)
    blocked = clear = 0
    for _ in range(150):
        balls = []
        while len(balls) < int(rng.integers(3, 12)):
            p = (float(rng.uniform(R, table.length - R)), float(rng.uniform(R, table.width - R)))
            if all(math.dist(p, q) > 2 * R for q in balls):
                balls.append(p)
        xs, ys = np.array([b[0] for b in balls]), np.array([b[1] for b in balls])
        pairs = [(b, p) for b in range(1, len(balls)) for p in range(len(POCKET_IDS))]
        rows = geometry.pot_geometry(xs, ys, 0, np.array([b for b, _ in pairs], dtype=np.int64),
                                     np.array([p for _, p in pairs], dtype=np.int64), xs[0], ys[0], pockets, R,
                                     np.zeros(6)).tolist()
        cue = balls[0]
        for (b, p), row in zip(pairs, rows):
            ball, pocket = balls[b], POCKET_IDS[p]
            others = [q for k, q in enumerate(balls) if k not in (0, b)]
            target = aiming.aim_point(table, pocket)
            ghost = aiming.ghost_ball(ball, target, R)
            half = aiming.usable_half_width(table, pocket, ball, target)
            cut = aiming.cut_angle_deg(cue, ghost, ball, target)
            d1, d2 = math.dist(cue, ghost), math.dist(ball, target)
            cue_blocked = not aiming.path_is_clear(cue, ghost, others, R)
            ball_blocked = not aiming.path_is_clear(ball, target, others, R)
            assert row[geometry.GHOST_X:geometry.GHOST_Y + 1] == list(ghost)
            assert (row[geometry.CUT], row[geometry.D1], row[geometry.D2], row[geometry.HALF_WIDTH]) == \
                (cut, d1, d2, half)
            assert row[geometry.VISIBLE] == (2.0 * math.atan2(half, max(d2, R)) if half > 0 else 0.0)
            assert (row[geometry.CUE_BLOCKED], row[geometry.BALL_BLOCKED]) == (float(cue_blocked), float(ball_blocked))
            # The aim tolerance is aiming's own, blocked paths included.
            assert row[geometry.TOLERANCE] == aiming.aim_tolerance(table, cue, ball, pocket, others)
            assert row[geometry.CUE_X:geometry.CUE_Y + 1] == list(cue)
            blocked += cue_blocked or ball_blocked
            clear += row[geometry.TOLERANCE] > 0
    assert blocked > 100 and clear > 100


def test_path_checks_at_the_limit_equal_the_interpreted_ones():
    # Balls placed off a segment at the blocking limit (two radii less 1e-6 m) and a few ulps
    # and billionths either side of it, along the segment, past its ends and on a segment of
    # length 0: the compiled check (whose squared-distance shortcut leaves the band around
    # the limit to ``hypot``) decides as ``poolgym.aiming.path_is_clear`` does, every time.
    R = Table.preset("9ft").ball_radius
    limit = 2.0 * R - 1e-6
    rng = np.random.default_rng(5)
    outcomes = set()
    for _ in range(3000):
        a = (float(rng.uniform(0.1, 2.4)), float(rng.uniform(0.1, 1.2)))
        angle, length = float(rng.uniform(0, 2 * math.pi)), float(rng.choice([0.0, rng.uniform(0.01, 1.5)]))
        b = (a[0] + length * math.cos(angle), a[1] + length * math.sin(angle))
        t = float(rng.uniform(-0.1, 1.1))
        base = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        normal = angle + math.pi / 2 * float(rng.choice([-1.0, 1.0]))
        offset = limit * (1.0 + float(rng.choice([0.0, 1e-15, -1e-15, 1e-10, -1e-10, 2e-9, -2e-9, 1e-6])))
        offset = float(np.nextafter(offset, rng.choice([0.0, 1.0]))) if rng.random() < 0.3 else offset
        p = (base[0] + offset * math.cos(normal), base[1] + offset * math.sin(normal))
        expected = aiming.path_is_clear(a, b, [p], R)
        got = geometry._path_is_clear(a[0], a[1], b[0], b[1], np.array([p[0]]), np.array([p[1]]),
                                      np.zeros(1, dtype=np.bool_), R)
        assert got == expected, (a, b, p)
        outcomes.add(expected)
    assert outcomes == {True, False}
