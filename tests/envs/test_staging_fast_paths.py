"""Staging a move takes fast paths for its common cases: a validated shot of plain floats, an
action within its bounds, choice_discrete's bins read from a table, the noise drawn as one
vector. Each gives exactly what the full checks and the scalar forms give: the same values
to the last bit, the same messages, the same draws."""

import itertools
import math

import numpy as np
import pytest

from poolgym.envs.actions import ActionMapper
from poolgym.envs.choice import ChoiceMapper, bin_value
from poolgym.physics import Shot
from poolgym.physics.shot import Noise
from poolgym.table import Table


def outcome(call):
    """What ``call()`` gives: ("ok", value) or ("error", its message)."""
    try:
        return "ok", call()
    except ValueError as exc:
        return "error", str(exc)


def bits(value):
    """A value's exact bits: floats (NumPy's too) as hex, containers item by item."""
    if isinstance(value, float):
        return float(value).hex()
    if isinstance(value, (tuple, list)):
        return tuple(bits(v) for v in value)
    if isinstance(value, Shot):
        return type(value).__name__, tuple(bits(getattr(value, f)) for f in value.__dataclass_fields__)
    return value


@pytest.mark.parametrize("seed", range(20))
def test_vector_normal_draws_are_the_scalar_draws_in_order(seed):
    # ``Noise.draws`` takes the speed, angle and tip draws as one vector of four: the same
    # numbers, in the same order, leaving the generator where four scalar draws leave it.
    vector, scalar = np.random.default_rng(seed), np.random.default_rng(seed)
    for size in (4, 5, 4, 1, 7):
        drawn = vector.normal(0.0, 1.0, size=size).tolist()
        assert [float(d).hex() for d in drawn] == [float(scalar.normal(0.0, 1.0)).hex() for _ in range(size)]
        assert vector.bit_generator.state == scalar.bit_generator.state
    for name in ("tournament", "fastfiz"):
        noise, scalar = Noise.preset(name), np.random.default_rng(seed)
        draws = noise.draws(np.random.default_rng(seed))
        assert [d.hex() for d in draws] == [float(scalar.normal(0.0, 1.0)).hex() for _ in range(len(draws))]
        assert len(draws) == (5 if noise.elevation_deg > 0 else 4)


def test_shot_validate_of_plain_floats_is_the_full_check():
    # NumPy float64 fields take the full checks (and are converted); plain floats of the
    # same values take the one-test common case when every check passes. Both must give
    # the same shot or the same message, on values at and around every bound.
    big, nan, inf = 1e308, math.nan, math.inf
    speeds = (3.0, 15.0, math.nextafter(15.0, inf), 1e-300, 0.0, -0.0, -2.0, nan, inf)
    angles = (0.0, -720.5, big, nan, -inf)
    tips = (0.0, 0.6, -0.8, math.nextafter(1.0, 0.0), 1.0, -1.0, nan)
    elevations = (0.0, 80.0, math.nextafter(80.0, inf), -0.0, -1e-300, nan)
    fast_taken = 0
    for values in itertools.product(speeds, angles, tips, tips, elevations):
        plain = Shot(*values)
        kind, got = outcome(lambda: plain.validate(15.0))
        ref_kind, expected = outcome(lambda: Shot(*map(np.float64, values)).validate(15.0))
        assert (kind, bits(got) if kind == "ok" else got) == \
            (ref_kind, bits(expected) if ref_kind == "ok" else expected), values
        if kind == "ok":
            assert got is plain  # a valid shot of plain floats is its own validated form
            fast_taken += 1
    assert fast_taken > 100


def test_action_validate_keeps_values_and_names_what_is_wrong():
    mapper = ActionMapper(Table.preset("9ft"), "aim")
    rng = np.random.default_rng(5)
    n = len(mapper.components)
    edges = (-1.0, 1.0, -0.0, math.nextafter(1.0, 2.0), 1.0 + 5e-7, -1.0 - 5e-7, 1.0 + 2e-6, 3.0,
             math.nan, math.inf, -math.inf)
    for trial in range(400):
        a = rng.uniform(-1, 1, n)
        for i in rng.choice(n, size=trial % 3, replace=False):
            a[i] = edges[rng.integers(len(edges))]
        for given in (a, a.astype(np.float32)):
            kind, got = outcome(lambda: mapper.validate(given))
            values = given.astype(np.float64)
            if np.all((values >= -1.0) & (values <= 1.0)):  # kept to the bit
                assert kind == "ok" and got.dtype == np.float64 and got.tobytes() == values.tobytes()
                assert got is not given
            elif not np.all(np.isfinite(values)):
                bad = [mapper.components[i] for i in np.flatnonzero(~np.isfinite(values))]
                assert (kind, got) == ("error", f"action components {bad} are not finite: {values.tolist()}")
            elif np.any(np.abs(values) > 1.0 + 1e-6):
                assert kind == "error" and got.startswith("action components must lie in [-1, 1]; out of range:")
            else:  # float32 round-off just past a bound: clipped
                assert kind == "ok" and got.tobytes() == np.clip(values, -1.0, 1.0).tobytes()


def test_choice_discrete_validate_of_int64_is_the_full_check():
    # int32 actions take the full checks; int64 ones (MaskablePPO's) the common case when
    # every index is in range. Both give the same action or the same message.
    mapper = ChoiceMapper(Table.preset("9ft"), "choice_discrete")
    rng = np.random.default_rng(8)
    nvec = mapper.nvec
    for trial in range(600):
        action = np.array([rng.integers(n) for n in nvec], dtype=np.int64)
        for i in rng.choice(len(nvec), size=trial % 3, replace=False):
            action[i] = (-1, nvec[i], nvec[i] - 1, 0, 2 ** 31 - 1, -2 ** 31)[rng.integers(6)]
        kind, got = outcome(lambda: mapper.validate(action))
        ref_kind, expected = outcome(lambda: mapper.validate(action.astype(np.int32)))
        assert kind == ref_kind and (got == expected if kind == "error" else
                                     (got.dtype == expected.dtype == np.int64 and got.tolist() == expected.tolist()))
        if kind == "ok":
            assert got is not action
    with pytest.raises(ValueError, match=r"'slot': '20 not in 0..19'"):
        mapper.validate(np.array([20, 0, 0, 0, 0, 0, 0, 0], dtype=np.int64))


@pytest.mark.parametrize("elevation", (False, True))
def test_choice_discrete_parameters_are_bin_values(elevation):
    mapper = ChoiceMapper(Table.preset("9ft"), "choice_discrete", elevation=elevation)
    for name, n in mapper.param_bins.items():
        k = 1 + list(mapper.param_bins).index(name)
        for index in range(n):
            action = np.zeros(len(mapper.components), dtype=np.int64)
            action[k] = index
            action[-1] = 3
            params = mapper._parameters(action)
            assert params[name].hex() == bin_value(index, n).hex()
            assert params["decision"] == 3.0 and type(params["decision"]) is float
