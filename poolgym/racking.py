"""How tightly balls are racked: the random gaps between racked balls.

A perfectly tight lattice rack is a world no player meets: the cue ball's energy goes
through the rack the same way every time, and one memorised break pockets a chosen ball on
every rack. Real racks have gaps of a fraction of a millimetre between some balls (cloth
wear, ball-size tolerance, the racker's hand), and those gaps decide how the energy
spreads. ``RackModel`` draws them: the rack's pitch opens by ``spacing_mm`` and every ball
but the apex moves by an independent Gaussian offset of ``jitter_mm`` per axis, redrawn
while it would overlap a ball already placed.

``BENCHMARK_RACK`` (mean gap between neighbouring balls 0.7 mm, about 3% of them frozen)
is calibrated with the benchmark break (``poolgym.agents.evaluation.sweeps``: a 12 m/s (27 mph) power break
from the break box at the apex ball, tournament execution noise) to make a ball on about
55% of 9-ball breaks, inside the 50-75% band of tracked professional events: 71% (75 of
105 breaks made a ball without fouling) at the 2016 WPA World 9-Ball Championship on 9-ft
tables (AZBilliards "Break Stats" series). A tight rack makes a ball on about 30%; the
README's "Benchmark protocol" has the table over rack models and break speeds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from poolgym.table import Point, Table

# Redraws of one ball's offset before it is left on its lattice spot.
_MAX_REDRAWS = 32
# Physical bounds: gaps beyond a few millimetres are a loose rack WPA 2.2 would not allow.
_MAX_MM = 5.0
# Centres closer than two radii plus this are treated as touching (as in Table.rack_positions).
_CONTACT_GAP = 1e-5


@dataclass(frozen=True)
class RackModel:
    """Random gaps between racked balls.

    ``spacing_mm``: extra distance between neighbouring lattice spots (0 = frozen balls).
    ``jitter_mm``: standard deviation of each ball's random offset from its spot, per axis.
    Both in [0, 5] mm. The apex ball stays on the foot spot (WPA 2.2, 3.2, 4.2); no two
    balls overlap. ``RackModel()`` is the tight rack and draws no random numbers.
    """

    spacing_mm: float = 0.0
    jitter_mm: float = 0.0

    def __post_init__(self) -> None:
        for name in ("spacing_mm", "jitter_mm"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
                raise ValueError(f"RackModel.{name} must be a number of millimetres, got {value!r}")
            value = float(value)
            if not (math.isfinite(value) and 0.0 <= value <= _MAX_MM):
                raise ValueError(f"RackModel.{name} must be in [0, {_MAX_MM}] mm, got {value!r}")
            object.__setattr__(self, name, value)

    @property
    def is_tight(self) -> bool:
        return self.spacing_mm == 0.0 and self.jitter_mm == 0.0

    @classmethod
    def make(cls, spec: "RackModel | str | dict | None") -> "RackModel":
        """A model from a preset name (``"tight"``, ``"benchmark"``), a mapping of fields,
        an instance or None (tight)."""
        if spec is None:
            return cls()
        if isinstance(spec, RackModel):
            return spec
        if isinstance(spec, str):
            if spec not in RACK_PRESETS:
                raise ValueError(f"rack model must be one of {sorted(RACK_PRESETS)}, got {spec!r}")
            return RACK_PRESETS[spec]
        if isinstance(spec, dict):
            unknown = sorted(set(spec) - {"spacing_mm", "jitter_mm"})
            if unknown:
                raise ValueError(f"unknown rack model fields {unknown}; fields are ['jitter_mm', 'spacing_mm']")
            return cls(**spec)
        raise ValueError(f"rack model must be a preset name, a mapping or a RackModel, got {spec!r}")

    def apply(self, balls: dict[int, Point], rng: np.random.Generator, table: Table) -> dict[int, Point]:
        """The racked ``balls`` (centres on the tight lattice) with this model's gaps.

        The apex is the ball on the foot spot; the rack opens about it. Balls are moved in
        ascending number order, so the result depends only on ``rng``'s state.
        """
        if self.is_tight:
            return dict(balls)
        R = table.ball_radius
        fx, fy = table.foot_spot
        tight_pitch = 2.0 * R + _CONTACT_GAP
        scale = (tight_pitch + self.spacing_mm * 1e-3) / tight_pitch
        apex = min(balls, key=lambda b: math.hypot(balls[b][0] - fx, balls[b][1] - fy))
        spots = {b: (fx + (x - fx) * scale, fy + (y - fy) * scale) for b, (x, y) in balls.items()}
        spots[apex] = balls[apex]
        sigma = self.jitter_mm * 1e-3
        min_d = 2.0 * R + _CONTACT_GAP
        # Each ball is checked against the balls already moved and the spots of those still
        # to move, so a ball whose redraws all fail can always stay on its (free) spot.
        placed = dict(spots)
        for ball in sorted(b for b in balls if b != apex):
            sx, sy = spots[ball]
            others = [p for b, p in placed.items() if b != ball]
            for _ in range(_MAX_REDRAWS):
                dx, dy = rng.normal(0.0, sigma, 2).tolist()
                x, y = sx + dx, sy + dy
                if _clear_of(x, y, others, min_d):
                    placed[ball] = (x, y)
                    break
        return {b: placed[b] for b in balls}


def _clear_of(x: float, y: float, others: list[Point], min_d: float) -> bool:
    """Whether a centre at (x, y) is at least ``min_d`` from each of ``others`` (a new rack
    draws this for every ball, a few times each: a loop, not a generator)."""
    hypot = math.hypot
    for px, py in others:
        if not hypot(x - px, y - py) >= min_d:
            return False
    return True


RACK_PRESETS: dict[str, RackModel] = {
    "tight": RackModel(),
    "benchmark": RackModel(spacing_mm=0.5, jitter_mm=0.6),
}
BENCHMARK_RACK = RACK_PRESETS["benchmark"]
