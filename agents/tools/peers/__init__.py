"""Peer simulators run side by side with poolgym, each in its own virtual environment.

A peer's runner script is executed by that environment's Python with a JSON spec of the
cases and writes what it measured as JSON: ``<peer>_cases.py`` raw timings, which
``poolgym.agents.tools.bench`` summarises for both engines with the same code, and
``pooltool_physics.py`` the physical outcomes ``poolgym.agents.tools.peers.compare_physics`` sets beside
poolgym's.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

POOLTOOL_RUNNER = Path(__file__).with_name("pooltool_cases.py")
POOLTOOL_PHYSICS_RUNNER = Path(__file__).with_name("pooltool_physics.py")
DEFAULT_POOLTOOL_PYTHON = Path.home() / ".cache/poolgym-peers/pooltool-venv/bin/python"


class PeerError(RuntimeError):
    """A peer's runner could not be started or did not finish."""


def default_pooltool_python() -> str | None:
    """``$POOLTOOL_PYTHON``, else the venv built by ``shared/peers/pooltool/setup.sh``, if any."""
    if os.environ.get("POOLTOOL_PYTHON"):
        return os.environ["POOLTOOL_PYTHON"]
    return str(DEFAULT_POOLTOOL_PYTHON) if DEFAULT_POOLTOOL_PYTHON.exists() else None


def run_pooltool(python: str, spec: dict, runner: Path = POOLTOOL_RUNNER) -> dict:
    """Run the cases in ``spec`` with pooltool's ``runner`` under ``python``; return its JSON."""
    with tempfile.TemporaryDirectory(prefix="poolgym-pooltool-") as scratch:
        spec_path, out_path = Path(scratch, "spec.json"), Path(scratch, "out.json")
        spec_path.write_text(json.dumps(spec))
        env = dict(os.environ, HOME=scratch)  # pooltool writes ~/.config/pooltool on import
        # Our own interpreter's search path must not leak into the peer's.
        for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
            env.pop(name, None)
        try:
            proc = subprocess.run([python, str(runner), str(spec_path), str(out_path)],
                                  env=env, capture_output=True, text=True)
        except OSError as err:
            raise PeerError(f"cannot start {python}: {err}") from err
        if proc.returncode != 0 or not out_path.exists():
            raise PeerError(f"pooltool runner exited with {proc.returncode}: {proc.stderr[-2000:]}")
        return json.loads(out_path.read_text())
