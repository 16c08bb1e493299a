"""No tunnelling, no escapes, no overlaps, balls conserved: a fast slice of the soak."""

import numpy as np
import pytest

from poolgym.agents.tools.soak import run_physics_soak
from poolgym.physics import Shot
from poolgym.physics.invariants import random_layout, random_shot, shot_violations


def test_random_shots_from_racks_and_layouts_keep_every_invariant():
    report = run_physics_soak(shots=300, seed=2024)
    assert report["examples"] == []
    for key in ("crashes", "escapes", "overlaps", "lost_balls", "non_finite", "log_mismatches"):
        assert report[key] == 0, key


@pytest.mark.parametrize("seed", range(4))
def test_hard_shots_into_crowded_tables(sim9, seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        layout = random_layout(sim9.table, 15, rng)
        shot = random_shot(rng, max_speed=12.0)
        result = sim9.simulate(layout, shot)
        assert shot_violations(sim9.table, layout, result) == []


def test_the_checker_catches_a_lost_ball_and_an_escape(sim9):
    """The invariants can fail: doctor a sound result and they say what is wrong."""
    layout = {0: (0.5, 0.6), 1: (1.5, 0.6)}
    result = sim9.simulate(layout, Shot(speed=1.0))
    assert shot_violations(sim9.table, layout, result) == []
    lost = type(result)({0: result.positions[0]}, {}, result.events, result.duration, result.shot)
    assert any("not conserved" in p for p in shot_violations(sim9.table, layout, lost))
    escaped = type(result)({0: (-0.2, 0.6), 1: result.positions[1]}, {}, result.events,
                           result.duration, result.shot)
    assert any("escaped" in p for p in shot_violations(sim9.table, layout, escaped))
    overlapping = type(result)({0: (1.0, 0.6), 1: (1.03, 0.6)}, {}, result.events,
                               result.duration, result.shot)
    assert any("overlap" in p for p in shot_violations(sim9.table, layout, overlapping))
