"""Jump shots for the bot: strokes with a raised cue whose flight clears the balls between
the cue ball and the ball to hit (WPA 8.16: a jump played by driving the cue ball into the
bed is legal).

The flight is planned in closed form from the simulator's own models: the strike of a
raised cue (``Simulator.strike_state``: a centre hit sends the ball along the cue, down into
the bed, at the level stroke's speed v and without spin) and the bed's bounce
(``poolgym.physics.contacts.surface_impulse``: restitution e = ``bed_restitution`` on the
vertical part, cloth friction against the slip). Both are linear in v, so the ball leaves
the bed at u = a v along the stroke and w = b v upwards:

    w = e v sin(theta),  u = v cos(theta) - min(mu (1 + e) sin(theta), cos(theta) / 3.5) v

(mu = ``mu_slide``: the bed's friction impulse slows the skid, and from about 44 degrees
up it is enough to stop the slip, leaving the ball rolling at 5/7 v cos(theta)). With e =
0.5 and mu = 0.2, at 40, 50, 55, 60 and 65 degrees: u/v = 0.57, 0.46, 0.41, 0.36, 0.30,
w/v = 0.32, 0.38, 0.41, 0.43, 0.45, so w/u = 0.56, 0.83, 1.00, 1.21, 1.50. The lowest point
of the ball then flies

    z(s) = (w / u) s - g s^2 / (2 u^2)

after s metres along the stroke, landing after 2 u w / g. It clears a ball whose centre
lies on its line at s metres when its lowest point stays above that ball's surface beneath
it (``JumpPlanner.clears``). The candidates pick speeds that land the ball past the last
blocker and short of the target, at a few elevations, and the search simulates each like
any other candidate, so the plan need only be near: the simulator decides.
"""

from __future__ import annotations

import math

from poolgym.aiming import distance_to_segment, path_is_clear
from poolgym.physics import Shot, Simulator
from poolgym.physics.contacts import surface_impulse

Point = tuple[float, float]
# Elevations (degrees) tried for a jump. For the same landing spot a steeper stroke rises
# higher (the peak is (w / u) L / 4 for a landing L metres out) but needs more speed, so
# within the stroke cap it reaches less far. On 200 blocked positions
# (``blocked.blocked_position`` with seeds [0, i], no noise, the 12 m/s cap), with landings
# at 0.25, 0.5 and 0.8 of the gap, a plan at 40 degrees hit the 1 ball first in 123, at 50
# in 175, at 55 in 181, at 60 in 182, at 65 in 186; with these four elevations and the
# landings below in 193 (184 without a foul; the former 40-55 degrees at 0.25, 0.5, 0.8: 181
# and 164), as many as all of 30-65 degrees in steps of 5 with landings from 0.1 to 0.9.
# With the tournament noise (``poolgym bench-jump``) the bot's best jump hit the 1 first in
# 85.2% of 2000 positions with these, about 81% of 1000 with the former set.
JUMP_ELEVATIONS_DEG = (45.0, 55.0, 60.0, 65.0)
# Where in the gap between the last blocker and the target the planned landing lies, as
# fractions of the gap: a later landing flies higher over the blockers. At the elevations
# above, on the same positions, a landing at 0.1 of the gap alone hit the 1 ball in 106, at
# 0.25 in 176, at 0.5 in 182, at 0.65 in 189, at 0.8 or 0.9 in 193; the spread keeps
# shorter flights among the candidates, which the noisy re-checks may prefer.
LANDING_FRACTIONS = (0.25, 0.65, 0.9)


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


class JumpPlanner:
    """The planned flight of a centre-ball jump on ``simulator``'s table and physics
    (module docstring)."""

    def __init__(self, simulator: Simulator) -> None:
        self.simulator = simulator
        self.radius = simulator.table.ball_radius
        self.gravity = simulator.params.gravity
        self._launch: dict[float, tuple[float, float]] = {}

    def launch(self, speed: float, elevation_deg: float) -> tuple[float, float]:
        """(along the stroke, upwards): the cue ball's speed as it leaves the bed after a
        stroke of ``speed`` at ``elevation_deg``."""
        if elevation_deg not in self._launch:
            p = self.simulator.params
            vx, vy, wx, wy, wz, vz = self.simulator.strike_state(jump_shot(1.0, 0.0, elevation_deg))
            out = surface_impulse(vx, vy, vz, wx, wy, wz, 0.0, 0.0, 1.0, self.radius, p.bed_restitution, p.mu_slide)
            self._launch[elevation_deg] = (math.hypot(out[0], out[1]), out[2])
        a, b = self._launch[elevation_deg]
        return a * speed, b * speed

    def landing_distance(self, speed: float, elevation_deg: float) -> float:
        """How far along its line the cue ball lands (metres)."""
        u, w = self.launch(speed, elevation_deg)
        return 2.0 * u * w / self.gravity

    def speed_to_land(self, distance: float, elevation_deg: float) -> float:
        """The stroke speed whose flight lands ``distance`` metres along the line
        (``landing_distance``'s inverse: the distance grows as the speed squared)."""
        return math.sqrt(distance / self.landing_distance(1.0, elevation_deg))

    def height_at(self, s: float, speed: float, elevation_deg: float) -> float:
        """Height of the cue ball's lowest point ``s`` metres along its flight (negative
        past the landing: it is back on the bed)."""
        u, w = self.launch(speed, elevation_deg)
        t = s / u
        return w * t - 0.5 * self.gravity * t * t

    def clears(self, speed: float, elevation_deg: float, distances: list[float]) -> bool:
        """Whether the flight passes over balls centred ``distances`` metres along its line:
        over each one's whole width (from two radii before its centre to two after) the cue
        ball's lowest point stays above the ball's surface beneath it."""
        R = self.radius
        for s in distances:
            for k in range(-4, 5):
                dx = 0.5 * k * R  # from -2R to 2R around the centre
                need = math.sqrt(max(0.0, 4.0 * R * R - dx * dx))
                if s + dx > 0 and self.height_at(s + dx, speed, elevation_deg) < need:
                    return False
        return True

    def strokes(self, cue: Point, ball: Point, others: list[Point], max_speed: float) -> list[tuple[float, float]]:
        """(speed, elevation) pairs for jumping from ``cue`` over the balls in the way to
        ``ball``: landings spread over the gap between the last blocker and the ball, at
        each of ``JUMP_ELEVATIONS_DEG``, kept when the planned flight clears every blocker
        and the speed is within ``max_speed``."""
        R = self.radius
        distances = blockers(cue, ball, others, R)
        if not distances:
            return []
        start, end = distances[-1] + 2.0 * R, math.dist(cue, ball) - 2.0 * R
        if end <= start:
            return []
        out = []
        for elevation in JUMP_ELEVATIONS_DEG:
            for fraction in LANDING_FRACTIONS:
                speed = self.speed_to_land(start + fraction * (end - start), elevation)
                if speed <= max_speed and self.clears(speed, elevation, distances):
                    out.append((speed, elevation))
        return out


def jump_shot(speed: float, angle_deg: float, elevation_deg: float) -> Shot:
    """The stroke of a jump: centre ball (a tip offset on a raised cue swerves it)."""
    return Shot(speed, angle_deg, 0.0, 0.0, elevation_deg)
