"""``render()`` and ``close()`` shared by the environments (pygame is imported lazily)."""

from __future__ import annotations

import gymnasium as gym

RENDER_MODES = ("rgb_array", "human")


def check_render_mode(render_mode: str | None) -> None:
    if render_mode not in (None, *RENDER_MODES):
        raise ValueError(f"render_mode must be one of {list(RENDER_MODES)} or None, got {render_mode!r}")


class RenderMixin:
    """Draws ``_render_scene()`` (table, positions, last shot's paths, highlighted ball) as an
    RGB array or in a pygame window, per ``render_mode``."""

    render_mode: str | None
    _window = None

    def _render_scene(self):
        raise NotImplementedError

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: pass render_mode='rgb_array' or 'human'")
            return None
        from poolgym.render import HumanWindow, render_rgb

        table, positions, paths, highlight = self._render_scene()
        frame = render_rgb(table, positions, trajectories=paths, highlight=highlight)
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            self._window = HumanWindow(title="poolgym")
        self._window.show(frame)
        return None

    def close(self):
        if self._window is not None:
            self._window.close()
            self._window = None
