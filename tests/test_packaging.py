"""The distribution's metadata: licence, extras, and what CI installs."""

import re
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
    assert re.search(r'-e "\.\[all,test,distributed\]"', (ROOT / ".ci" / "run").read_text())


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
    assert setuptools["package-data"] == {"poolgym.configs": ["train/*.yaml", "variants/*.yaml"]}


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
