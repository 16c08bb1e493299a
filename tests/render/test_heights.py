"""Balls off the bed: drawn raised over their shadows, paths dashed through the air, balls
gone once they leave the table, and the side view of heights over time. A shot that stays
on the bed draws exactly as it did before heights existed."""

import hashlib

import numpy as np
import pytest

pytest.importorskip("pygame")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # no display in tests

import matplotlib.pyplot as plt  # noqa: E402

from poolgym.render import FramePainter, Motion, Still, plot_table, render_rgb  # noqa: E402

from .shots import TABLE, flat_result  # noqa: E402

# SHA-256 prefixes of the pictures of ``flat_result`` drawn by the renderers as they were
# before heights were added (pygame 2.6.1, matplotlib 3.11.2): a flat shot must not change.
FLAT_HASHES = {"phases": "1b23afac77bee41c", "rows": "96bd19cd3e8de6f8", "motion": "538deaba29a7d1d2",
               "plot": "3abc33dc2572d5d6"}


def _hash(array) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def _flat_pictures() -> dict[str, str]:
    r = flat_result()
    painter = FramePainter(TABLE, 320, status_rows=1)
    motion = Motion(r, ("shooting",), Still(r.positions, ("done",), paths=r.trajectories))
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=80)
    plot_table(TABLE, r.positions, result=r, ax=ax)
    fig.canvas.draw()
    plot = np.asarray(fig.canvas.buffer_rgba())
    plt.close(fig)
    return {
        "phases": _hash(render_rgb(TABLE, r.positions, trajectories=r.trajectories, width_px=400, highlight=9)),
        "rows": _hash(render_rgb(TABLE, r.positions, trajectories={b: r.sample_path(b) for b in (0, 3)},
                                 width_px=400)),
        "motion": _hash(np.stack(list(motion.frames(painter, 5)))),
        "plot": _hash(plot),
    }


def test_a_flat_shot_draws_exactly_as_before_heights():
    versions = (__import__("pygame").version.ver, matplotlib.__version__)
    if versions != ("2.6.1", "3.11.2"):
        pytest.skip(f"the stored pictures were drawn with pygame 2.6.1 and matplotlib 3.11.2, not {versions}")
    assert _flat_pictures() == FLAT_HASHES
