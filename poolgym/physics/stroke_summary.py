"""What a stroke's plays come to, compiled: the per-stroke means of the lookahead features
(``poolgym.envs.lookahead.FEATURES``) from each play's facts and verdict, for every stroke
of a position in one call.

The sums run play by play in order and the cue ball's mean stop is their sum over the
count, as NumPy's ``mean`` of the stops along their first axis gives it: the features are
the same to the last bit as the interpreted tally they replace
(``tests/envs/test_lookahead.py`` holds them equal to the rules' own judgement).
"""

from __future__ import annotations

import numpy as np

from poolgym.physics.jit import kernel

MADE, SCRATCH, FOUL, CUE_X, CUE_Y, NEXT_MAKE, OPPONENT_MAKE = range(7)


@kernel()
def stroke_features(simulated, on, x, y, foul, ended, won, kept, best, plays, length, width):
    """The features of each block of ``plays`` consecutive plays (block b: a stroke's
    plays ``b * plays`` to ``(b + 1) * plays``), in [0, 1], columns ``MADE`` to
    ``OPPONENT_MAKE``. Per play: whether it was ``simulated`` (a placement no stroke can be
    played from is judged unplayed), the cue ball ``on`` the table at (``x``, ``y``), the
    rules' ``foul``, the rack ``ended`` (then ``won``: 1.0 for the shooter, 0.0 not),
    the table ``kept``, and the ``best`` chance of the next shot in the position left."""
    blocks = simulated.shape[0] // plays
    out = np.empty((blocks, 7))
    n = float(plays)
    for b in range(blocks):
        made = scratch = fouls = next_make = opponent_make = 0.0
        sum_x = sum_y = 0.0
        stops = 0
        for p in range(b * plays, (b + 1) * plays):
            if simulated[p]:
                if on[p]:
                    sum_x += x[p] / length
                    sum_y += y[p] / width
                    stops += 1
                else:
                    scratch += 1.0
            fouls += 1.0 if foul[p] else 0.0
            if ended[p]:
                made, next_make = made + won[p], next_make + won[p]
            elif kept[p]:
                made, next_make = made + 1.0, next_make + best[p]
            else:
                opponent_make += best[p]
        out[b, MADE], out[b, SCRATCH], out[b, FOUL] = made / n, scratch / n, fouls / n
        out[b, CUE_X], out[b, CUE_Y] = (sum_x / stops, sum_y / stops) if stops else (0.0, 0.0)
        out[b, NEXT_MAKE], out[b, OPPONENT_MAKE] = next_make / n, opponent_make / n
        for f in range(7):  # np.clip(value, 0.0, 1.0)
            value = out[b, f]
            value = value if value > 0.0 else (0.0 if value < 0.0 else value)
            out[b, f] = value if value < 1.0 else (1.0 if value > 1.0 else value)
    return out
