"""Which balls are frozen at the strike, compiled: against which cushions each ball rests,
and which rest against the cue ball (``poolgym.physics.simulator``'s set-up of a layout,
done once per layout and once per shot an env plays)."""

from __future__ import annotations

import numpy as np

from poolgym.physics.hypot import hypot
from poolgym.physics.jit import kernel


@kernel()
def frozen_contacts(xs, ys, cue, segments, marks, open_box, radius, tolerance):
    """For the balls at ``xs``, ``ys`` (the cue ball at index ``cue``): ``frozen`` (ball x
    cushion column: the ball rests against that cushion), whether each rests against any
    cushion, and whether each object ball rests against the cue ball.

    A ball rests against a segment (a row of ``segments``: start x, y, unit direction,
    unit normal towards the table, length) when its centre's foot lies on the segment and
    the centre is within ``radius`` + ``tolerance`` of its line; row s of ``marks`` flags
    the cushion columns that segment marks. A ball strictly inside ``open_box`` (x0, x1,
    y0, y1), shrunk by the tolerance, is far from every cushion. Against the cue ball:
    centres within 2 ``radius`` + ``tolerance``."""
    n, columns = len(xs), marks.shape[1]
    frozen = np.zeros((n, columns), dtype=np.bool_)
    on_cushion = np.zeros(n, dtype=np.bool_)
    on_cue = np.zeros(n, dtype=np.bool_)
    i0, i1, i2, i3 = open_box[0], open_box[1], open_box[2], open_box[3]
    cx, cy = xs[cue], ys[cue]
    for k in range(n):
        x, y = xs[k], ys[k]
        if not (i0 + tolerance < x < i1 - tolerance and i2 + tolerance < y < i3 - tolerance):
            for s in range(segments.shape[0]):
                sx, sy, ux, uy, nx, ny, length = (segments[s, 0], segments[s, 1], segments[s, 2], segments[s, 3],
                                                  segments[s, 4], segments[s, 5], segments[s, 6])
                along = ux * (x - sx) + uy * (y - sy)
                if 0.0 <= along <= length and nx * (x - sx) + ny * (y - sy) <= radius + tolerance:
                    on_cushion[k] = True
                    for c in range(columns):
                        if marks[s, c]:
                            frozen[k, c] = True
        if k != cue and hypot(x - cx, y - cy) <= 2.0 * radius + tolerance:
            on_cue[k] = True
    return frozen, on_cushion, on_cue
