"""Datasets are files from elsewhere: opened through poolgym's checks (no code run, every
fault one line), written to a copy renamed into place, one writer at a time."""

import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

minari = pytest.importorskip("minari")
h5py = pytest.importorskip("h5py")

from poolgym.agents.datasets import bc
from poolgym.agents.datasets.collect import SHIPPED_DATASET_ID, SHIPPED_DATASETS_PATH, collect
from poolgym.agents.tools.cli import main

ROOT = Path(__file__).resolve().parents[2]
NINE = {"opponent": "legal-random", "action_mode": "choice_discrete", "obs_mode": "flat"}
COLLECT_ARGS = ["collect", "--agent", "bot:fast", "--opponent", "legal-random", "--env", "poolgym/NineBall-v1",
                "--action-mode", "choice_discrete", "--observation-mode", "flat", "--episodes", "1",
                "--dataset-id", SHIPPED_DATASET_ID, "--no-progress"]


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A copy of the shipped dataset (6 episodes of bot:fast in NineBall-v1, choice_discrete,
    flat) under a fresh Minari data path; its ``data`` folder."""
    root = tmp_path / "minari"
    shutil.copytree(SHIPPED_DATASETS_PATH, root)
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    return root / SHIPPED_DATASET_ID / "data"


def _spaces():
    import gymnasium as gym

    env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", obs_mode="flat")
    try:
        return env.observation_space, env.action_space
    finally:
        env.close()


def _edit_metadata(data: Path, change) -> None:
    metadata = json.loads((data / "metadata.json").read_text())
    change(metadata)
    (data / "metadata.json").write_text(json.dumps(metadata))


def _digest(folder: Path) -> dict:
    """Every file under ``folder`` by its hash, and every folder; the datasets' lock files
    (empty, left by design) aside."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "folder"
            for p in sorted(folder.rglob("*")) if not p.name.endswith(".lock")}


def _hostile(data: Path, marker: Path) -> None:
    """Item 1's dataset: no observation_space, and an env_spec whose entry point runs a command."""
    def change(metadata):
        del metadata["observation_space"]
        spec = json.loads(metadata["env_spec"])
        spec.update(id="x/Evil-v0", entry_point="subprocess:run", kwargs={"args": ["touch", str(marker)]})
        metadata["env_spec"] = json.dumps(spec)
    _edit_metadata(data, change)


def _bc_config(tmp_path: Path) -> Path:
    import yaml

    config = yaml.safe_load((ROOT / "configs" / "train" / "nine_ball_bc_bot_fast.yaml").read_text())
    config["imitation"].update(dataset=SHIPPED_DATASET_ID, validation_share=0.34)
    config.update(total_steps=60, eval={"final_episodes": 1, "opponents": ["legal-random"], "baseline": "fixed"})
    config.pop("curve", None)
    path = tmp_path / "bc.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_a_dataset_without_its_spaces_runs_no_code_in_training_or_appending(tiny, tmp_path, capsys):
    marker = tmp_path / "MARKER"
    _hostile(tiny, marker)
    before = _digest(tiny.parent)
    assert main(["train", "--config", str(_bc_config(tmp_path)), "--no-progress", "--out", str(tmp_path / "run")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "metadata.json: dataset poolgym/nine-ball/bot-fast-tiny-v0: key 'observation_space' is missing" in line
    assert not marker.exists()
    assert main(COLLECT_ARGS) == 2
    line = _one_line(capsys.readouterr().err)
    assert "key 'observation_space' is missing" in line and "trusted=True" in line
    assert not marker.exists() and _digest(tiny.parent) == before


def test_a_half_written_dataset_folder_is_refused_naming_it(tiny, capsys):
    (tiny / "metadata.json").unlink()
    assert main(COLLECT_ARGS) == 2
    line = _one_line(capsys.readouterr().err)
    assert f"{tiny}: dataset {SHIPPED_DATASET_ID}: not a whole dataset" in line and "remove the folder" in line


def test_a_trusted_dataset_may_take_a_space_from_the_env_its_spec_names(tiny):
    from poolgym.agents.datasets.checks import read_dataset

    _edit_metadata(tiny, lambda m: m.pop("observation_space"))
    with pytest.raises(ValueError, match="key 'observation_space' is missing"):
        read_dataset(SHIPPED_DATASET_ID)
    files = read_dataset(SHIPPED_DATASET_ID, trusted=True)  # poolgym/NineBall-v1, built by Minari
    assert files.observation_space == _spaces()[0] and len(list(files.episodes())) == 6


def _truncate(data: Path) -> None:
    path = data / "main_data.hdf5"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _h5(change):
    def edit(data: Path) -> None:
        with h5py.File(data / "main_data.hdf5", "a") as f:
            change(f)
    return edit


def _replace(f, name, values):
    del f[name]
    f.create_dataset(name, data=values)


CORRUPT = {
    "total_episodes_larger_than_the_file": (
        lambda data: _edit_metadata(data, lambda m: m.update(total_episodes=9)),
        "episode_6: missing; metadata.json declares total_episodes 9"),
    "an_episode_group_deleted": (
        _h5(lambda f: f.__delitem__("episode_2")), "episode_2: missing"),
    "observations_shorter_than_actions": (
        _h5(lambda f: _replace(f, "episode_4/observations", f["episode_4/observations"][:5])),
        "episode_4: observations: 5 rows (shape (5, 482)); shape (12, 482) allowed (one more than its 11 actions)"),
    "a_slot_of_99": (
        _h5(lambda f: f["episode_3/actions"].__setitem__((0, 0), 99)),
        "episode_3: actions: row 0, element 0 is 99; 0 to 19 allowed (its MultiDiscrete space)"),
    "a_slot_of_minus_5": (
        _h5(lambda f: f["episode_0/actions"].__setitem__((4, 0), -5)),
        "episode_0: actions: row 4, element 0 is -5; 0 to 19 allowed"),
    "a_slot_its_mask_did_not_offer": (
        _h5(lambda f: f["episode_0/infos/action_masks"].__setitem__(
            (2, int(f["episode_0/actions"][2, 0])), False)),
        "episode_0: infos/action_masks: row 2 does not offer the recorded action"),
    "a_nan_observation": (
        _h5(lambda f: f["episode_4/observations"].__setitem__((1, 7), np.nan)),
        "episode_4: observations: row 1, element 7 is nan; finite numbers allowed"),
    "a_garbage_observation_space": (
        lambda data: _edit_metadata(data, lambda m: m.update(observation_space='{"type": "Box"}')),
        "key 'observation_space': Box key 'shape' is None; a list of whole numbers"),
    "an_observation_space_that_is_no_json": (
        lambda data: _edit_metadata(data, lambda m: m.update(observation_space="garbage")),
        "key 'observation_space': not a space"),
    "an_infinite_reward": (
        _h5(lambda f: f["episode_5/rewards"].__setitem__(3, np.inf)),
        "episode_5: rewards: row 3 is inf; finite numbers allowed"),
    "rewards_read_from_another_file": (
        _h5(lambda f: (f.__delitem__("episode_0/rewards"),
                       f["episode_0"].__setitem__("rewards", h5py.ExternalLink("/etc/hostname", "/x")))),
        "episode_0: rewards: a link (ExternalLink); only members stored in this file allowed"),
    "a_truncated_hdf5_file": (
        _truncate, "main_data.hdf5: dataset poolgym/nine-ball/bot-fast-tiny-v0: not a readable HDF5 file"),
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_a_damaged_dataset_is_refused_in_one_line_naming_file_dataset_episode_and_field(tiny, case):
    damage, message = CORRUPT[case]
    damage(tiny)
    with pytest.raises(ValueError) as refused:
        bc.load_imitation_data(SHIPPED_DATASET_ID, *_spaces())
    text = str(refused.value)
    assert "\n" not in text and message in text, text
    assert str(tiny) in text and SHIPPED_DATASET_ID in text


def test_behaviour_cloning_refuses_a_damaged_dataset_in_one_line_before_the_run_folder(tiny, tmp_path, capsys):
    CORRUPT["a_nan_observation"][0](tiny)
    assert main(["train", "--config", str(_bc_config(tmp_path)), "--no-progress", "--out", str(tmp_path / "run")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "episode_4: observations: row 1, element 7 is nan; finite numbers allowed" in line
    assert not (tmp_path / "run" / "model.zip").exists() and not (tmp_path / "run" / "summary.json").exists()


def test_the_json_writer_refuses_a_non_finite_number_naming_file_and_key(tmp_path):
    from poolgym.files import atomic_write_json

    path = tmp_path / "summary.json"
    atomic_write_json(path, {"imitation": {"fit": {"nll": 1.5}}})
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match=r"summary.json: not written: key 'imitation.fit.nll' is not a "
                                             r"finite number"):
            atomic_write_json(path, {"imitation": {"fit": {"nll": bad}}})
    with pytest.raises(ValueError, match=r"key 'final\[1\].rate'"):
        atomic_write_json(path, {"final": [{"rate": 0.5}, {"rate": float("nan")}]})
    assert json.loads(path.read_text()) == {"imitation": {"fit": {"nll": 1.5}}}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]


def _fail_on_write(monkeypatch, after: int = 0):
    """Every Minari episode write after the first ``after`` ones writes part of its episode
    and then fails as a full disk does."""
    from minari.dataset._storages import hdf5_storage

    real, calls = hdf5_storage._add_episode_to_group, []

    def add(buffer, group, spaces=None):
        if "rewards" not in buffer:  # Minari's own call for an episode's infos
            return real(buffer, group, spaces)
        calls.append(1)
        if len(calls) > after:
            real({"rewards": buffer["rewards"]}, group)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(buffer, group, spaces)
    monkeypatch.setattr(hdf5_storage, "_add_episode_to_group", add)


def test_a_full_disk_while_appending_leaves_the_dataset_as_it_was(tiny, monkeypatch, capsys):
    before = _digest(tiny.parent.parent)
    _fail_on_write(monkeypatch)
    assert main(COLLECT_ARGS) == 1
    line = _one_line(capsys.readouterr().err)
    assert f"cannot write dataset {SHIPPED_DATASET_ID} (No space left on device); the dataset is unchanged" in line
    assert _digest(tiny.parent.parent) == before  # the same files, byte for byte; no copy left beside
    monkeypatch.undo()
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tiny.parents[3]))
    result = collect("bot:fast", "poolgym/NineBall-v1", 1, SHIPPED_DATASET_ID, **NINE)  # the id still usable
    assert (result.episodes, result.total_episodes) == (1, 7)
    assert minari.load_dataset(SHIPPED_DATASET_ID).total_episodes == 7


def test_a_full_disk_in_a_new_dataset_leaves_nothing_behind(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    _fail_on_write(monkeypatch, after=2)
    with pytest.raises(OSError, match="cannot write dataset test/pot-ball/full-v0"):
        collect("fixed", "poolgym/PotBall-v1", 5, "test/pot-ball/full-v0", flush_every=2)
    namespace = tmp_path / "minari" / "test" / "pot-ball"
    assert [p.name for p in namespace.iterdir()] == [".full-v0.lock"]  # no folder, no working copy
    monkeypatch.undo()
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    assert collect("fixed", "poolgym/PotBall-v1", 2, "test/pot-ball/full-v0").total_episodes == 2


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0,
                    reason="mounting a small tmpfs needs root on Linux")
def test_a_real_full_disk_is_met_in_one_line_with_the_dataset_unchanged(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        shutil.copytree(SHIPPED_DATASETS_PATH, disk / "minari")
        before = _digest(disk / "minari")
        args = list(COLLECT_ARGS)
        args[args.index("--episodes") + 1] = "30"
        done = subprocess.run([sys.executable, "-m", "poolgym.agents.tools.cli", *args], capture_output=True,
                              text=True, timeout=600,
                              env={**os.environ, "MINARI_DATASETS_PATH": str(disk / "minari")})
        assert done.returncode == 1, done.stderr
        line = _one_line(done.stderr)
        assert f"cannot write dataset {SHIPPED_DATASET_ID}" in line and "the dataset is unchanged" in line
        assert _digest(disk / "minari") == before
    finally:
        subprocess.run(["umount", str(disk)])


def test_the_working_copy_a_killed_collection_left_is_removed_by_the_next(tiny):
    left = tiny.parents[1] / f".{tiny.parent.name}.0123abcd.tmp"
    shutil.copytree(tiny.parent, left)  # what a run killed before renaming leaves
    other = tiny.parents[1] / ".bot-fast-tiny-v0.extra-v0.0123abcd.tmp"  # not this dataset's
    other.mkdir()
    assert collect("bot:fast", "poolgym/NineBall-v1", 1, SHIPPED_DATASET_ID, **NINE).total_episodes == 7
    assert not left.exists() and other.exists()
    assert minari.load_dataset(SHIPPED_DATASET_ID).total_episodes == 7


def test_sigterm_keeps_the_finished_episodes_and_sigkill_leaves_the_dataset_as_it_was(tiny):
    import signal
    import time

    env = {**os.environ, "MINARI_DATASETS_PATH": str(tiny.parents[3]), "OMP_NUM_THREADS": "1"}
    args = list(COLLECT_ARGS)
    args[args.index("--episodes") + 1] = "500"
    copy = tiny.parents[1] / f".{tiny.parent.name}"
    for sig in (signal.SIGKILL, signal.SIGTERM):
        before = _digest(tiny.parents[1])
        present = set(os.listdir(tiny.parents[1]))  # a copy the SIGKILL left is not this run's
        run = subprocess.Popen([sys.executable, "-m", "poolgym.agents.tools.cli", *args], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        # Sent once the run's working copy holds episodes of its own (a batch was written).
        while not any(p.name.startswith(copy.name + ".") and p.name.endswith(".tmp") and p.name not in present and
                      (p / "data" / "main_data.hdf5").exists() and
                      (p / "data" / "main_data.hdf5").stat().st_size > (tiny / "main_data.hdf5").stat().st_size
                      for p in tiny.parents[1].iterdir()):
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()
            time.sleep(0.2)
        run.send_signal(sig)
        out, err = run.communicate(timeout=300)
        if sig == signal.SIGKILL:
            assert run.returncode == -signal.SIGKILL
            assert {k: v for k, v in _digest(tiny.parents[1]).items() if ".tmp" not in k} == before
        else:
            assert run.returncode == 130, err
            assert "interrupted: kept" in out
    kept = minari.load_dataset(SHIPPED_DATASET_ID).total_episodes
    assert kept >= 6 + 20  # one batch at least, from the SIGTERM run
    assert [p.name for p in tiny.parents[1].iterdir() if p.name.endswith(".tmp")] == []


def test_a_second_collection_on_one_dataset_is_refused_naming_it(tiny, capsys):
    lock = tiny.parent.parent / f".{tiny.parent.name}.lock"
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys; f = open(sys.argv[1], 'a'); "
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
                               str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        before = _digest(tiny.parent)
        assert main(COLLECT_ARGS) == 2
        line = _one_line(capsys.readouterr().err)
        assert f"dataset {SHIPPED_DATASET_ID} is being written by another process" in line and str(lock) in line
        assert _digest(tiny.parent) == before
    finally:
        holder.communicate("", timeout=30)
