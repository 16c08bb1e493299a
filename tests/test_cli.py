"""The ``poolgym`` command: argument parsing, ``demo`` and a quick ``bench``."""

import json
import math
import sys

import numpy as np
import pytest

from poolgym.agents.tools import bench
from poolgym.agents.tools.cli import build_parser, main
from poolgym.table import Table
from poolgym.physics import Shot, Simulator

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


def test_every_command_is_in_one_family_and_listed_once_in_the_help():
    """A command its family adds but ``COMMAND_ORDER`` does not name would be unreachable, and
    one name in two families would hide one of them."""
    import argparse

    from poolgym.agents.tools import cli

    names = [name for family in cli.FAMILIES for name in family.COMMANDS]
    assert len(names) == len(set(names)) and sorted(names) == sorted(cli.COMMAND_ORDER)
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert [action.dest for action in sub._choices_actions] == list(cli.COMMAND_ORDER)
    assert all(sub.choices[name].get_default("handler") for name in names)


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


# ----------------------------------------------------------------- bad values: one line, exit 2
def _one_error_line(capsys) -> str:
    return _one_error_line_of(capsys.readouterr().err)


def _one_error_line_of(err: str) -> str:
    err = err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def test_unknown_game_is_one_line_listing_the_rulesets(capsys):
    from poolgym.rules import available_rulesets

    for command in (["eval"], ["play"], ["bench-bot", "--racks", "1"]):
        assert main([*command, "--game", "eight_bal"]) == 2
        err = _one_error_line(capsys)
        assert "'eight_bal'" in err and err.startswith(f"poolgym {command[0]}: error:")
        assert all(name in err for name in available_rulesets())


@pytest.mark.parametrize("env_id", ["poolgym/PotBall-v0", "poolgym/NoSuch-v0"])
def test_soak_env_that_is_not_a_game_is_one_line_listing_the_games(env_id, capsys):
    from poolgym.agents.tools.soak import game_env_ids

    assert main(["soak", "--shots", "5", "--games", "1", "--env", env_id]) == 2
    out, err = capsys.readouterr()
    assert "random shots" not in out  # refused before any work
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert repr(env_id) in err and all(game in err for game in game_env_ids())


def test_a_value_error_from_a_command_is_one_line_with_status_2(monkeypatch, capsys):
    import poolgym.agents.evaluation.loading

    def refuse(spec, *args, **kwargs):
        raise ValueError(f"agent {spec!r}: no such module\nsecond line")

    monkeypatch.setattr(poolgym.agents.evaluation.loading, "make_agent", refuse)
    assert main(["eval", "-a", "no_such_module:x", "--games", "1"]) == 2
    assert _one_error_line(capsys) == "poolgym eval: error: agent 'no_such_module:x': no such module second line"


@pytest.mark.parametrize("argv, named", [
    (["eval", "--seed", "-1"], "--seed"),
    (["soak", "--seed", "-1"], "--seed"),
    (["play", "--seed", "-3"], "--seed"),
    (["bench-bot", "--seed", "-1"], "--seed"),
    (["train", "--config", "c.yaml", "--seed", "-1"], "--seed"),
    (["eval", "--seed", "x"], "--seed"),
    (["play", "--fps", "0", "--gif", "g.gif"], "--fps"),
    (["play", "--fps", "-1"], "--fps"),
    (["play", "--fps", "nan"], "--fps"),
    (["play", "--fps", "inf"], "--fps"),
    (["play", "--fps", "1e9"], "--fps"),
    (["demo", "--shots", "-1"], "--shots"),
])
def test_bad_numbers_exit_with_usage_naming_the_option(argv, named, capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {named}" in err and argv[argv.index(named) + 1] in err


def test_output_paths_are_checked_before_the_work(tmp_path, capsys):
    existing_file = tmp_path / "file.txt"
    existing_file.write_text("x")
    missing_dir = tmp_path / "missing" / "out.json"
    cases = [
        (["soak", "--shots", "5", "--json", str(missing_dir)], "--json", "no directory"),
        (["soak", "--shots", "5", "--json", str(tmp_path)], "--json", "is a directory"),
        (["eval", "--games", "1", "--csv", str(missing_dir)], "--csv", "no directory"),
        (["eval", "--games", "1", "--json", "/proc/out.json"], "--json", "cannot write in '/proc'"),
        (["play", "--gif", str(missing_dir)], "--gif", "no directory"),
        (["train", "--config", "c.yaml", "--out", str(existing_file)], "--out", "is an existing file"),
        (["train", "--config", "c.yaml", "--out", str(existing_file / "run")], "--out", "is a file"),
        (["train", "--config", "c.yaml", "--out", "/proc/poolgym-run"], "--out", "cannot write in '/proc'"),
        (["quickstart", "--out", str(existing_file)], "--out", "is an existing file"),
    ]
    for argv, option, reason in cases:
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
        out, err = capsys.readouterr()
        assert out == ""  # nothing was run
        assert f"argument {option}" in err and reason in err, err
    assert not missing_dir.parent.exists()


# ----------------------------------------------------------------- version, help, progress, play
def test_version_is_the_package_version(capsys):
    import tomllib
    from pathlib import Path

    import poolgym

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert capsys.readouterr().out == f"poolgym {poolgym.__version__}\n"
    assert poolgym.__version__ == pyproject["project"]["version"]


def test_help_lists_the_games_and_the_ladder(monkeypatch, capsys):
    from poolgym.agents.evaluation.loading import AGENT_NAMES
    from poolgym.rules import available_rulesets

    monkeypatch.setenv("COLUMNS", "1000")  # no wrapping (it breaks names at hyphens)

    for command in ("eval", "play", "bench-bot"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert all(game in text for game in available_rulesets()), command
        if command != "bench-bot":
            assert ", ".join(AGENT_NAMES) in text


def _report(text: str) -> str:
    """A command's report without its timings (which differ from run to run)."""
    import re

    return re.sub(r"[\d.]+ (moves|shots)/s|[\d.]+ s\b", "<timing>", text)


@pytest.mark.parametrize("argv, total", [
    (["eval", "-a", "fixed", "--games", "2"], "6/6"),  # the match, then random and fixed on the same racks
    (["soak", "--shots", "40"], "40/40"),
    (["bench-bot", "--racks", "2", "--budget", "fast", "--noise", "none"], "2/2"),
])
@pytest.mark.parametrize("with_tqdm", [True, False])
def test_long_commands_show_progress_on_stderr_and_keep_stdout(argv, total, with_tqdm, monkeypatch, capsys):
    if not with_tqdm:
        monkeypatch.setitem(sys.modules, "tqdm", None)  # not installed: plain lines
    assert main([*argv, "--no-progress"]) == 0
    quiet_out, quiet_err = capsys.readouterr()
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert _report(out) == _report(quiet_out) and out.strip()
    assert quiet_err == ""
    name = argv[0]
    if with_tqdm:
        assert f"{name}: 100%" in err and total in err
    else:
        lines = err.splitlines()
        assert lines[-1].startswith(f"{name}: {total} ") and all(line.startswith(f"{name}: ") for line in lines)


def test_plain_progress_prints_a_line_every_tenth(monkeypatch, capsys):
    from poolgym.agents.tools.progress import Progress

    monkeypatch.setitem(sys.modules, "tqdm", None)
    with Progress("work", 25, "racks") as progress:
        for _ in range(25):
            progress.advance()
    every_tenth = [f"work: {n}/25 racks" for n in range(2, 25, 2)]  # 25 // 10 = 2 racks a line
    assert capsys.readouterr().err.splitlines() == every_tenth + ["work: 25/25 racks"]
    with Progress("work", 25, enabled=False) as progress:
        progress.advance(25)
    assert capsys.readouterr() == ("", "")


def test_final_evaluation_of_training_reports_each_evaluation():
    from poolgym.agents.training.train import final_evaluation, final_evaluation_count
    from poolgym.agents.training.train_config import load_config

    import gymnasium as gym

    cfg = load_config("configs/train/default.yaml")
    shape = gym.make(cfg.env_id, **cfg.make_kwargs()).action_space.shape
    calls = []
    zero = lambda obs, info: np.zeros(shape, dtype=np.float32)  # noqa: E731
    rows = final_evaluation(zero, cfg, episodes=1, untrained=zero, progress=lambda: calls.append(1))
    assert len(rows) == 1 and len(calls) == final_evaluation_count(cfg, untrained=True) == 4


@pytest.mark.parametrize("environ, reason", [
    ({"SDL_VIDEODRIVER": "dummy", "DISPLAY": ":0"}, "SDL_VIDEODRIVER=dummy"),
    ({"DISPLAY": None, "WAYLAND_DISPLAY": None, "SDL_VIDEODRIVER": None}, "no DISPLAY"),
])
def test_headless_play_without_gif_says_to_use_gif(environ, reason, monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "linux")
    for name, value in environ.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert main(["play"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("poolgym play: error: no display") and reason in err and "--gif FILE" in err


def test_play_with_a_display_or_a_gif_is_not_refused(monkeypatch):
    from poolgym.agents.tools.cli import no_display_reason

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    assert no_display_reason() is None
    monkeypatch.delenv("DISPLAY")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert no_display_reason() is None
    monkeypatch.delenv("WAYLAND_DISPLAY")
    monkeypatch.setattr(sys, "platform", "darwin")  # windows without DISPLAY
    assert no_display_reason() is None


def test_train_shows_the_final_evaluation_progress_on_stderr(tmp_path, capsys):
    import yaml

    from tests.train.test_train import tiny_config

    data = tiny_config(total_steps=128, checkpoint_every=0)
    data["eval"].update(every_steps=0, final_episodes=2)
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(data))
    assert main(["train", "--config", str(config), "--out", str(tmp_path / "quiet"), "--no-progress"]) == 0
    quiet_out, quiet_err = capsys.readouterr()
    assert main(["train", "--config", str(config), "--out", str(tmp_path / "run")]) == 0
    out, err = capsys.readouterr()
    assert quiet_err == "" and "final evaluation" not in quiet_out + out
    assert "final evaluation (2 episodes of poolgym/PotBall-v1 x 4: the trained, untrained and reference " \
           "agents): 100%" in err and "4/4" in err


def test_play_gif_frames_carry_the_status_bar():
    """``poolgym play --gif`` draws its frames with ``play_and_draw``: each has the envs'
    status bar under the table, naming the players, the shooter and the verdicts."""
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol
    from poolgym.agents.tools.watch import play_and_draw
    from poolgym.render.rgb import FramePainter

    p = protocol("poolgym/NineBall-v1")
    agents = [make_agent(name, p.rules, seed=k, noise=p.noise, max_speed=p.max_speed)
              for k, name in enumerate(("fixed", "legal-random"))]
    frames = []
    play_and_draw(p.rules, Simulator(p.rules.table, noise=p.noise), agents, 0, frames.append, fps=5,
                  width_px=160, max_moves=3, log=lambda line: None, names=("A (fixed)", "B (legal-random)"))
    bare = FramePainter(p.rules.table, 160).size
    assert {f.shape for f in frames} == {(FramePainter(p.rules.table, 160, status_rows=2).size[1], 160, 3)}
    assert frames[0].shape[0] > bare[1]
    bars = {frame[bare[1]:].tobytes() for frame in frames}
    assert len(bars) > 2  # the bar's text changes as the rack goes on (who shoots, the verdicts)


@pytest.mark.parametrize("argv, bad, choice", [
    (["bench-bot", "--budget", "huge", "--racks", "1"], "'huge'", "'pro'"),
    (["bench-bot", "--budget", "fast,huge", "--compare", "HEAD"], "'huge'", "'strong'"),
    (["bench-envs", "--env", "poolgym/NoSuch-v0", "--no-scaling"], "'poolgym/NoSuch-v0'", "poolgym/NineBall-v1"),
    (["bench-envs", "--ids", "poolgym/NoSuch-v0"], "'poolgym/NoSuch-v0'", "poolgym/PotBall-v1"),
    (["bench-envs", "--modes", "aim,sideways"], "'sideways'", "'choice_discrete'"),
    (["bench-envs", "--opponent", "grandmaster"], "'grandmaster'", "'bot:weak'"),
    (["check-benchmark", "breaks", "--env", "poolgym/PotBall-v1"], "'poolgym/PotBall-v1'", "poolgym/NineBall-v1"),
    (["check-benchmark", "constant", "--env", "nine_ball"], "'nine_ball'", "poolgym/NineBall-v1"),
    (["baselines", "--env", "poolgym/PotBall-v1"], "'poolgym/PotBall-v1'", "poolgym/EightBall-v1"),
    (["eval", "--env", "poolgym/NoSuch-v0"], "'poolgym/NoSuch-v0'", "poolgym/NineBall-v1"),
    (["play", "--env", "poolgym/PotBall-v1", "--gif", "x.gif"], "'poolgym/PotBall-v1'", "poolgym/NineBall-v1"),
])
def test_unknown_envs_modes_opponents_and_budgets_are_one_line_with_the_choices(argv, bad, choice, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""  # refused before any work
    err = _one_error_line_of(err)
    assert err.startswith(f"poolgym {argv[0]}: error:") and bad in err and choice in err


def test_demo_describes_a_raised_cue_and_a_ball_leaving_the_table():
    from poolgym.agents.tools.demo import describe

    result = Simulator().simulate({0: (0.8, 1.0)}, Shot(speed=8.0, angle_deg=90.0, elevation_deg=40.0))
    lines = [describe(e) for e in result.events]
    assert "cue raised 40 deg" in lines[0]
    assert any(line.startswith("off table    ball 0 leaves at") for line in lines)


@pytest.mark.parametrize("argv, named, allowed", [
    (["check-benchmark", "breaks", "--speed", "99", "-n", "1"], "--speed", "[0.3, 12] m/s"),
    (["check-benchmark", "breaks", "--speed", "-5", "-n", "1"], "--speed", "[0.3, 12] m/s"),
    (["check-benchmark", "breaks", "--speed", "nan", "-n", "1"], "--speed", "[0.3, 12] m/s"),
    (["play", "--gif", "x.gif", "--fps", "0.001"], "--fps", "at least 0.01 frames per second"),
    (["play", "--gif", "x.txt"], "--gif", "a .gif file"),
    (["eval", "-a", "bot:", "--games", "1"], "'bot:'", "the bot rungs are ['weak', 'fast', 'normal', 'strong', 'pro', 'pro-deep']"),
    (["baselines", "--agents", "", "--racks", "1"], "--agents", "name at least one agent"),
    (["baselines", "--agents", " , ", "--racks", "1"], "--agents", "name at least one agent"),
])
def test_bad_values_are_refused_before_any_rack_is_played(argv, named, allowed, tmp_path, monkeypatch, capsys):
    from poolgym.agents.evaluation import baselines, evaluate, sweeps
    from poolgym.agents.tools import watch

    def played(*args, **kwargs):
        raise AssertionError("a rack was played before the bad value was refused")

    for module, name in ((watch, "play_and_draw"), (sweeps, "benchmark_break"), (evaluate, "run_match"),
                         (baselines, "baseline_table"), (baselines, "agent_table")):
        monkeypatch.setattr(module, name, played)
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    err = _one_error_line_of(err)
    assert out == "" and err.startswith(f"poolgym {argv[0]}: error:") and named in err and allowed in err
