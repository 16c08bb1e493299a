"""``poolgym eval`` and ``poolgym play`` on tiny budgets."""

import csv
import json

import pytest

from poolgym.agents.tools.cli import main
from poolgym.agents.evaluation.evaluate import wilson_interval


def test_wilson_interval():
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-3) and high == pytest.approx(0.9433, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_eval_writes_json_and_csv(tmp_path):
    out_json, out_csv = tmp_path / "s.json", tmp_path / "s.csv"
    argv = ["eval", "--game", "nine_ball", "-a", "bot:fast", "-b", "random", "--games", "2",
            "--seed", "1", "--json", str(out_json), "--csv", str(out_csv)]
    assert main(argv) == 0
    summary = json.loads(out_json.read_text())
    assert summary["racks"] == 2 and set(summary["agents"]) == {"bot:fast", "random"}
    rows = list(csv.DictReader(out_csv.open()))
    assert rows and rows[0]["break_shot"] == "True"
    assert "win_rate_ci95" in summary["agents"]["bot:fast"]
    assert main(argv) == 0  # seeded: the same games again, shot for shot
    again = list(csv.DictReader(out_csv.open()))
    untimed = lambda rs: [{k: v for k, v in r.items() if k != "think_s"} for r in rs]  # noqa: E731
    assert untimed(again) == untimed(rows)


def test_eval_takes_a_policy_by_import_path(tmp_path):
    out_json = tmp_path / "s.json"
    assert main(["eval", "-a", "tests.agents.policies:centre_policy", "-b", "random",
                 "--games", "1", "--json", str(out_json)]) == 0
    assert json.loads(out_json.read_text())["agents"]["tests.agents.policies:centre_policy"]["shots"] > 0


def test_play_writes_a_gif(tmp_path):
    pytest.importorskip("PIL")
    pytest.importorskip("pygame")
    gif = tmp_path / "rack.gif"
    assert main(["play", "-a", "bot:fast", "-b", "bot:fast", "--gif", str(gif), "--fps", "4"]) == 0
    from PIL import Image
    with Image.open(gif) as image:
        assert image.n_frames > 5


@pytest.mark.parametrize("name", ["random", "legal-random", "fixed", "bot:weak", "bot:fast", "bot:normal"])
def test_eval_takes_every_ladder_name(tmp_path, name):
    out_json = tmp_path / "s.json"
    assert main(["eval", "-a", name, "-b", "legal-random", "--games", "1", "--json", str(out_json)]) == 0
    summary = json.loads(out_json.read_text())
    a = f"{name}_a" if name == "legal-random" else name  # two agents of one name get suffixes
    assert summary["agents"][a]["shots"] > 0
    # The reference points are measured beside A on the same rack against the same B.
    assert set(summary["references"]["agents"]) == {"random", "fixed"}
    assert main(["eval", "-a", "fixed", "-b", name, "--games", "1"]) == 0


def test_the_console_script_freezes_the_imports_and_main_does_not(tmp_path):
    """The ``poolgym`` command (``cli.command``) puts the objects its imports made beyond the
    cyclic collector before it runs a subcommand; ``main`` called from Python leaves the
    caller's collector alone. Both run the command the same way."""
    import subprocess
    import sys

    script = ("import gc, sys\n"
              "from poolgym.agents.tools import cli\n"
              "entry = sys.argv[-1]\n"
              "sys.argv = ['poolgym', 'eval', '--game', 'nine_ball', '-a', 'fixed', '-b', 'random',\n"
              "            '--games', '1', '--seed', '3', '--json', sys.argv[2]]\n"
              "rc = cli.command() if entry == 'command' else cli.main(sys.argv[1:])\n"
              "print(rc, gc.get_freeze_count())\n")
    frozen = {}
    for entry in ("command", "main"):
        out = tmp_path / f"{entry}.json"
        proc = subprocess.run([sys.executable, "-c", script.replace("sys.argv[2]", repr(str(out))), entry],
                              capture_output=True, text=True, check=True)
        rc, frozen[entry] = map(int, proc.stdout.splitlines()[-1].split())
        assert rc == 0 and json.loads(out.read_text())["racks"] == 1
    assert frozen["main"] == 0
    assert frozen["command"] > 50_000  # the modules, numba's machinery: ~125,000 objects
