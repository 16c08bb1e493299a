"""Crafted model zips are refused with one line naming the file, read within bounds; a
model of another game is refused as a pretrained agent of another game is by name."""

import json
import zipfile

import pytest

from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.pretrained import pretrained_model
from poolgym.agents.tools.cli import main
from poolgym.envs.sb3_models import ENV_RECORD, MAX_RECORD_BYTES, parse_model_spec, read_env_record
from poolgym.rules import get_ruleset

MODEL = str(pretrained_model("nine_ball"))  # a MaskablePPO model with its record


def _copy(path, record=None):
    """The pretrained model at ``path`` with ``record`` (bytes, a dict, or None for none)
    in place of its own."""
    with zipfile.ZipFile(MODEL) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            if info.filename != ENV_RECORD:
                out.writestr(info.filename, src.read(info.filename))
        if record is not None:
            out.writestr(ENV_RECORD, record if isinstance(record, bytes) else json.dumps(record))
    return str(path)


@pytest.fixture(scope="module")
def good_record():
    with zipfile.ZipFile(MODEL) as archive:
        return json.loads(archive.read(ENV_RECORD))


def _refused(spec, match):
    with pytest.raises(ValueError, match=match) as err:
        make_agent(spec, get_ruleset("nine_ball"))
    assert "\n" not in str(err.value) and len(str(err.value)) < 700
    return str(err.value)


def test_an_empty_zip_or_one_that_is_not_a_model_is_one_error(tmp_path):
    zipfile.ZipFile(tmp_path / "empty.zip", "w").close()
    with zipfile.ZipFile(tmp_path / "text.zip", "w") as archive:
        archive.writestr("hello.txt", "hi")
    for name in ("empty.zip", "text.zip"):
        path = str(tmp_path / name)
        _refused(path, rf"{path}: not a saved stable-baselines3 model \(no 'data' entry\)")


def test_a_deep_record_is_refused_naming_the_file(tmp_path):
    path = _copy(tmp_path / "deep.zip", ("[" * 200_000 + "]" * 200_000).encode())
    _refused(path, rf"{path}: {ENV_RECORD} is nested too deeply")
    path = _copy(tmp_path / "deeper.zip", ("[" * 50 + "]" * 50).encode())
    _refused(path, rf"{path}: {ENV_RECORD} is nested deeper than 8 levels")


@pytest.mark.parametrize("edit, match", [
    (lambda r: r.pop("min_speed"), r"has no 'min_speed'"),
    (lambda r: r.update(max_speed="fast"), r"field 'max_speed' must be int or float, got str 'fast'"),
    (lambda r: r.update(observe_match=1), r"field 'observe_match' must be bool, got int 1"),
    (lambda r: r.update(action_mode="telepathy"), r"action_mode must be one of"),
    (lambda r: r.update(algorithm="pickle"), r"field 'algorithm' must be one of"),
])
def test_a_record_with_a_missing_or_bad_field_is_refused_naming_it(tmp_path, good_record, edit, match):
    record = dict(good_record)
    edit(record)
    path = _copy(tmp_path / "bad.zip", record)
    _refused(path, rf"{path}: {ENV_RECORD}.*{match}")


def test_a_record_that_expands_past_its_limit_is_stopped_while_it_decompresses(tmp_path):
    path = tmp_path / "bomb.zip"
    _copy(path)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        with archive.open(ENV_RECORD, "w") as member:
            for _ in range(32):  # 32 MiB of spaces in a few tens of KiB
                member.write(b" " * (1 << 20))
    with pytest.raises(ValueError, match=rf"{path}: cannot read {ENV_RECORD}: larger than {MAX_RECORD_BYTES} bytes"):
        read_env_record(str(path))
    _refused(str(path), "larger than")


def test_a_maskable_model_without_its_record_is_named_by_its_policy_class(tmp_path):
    path = _copy(tmp_path / "norecord.zip")
    assert read_env_record(path) is None
    assert parse_model_spec(path) == ("MaskablePPO", path)
    # Loaded as PPO on request: refused before SB3 reads it, naming the algorithm it holds.
    _refused(f"PPO:{path}", rf"model file '{path}' holds a MaskablePPO model .* load it as MaskablePPO:{path}")


def test_the_pretrained_agent_still_loads():
    agent = make_agent(MODEL, get_ruleset("nine_ball"))
    assert agent.env_record["algorithm"] == "MaskablePPO"


def test_eval_refuses_a_model_of_another_game(capsys):
    assert main(["eval", "--env", "poolgym/EightBall-v1", "-a", MODEL, "--games", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"poolgym eval: error: {MODEL} was trained at nine_ball, not eight_ball"
    # As the pretrained agent is by name.
    assert main(["eval", "--env", "poolgym/EightBall-v1", "-a", "pretrained:nine_ball", "--games", "1"]) == 2
    assert "plays nine_ball, not eight_ball" in capsys.readouterr().err


def test_eval_json_to_a_full_device_is_one_line(capsys):
    assert main(["eval", "--env", "poolgym/NineBall-v1", "-a", "random", "--games", "1",
                 "--json", "/dev/full"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "poolgym eval: error: cannot write /dev/full: No space left on device"


def test_a_failed_report_write_keeps_the_previous_report(tmp_path, monkeypatch, capsys):
    import errno
    import os

    report, rows = tmp_path / "report.json", tmp_path / "shots.csv"
    report.write_text("previous")
    rows.write_text("previous rows")

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    assert main(["eval", "--env", "poolgym/NineBall-v1", "-a", "random", "--games", "1",
                 "--json", str(report), "--csv", str(rows)]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"poolgym eval: error: cannot write {report}: No space left on device; the previous file, if any, is unchanged")
    assert report.read_text() == "previous" and rows.read_text() == "previous rows"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "shots.csv"]
    monkeypatch.undo()
    assert main(["eval", "--env", "poolgym/NineBall-v1", "-a", "random", "--games", "1",
                 "--json", str(report), "--csv", str(rows)]) == 0
    assert json.loads(report.read_text()) and rows.read_text().startswith("rack")


def test_the_return_statistics_entry_is_read_within_the_same_bounds(tmp_path):
    from poolgym.agents.training import return_norm

    assert return_norm.read(MODEL) is None  # behaviour cloning normalises no returns
    kept = tmp_path / "kept.zip"
    with zipfile.ZipFile(kept, "w") as archive:
        archive.writestr(return_norm.RETURN_NORM, json.dumps({"gamma": 0.99, "clip_reward": 10.0, "epsilon": 1e-8,
                                                              "mean": 0.0, "var": 2.0, "count": 5.0}))
    assert return_norm.read(str(kept))["gamma"] == 0.99
    path = tmp_path / "deep.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(return_norm.RETURN_NORM, "[" * 200_000 + "]" * 200_000)
    with pytest.raises(ValueError, match=rf"{path}: {return_norm.RETURN_NORM} is nested too deeply"):
        return_norm.read(str(path))


def test_an_encrypted_record_is_one_error(tmp_path):
    path = tmp_path / "locked.zip"
    _copy(path, {"format": "poolgym.model_env"})
    data = bytearray(path.read_bytes())
    # Set the "encrypted" flag of every entry (local and central headers): zipfile then asks
    # for a password, a RuntimeError.
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = 0
        while (start := data.find(signature, start)) != -1:
            data[start + offset] |= 1
            start += 4
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=rf"{path}: cannot read {ENV_RECORD}: RuntimeError: File .* is encrypted"):
        read_env_record(str(path))
