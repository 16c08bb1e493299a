"""Drawing a table state and a shot's trajectories: pygame RGB frames, a window, matplotlib.

pygame and matplotlib are optional (``pip install "poolgym[render]"``) and imported only
when something is drawn.
"""

from poolgym.render.plot import plot_table
from poolgym.render.rgb import render_rgb, table_to_pixel
from poolgym.render.window import HumanWindow

__all__ = ["HumanWindow", "plot_table", "render_rgb", "table_to_pixel"]
