"""Files at the boundary: every write is atomic, every read of an outside file is bounded.

Writes go to a temporary file in the destination's own folder and are renamed into place
with ``os.replace``, so a reader sees the old file or the new one, never half of one; a
failed write (a full disk, Ctrl-C) removes the temporary file and leaves the previous file
intact, and raises an ``OSError`` whose message names the destination. JSON is written by
``atomic_write_json``, which refuses a number that is not finite (JSON has none). A folder
written beside its destination is put in its place by ``replace_folder``.

Reads of files that come from elsewhere (YAML, saved games, model records, datasets) take
regular files only and stop at a size limit while reading, so a special file (``/dev/zero``,
a FIFO) or a file that grows after a size check cannot exhaust memory or hang the process.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import IO, Iterator


class FileTooLarge(ValueError):
    """A file passed the size limit of what is read from it."""


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """Opens a temporary file beside ``path`` for writing (``mode`` "w" or "wb"); when the
    ``with`` block ends without an exception the file is flushed to disk and renamed to
    ``path``; otherwise it is removed and ``path`` is left as it was.

    A ``path`` that is a device or a FIFO (``/dev/stdout``, ``/dev/null``) is written in
    place: there is no file to replace, and renaming over it would replace the device. A
    symbolic link is written through: its target is replaced, the link kept.
    Either way a failed write is an ``OSError`` whose message names ``path``."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_writer mode must be 'w' or 'wb', got {mode!r}")
    path = Path(path)
    if path.is_symlink():  # written through the link, as a plain open would, not over it
        path = Path(os.path.realpath(path))
    try:
        special = not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # no file yet (or none that can be looked at): the temporary file says
        special = False
    try:
        if special:
            with open(path, mode, **open_kwargs) as f:
                yield f
            return
        folder = path.parent if str(path.parent) else Path(".")
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        try:
            # mkstemp makes the file private (0600): give it the mode a plain open would.
            os.chmod(fd, 0o666 & ~_umask())
            with os.fdopen(fd, mode, **open_kwargs) as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        kept = "" if special else "; the previous file, if any, is unchanged"
        raise OSError(exc.errno, f"cannot write {path}: {exc.strerror or exc}{kept}") from None


def _umask() -> int:
    """The process's file-creation mask (read by setting it, then set back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Writes ``data`` to ``path`` atomically (see ``atomic_writer``)."""
    with atomic_writer(path, "wb") as f:
        f.write(data)


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Writes ``text`` to ``path`` atomically (see ``atomic_writer``)."""
    with atomic_writer(path, "w", encoding=encoding, newline="") as f:
        f.write(text)


def read_bounded(path: str | os.PathLike, limit: int, what: str = "the file") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises ``FileTooLarge`` (a ``ValueError``) when the file holds more than ``limit`` bytes
    (found while reading, so a file that grows is stopped too), ``ValueError`` when ``path``
    is not a regular file (a device, a FIFO, a folder), and ``OSError`` when it cannot be
    opened. Each message starts with the path and names ``what`` was being read.
    """
    path = Path(path)
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer for ever.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path}: cannot read {what}: not a regular file")
        return _read_at_most(lambda n: os.read(fd, n), limit, path, what)
    finally:
        os.close(fd)


def read_bounded_member(archive: zipfile.ZipFile, name: str, limit: int, what: str) -> bytes:
    """The bytes of the member ``name`` of the open zip ``archive``, at most ``limit`` of
    them: decompressed a chunk at a time and stopped at the limit, so a small archive that
    expands to gigabytes is refused after ``limit`` bytes (``FileTooLarge``, naming the
    archive and ``what``)."""
    with archive.open(name) as member:
        return _read_at_most(member.read, limit, archive.filename, what)


def _read_at_most(read, limit: int, source, what: str) -> bytes:
    """What ``read(n)`` calls give until they give nothing, a megabyte at a time, or
    ``FileTooLarge`` (naming ``source`` and ``what``) once more than ``limit`` bytes came."""
    chunks, total = [], 0
    while True:
        chunk = read(min(1 << 20, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise FileTooLarge(f"{source}: cannot read {what}: larger than {limit} bytes "
                               f"(at most {limit} are read)")


def atomic_write_json(path: str | os.PathLike, data, indent: int | None = 1) -> None:
    """Writes ``data`` as JSON to ``path`` atomically (see ``atomic_writer``), checked as
    ``json_text`` checks it: nothing is written when it fails."""
    atomic_write_text(path, json_text(path, data, indent))


def json_text(path: str | os.PathLike, data, indent: int | None = 1) -> str:
    """``data`` as the JSON text of the file ``path``. A number that is not finite (NaN,
    infinity) has no JSON form: ``ValueError`` naming the file and the key that holds it."""
    import json

    try:
        return json.dumps(data, indent=indent, allow_nan=False)
    except ValueError:
        raise ValueError(f"{path}: not written: key {_non_finite_key(data)!r} is not a finite number "
                         f"(JSON holds finite numbers only)") from None


def _non_finite_key(data, prefix: str = "") -> str | None:
    """The dotted key of the first non-finite float in ``data`` (dicts and lists)."""
    import math

    if isinstance(data, float) and not math.isfinite(data):
        return prefix or "<top>"
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, (list, tuple)) else ()
    for key, value in items:
        found = _non_finite_key(value, f"{prefix}[{key}]" if isinstance(key, int) else
                                f"{prefix}.{key}" if prefix else str(key))
        if found is not None:
            return found
    return None


def replace_folder(new: str | os.PathLike, dest: str | os.PathLike) -> None:
    """Puts the folder ``new`` (beside ``dest``, on the same file system) in ``dest``'s place.

    With no ``dest`` it is a rename. Otherwise the two are exchanged in one step where the
    system can (Linux ``renameat2`` with ``RENAME_EXCHANGE``), so a reader sees the old folder
    or the new one, never neither; elsewhere ``dest`` is moved aside, ``new`` renamed into
    place and the old folder removed. The old folder is deleted at the end (a symbolic link
    in ``dest``'s place: only the link)."""
    import uuid

    new, dest = Path(new), Path(dest)
    if not dest.exists():
        os.rename(new, dest)
        return
    if _exchange(new, dest):
        _remove(new)
        return
    aside = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:8]}.old")
    os.rename(dest, aside)
    try:
        os.rename(new, dest)
    except BaseException:
        os.rename(aside, dest)
        raise
    _remove(aside)


def _remove(path: Path) -> None:
    """Removes the folder ``path``, or only the link when it is a symbolic link."""
    import shutil

    if path.is_symlink():
        path.unlink()
    else:
        shutil.rmtree(path)


def _exchange(a: Path, b: Path) -> bool:
    """Swaps the paths ``a`` and ``b`` atomically (Linux ``renameat2``); False where the
    system or file system cannot, an ``OSError`` on any other failure."""
    import ctypes
    import errno
    import sys

    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, f"cannot put {a} in place of {b}: {os.strerror(code)}")
