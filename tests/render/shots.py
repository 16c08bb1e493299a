"""Hand-built shot results for the drawing tests: closed-form motion phases, no simulator,
so a picture depends on the renderer alone."""

from __future__ import annotations

import math

from poolgym import events as ev
from poolgym.physics import Shot, ShotResult
from poolgym.physics.result import MotionPhase
from poolgym.table import Table

TABLE = Table.preset("9ft")
G = 9.81


def roll(t0: float, t1: float, start, velocity, decel: float = 0.1, mode: str = "rolling") -> MotionPhase:
    """A straight phase along ``velocity``, slowing at ``decel`` m/s^2."""
    speed = math.hypot(*velocity)
    acceleration = (-decel * velocity[0] / speed, -decel * velocity[1] / speed)
    return MotionPhase(t0, t1, mode, tuple(start), tuple(velocity), acceleration)


def still(t1: float, point) -> MotionPhase:
    """A ball the shot never moves: one still phase, as the simulator records it."""
    return MotionPhase(0.0, t1, "still", tuple(point), (0.0, 0.0), (0.0, 0.0))


def end_of(phase: MotionPhase):
    return phase.position_at(phase.t1), phase.velocity_at(phase.t1)


def flat_result() -> ShotResult:
    """The cue ball slides then rolls into the 3, which rolls into the foot-right corner;
    the 9 never moves. Every ball stays on the bed."""
    cue = [roll(0.0, 0.2, (0.6, 0.5), (2.0, 0.4), decel=1.96, mode="sliding")]
    p, v = end_of(cue[0])
    cue.append(roll(0.2, 0.5, p, v))
    p, _ = end_of(cue[1])
    cue.append(MotionPhase(0.5, 1.4, "rolling", p, (0.3, 0.06), (-0.3 / 0.9, -0.06 / 0.9)))
    three_start = (p[0] + 2 * TABLE.ball_radius, p[1] + 0.4 * TABLE.ball_radius)
    three = [MotionPhase(0.0, 0.5, "still", three_start, (0.0, 0.0), (0.0, 0.0)),
             roll(0.5, 1.1, three_start, (1.2, 0.3))]
    pocket = three[1].position_at(1.1)
    rest = cue[-1].position_at(1.4)
    events = (ev.Strike(0.0, 0, (0.6, 0.5), 2.0, 11.3, 0.0, 0.0), ev.BallBall(0.5, 0, 3, p, three_start),
              ev.Pocketed(1.1, 3, "foot_right", pocket), ev.Rest(1.4))
    return ShotResult(positions={0: rest, 9: (2.0, 1.0)}, pocketed={3: "foot_right"}, events=events,
                      duration=1.4, shot=Shot(2.0, 11.3),
                      trajectories={0: tuple(cue), 3: tuple(three), 9: (still(1.4, (2.0, 1.0)),)})


def jump_result(take_off: float = 0.1, flight: float = 0.3) -> ShotResult:
    """The cue ball slides, leaves the bed at ``take_off`` seconds on a parabola lasting
    ``flight`` seconds (apex g flight^2 / 8), lands and rolls on; the 5 sits still."""
    vz = G * flight / 2.0
    slide = roll(0.0, take_off, (0.5, 0.6), (3.0, 0.0), decel=1.96, mode="sliding")
    p, v = end_of(slide)
    air = MotionPhase(take_off, take_off + flight, "airborne", p, v, (0.0, 0.0), 0.0, vz, -G)
    p, v = end_of(air)
    land = roll(take_off + flight, take_off + flight + 0.6, p, v)
    end = land.position_at(land.t1)
    events = (ev.Strike(0.0, 0, (0.5, 0.6), 3.0, 0.0, 0.0, 0.0, elevation_deg=30.0), ev.Rest(land.t1))
    return ShotResult(positions={0: end, 5: (2.0, 1.0)}, pocketed={}, events=events, duration=land.t1,
                      shot=Shot(3.0, 0.0, elevation_deg=30.0),
                      trajectories={0: (slide, air, land), 5: (still(land.t1, (2.0, 1.0)),)})


def off_table_result() -> ShotResult:
    """The cue ball flies off over the foot rail: its path ends at the OffTable event."""
    air = MotionPhase(0.0, 0.25, "airborne", (2.2, 0.6), (2.0, 0.0), (0.0, 0.0), 0.0, G * 0.2, -G)
    leave = air.position_at(0.25)
    events = (ev.Strike(0.0, 0, (2.2, 0.6), 2.0, 0.0, 0.0, 0.0, elevation_deg=60.0),
              ev.OffTable(0.25, 0, leave, air.height_at(0.25)), ev.Rest(1.0))
    return ShotResult(positions={4: (1.0, 0.4)}, pocketed={}, events=events, duration=1.0,
                      shot=Shot(2.0, 0.0, elevation_deg=60.0), trajectories={0: (air,), 4: (still(1.0, (1.0, 0.4)),)},
                      off_table={0: leave})
