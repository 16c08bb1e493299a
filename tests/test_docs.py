"""The documentation site (mkdocs.yml, docs/) builds in strict mode: any warning (a broken
link or anchor, a page missing from the nav, a docstring the API reference cannot render)
fails the build, and so this test. It needs the ``docs`` extra, which CI installs."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HOOKS = ROOT / "docs" / "hooks"

needs_mkdocs = pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None,
                                  reason="the docs extra is not installed: pip install -e '.[docs]'")


@needs_mkdocs
def test_the_site_builds_in_strict_mode_with_the_generated_rules_tables_and_the_api(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log
    assert "WARNING" not in log and "ERROR" not in log, log
    rules = (site / "rules" / "index.html").read_text()
    assert "<!-- wpa-citations -->" not in rules
    for row in ("nine_ball", "eight_ball", "ten_ball", "straight_pool", "poolgym/rules/nine_ball.py"):
        assert row in rules, row
    agents = (site / "api" / "agents" / "index.html").read_text()
    assert "HeuristicBot" in agents and "run_quickstart" in agents
    assert "RewardWeights" in (site / "api" / "envs" / "index.html").read_text()
    assert (site / "bad_input" / "index.html").exists()


def _hook():
    spec = importlib.util.spec_from_file_location("wpa_citations", HOOKS / "wpa_citations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rules_page_reads_sections_lists_ranges_and_recorded_fouls_but_not_years():
    hook = _hook()
    text = 'WPA 6.1-6.3, 6.5 and 6.10 apply (WPA 2009 edition); Foul("6.14", "third foul"); WPA 2.4.'
    assert hook.cited_sections(text) == ["2.4", "6.1-6.3", "6.5", "6.10", "6.14"]
    table = hook.games_table()
    assert "| `nine_ball` | `NineBall` | 6.1, 6.2, " in table and "| yes |" in table
    assert "| `eight_ball` | `EightBall` |" in table and table.rstrip().count("\n") >= 5
