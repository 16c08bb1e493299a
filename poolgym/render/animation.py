"""Shots as frame sequences: the balls where the simulator's exact trajectories put them
(and as high: a ball in the air is drawn raised over its shadow), every ``1 / fps``
simulated seconds, so frames shown at ``fps`` replay the shot in real time.

A ``Still`` is one frame of a table at rest; a ``Motion`` is a shot's frames followed by one
frame of the balls at rest with the shot's verdict. Both are light records (positions, a
``ShotResult``, text), drawn only when their frames are asked for.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from poolgym.physics import ShotResult
from poolgym.render.rgb import FramePainter
from poolgym.table import Point


def shot_frame_count(duration: float, fps: float) -> int:
    """How many frames ``Motion`` draws for a shot of ``duration`` simulated seconds: one
    every ``1 / fps`` seconds from the strike, then the balls at rest."""
    return math.ceil(duration * fps - 1e-9) + 1 if duration > 0 else 1


def positions_at(result: ShotResult, t: float) -> dict[int, Point]:
    """Where the balls are ``t`` simulated seconds after the strike, from ``result``'s
    motion phases (exact: each phase is a parabola). A ball that was pocketed or left the
    table is gone once its path ends; from ``result.duration`` on, the balls are at rest."""
    return {ball: point for ball, (point, _) in _balls_at(result, t).items()}


def heights_at(result: ShotResult, t: float) -> dict[int, float]:
    """The height of each ball's lowest point above the bed ``t`` simulated seconds after
    the strike (``MotionPhase.height_at``), for the balls ``positions_at`` gives: 0 on the
    bed, the cushion height on a rail top, a parabola in the air."""
    return {ball: height for ball, (_, height) in _balls_at(result, t).items()}


def _balls_at(result: ShotResult, t: float) -> dict[int, tuple[Point, float]]:
    """Ball -> (point, height) at ``t`` for every ball still on the table then."""
    if result.trajectories is None:
        raise ValueError("this result has no trajectories: simulate(..., trajectories=True)")
    if t >= result.duration:
        return {ball: (point, 0.0) for ball, point in result.positions.items()}
    balls: dict[int, tuple[Point, float]] = {}
    for ball, phases in result.trajectories.items():
        if not phases:
            continue
        last = phases[-1]
        if t >= last.t1:
            if ball in result.positions:
                balls[ball] = (last.position_at(last.t1), last.height_at(last.t1))
            continue  # dropped, driven off or flown off
        phase = phases[max(0, bisect_right([p.t0 for p in phases], t) - 1)]
        balls[ball] = (phase.position_at(t), phase.height_at(t))
    for ball, point in result.positions.items():
        balls.setdefault(ball, (point, 0.0))  # balls the shot never reached
    return balls


@dataclass(frozen=True)
class Still:
    """One frame: the balls at ``positions``, optionally the ``paths`` of the last shot, a
    ball to ``highlight``, a cue ball shown ``in_hand`` at a point, and ``status`` text."""

    positions: Mapping[int, Point]
    status: tuple[str, ...] = ()
    paths: Mapping | None = None
    highlight: int | None = None
    in_hand: Point | None = None

    def frame_count(self, fps: float) -> int:
        return 1

    def frames(self, painter: FramePainter, fps: float) -> Iterator[np.ndarray]:
        yield painter.paint(self.positions, trajectories=self.paths, highlight=self.highlight,
                            status=self.status, in_hand=self.in_hand)


@dataclass(frozen=True)
class Motion:
    """A shot as it rolls (``status`` under it), then one frame at rest: ``end``."""

    result: ShotResult
    status: tuple[str, ...]
    end: Still
    highlight: int | None = field(default=None)

    def frame_count(self, fps: float) -> int:
        return shot_frame_count(self.result.duration, fps)

    def frames(self, painter: FramePainter, fps: float) -> Iterator[np.ndarray]:
        for k in range(self.frame_count(fps) - 1):
            t = k / fps
            yield painter.paint(positions_at(self.result, t), heights=heights_at(self.result, t),
                                highlight=self.highlight, status=self.status)
        yield from self.end.frames(painter, fps)
