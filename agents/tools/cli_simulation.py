"""The simulator's commands: ``demo``, ``bench``, ``soak``, ``compile`` and ``bench-import``."""

from __future__ import annotations

import argparse
import os
import sys

from poolgym.agents.tools.cli_args import (
    ENV_ACTION_MODES, NO_PROGRESS_HELP, UsageError, _count, _elevation, _game_env_id, _output_file,
    _positive_int, _seed)
from poolgym.agents.tools.script_io import write_json
from poolgym.table import TABLE_SIZES


def _demo(args: argparse.Namespace) -> int:
    from poolgym.agents.tools.demo import run_demo

    run_demo(shots=args.shots, table_name=args.table)
    return 0


def _bench(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from poolgym.agents.tools import bench
    from poolgym.agents.tools.peers import default_pooltool_python

    if args.compare is not None:
        from poolgym.agents.tools import speed_compare

        cases = [{"case": name, "reps": args.reps} for name in ("break", "straight_in", "random")]
        try:
            rows = speed_compare.compare("sim", cases, "shots_per_s", args.compare, 3)
        except ValueError as err:
            parser.error(str(err))
        print(speed_compare.format_rows(rows, ["case", "reps"], "shots/s"))
        write_json(args.json, rows)
        return 0

    python = None
    if not args.no_peer:
        python = args.pooltool_python or default_pooltool_python()
        if python and not os.path.exists(python):
            parser.error(f"no pooltool Python at {python} (see --pooltool-python, --no-peer)")
        if python is None:
            print("pooltool not found (set --pooltool-python or $POOLTOOL_PYTHON); "
                  "timing poolgym alone", file=sys.stderr)
    results = bench.run(reps=args.reps, quick=args.quick, pooltool_python=python)
    print(bench.format_report(results))
    write_json(args.json, results)
    return 0


def _soak(args: argparse.Namespace) -> int:
    from poolgym.agents.tools import soak
    from poolgym.agents.tools.progress import Progress

    report: dict = {}
    failures = 0
    for env_id in args.env or ():
        _game_env_id(env_id, "--env")
    if args.shots:
        with Progress("soak", args.shots, "shots", enabled=not args.no_progress) as progress:
            physics = report["physics"] = soak.run_physics_soak(shots=args.shots, seed=args.seed,
                                                                table_name=args.table,
                                                                random_tables=args.random_tables,
                                                                progress=progress.callback,
                                                                max_elevation=args.elevation)
        print(soak.format_report(physics), flush=True)
        failures += sum(physics[k] for k in soak.PHYSICS_FAILURES)
    if args.games:
        print(soak.game_report_title({"games": args.games, "seed": args.seed,
                                      "elevation": args.elevated_games, "action_mode": args.action_mode}),
              flush=True)
        games = report["games"] = soak.run_game_soak(
            games=args.games, seed=args.seed, env_ids=args.env, max_steps=args.max_steps,
            progress=lambda lines: print(lines, flush=True), elevation=args.elevated_games,
            action_mode=args.action_mode)
        for env_id, reason in games["unavailable"].items():
            print(f"  {env_id}: not played ({reason})")
        failures += soak.game_failures(games)
    write_json(args.json, report)
    return 1 if failures else 0


def _compile(args: argparse.Namespace) -> int:
    from poolgym.agents.tools.compile_kernels import compile_kernels

    report = compile_kernels()
    print("compiled (or loaded) every kernel, playing:")
    for line in report["played"]:
        print(f"  {line}")
    print(f"cache: {report['cache']}")
    return 0


def _bench_import(args: argparse.Namespace) -> int:
    from poolgym.agents.tools import bench_import

    try:
        report = bench_import.run(args.compare, args.repeats)
    except ValueError as err:
        raise UsageError(str(err)) from None
    print(bench_import.format_report(report))
    write_json(args.json, report)
    return 0


def _add_demo(sub) -> None:
    demo = sub.add_parser("demo", help="simulate a break and a few shots, print their events")
    demo.add_argument("--shots", type=_count, default=4, help="shots after the break (default 4)")
    demo.add_argument("--table", default="7ft", choices=sorted(TABLE_SIZES))
    demo.set_defaults(handler=_demo)


def _add_bench(sub) -> None:
    bench = sub.add_parser("bench", help="time the simulator on fixed cases, beside pooltool")
    bench.add_argument("--reps", type=_positive_int, default=3,
                       help="repetitions of each case; shots/s is their median (default 3)")
    bench.add_argument("--quick", action="store_true", help="a few shots per case (for tests)")
    bench.add_argument("--compare", metavar="REV", help="poolgym only: each case's shots/s beside commit "
                       "REV's, in fresh processes alternating, the best of three (no pooltool)")
    bench.add_argument("--json", metavar="FILE", type=_output_file, help="also write every figure to FILE")
    peer = bench.add_mutually_exclusive_group()
    peer.add_argument("--pooltool-python", metavar="PATH",
                      help="Python of a pooltool 0.6 venv (default: $POOLTOOL_PYTHON, else "
                           "~/.cache/poolgym-peers/pooltool-venv/bin/python if present)")
    peer.add_argument("--no-peer", action="store_true", help="time poolgym only")
    bench.set_defaults(handler=lambda args: _bench(args, bench))


def _add_soak(sub) -> None:
    soak = sub.add_parser("soak", help="run many random shots and games and check every invariant")
    soak.add_argument("--shots", type=_count, default=10_000,
                      help="random shots through the simulator (default 10000; 0 skips them)")
    soak.add_argument("--games", type=_count, default=0,
                      help="random-vs-random games per game environment and per ruleset "
                           "(default 0)")
    soak.add_argument("--env", action="append", metavar="ID",
                      help="soak only this game environment (repeatable; default: every one)")
    soak.add_argument("--max-steps", type=_positive_int, metavar="N",
                      help="truncate each game after N steps (default: the environment's limit)")
    soak.add_argument("--seed", type=_seed, default=0)
    soak.add_argument("--table", default="9ft", choices=sorted(TABLE_SIZES))
    soak.add_argument("--random-tables", action="store_true",
                      help="shots on random tables drawn from the valid geometry range, a new "
                           "one every 50 shots (instead of --table)")
    soak.add_argument("--elevation", type=_elevation, metavar="MAX_DEG",
                      help="draw each random shot's cue elevation uniformly from [0, MAX_DEG] "
                           "degrees (at most 80; default: level cue, as before)")
    soak.add_argument("--elevated-games", action="store_true",
                      help="make the game environments with elevation=True: random actions raise "
                           "the cue 0-80 degrees, so balls leave the table (default: level cue)")
    soak.add_argument("--action-mode", choices=ENV_ACTION_MODES,
                      help="make the game environments in this action mode (default: each one's own), "
                           "so the choice modes' slots, masks and placements are soaked too")
    soak.add_argument("--json", metavar="FILE", type=_output_file, help="also write the report to FILE")
    soak.add_argument("--no-progress", action="store_true", help=f"{NO_PROGRESS_HELP} (random shots)")
    soak.set_defaults(handler=_soak)


def _add_compile(sub) -> None:
    comp = sub.add_parser("compile", help="compile every numba kernel into the cache now (an image's or a "
                                          "read-only install's set-up), not on first use")
    comp.set_defaults(handler=_compile)


def _add_bench_import(sub) -> None:
    bi = sub.add_parser("bench-import", help="seconds of import poolgym plus a first break, fresh and warm "
                                             "compile cache (--compare REV: beside a commit, in the same run)")
    bi.add_argument("--compare", metavar="REV", help="also measure commit REV, alternating with this tree")
    bi.add_argument("--repeats", type=_positive_int, default=3,
                    help="fresh processes per tree and cache state; the best is reported (default 3)")
    bi.add_argument("--json", metavar="FILE", type=_output_file, help="also write the figures to FILE")
    bi.set_defaults(handler=_bench_import)


# The commands this family adds, each name to the function adding its subparser to
# ``sub`` (``cli.build_parser`` calls them in ``cli.COMMAND_ORDER``).
COMMANDS = {
    "demo": _add_demo,
    "bench": _add_bench,
    "soak": _add_soak,
    "compile": _add_compile,
    "bench-import": _add_bench_import,
}
