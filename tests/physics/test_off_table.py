"""Balls that leave the bed: every ball ends exactly once (at rest on the bed, in a pocket or
off the table, WPA 8.5), each ball off the table has one ``OffTable`` event where it left
(past a rail's outer edge or at rest on a rail top), a ball rolling back off a rail top stays
in play, and a flight that comes down over a pocket drops into it.

The shots of the single cases were found by a search over the real simulation and written
down here; each test checks that the shot still does what it is about.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from poolgym import events as ev
from poolgym.physics import Shot
from poolgym.physics.invariants import random_layout, random_shot, shot_violations
from poolgym.table import Table

TABLE = Table.preset("9ft")
L, W, W_RAIL, H = TABLE.length, TABLE.width, TABLE.rail_width, TABLE.cushion_height


def offs(result) -> list[ev.OffTable]:
    return [e for e in result.events if isinstance(e, ev.OffTable)]


def at_outer_edge(x: float, y: float) -> bool:
    """The centre lies on a rail's outer edge (up to round-off)."""
    return (any(math.isclose(x, edge, abs_tol=1e-9) for edge in (-W_RAIL, L + W_RAIL))
            or any(math.isclose(y, edge, abs_tol=1e-9) for edge in (-W_RAIL, W + W_RAIL)))


def on_rail_top(x: float, y: float) -> bool:
    """The centre lies over a rail top: beyond the nose lines, inside the outer edge."""
    inside_outer = -W_RAIL <= x <= L + W_RAIL and -W_RAIL <= y <= W + W_RAIL
    return inside_outer and (x < 0.0 or x > L or y < 0.0 or y > W)


def elevated(rng: np.random.Generator) -> Shot:
    """A random shot (``random_shot``) with an elevation uniform in [0, 80] degrees."""
    elevation = float(rng.uniform(0.0, Shot.MAX_ELEVATION_DEG))
    return replace(random_shot(rng, max_speed=12.0), elevation_deg=elevation)


# ----------------------------------------------------------------- every ball ends once
@pytest.mark.parametrize("seed", range(3))
def test_every_ball_ends_exactly_once_and_every_ball_off_has_its_event(sim9, seed):
    rng = np.random.default_rng(seed)
    balls_off = 0
    for _ in range(100):
        layout = random_layout(TABLE, int(rng.integers(1, 16)), rng)
        result = sim9.simulate(layout, elevated(rng))
        rest, dropped, off = set(result.positions), set(result.pocketed), set(result.off_table)
        assert not (rest & dropped or rest & off or dropped & off)
        assert rest | dropped | off == set(layout)
        for x, y in result.positions.values():
            assert TABLE.contains(x, y, tolerance=1e-6)
        events = offs(result)
        assert sorted(e.ball for e in events) == sorted(off)  # one event per ball off
        for e in events:
            assert e.position == result.off_table[e.ball]
            x, y = e.position
            assert at_outer_edge(x, y) or (on_rail_top(x, y) and e.height == pytest.approx(H)), e
        assert shot_violations(TABLE, layout, result) == []
        balls_off += len(off)
    # The sample has flights off the table to check (14 to 22 of these 100 shots).
    assert balls_off >= 10


def test_a_cue_ball_flying_off_ends_at_the_outer_edge_in_flight(sim9):
    """A steep hard stroke at the near rail: one flight from the strike to past the top rail's
    outer edge, a parabola (centre straight, height under gravity) checked in closed form."""
    result = sim9.simulate({0: (0.8, 1.0)}, Shot(speed=8.0, angle_deg=90.0, elevation_deg=40.0),
                           trajectories=True)
    (off,) = offs(result)
    assert off.ball == 0 and result.off_table == {0: off.position}
    assert result.positions == {} and result.pocketed == {}
    assert off.position == pytest.approx((0.8, W + W_RAIL), abs=1e-9)
    (flight,) = result.trajectories[0]
    assert flight.mode == "airborne" and flight.t1 == pytest.approx(off.time)
    vx, vy = flight.velocity
    assert off.time == pytest.approx((W + W_RAIL - 1.0) / vy)
    assert off.height == pytest.approx(flight.vertical_velocity * off.time - 0.5 * 9.81 * off.time ** 2)
    assert off.height > H  # it cleared the rail
    assert result.duration == pytest.approx(off.time)


# ----------------------------------------------------------------- rail tops
def test_a_ball_coming_to_rest_on_a_rail_top_is_off_the_table(sim9):
    """WPA 8.5: at rest somewhere other than the bed or a pocket. The cue ball lands on the
    top of the long rail at y = 0, bounces there, rolls on it and stops on it."""
    layout = {0: (2.09, 0.18)}
    result = sim9.simulate(layout, Shot(speed=7.6, angle_deg=217.0, vertical=-0.4, elevation_deg=66.0),
                           trajectories=True)
    (off,) = offs(result)
    assert off.ball == 0 and 0 in result.off_table and 0 not in result.positions
    x, y = off.position
    assert on_rail_top(x, y) and not at_outer_edge(x, y)
    assert off.height == pytest.approx(H)
    assert off.time == pytest.approx(result.duration)  # it left by stopping there
    last = result.trajectories[0][-1]
    assert last.mode == "rolling" and last.height == pytest.approx(H) and last.vertical_velocity == 0.0
    assert last.position_at(last.t1) == pytest.approx(off.position)
    assert shot_violations(TABLE, layout, result) == []


def test_a_ball_rolling_back_off_a_rail_top_stays_in_play(sim9):
    """WPA 8.5: a ball that touches the rail and comes back onto the bed is not off. The cue
    ball lands on the foot rail's top, rolls back over the nose, drops to the bed and stops
    on it."""
    layout = {0: (2.38, 0.77)}
    result = sim9.simulate(layout, Shot(speed=6.2, angle_deg=349.0, vertical=-0.5, elevation_deg=65.0),
                           trajectories=True)
    phases = result.trajectories[0]
    on_rail = [p for p in phases if p.mode != "airborne" and p.height == pytest.approx(H)]
    assert on_rail and all(on_rail_top(*p.position) for p in on_rail)
    assert offs(result) == [] and result.off_table == {}
    assert TABLE.contains(*result.positions[0], tolerance=1e-6)
    assert phases[-1].height == 0.0
    assert shot_violations(TABLE, layout, result) == []


def test_a_flight_coming_down_over_a_pocket_drops_into_it(sim9):
    """One flight, no cushion touched: the cue ball comes down over the side-right pocket's
    hole and drops."""
    result = sim9.simulate({0: (1.06, 0.98)}, Shot(speed=3.4, angle_deg=58.0, vertical=0.1, elevation_deg=45.0),
                           trajectories=True)
    assert result.pocketed == {0: "side_right"} and result.off_table == {} and result.positions == {}
    assert not any(isinstance(e, ev.BallCushion) for e in result.events)
    (flight,) = result.trajectories[0]
    assert flight.mode == "airborne"
    (drop,) = [e for e in result.events if isinstance(e, ev.Pocketed)]
    pocket = next(p for p in TABLE.pockets if p.id == "side_right")
    cx, cy = pocket.hole_centre
    assert math.hypot(drop.position[0] - cx, drop.position[1] - cy) < pocket.hole_radius
    assert not TABLE.contains(*drop.position)  # past the noses: it flew over the cushion
    assert flight.height_at(drop.time) > 0.0


# ----------------------------------------------------------------- the checker
def test_the_checker_catches_off_table_faults(sim9):
    """Doctor a sound off-table result and ``shot_violations`` says what is wrong."""
    layout = {0: (0.8, 1.0), 5: (1.5, 0.3)}
    result = sim9.simulate(layout, Shot(speed=8.0, angle_deg=90.0, elevation_deg=40.0))
    assert 0 in result.off_table and shot_violations(TABLE, layout, result) == []
    no_event = replace(result, events=tuple(e for e in result.events if not isinstance(e, ev.OffTable)))
    assert any("off-table balls" in p for p in shot_violations(TABLE, layout, no_event))
    twice = replace(result, positions={**result.positions, 0: (0.8, 1.0)})
    assert any("both on the table and off the table" in p for p in shot_violations(TABLE, layout, twice))
    lost = replace(result, off_table={})
    problems = shot_violations(TABLE, layout, lost)
    assert any("not conserved" in p for p in problems) and any("off-table balls" in p for p in problems)
    (off,) = offs(result)
    inside = replace(off, position=(0.8, 1.2), height=0.0)
    moved = replace(result, events=tuple(inside if e is off else e for e in result.events),
                    off_table={0: (0.8, 1.2)})
    assert any("neither at a rail's outer edge nor on a rail top" in p
               for p in shot_violations(TABLE, layout, moved))
