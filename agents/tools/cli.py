"""The ``poolgym`` command: its parser, assembled from the command families' modules
(``cli_simulation``, ``cli_training``, ``cli_envs``, ``cli_evaluation``, ``cli_bot``,
``cli_data``, with their shared argument types in ``cli_args``), and ``main``, which runs a
command and turns its errors and Ctrl-C into one line and an exit status. Each command
imports what it runs only when it runs, so ``poolgym --help`` stays fast."""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys

from poolgym import __version__
from poolgym.agents.tools import cli_bot, cli_data, cli_envs, cli_evaluation, cli_simulation, cli_training
from poolgym.agents.tools.cli_args import INTERRUPTED, UsageError
from poolgym.agents.tools.cli_evaluation import no_display_reason

__all__ = ["INTERRUPTED", "UsageError", "build_parser", "command", "freeze_imports", "main",
           "no_display_reason"]

# The longest error message ``main`` prints (one line).
MAX_ERROR_CHARS = 500
# The modules holding the commands, each with its ``COMMANDS``.
FAMILIES = (cli_simulation, cli_training, cli_envs, cli_evaluation, cli_bot, cli_data)
# Every command, in the order ``poolgym --help`` lists them.
COMMAND_ORDER = ("demo", "bench", "soak", "train", "bench-train", "compile", "bench-import", "bench-envs",
                 "quickstart", "eval", "rate", "bench-bot", "bench-jump", "check-benchmark", "baselines", "collect",
                 "play")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="poolgym", description="Pool billiards for RL.")
    parser.add_argument("--version", action="version", version=f"poolgym {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    adders = {name: add for family in FAMILIES for name, add in family.COMMANDS.items()}
    for name in COMMAND_ORDER:
        adders[name](sub)
    return parser


def freeze_imports() -> None:
    """Put every object that exists now (the modules, numba's compiled-kernel machinery:
    about 125,000 objects after ``import poolgym``) beyond the cyclic garbage collector
    (``gc.freeze``), so that its full collections walk only what the command makes.

    The bot's search keeps hundreds of candidate results alive while it decides a move,
    so full collections run often, each walking every object the imports made (about 41 ms):
    10-25% of a move at the normal and strong budgets on one machine, 0-5% on a slower one
    (docs/throughput.md). Frozen objects are never collected,
    which costs nothing for modules that live as long as the process. It is process-wide,
    an application's choice, so the ``poolgym`` command makes it (``command``) and the
    library does not; a script that runs the bot can call this (or ``gc.freeze()``) after
    its imports."""
    gc.freeze()


def command() -> int:
    """The ``poolgym`` console script: ``main`` on the process's arguments, in a process
    set up for long searches (``freeze_imports``; ``main`` itself, called from Python, leaves
    the caller's collector as it is) and stopped by SIGTERM as by Ctrl-C
    (``_sigterm_as_ctrl_c``)."""
    freeze_imports()
    _sigterm_as_ctrl_c()
    return main()


def _sigterm_as_ctrl_c() -> None:
    """SIGTERM (``kill``, a job's time limit) raises ``KeyboardInterrupt`` in this process,
    as Ctrl-C does, so every command stops as it stops on Ctrl-C: one line and exit status
    130, ``train`` and ``collect`` saving what they have. A process forked from this one (a
    worker pool's) keeps SIGTERM's default, which is how its pool ends it."""
    parent = os.getpid()

    def stop(signum, frame):
        if os.getpid() != parent:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


def main(argv: list[str] | None = None) -> int:
    """The ``poolgym`` command on ``argv`` (the console script runs it through ``command``;
    tests and scripts call it directly). A bad option value is a usage message
    and exit status 2 (argparse); so is a ``ValueError`` the command raises on a value it was
    given (an unknown game, an agent spec that cannot be loaded), printed on one line. A
    file that cannot be written (or read) is one line too, with exit status 1. Ctrl-C is
    one line and exit status 130 (``INTERRUPTED``)."""
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        print(f"\npoolgym {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except ValueError as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        # A long message from elsewhere is cut; the command's own usage errors list what
        # is allowed (every registered game, however many variants are registered) in full.
        if len(text) > MAX_ERROR_CHARS and not isinstance(exc, UsageError):
            text = text[:MAX_ERROR_CHARS] + "…"
        print(f"poolgym {args.command}: error: {text}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file that cannot be written (a full disk, /dev/full) or read
        # poolgym.files names the file in strerror; other errors carry it in filename.
        text = " ".join((exc.strerror if exc.strerror and exc.filename is None else str(exc)).split())
        print(f"poolgym {args.command}: error: {text[:MAX_ERROR_CHARS]}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(command())
