"""The distribution's metadata: licence, extras, and what CI installs."""

import re
import tomllib
from pathlib import Path

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
