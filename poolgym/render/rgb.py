"""Off-screen top-down pictures of a table as RGB arrays, drawn with pygame.

Orientation (see ``geometry``): table x runs left to right, table y downwards, so the
head end is on the left and the y = 0 rail at the top. A picture may carry a status bar
below the table: lines of text such as ``overlay.status_lines`` writes. A ball off the bed
is drawn over its shadow, raised and enlarged by its height (``geometry.lifted``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from numbers import Integral

import numpy as np

from poolgym.render import colors
from poolgym.render._pygame import load_pygame
from poolgym.render.geometry import (CUSHION_WIDTH, diamonds, dashes, lifted, outer_margin, outline,
                                     trajectory_items)
from poolgym.table import Point, Table

# Numbers are never drawn smaller than this font size (pixels; pygame's font draws digits
# half as tall): smaller digits lose their shapes, "13" turns into "18".
MIN_LABEL_FONT_PX = 12
# Below this font size numbers are drawn without anti-aliasing: grey edges would leave a
# digit a few pixels tall without a single dark pixel.
SMOOTH_LABEL_FONT_PX = 16
# The smallest picture ``render_rgb`` draws.
MIN_WIDTH_PX = 50
# Status text: its font size follows the picture's width within these bounds.
MIN_STATUS_FONT_PX = 11
MAX_STATUS_FONT_PX = 22
# How opaque the cue ball in hand is drawn (0-255): seen, but clearly not on the table.
IN_HAND_ALPHA = 110
# How opaque a raised ball's shadow is on the bed (0-255).
SHADOW_ALPHA = 120
# Dashes of a path through the air: on and off lengths, in ball radii.
DASH_ON, DASH_OFF = 1.5, 1.0


def status_font_px(width_px: int) -> int:
    """The status bar's font size in a picture ``width_px`` wide."""
    return int(min(MAX_STATUS_FONT_PX, max(MIN_STATUS_FONT_PX, round(width_px / 36))))


def status_bar_px(width_px: int, rows: int) -> int:
    """The height of a status bar of ``rows`` lines of text in a picture ``width_px`` wide."""
    if rows <= 0:
        return 0
    font = status_font_px(width_px)
    return rows * (font + 2) + 6


class FrameLayout:
    """Where things go in a picture: the map from table metres to pixels, and the status bar.

    The table (with its rails) fills the picture's width at the top; ``height_px`` (default:
    the table's own proportion plus the status bar) fixes the picture's height too, and then
    the table is scaled to fit what is left above the bar and centred in it. The bar of
    ``status_rows`` lines of text lies along the bottom.
    """

    def __init__(self, table: Table, width_px: int, height_px: int | None = None, status_rows: int = 0):
        _check_size(width_px, height_px)
        margin = outer_margin()
        self.margin = margin
        full_w, full_h = table.length + 2.0 * margin, table.width + 2.0 * margin
        self.bar = status_bar_px(int(width_px), status_rows)
        self.status_rows = status_rows
        scale = width_px / full_w
        self.offset = (0.0, 0.0)
        if height_px is None:
            height_px = int(round(full_h * scale)) + self.bar
        else:
            room = height_px - self.bar
            if room < 10:
                raise ValueError(f"height_px must leave room for the table above a status bar of "
                                 f"{self.bar} pixels, got {height_px!r}")
            scale = min(scale, room / full_h)
            self.offset = ((width_px - full_w * scale) / 2.0, (room - full_h * scale) / 2.0)
        self.scale = scale
        self.size = (int(width_px), int(height_px))

    def px(self, point: Point) -> tuple[int, int]:
        """The (column, row) of the pixel that shows table point ``point``."""
        return (int((point[0] + self.margin) * self.scale + self.offset[0]),
                int((point[1] + self.margin) * self.scale + self.offset[1]))

    def length(self, metres: float) -> int:
        """``metres`` in pixels, at least one."""
        return max(1, int(round(metres * self.scale)))


def _check_size(width_px, height_px) -> None:
    if isinstance(width_px, bool) or not isinstance(width_px, Integral) or width_px < MIN_WIDTH_PX:
        raise ValueError(f"width_px must be a whole number of pixels, at least {MIN_WIDTH_PX}, got {width_px!r}")
    if height_px is not None and (isinstance(height_px, bool) or not isinstance(height_px, Integral)
                                  or height_px < MIN_WIDTH_PX):
        raise ValueError(f"height_px must be None or a whole number of pixels, at least {MIN_WIDTH_PX}, "
                         f"got {height_px!r}")


def table_to_pixel(table: Table, point: Point, width_px: int = 800, height_px: int | None = None,
                   status_rows: int = 0) -> tuple[int, int]:
    """The (column, row) of the pixel that shows table point ``point`` in ``render_rgb``'s
    picture of the same size (``width_px``, ``height_px``, ``status_rows``)."""
    return FrameLayout(table, width_px, height_px, status_rows).px(point)


def render_rgb(table: Table, positions: Mapping[int, Point], *, trajectories: Mapping | None = None,
               highlight: int | Iterable[int] | None = None, width_px: int = 800,
               height_px: int | None = None, labels: bool = True, status: Sequence[str] = (),
               in_hand: Point | None = None, heights: Mapping[int, float] | None = None) -> np.ndarray:
    """A top-down picture of ``table`` with the balls at ``positions``, as (H, W, 3) uint8.

    - ``trajectories``: ball -> path, either rows of (t, x, y) or (t, x, y, z) or the ball's
      motion phases (``ShotResult.trajectories``); each path is drawn in the ball's colour,
      with a faint ring where it started, dashed where the ball was off the bed.
    - ``highlight``: a ball or balls to ring, e.g. the ball the agent is aiming at.
    - ``width_px``: the picture's width; ``height_px``: its height (default: the table's
      proportions plus the status bar). See ``FrameLayout``.
    - ``labels``: draw the numbers on the object balls.
    - ``status``: lines of text for a bar along the bottom (``overlay.status_lines``).
    - ``in_hand``: where to show the cue ball while it is in hand: drawn see-through with
      a dashed ring, as it is not on the table.
    - ``heights``: ball -> the height of its lowest point above the bed (``heights_at``;
      missing balls are on the bed): a ball above the bed is drawn raised and enlarged
      over its shadow at its (x, y), above the balls on the bed.
    """
    return FramePainter(table, width_px, height_px, len(status)).paint(
        positions, trajectories=trajectories, highlight=highlight, labels=labels, status=status,
        in_hand=in_hand, heights=heights)


class FramePainter:
    """Draws many pictures of one table at one size: the empty table is drawn once and
    copied for each picture (an animation's frames differ only in the balls)."""

    def __init__(self, table: Table, width_px: int = 800, height_px: int | None = None, status_rows: int = 0):
        self.table = table
        self.layout = FrameLayout(table, width_px, height_px, status_rows)
        self._background = None

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the pictures, in pixels."""
        return self.layout.size

    def paint(self, positions: Mapping[int, Point], *, trajectories: Mapping | None = None,
              highlight: int | Iterable[int] | None = None, labels: bool = True,
              status: Sequence[str] = (), in_hand: Point | None = None,
              heights: Mapping[int, float] | None = None) -> np.ndarray:
        """One picture, as ``render_rgb`` describes; ``status`` has at most the painter's
        ``status_rows`` lines."""
        if len(status) > self.layout.status_rows:
            raise ValueError(f"status has {len(status)} lines; this painter's bar holds "
                             f"{self.layout.status_rows}")
        pygame = load_pygame()
        if self._background is None:
            self._background = pygame.Surface(self.layout.size)
            _draw_table(self._background, self.layout, self.table)
        surface = self._background.copy()
        view, table = self.layout, self.table
        _draw_paths(surface, view, table, trajectories)
        marked = {int(highlight)} if isinstance(highlight, Integral) else {int(b) for b in highlight or ()}
        heights = heights or {}
        raised = sorted((b for b in positions if heights.get(b, 0.0) > 0.0), key=lambda b: heights[b])
        for ball in raised:
            _draw_shadow(surface, view, table, positions[ball], labels)
        for ball, point in positions.items():
            if ball not in raised:
                _draw_ball(surface, view, table, int(ball), point, labels, ball in marked)
        for ball in raised:  # the highest last: it is nearest the eye
            _draw_ball(surface, view, table, int(ball), positions[ball], labels, ball in marked, heights[ball])
        if in_hand is not None:
            _draw_in_hand(surface, view, table, in_hand, labels)
        _draw_status(surface, view, status)
        # surfarray indexes (column, row); images are (row, column).
        return np.ascontiguousarray(pygame.surfarray.array3d(surface).transpose(1, 0, 2))


def _draw_table(surface, view: FrameLayout, table: Table) -> None:
    pygame = load_pygame()
    L, W = table.length, table.width
    surface.fill(colors.BACKGROUND)
    rail_tl, rail_br = view.px((-view.margin, -view.margin)), view.px((L + view.margin, W + view.margin))
    pygame.draw.rect(surface, colors.RAIL, pygame.Rect(rail_tl, (rail_br[0] - rail_tl[0] + 1,
                                                                 rail_br[1] - rail_tl[1] + 1)))
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


def _draw_paths(surface, view: FrameLayout, table: Table, trajectories: Mapping | None) -> None:
    pygame = load_pygame()
    width = max(1, view.length(table.ball_radius) // 4)
    dash = (DASH_ON * table.ball_radius, DASH_OFF * table.ball_radius)
    for ball, pieces in trajectory_items(trajectories):
        color = colors.ball_color(ball)
        x0, y0 = view.px(pieces[0][0][0])
        pygame.gfxdraw.aacircle(surface, x0, y0, view.length(table.ball_radius), color)
        for xy, off_bed in pieces:
            for line in (dashes(xy, *dash) if off_bed else [xy]):
                pygame.draw.lines(surface, color, False, [view.px(p) for p in line], width)


def _draw_ball(surface, view: FrameLayout, table: Table, ball: int, point: Point, labels: bool,
               highlighted: bool, height: float = 0.0) -> None:
    """``ball`` with its lowest point ``height`` above the bed at ``point``."""
    pygame = load_pygame()
    drawn, scale = lifted(point, height)
    cx, cy = centre = view.px(drawn)
    # Scaled after the small-picture minimum, so a raised ball grows in any picture.
    true_r = view.length(table.ball_radius * scale)
    r = int(round(ball_radius_px(view.length(table.ball_radius), labels) * scale))
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
    if labels and ball != 0:
        _draw_label(surface, centre, r, label_font_px(true_r), str(ball))


def _draw_shadow(surface, view: FrameLayout, table: Table, point: Point, labels: bool) -> None:
    """The shadow on the bed of a ball above ``point``: a dark see-through disc the size the
    ball is drawn at on the bed."""
    pygame = load_pygame()
    cx, cy = view.px(point)
    r = ball_radius_px(view.length(table.ball_radius), labels)
    pygame.gfxdraw.filled_circle(surface, cx, cy, r, (*colors.SHADOW, SHADOW_ALPHA))


def label_font_px(radius_px: int) -> int:
    """The font size of the numbers on balls ``radius_px`` pixels in radius: growing with
    the ball, never under ``MIN_LABEL_FONT_PX``."""
    return max(MIN_LABEL_FONT_PX, int(round(1.6 * radius_px)))


@lru_cache(maxsize=None)
def _label(text: str, font_px: int):
    """The number's text surface, its ink box, and the half-axes of the white ellipse that
    holds the ink (a circle for one digit)."""
    surface = _font(font_px).render(text, font_px >= SMOOTH_LABEL_FONT_PX, colors.LABEL_TEXT)
    ink = surface.get_bounding_rect()
    if len(text) == 1:  # round, not up: a digit's ink rarely reaches its box's corners
        rx = ry = int(round(math.hypot(ink.width, ink.height) / 2.0))
    else:  # the ellipse through the ink box's corners with the box's proportions
        rx, ry = math.ceil(ink.width / math.sqrt(2.0)), math.ceil(ink.height / math.sqrt(2.0))
    return surface, ink, rx, ry


def ball_radius_px(true_radius_px: int, labels: bool) -> int:
    """The radius balls are drawn at: to scale, except in pictures so small that a
    two-digit number would not fit on a ball with a ring of its colour around it; then
    every ball is drawn just large enough for that."""
    if not labels:
        return true_radius_px
    _, _, rx, ry = _label("13", label_font_px(true_radius_px))
    return max(true_radius_px, rx + 2, ry + 2)


def _draw_label(surface, centre: tuple[int, int], r: int, font_px: int, text: str) -> None:
    """The number on a white disc (an ellipse for two digits) on a ball ``r`` pixels in radius."""
    pygame = load_pygame()
    text_surface, ink, rx, ry = _label(text, font_px)
    rx, ry = max(rx, int(round(0.55 * r))), max(ry, int(round(0.55 * r)))
    pygame.gfxdraw.filled_ellipse(surface, centre[0], centre[1], rx, ry, colors.LABEL_DISC)
    pygame.gfxdraw.aaellipse(surface, centre[0], centre[1], rx, ry, colors.LABEL_DISC)
    # Centre the ink (not the font's line box, which has room for descenders below).
    surface.blit(text_surface, (centre[0] - ink.x - ink.width // 2, centre[1] - ink.y - ink.height // 2))


def _draw_in_hand(surface, view: FrameLayout, table: Table, point: Point, labels: bool) -> None:
    pygame = load_pygame()
    cx, cy = view.px(point)
    r = ball_radius_px(view.length(table.ball_radius), labels)
    pygame.gfxdraw.filled_circle(surface, cx, cy, r, (*colors.CUE_BALL, IN_HAND_ALPHA))
    # A dashed ring: every other twelfth of the circle.
    for k in range(0, 12, 2):
        a0, a1 = k * math.pi / 6, (k + 1) * math.pi / 6
        pygame.draw.arc(surface, colors.IN_HAND_RING, (cx - r - 2, cy - r - 2, 2 * r + 5, 2 * r + 5),
                        a0, a1, max(1, r // 4))


def _draw_status(surface, view: FrameLayout, status: Sequence[str]) -> None:
    if not view.bar:
        return
    pygame = load_pygame()
    width, height = view.size
    top = height - view.bar
    pygame.draw.rect(surface, colors.STATUS_BAR, pygame.Rect(0, top, width, view.bar))
    size = status_font_px(width)
    for row, line in enumerate(status):
        surface.blit(_status_text(line, size, width - 8), (4, top + 3 + row * (size + 2)))


@lru_cache(maxsize=256)
def _status_text(line: str, size: int, room: int):
    """A line of status text, squeezed into ``room`` pixels if it is longer (rather than cut
    off); kept, since an animation's frames repeat their lines."""
    pygame = load_pygame()
    text = _font(size).render(line, True, colors.STATUS_TEXT)
    if text.get_width() > room:
        text = pygame.transform.smoothscale(text, (room, text.get_height()))
    return text


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
