"""The documentation site (mkdocs.yml, docs/) builds in strict mode: any warning (a broken
link or anchor, a page missing from the nav, a docstring the API reference cannot render)
fails the build, and so this test. It needs the ``docs`` extra, which CI installs."""

import importlib.util
import json
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
    # Python's warnings shown, so a deprecation logged while the hooks or the API reference
    # import the package (a v0 id made for its page) fails the test too.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONWARNINGS": "default"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log
    assert "WARNING" not in log and "ERROR" not in log, log
    assert "Traceback" not in log and "Warning:" not in log, log
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


def test_an_env_page_gives_every_argument_with_its_ids_default_and_every_observation_entry_and_info_key():
    import inspect

    from poolgym.envs import PoolEnv, PotBallEnv
    from poolgym.envs.pool_env import INFO_KEYS

    pages = _hook("env_pages")
    sections = pages.docstring_sections(PoolEnv)
    arguments = pages.arguments_section(PoolEnv, sections["Arguments"], {"noise": "tournament"})
    # The registered value in bold, the constructor's default otherwise.
    assert "**`'tournament'`**" in arguments and "`10.0`, `5.0`" in arguments
    for name in inspect.signature(PoolEnv).parameters:
        assert f"`{name}`" in arguments, name
    with pytest.raises(ValueError, match="trajectories"):
        pages.arguments_section(PoolEnv, sections["Arguments"].replace(", ``trajectories``", "")
                                .replace(", `trajectories`", ""), {})
    observations = pages.observation_section(PoolEnv, sections["Observation Space"])
    assert "| `lookahead` | `Box(0, 1, (252,))` |" in observations
    rows = sections["Observation Space"].splitlines()
    lookahead_row = next(line for line in rows if line.startswith("| `lookahead`"))
    with pytest.raises(ValueError, match="lookahead"):
        pages.observation_section(PoolEnv, sections["Observation Space"].replace(lookahead_row, ""))
    # PotBall takes PoolEnv's entries, less those it never observes.
    drill = pages.observation_section(PotBallEnv, pages.docstring_sections(PotBallEnv)["Observation Space"])
    assert "`slot_mask`" in drill and "`match`" not in drill.split("|", 1)[1]
    # Every info key is on the game pages, with the contract's -1 and None.
    page = (ROOT / "docs" / "envs" / "NineBall-v1.md").read_text()
    for key in INFO_KEYS:
        assert f"`{key}`" in page.split("## Rewards", 1)[1].split("## Starting State", 1)[0], key
    assert "-1 until then" in page and "-1 once it is over" in page and "that decision, else None" in page


RESULTS = ROOT / "benchmarks" / "results"
QUICKSTART_RUNS = RESULTS / "recipes" / "pot_ball_maskable_ppo"


def _rate(figure: dict) -> str:
    """A rate and its Wilson interval as the pages print them: ``0.684 [0.664, 0.704]``."""
    low, high = figure["success_ci"]
    return f"{figure['success_rate']:.3f} [{low:.3f}, {high:.3f}]"


def _quickstart_run(seed: int) -> dict:
    name = "summary_seed0_quickstart_fused.json" if seed == 0 else f"summary_seed{seed}_fused.json"
    return json.loads((QUICKSTART_RUNS / name).read_text())


def _table_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of the Markdown table rows under ``heading`` (up to the next heading)."""
    section = text.split(f"\n{heading}\n", 1)[1].split("\n#", 1)[0]
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in section.splitlines() if line.startswith("| ") and not line.startswith("|---")]


def test_the_quickstarts_figures_are_the_results_files_on_every_page():
    rows = _table_rows((ROOT / "docs" / "results.md").read_text(), "## The quickstart's figures")[1:]
    assert len(rows) == 5
    for seed, row in enumerate(rows):
        run = _quickstart_run(seed)
        final = run["final"][0]
        refs = final["references"]
        assert row[0].split()[0] == str(seed)
        assert row[1] == str(round(run["train_time_s"])), (seed, row)
        assert row[2:] == [_rate(final["trained"]), _rate(refs["untrained"]), _rate(refs["random"]),
                           _rate(refs["fixed"])], (seed, row)
    # The seed-0 pot rate, one figure on every page that quotes it.
    seed0 = _rate(_quickstart_run(0)["final"][0]["trained"])
    assert seed0 in (ROOT / "docs" / "quickstart.md").read_text()
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        text = re.sub(r"\[[\d., ]+\]", "", page.read_text())  # an interval's bounds are not rates
        for stale in ("0.668", "0.694", "0.671-0.689"):
            assert stale not in text, f"{page.name} quotes {stale}, not the results file's {seed0}"


def _baseline_rows(path: Path) -> dict[str, list[str]]:
    """An agent's cells (racks won against each opponent, pot success, fouls/rack) in a
    ``poolgym baselines`` Markdown table, by agent name."""
    rows = {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) >= 5 and re.fullmatch(r"[\d.]+ \[[\d.]+, [\d.]+\]", cells[1]):
            rows.setdefault(cells[0], cells[1:5])
    return rows


def _agent_name(label: str) -> str:
    """The agent a table row names: "`pretrained:nine_ball` (a network ...)", "untrained network
    (`untrained:pretrained:nine_ball`)" or "bot:pro-deep (the top rung)"."""
    code = re.search(r"`([^`]+)`", label)
    return code.group(1) if code else label.split(" (")[0]


def test_the_baselines_on_the_front_page_and_the_results_page_are_the_results_files():
    measured = {}
    # The ladder's run, then the rows measured later on the same racks: bot:pro searching its
    # break on them, and the top rung.
    for name in ("agent_baselines_lookahead.md", "agent_baselines_bot_pro_searched_break.md",
                 "bot_pro_deep/baselines_seed0.md"):
        measured.update(_baseline_rows(RESULTS / name))
    for page, heading in ((README, "## Baselines"), (ROOT / "docs" / "results.md", "## Baselines")):
        rows = _table_rows(page.read_text(), heading)
        # The agents' table (the ladder's pairs table, "A | B | ...", has an agent in its second cell).
        agents = [r for r in rows if r[0] != "agent" and re.fullmatch(r"[\d.]+ \[[\d.]+, [\d.]+\]", r[1])]
        assert len(agents) >= 8, page
        for row in agents:
            name = _agent_name(row[0])
            assert name in measured, (page.name, name)
            assert row[1:5] == measured[name], (page.name, name, row[1:5], measured[name])
        assert {"fixed", "pretrained:nine_ball", "bot:pro-deep"} <= {_agent_name(r[0]) for r in agents}


def test_the_readmes_docs_table_lists_every_page():
    section = README.read_text().split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    linked = set(_LINK.findall(section))
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name != "index.md":
            assert f"docs/{page.name}" in linked, f"README's docs table leaves out docs/{page.name}"
    assert any(link.startswith("docs/envs/") for link in linked)
    assert any(link.startswith("docs/api/") for link in linked)


def test_the_benchmark_indexes_list_every_script_and_every_command_names_one_that_exists():
    bench = ROOT / "benchmarks"
    for folder in (bench, bench / "archive"):
        index = (folder / "README.md").read_text()
        scripts = sorted(p.name for p in folder.iterdir() if p.suffix in (".py", ".sh"))
        assert scripts, folder
        for name in scripts:
            assert f"`{name}`" in index, f"{folder.relative_to(ROOT)}/README.md leaves out {name}"
    # Every script a page or README names is where it says.
    pages = [README, bench / "README.md", bench / "archive" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text()
        for path in re.findall(r"benchmarks/[\w/]+\.(?:py|sh)", text):
            assert (ROOT / path).is_file(), f"{page.relative_to(ROOT)} names {path}, which is not there"
        for path in re.findall(r"benchmarks/(?:archive/)?results/[\w./-]*[\w/]", text):
            assert (ROOT / path).exists(), f"{page.relative_to(ROOT)} names {path}, which is not there"


def test_every_link_in_the_results_folders_readmes_resolves():
    """The measurements' records (benchmarks/**/*.md) link to the docs pages and to each
    other: a page rebuilt or a folder moved must not leave them pointing nowhere."""
    pages = sorted((ROOT / "benchmarks").glob("**/*.md"))
    assert len(pages) >= 10
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for link in _LINK.findall(re.sub(r"`[^`]*`", "", text)):
            if "://" in link:
                continue
            target, _, anchor = link.partition("#")
            path = (page.parent / target).resolve() if target else page
            where = f"{page.relative_to(ROOT)} links to {link}"
            assert path.exists(), f"{where}, which is not there"
            if anchor and path.suffix == ".md":
                assert anchor in _anchors(path), f"{where}: no heading with that anchor"


def test_the_protocols_break_figure_is_the_results_files():
    breaks = json.loads((RESULTS / "breaks.json").read_text())
    low, high = breaks["made_ball_interval"]
    made = f"{100 * breaks['made_ball_rate']:.1f}% [{100 * low:.1f}, {100 * high:.1f}] of {breaks['breaks']:,}"
    clean = f"{100 * breaks['made_ball_no_foul_rate']:.1f}% without fouling"
    text = " ".join((ROOT / "docs" / "results.md").read_text().split())
    assert made in text and clean in text, (made, clean)
