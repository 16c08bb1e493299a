"""A run folder changes only after every check has passed, and its ``summary.json`` always
describes the ``model.zip`` beside it."""

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml

from poolgym.agents.training.train import train

from .test_run_folders import tiny

ROOT = Path(__file__).resolve().parents[2]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A finished run's folder (kept as made: each test copies it)."""
    out = tmp_path_factory.mktemp("first") / "run"
    train(tiny(total_steps=64, checkpoint_every=64, eval={"every_steps": 64, "episodes": 1,
                                                          "final_episodes": 1}), out=out)
    return out


def _copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    return to


@pytest.mark.parametrize("key, value, message", [
    ("segments", 5, r"key 'segments' must be a list of objects \(the run's training segments\), got 5"),
    ("segments", [1], r"key 'segments' must be a list of objects"),
    ("eval_history", {"a": 1}, r"key 'eval_history' must be a list of evaluations, got \{'a': 1\}"),
    ("eval_history", [{"timesteps": 64}], r"key 'eval_history\[0\]' must be an evaluation with a whole "
                                          r"'timesteps' and the numbers 'success_rate' and 'mean_reward'"),
])
def test_a_continued_run_whose_summary_it_cannot_carry_on_is_refused_before_training(
        tmp_path, finished_run, key, value, message):
    out = _copy(finished_run, tmp_path / "run")
    summary = json.loads((out / "summary.json").read_text())
    summary[key] = value
    (out / "summary.json").write_text(json.dumps(summary))
    before = {p.relative_to(out): _digest(p) for p in out.rglob("*") if p.is_file()}
    with pytest.raises(ValueError, match=rf"^{out / 'summary.json'}: {message}"):
        train(tiny(total_steps=64), out=out, resume=out / "model.zip")
    # Nothing changed: the model is the one the summary describes.
    assert {p.relative_to(out): _digest(p) for p in out.rglob("*") if p.is_file()} == before


def test_the_summary_and_the_model_are_written_together_after_the_final_evaluation(
        tmp_path, finished_run, monkeypatch):
    """A run that fails after training (in its final evaluation) leaves the previous model and
    summary as they were: the model is written with the summary that describes it."""
    import poolgym.agents.training.train as training

    out = _copy(finished_run, tmp_path / "run")
    model, summary = _digest(out / "model.zip"), (out / "summary.json").read_text()

    def failing(*args, **kwargs):
        raise RuntimeError("the final evaluation failed")

    monkeypatch.setattr(training, "_final_results", failing)
    with pytest.raises(RuntimeError, match="the final evaluation failed"):
        train(tiny(total_steps=64), out=out, resume=out / "model.zip")
    assert _digest(out / "model.zip") == model and (out / "summary.json").read_text() == summary
    monkeypatch.undo()
    resumed = train(tiny(total_steps=64), out=out, resume=out / "model.zip")
    assert resumed["steps"] == 128 and json.loads((out / "summary.json").read_text())["steps"] == 128
    assert [(s["steps_from"], s["steps_to"]) for s in resumed["segments"]] == [(0, 64), (64, 128)]


def test_behaviour_cloning_from_a_missing_dataset_leaves_the_folder_untouched(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "datasets"))
    config = yaml.safe_load((ROOT / "configs" / "train" / "nine_ball_bc_bot_fast.yaml").read_text())
    config["imitation"]["dataset"] = "test/missing-v0"
    out = tmp_path / "bc"
    with pytest.raises(ValueError, match=r"^imitation\.dataset 'test/missing-v0' cannot be loaded"):
        train(config, out=out)
    assert not out.exists()
    out.mkdir()  # an empty folder given as --out stays empty
    with pytest.raises(ValueError, match=r"^imitation\.dataset 'test/missing-v0' cannot be loaded"):
        train(config, out=out)
    assert list(out.iterdir()) == []
