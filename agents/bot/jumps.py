"""Jump shots for the bot: strokes with a raised cue whose flight clears the balls between
the cue ball and the ball to hit (WPA 8.16: a jump played by driving the cue ball into the
bed is legal).

The flight is planned in closed form. A stroke of launch speed v at elevation theta drives
the cue ball down into the bed at v sin(theta) while it moves on at v cos(theta); the bed
throws it back up at ``bed_restitution`` * v sin(theta). Under gravity g it then flies

    z(s) = tan_launch * s - g s^2 / (2 u^2),   u = v cos(theta),  w = e v sin(theta)

(the height of its lowest point after s metres along the stroke, tan_launch = w / u), lands
after 2 u w / g metres and clears a ball of radius R whose centre lies on its line at s
metres when its lowest point is at least 2R up there (``clears``). The candidates pick
speeds that land the ball past the last blocker and short of the target, at a few
elevations, and the search simulates each like any other candidate, so the plan need only
be near: the simulator decides.
"""

from __future__ import annotations

import math

from poolgym.aiming import distance_to_segment, path_is_clear
from poolgym.physics import PhysicsParams, Shot

Point = tuple[float, float]
# Elevations (degrees) tried for a jump: steep enough to rise over a ball, not so steep
# that the stroke only hops in place.
JUMP_ELEVATIONS_DEG = (40.0, 50.0, 60.0)
# Where in the gap between the last blocker and the target the planned landing lies, as
# fractions of the gap.
LANDING_FRACTIONS = (0.25, 0.5, 0.8)


def rules_allow_jump_shots(rules) -> bool:
    """Whether the game lets the bot play jump shots: every WPA game does (8.16, a jump by
    driving the cue ball into the bed); a ruleset says otherwise with
    ``allows_jump_shots = False``."""
    return bool(getattr(rules, "allows_jump_shots", True))


def blockers(cue: Point, ball: Point, others: list[Point], radius: float) -> list[float]:
    """Distances along the line from ``cue`` to ``ball`` of the balls in ``others`` that
    stand in the cue ball's way there (centres within two radii of the line)."""
    dx, dy = ball[0] - cue[0], ball[1] - cue[1]
    d = math.hypot(dx, dy) or 1.0
    out = []
    for p in others:
        if distance_to_segment(p, cue, ball) < 2.0 * radius:
            out.append(((p[0] - cue[0]) * dx + (p[1] - cue[1]) * dy) / d)
    return sorted(out)


def every_line_blocked(cue: Point, ball: Point, others: list[Point], radius: float, steps: int = 41) -> bool:
    """Whether every straight stroke that hits ``ball`` (full to hairline on either side)
    meets another ball first."""
    d = math.dist(cue, ball)
    if d <= 2.0 * radius:
        return False
    base = math.atan2(ball[1] - cue[1], ball[0] - cue[0])
    for i in range(steps):
        k = -1.98 + 3.96 * i / (steps - 1)  # the stroke passes k radii beside the centre
        offset = math.asin(max(-1.0, min(1.0, k * radius / d)))
        reach = d * math.cos(offset) - math.sqrt(max(0.0, 4 * radius * radius - (k * radius) ** 2))
        contact = (cue[0] + reach * math.cos(base + offset), cue[1] + reach * math.sin(base + offset))
        if path_is_clear(cue, contact, others, radius):
            return False
    return True


def flight(speed: float, elevation_deg: float, params: PhysicsParams) -> tuple[float, float]:
    """(horizontal speed, vertical speed) of the cue ball leaving the bed after a stroke of
    launch ``speed`` at ``elevation_deg``."""
    theta = math.radians(elevation_deg)
    return speed * math.cos(theta), params.bed_restitution * speed * math.sin(theta)


def landing_distance(speed: float, elevation_deg: float, params: PhysicsParams) -> float:
    """How far along its line the cue ball lands (metres)."""
    u, w = flight(speed, elevation_deg, params)
    return 2.0 * u * w / params.gravity


def speed_to_land(distance: float, elevation_deg: float, params: PhysicsParams) -> float:
    """The launch speed whose flight lands ``distance`` metres along the line
    (``landing_distance``'s inverse)."""
    theta = math.radians(elevation_deg)
    return math.sqrt(distance * params.gravity / (2.0 * params.bed_restitution * math.sin(theta) * math.cos(theta)))


def height_at(s: float, speed: float, elevation_deg: float, params: PhysicsParams) -> float:
    """Height of the cue ball's lowest point ``s`` metres along its flight (negative past
    the landing: it is back on the bed)."""
    u, w = flight(speed, elevation_deg, params)
    t = s / u
    return w * t - 0.5 * params.gravity * t * t


def clears(speed: float, elevation_deg: float, distances: list[float], radius: float,
           params: PhysicsParams) -> bool:
    """Whether the flight passes over balls centred ``distances`` metres along its line:
    over each one's whole width (from two radii before its centre to two after) the cue
    ball's lowest point stays above the ball's surface beneath it."""
    for s in distances:
        for k in range(-4, 5):
            dx = 0.5 * k * radius  # from -2R to 2R around the centre
            need = math.sqrt(max(0.0, 4.0 * radius * radius - dx * dx))
            if s + dx > 0 and height_at(s + dx, speed, elevation_deg, params) < need:
                return False
    return True


def jump_strokes(cue: Point, ball: Point, others: list[Point], radius: float, params: PhysicsParams,
                 max_speed: float) -> list[tuple[float, float]]:
    """(speed, elevation) pairs for jumping from ``cue`` over the balls in the way to
    ``ball``: landings spread over the gap between the last blocker and the ball, at each of
    ``JUMP_ELEVATIONS_DEG``, kept when the planned flight clears every blocker and the speed
    is within ``max_speed``."""
    distances = blockers(cue, ball, others, radius)
    if not distances:
        return []
    target = math.dist(cue, ball)
    start, end = distances[-1] + 2.0 * radius, target - 2.0 * radius
    if end <= start:
        return []
    out = []
    for elevation in JUMP_ELEVATIONS_DEG:
        for fraction in LANDING_FRACTIONS:
            speed = speed_to_land(start + fraction * (end - start), elevation, params)
            if speed <= max_speed and clears(speed, elevation, distances, radius, params):
                out.append((speed, elevation))
    return out


def jump_shot(speed: float, angle_deg: float, elevation_deg: float) -> Shot:
    """The stroke of a jump: centre ball (a tip offset on a raised cue swerves it)."""
    return Shot(speed, angle_deg, 0.0, 0.0, elevation_deg)
