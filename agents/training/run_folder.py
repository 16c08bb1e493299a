"""Run folders of ``poolgym.agents.training.train``: one run at a time, never overwritten.

- A lock: ``<out>/.lock`` holds the pid of the run using the folder. A second run on the
  folder is refused, naming the folder and that pid; the lock of a process that no longer
  exists (a run killed with SIGKILL, a crashed machine) is taken over (not on Windows, where
  a stale lock is deleted by hand). The lock file is linked into place complete, so a
  reader never sees it half written.
- A folder that already holds a run (any of ``RUN_ENTRIES``) is used only to go on with that
  run: ``resume=<out>/model.zip`` appends to it (the monitor CSVs continued, the summary's
  history and segments kept, the best evaluation carried on so ``best_model.zip`` is
  replaced only by a better one). Anything else is refused naming the folder, unless
  ``replace=True`` (``poolgym train --replace``), which removes the old run's entries first,
  so no checkpoint of the old run is left beside the new run's.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

from poolgym.files import read_bounded
from poolgym.numbers import is_finite_number, quote

LOCK = ".lock"
#: What a run writes in its folder (``poolgym.agents.training.train``'s layout).
RUN_ENTRIES = ("model.zip", "best_model.zip", "summary.json", "checkpoints", "monitor", "tb",
               "curve.json", "curve.png", "league")
# A summary is a few megabytes at most (its evaluation history); more is not a summary.
MAX_SUMMARY_BYTES = 64 << 20


def _holder(lock: Path) -> int | None:
    """The pid written in ``lock`` when that process is alive, else None (no lock, a stale
    one, or one that is not a pid)."""
    try:
        text = read_bounded(lock, 64, "a run folder's lock").decode("ascii", "replace").strip()
    except FileNotFoundError:
        return None
    if not text.isdigit():
        return None
    pid = int(text)
    if os.name == "nt":  # os.kill would end the process there: a lock is held until removed
        return pid
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's
        return pid
    except OverflowError:
        return None
    return pid


@contextlib.contextmanager
def locked(out: str | os.PathLike) -> Iterator[Path]:
    """Holds the lock of the run folder ``out`` (made if missing) for the ``with`` block;
    ``ValueError`` naming the folder and the holder's pid when a live process holds it."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    lock = out / LOCK
    fd, tmp = tempfile.mkstemp(prefix=".lock.", dir=out)
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
        os.close(fd)
        for _ in range(3):
            try:
                os.link(tmp, lock)  # fails when the lock exists: only one run can link it
                break
            except FileExistsError:
                pid = _holder(lock)
                if pid is None:
                    # A stale lock: moved aside, then the link tried again. Moved, not deleted:
                    # if a racing run linked a fresh lock meanwhile, that one is put back.
                    aside = f"{tmp}.stale"
                    try:
                        os.rename(lock, aside)
                    except FileNotFoundError:
                        continue
                    pid = _holder(Path(aside))
                    if pid is None:
                        os.unlink(aside)
                        continue
                    with contextlib.suppress(FileExistsError):
                        os.link(aside, lock)
                    os.unlink(aside)
                raise ValueError(f"run folder {out} is in use by process {pid} (its lock {lock}); "
                                 "wait for that run to end, or choose another --out") from None
        else:
            raise ValueError(f"run folder {out}: could not take its lock {lock}")
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    try:
        yield lock
    finally:
        if _holder(lock) == os.getpid():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock)


def read_summary(path: str | os.PathLike) -> dict:
    """The run summary at ``path`` (``summary.json``), read within ``MAX_SUMMARY_BYTES``; a
    one-line ``ValueError`` naming the file when it is not a JSON object."""
    raw = read_bounded(path, MAX_SUMMARY_BYTES, "a run's summary")
    try:
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise ValueError(f"{path}: not a run summary (nested too deeply)") from None
    except ValueError as exc:  # not UTF-8, not JSON
        raise ValueError(f"{path}: not a run summary (not JSON: {' '.join(str(exc).split())})"[:500]) from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a run summary (a JSON object)")
    return data


def check_continued_summary(path: Path, data: dict) -> None:
    """``ValueError`` naming ``path`` and the key when the summary of a run being continued
    holds what the continued run cannot carry on: ``segments`` (a list of objects) and
    ``eval_history`` (a list of evaluations, each with a whole ``timesteps`` and numbers
    ``success_rate`` and ``mean_reward``). Checked before anything is trained, so a run never
    replaces ``model.zip`` and then fails to write the summary that describes it."""
    segments = data.get("segments", [])
    if not isinstance(segments, list) or not all(isinstance(s, dict) for s in segments):
        raise ValueError(f"{path}: key 'segments' must be a list of objects (the run's training segments), "
                         f"got {quote(segments)}")
    history = data.get("eval_history", [])
    if not isinstance(history, list):
        raise ValueError(f"{path}: key 'eval_history' must be a list of evaluations, got {quote(history)}")
    for i, row in enumerate(history):
        if not (isinstance(row, dict) and isinstance(row.get("timesteps"), int)
                and not isinstance(row["timesteps"], bool)
                and all(is_finite_number(row.get(k)) for k in ("success_rate", "mean_reward"))):
            raise ValueError(f"{path}: key 'eval_history[{i}]' must be an evaluation with a whole 'timesteps' "
                             f"and the numbers 'success_rate' and 'mean_reward', got {quote(row)}")


def used_entries(out: str | os.PathLike) -> list[str]:
    """The entries of ``RUN_ENTRIES`` present in ``out``."""
    out = Path(out)
    return [name for name in RUN_ENTRIES if os.path.lexists(out / name)]


def _inside(path: Path, folder: Path) -> bool:
    return folder.resolve() in path.resolve().parents


def prepare(out: str | os.PathLike, resume: str | os.PathLike | None, replace: bool) -> dict | None:
    """Make the locked run folder ``out`` ready for a run (module docstring). Returns the
    summary of the run being continued when ``resume`` is ``out``'s own ``model.zip`` (an
    empty dict when that run left no summary), else None; ``ValueError`` naming the folder
    when the run would mix with or overwrite the one there."""
    out = Path(out)
    used = used_entries(out)
    own_model = out / "model.zip"
    if resume is not None and os.path.exists(own_model) and Path(resume).resolve() == own_model.resolve():
        if replace:
            raise ValueError(f"--replace would delete {own_model}, the model --resume goes on from; "
                             "resume into another --out, or drop --replace to continue the run")
        summary = out / "summary.json"
        if not summary.is_file():
            return {}
        data = read_summary(summary)
        check_continued_summary(summary, data)
        return data
    if not used:
        return None
    if resume is not None and _inside(Path(resume), out):
        raise ValueError(f"run folder {out} already holds a run, and {resume} is one of its files: "
                         f"continue the run with --resume {own_model}, or resume into another --out")
    if not replace:
        raise ValueError(f"run folder {out} already holds a run ({', '.join(used)}); continue it with "
                         f"--resume {own_model}, replace it with --replace, or choose another --out")
    for name in used:
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    return None
