"""Pockets: straight-in shots drop, jaws reject steep hard shots, the hole captures."""

import math

import pytest

from poolgym import events as ev
from poolgym.physics import Shot
from poolgym.table import Table


def _straight_in(table, pocket_id, ob_distance, cb_behind):
    """Object ball ob_distance from the corner on the pocket's diagonal, cue ball behind it."""
    pocket = table.pocket(pocket_id)
    corner = (table.length if "foot" in pocket_id else 0.0, table.width if "right" in pocket_id else 0.0)
    ux = 1.0 if corner[0] > 0 else -1.0
    uy = 1.0 if corner[1] > 0 else -1.0
    ux, uy = ux / math.sqrt(2), uy / math.sqrt(2)
    ob = (corner[0] - ux * ob_distance, corner[1] - uy * ob_distance)
    cb = (ob[0] - ux * cb_behind, ob[1] - uy * cb_behind)
    return {0: cb, 1: ob}, math.degrees(math.atan2(uy, ux)), pocket


@pytest.mark.parametrize("pocket_id", ["head_left", "foot_left", "foot_right", "head_right"])
@pytest.mark.parametrize("speed", [1.0, 2.0, 4.0])
def test_straight_in_corner_shot_is_pocketed(sim9, pocket_id, speed):
    layout, angle, _ = _straight_in(sim9.table, pocket_id, 0.42, 0.71)
    res = sim9.simulate(layout, Shot(speed=speed, angle_deg=angle, vertical=-0.2))
    assert res.pocketed.get(1) == pocket_id
    assert res.first_contact == 1


@pytest.mark.parametrize("pocket_id", ["side_left", "side_right"])
def test_straight_in_side_pocket(sim9, pocket_id):
    t = sim9.table
    y_ob = 0.35 if pocket_id == "side_left" else t.width - 0.35
    y_cb = 0.9 if pocket_id == "side_left" else t.width - 0.9
    layout = {0: (t.length / 2, y_cb), 1: (t.length / 2, y_ob)}
    angle = -90.0 if pocket_id == "side_left" else 90.0
    res = sim9.simulate(layout, Shot(speed=1.5, angle_deg=angle, vertical=-0.3))
    assert res.pocketed.get(1) == pocket_id
    assert 0 not in res.pocketed  # the draw keeps the cue ball out


def test_pocketed_event_reports_ball_pocket_and_drop_point(sim9):
    layout, angle, pocket = _straight_in(sim9.table, "foot_right", 0.42, 0.71)
    res = sim9.simulate(layout, Shot(speed=2.0, angle_deg=angle))
    drop = next(e for e in res.events if isinstance(e, ev.Pocketed) and e.ball == 1)
    cx, cy = pocket.hole_centre
    assert math.hypot(drop.position[0] - cx, drop.position[1] - cy) == pytest.approx(pocket.hole_radius, abs=1e-6)
    assert 1 not in res.positions


def test_jaws_matter_for_steep_hard_shots(sim9):
    """Balls driven along the long rail into the foot-left corner, 45 degrees off the pocket's
    axis, at lines spread across the mouth: those near the rail drop, those meeting the far
    jaw near its tip rattle out, and every one that stays out touched a jaw first."""
    t = sim9.table
    tip = t.corner_mouth / math.sqrt(2)  # the foot-rail jaw tip is this far from the corner
    outcomes = []
    for i in range(10):
        y = t.ball_radius + 0.001 + i * (tip - 0.003 - t.ball_radius) / 9
        for speed in (2.0, 6.0):
            res = sim9.simulate({0: (t.length - 0.5, y)}, Shot(speed=speed, angle_deg=0.0))
            first = next((e for e in res.events if isinstance(e, ev.BallCushion)), None)
            outcomes.append((0 in res.pocketed, first.cushion if first else None))
    assert any(dropped for dropped, _ in outcomes)
    rejected = [cushion for dropped, cushion in outcomes if not dropped]
    assert len(rejected) >= 3, "the jaws reject nothing"
    assert all(c is not None and c.startswith("foot_left_jaw_") for c in rejected)


def test_pocket_mouths_match_specification():
    t = Table.preset("9ft")
    for p in t.pockets:
        (ax, ay), (bx, by) = p.mouth
        width = math.hypot(ax - bx, ay - by)
        assert width == pytest.approx(0.114 if p.kind == "corner" else 0.129, abs=1e-9)


def test_ball_resting_in_the_jaws_is_a_valid_layout(sim9):
    """A ball can stop hanging in a pocket mouth; the next shot must accept that layout."""
    t = sim9.table
    x, y = t.length / 2 + 0.03, 0.01  # in the side-left mouth, past the rail nose line
    assert t.contains(x, y)
    res = sim9.simulate({0: (0.6, 0.6), 5: (x, y)}, Shot(speed=0.5, angle_deg=90.0))
    assert 5 in res.positions
