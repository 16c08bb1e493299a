"""The compiled-kernel cache (``poolgym.physics.jit``) heals instead of failing: a copy of the
package with a damaged cache entry imports and simulates, a read-only copy imported by a
user without a home uses the package's own cache, and with nowhere to cache at all the
kernels are compiled in memory with a warning. Each import runs in a fresh process."""

from __future__ import annotations

import os
import shutil
import site
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import poolgym
from poolgym.physics import hypot as _compiled  # the kernels' cache is complete here

PACKAGE = Path(poolgym.__file__).resolve().parent
# A small kernel compiled at import (it has a signature): the damaged entry of each test.
# numba names an entry by the kernel's first source line (its decorator's).
ENTRY = (f"hypot.hypot-{_compiled.hypot.py_func.__code__.co_firstlineno}.py{sys.version_info[0]}"
         f"{sys.version_info[1]}{getattr(sys, 'abiflags', '')}")
SHOT = ("from poolgym.physics import Shot, Simulator\n"
        "from poolgym.table import Table\n"
        "r = Simulator(Table.preset('9ft')).simulate({0: (0.5, 0.6), 1: (1.5, 0.6)}, Shot(speed=2.0, angle_deg=0.0))\n"
        "print(round(r.duration, 6))\n")


def _copy_package(root: Path) -> Path:
    """A copy of the installed package under ``root`` (sources and its kernel cache)."""
    shutil.copytree(PACKAGE, root / "poolgym", ignore=shutil.ignore_patterns("*.pyc", "*.tmp.*"))
    cache = root / "poolgym" / "physics" / "__pycache__"
    assert (cache / f"{ENTRY}.nbi").is_file(), "the package's kernel cache is not complete"
    return cache


def _run(root: Path, prefix: list[str] = (), home: str | None = None, python: str = sys.executable,
         path: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """``SHOT`` in a fresh ``python`` with the copy under ``root`` first on its path (then
    ``path``), started through ``prefix``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CACHE", "XDG_CACHE"))}
    env.update(PYTHONPATH=os.pathsep.join([str(root), *path]), PYTHONDONTWRITEBYTECODE="1")
    if home is not None:
        env["HOME"] = home
    return subprocess.run([*prefix, python, "-c", SHOT], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)


def _expected_duration() -> str:
    from poolgym.physics import Shot, Simulator
    from poolgym.table import Table

    result = Simulator(Table.preset("9ft")).simulate({0: (0.5, 0.6), 1: (1.5, 0.6)}, Shot(speed=2.0, angle_deg=0.0))
    return str(round(result.duration, 6))


@pytest.mark.parametrize("damage", ["truncated index", "empty index", "truncated data"])
def test_a_damaged_cache_entry_is_dropped_and_recompiled(tmp_path, damage):
    cache = _copy_package(tmp_path)
    target = cache / (f"{ENTRY}.1.nbc" if damage == "truncated data" else f"{ENTRY}.nbi")
    data = target.read_bytes()
    target.write_bytes(b"" if damage == "empty index" else data[: len(data) // 2])
    first = _run(tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == _expected_duration()
    warnings = [line for line in first.stderr.splitlines() if "unreadable compile-cache entry" in line]
    assert len(warnings) == 1 and "hypot" in warnings[0] and "recompiling" in warnings[0], first.stderr
    # Healed: the entry was saved again, and the next import loads it without a word.
    assert (cache / f"{ENTRY}.nbi").stat().st_size > 0
    second = _run(tmp_path)
    assert second.returncode == 0 and second.stdout.strip() == _expected_duration()
    assert "poolgym:" not in second.stderr, second.stderr


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _without_write_permission() -> tuple[list[str], str, tuple[str, ...]] | None:
    """How to run a process that cannot write the read-only copy: (command prefix,
    interpreter, extra path). As the ``nobody`` user where an interpreter of this Python
    version and this environment's packages are reachable by it (this one, or the
    system's, with the packages on its path); else as root without the capabilities that
    bypass file permissions. None when not root (nothing to drop to) or without setpriv."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    packages = tuple(site.getsitepackages())
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for python, path in ((sys.executable, ()), (f"/usr/bin/{version}", packages)):
        if not os.path.exists(python):
            continue
        probe = subprocess.run([*NOBODY, python, "-c", "import numba"], capture_output=True,
                               env={**os.environ, "PYTHONPATH": os.pathsep.join(path), "HOME": "/nonexistent"})
        if probe.returncode == 0:
            return NOBODY, python, path
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--inh-caps=-all"], sys.executable, ()


def _read_only(root: Path) -> None:
    for folder, dirs, files in os.walk(root):
        for name in files:
            os.chmod(os.path.join(folder, name), 0o444)
        os.chmod(folder, 0o555)


@pytest.fixture
def world_readable_dir():
    """A folder every user can read (pytest's tmp_path is private to its owner)."""
    path = Path(tempfile.mkdtemp(prefix="poolgym-ro-", dir="/tmp"))
    os.chmod(path, 0o755)
    yield path
    for folder, dirs, files in os.walk(path):
        os.chmod(folder, stat.S_IRWXU)
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("entry", ["complete", "missing", "truncated"])
def test_a_read_only_package_without_a_home_uses_its_own_cache(world_readable_dir, entry):
    """With the package read-only and ``HOME=/nonexistent`` the package's cache is loaded;
    a kernel it lacks is compiled in memory with one warning line, and a damaged entry
    that cannot be deleted is compiled in memory too (one line for the entry, one for the
    save that fails), never an import error."""
    how = _without_write_permission()
    if how is None:
        pytest.skip("needs root (to run the import as a user that cannot write the copy) and setpriv")
    prefix, python, extra = how
    cache = _copy_package(world_readable_dir)
    if entry == "missing":
        for path in cache.glob(f"{ENTRY}*"):
            path.unlink()
    elif entry == "truncated":
        index = cache / f"{ENTRY}.nbi"
        index.write_bytes(index.read_bytes()[:10])
    _read_only(world_readable_dir)
    result = _run(world_readable_dir, prefix, home="/nonexistent", python=python, path=extra)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == _expected_duration()
    notes = [line for line in result.stderr.splitlines() if line.startswith("poolgym:")]
    if entry == "missing":
        assert len([n for n in notes if "no usable folder for the compiled-kernel cache" in n]) == 1, notes
        assert "NUMBA_CACHE_DIR" in notes[-1]
        assert not (cache / f"{ENTRY}.nbi").exists()
    elif entry == "truncated":
        assert any("unreadable compile-cache entry of hypot" in n and "cannot delete it" in n for n in notes), notes
        assert any("could not save compiled kernels" in n and "NUMBA_CACHE_DIR" in n for n in notes), notes
        assert (cache / f"{ENTRY}.nbi").stat().st_size == 10  # read-only: left as it was
    else:
        assert notes == [], result.stderr


# Play as users do, beyond the first import: a choice-mode env with the lookahead against
# bot:fast (bulk plays, pot geometry, next-shot chances), and a jump shot (the airborne core).
_USE = """
import gymnasium as gym
import numpy as np
import poolgym
from poolgym.physics import Shot, Simulator
from poolgym.table import Table
env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", lookahead=True, opponent="bot:fast")
env.reset(seed=3)
bounds = np.cumsum(np.concatenate([[0], env.action_space.nvec]))
for _ in range(3):
    mask = env.unwrapped.action_masks()
    _, _, done, _, _ = env.step(np.array([np.flatnonzero(mask[lo:hi])[-1] for lo, hi in zip(bounds[:-1], bounds[1:])]))
    if done:
        env.reset()
r = Simulator(Table.preset("9ft")).simulate({0: (0.6, 0.635), 1: (1.9, 0.635)}, Shot(speed=3.0, elevation_deg=50.0),
                                            trajectories=True)
print(any(p.mode == "airborne" for p in r.trajectories[0]))
"""


def test_poolgym_compile_leaves_nothing_to_compile_on_first_use(tmp_path):
    """``poolgym compile`` on a fresh cache folder compiles; a later process that plays an
    env with the lookahead against a bot and a jump shot then loads every kernel it needs
    (no compile line on stderr)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-m", "poolgym.agents.tools.cli", "compile"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "compiling the simulator's numba kernels" in done.stderr and str(tmp_path / "cache") in done.stdout
    use = subprocess.run([sys.executable, "-c", _USE], env=env, capture_output=True, text=True, timeout=600)
    assert use.returncode == 0, use.stderr
    assert use.stdout.strip() == "True" and "compiling" not in use.stderr
