"""The table state and a shot's trajectories drawn with matplotlib, for notebooks and reports.

Same orientation as ``render_rgb``: x left to right, y downwards (the y axis is inverted).
A ball off the bed is drawn over its shadow, raised and enlarged by its height
(``geometry.lifted``), and paths are dashed where the ball was off the bed.
"""

from __future__ import annotations

from collections.abc import Mapping

from poolgym.render import colors
from poolgym.render.geometry import (CUSHION_WIDTH, diamonds, lifted, outer_margin, outline,
                                     trajectory_items)
from poolgym.table import Point, Table

# Layers from the rail up, so balls sit on top of their own paths; each raised ball's
# layers are lifted above those of every ball below it.
_Z_TABLE, _Z_PATH, _Z_BALL, _Z_LABEL = 1, 2, 3, 4
# How dark a raised ball's shadow is (matplotlib alpha).
SHADOW_ALPHA = 0.45


def plot_table(table: Table, positions: Mapping[int, Point], *, result=None, ax=None,
               title: str | None = None, heights: Mapping[int, float] | None = None):
    """Draw ``table`` with the balls at ``positions`` and return the matplotlib Axes.

    ``result`` (a ``ShotResult`` simulated with ``trajectories=True``) adds every ball's path
    in its colour, with a faint ring at its start, dashed where the ball was off the bed (in
    the air, on a rail top), and a cross where a ball left the table (``result.off_table``;
    its path ends there). ``heights`` (ball -> height of its lowest point above the bed, as
    ``heights_at`` gives; missing balls are on the bed) draws a ball above the bed raised and
    enlarged over its shadow at its (x, y). ``ax`` is drawn into if given, else a new figure
    is made. Each ball's disc is a patch with ``gid`` ``"ball <n>"``, a shadow ``"shadow
    <n>"``, a path piece a line with ``gid`` ``"path <n>"``.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Polygon, Rectangle

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 10 * (table.width + 2 * outer_margin())
                                      / (table.length + 2 * outer_margin())))
    L, W, r = table.length, table.width, table.ball_radius
    m, c = outer_margin(), CUSHION_WIDTH
    for inset, color in ((m, colors.RAIL), (c, colors.CUSHION)):
        ax.add_patch(Rectangle((-inset, -inset), L + 2 * inset, W + 2 * inset, color=colors.to_unit(color),
                               zorder=_Z_TABLE))
    ax.add_patch(Polygon(outline(table), closed=True, color=colors.to_unit(colors.CLOTH), zorder=_Z_TABLE))
    for pocket in table.pockets:
        ax.add_patch(Circle(pocket.hole_centre, pocket.hole_radius, color=colors.to_unit(colors.HOLE),
                            zorder=_Z_TABLE))
    for x, y in diamonds(table):
        ax.add_patch(Circle((x, y), 0.008, color=colors.to_unit(colors.DIAMOND), zorder=_Z_TABLE))
    ax.plot([table.head_string_x] * 2, [0.0, W], color=colors.to_unit(colors.HEAD_STRING),
            linewidth=0.8, zorder=_Z_TABLE)

    trajectories = result.trajectories if result is not None else None
    for ball, pieces in trajectory_items(trajectories):
        color = colors.to_unit(colors.ball_color(ball))
        for xy, off_bed in pieces:
            line, = ax.plot(xy[:, 0], xy[:, 1], color=color, linewidth=1.2, zorder=_Z_PATH,
                            linestyle="--" if off_bed else "-")
            line.set_gid(f"path {ball}")
        ax.add_patch(Circle(tuple(pieces[0][0][0]), r, fill=False, edgecolor=color, linewidth=0.6, alpha=0.7,
                            zorder=_Z_PATH))
    for ball, (x, y) in (result.off_table if result is not None else {}).items():
        ax.plot([x], [y], marker="x", markersize=8, color=colors.to_unit(colors.ball_color(ball)),
                markeredgewidth=2, zorder=_Z_PATH, gid=f"off table {ball}")

    heights = heights or {}
    raised = sorted((b for b in positions if heights.get(b, 0.0) > 0.0), key=lambda b: heights[b])
    for ball, (x, y) in positions.items():
        if ball not in raised:
            _ball(ax, int(ball), (x, y), r)
    for rank, ball in enumerate(raised, start=1):  # the highest on top: it is nearest the eye
        ax.add_patch(Circle(positions[ball], r, color=colors.to_unit(colors.SHADOW), alpha=SHADOW_ALPHA,
                            linewidth=0, zorder=_Z_PATH, gid=f"shadow {ball}"))
        centre, scale = lifted(positions[ball], heights[ball])
        _ball(ax, int(ball), centre, r * scale, lift=rank * _Z_LABEL)

    ax.set_xlim(-m, L + m)
    ax.set_ylim(W + m, -m)  # y downwards, as in the RGB picture
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    if title is not None:
        ax.set_title(title)
    return ax


def _ball(ax, ball: int, centre: Point, r: float, lift: float = 0.0) -> None:
    """A ball's disc, band and number; ``lift`` raises its layers (a ball off the bed)."""
    from matplotlib.patches import Circle, Rectangle

    edge = colors.to_unit(colors.BALL_EDGE)
    color = colors.to_unit(colors.ball_color(ball))
    face = colors.to_unit(colors.STRIPE_BASE) if colors.is_striped(ball) else color
    disc = Circle(centre, r, facecolor=face, edgecolor=edge, linewidth=0.5, zorder=_Z_BALL + lift,
                  gid=f"ball {ball}")
    ax.add_patch(disc)
    if colors.is_striped(ball):
        band = Rectangle((centre[0] - r, centre[1] - 0.55 * r), 2 * r, 1.1 * r, color=color, zorder=_Z_BALL + lift)
        ax.add_patch(band)
        band.set_clip_path(disc)
    if ball != 0:
        ax.add_patch(Circle(centre, 0.55 * r, color=colors.to_unit(colors.LABEL_DISC), zorder=_Z_LABEL + lift))
        ax.text(centre[0], centre[1], str(ball), ha="center", va="center", fontsize=5,
                zorder=_Z_LABEL + lift)
