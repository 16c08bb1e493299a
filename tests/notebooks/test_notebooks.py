"""The notebooks in ``notebooks/``: committed without outputs, and each one runs headless
from top to bottom with the small CI budgets and shows its figures.

Each notebook is executed with nbclient in a copy under a temporary directory (nothing is
written into the repository), on a kernel that runs this interpreter, with the budgets set
through the same environment variables the notebooks read at the top. Any cell that raises
fails the test. The kernel draws with matplotlib's inline backend, as Jupyter does, so every
figure a notebook shows comes back as an ``image/png`` output; a notebook showing fewer
figures than ``MIN_FIGURES`` says fails (a non-interactive backend such as Agg would draw
nothing and pass silently).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
KERNEL = "poolgym-notebook-test"

# Small budgets: all notebooks together stay within a few minutes on two cores.
CI_BUDGETS = {
    "POOLGYM_NB_GAMES": "2",
    "POOLGYM_NB_BOT_BUDGET": "fast",
    "POOLGYM_NB_MAX_FRAMES": "3",
    "POOLGYM_NB_TRAIN_STEPS": "128",
    "POOLGYM_NB_EPISODES": "4",
    "POOLGYM_NB_CHECK_GAMES": "20",
    "POOLGYM_NB_POINTS": "6",
}


# The figures each notebook shows with the CI budgets (plt.show() calls that draw something).
MIN_FIGURES = {
    "01_quickstart.ipynb": 3,
    "02_evaluate_policy.ipynb": 8,
    "03_custom_variant.ipynb": 3,
    "04_physics.ipynb": 10,
    "05_round_robin.ipynb": 2,
    "06_rate_your_policy.ipynb": 1,
}
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 5, f"expected the five notebooks in {ROOT / 'notebooks'}"
    assert set(MIN_FIGURES) == {p.name for p in NOTEBOOKS}, "every notebook needs its expected figure count"


def figure_count(nb) -> int:
    """The PNG images among the outputs of an executed notebook."""
    return sum("image/png" in out.get("data", {}) for cell in nb.cells if cell.cell_type == "code"
               for out in cell.get("outputs", []))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_saved_without_outputs(path):
    nb = json.loads(path.read_text())
    dirty = [i for i, cell in enumerate(nb["cells"]) if cell["cell_type"] == "code"
             and (cell.get("outputs") or cell.get("execution_count") is not None)]
    assert not dirty, (f"{path.name}: cells {dirty} have outputs or execution counts; "
                       "clear them before committing (Kernel > Restart & Clear Output)")


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    """A kernelspec that starts this interpreter, under a unique name, so the notebooks run
    in the environment under test whatever kernels the machine has installed."""
    pytest.importorskip("ipykernel")
    base = tmp_path_factory.mktemp("jupyter")
    spec = base / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "poolgym notebook test", "language": "python"}))
    return base


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, kernel_dir, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    pytest.importorskip("matplotlib_inline")

    for name, value in CI_BUDGETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MPLBACKEND", INLINE_BACKEND)  # as in Jupyter: figures become outputs
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("POOLGYM_NB_OUT", str(tmp_path / "out"))
    monkeypatch.setenv("JUPYTER_PATH", os.pathsep.join(filter(None, [str(kernel_dir), os.environ.get("JUPYTER_PATH")])))
    # The kernel imports poolgym and agents from this checkout, and writes nothing here.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")

    work = tmp_path / "run"
    work.mkdir()
    copy = work / path.name
    shutil.copy(path, copy)
    nb = nbformat.read(copy, as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name=KERNEL, timeout=600,
                                     resources={"metadata": {"path": str(work)}})
    client.execute()  # raises CellExecutionError naming the cell on any error
    shown = figure_count(nb)
    assert shown >= MIN_FIGURES[path.name], (f"{path.name} showed {shown} figures, expected at least "
                                             f"{MIN_FIGURES[path.name]}")
