"""The lazy pygame import shared by the renderers: pygame stays an optional dependency."""

from __future__ import annotations

import os


def load_pygame():
    """Import pygame (with ``pygame.gfxdraw``) without its start-up banner, which would
    clutter every training log, and with signals left to Python."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # SDL otherwise turns SIGTERM (and SIGINT where Python leaves it at the default) into a
    # QUIT event in its queue when a window opens: the signal would no longer end the
    # process, and nobody may be reading the queue. Set before SDL is initialised.
    os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")
    try:
        import pygame
        import pygame.gfxdraw  # noqa: F401  (anti-aliased shapes; not imported by pygame itself)
    except ImportError as exc:
        raise ImportError('drawing needs pygame: pip install "poolgym[render]"') from exc
    return pygame
