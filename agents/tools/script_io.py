"""Arguments and output files shared by poolgym's commands and the benchmark scripts that
play agents under a protocol (``benchmarks/stroke_fouls.py``, ``benchmarks/rack_losses.py``)."""

from __future__ import annotations

import argparse

from poolgym.files import atomic_write_json, atomic_write_text


def write_json(path: str | None, data) -> None:
    """Write ``data`` to ``path`` as JSON when a path was given (the ``--json`` options),
    atomically (``poolgym.files``: a failed write leaves the previous file intact); a number
    that is not finite is refused naming the file and its key, nothing written."""
    if path:
        atomic_write_json(path, data)


def write_text(path: str | None, text: str) -> None:
    """Write ``text`` to ``path`` when a path was given (the ``--markdown`` options),
    atomically."""
    if path:
        atomic_write_text(path, text)


def agents_parser(description: str, agents: str, racks: int) -> argparse.ArgumentParser:
    """A parser of the agents to play (``--agents``, comma-separated, default ``agents``),
    their opponent, the racks each plays (default ``racks``), the seed and the output files."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--agents", default=agents)
    parser.add_argument("--opponent", default="legal-random")
    parser.add_argument("--racks", type=int, default=racks)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    return parser
