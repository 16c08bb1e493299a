"""An on-screen window for Gymnasium's ``render_mode="human"``."""

from __future__ import annotations

import numpy as np

from poolgym.render._pygame import load_pygame


class HumanWindow:
    """A pygame window showing RGB frames; it opens on the first ``show``.

    ``fps`` paces the frames by the clock (an environment's ``metadata["render_fps"]``):
    each ``show`` waits until ``1 / fps`` seconds have passed since the previous one, so an
    animation plays in real time; ``None`` shows every frame at once. ``frames_shown``
    counts the frames shown. Headless machines can run it with the environment variable
    ``SDL_VIDEODRIVER=dummy``.

    Closing the window (its close button, a QUIT event) closes it at once: ``show`` then
    returns False and draws nothing, and ``closed_by_user`` is True, until ``reopen()``
    lets the next ``show`` open a new window. Signals are left to Python (SIGTERM ends the
    process, Ctrl-C raises ``KeyboardInterrupt``; ``poolgym.render._pygame``).
    """

    def __init__(self, title: str = "poolgym", fps: float | None = None):
        self.title = title
        self.fps = fps
        self.frames_shown = 0
        self.closed_by_user = False
        self._screen = None
        self._clock = None

    @property
    def is_open(self) -> bool:
        return self._screen is not None

    def show(self, frame: np.ndarray) -> bool:
        """Display ``frame``, an (H, W, 3) uint8 array such as ``render_rgb`` returns; False
        (nothing drawn) once the window has been closed by its user."""
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"a frame is an (H, W, 3) uint8 array, got {frame.shape} {frame.dtype}")
        if self.closed_by_user:
            return False
        pygame = load_pygame()
        if self._screen is not None and self._quit_asked(pygame):
            return False
        size = (frame.shape[1], frame.shape[0])
        if self._screen is None or self._screen.get_size() != size:
            if not pygame.display.get_init():
                pygame.display.init()
            self._screen = pygame.display.set_mode(size)
            pygame.display.set_caption(self.title)
            self._clock = pygame.time.Clock()
        pygame.surfarray.blit_array(self._screen, frame.transpose(1, 0, 2))
        pygame.display.flip()
        self.frames_shown += 1
        if self.fps:
            self._clock.tick(self.fps)
        return not self._quit_asked(pygame)

    def _quit_asked(self, pygame) -> bool:
        """Handle the event queue (which keeps the operating system from marking the window
        hung); on a QUIT, close the window and say so."""
        if not any(event.type == pygame.QUIT for event in pygame.event.get()):
            return False
        self.close()
        self.closed_by_user = True
        return True

    def reopen(self) -> None:
        """Let the next ``show`` open a new window after its user closed this one."""
        self.closed_by_user = False

    def close(self) -> None:
        """Close the window; a later ``show`` opens a new one. Safe to call more than once."""
        if self._screen is not None:
            load_pygame().display.quit()
            self._screen = None
            self._clock = None
