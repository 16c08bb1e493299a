"""The simulator against stored results of the reference physics (``reference_cases``):
the same final positions within 1e-9 m and the same events on non-chaotic shots, the same
statistics within sampling error on breaks and random shots from the rack."""

from __future__ import annotations

import json
import math

import pytest

from poolgym.physics import Simulator
from poolgym.table import Table
from tests.physics.reference_cases import DATA, chaotic_stats, non_chaotic_cases

REFERENCE = json.loads(DATA.read_text())
TABLE = Table.preset(REFERENCE["table"])
CASES = {name: (layout, shot) for name, layout, shot in non_chaotic_cases(TABLE)}
# Two independent samples of n shots: a difference of means beyond 4 standard errors.
SIGMAS = 4.0


@pytest.mark.parametrize("name", sorted(REFERENCE["exact"]))
def test_non_chaotic_shot_matches_reference(name):
    ref = REFERENCE["exact"][name]
    layout, shot = CASES[name]
    res = Simulator(TABLE).simulate(layout, shot)
    assert [type(e).__name__ for e in res.events] == ref["events"]
    assert {str(b): p for b, p in res.pocketed.items()} == ref["pocketed"]
    assert sorted(str(b) for b in res.positions) == sorted(ref["positions"])
    for ball, (x, y) in res.positions.items():
        rx, ry = ref["positions"][str(ball)]
        assert math.hypot(x - rx, y - ry) < 1e-9, (name, ball)
    assert res.duration == pytest.approx(ref["duration"], abs=1e-9)
    for t, rt in zip((e.time for e in res.events), ref["event_times"]):
        assert t == pytest.approx(rt, abs=1e-9)


def test_chaotic_statistics_match_reference():
    n = REFERENCE["chaotic_shots"]
    stats = chaotic_stats(Simulator(TABLE), TABLE)
    for case, figures in stats.items():
        for key, values in figures.items():
            ref_mean, ref_sd = REFERENCE["chaotic"][case][key]
            mean = sum(values) / len(values)
            assert len(values) == n
            assert abs(mean - ref_mean) <= SIGMAS * math.sqrt(2.0 / n) * max(ref_sd, 1e-3), (case, key, mean, ref_mean)
