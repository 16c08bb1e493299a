"""Progress of long commands (``eval``, ``soak``, ``bench-bot``, training's final
evaluation), on stderr so that stdout keeps only the report.

A tqdm bar when tqdm is installed (it comes with the ``train`` extra), else a plain line
every tenth of the work and at its end (``label: done/total unit``).
"""

from __future__ import annotations

import sys

# Plain lines: one per this fraction of the work (and one at the end).
PLAIN_STEP = 0.1


def progress_factory(enabled: bool = True):
    """``factory(label, total, unit)`` making a ``Progress`` (enabled or not), as
    ``poolgym.agents.training.train.train`` takes it: each evaluation phase gets its
    own display when it starts, labelled with what it plays."""
    return lambda label, total, unit="": Progress(label, total, unit, enabled=enabled)


class Progress:
    """Counts ``total`` units of work done under ``label``; ``advance()`` after each one.
    Disabled (``enabled=False``) it prints nothing. Use it as a context manager, or call
    ``close()`` at the end."""

    def __init__(self, label: str, total: int, unit: str = "", enabled: bool = True) -> None:
        self.label, self.total, self.unit = label, int(total), unit
        self.done = 0
        self._bar = None
        self._plain_every = max(1, int(self.total * PLAIN_STEP))
        self.enabled = enabled and self.total > 0
        if self.enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=self.total, desc=label, unit=f" {unit}" if unit else "it",
                                 file=sys.stderr, dynamic_ncols=True)

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more units done."""
        if not self.enabled:
            return
        before, self.done = self.done, min(self.total, self.done + n)
        if self._bar is not None:
            self._bar.update(self.done - before)
        elif self.done == self.total or self.done // self._plain_every > before // self._plain_every:
            unit = f" {self.unit}" if self.unit else ""
            print(f"{self.label}: {self.done}/{self.total}{unit}", file=sys.stderr, flush=True)

    def callback(self, done: int, total: int) -> None:
        """``advance()`` as the ``progress(done, total)`` callbacks of ``run_match`` and the
        soaks call it (one unit per call)."""
        self.advance()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
