"""The fast paths of the per-shot glue (``Shot.validate``, ``Noise.apply``/``draws``,
``Simulator._checked_shots``) give what the general paths give."""

from dataclasses import dataclass, replace

import numpy as np
import pytest

from poolgym.physics import Shot, Simulator
from poolgym.physics.shot import Noise


def test_validate_converts_numpy_scalars_to_plain_floats():
    shot = Shot(np.float64(2.5), np.float64(30.0), np.float32(0.25), -0.125, np.float64(5.0))
    checked = shot.validate(15.0)
    assert type(checked) is Shot
    values = (checked.speed, checked.angle_deg, checked.side, checked.vertical, checked.elevation_deg)
    assert all(type(v) is float for v in values)
    assert values == (2.5, 30.0, 0.25, -0.125, 5.0)
    plain = Shot(2.5, 30.0, 0.25, -0.125, 5.0)
    assert plain.validate(15.0) is plain


def test_validate_names_a_non_finite_numpy_field():
    with pytest.raises(ValueError, match=r"Shot\.angle_deg must be finite"):
        Shot(2.0, np.float64("nan")).validate(15.0)
    with pytest.raises(ValueError, match=r"Shot\.speed must be in"):
        Shot(np.float64(20.0)).validate(15.0)


def test_draws_are_the_plain_floats_of_the_generator():
    noise = Noise.preset("tournament")
    draws = noise.draws(np.random.default_rng(7))
    expected = tuple(float(d) for d in np.random.default_rng(7).normal(0.0, 1.0, size=4))
    assert draws == expected and all(type(d) is float for d in draws)


@dataclass(frozen=True)
class _TaggedShot(Shot):
    tag: str = "x"


def test_apply_builds_what_replace_builds():
    noise = Noise.preset("tournament")
    for shot in (Shot(2.0, 10.0, 0.1, 0.2), _TaggedShot(2.0, 10.0, 0.1, 0.2, tag="y")):
        applied = noise.apply(shot, np.random.default_rng(3))
        values = noise.executed(shot, noise.draws(np.random.default_rng(3)))
        expected = replace(shot, speed=values[0], angle_deg=values[1], side=values[2], vertical=values[3],
                           elevation_deg=values[4])
        assert type(applied) is type(shot) and applied == expected


def test_checked_shots_takes_any_sequence_and_refuses_others():
    sim = Simulator()
    shots = [Shot(2.0), Shot(np.float64(3.0), 45.0)]
    assert sim._checked_shots(shots) == sim._checked_shots(tuple(shots))
    for bad in (Shot(2.0), iter(shots), {0: Shot(2.0)}):
        with pytest.raises(ValueError, match="shots must be a sequence"):
            sim._checked_shots(bad)
