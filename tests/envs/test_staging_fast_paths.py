"""Staging a move takes fast paths for its common cases: an action within its bounds checked
in one pass, choice_discrete's bins read from a table. Each gives exactly what the full
checks give: the same values to the last bit, the same messages."""

import math

import numpy as np
import pytest

from poolgym.envs.actions import ActionMapper
from poolgym.envs.choice import ChoiceMapper, bin_value
from poolgym.table import Table


def outcome(call):
    """What ``call()`` gives: ("ok", value) or ("error", its message)."""
    try:
        return "ok", call()
    except ValueError as exc:
        return "error", str(exc)


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
