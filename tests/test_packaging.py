"""The distribution's metadata: licence, extras, and what CI installs."""

import re
import shlex
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


def test_the_licence_file_is_the_mit_licence_pyproject_names():
    text = (ROOT / "LICENSE").read_text()
    assert PROJECT["license"] == "MIT" and text.startswith("MIT License")
    assert "Copyright (c) " in text and "the poolgym authors" in text
    assert "LICENSE" in PROJECT["license-files"]


def test_each_requirement_is_listed_once():
    listed = [_name(r) for r in PROJECT["dependencies"]]
    for requirements in PROJECT["optional-dependencies"].values():
        listed += [_name(r) for r in requirements if _name(r) != "poolgym"]
    assert sorted(set(listed)) == sorted(listed), [n for n in set(listed) if listed.count(n) > 1]


def test_all_leaves_out_the_test_tools_and_ci_installs_them():
    extras = PROJECT["optional-dependencies"]
    (all_,) = extras["all"]
    included = re.fullmatch(r"poolgym\[(.*)\]", all_).group(1).split(",")
    assert "test" not in included and {"train", "render", "multiagent"} <= set(included)
    assert re.search(r'-e "\.\[all,test,distributed,docs,datasets,offline\]"', (ROOT / ".ci" / "run").read_text())


def test_the_package_list_names_every_package_folder():
    """agents/, configs/ and examples/ install as poolgym.agents, poolgym.configs and
    poolgym.examples through the package-dir mapping: every folder with an ``__init__.py``
    under poolgym/ and the mapped folders must be in the explicit list."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = {"poolgym.agents": "agents", "poolgym.configs": "configs", "poolgym.examples": "examples"}
    assert setuptools["package-dir"] == mapped
    found = set()
    for name, top in (("poolgym", "poolgym"), *mapped.items()):
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / top).parts
            found.add(".".join((name, *parts)))
    assert sorted(setuptools["packages"]) == sorted(found)
    assert setuptools["package-data"]["poolgym.configs"] == ["train/*.yaml", "variants/*.yaml"]


def test_shipped_configs_are_found_by_name_and_an_unknown_name_lists_them():
    from poolgym.configs import config_path, shipped_configs

    assert "train/default.yaml" in shipped_configs() and "variants/six_ball.yaml" in shipped_configs()
    assert config_path("train/default.yaml").read_text() == (ROOT / "configs/train/default.yaml").read_text()
    with pytest.raises(ValueError, match=r"config 'train/nope.yaml' is not shipped with poolgym; shipped: "
                                         r"train/default.yaml, "):
        config_path("train/nope.yaml")


def test_poolgym_installs_beside_openai_agents_without_an_import_clash(tmp_path):
    """openai-agents imports as ``agents``: with it installed, both work from any directory."""
    import subprocess
    import sys
    from importlib.metadata import version

    assert version("openai-agents")  # the test extra installs it
    script = ("from agents import Agent; import poolgym.agents.tools.cli as cli; "
              "import agents; print(agents.__file__); print(cli.__file__)")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    theirs, ours = proc.stdout.split()
    assert "site-packages" in theirs and Path(ours).parent.parent.name == "agents"
    help_ = subprocess.run([sys.executable, "-m", "poolgym.agents.tools.cli", "--help"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert help_.returncode == 0 and "usage: poolgym" in help_.stdout, help_.stderr


def test_the_train_extra_leaves_torch_to_stable_baselines3_which_requires_it():
    from importlib.metadata import requires

    assert "torch" not in [_name(r) for r in PROJECT["optional-dependencies"]["train"]]
    assert "torch" in [_name(r) for r in requires("stable-baselines3")]
    assert "stable_baselines3" in [_name(r).replace("-", "_") for r in requires("sb3-contrib")]


def _quickstart_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Quickstart\n.*?```bash\n(.*?)```", readme, re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines()]


def test_the_readme_installs_cpu_torch_before_the_package_and_ci_follows_it():
    first, install, tests = _quickstart_commands()
    assert first == "pip install torch --index-url https://download.pytorch.org/whl/cpu"
    assert install == 'pip install -e ".[all]" && poolgym quickstart'
    assert tests == 'pip install -e ".[test]" && pytest'
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    torch_line = ci.index("python -m pip install -q -c .ci/constraints.txt torch")
    package_line = next(i for i, line in enumerate(ci) if '-e ".[all,' in line)
    assert torch_line < package_line and ci[-1] == "pytest"
    pins = (ROOT / ".ci" / "constraints.txt").read_text().splitlines()
    assert "torch==2.13.0+cpu" in pins and all(line.startswith("#") or "==" in line for line in pins if line)


def _script_commands(script: Path, values: dict[str, str]) -> list[list[str]]:
    """The ``poolgym ...`` lines of a shell script, its variables replaced by ``values``
    (defaults ``${NAME:-x}`` included) and its output redirections dropped."""
    commands = []
    for line in script.read_text().splitlines():
        line = line.strip()
        if line.startswith("poolgym "):
            line = re.sub(r"\$\{?(\w+)(:-[^}]*)?\}?", lambda m: values[m.group(1)], line.split(" > ")[0])
            commands.append(shlex.split(line)[1:])
    return commands


def test_one_script_regenerates_the_readme_figures_with_commands_the_cli_takes(tmp_path, monkeypatch):
    """benchmarks/readme_figures.sh runs for an hour, so its commands (and those of the protocol
    script it calls) are checked against the CLI's parser instead, output paths included."""
    from poolgym.agents.tools.cli import build_parser

    script = (ROOT / "benchmarks" / "readme_figures.sh").read_text()
    assert "bash benchmarks/run_v1_checks.sh" in script and "$out/versions.txt" in script
    assert "benchmarks/readme_figures.sh" in (ROOT / "README.md").read_text()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").mkdir()
    values = {"out": "results", "runs": "runs/readme", "workers": "2", "WORKERS": "2"}
    parser = build_parser()
    commands = [c for name in ("readme_figures.sh", "run_v1_checks.sh")
                for c in _script_commands(ROOT / "benchmarks" / name, values)]
    assert {c[0] for c in commands} == {"quickstart", "check-benchmark", "baselines", "bench-jump", "soak", "bench"}
    for command in commands:
        parser.parse_args(command)
    quick = [parser.parse_args(c) for c in commands if c[0] == "quickstart"]
    assert [q.steps for q in quick] == [None, 65536] and all(q.racks == 100 for q in quick)
