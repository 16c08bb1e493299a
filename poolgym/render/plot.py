"""The table state and a shot's trajectories drawn with matplotlib, for notebooks and reports.

Same orientation as ``render_rgb``: x left to right, y downwards (the y axis is inverted).
"""

from __future__ import annotations

from collections.abc import Mapping

from poolgym.render import colors
from poolgym.render.geometry import (CUSHION_WIDTH, diamonds, outer_margin, outline,
                                     trajectory_items)
from poolgym.table import Point, Table

# Layers from the rail up, so balls sit on top of their own paths.
_Z_TABLE, _Z_PATH, _Z_BALL, _Z_LABEL = 1, 2, 3, 4


def plot_table(table: Table, positions: Mapping[int, Point], *, result=None, ax=None,
               title: str | None = None):
    """Draw ``table`` with the balls at ``positions`` and return the matplotlib Axes.

    ``result`` (a ``ShotResult`` simulated with ``trajectories=True``) adds every ball's path
    in its colour, with a faint ring at its start. ``ax`` is drawn into if given, else a new
    figure is made. Each ball's disc is a patch with ``gid`` ``"ball <n>"``.
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
    for ball, xy in trajectory_items(trajectories):
        color = colors.to_unit(colors.ball_color(ball))
        ax.plot(xy[:, 0], xy[:, 1], color=color, linewidth=1.2, zorder=_Z_PATH)
        ax.add_patch(Circle(tuple(xy[0]), r, fill=False, edgecolor=color, linewidth=0.6, alpha=0.7,
                            zorder=_Z_PATH))

    for ball, (x, y) in positions.items():
        _ball(ax, int(ball), (x, y), r)

    ax.set_xlim(-m, L + m)
    ax.set_ylim(W + m, -m)  # y downwards, as in the RGB picture
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    if title is not None:
        ax.set_title(title)
    return ax


def _ball(ax, ball: int, centre: Point, r: float) -> None:
    from matplotlib.patches import Circle, Rectangle

    edge = colors.to_unit(colors.BALL_EDGE)
    color = colors.to_unit(colors.ball_color(ball))
    face = colors.to_unit(colors.STRIPE_BASE) if colors.is_striped(ball) else color
    disc = Circle(centre, r, facecolor=face, edgecolor=edge, linewidth=0.5, zorder=_Z_BALL,
                  gid=f"ball {ball}")
    ax.add_patch(disc)
    if colors.is_striped(ball):
        band = Rectangle((centre[0] - r, centre[1] - 0.55 * r), 2 * r, 1.1 * r, color=color, zorder=_Z_BALL)
        ax.add_patch(band)
        band.set_clip_path(disc)
    if ball != 0:
        ax.add_patch(Circle(centre, 0.55 * r, color=colors.to_unit(colors.LABEL_DISC), zorder=_Z_LABEL))
        ax.text(centre[0], centre[1], str(ball), ha="center", va="center", fontsize=5,
                zorder=_Z_LABEL)
