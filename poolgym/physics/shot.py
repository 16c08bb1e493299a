"""The cue strike (``Shot``) and execution noise (``Noise``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from poolgym.numbers import quote, real
from poolgym.table import BALL_RADIUS

# Shot's fields in their order (``Shot.validate`` checks them in it).
_FIELDS = ("speed", "angle_deg", "side", "vertical", "elevation_deg")


@dataclass(frozen=True)
class Shot:
    """One stroke of the cue on the cue ball.

    - ``speed``: the cue ball's launch speed in m/s for a centre hit (an off-centre hit with
      the same stroke leaves a little slower, as a real cue does).
    - ``angle_deg``: direction of the stroke in the table frame, 0 = +x (towards the foot
      cushion), 90 = +y.
    - ``side``: horizontal tip offset as a fraction of the ball radius, positive = right
      english: the tip meets the ball right of centre as the player sees it (towards +y
      for a stroke along +x, since y = 0 is the left rail), and the ball spins
      anticlockwise seen from above. Right english off a rail on the ball's left (running
      english there) widens the rebound; with ``PhysicsParams.squirt`` the ball leaves a
      little to the left of the stroke.
    - ``vertical``: vertical tip offset, positive = follow (top spin), negative = draw.
    - ``elevation_deg``: how far the cue's butt is raised above level, 0 to 80 degrees. The
      stroke then drives the ball down into the bed as well as forward: the bed throws it up
      (a hop, or a jump shot when steep and hard enough), and side spin turns about an axis
      tilted with the cue, which curves the sliding ball's path (swerve, masse). The tip
      offsets are measured across the cue (a centre hit drives through the ball's centre:
      no spin), so ``side`` and ``vertical`` mean the same at every elevation.

    ``sqrt(side**2 + vertical**2)`` must be below 1 (the tip has to meet the ball); up to 0.5
    is a normal hit, beyond ``PhysicsParams.miscue_limit`` the strike is reported as a miscue.
    """

    speed: float
    angle_deg: float = 0.0
    side: float = 0.0
    vertical: float = 0.0
    elevation_deg: float = 0.0

    MAX_ELEVATION_DEG = 80.0

    def validate(self, max_speed: float) -> "Shot":
        """This shot with every field a Python float; ``ValueError`` naming the field and its
        allowed range when a value is not a real number, overflows a float or is out of range.

        NumPy scalars of any precision are accepted and converted here: the simulation then
        runs in float64 whatever the caller passed, and its results are plain floats.
        """
        speed, angle_deg, side, vertical, elevation_deg = (self.speed, self.angle_deg, self.side, self.vertical,
                                                           self.elevation_deg)
        # The common case, a Shot of plain floats within every range, in one test (a NaN
        # fails each comparison; the ranges bound every field but the angle, tested apart).
        # Anything else takes the checks below, which name the first problem.
        if (type(self) is Shot and type(speed) is float and type(angle_deg) is float and type(side) is float
                and type(vertical) is float and type(elevation_deg) is float
                and 0.0 < speed <= max_speed and math.isfinite(speed) and math.isfinite(angle_deg)
                and -1.0 < side < 1.0 and -1.0 < vertical < 1.0
                and 0.0 <= elevation_deg <= self.MAX_ELEVATION_DEG and math.hypot(side, vertical) < 1.0):
            return self
        plain = type(self) is Shot
        values = []
        for name, value in zip(_FIELDS, (speed, angle_deg, side, vertical, elevation_deg)):
            if type(value) is not float:
                # A float subclass (NumPy's float64) is a real number in the float range:
                # float() is what real() would return, without its checks.
                value = float(value) if isinstance(value, float) else real(value, f"Shot.{name}")
                plain = False
            if not math.isfinite(value):
                raise ValueError(f"Shot.{name} must be finite, got {value!r}")
            values.append(value)
        speed, angle_deg, side, vertical, elevation_deg = values
        if not 0.0 < speed <= max_speed:
            raise ValueError(f"Shot.speed must be in (0, {max_speed}] m/s, got {speed!r}")
        for name, value in (("side", side), ("vertical", vertical)):
            if not -1.0 < value < 1.0:
                raise ValueError(f"Shot.{name} must be in (-1, 1) (fraction of the ball radius), "
                                 f"got {value!r}")
        if not 0.0 <= elevation_deg <= self.MAX_ELEVATION_DEG:
            raise ValueError(f"Shot.elevation_deg must be in [0, {self.MAX_ELEVATION_DEG}] degrees (the cue's "
                             f"rise above level), got {elevation_deg!r}")
        if math.hypot(side, vertical) >= 1.0:
            raise ValueError("Shot.side and Shot.vertical must satisfy side**2 + vertical**2 < 1 "
                             f"(the tip must meet the ball), got side={side!r}, vertical={vertical!r}")
        # A Shot of plain floats is its own validated form (shots are values).
        return self if plain else Shot(speed, angle_deg, side, vertical, elevation_deg)


@dataclass(frozen=True)
class Noise:
    """Gaussian execution noise, one standard deviation per shot parameter.

    Tip offsets are in fractions of the ball radius. The presets (``Noise.preset(name)``):

    - ``"fastfiz"``: the computational-pool tournaments' noise as their simulator defines it,
      Gaussian on all five stroke parameters (FastFiz 0.2's ``GaussianNoise`` defaults):
      tip offsets a = b = 0.5 mm, cue elevation theta 0.1 degrees, aim phi 0.125 degrees,
      speed V 0.075 m/s.
    - ``"tournament"``: the same without the elevation's draw (four parameters), the noise
      of the v1 envs' protocol.
    - ``"none"``: shots are executed exactly.

    The elevation's draw comes after the other four, so the other draws are those of a noise
    without it. The executed elevation is kept within [0, 80] degrees: a level stroke's
    draws below level are played level (the cue cannot go under the bed), so under
    ``"fastfiz"`` about half the level strokes leave the cue slightly raised.
    """

    speed: float = 0.0
    angle_deg: float = 0.0
    side: float = 0.0
    vertical: float = 0.0
    elevation_deg: float = 0.0

    PRESETS = ("none", "tournament", "fastfiz")
    # The largest standard deviation accepted per field: well past any human player (a
    # beginner's speed error is ~0.3 m/s, aim ~2 degrees), small enough that the executed
    # shot stays a stroke of the cue.
    LIMITS = {"speed": 1.0, "angle_deg": 10.0, "side": 0.5, "vertical": 0.5, "elevation_deg": 10.0}
    UNITS = {"speed": "m/s", "angle_deg": "degrees", "side": "ball radii", "vertical": "ball radii",
             "elevation_deg": "degrees"}

    def __post_init__(self) -> None:
        for name, limit in self.LIMITS.items():
            value = getattr(self, name)
            try:
                value = real(value, f"Noise.{name}")
            except ValueError:
                value = math.nan  # named with the range below
            if not (math.isfinite(value) and 0.0 <= value <= limit):
                raise ValueError(f"Noise.{name} must be a finite standard deviation >= 0 and <= {limit} "
                                 f"{self.UNITS[name]}, got {quote(getattr(self, name))}")
            object.__setattr__(self, name, value)

    @classmethod
    def preset(cls, name: str) -> "Noise":
        """The named preset (``PRESETS``; the class docstring says what each draws)."""
        if name == "none":
            return cls()
        tip = 0.0005 / BALL_RADIUS
        if name == "tournament":
            return cls(speed=0.075, angle_deg=0.125, side=tip, vertical=tip)
        if name == "fastfiz":
            return cls(speed=0.075, angle_deg=0.125, side=tip, vertical=tip, elevation_deg=0.1)
        raise ValueError(f"unknown noise preset {name!r}; choose one of {list(cls.PRESETS)}")

    @classmethod
    def make(cls, spec: "Noise | str | Mapping[str, float]") -> "Noise":
        """A ``Noise`` from itself, a preset name or a mapping of its fields (unknown names
        are an error naming them)."""
        if isinstance(spec, cls):
            return spec
        if isinstance(spec, str):
            return cls.preset(spec)
        if isinstance(spec, Mapping):
            unknown = sorted(set(spec) - set(cls.LIMITS))
            if unknown:
                raise ValueError(f"unknown noise fields {unknown}; fields are {sorted(cls.LIMITS)}")
            return cls(**spec)
        raise ValueError(f"noise must be a preset name {list(cls.PRESETS)}, a Noise or a mapping "
                         f"of its fields, got {spec!r}")

    @property
    def is_zero(self) -> bool:
        return self.speed == self.angle_deg == self.side == self.vertical == self.elevation_deg == 0.0

    def apply(self, shot: Shot, rng: np.random.Generator, max_speed: float = 15.0) -> Shot:
        """The shot as executed: each parameter plus a Gaussian draw from ``rng``.

        A draw can leave the stroke limits (a negative speed or one above ``max_speed``, a tip
        beyond the ball's edge); the executed shot is then the nearest one that can be played,
        and the simulator reports the executed values (and a miscue) in the strike event.
        """
        if self.is_zero:
            return shot
        speed, angle_deg, side, vertical, elevation = self.executed(shot, self.draws(rng), max_speed)
        if type(shot) is Shot:  # every field given: what ``replace`` builds, without its field walk
            return Shot(speed, angle_deg, side, vertical, elevation)
        return replace(shot, speed=speed, angle_deg=angle_deg, side=side, vertical=vertical,
                       elevation_deg=elevation)

    def draws(self, rng: np.random.Generator) -> tuple[float, ...]:
        """The standard normal draws ``apply`` takes from ``rng`` for one shot, in its order:
        speed, angle, side and vertical, then the elevation's when it has noise."""
        draws = tuple(rng.normal(0.0, 1.0, size=4).tolist())  # tolist: plain floats, as float(d) gives
        if self.elevation_deg > 0.0:
            draws += (float(rng.normal(0.0, 1.0)),)
        return draws

    def executed(self, shot: Shot, draws: tuple[float, ...],
                 max_speed: float = 15.0) -> tuple[float, float, float, float, float]:
        """``apply``'s executed (speed, angle_deg, side, vertical, elevation_deg) of ``shot``
        under the standard normal ``draws`` (``draws``' order), without building the shot:
        the same values."""
        d_speed, d_angle, d_side, d_vertical = draws[:4]
        speed = min(max_speed, max(1e-3, shot.speed + self.speed * d_speed))
        side = shot.side + self.side * d_side
        vertical = shot.vertical + self.vertical * d_vertical
        reach = math.hypot(side, vertical)
        if reach >= 0.99:
            side, vertical = side * 0.99 / reach, vertical * 0.99 / reach
        elevation = shot.elevation_deg
        if self.elevation_deg > 0.0:
            elevation = min(Shot.MAX_ELEVATION_DEG, max(0.0, elevation + self.elevation_deg * draws[4]))
        return speed, shot.angle_deg + self.angle_deg * d_angle, side, vertical, elevation
