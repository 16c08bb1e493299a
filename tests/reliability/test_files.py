"""poolgym.files: atomic writes keep the previous file on a failed write; bounded reads stop
at their limit on special and growing files."""

import errno
import os

import pytest

from poolgym import files


def test_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "out.json"
    files.atomic_write_text(path, "first")
    files.atomic_write_text(path, "second")
    assert path.read_text() == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_failed_write_leaves_the_previous_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "game.json"
    files.atomic_write_text(path, "good")

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="cannot write .*game.json.*No space left.*unchanged"):
        files.atomic_write_text(path, "x" * 100_000)
    assert path.read_text() == "good"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_an_exception_inside_the_block_removes_the_temporary(tmp_path):
    path = tmp_path / "model.zip"
    with pytest.raises(KeyboardInterrupt):
        with files.atomic_writer(path, "wb") as f:
            f.write(b"partial")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_read_bounded_reads_a_regular_file_and_stops_at_the_limit(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_bytes(b"x" * 100)
    assert files.read_bounded(path, 100) == b"x" * 100
    with pytest.raises(files.FileTooLarge, match="larger than 99 bytes"):
        files.read_bounded(path, 99, "the variant")


def test_read_bounded_refuses_devices_and_fifos_without_reading(tmp_path):
    link = tmp_path / "evil.yaml"
    link.symlink_to("/dev/zero")
    with pytest.raises(ValueError, match="evil.yaml: cannot read the variant: not a regular file"):
        files.read_bounded(link, 1024, "the variant")
    fifo = tmp_path / "x.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        files.read_bounded(fifo, 1024)  # returns at once: a plain open would wait for a writer


# ------------------------------------------------------------------ the readers that use them
def _special_files(folder, name):
    """A link to /dev/zero and a FIFO, both named like the files a reader takes."""
    link = folder / f"zero_{name}"
    link.symlink_to("/dev/zero")
    fifo = folder / f"fifo_{name}"
    os.mkfifo(fifo)
    return link, fifo


@pytest.fixture
def no_hang():
    """Fails a test that blocks (a FIFO opened without O_NONBLOCK waits for ever)."""
    import signal

    def hung(signum, frame):
        raise TimeoutError("the read blocked")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_register_directory_refuses_special_files_without_reading_them(tmp_path, no_hang):
    import poolgym

    link, fifo = _special_files(tmp_path, "evil.yaml")
    for path in (link, fifo):
        with pytest.raises(ValueError, match=rf"{path}: cannot read the variant: not a regular file"):
            poolgym.register_from_yaml(path)
    with pytest.raises(ValueError, match="not a regular file"):
        poolgym.register_directory(tmp_path)


def test_training_configs_refuse_special_files(tmp_path, no_hang):
    from poolgym.agents.training.train_config import load_config

    for path in _special_files(tmp_path, "config.yaml"):
        with pytest.raises(ValueError, match=rf"{path}: cannot read the training config: not a regular file"):
            load_config(path)


def test_saved_game_load_refuses_special_files_and_stops_at_its_limit(tmp_path, no_hang, monkeypatch):
    from poolgym import saved_game

    for path in (*_special_files(tmp_path, "game.json"), "/dev/zero"):
        with pytest.raises(saved_game.SavedGameError, match=rf"{path}: cannot read the saved game: not a regular file"):
            saved_game.load(path)
    monkeypatch.setattr(saved_game, "MAX_BYTES", 1000)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 5000)
    with pytest.raises(saved_game.SavedGameError, match=r"big.json: cannot read the saved game: larger than 1000 bytes"):
        saved_game.load(big)


def test_a_bounded_zip_member_stops_while_it_decompresses(tmp_path):
    import zipfile

    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("record.json", "w") as member:
            for _ in range(16):  # 16 MiB of spaces, about 16 KiB compressed
                member.write(b" " * (1 << 20))
    assert path.stat().st_size < 1 << 20
    with zipfile.ZipFile(path) as archive:
        assert files.read_bounded_member(archive, "record.json", 1 << 27, "the record") == b" " * (16 << 20)
        with pytest.raises(files.FileTooLarge, match=r"bomb.zip: cannot read the record: larger than 1000 bytes"):
            files.read_bounded_member(archive, "record.json", 1000, "the record")


def test_a_device_destination_is_written_in_place_and_a_full_one_is_one_error():
    with files.atomic_writer("/dev/null") as f:
        f.write("discarded")
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")  # still the device
    with pytest.raises(OSError, match=r"^\[Errno 28\] cannot write /dev/full: No space left on device$"):
        files.atomic_write_text("/dev/full", "x" * 100_000)


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs (skipped where mounting is not allowed)."""
    import subprocess

    folder = tmp_path / "disk"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (the injected-OSError tests cover the same path)")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_leaves_the_previous_saved_game_intact(small_disk):
    import gymnasium as gym

    from poolgym.saved_game import RecordGame, load

    env = RecordGame(gym.make("poolgym/NineBall-v0", opponent="uniform-action"))
    env.reset(seed=0)
    env.step(env.action_space.sample())
    path = small_disk / "game.json"
    env.save(path)
    good = path.read_bytes()
    (small_disk / "filler").write_bytes(b"x" * (64 * 1024 - len(good) - 8192))
    big = env.saved_game
    big = type(big)(**{**big.__dict__, "moves": big.moves * 20})
    with pytest.raises(OSError, match=rf"^\[Errno 28\] cannot write {path}: No space left on device; "
                                      "the previous file, if any, is unchanged$"):
        big.save(path)
    assert path.read_bytes() == good and load(path).moves == env.saved_game.moves
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "game.json"]


def test_an_atomic_write_gives_the_file_the_mode_a_plain_open_would(tmp_path):
    mask = os.umask(0o027)
    try:
        files.atomic_write_text(tmp_path / "report.json", "{}")
        with open(tmp_path / "plain.json", "w") as f:
            f.write("{}")
    finally:
        os.umask(mask)
    assert (tmp_path / "report.json").stat().st_mode == (tmp_path / "plain.json").stat().st_mode


def test_an_atomic_write_through_a_link_replaces_its_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "runs" / "report.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    files.atomic_write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.json"]


def test_the_json_the_commands_write_and_read_holds_finite_numbers_only(tmp_path):
    """``--json`` reports (``write_json``) and a shipped agent's files were written with
    Python's ``json.dumps``, which writes ``NaN`` (not JSON); ``json_value`` reads a file's
    JSON refusing ``NaN`` and ``Infinity``, which Python's reader takes."""
    import json
    import shutil
    from pathlib import Path

    from poolgym.agents.tools.script_io import write_json
    from poolgym.agents.training.shipping import ship_run

    report = tmp_path / "report.json"
    report.write_text('{"previous": 1}')
    with pytest.raises(ValueError, match=rf"^{report}: not written: key 'rows\[1\].win_rate' is not a finite number"):
        write_json(str(report), {"rows": [{"win_rate": 0.5}, {"win_rate": float("nan")}]})
    assert report.read_text() == '{"previous": 1}'
    path = tmp_path / "x.json"
    for raw, constant in ((b'{"a": [1, NaN]}', "NaN"), (b'{"a": -Infinity}', "-Infinity")):
        with pytest.raises(ValueError, match=rf"^{path}: not a thing \(not JSON: it holds {constant}; JSON holds "
                                             r"finite numbers only\)$"):
            files.json_value(raw, path, "a thing")
    assert files.json_value(b'{"a": [1, 2.5e300]}', path, "a thing") == {"a": [1, 2.5e300]}
    run = tmp_path / "run"
    shutil.copytree(Path(__file__).resolve().parents[2] / "agents" / "pretrained" / "nine_ball", run)
    summary = json.loads((run / "summary.json").read_text())
    summary["train_time_s"] = 12345.5
    (run / "summary.json").write_text(json.dumps(summary).replace("12345.5", "Infinity"))
    with pytest.raises(ValueError, match=rf"^{run / 'summary.json'}: not a run summary \(not JSON: it holds Infinity"):
        ship_run(run, tmp_path / "shipped", "nine_ball", "a test")
    assert not (tmp_path / "shipped").exists()
