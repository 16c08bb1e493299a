"""The ``poolgym`` command: argument parsing, ``demo`` and a quick ``bench``."""

import json
import math

import pytest

from agents import bench
from agents.cli import build_parser, main
from poolgym.table import Table

CASES = ("break", "straight_in", "random")


def test_bench_options_parse():
    args = build_parser().parse_args(
        ["bench", "--quick", "--reps", "2", "--json", "out.json", "--no-peer"])
    assert (args.command, args.quick, args.reps, args.json, args.no_peer) == (
        "bench", True, 2, "out.json", True)
    defaults = build_parser().parse_args(["bench"])
    assert (defaults.reps, defaults.quick, defaults.json, defaults.pooltool_python) == (
        3, False, None, None)


@pytest.mark.parametrize("argv", [
    [],
    ["bench", "--reps", "0"],
    ["bench", "--no-peer", "--pooltool-python", "/usr/bin/python3"],
    ["demo", "--table", "6ft"],
])
def test_bad_command_lines_exit_with_usage(argv):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(argv)
    assert exit_info.value.code == 2


def test_missing_pooltool_python_is_an_error(tmp_path):
    with pytest.raises(SystemExit):
        main(["bench", "--quick", "--pooltool-python", str(tmp_path / "no-such-python")])


def test_cases_match_their_definition():
    table = Table.preset("7ft")
    rack = bench.rack_start(table)
    assert rack[0] == pytest.approx((0.2 * table.length, table.width / 2))
    assert rack[1] == pytest.approx(table.foot_spot)
    assert rack[9] == pytest.approx(table.rack_positions((1, 2, 3, 2, 1))[4])
    assert sorted(rack) == list(range(10))

    straight = bench.straight_in_start(table)
    hole = table.pocket("foot_right").hole_centre
    assert math.dist(straight[1], hole) == pytest.approx(0.3 * math.sqrt(2))
    assert math.dist(straight[0], straight[1]) == pytest.approx(0.5 * math.sqrt(2))
    assert bench.aim_deg(straight[1], hole) == pytest.approx(45.0)
    assert all(table.contains(*p) for p in straight.values())

    shots = bench.random_shots(200)
    assert shots == bench.random_shots(200)
    speeds, angles, sides, verticals = zip(*shots)
    assert 0.77 <= min(speeds) and max(speeds) <= 9.2
    assert 0.0 <= min(angles) and max(angles) < 360.0
    assert max(map(abs, sides + verticals)) <= 0.5


def test_quick_bench_writes_the_figures(tmp_path, capsys):
    out = tmp_path / "out.json"
    assert main(["bench", "--quick", "--no-peer", "--reps", "2", "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    assert "pooltool" not in results
    figures = results["poolgym"]["cases"]
    assert set(figures) == set(CASES)
    for name in CASES:
        f = figures[name]
        assert f["reps"] == 2 and len(f["shots_per_s_all"]) == 2
        assert f["shots_per_s"] > 0
        assert f["ms_per_shot"] == pytest.approx(1e3 / f["shots_per_s"])
        assert 0 < f["p50_ms"] <= f["p99_ms"]
        assert f["mean_sim_s"] > 0
        assert f["mean_pocketed"] >= 0
    # The straight-in shot is played to pot the object ball.
    assert figures["straight_in"]["mean_pocketed"] >= 1
    report = capsys.readouterr().out
    assert all(c.title in report for c in bench.build_cases(Table.preset("7ft"), quick=True))


def test_demo_prints_one_line_per_event(capsys):
    assert main(["demo", "--shots", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("shot 0: break at the 1-ball")
    assert sum("strike" in line for line in lines) == 3
    assert sum("every ball has stopped" in line for line in lines) == 3
