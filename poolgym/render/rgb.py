"""Off-screen top-down pictures of a table as RGB arrays, drawn with pygame.

Orientation (see ``geometry``): table x runs left to right, table y downwards, so the
head end is on the left and the y = 0 rail at the top.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from numbers import Integral

import numpy as np

from poolgym.render import colors
from poolgym.render._pygame import load_pygame
from poolgym.render.geometry import (CUSHION_WIDTH, diamonds, outer_margin, outline,
                                     trajectory_items)
from poolgym.table import Point, Table

# Below this ball radius in pixels a number no longer fits on the ball.
MIN_LABEL_RADIUS_PX = 5


class _View:
    """The map from table metres to pixels for one picture width."""

    def __init__(self, table: Table, width_px: int):
        margin = outer_margin()
        self.margin = margin
        self.scale = width_px / (table.length + 2.0 * margin)
        self.size = (int(width_px), int(round((table.width + 2.0 * margin) * self.scale)))

    def px(self, point: Point) -> tuple[int, int]:
        return (int((point[0] + self.margin) * self.scale), int((point[1] + self.margin) * self.scale))

    def length(self, metres: float) -> int:
        return max(1, int(round(metres * self.scale)))


def table_to_pixel(table: Table, point: Point, width_px: int = 800) -> tuple[int, int]:
    """The (column, row) of the pixel that shows table point ``point`` in ``render_rgb``'s picture."""
    return _View(table, width_px).px(point)


def render_rgb(table: Table, positions: Mapping[int, Point], *, trajectories: Mapping | None = None,
               highlight: int | Iterable[int] | None = None, width_px: int = 800,
               labels: bool = True) -> np.ndarray:
    """A top-down picture of ``table`` with the balls at ``positions``, as (H, W, 3) uint8.

    - ``trajectories``: ball -> path, either rows of (t, x, y) or the ball's motion phases
      (``ShotResult.trajectories``); each path is drawn in the ball's colour, with a faint
      ring where it started.
    - ``highlight``: a ball or balls to ring, e.g. the ball the agent is aiming at.
    - ``width_px``: the picture's width; the height follows from the table's proportions.
    - ``labels``: draw the numbers on the object balls.
    """
    if width_px < 50:
        raise ValueError(f"width_px must be at least 50, got {width_px!r}")
    pygame = load_pygame()
    view = _View(table, width_px)
    surface = pygame.Surface(view.size)
    _draw_table(surface, view, table)
    _draw_paths(surface, view, table, trajectories)
    marked = {int(highlight)} if isinstance(highlight, Integral) else {int(b) for b in highlight or ()}
    for ball, point in positions.items():
        _draw_ball(surface, view, table, int(ball), point, labels, ball in marked)
    # surfarray indexes (column, row); images are (row, column).
    return np.ascontiguousarray(pygame.surfarray.array3d(surface).transpose(1, 0, 2))


def _draw_table(surface, view: _View, table: Table) -> None:
    pygame = load_pygame()
    L, W = table.length, table.width
    surface.fill(colors.RAIL)
    top_left = view.px((-CUSHION_WIDTH, -CUSHION_WIDTH))
    bottom_right = view.px((L + CUSHION_WIDTH, W + CUSHION_WIDTH))
    pygame.draw.rect(surface, colors.CUSHION, pygame.Rect(top_left, (bottom_right[0] - top_left[0],
                                                                     bottom_right[1] - top_left[1])))
    cloth = [view.px(p) for p in outline(table)]
    pygame.gfxdraw.filled_polygon(surface, cloth, colors.CLOTH)
    pygame.gfxdraw.aapolygon(surface, cloth, colors.CLOTH)
    for mark in diamonds(table):
        _disc(surface, view.px(mark), view.length(0.008), colors.DIAMOND)
    pygame.draw.line(surface, colors.HEAD_STRING, view.px((table.head_string_x, 0.0)),
                     view.px((table.head_string_x, W)))
    for spot in (table.head_spot, table.foot_spot):
        _disc(surface, view.px(spot), view.length(0.005), colors.SPOT)
    for pocket in table.pockets:
        _disc(surface, view.px(pocket.hole_centre), view.length(pocket.hole_radius), colors.HOLE)


def _draw_paths(surface, view: _View, table: Table, trajectories: Mapping | None) -> None:
    pygame = load_pygame()
    width = max(1, view.length(table.ball_radius) // 4)
    for ball, xy in trajectory_items(trajectories):
        color = colors.ball_color(ball)
        x0, y0 = view.px(xy[0])
        pygame.gfxdraw.aacircle(surface, x0, y0, view.length(table.ball_radius), color)
        pygame.draw.lines(surface, color, False, [view.px(p) for p in xy], width)


def _draw_ball(surface, view: _View, table: Table, ball: int, point: Point, labels: bool,
               highlighted: bool) -> None:
    pygame = load_pygame()
    cx, cy = centre = view.px(point)
    r = view.length(table.ball_radius)
    if highlighted:
        _disc(surface, centre, r + max(2, r // 3), colors.HIGHLIGHT)
    if colors.is_striped(ball):
        _disc(surface, centre, r, colors.STRIPE_BASE)
        # The band is the ball's colour clipped to a strip across the middle of the disc.
        band = max(1, int(round(0.55 * r)))
        clip = surface.get_clip()
        surface.set_clip(surface.get_rect().clip((cx - r - 1, cy - band, 2 * r + 3, 2 * band + 1)))
        _disc(surface, centre, r, colors.ball_color(ball))
        surface.set_clip(clip)
    else:
        _disc(surface, centre, r, colors.ball_color(ball))
    pygame.gfxdraw.aacircle(surface, cx, cy, r, colors.BALL_EDGE)
    if labels and ball != 0 and r >= MIN_LABEL_RADIUS_PX:
        disc_r = max(2, int(round(0.55 * r)))
        _disc(surface, centre, disc_r, colors.LABEL_DISC)
        text = _font(2 * disc_r + 1).render(str(ball), True, colors.LABEL_TEXT)
        surface.blit(text, text.get_rect(center=(cx, cy + 1)))


def _disc(surface, centre: tuple[int, int], radius: int, color) -> None:
    """A filled circle with an anti-aliased edge."""
    pygame = load_pygame()
    pygame.gfxdraw.filled_circle(surface, centre[0], centre[1], radius, color)
    pygame.gfxdraw.aacircle(surface, centre[0], centre[1], radius, color)


@lru_cache(maxsize=None)
def _font(size_px: int):
    """pygame's built-in font at ``size_px``; the font module starts on first use, once."""
    pygame = load_pygame()
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame.font.Font(None, size_px)
