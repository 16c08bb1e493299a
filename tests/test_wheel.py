"""The built wheel, installed outside the repository: its contents, and the quickstart run from
it in a fresh virtual environment, from a directory that is not the repository.

The fresh environment reuses this environment's dependencies through a ``.pth`` line per
site-packages folder: Python adds those folders to ``sys.path`` but does not process the
``.pth`` files inside them, so an editable poolgym installed there stays invisible and
``poolgym`` can only come from the wheel (checked below).
"""

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What a clean clone does not have, or what the build does not need (a venv in the tree, build
# outputs, caches): the copy the wheel is built from leaves them out.
_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "runs",
                                     "site", ".pytest_cache", ".hypothesis", "*.pyc")


def _run(cmd, cwd, **kwargs):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(MPLBACKEND="Agg", SDL_VIDEODRIVER="dummy", PIP_DISABLE_PIP_VERSION_CHECK="1")
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the source tree (the build writes build/ and egg-info
    into the tree it builds, so the repository itself is left alone)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_NOT_SOURCE)
    # Build isolation installs the build backend pyproject.toml names (setuptools>=77).
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(src)], cwd=tmp)
    (built,) = (tmp / "dist").glob("poolgym-*.whl")
    return built


def test_the_wheel_holds_poolgym_its_agents_configs_and_licence_and_no_top_level_agents(wheel):
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        metadata = whl.read(f"{dist_info}/METADATA").decode()
        top_level = whl.read(f"{dist_info}/top_level.txt").decode().split()
        licence = whl.read(f"{dist_info}/licenses/LICENSE").decode()
    assert {n.split("/")[0] for n in names} == {"poolgym", dist_info}
    assert top_level == ["poolgym"]
    assert not any(n.startswith("agents/") for n in names)
    for module in ("agents/tools/cli.py", "agents/tools/quickstart.py", "agents/bot/player.py",
                   "agents/evaluation/evaluate.py", "agents/training/train.py", "envs/__init__.py",
                   "configs/__init__.py", "examples/six_ball.py"):
        assert f"poolgym/{module}" in names, module
    assert "poolgym/configs/train/default.yaml" in names and "poolgym/configs/variants/six_ball.yaml" in names
    for data in _package_data_in_the_repository():
        assert data in names, data
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    assert licence == (ROOT / "LICENSE").read_text()
    assert "Requires-Dist: stable-baselines3>=2.3; extra == \"train\"" in metadata


def _package_data_in_the_repository() -> list[str]:
    """Every file pyproject.toml's package-data patterns match in the repository, as its path
    in the wheel (``poolgym/configs/train/default.yaml``)."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = setuptools["package-dir"]
    found = []
    for package, patterns in setuptools["package-data"].items():
        # The folder setuptools reads: the longest mapped package that holds this one.
        prefix = max((m for m in mapping if package == m or package.startswith(m + ".")), key=len, default=None)
        if prefix is None:
            folder = ROOT.joinpath(*package.split("."))
        else:  # "poolgym.agents.pretrained" under "poolgym.agents" -> agents/pretrained
            folder = ROOT.joinpath(mapping[prefix], *package[len(prefix):].split(".")[1:])
        for path in (p for pattern in patterns for p in folder.glob(pattern)):
            found.append("/".join((*package.split("."), path.relative_to(folder).as_posix())))
    return found


def _fresh_venv_with_this_environments_dependencies(where: Path) -> Path:
    """A venv without pip whose ``.pth`` line names each site-packages folder this interpreter
    sees, except any that holds a ``poolgym`` package; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        cwd=where).strip())
    ours = _run([sys.executable, "-c", "import sys; print('\\n'.join(sys.path))"], cwd=where).split("\n")
    deps = [p for p in ours if p.endswith(("site-packages", "dist-packages"))
            and not (Path(p) / "poolgym" / "__init__.py").exists()]
    assert deps, ours
    (purelib / "_poolgym_test_deps.pth").write_text("\n".join(deps) + "\n")
    return python


def test_the_installed_wheel_runs_the_quickstart_outside_the_repository(wheel, tmp_path):
    python = _fresh_venv_with_this_environments_dependencies(tmp_path / "venv")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
          str(wheel)], cwd=tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = ("import gymnasium as gym, poolgym, poolgym.agents.tools.cli as cli\n"
             "from poolgym.configs import config_path\n"
             "print(poolgym.__file__); print(cli.__file__); print(config_path('train/default.yaml'))\n"
             "env_id = poolgym.register_from_yaml(config_path('variants/six_ball.yaml'), trusted=True)\n"
             "env = gym.make(env_id); env.reset(seed=0); print(env_id, env.unwrapped.rules.name)\n")
    where = _run([str(python), "-c", probe], cwd=elsewhere).split("\n")
    installed = tmp_path / "venv"
    for line in where[:3]:
        assert Path(line).is_relative_to(installed), where
    assert where[3] == "examples/SixBall-v0 six_ball"

    report = _run([str(installed / "bin" / "poolgym"), "quickstart", "--steps", "64", "--episodes", "3",
                   "--racks", "1", "--out", "run", "--no-progress"], cwd=elsewhere, timeout=300)
    assert "training MaskablePPO on poolgym/PotBall-v1" in report
    assert "pot rate" in report and "trained" in report and "untrained" in report
    assert "9-ball under the poolgym/NineBall-v1 protocol, 1 racks against legal-random" in report
    for name in ("model.zip", "learning_curve.png", "shots.png", "nine_ball_rack.gif"):
        assert (elsewhere / "run" / name).stat().st_size > 0, name
