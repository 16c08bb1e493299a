"""poolgym beside pooltool 0.6 on the cases of ``poolgym.agents.tools.peers.compare_physics``.

``data/pooltool_0.6_physics.json`` holds pooltool's figures for those cases (the range
over its three cushion models), written by
``python -m poolgym.agents.tools.peers.compare_physics --json tests/physics/data/pooltool_0.6_physics.json``;
the tests replay the cases in poolgym and hold it to the acceptance tolerances. With a
pooltool venv on the machine, the comparison also runs live.
"""

import json
from pathlib import Path

import pytest

from poolgym.agents.tools.peers import default_pooltool_python
from poolgym.agents.tools.peers.compare_physics import check_quantity, cases, compare, measure_poolgym
from poolgym.physics import PhysicsParams

REFERENCE = json.loads(Path(__file__).with_name("data").joinpath("pooltool_0.6_physics.json").read_text())
CASES = {case["name"]: case for case in cases()}


def test_the_reference_covers_every_case_and_the_required_spread():
    assert {row["case"] for row in REFERENCE} == set(CASES)
    kinds = {}
    for case in CASES.values():
        kinds.setdefault(case["kind"], []).append(case)
    assert len(kinds["cushion"]) >= 3 * 2 * 3 and len(kinds["draw"]) >= 4 and len(kinds["squirt"]) >= 3
    assert len(kinds["swerve"]) >= 4


@pytest.mark.parametrize("kind", ["cushion", "draw", "squirt", "swerve"])
def test_poolgym_is_within_tolerance_of_pooltool(kind):
    params = PhysicsParams()
    measured = {}
    failures = []
    for row in REFERENCE:
        case = CASES[row["case"]]
        if case["kind"] != kind:
            continue
        if case["name"] not in measured:
            measured[case["name"]] = measure_poolgym(case, params)
        ours = measured[case["name"]]
        peer = [{row["quantity"]: row["lo"]}, {row["quantity"]: row["hi"]}]
        check = check_quantity(case, row["quantity"], peer, ours)
        if not check.ok:
            failures.append(check)
    assert measured and not failures


@pytest.mark.skipif(default_pooltool_python() is None, reason="no pooltool venv on this machine")
def test_live_comparison_with_pooltool():
    checks = compare(default_pooltool_python())
    assert len(checks) == len(REFERENCE)
    assert [c for c in checks if not c.ok] == []
