"""The bot's benchmarks: ``bench-bot`` and ``bench-jump``."""

from __future__ import annotations

import argparse

from poolgym.agents.tools.cli_args import (
    NO_PROGRESS_HELP, UsageError, _max_speed, _names, _output_file, _positive_int, _ruleset, _seed, games_help)
from poolgym.agents.tools.script_io import write_json, write_text
from poolgym.racking import RACK_PRESETS


def _bench_bot(args: argparse.Namespace) -> int:
    from poolgym.agents.tools import bench_bot
    from poolgym.agents.tools.progress import Progress

    from poolgym.agents.evaluation.loading import BOT_LEVELS

    _ruleset(args.game)
    levels = _names(args.budget)
    for level in levels:
        if level not in BOT_LEVELS:
            raise ValueError(f"unknown bot level {level!r}: the bot rungs are {list(BOT_LEVELS)}")
    noises = ("none", "tournament") if args.noise == "both" else (args.noise,)
    if args.compare is not None:
        from poolgym.agents.tools import speed_compare

        if args.rack_model != "tight" or args.max_speed != 10.0:
            raise UsageError("--compare times the bench's own racks and cap (tight, 10 m/s): "
                             "leave out --rack-model and --max-speed")
        cases = [dict(budget=budget, noise=noise, racks=args.racks, seed=args.seed)
                 for budget in _names(args.budget) for noise in noises]
        rows = speed_compare.compare("bot", cases, "moves_per_s", args.compare, args.reps)
        print(speed_compare.format_rows(rows, ["budget", "noise", "racks", "seed"], "moves/s"))
        write_json(args.json, rows)
        return 0
    with Progress("bench-bot", args.racks * len(noises) * len(levels), "racks",
                  enabled=not args.no_progress) as progress:
        reports = bench_bot.run_levels(levels, racks=args.racks, game=args.game, seed=args.seed,
                                       noises=noises, progress=progress.callback, workers=args.workers,
                                       rack_model=args.rack_model, max_speed=args.max_speed)
    print("\n".join(bench_bot.format_report(r) for r in reports))
    write_json(args.json, reports[0] if len(reports) == 1 else reports)
    return 0


def _bench_jump(args: argparse.Namespace) -> int:
    from poolgym.agents.tools import bench_jump
    from poolgym.agents.tools.progress import Progress

    from poolgym.agents.bot.shot_search import SearchBudget

    SearchBudget.preset(args.budget)  # an unknown budget is one line naming the choices
    with Progress("bench-jump", args.positions, "positions", enabled=not args.no_progress) as progress:
        report = bench_jump.run(positions=args.positions, budget=args.budget, noise=args.noise, seed=args.seed,
                                max_speed=args.max_speed, progress=progress.callback)
    text = bench_jump.format_report(report)
    print(text)
    write_json(args.json, report)
    write_text(args.markdown, text + "\n")
    return 0


def _add_bench_bot(sub) -> None:
    bb = sub.add_parser("bench-bot", help="the bot's pot success, break-and-run rate, fouls "
                                          "and speed in self-play")
    bb.add_argument("--racks", type=_positive_int, default=200, help="racks per setting (default 200)")
    bb.add_argument("--game", default="nine_ball", help=f"a registered ruleset: {games_help()} (default nine_ball)")
    bb.add_argument("--budget", default="normal",
                    help="the bot rung: weak, fast, normal, strong, pro or pro-deep; a comma-separated list "
                         "benches each on the same racks")
    bb.add_argument("--compare", metavar="REV", help="report moves/s only, beside commit REV's, "
                                                     "measured in the same run")
    bb.add_argument("--reps", type=_positive_int, default=1,
                    help="with --compare: fresh processes per tree and case; the best is reported")
    bb.add_argument("--noise", default="both", choices=("both", "none", "tournament"))
    bb.add_argument("--workers", type=_positive_int, default=1,
                    help="processes sharing the racks (default 1; the figures do not depend on it)")
    bb.add_argument("--seed", type=_seed, default=0)
    bb.add_argument("--rack-model", default="tight", choices=sorted(RACK_PRESETS),
                    help="how the racks are racked (default tight; benchmark: NineBall-v1's gaps)")
    bb.add_argument("--max-speed", type=_max_speed, default=10.0,
                    help="the bots' stroke cap in m/s (default 10; NineBall-v1's is 12)")
    bb.add_argument("--json", metavar="FILE", type=_output_file, help="also write the report to FILE")
    bb.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    bb.set_defaults(handler=_bench_bot)


def _add_bench_jump(sub) -> None:
    bj = sub.add_parser("bench-jump", help="from blocked 9-ball positions: how often the bot's jump shot and its "
                        "best kick make a legal hit (Wilson intervals)")
    bj.add_argument("--positions", type=_positive_int, default=200, help="blocked positions (default 200)")
    bj.add_argument("--budget", default="normal", help="the bot's search budget (default normal)")
    bj.add_argument("--noise", default="tournament", choices=("none", "tournament"),
                    help="execution noise (default tournament)")
    bj.add_argument("--seed", type=_seed, default=0)
    bj.add_argument("--max-speed", type=_max_speed, default=12.0, help="stroke cap in m/s (default 12, the v1 envs')")
    bj.add_argument("--json", metavar="FILE", type=_output_file, help="also write the report to FILE")
    bj.add_argument("--markdown", metavar="FILE", type=_output_file, help="also write the table to FILE")
    bj.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    bj.set_defaults(handler=_bench_jump)


# The commands this family adds, each name to the function adding its subparser to
# ``sub`` (``cli.build_parser`` calls them in ``cli.COMMAND_ORDER``).
COMMANDS = {"bench-bot": _add_bench_bot, "bench-jump": _add_bench_jump}
