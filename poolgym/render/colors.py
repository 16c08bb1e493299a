"""Colours of the balls, the cloth and the rails, as 8-bit RGB triples.

Balls follow the usual pool set: 1 yellow, 2 blue, 3 red, 4 purple, 5 orange, 6 green,
7 maroon, 8 black; 9 to 15 are white balls striped in the colour of (number - 8).
"""

from __future__ import annotations

RGB = tuple[int, int, int]

CLOTH: RGB = (36, 124, 74)
CUSHION: RGB = (24, 96, 56)
RAIL: RGB = (104, 58, 30)
DIAMOND: RGB = (236, 226, 198)
HOLE: RGB = (12, 12, 12)
HEAD_STRING: RGB = (86, 160, 116)  # the cloth lightened: visible but faint
SPOT: RGB = (200, 220, 205)
BALL_EDGE: RGB = (20, 20, 20)
LABEL_DISC: RGB = (250, 250, 244)
LABEL_TEXT: RGB = (0, 0, 0)
HIGHLIGHT: RGB = (90, 230, 255)  # cyan: unlike any ball colour
IN_HAND_RING: RGB = (255, 255, 255)
SHADOW: RGB = (0, 0, 0)  # under a ball off the bed, drawn see-through
BACKGROUND: RGB = (16, 16, 16)  # around a table scaled to fit a picture of another shape
STATUS_BAR: RGB = (16, 16, 16)
STATUS_TEXT: RGB = (236, 236, 236)
CUE_BALL: RGB = (246, 244, 232)
STRIPE_BASE: RGB = (246, 244, 232)

SOLIDS: dict[int, RGB] = {
    1: (250, 196, 0),
    2: (24, 60, 190),
    3: (214, 32, 32),
    4: (104, 44, 150),
    5: (250, 116, 10),
    6: (0, 82, 40),
    7: (128, 20, 34),
    8: (16, 16, 16),
}


def ball_color(ball: int) -> RGB:
    """The main colour of ``ball``: the cue ball's white, a solid's colour or a stripe's band."""
    if ball == 0:
        return CUE_BALL
    if 1 <= ball <= 8:
        return SOLIDS[ball]
    if 9 <= ball <= 15:
        return SOLIDS[ball - 8]
    raise ValueError(f"ball numbers run from 0 (cue ball) to 15, got {ball!r}")


def is_striped(ball: int) -> bool:
    """Whether ``ball`` is drawn as a white ball with a coloured band (9 to 15)."""
    return 9 <= ball <= 15


def to_unit(color: RGB) -> tuple[float, float, float]:
    """``color`` as the 0-1 floats matplotlib takes."""
    return (color[0] / 255.0, color[1] / 255.0, color[2] / 255.0)
