"""Run folders of ``poolgym train``: atomic model writes, the lock, continuing a run,
refusing to overwrite one, Ctrl-C, and config values refused before a folder is made."""

import errno
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import gymnasium as gym
import pytest
import yaml

import poolgym.files
from poolgym.agents.tools.cli import INTERRUPTED
from poolgym.agents.training import run_folder
from poolgym.agents.training.train import load_model, save_with_env, train, training_env_record
from poolgym.agents.training.train_config import load_config

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "configs" / "train" / "default.yaml"


def tiny(**changes) -> dict:
    """The default config at a test's budget: 128 steps, a checkpoint and an evaluation at 64."""
    data = yaml.safe_load(DEFAULT.read_text())
    data["hyperparameters"].update(n_steps=64, batch_size=32, n_epochs=1)
    data.update(total_steps=128, checkpoint_every=64)
    data["eval"].update(every_steps=64, episodes=3, final_episodes=3)
    data.update(changes)
    return data


class _HalfWriter:
    """A file whose first write stops half way with a full disk."""

    def __init__(self, f) -> None:
        self.f = f

    def write(self, data) -> int:
        self.f.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self.f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.f.__exit__(*exc)


def test_a_checkpoint_write_that_fails_half_way_leaves_the_previous_one(tmp_path, monkeypatch):
    from stable_baselines3 import PPO

    cfg = load_config(tiny())
    env = gym.make(cfg.env_id, **cfg.make_kwargs())
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0)
    record = training_env_record(cfg)
    path = tmp_path / "ppo_64_steps.zip"
    save_with_env(model, path, record)
    before = path.read_bytes()
    opened = os.fdopen
    monkeypatch.setattr(poolgym.files.os, "fdopen", lambda *a, **k: _HalfWriter(opened(*a, **k)))
    with pytest.raises(OSError, match="ppo_64_steps.zip.*previous file, if any, is unchanged"):
        save_with_env(model, path, record)
    monkeypatch.undo()
    assert path.read_bytes() == before and zipfile.is_zipfile(path)
    assert load_model(path, "PPO") is not None
    assert os.listdir(tmp_path) == [path.name]  # no temporary file left


def test_a_second_run_on_a_locked_folder_is_refused_and_a_stale_lock_taken_over(tmp_path):
    out = tmp_path / "run"
    with run_folder.locked(out):
        with pytest.raises(ValueError, match=f"run folder {out} is in use by process {os.getpid()}"):
            train(tiny(), out=out)
    assert not (out / "model.zip").exists() and not (out / run_folder.LOCK).exists()
    # The lock of a process that has ended is taken over.
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    (out / run_folder.LOCK).write_text(f"{ended.pid}\n")
    summary = train(tiny(eval={"every_steps": 0, "final_episodes": 2}, checkpoint_every=0), out=out)
    assert summary["steps"] == 128 and not (out / run_folder.LOCK).exists()


def test_continuing_a_run_appends_and_another_run_is_refused_or_replaces(tmp_path):
    out = tmp_path / "run"
    first = train(tiny(), out=out)
    monitor = out / "monitor" / "0.monitor.csv"
    first_lines = monitor.read_text().splitlines()
    assert [h["timesteps"] for h in first["eval_history"]] == [0, 64, 128]

    # A second run into the folder, without --resume of its model: refused, nothing touched.
    with pytest.raises(ValueError, match=f"run folder {out} already holds a run .*--resume {out}/model.zip"):
        train(tiny(), out=out)
    with pytest.raises(ValueError, match="is one of its files"):
        train(tiny(), out=out, resume=out / "checkpoints" / "ppo_64_steps.zip")
    assert monitor.read_text().splitlines() == first_lines

    # The best score is carried on: made unbeatable here, best_model.zip must stay as it is.
    summary = json.loads((out / "summary.json").read_text())
    summary["eval_history"][0]["success_rate"] = 2.0
    (out / "summary.json").write_text(json.dumps(summary))
    best = (out / "best_model.zip").read_bytes()
    resumed = train(tiny(), out=out, resume=out / "model.zip")
    assert resumed["steps"] == 256
    lines = monitor.read_text().splitlines()
    assert lines[:len(first_lines)] == first_lines and len(lines) > len(first_lines)
    assert [h["timesteps"] for h in resumed["eval_history"]] == [0, 64, 128, 192, 256]
    assert [(s["steps_from"], s["steps_to"]) for s in resumed["segments"]] == [(0, 128), (128, 256)]
    assert (out / "best_model.zip").read_bytes() == best
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "ppo_128_steps.zip", "ppo_192_steps.zip", "ppo_256_steps.zip", "ppo_64_steps.zip"]

    # --replace: the old run's entries go first, so no later checkpoint of it is left behind.
    replaced = train(tiny(total_steps=64), out=out, replace=True)
    assert replaced["steps"] == 64 and len(replaced["segments"]) == 1
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["ppo_64_steps.zip"]
    assert len(json.loads((out / "summary.json").read_text())["eval_history"]) == 2


@pytest.mark.parametrize("change, key, allowed", [
    ({"seed": -1}, "'seed'", "an integer in [0, 2147483647]"),
    ({"seed": 2**40}, "'seed'", "an integer in [0, 2147483647]"),
    ({"env": {"id": "poolgym/PotBall-v1", "kwargs": {"bogus": 2}}}, "'env.kwargs.bogus'", "it takes ["),
    ({"hyperparameters": {"n_steps": 0}}, "'hyperparameters.n_steps'", "an integer >= 1"),
    ({"hyperparameters": {"batch_size": 0}}, "'hyperparameters.batch_size'", "an integer >= 2"),
    ({"hyperparameters": {"learning_rate": "fast"}}, "'hyperparameters.learning_rate'", "a number > 0"),
    ({"hyperparameters": {"learning_rate": float("nan")}}, "'hyperparameters.learning_rate'", "a number > 0"),
    ({"hyperparameters": {"gamma": 1.5}}, "'hyperparameters.gamma'", "a number in [0, 1]"),
    ({"hyperparameters": {"n_epochs": 2.5}}, "'hyperparameters.n_epochs'", "an integer >= 1"),
    ({"hyperparameters": {"policy_kwargs": {"net_arch": [-5]}}},
     "'hyperparameters.policy_kwargs.net_arch[0]'", "an integer >= 1"),
    ({"hyperparameters": {"policy_kwargs": {"net_arch": {"pi": [64], "vf": [0]}}}},
     "'hyperparameters.policy_kwargs.net_arch.vf[0]'", "an integer >= 1"),
    ({"hyperparameters": {"policy_kwargs": {"net_arch": "big"}}},
     "'hyperparameters.policy_kwargs.net_arch'", "a list of layer widths"),
])
def test_bad_config_values_are_refused_before_the_run_folder_is_made(tmp_path, change, key, allowed):
    path = tmp_path / "bad.yaml"
    data = tiny()
    for name, value in change.items():
        data[name] = {**data[name], **value} if name == "hyperparameters" else value
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError) as err:
        train(path, out=tmp_path / "run")
    message = str(err.value)
    assert str(path) in message and key in message and allowed in message
    assert not (tmp_path / "run").exists()


def test_a_bad_env_value_names_the_file_and_key_before_the_folder_is_made(tmp_path):
    data = tiny(env={"id": "poolgym/PotBall-v1", "kwargs": {"obs_mode": "flat", "max_speed": -3.0}})
    with pytest.raises(ValueError, match=r"<dict>: key 'env': .*max_speed"):
        train(data, out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_two_workers_make_a_variant_registered_at_run_time(tmp_path):
    gym.register("runtimetest/PotBallCopy-v0", entry_point="poolgym.envs.practice:PotBallEnv")
    try:
        data = tiny(n_envs=2, checkpoint_every=0, eval={"every_steps": 0, "final_episodes": 2})
        data["env"]["id"] = "runtimetest/PotBallCopy-v0"
        summary = train(data, out=tmp_path / "run")
    finally:
        gym.registry.pop("runtimetest/PotBallCopy-v0")
    assert summary["steps"] >= 128
    assert sorted(p.name for p in (tmp_path / "run" / "monitor").iterdir()) == ["0.monitor.csv", "1.monitor.csv"]


def test_ctrl_c_saves_the_model_and_summary_and_exits_130_in_one_line(tmp_path):
    config = tmp_path / "long.yaml"
    config.write_text(yaml.safe_dump(tiny(total_steps=10_000_000, eval={"every_steps": 0, "final_episodes": 2})))
    out = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "-m", "poolgym.agents.tools.cli", "train", "--config", str(config),
                                "--out", str(out), "--no-progress"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               start_new_session=True,
                               # As a terminal's job: a shell that started these tests in the
                               # background would have the child inherit an ignored SIGINT.
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while not (out / "checkpoints" / "ppo_128_steps.zip").exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no checkpoint after 120 s"
            time.sleep(0.2)
        os.killpg(process.pid, signal.SIGINT)  # to the process group, as Ctrl-C in a terminal
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == INTERRUPTED, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip() and "UserWarning" not in line
             and "warnings.warn" not in line]
    assert len(lines) == 1 and lines[0].startswith("poolgym train: interrupted after"), err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["final"] is None and summary["steps"] >= 128
    assert load_model(out / "model.zip", "PPO").num_timesteps == summary["steps"]
    assert not (out / run_folder.LOCK).exists()


def test_the_command_refuses_a_used_or_locked_folder_in_one_line(tmp_path, capsys):
    from poolgym.agents.tools.cli import main

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(tiny()))
    out = tmp_path / "run"
    out.mkdir()
    (out / "summary.json").write_text("{}")
    assert main(["train", "--config", str(config), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"run folder {out} already holds a run (summary.json)" in err[0]
    assert "--replace" in err[0] and os.listdir(out) == ["summary.json"]
    with run_folder.locked(out):
        assert main(["train", "--config", str(config), "--out", str(out), "--replace", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"is in use by process {os.getpid()}" in err[0]
    assert os.listdir(out) == ["summary.json"]
