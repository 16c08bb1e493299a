"""The compiled strike rows (``poolgym.physics.strikes``) against ``Simulator.strikes_under``,
and the draws of many shots in one call against ``Noise.draws`` shot by shot: equality to
the last bit, on shots that reach every branch (tip offsets clamped to the ball's edge,
speeds clamped at both ends, elevated cues and elevation noise, squirt)."""

import numpy as np
import pytest

from poolgym.physics import PhysicsParams, Shot, Simulator
from poolgym.physics.strikes import noise_draws, strike_rows

NOISES = ["none", "tournament", "fastfiz", {"speed": 1.0, "angle_deg": 10.0, "side": 0.5, "vertical": 0.5,
                                           "elevation_deg": 10.0}]


def random_shots(rng: np.random.Generator, count: int, max_speed: float) -> list[Shot]:
    shots = []
    while len(shots) < count:
        side, vertical = rng.uniform(-0.999, 0.999, 2) * rng.choice([0.0, 0.3, 1.0], 2)
        if np.hypot(side, vertical) >= 1.0:
            continue
        speed = float(rng.choice([rng.uniform(1e-3, 0.05), rng.uniform(0.05, max_speed), max_speed]))
        elevation = float(rng.choice([0.0, 0.0, rng.uniform(0.0, 0.2), rng.uniform(0.0, 80.0), 80.0]))
        shots.append(Shot(speed, float(rng.uniform(-720.0, 720.0)), float(side), float(vertical), elevation))
    return shots


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("squirt", [False, True])
def test_strike_rows_are_strikes_under_to_the_last_bit(noise, squirt):
    sim = Simulator(noise=noise, params=PhysicsParams(squirt=squirt))
    rng = np.random.default_rng(7)
    for trial in range(20):
        shots = random_shots(rng, int(rng.integers(1, 12)), sim.params.max_speed)
        count = 1 if sim.noise.is_zero else int(rng.integers(1, 9))
        draws_rng = np.random.default_rng(trial)
        draws = [() if sim.noise.is_zero else sim.noise.draws(draws_rng) for _ in range(count)]
        expected = sim.strikes_under(shots, draws)
        rows = np.array([(s.speed, s.angle_deg, s.side, s.vertical, s.elevation_deg) for s in shots])
        array = np.zeros((1, 0)) if sim.noise.is_zero else noise_draws(sim.noise, np.random.default_rng(trial), count)
        got = strike_rows(sim, rows, array)
        assert got.shape == expected.shape and got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("noise", ["tournament", "fastfiz"])
def test_noise_draws_are_the_shot_by_shot_draws(noise):
    sim = Simulator(noise=noise)
    for seed in range(50):
        count = seed % 64 + 1
        one_by_one = np.random.default_rng(np.random.SeedSequence([seed, 99]))
        expected = np.array([sim.noise.draws(one_by_one) for _ in range(count)])
        got = noise_draws(sim.noise, np.random.default_rng(np.random.SeedSequence([seed, 99])), count)
        assert got.tobytes() == expected.tobytes()
        # The generator is left where the shot-by-shot draws leave it.
        assert one_by_one.normal() == np.random.default_rng(np.random.SeedSequence([seed, 99])).normal(
            size=got.size + 1)[-1]


def test_extreme_draws_clamp_as_the_noise_does():
    """Draws far out in the tails: speeds below the floor and above the ceiling, tips pushed
    past the ball's edge, elevations below level and above the limit."""
    sim = Simulator(noise={"speed": 1.0, "angle_deg": 10.0, "side": 0.5, "vertical": 0.5, "elevation_deg": 10.0})
    shots = [Shot(0.01, 10.0, 0.9, 0.3, 0.0), Shot(14.9, -170.0, -0.2, -0.95, 79.0), Shot(3.0, 0.0, 0.0, 0.0, 1.0)]
    draws = [(-9.0, 1.0, 9.0, 9.0, -9.0), (9.0, -1.0, -9.0, -9.0, 9.0), (0.0, 0.0, 0.0, 0.0, 0.0)]
    rows = np.array([(s.speed, s.angle_deg, s.side, s.vertical, s.elevation_deg) for s in shots])
    assert strike_rows(sim, rows, np.array(draws)).tobytes() == sim.strikes_under(shots, draws).tobytes()
