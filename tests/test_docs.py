"""The documentation site (mkdocs.yml, docs/) builds in strict mode: any warning (a broken
link or anchor, a page missing from the nav, a docstring the API reference cannot render)
fails the build, and so this test. It needs the ``docs`` extra, which CI installs."""

import importlib.util
import os
import re
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
    for name in ("NineBall-v1", "PotBall-v0"):  # a page per id, with its picture
        page = (site / "envs" / name / "index.html").read_text()
        assert f'src="../../images/envs/{name}.png"' in page and "Version History" in page
    assert 'src="images/envs/NineBall-v1.png"' in (site / "index.html").read_text()  # pictures on the home page


def _hook(name: str = "wpa_citations"):
    """The docs build's hook module ``docs/hooks/<name>.py`` (not a package: loaded by path)."""
    spec = importlib.util.spec_from_file_location(name, HOOKS / f"{name}.py")
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


README = ROOT / "README.md"
# [text](target) links and ![alt](target) images, not inside code spans.
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """The anchor Python-Markdown's toc (mkdocs) and GitHub give a heading."""
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, flags=re.M)}


def _readme_links() -> list[str]:
    text = re.sub(r"```.*?```", "", README.read_text(), flags=re.S)
    return _LINK.findall(re.sub(r"`[^`]*`", "", text))


def test_the_readme_is_a_front_page_with_a_gymnasium_loop_early():
    lines = README.read_text().splitlines()
    assert len(lines) <= 200
    first = next(i for i, line in enumerate(lines, 1) if "gym.make(" in line)
    assert first <= 40


def test_every_link_in_the_readme_resolves_to_a_file_and_anchor():
    links = _readme_links()
    assert len(links) >= 20 and any(link.startswith("docs/envs/") for link in links)
    for link in links:
        assert "://" not in link, f"{link}: the front page links to this repository's files"
        target, _, anchor = link.partition("#")
        path = ROOT / target
        assert path.is_file(), f"README links to {link}, which is not a file"
        if anchor:
            assert anchor in _anchors(path), f"README links to {link}: no heading with that anchor"


def test_the_link_check_catches_a_missing_file_and_anchor():
    assert "rendering-and-video" in _anchors(ROOT / "docs" / "envs.md")
    assert "no-such-heading" not in _anchors(ROOT / "docs" / "envs.md")
    assert _slug("Two learning players (PettingZoo)") == "two-learning-players-pettingzoo"
    assert not (ROOT / "docs" / "envs" / "NineBall-v9.md").exists()


def test_every_registered_id_has_a_current_page_with_its_picture_in_the_nav():
    import yaml

    pages = _hook("env_pages")
    # The ids importing poolgym registers, read in a fresh process: variants other tests
    # register in this one are theirs, not the package's.
    listing = subprocess.run([sys.executable, "-c", "import gymnasium, poolgym; print('\\n'.join(sorted("
                              "i for i in gymnasium.registry if i.startswith('poolgym/'))))"],
                             capture_output=True, text=True, check=True)
    registered = listing.stdout.split()
    assert sorted(pages.builtin_ids()) == registered
    assert pages.stale_pages() == []  # else: python docs/hooks/env_pages.py --pictures
    # mkdocs.yml's nav names every page (the ids' section of "Environments").
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text().replace("!!python", "python"))["nav"]
    environments = next(entry["Environments"] for entry in nav if "Environments" in entry)
    listed = {list(entry.values())[0] for entry in environments}
    for env_id in registered:
        name = pages.page_name(env_id)
        assert f"envs/{name}.md" in listed, name
        text = (ROOT / "docs" / "envs" / f"{name}.md").read_text()
        assert f"](../images/envs/{name}.png)" in text and "## Version History" in text
        for section in pages.SECTIONS:
            assert f"## {section}\n" in text, (name, section)


def test_a_page_that_does_not_match_the_registry_is_reported(tmp_path, monkeypatch):
    pages = _hook("env_pages")
    monkeypatch.setattr(pages, "PAGES", tmp_path)
    (tmp_path / "NineBall-v1.md").write_text("# an old page\n")
    problems = pages.stale_pages()
    assert any("NineBall-v1.md (out of date)" in p for p in problems)
    assert any("PotBall-v0.md (missing)" in p for p in problems)
