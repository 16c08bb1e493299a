"""``Simulator.simulate_many``: the same results as one ``simulate`` call per shot."""

from __future__ import annotations

import numpy as np
import pytest

from poolgym.physics import Shot, Simulator
from poolgym.physics.invariants import random_shot
from poolgym.table import Table

TABLE = Table.preset("9ft")
LAYOUT = {0: (0.6, 0.635), 1: (1.9, 0.635), 2: (2.0, 0.3), 5: (1.2, TABLE.ball_radius)}


def _same(a, b) -> None:
    assert a.events == b.events
    assert a.positions == b.positions
    assert a.pocketed == b.pocketed
    assert a.duration == b.duration
    assert a.shot == b.shot


def _shots(n: int, seed: int) -> list[Shot]:
    rng = np.random.default_rng(seed)
    return [random_shot(rng) for _ in range(n)]


def test_many_equals_one_by_one_without_noise():
    sim = Simulator(TABLE)
    shots = _shots(40, 1)
    for a, b in zip(sim.simulate_many(LAYOUT, shots), [sim.simulate(LAYOUT, s) for s in shots]):
        _same(a, b)


def test_many_equals_one_by_one_with_noise_and_trajectories():
    sim = Simulator(TABLE, noise="tournament")
    shots = _shots(20, 2)
    many = sim.simulate_many(LAYOUT, shots, rng=np.random.default_rng(7), trajectories=True)
    rng = np.random.default_rng(7)
    for a, s in zip(many, shots):
        b = sim.simulate(LAYOUT, s, rng=rng, trajectories=True)
        _same(a, b)
        assert a.trajectories == b.trajectories


def test_frozen_ball_is_reported_on_every_shot():
    sim = Simulator(TABLE)
    results = sim.simulate_many(LAYOUT, [Shot(speed=1.0, angle_deg=a) for a in (0.0, 90.0, 180.0)])
    assert [r.events[0].frozen_to_cushion for r in results] == [(5,)] * 3


def test_empty_sequence_gives_no_results():
    assert Simulator(TABLE).simulate_many(LAYOUT, []) == []


@pytest.mark.parametrize("shots, match", [
    (Shot(speed=1.0), "shots must be a sequence"),
    ([Shot(speed=1.0), "fast"], r"shots\[1\] must be a poolgym.physics.Shot"),
    ([Shot(speed=1.0), Shot(speed=99.0)], "Shot.speed must be in"),
])
def test_bad_shots_raise_before_any_is_played(shots, match):
    with pytest.raises(ValueError, match=match):
        Simulator(TABLE).simulate_many(LAYOUT, shots)


def test_noise_needs_a_generator():
    with pytest.raises(ValueError, match="rng"):
        Simulator(TABLE, noise="tournament").simulate_many(LAYOUT, [Shot(speed=1.0)])


def test_results_do_not_depend_on_what_was_simulated_before():
    shots = _shots(10, 3)
    fresh = [Simulator(TABLE).simulate(LAYOUT, s) for s in shots]
    used = Simulator(TABLE)
    used.simulate_many({0: (0.3, 0.3), 3: (2.2, 1.0)}, _shots(30, 4))
    for a, b in zip(used.simulate_many(LAYOUT, shots[::-1])[::-1], fresh):
        _same(a, b)
