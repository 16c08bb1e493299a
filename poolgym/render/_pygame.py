"""The lazy pygame import shared by the renderers: pygame stays an optional dependency."""

from __future__ import annotations

import os


def load_pygame():
    """Import pygame (with ``pygame.gfxdraw``) without its start-up banner, which would
    clutter every training log."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
        import pygame.gfxdraw  # noqa: F401  (anti-aliased shapes; not imported by pygame itself)
    except ImportError as exc:
        raise ImportError('drawing needs pygame: pip install "poolgym[render]"') from exc
    return pygame
