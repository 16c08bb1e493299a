"""Drawing a table state and a shot's trajectories: pygame RGB frames, a window, matplotlib.

``render_rgb`` draws one picture, ``FramePainter`` many of one size; ``animation`` turns a
shot into frames from its exact trajectories; ``overlay`` writes the status text frames
carry; ``plot_table`` draws the top view with matplotlib and ``plot_heights`` the side view
(each ball's height over time). A ball off the bed is drawn raised over its shadow. pygame
and matplotlib are optional (``pip install "poolgym[render]"``) and imported only when
something is drawn.
"""

from poolgym.render.animation import Motion, Still, heights_at, positions_at, shot_frame_count
from poolgym.render.plot import plot_table
from poolgym.render.rgb import FrameLayout, FramePainter, render_rgb, table_to_pixel
from poolgym.render.side_view import plot_heights
from poolgym.render.window import HumanWindow

__all__ = ["FrameLayout", "FramePainter", "HumanWindow", "Motion", "Still", "heights_at", "plot_heights",
           "plot_table", "positions_at", "render_rgb", "shot_frame_count", "table_to_pixel"]
