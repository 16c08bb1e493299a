"""``poolgym.agents.tools.speed_compare``: the same probe in fresh processes of this tree and of a commit."""

from __future__ import annotations

import pytest

from poolgym.agents.tools import speed_compare
from poolgym.agents.tools.cli import main

ENV_CASE = dict(env_id="poolgym/NineBall-v0", action_mode="aim", noise="tournament", opponent="random", steps=5)


def test_compare_with_a_commit_measures_both_trees():
    rows = speed_compare.compare("env", [ENV_CASE], "steps_per_s", "HEAD", reps=1)
    (row,) = rows
    others = [k for k in row if k not in ENV_CASE and k not in (speed_compare.CURRENT, "ratio")]
    assert len(others) == 1  # the commit's short hash
    assert row[speed_compare.CURRENT] > 0 and row[others[0]] > 0
    assert row["ratio"] == pytest.approx(row[speed_compare.CURRENT] / row[others[0]], rel=0.01)


def test_compare_without_a_commit_measures_this_tree_alone():
    (row,) = speed_compare.compare("env", [ENV_CASE], "steps_per_s", None, reps=1)
    assert row[speed_compare.CURRENT] > 0 and "ratio" not in row


def test_the_env_probes_report_cpu_time_steps_too():
    """Steps per second of the process's CPU time, a key of its own, beside the wall-clock
    figure (the masked env-alone probe in this process too)."""
    (row,) = speed_compare.compare("env", [ENV_CASE], "cpu_steps_per_s", None, reps=1)
    assert row[speed_compare.CURRENT] > 0
    masked = speed_compare.masked_env_rate(str(speed_compare.ROOT / "configs/train/nine_ball_maskable_ppo.yaml"),
                                           steps=5)
    assert masked["cpu_steps_per_s"] > 0 and masked["steps_per_s"] > 0


@pytest.mark.parametrize("probe, rev, reps, match", [
    ("env", "no-such-commit-xyz", 1, "not a commit"),
    ("gpu", None, 1, "probe must be one of"),
    ("env", None, 0, "reps must be"),
])
def test_bad_arguments_are_named(probe, rev, reps, match):
    with pytest.raises(ValueError, match=match):
        speed_compare.compare(probe, [ENV_CASE], "steps_per_s", rev, reps=reps)


def test_a_failing_probe_reports_its_error():
    with pytest.raises(RuntimeError, match="action_mode"):
        speed_compare.compare("env", [dict(ENV_CASE, action_mode="psychic")], "steps_per_s", None, reps=1)


def test_bench_bot_compare_prints_moves_per_second(capsys):
    assert main(["bench-bot", "--racks", "1", "--noise", "none", "--budget", "fast", "--compare", "HEAD"]) == 0
    out = capsys.readouterr().out
    assert "working tree moves/s" in out and "ratio" in out and "fast" in out


def test_bench_envs_table_per_id_and_mode(capsys):
    assert main(["bench-envs", "--steps", "5", "--reps", "1", "--no-scaling", "--modes", "aim,raw"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "working tree steps/s" in lines[0]
    assert [line.split()[1] for line in lines[1:3]] == ["aim", "raw"]


def test_bench_envs_batched_reports_a_row_per_thread_count(tmp_path, capsys):
    """``--threads``: a row per count the batched env uses (never more than its tables, so
    one table gives one row), the single env and the wrapping measured once per table count,
    the batched env's ratio to itself on the first count."""
    import json

    out = tmp_path / "bench.json"
    assert main(["bench-envs", "--batched", "1,3", "--threads", "1,2", "--modes", "aim", "--steps", "6",
                 "--reps", "1", "--json", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split()[:3] == ["mode", "N", "thr"] and "b/1st" in printed[0]
    rows = json.loads(out.read_text())["batched"]
    assert [(r["num_envs"], r["num_threads"]) for r in rows] == [(1, 1), (3, 1), (3, 2)]
    one, two = rows[1:]
    assert all(one[key] == two[key] for key in ("single_steps_per_s", "sync_steps_per_s"))
    assert two["batched_over_first_threads"] == round(two["batched_steps_per_s"] / one["batched_steps_per_s"], 3)
    assert all(r["batched_steps_per_s"] > 0 for r in rows)
    for argv, message in ((["--batched", "2", "--threads", "0"], "--threads must be comma-separated thread counts"),
                          (["--batched", "2", "--threads", "x"], "--threads must be comma-separated thread counts"),
                          (["--threads", "2"], "--threads counts the batched env's threads: give --batched")):
        assert main(["bench-envs", *argv]) == 2
        assert message in capsys.readouterr().err


def test_bench_envs_batched_reports_a_row_per_count_of_processes(tmp_path, capsys):
    """``--workers``: a row per count of processes above one, beside the batched env in one
    process, its ratio to that one; the CPU figure counts the workers' time too."""
    import json

    out = tmp_path / "bench.json"
    assert main(["bench-envs", "--batched", "3", "--workers", "2,5", "--modes", "aim", "--steps", "6",
                 "--reps", "1", "--json", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split()[:4] == ["mode", "N", "thr", "wrk"]
    rows = json.loads(out.read_text())["batched"]
    assert [(r["num_envs"], r["num_threads"], r["num_workers"]) for r in rows] == [(3, 1, 1), (3, 1, 2), (3, 1, 3)]
    one = rows[0]
    for row in rows[1:]:
        assert row["batched_over_first_threads"] == round(row["batched_steps_per_s"] / one["batched_steps_per_s"], 3)
        assert 0 < row["batched_cpu_steps_per_s"] < 10 * row["batched_steps_per_s"]
    for argv, message in ((["--batched", "2", "--workers", "0"], "--workers must be comma-separated process counts"),
                          (["--workers", "2"], "--workers counts the batched env's processes: give --batched")):
        assert main(["bench-envs", *argv]) == 2
        assert message in capsys.readouterr().err


def test_a_commit_whose_batched_env_has_no_thread_count_is_timed_on_its_one_thread():
    """The probe gives ``num_threads`` only to a batched env that takes it (a commit from
    before it is timed as it is)."""
    import gymnasium as gym

    from poolgym.envs.batched import BatchedPotBallEnv

    def before_threads(num_envs: int = 1, max_episode_steps: int | None = None, **kwargs):
        return BatchedPotBallEnv(num_envs, max_episode_steps, num_threads=1, **kwargs)

    gym.register("poolgym/DrillBeforeThreads-v0", entry_point="poolgym.envs.practice:PotBallEnv",
                 vector_entry_point=before_threads)
    try:
        assert speed_compare._takes("poolgym/PotBall-v1", "num_threads")
        assert not speed_compare._takes("poolgym/DrillBeforeThreads-v0", "num_threads")
        assert speed_compare._takes("poolgym/PotBall-v1", "num_workers")
        assert not speed_compare._takes("poolgym/DrillBeforeThreads-v0", "num_workers")
        wall, cpu = speed_compare.time_kind("batched", "poolgym/DrillBeforeThreads-v0", "aim", 2, 2, num_threads=2,
                                            num_workers=2)
        assert wall > 0 and cpu > 0
    finally:
        del gym.registry["poolgym/DrillBeforeThreads-v0"]


def test_the_simulator_probe_times_a_bench_case_in_this_tree_and_a_commit():
    (row,) = speed_compare.compare("sim", [dict(case="straight_in", reps=1)], "shots_per_s", "HEAD", reps=1)
    others = [k for k in row if k not in ("case", "reps", speed_compare.CURRENT, "ratio")]
    assert len(others) == 1 and row[speed_compare.CURRENT] > 0 and row[others[0]] > 0


@pytest.mark.parametrize("recipe", ["nine_ball_maskable_ppo", "pot_ball_maskable_ppo"])
def test_bench_train_prints_training_and_env_steps_per_second(tmp_path, capsys, recipe):
    """``poolgym bench-train`` on a tiny MaskablePPO config (outside the repository, so the
    file is read as it is): the training and the env-alone tables, this tree's figures; the
    drill's recipe has no opponent (its env section was read back with ``opponent: None``)."""
    import yaml

    config = yaml.safe_load((speed_compare.ROOT / f"configs/train/{recipe}.yaml").read_text())
    config["hyperparameters"].update(n_steps=16, batch_size=16, n_epochs=1, policy_kwargs={"net_arch": [8]})
    config.update(n_envs=2, vec_env="dummy")
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["bench-train", "--config", str(path), "--steps", "32", "--env-steps", "5", "--repeats", "1",
                 "--bot-budgets", "", "--json", str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    assert "training" in out and "env alone" in out and "working tree steps/s" in out and "ratio" not in out
    import json

    report = json.loads((tmp_path / "out.json").read_text())
    assert report["train"][0][speed_compare.CURRENT] > 0 and report["env_masked"][0][speed_compare.CURRENT] > 0


def test_bench_train_with_no_training_steps_reports_the_env_alone(tmp_path, capsys):
    """``--steps 0``: no training figure, the env-alone one only (no bot budgets here)."""
    recipe = str(speed_compare.ROOT / "configs/train/nine_ball_maskable_ppo.yaml")
    assert main(["bench-train", "--config", recipe, "--steps", "0",
                 "--env-steps", "5", "--repeats", "1", "--bot-budgets", "", "--json",
                 str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    assert "training" not in out and "env alone" in out
    import json

    report = json.loads((tmp_path / "out.json").read_text())
    assert "train" not in report and report["env_masked"][0][speed_compare.CURRENT] > 0


def test_bench_train_refuses_a_negative_step_count(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench-train", "--config", str(speed_compare.ROOT / "configs/train/nine_ball_maskable_ppo.yaml"),
              "--steps", "-1"])
    assert exc.value.code == 2
    assert "argument --steps: must be 0 or more, got -1" in capsys.readouterr().err


def test_bench_train_names_a_missing_config(capsys):
    assert main(["bench-train", "--config", "no/such.yaml", "--repeats", "1"]) == 2
    assert "no/such.yaml" in capsys.readouterr().err


def test_an_exported_commit_imports_its_own_agents_in_every_process(tmp_path):
    """A process started from the exported tree alone (as a recipe's env workers are, with
    the tree on PYTHONPATH) imports ``poolgym.agents`` and ``poolgym.configs`` from the
    tree, not from the installed checkout."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    speed_compare.export("HEAD", tmp_path)
    tree = (tmp_path / "tree").resolve()
    code = "import poolgym.agents.tools, poolgym.configs; print(poolgym.agents.tools.__file__, poolgym.configs.__path__[0])"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=str(tree))).stdout.split()
    assert [Path(p).resolve().is_relative_to(tree) for p in out] == [True, True]


def test_bench_bot_compare_refuses_other_racks_or_caps(capsys):
    """``--compare`` times the bench's own setting: another rack model or stroke cap is
    refused before anything is timed."""
    assert main(["bench-bot", "--racks", "1", "--budget", "fast", "--compare", "HEAD",
                 "--rack-model", "benchmark"]) == 2
    assert "--rack-model" in capsys.readouterr().err
