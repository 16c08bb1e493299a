"""``poolgym soak --elevation`` and ``--elevated-games``: random shots and games with a raised
cue keep every invariant, balls that leave the table included, and the reports count the
flights and the balls off."""

import json
import math

import pytest

from poolgym.agents.tools.cli import build_parser, main
from poolgym.agents.tools.soak import (FLIGHT_COUNTS, PHYSICS_FAILURES, game_failures, run_game_soak,
                                      run_physics_soak)


def test_elevated_random_shots_keep_every_invariant_and_leave_the_table():
    report = run_physics_soak(shots=500, seed=11, max_elevation=80.0)
    assert report["examples"] == []
    for key in PHYSICS_FAILURES:
        assert report[key] == 0, key
    assert report["max_elevation"] == 80.0
    # Nearly every elevated stroke hops off the bed; some send balls off the table.
    assert report["shots_with_flights"] > 400
    assert report["shots_with_balls_off"] > 20
    assert report["cue_balls_off"] + report["object_balls_off"] >= report["shots_with_balls_off"]


def test_a_zero_elevation_bound_plays_level_shots_without_flights():
    report = run_physics_soak(shots=100, seed=3, max_elevation=0.0)
    assert all(report[key] == 0 for key in PHYSICS_FAILURES)
    assert report["shots_with_flights"] == 0 and report["shots_with_balls_off"] == 0


def test_the_flat_soak_reports_no_elevation_counts():
    report = run_physics_soak(shots=20, seed=3)
    assert "max_elevation" not in report and not set(FLIGHT_COUNTS) & set(report)


@pytest.mark.parametrize("bad", [-1.0, 80.5, math.nan, "45", True])
def test_a_bad_elevation_bound_is_refused(bad):
    with pytest.raises(ValueError, match=r"max_elevation must be in \[0, 80\] degrees"):
        run_physics_soak(shots=1, max_elevation=bad)


def test_soak_command_with_elevation_writes_the_flight_counts(tmp_path, capsys):
    out = tmp_path / "soak.json"
    assert main(["soak", "--shots", "60", "--seed", "2", "--elevation", "60", "--no-progress",
                 "--json", str(out)]) == 0
    physics = json.loads(out.read_text())["physics"]
    assert physics["max_elevation"] == 60.0 and physics["shots"] == 60
    assert set(FLIGHT_COUNTS) <= set(physics)
    text = capsys.readouterr().out
    assert "cue elevation uniform in [0, 60] degrees" in text and "off table events" in text


@pytest.mark.parametrize("value", ["-5", "81", "nan", "steep"])
def test_bad_soak_elevation_exits_with_usage(value, capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["soak", "--elevation", value])
    assert exit_info.value.code == 2
    assert "--elevation" in capsys.readouterr().err


def test_elevated_random_games_keep_every_invariant_with_balls_off_the_table():
    envs = ["poolgym/NineBall-v1", "poolgym/EightBall-v1", "poolgym/StraightPool-v1", "poolgym/TenBall-v1"]
    report = run_game_soak(games=3, seed=5, env_ids=envs, max_steps=60, elevation=True)
    assert report["elevation"] and set(report["envs"]) == set(envs)
    assert game_failures(report) == 0
    for row in report["envs"].values():
        assert row["examples"] == []
    # Random raised strokes drive balls off in every game, so the rules judge them.
    assert all(row["balls_off"] > 0 for row in report["envs"].values())


def test_the_flat_game_soak_drives_no_ball_off():
    report = run_game_soak(games=2, seed=5, env_ids=["poolgym/EightBall-v1"], max_steps=40)
    assert not report["elevation"] and report["envs"]["poolgym/EightBall-v1"]["balls_off"] == 0


def test_soak_command_with_elevated_games_says_so(capsys):
    assert main(["soak", "--shots", "0", "--games", "1", "--env", "poolgym/NineBall-v1", "--max-steps", "10",
                 "--elevated-games"]) == 0
    text = capsys.readouterr().out
    assert "the environments with the elevated cue" in text and "balls off the table" in text
