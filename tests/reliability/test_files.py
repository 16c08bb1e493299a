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
