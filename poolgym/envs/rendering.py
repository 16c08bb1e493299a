"""Rendering shared by the environments, in Gymnasium's conventions (pygame is imported lazily).

- ``render_mode="rgb_array"``: ``render()`` returns one frame of the table as it is now,
  with the last shot's paths drawn on it.
- ``render_mode="rgb_array_list"``: ``render()`` returns every frame since the last
  ``render()`` or ``reset()``: the table after the reset, then each shot played since (the
  agent's and the opponent's) as it rolls, frame by frame from the simulator's exact
  trajectories at ``metadata["render_fps"]``, each ending on a frame at rest with the shot's
  verdict. Frames are drawn when ``render()`` asks for them, so an episode nobody renders
  costs no drawing.

Videos: ``poolgym.envs.RecordEveryFrame`` (Gymnasium's ``RecordVideo``, same arguments)
records whole shots from an ``rgb_array`` or ``rgb_array_list`` env, frame by frame,
streaming each frame to the file (``shot_frames``), so memory stays bounded over a rack.
- ``render_mode="human"``: ``reset()`` and ``step()`` draw the same frames in a pygame window
  as they happen, paced by the clock at ``metadata["render_fps"]`` (real time); ``render()``
  shows the table as it is. ``SDL_VIDEODRIVER=dummy`` runs it with no display. Closing the
  window stops the drawing at once, for the rest of the episode (the next ``reset`` opens a
  new window); SIGTERM and Ctrl-C act as without a window.

Every frame has a status bar of two lines below the table (``poolgym.render.overlay``:
who acts, the score, fouls in a row, a cue ball in hand, the last verdict); a cue ball in
hand is drawn see-through at a free spot in the kitchen. ``width`` and ``height`` size the
frames (``poolgym.render.rgb.FrameLayout``: the height defaults to the table's proportions
plus the bar), ``render_fps`` sets the frame rate.
"""

from __future__ import annotations

from numbers import Integral

import gymnasium as gym

RENDER_MODES = ("rgb_array", "rgb_array_list", "human")
# Modes that keep the frames of each move until they are drawn.
_ANIMATED = ("rgb_array_list", "human")
# Frame sizes in pixels, as MuJoCo's environments name them (``width``, ``height``).
DEFAULT_WIDTH = 800
DEFAULT_RENDER_FPS = 30
WIDTH_RANGE = (160, 3840)
HEIGHT_RANGE = (120, 2160)
RENDER_FPS_RANGE = (1, 240)
# The status bar's lines: who acts and the score; the last verdict.
STATUS_ROWS = 2


def check_render_mode(render_mode: str | None) -> None:
    if render_mode not in (None, *RENDER_MODES):
        raise ValueError(f"render_mode must be one of {list(RENDER_MODES)} or None, got {render_mode!r}")


def _whole_number(value, name: str, bounds: tuple[int, int], optional: bool = False) -> int | None:
    if optional and value is None:
        return None
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, Integral) or not low <= value <= high:
        none = "None or " if optional else ""
        raise ValueError(f"{name} must be {none}a whole number from {low} to {high}, got {value!r}")
    return int(value)


class RenderMixin:
    """``render()`` and ``close()`` for the environments (see the module docstring).

    An environment calls ``_init_render`` in its constructor, ``_render_restart(still)``
    in ``reset`` with the table as the episode starts, ``_render_add(scene)`` for each
    move played (a ``poolgym.render.animation.Motion`` or ``Still``) and
    ``_render_human()`` at the end of ``reset`` and ``step``; it defines
    ``_render_scene()``, the table as it is now as a ``Still``.
    """

    render_mode: str | None
    metadata: dict
    _window = None
    _painter = None
    _scenes: list
    # In "rgb_array" mode, whether each move's scenes are kept for ``shot_frames``.
    _recording_shots = False

    def _init_render(self, render_mode: str | None, width: int, height: int | None, render_fps: int) -> None:
        check_render_mode(render_mode)
        self.width = _whole_number(width, "width", WIDTH_RANGE)
        self.height = _whole_number(height, "height", HEIGHT_RANGE, optional=True)
        fps = _whole_number(render_fps, "render_fps", RENDER_FPS_RANGE)
        self.render_mode = render_mode
        # Per instance: the frame rate the animation is sampled at and RecordVideo plays it at.
        self.metadata = {**type(self).metadata, "render_fps": fps}
        self._scenes = []

    def _render_scene(self):
        raise NotImplementedError

    def _render_restart(self, still) -> None:
        """Start the frames of a new episode with ``still``, the table as it starts (in
        human mode a window its user closed opens again)."""
        self._scenes = []
        if self._window is not None:
            self._window.reopen()
        self._render_add(still)

    def _render_add(self, scene) -> None:
        """Keep ``scene`` to be drawn, in the modes that draw every move (and in "rgb_array"
        mode while ``record_shots`` is on)."""
        if self.render_mode in _ANIMATED or (self._recording_shots and self.render_mode == "rgb_array"):
            self._scenes.append(scene)

    def record_shots(self, on: bool = True) -> None:
        """In "rgb_array" mode, keep every move's frames for ``shot_frames`` (what
        ``RecordEveryFrame`` turns on), or stop keeping them; ``render()`` is unchanged."""
        if not isinstance(on, bool):
            raise ValueError(f"record_shots takes True or False, got {on!r}")
        self._recording_shots = on
        if not on:
            self._scenes = []

    def shot_frames(self):
        """The frames since the last ``shot_frames()``, ``render()`` or ``reset()``, one at a
        time as they are drawn (an iterator: a caller that writes each one keeps one frame
        in memory): the table after a reset, then every shot as it rolls. In
        "rgb_array_list" mode the frames ``render()`` would return; in "rgb_array" mode
        those kept while ``record_shots`` is on; none otherwise."""
        scenes, self._scenes = self._scenes, []
        if not scenes or self.render_mode not in ("rgb_array", "rgb_array_list"):
            return
        painter, fps = self._frame_painter(), self.metadata["render_fps"]
        for scene in scenes:
            yield from scene.frames(painter, fps)

    def _render_human(self) -> None:
        """In human mode, draw what happened since the last draw (Gymnasium renders human
        mode inside ``reset`` and ``step``)."""
        if self.render_mode == "human":
            self.render()

    def render_status(self) -> tuple[str, ...]:
        """The status lines a frame of the table as it is now carries (who acts, the score,
        fouls in a row, a cue ball in hand; the last verdict): what ``render()`` writes
        in the bar below the table in "rgb_array" mode."""
        return tuple(self._render_scene().status)

    def _frame_painter(self):
        from poolgym.render.rgb import FramePainter

        if self._painter is None:
            self._painter = FramePainter(self.table, self.width, self.height, STATUS_ROWS)
        return self._painter

    def render(self):
        """The frames of ``render_mode`` (see the module docstring): one (H, W, 3) uint8
        array, a list of them, or None in human mode."""
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: pass render_mode='rgb_array', "
                            "'rgb_array_list' or 'human'")
            return None
        painter, fps = self._frame_painter(), self.metadata["render_fps"]
        if self.render_mode == "rgb_array":
            return next(self._render_scene().frames(painter, fps))
        scenes, self._scenes = self._scenes, []
        if self.render_mode == "rgb_array_list":
            return [frame for scene in scenes for frame in scene.frames(painter, fps)]
        from poolgym.render import HumanWindow

        if self._window is None:
            self._window = HumanWindow(title="poolgym", fps=fps)
        if self._window.closed_by_user:
            return None  # no frame is drawn until the next reset
        for scene in scenes or [self._render_scene()]:
            for frame in scene.frames(painter, fps):
                if not self._window.show(frame):
                    return None  # the window was closed: no drawing until the next reset
        return None

    def close(self):
        if self._window is not None:
            self._window.close()
            self._window = None
