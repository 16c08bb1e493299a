"""A shot seen from the side: each ball's height above the bed over time, with matplotlib.

The top view (``plot_table``) shows where a jumped ball flew; this shows how high: the
height of the ball's lowest point above the bed (``MotionPhase.height_at``), a parabola in
the air, the cushion height along a rail top, 0 on the bed.
"""

from __future__ import annotations

from collections.abc import Iterable

from poolgym import events as ev
from poolgym.render import colors
from poolgym.render.geometry import PATH_DT, off_bed
from poolgym.table import Table


def plot_heights(result, balls: Iterable[int] | None = None, *, ax=None, table: Table | None = None,
                 dt: float = PATH_DT):
    """Plot each ball's height above the bed against time and return the matplotlib Axes.

    ``result`` is a ``ShotResult`` simulated with ``trajectories=True``. ``balls`` are the
    balls to plot (default: every ball that leaves the bed in the shot, or the cue ball if
    none does). Each ball's line, in its colour, runs through its motion phases sampled every
    ``dt`` seconds and at every phase change (``ShotResult.sample_path``), up to where it
    ends: at rest, pocketed, or gone off the table, which a cross marks. A dotted line shows
    ``table``'s cushion height (default: a standard table's), the rail top a ball can land
    on. ``ax`` is drawn into if given, else a new figure is made. The lines have ``gid``
    ``"height <n>"``, ``"cushion height"`` and ``"off table <n>"``.
    """
    import matplotlib.pyplot as plt

    if result.trajectories is None:
        raise ValueError("this result has no trajectories: simulate(..., trajectories=True)")
    if balls is None:
        balls = [b for b, phases in result.trajectories.items() if any(off_bed(p) for p in phases)]
        if not balls and 0 in result.trajectories:
            balls = [0]
    balls = [int(b) for b in balls]
    missing = sorted(set(balls) - set(result.trajectories))
    if missing:
        raise ValueError(f"balls {missing} were not in this shot; balls are {sorted(result.trajectories)}")
    table = table if table is not None else Table()
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3))
    left = {e.ball: e for e in result.events if isinstance(e, ev.OffTable)}
    for ball in balls:
        color = colors.to_unit(colors.ball_color(ball))
        if ball == 0:  # white would not show on the white axes
            color = colors.to_unit(colors.BALL_EDGE)
        rows = result.sample_path(ball, dt, height=True)
        ax.plot(rows[:, 0], rows[:, 3], color=color, linewidth=1.5, gid=f"height {ball}",
                label="cue ball" if ball == 0 else f"ball {ball}")
        if ball in left:
            ax.plot([left[ball].time], [left[ball].height], marker="x", markersize=9, markeredgewidth=2,
                    color=color, linestyle="none", gid=f"off table {ball}")
    ax.axhline(table.cushion_height, color=colors.to_unit(colors.CUSHION), linestyle=":", linewidth=1.2,
               gid="cushion height", label="cushion height (rail top)")
    ax.set_xlim(0.0, max(result.duration, 1e-3))
    ax.set_xlabel("time after the strike (s)")
    ax.set_ylabel("height above the bed (m)")
    ax.legend(loc="best", fontsize=8)
    return ax
