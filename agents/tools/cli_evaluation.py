"""The evaluation commands: ``eval``, ``check-benchmark``, ``baselines`` and ``play``."""

from __future__ import annotations

import argparse
import os
import sys

from poolgym.agents.evaluation import EVAL_TABLES
from poolgym.agents.tools.cli_args import (
    NO_PROGRESS_HELP, TRUST_MODEL_HELP, UsageError, _fps, _game_env_id, _names, _output_file,
    _positive_int, _ruleset, _seed, agent_help, games_help)
from poolgym.agents.tools.script_io import write_json, write_text


def _protocol(args: argparse.Namespace):
    """The evaluation protocol of ``--env`` with ``--game`` / ``--noise`` (``poolgym.agents.evaluation.protocol``)."""
    from poolgym.agents.evaluation.protocol import protocol

    _game_env_id(args.env, "--env")
    if args.game is not None:
        _ruleset(args.game)  # a usage error listing the games when it is not one
    return protocol(args.env, args.game, args.noise)


def _eval(args: argparse.Namespace) -> int:
    from poolgym.agents.evaluation import evaluate
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.tools.progress import Progress

    played_under = _protocol(args)
    rules, noise = played_under.rules, played_under.noise
    agent_kwargs = {"action_mode": args.action_mode, "obs_mode": args.obs_mode, "trusted": args.trust_model}
    # Built here in every case: a bad spec fails at once, and the references need A.
    agents = [make_agent(spec, rules, seed=args.seed + i, noise=noise, max_speed=played_under.max_speed,
                         elevation=played_under.elevation, **agent_kwargs)
              for i, spec in enumerate((args.a, args.b))]
    references = evaluate.reference_agents(args.a, agents[0], rules, seed=args.seed, noise=noise,
                                           max_speed=played_under.max_speed)
    on_ray = args.ray or args.address
    # Here: the match, then each reference agent's match on the same racks, as one count.
    progress = Progress("eval", args.games * (1 + len(references)), "racks", enabled=not args.no_progress)
    with progress:
        if on_ray:
            from poolgym.agents.evaluation.distributed import ray_session, run_matches_ray

            # One session and one batch of tasks for the match and the reference agents'
            # matches; the untrained network has no spec a Ray worker could build: it plays here.
            on_workers = [name for name in references if name in evaluate.REFERENCE_AGENTS]
            with ray_session(args.address):
                spread = run_matches_ray(args.env, [(args.a, args.b)] + [(name, args.b) for name in on_workers],
                                         args.games, seed=args.seed, game=args.game, noise=args.noise,
                                         progress=progress.advance, **agent_kwargs)
            match = spread.matches[0]
            by_name = dict(zip(on_workers, spread.matches[1:]))
            print(f"played on Ray: {sum(map(len, spread.nodes))} tasks on {spread.node_count()} node(s)",
                  file=sys.stderr)
            play = lambda name, agent: (by_name[name] if name in by_name else  # noqa: E731
                                        evaluate.run_match(rules, [agent, agents[1]], (name, args.b), args.games,
                                                           seed=args.seed, noise=noise, progress=progress.callback,
                                                           racks_at_once=args.racks_at_once))
        else:
            match = evaluate.run_match(rules, agents, (args.a, args.b), args.games, seed=args.seed,
                                       noise=noise, progress=progress.callback, racks_at_once=args.racks_at_once)
            play = None
        summary = evaluate.summarize(match)
        summary["protocol"] = played_under.describe()
        summary["references"] = evaluate.reference_report(rules, references, agents[1], args.b, args.games,
                                                          seed=args.seed, noise=noise, play=play,
                                                          progress=progress.callback, racks_at_once=args.racks_at_once)
    print(evaluate.format_summary(summary))
    write_json(args.json, summary)
    if args.csv:
        evaluate.write_csv(match, args.csv)
    return 0


def _check_benchmark(args: argparse.Namespace) -> int:
    from poolgym.agents.evaluation import sweeps

    _game_env_id(args.env, "--env")

    if args.check == "calibration":
        report = {"env": args.env, "seed": args.seed,
                  "rows": sweeps.calibration_table(args.env, breaks=args.n, seed=args.seed)}
        print(f"{args.env}: made a ball (95% interval) over {args.n} breaks, by rack model and speed")
        for row in report["rows"]:
            low, high = row["made_ball_interval"]
            print(f"  {str(row['rack_model']):<40} {row['speed']:>5} m/s  {row['made_ball_rate']:.3f} "
                  f"[{low:.3f}, {high:.3f}]")
    elif args.check == "breaks":
        sweeps.check_break_speed(args.env, args.speed, "--speed")  # before any break is played
        stats = sweeps.break_statistics(args.env, breaks=args.n, seed=args.seed, speed=args.speed)
        report = stats.as_dict()
        print(f"{args.env}: {stats.breaks} benchmark breaks at {args.speed} m/s")
        for name in ("made_ball", "made_ball_no_foul", "money_ball", "scratches", "fouls"):
            low, high = report[f"{name}_interval"]
            print(f"  {name:<18} {report[f'{name}_rate']:.3f} [{low:.3f}, {high:.3f}]")
    else:
        if args.check == "constant":
            results = sweeps.sweep_constant_play(actions=args.n, racks=args.racks, seed=args.seed,
                                                 env_id=args.env, opponent=args.opponent,
                                                 workers=args.workers)
            what = f"racks won against {args.opponent}, {args.racks} racks each"
        else:
            mode = args.check.split("-")[1]
            results = sweeps.sweep_breaks(mode, actions=args.n, breaks=args.racks, seed=args.seed,
                                          env_id=args.env, workers=args.workers)
            what = f"breaks pocketing the money ball, {args.racks} breaks each"
        top = sweeps.best(results)
        report = {"check": args.check, "env": args.env, "seed": args.seed, "best": top, "results": results}
        low, high = top["interval"]
        print(f"{args.env}, {len(results)} constant {args.check} actions ({what}): best "
              f"{top['rate']:.3f} [{low:.3f}, {high:.3f}] with action {[round(v, 3) for v in top['action']]}")
    write_json(args.json, report)
    return 0


def _baselines(args: argparse.Namespace) -> int:
    from poolgym.agents.evaluation import baselines
    from poolgym.agents.tools.progress import Progress

    _game_env_id(args.env, "--env")
    if args.agents is not None:  # given, even empty: "--agents ''" is refused, not the ladder
        if args.ray or args.address:
            raise ValueError("--ray / --address play the ladder's pairings; with --agents use --workers")
        from poolgym.agents.evaluation.protocol import protocol

        rules = protocol(args.env).rules
        agents = _agent_specs(args.agents, "--agents", rules, args.trust_model)
        opponents = _agent_specs(args.opponents, "--opponents", rules, args.trust_model)
        total = len(agents) * len(opponents) * args.racks
        with Progress(f"baselines ({len(agents)} agents x {len(opponents)} opponents)", total, "racks",
                      enabled=not args.no_progress) as progress:
            table = baselines.agent_table(agents, opponents, args.env, racks=args.racks, seed=args.seed,
                                          workers=args.workers, advance=progress.advance,
                                          trusted=args.trust_model)
        text = baselines.format_agent_markdown(table)
    else:
        pairings = len(baselines.TABLE_PLAYERS) * (len(baselines.TABLE_PLAYERS) - 1) // 2
        with Progress(f"baselines ({pairings} pairings of the ladder)", pairings * args.racks, "racks",
                      enabled=not args.no_progress) as progress:
            if args.ray or args.address:
                from poolgym.agents.evaluation.distributed import ray_session

                with ray_session(args.address):
                    table = baselines.baseline_table(args.env, racks=args.racks, seed=args.seed, on_ray=True,
                                                     advance=progress.advance)
            else:
                table = baselines.baseline_table(args.env, racks=args.racks, seed=args.seed,
                                                 workers=args.workers, advance=progress.advance)
        text = baselines.format_markdown(table)
    print(text)
    write_json(args.json, table)
    write_text(args.markdown, text + "\n")
    return 0


def _agent_specs(text: str, option: str, rules, trusted: bool = False) -> list[str]:
    """A comma-separated list of agent specs, each checked by loading it once for ``rules``
    (the game the racks are played under), before any rack is played; ``trusted``: a
    model may be unpickled."""
    from poolgym.agents.evaluation.baselines import UNTRAINED
    from poolgym.agents.evaluation.loading import make_agent

    names = _names(text)
    if not names:
        raise ValueError(f"{option}: name at least one agent")
    for name in names:
        make_agent(name[len(UNTRAINED):] if name.startswith(UNTRAINED) else name, rules, trusted=trusted)
    return names


def no_display_reason() -> str | None:
    """Why a pygame window would be shown nowhere (``SDL_VIDEODRIVER`` set to an offscreen
    driver, or an X11/Wayland system with neither ``DISPLAY`` nor ``WAYLAND_DISPLAY``), or
    None when one can be seen."""
    driver = os.environ.get("SDL_VIDEODRIVER", "")
    if driver in ("dummy", "offscreen"):
        return f"SDL_VIDEODRIVER={driver}"
    windowed = sys.platform in ("win32", "cygwin", "darwin") or driver
    if not windowed and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        return "no DISPLAY"
    return None


def _play(args: argparse.Namespace) -> int:
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.tools.watch import check_gif, watch
    from poolgym.physics import Simulator

    if args.gif is not None:
        check_gif(args.gif, args.fps, "--gif", "--fps")

    played_under = _protocol(args)
    rules = played_under.rules
    agents = [make_agent(spec, rules, seed=args.seed + i, noise=played_under.noise,
                         max_speed=played_under.max_speed, elevation=played_under.elevation,
                         trusted=args.trust_model)
              for i, spec in enumerate((args.a, args.b))]
    # Checked once the other values are: every bad value is named before any play.
    if args.gif is None:
        reason = no_display_reason()
        if reason is not None:
            raise UsageError(f"no display to open a window on ({reason}); write the rack to a GIF "
                             "instead with --gif FILE")
    watch(rules, Simulator(rules.table, noise=played_under.noise), agents, seed=args.seed, gif=args.gif,
          fps=args.fps, names=(f"A ({args.a})", f"B ({args.b})"))
    return 0


def _add_eval(sub) -> None:
    ev = sub.add_parser("eval", help="play N racks between two agents and report statistics, "
                                     "beside the random and fixed agents (and an untrained "
                                     "network for a model) on the same racks against B")
    ev.add_argument("--env", default="poolgym/NineBall-v1", metavar="ID", help="the game env whose rules, rack gaps, noise and stroke cap the racks are played under (default poolgym/NineBall-v1)")
    ev.add_argument("--game", help=f"another registered ruleset under the env's settings: {games_help()}")
    ev.add_argument("-a", "--a", default="bot", help=f"agent A, breaks the even racks: {agent_help()}")
    ev.add_argument("-b", "--b", default="legal-random", help="agent B (same forms; default legal-random)")
    ev.add_argument("--games", type=_positive_int, default=20, help="racks to play (default 20)")
    ev.add_argument("--seed", type=_seed, default=0)
    ev.add_argument("--noise", choices=("none", "tournament", "fastfiz"), help="replace the env's execution noise")
    ev.add_argument("--action-mode", choices=("raw", "aim"),
                    help="how a policy callable's actions are read (default raw); for a saved "
                         "model, checked against the mode recorded in it")
    ev.add_argument("--obs-mode", choices=("dict", "flat"),
                    help="the observations a policy callable gets (default dict); for a saved "
                         "model, checked against the format recorded in it")
    ev.add_argument("--json", metavar="FILE", type=_output_file, help="also write the summary to FILE")
    ev.add_argument("--csv", metavar="FILE", type=_output_file, help="write one row per shot to FILE")
    ev.add_argument("--racks-at-once", type=_positive_int, default=EVAL_TABLES, metavar="N",
                    help=f"racks played side by side when an agent is a network choosing among discrete actions, "
                         f"one network call for all of them: the same racks, faster; its moves/s is then its "
                         f"share of a call (default {EVAL_TABLES}; 1 plays one rack at a time)")
    ev.add_argument("--ray", action="store_true", help="spread the racks over a local Ray instance")
    ev.add_argument("--address", help="spread the racks over the Ray cluster at ADDR (implies --ray)")
    ev.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    ev.add_argument("--trust-model", action="store_true", help=TRUST_MODEL_HELP)
    ev.set_defaults(handler=_eval)


def _rate(args: argparse.Namespace) -> int:
    from poolgym.agents.evaluation.rating import rate, read_ladder
    from poolgym.agents.tools.progress import Progress

    ladder = read_ladder(args.ladder) if args.ladder else None
    with Progress("rate", args.games, "racks", enabled=not args.no_progress) as progress:
        result = rate(args.agent, games=args.games, seed=args.seed, env_id=args.env, ladder=ladder,
                      action_mode=args.action_mode, obs_mode=args.obs_mode,
                      progress=lambda done, total: progress.advance(done - progress.done))
    print(result.describe())
    write_json(args.json, result.to_json())
    return 0


def _add_rate(sub) -> None:
    rt = sub.add_parser("rate", help="rate an agent on the Elo scale against the ladder (a Bradley-Terry fit, "
                                     "the ladder's ratings held fixed, a 95%% bootstrap interval)")
    rt.add_argument("agent", help=f"the agent to rate: {agent_help()}")
    rt.add_argument("--games", type=_positive_int, default=300, help="racks to play in all (default 300)")
    rt.add_argument("--seed", type=_seed, default=0, help="the same seed gives the same racks and rating")
    rt.add_argument("--env", default="poolgym/NineBall-v1", metavar="ID",
                    help="the game env whose protocol the racks are played under (default poolgym/NineBall-v1)")
    rt.add_argument("--ladder", metavar="FILE", help="a ladder file (default: the ladder shipped with poolgym)")
    rt.add_argument("--action-mode", choices=("raw", "aim"), help="as for eval")
    rt.add_argument("--obs-mode", choices=("dict", "flat"), help="as for eval")
    rt.add_argument("--json", metavar="FILE", type=_output_file, help="also write the rating to FILE")
    rt.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    rt.set_defaults(handler=_rate)


def _add_check_benchmark(sub) -> None:
    cb = sub.add_parser("check-benchmark", help="break statistics and sweeps of constant actions on "
                                                "a v1 game env (can a memorised action win?)")
    cb.add_argument("check", choices=("breaks", "calibration", "break-aim", "break-raw", "constant"),
                    help="breaks: the benchmark break's statistics; calibration: the same over rack "
                         "models and break speeds; break-aim / break-raw: constant break actions; "
                         "constant: constant raw actions on every shot")
    cb.add_argument("--env", default="poolgym/NineBall-v1")
    cb.add_argument("-n", type=_positive_int, default=500,
                    help="breaks (breaks, calibration) or constant actions (the sweeps); default 500")
    cb.add_argument("--racks", type=_positive_int, default=200,
                    help="racks per action in a sweep (default 200; the protocol uses 100 for constant)")
    cb.add_argument("--opponent", default="legal-random", help="constant: the opponent (default legal-random)")
    cb.add_argument("--speed", type=float, default=12.0, help="breaks: the break speed in m/s (default 12)")
    cb.add_argument("--workers", type=_positive_int, default=1, help="processes (default 1)")
    cb.add_argument("--seed", type=_seed, default=0)
    cb.add_argument("--json", metavar="FILE", type=_output_file, help="also write every result to FILE")
    cb.set_defaults(handler=_check_benchmark)


def _add_baselines(sub) -> None:
    bl = sub.add_parser("baselines", help="every pair of the ladder (random .. bot:fast) plays a match "
                                          "under a game env's protocol: the README's baseline table")
    bl.add_argument("--env", default="poolgym/NineBall-v1", metavar="ID")
    bl.add_argument("--racks", type=_positive_int, default=200, help="racks per pairing (default 200)")
    bl.add_argument("--seed", type=_seed, default=0)
    bl.add_argument("--workers", type=_positive_int, default=1, help="processes (default 1)")
    bl.add_argument("--agents", metavar="A,B,...", help="instead of the ladder's pairings: these agents "
                    "(ladder names, pretrained:NAME, model zips, untrained:MODEL for a model's untrained "
                    "network) each against every --opponents, with balls per inning and training runs")
    bl.add_argument("--opponents", metavar="A,B,...", default="legal-random,bot:fast",
                    help="opponents for --agents (default legal-random,bot:fast)")
    bl.add_argument("--ray", action="store_true", help="spread the pairings' racks over a local Ray instance "
                    "(instead of --workers)")
    bl.add_argument("--address", help="spread them over the Ray cluster at ADDR (implies --ray)")
    bl.add_argument("--json", metavar="FILE", type=_output_file, help="also write every figure to FILE")
    bl.add_argument("--markdown", metavar="FILE", type=_output_file, help="also write the table to FILE")
    bl.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP + " (racks played)")
    bl.add_argument("--trust-model", action="store_true", help=TRUST_MODEL_HELP)
    bl.set_defaults(handler=_baselines)


def _add_play(sub) -> None:
    play = sub.add_parser("play", help="watch two agents play a rack (window or --gif)")
    play.add_argument("--env", default="poolgym/NineBall-v1", metavar="ID", help="the game env whose rules, rack gaps, noise and stroke cap the racks are played under (default poolgym/NineBall-v1)")
    play.add_argument("--game", help=f"another registered ruleset under the env's settings: {games_help()}")
    play.add_argument("-a", "--a", default="bot", help=f"agent A, who breaks: {agent_help()}")
    play.add_argument("-b", "--b", default="bot", help="agent B (same forms)")
    play.add_argument("--seed", type=_seed, default=0)
    play.add_argument("--noise", choices=("none", "tournament", "fastfiz"), help="replace the env's execution noise")
    play.add_argument("--gif", metavar="FILE", type=_output_file,
                      help="write a GIF instead of opening a window (needed without a display)")
    play.add_argument("--fps", type=_fps, default=15.0, help="frames per second (default 15)")
    play.add_argument("--trust-model", action="store_true", help=TRUST_MODEL_HELP)
    play.set_defaults(handler=_play)


# The commands this family adds, each name to the function adding its subparser to
# ``sub`` (``cli.build_parser`` calls them in ``cli.COMMAND_ORDER``).
COMMANDS = {
    "eval": _add_eval,
    "rate": _add_rate,
    "check-benchmark": _add_check_benchmark,
    "baselines": _add_baselines,
    "play": _add_play,
}
