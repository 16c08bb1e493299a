"""The ``poolgym`` command. Each subcommand parses its options here and hands over to its
own module, imported only when that subcommand runs so ``poolgym --help`` stays fast."""

from __future__ import annotations

import argparse
import json
import os
import sys

from poolgym.table import TABLE_SIZES


def _demo(args: argparse.Namespace) -> int:
    from agents.demo import run_demo

    run_demo(shots=args.shots, table_name=args.table)
    return 0


def _bench(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from agents import bench
    from agents.peers import default_pooltool_python

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
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


def _soak(args: argparse.Namespace) -> int:
    from agents import soak

    report: dict = {}
    failures = 0
    if args.shots:
        physics = report["physics"] = soak.run_physics_soak(shots=args.shots, seed=args.seed,
                                                            table_name=args.table)
        print(soak.format_report(physics), flush=True)
        failures += sum(physics[k] for k in ("crashes", "escapes", "overlaps", "lost_balls",
                                             "non_finite", "log_mismatches"))
    if args.games:
        print(soak.game_report_title({"games": args.games, "seed": args.seed}), flush=True)
        games = report["games"] = soak.run_game_soak(
            games=args.games, seed=args.seed, env_ids=args.env, max_steps=args.max_steps,
            progress=lambda lines: print(lines, flush=True))
        for env_id, reason in games["unavailable"].items():
            print(f"  {env_id}: not played ({reason})")
        failures += soak.game_failures(games)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 1 if failures else 0


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="poolgym", description="Pool billiards for RL.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="simulate a break and a few shots, print their events")
    demo.add_argument("--shots", type=int, default=4, help="shots after the break (default 4)")
    demo.add_argument("--table", default="7ft", choices=sorted(TABLE_SIZES))
    demo.set_defaults(handler=_demo)

    bench = sub.add_parser("bench", help="time the simulator on fixed cases, beside pooltool")
    bench.add_argument("--reps", type=_positive_int, default=3,
                       help="repetitions of each case; shots/s is their median (default 3)")
    bench.add_argument("--quick", action="store_true", help="a few shots per case (for tests)")
    bench.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    peer = bench.add_mutually_exclusive_group()
    peer.add_argument("--pooltool-python", metavar="PATH",
                      help="Python of a pooltool 0.6 venv (default: $POOLTOOL_PYTHON, else "
                           "~/.cache/poolgym-peers/pooltool-venv/bin/python if present)")
    peer.add_argument("--no-peer", action="store_true", help="time poolgym only")
    bench.set_defaults(handler=lambda args: _bench(args, bench))

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
    soak.add_argument("--seed", type=int, default=0)
    soak.add_argument("--table", default="9ft", choices=sorted(TABLE_SIZES))
    soak.add_argument("--json", metavar="FILE", help="also write the report to FILE")
    soak.set_defaults(handler=_soak)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``poolgym`` console script."""
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
