"""``poolgym bench-import``: the first import's seconds in fresh processes, fresh and warm
compile cache, this tree beside a commit."""

from __future__ import annotations

import pytest

from poolgym.agents.tools import bench_import, speed_compare
from poolgym.agents.tools.cli import main


def test_the_probe_times_import_and_a_first_break_in_a_new_process():
    # No NUMBA_CACHE_DIR: the package's own cache, filled by this test session's import.
    figures = speed_compare.measure(speed_compare.ROOT, "first_import", {})
    assert 0 < figures["import_s"] < figures["seconds"]
    assert figures["seconds"] == pytest.approx(figures["import_s"] + figures["shot_s"])


def test_runs_alternate_the_trees_with_a_fresh_cache_each_and_report_the_best(monkeypatch, tmp_path):
    """The order of the processes, their cache folders and the figures reported, with the
    process itself replaced by a recorder (each real one compiles for half a minute)."""
    monkeypatch.setattr(speed_compare, "export", lambda rev, dest: "abc1234")
    calls = []

    def timed(tree, cache):
        calls.append((tree, cache.name))
        seconds = 10.0 + len(calls) if cache.name.startswith("fresh") else 1.0 + 0.01 * len(calls)
        return {"seconds": seconds, "import_s": seconds - 0.5, "shot_s": 0.5}

    monkeypatch.setattr(bench_import, "_timed", timed)
    report = bench_import.run("HEAD", repeats=2)
    here = speed_compare.ROOT
    assert [name for _, name in calls[:2]] == ["warm-0", "warm-1"]  # warm-up of each tree first
    fresh = [name for _, name in calls if name.startswith("fresh")]
    assert len(set(fresh)) == 4  # a new cache folder for every compiling process
    assert [tree == here for tree, name in calls[2:]] == [True, True, False, False] * 2  # alternating
    best = report["cache"]["fresh"]["best"]
    assert best[speed_compare.CURRENT]["seconds"] == 13.0 and best["abc1234"]["seconds"] == 15.0
    assert report["cache"]["fresh"]["ratio"] == pytest.approx(13.0 / 15.0, abs=1e-3)
    assert report["cache"]["warm"]["all_seconds"][speed_compare.CURRENT] == [1.04, 1.08]
    text = bench_import.format_report(report)
    assert "fresh cache" in text and "warm cache" in text and "abc1234" in text and "0.87" in text


def test_bad_arguments_are_refused_before_any_measurement(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["bench-import", "--repeats", "0"])
    assert exit_.value.code == 2 and "at least 1" in capsys.readouterr().err
    assert main(["bench-import", "--compare", "no-such-commit-xyz", "--repeats", "1"]) == 2
    assert "not a commit" in capsys.readouterr().err
