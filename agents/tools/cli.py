"""The ``poolgym`` command. Each subcommand parses its options here and hands over to its
own module, imported only when that subcommand runs so ``poolgym --help`` stays fast."""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import tempfile

from poolgym import __version__
from poolgym.agents.tools.script_io import write_json, write_text
from poolgym.envs.actions import ACTION_MODES
from poolgym.envs.choice import CHOICE_MODES, POT_RESIDUALS
from poolgym.racking import RACK_PRESETS
from poolgym.table import TABLE_SIZES

# Every env action mode, for the commands that make envs in one (``import poolgym`` has
# loaded these modules already: no cost to ``--help``).
ENV_ACTION_MODES = (*ACTION_MODES, *CHOICE_MODES)

# The longest error message ``main`` prints (one line).
MAX_ERROR_CHARS = 500
# The fastest frame rate ``play`` draws at: beyond it frames only cost memory.
MAX_FPS = 120.0
# The exit status of a command stopped by Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130
TRUST_MODEL_HELP = ("trust the model files named: let stable-baselines3 unpickle them, which runs code "
                    "(without it a model is read as data, and one that needs unpickling is refused)")


class UsageError(ValueError):
    """A command-line value found unusable once the command runs (an unknown game, an
    environment that is not a game); ``main`` prints it on one line and exits with status 2."""


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


def _train(args: argparse.Namespace) -> int:
    if args.resume_run and args.backend != "rllib":
        raise ValueError("--resume-run goes on from an RLlib run: it needs --backend rllib (sb3: --resume MODEL.zip)")
    if args.backend == "rllib":
        if args.resume is not None:
            raise ValueError("--resume takes a stable-baselines3 model: it needs --backend sb3")
        from poolgym.agents.training.rllib_train import train_rllib

        out = args.out or os.path.join("runs", "rllib")

        def report(algo, row):
            if not args.no_progress:
                print(f"iteration {row['iteration']}: {row['env_steps']} env steps, mean episode return "
                      f"{row['episode_return_mean']}, {row['seconds']:.0f} s", file=sys.stderr, flush=True)

        summary = train_rllib(args.config, out, address=args.address, trusted=args.allow_code,
                              resume=args.resume_run, on_iteration=report)
        last = summary["history"][-1] if summary["history"] else {}
        print(f"RLlib PPO: {summary['iterations']} iterations, {last.get('env_steps', 0)} env steps in "
              f"{summary['seconds']} s ({summary['env_steps_per_s']} steps/s); "
              f"mean episode return {last.get('episode_return_mean')}; summary in {out}")
        return 0
    from poolgym.agents.training.train import TrainingInterrupted, format_final, train
    from poolgym.agents.training.train_config import load_config

    from poolgym.agents.tools.progress import progress_factory

    config = load_config(args.config, trusted=args.allow_code)
    try:
        summary = train(config, out=args.out, steps=args.steps, seed=args.seed, device=args.device,
                        progress_bar=not args.no_progress, progress=progress_factory(not args.no_progress),
                        resume=args.resume, replace=args.replace, eval_racks=args.eval_racks,
                        evaluate=not args.no_eval, update_threads=args.update_threads,
                        trust_model=args.trust_model)
    except TrainingInterrupted as stop:
        out = os.path.dirname(stop.summary["model"])
        print(f"\npoolgym train: interrupted after {stop.summary['steps']} steps; saved {stop.summary['model']} "
              f"and {os.path.join(out, 'summary.json')} (continue with --resume {stop.summary['model']} "
              f"--out {out})", file=sys.stderr)
        return INTERRUPTED
    except KeyboardInterrupt:
        print("\npoolgym train: interrupted before a model was saved", file=sys.stderr)
        return INTERRUPTED
    print(f"trained {summary['steps']} steps in {summary['train_time_s']:.0f} s; "
          f"model and summary in {os.path.dirname(summary['model'])}")
    print(format_final(summary) if summary["final"] else "not evaluated (--no-eval)")
    return 0


def _quickstart(args: argparse.Namespace) -> int:
    from poolgym.agents.tools.quickstart import run_quickstart

    run_quickstart(out=args.out, steps=args.steps, episodes=args.episodes, racks=args.racks,
                   progress_bar=not args.no_progress)
    return 0


def _bench_envs(args: argparse.Namespace) -> int:
    if args.batched:
        return _bench_batched(args)
    from poolgym.agents.tools import scale_bench

    from poolgym.agents.tools import speed_compare

    cases = [dict(env_id=env_id, action_mode=mode, noise=args.noise, opponent=args.opponent, steps=args.steps)
             for env_id in _names(args.ids) for mode in _names(args.modes)]
    # Each case's env built once here: a bad id, mode or opponent is one line before any timing.
    _env_id(args.env, "--env")
    for case in cases:
        _env_id(case["env_id"], "--ids")
        _make_env(case["env_id"], action_mode=case["action_mode"], noise=args.noise,
                  opponent=args.opponent).close()
    per_mode = speed_compare.compare("env", cases, "steps_per_s", args.compare, args.reps)
    print(speed_compare.format_rows(per_mode, ["env_id", "action_mode", "noise", "opponent", "steps"],
                                     "steps/s"))
    rows = []
    if not args.no_scaling:
        rows = scale_bench.run(args.env, args.steps, with_ray=not args.no_ray, address=args.address)
        print(scale_bench.format_report(rows))
    write_json(args.json, {"per_mode": per_mode, "scaling": rows})
    return 0


def _bench_batched(args: argparse.Namespace) -> int:
    """``bench-envs --batched SIZES``: the batched env beside the single env and make_vec's
    sync wrapping (``poolgym.agents.tools.batched_bench``)."""
    import gymnasium as gym

    from poolgym.agents.tools import batched_bench

    env_id = _env_id(args.env, "--env")
    if gym.spec(env_id).vector_entry_point is None:
        raise UsageError(f"--env {env_id!r} has no batched form (no vector_entry_point)")
    try:
        sizes = [int(n) for n in _names(args.batched)]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise UsageError(f"--batched must be comma-separated table counts >= 1, got {args.batched!r}")
    modes = _names(args.modes)
    for mode in modes:  # a bad mode is one line before any timing
        _make_env(env_id, action_mode=mode).close()
    rows = batched_bench.run(env_id, modes, sizes, args.steps, args.reps)
    print(batched_bench.format_report(rows))
    write_json(args.json, {"batched": rows})
    return 0


def _env_id(env_id: str, option: str) -> str:
    """``env_id`` when Gymnasium has it registered, else a ``UsageError`` listing poolgym's ids."""
    import gymnasium as gym

    if env_id not in gym.registry:
        ids = sorted(i for i in gym.registry if i.startswith("poolgym/"))
        raise UsageError(f"{option} {env_id!r} is not a registered environment; poolgym's are {ids}")
    return env_id


def _game_env_id(env_id: str, option: str) -> str:
    """``env_id`` when it is a registered game environment (``PoolEnv``), else a
    ``UsageError`` listing them."""
    from poolgym.agents.tools.soak import game_env_ids

    games = game_env_ids()
    if env_id not in games:
        raise UsageError(f"{option} {env_id!r} is not a game environment; game environments are {games}")
    return env_id


def _make_env(env_id: str, **kwargs):
    """``gymnasium.make(env_id, **kwargs)``; a value it refuses is a ``ValueError`` naming it."""
    import gymnasium as gym

    try:
        return gym.make(env_id, **kwargs)
    except TypeError as exc:  # a keyword this env does not take
        raise UsageError(f"{env_id}: {exc}") from None


def _ruleset(name: str):
    """The ruleset ``--game`` names, or a ``UsageError`` listing the registered ones."""
    from poolgym.rules import available_rulesets, get_ruleset

    try:
        return get_ruleset(name)
    except ValueError:
        if name in available_rulesets():
            raise  # registered, but it failed to build: not a usage error
        raise UsageError(f"--game {name!r} is not a registered ruleset; choose one of "
                         f"{list(available_rulesets())}") from None


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
                                                           seed=args.seed, noise=noise, progress=progress.callback))
        else:
            match = evaluate.run_match(rules, agents, (args.a, args.b), args.games, seed=args.seed,
                                       noise=noise, progress=progress.callback)
            play = None
        summary = evaluate.summarize(match)
        summary["protocol"] = played_under.describe()
        summary["references"] = evaluate.reference_report(rules, references, agents[1], args.b, args.games,
                                                          seed=args.seed, noise=noise, play=play,
                                                          progress=progress.callback)
    print(evaluate.format_summary(summary))
    write_json(args.json, summary)
    if args.csv:
        evaluate.write_csv(match, args.csv)
    return 0


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


def _bench_train(args: argparse.Namespace) -> int:
    from poolgym.agents.tools import speed_compare

    from poolgym.agents.bot.shot_search import SearchBudget
    from poolgym.agents.training.train_config import load_config

    config = speed_compare.tree_config(args.config)
    try:
        load_config(speed_compare.ROOT / config)  # a bad file is one line before any timing
    except (OSError, ValueError) as err:
        raise UsageError(f"--config: {err}") from None
    budgets = _names(args.bot_budgets)
    for budget in budgets:
        SearchBudget.preset(budget)
    # --steps 0 leaves the training figure out (the env-alone and bot figures only).
    sections = [("train", [dict(config=str(config), steps=args.steps, seed=args.seed)] if args.steps else [],
                 "steps/s"),
                ("env_masked", [dict(config=str(config), steps=args.env_steps, seed=args.seed)], "steps/s"),
                ("bot", [dict(budget=b, noise="tournament", racks=args.bot_racks, seed=args.seed)
                         for b in budgets], "moves/s")]
    titles = {"train": "training (poolgym train, final evaluation not timed)",
              "env_masked": "env alone (masked random actions, one process)",
              "bot": "bot moves/s (tournament noise, self-play racks)"}
    report = {}
    for probe, cases, unit in sections:
        if not cases:
            continue
        key = "moves_per_s" if probe == "bot" else "steps_per_s"
        rows = speed_compare.compare(probe, cases, key, args.compare, args.repeats)
        report[probe] = rows
        columns = ["budget", "racks"] if probe == "bot" else ["steps"]
        print(titles[probe])
        print(speed_compare.format_rows([{k: r[k] for k in r if k not in ("config", "seed", "noise")}
                                         for r in rows], columns, unit))
    write_json(args.json, {"config": str(config), "compare": args.compare, "repeats": args.repeats, **report})
    return 0


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


def _collect(args: argparse.Namespace) -> int:
    from poolgym.agents.datasets.collect import collect

    from poolgym.agents.tools.progress import Progress

    with Progress("collect", args.episodes, "episodes", enabled=not args.no_progress) as progress:
        try:
            result = collect(args.agent, args.env, args.episodes, args.dataset_id, opponent=args.opponent,
                             action_mode=args.action_mode, obs_mode=args.observation_mode,
                             pot_residual=args.pot_residual, lookahead_samples=args.lookahead_samples,
                             seed=args.seed, progress=progress.advance, trust_model=args.trust_model)
        except KeyboardInterrupt as stop:
            result = getattr(stop, "result", None)
            if result is None:
                raise
    state = "interrupted: kept" if result.interrupted else "recorded"
    print(f"{result.dataset_id}: {state} {result.episodes} episodes, {result.steps} steps of {result.agent} in "
          f"{result.seconds:.0f} s ({result.episodes_per_s:.2f} episodes/s, {result.steps_per_s:.1f} steps/s); "
          f"the dataset holds {result.total_episodes} episodes, {result.total_steps} steps, "
          f"{result.size_bytes / 1e6:.1f} MB at {result.path}")
    write_json(args.json, result.to_dict())
    return 130 if result.interrupted else 0


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


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _seed(text: str) -> int:
    """A seed: an integer >= 0 (what numpy's generators take)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed must be an integer >= 0, got {value}")
    return value


def _fps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of frames per second, got {text!r}") from None
    if not (math.isfinite(value) and 0.0 < value <= MAX_FPS):
        raise argparse.ArgumentTypeError(f"must be in (0, {MAX_FPS:g}] frames per second, got {text}")
    return value


def _elevation(text: str) -> float:
    """The soak's largest cue elevation: degrees in [0, ``Shot.MAX_ELEVATION_DEG``]."""
    from poolgym.physics import Shot

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of degrees, got {text!r}") from None
    if not (math.isfinite(value) and 0.0 <= value <= Shot.MAX_ELEVATION_DEG):
        raise argparse.ArgumentTypeError(f"must be in [0, {Shot.MAX_ELEVATION_DEG:g}] degrees, got {text}")
    return value


def _max_speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a stroke speed in m/s, got {text!r}") from None
    if not (math.isfinite(value) and 0.3 < value <= 15.0):
        raise argparse.ArgumentTypeError(f"must be in (0.3, 15] m/s, got {text}")
    return value


def _check_writable_dir(directory: str, what: str) -> None:
    """Raise ``ArgumentTypeError`` unless a file can be created in ``directory`` (tried for
    real: permission bits say nothing to root or on a read-only mount)."""
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{what}: cannot write in {directory!r} ({exc.strerror})") from None


def _output_file(text: str) -> str:
    """An output FILE (``--json``, ``--csv``, ``--gif``), checked before any work is done:
    not a directory, in an existing directory where files can be written."""
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file")
    parent = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(parent):
        raise argparse.ArgumentTypeError(f"{text!r}: no directory {parent!r}")
    _check_writable_dir(parent, repr(text))
    if os.path.exists(text) and not os.access(text, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text!r} exists and is not writable")
    return text


def _model_file(text: str) -> str:
    """A saved model given on the command line: an existing zip (checked before any work)."""
    from poolgym.envs.sb3_models import check_model_path

    try:
        return check_model_path(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _output_dir(text: str) -> str:
    """An output DIR (``--out``), checked before any work is done: an existing directory,
    or one that can be created (its nearest existing parent is a writable directory)."""
    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is an existing file, not a directory")
    existing = os.path.abspath(text)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise argparse.ArgumentTypeError(f"{text!r}: {existing!r} is a file, not a directory")
    _check_writable_dir(existing, repr(text))
    return text


def _names(text: str) -> list[str]:
    """A comma-separated list of names (ids, modes, budgets)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    from poolgym.agents.evaluation.loading import AGENT_NAMES
    from poolgym.rules import available_rulesets

    parser = argparse.ArgumentParser(prog="poolgym", description="Pool billiards for RL.")
    parser.add_argument("--version", action="version", version=f"poolgym {__version__}")
    games = ", ".join(available_rulesets())
    no_progress = "no progress line on stderr"
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="simulate a break and a few shots, print their events")
    demo.add_argument("--shots", type=_count, default=4, help="shots after the break (default 4)")
    demo.add_argument("--table", default="7ft", choices=sorted(TABLE_SIZES))
    demo.set_defaults(handler=_demo)

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
    soak.add_argument("--no-progress", action="store_true", help=f"{no_progress} (random shots)")
    soak.set_defaults(handler=_soak)

    train = sub.add_parser("train", help="train an agent from a YAML config (configs/train/)")
    train.add_argument("--config", required=True, metavar="FILE", help="e.g. configs/train/default.yaml")
    train.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="torch device (default cpu)")
    train.add_argument("--steps", type=_positive_int, help="total steps (overrides the config)")
    train.add_argument("--out", metavar="DIR", type=_output_dir, help="run directory (default runs/<config name>)")
    train.add_argument("--seed", type=_seed, help="seed (overrides the config)")
    train.add_argument("--resume", metavar="MODEL.zip", type=_model_file,
                       help="go on from a model (or checkpoint) of a run of this config: its weights, "
                            "step count and return statistics; --steps more steps (read as data unless "
                            "--trust-model)")
    train.add_argument("--replace", action="store_true",
                       help="replace the run already in --out (refused without this flag, unless "
                            "--resume OUT/model.zip continues it)")
    train.add_argument("--no-progress", action="store_true",
                       help="no progress bar (training) or line (evaluations) on stderr")
    train.add_argument("--eval-racks", type=_positive_int, metavar="N",
                       help="N episodes (racks) for every evaluation: periodic, final and the curve's "
                            "points (default: the config's; --steps scales training only)")
    train.add_argument("--no-eval", action="store_true",
                       help="no evaluation at all (periodic, final, curve): train and save the model only")
    train.add_argument("--update-threads", type=_positive_int, default=2, metavar="N",
                       help="torch threads for the gradient updates between rollouts (default 2, at most "
                            "the machine's cores; 1 on a machine shared with other jobs)")
    train.add_argument("--backend", default="sb3", choices=("sb3", "rllib"),
                       help="stable-baselines3 (default) or Ray RLlib (configs/train/rllib_ppo.yaml)")
    train.add_argument("--address", help="RLlib: a running Ray cluster to join (e.g. HEAD:6379)")
    train.add_argument("--resume-run", action="store_true",
                       help="RLlib: go on from the last checkpoint in --out up to the config's iterations")
    train.add_argument("--allow-code", action="store_true",
                       help="trust the config: let it name import paths (env.id 'pkg:...', "
                            "opponents 'pkg.module:name'), which run code")
    train.add_argument("--trust-model", action="store_true", help=TRUST_MODEL_HELP + " (--resume)")
    train.set_defaults(handler=_train)

    bt = sub.add_parser("bench-train", help="a training recipe's env steps/s, its env alone and the bot's "
                                            "moves/s (--compare REV: beside a commit, in the same run)")
    bt.add_argument("--config", required=True, help="a training config; one inside this repository is read "
                                                    "from each measured tree (e.g. configs/train/"
                                                    "nine_ball_maskable_ppo.yaml)")
    bt.add_argument("--compare", metavar="REV", help="also measure commit REV, alternating with this tree")
    bt.add_argument("--steps", type=_count, default=4096, help="training steps per measurement "
                                                             "(default 4096: two rollouts; 0: no training figure)")
    bt.add_argument("--env-steps", type=_positive_int, default=1000, help="env-alone steps (default 1000)")
    bt.add_argument("--repeats", type=_positive_int, default=3,
                    help="fresh processes per tree and figure; the best is reported (default 3)")
    bt.add_argument("--bot-budgets", default="fast,normal,strong",
                    help="comma-separated bot budgets ('' for none; default fast,normal,strong)")
    bt.add_argument("--bot-racks", type=_positive_int, default=10, help="self-play racks per bot figure")
    bt.add_argument("--seed", type=_seed, default=0)
    bt.add_argument("--json", metavar="FILE", type=_output_file, help="also write the figures to FILE")
    bt.set_defaults(handler=_bench_train)

    comp = sub.add_parser("compile", help="compile every numba kernel into the cache now (an image's or a "
                                          "read-only install's set-up), not on first use")
    comp.set_defaults(handler=_compile)

    bi = sub.add_parser("bench-import", help="seconds of import poolgym plus a first break, fresh and warm "
                                             "compile cache (--compare REV: beside a commit, in the same run)")
    bi.add_argument("--compare", metavar="REV", help="also measure commit REV, alternating with this tree")
    bi.add_argument("--repeats", type=_positive_int, default=3,
                    help="fresh processes per tree and cache state; the best is reported (default 3)")
    bi.add_argument("--json", metavar="FILE", type=_output_file, help="also write the figures to FILE")
    bi.set_defaults(handler=_bench_import)

    bench_envs = sub.add_parser("bench-envs", help="env steps/s per id and action mode (--compare REV: beside "
                                "a commit), then with 1 and 2 workers and with Ray")
    bench_envs.add_argument("--env", default="poolgym/NineBall-v1", help="env id")
    bench_envs.add_argument("--steps", type=_positive_int, default=300, help="steps per worker")
    bench_envs.add_argument("--no-ray", action="store_true", help="skip the Ray measurement")
    bench_envs.add_argument("--address", help="measure on a running Ray cluster")
    bench_envs.add_argument("--ids", default="poolgym/NineBall-v1",
                            help="comma-separated env ids for the per-id-and-mode table")
    bench_envs.add_argument("--modes", default="aim,raw", help="comma-separated action modes")
    bench_envs.add_argument("--noise", default="tournament", choices=("none", "tournament"),
                            help="execution noise of the per-mode envs")
    bench_envs.add_argument("--opponent", default="legal-random", help="opponent of the per-mode envs")
    bench_envs.add_argument("--compare", metavar="REV", help="also measure commit REV, in the same run")
    bench_envs.add_argument("--reps", type=_positive_int, default=3,
                            help="fresh processes per tree and case; the best is reported")
    bench_envs.add_argument("--no-scaling", action="store_true", help="skip the 1/2-worker and Ray rows")
    bench_envs.add_argument("--batched", metavar="SIZES", help="instead: the batched env (make_vec) beside the "
                            "single env and make_vec's sync wrapping, with these comma-separated table counts, "
                            "--steps table steps per figure, --modes, best of --reps")
    bench_envs.add_argument("--json", metavar="FILE", type=_output_file, help="also write the figures to FILE")
    bench_envs.set_defaults(handler=_bench_envs)

    quick = sub.add_parser("quickstart", help="train an agent on the pot-ball drill, evaluate it beside "
                                              "the untrained network, random and fixed, play it at 9-ball")
    quick.add_argument("--out", default=os.path.join("runs", "quickstart"), metavar="DIR", type=_output_dir,
                       help="run directory (default runs/quickstart)")
    quick.add_argument("--steps", type=_positive_int, help="training steps (default: the recipe's, 98,304); "
                                                           "a few hundred make a smoke test")
    quick.add_argument("--episodes", type=_positive_int, help="evaluation episodes per agent "
                                                              "(default: the recipe's, 2,000)")
    quick.add_argument("--racks", type=_positive_int, default=30,
                       help="9-ball racks against legal-random per agent (default 30; 1 for a smoke test)")
    quick.add_argument("--no-progress", action="store_true", help="no progress bar")
    quick.set_defaults(handler=_quickstart)

    agent_help = (f"a ladder name or pretrained agent ({', '.join(AGENT_NAMES)}), a stable-baselines3 model ([ALGO:]path.zip, "
                  "played with the mapping recorded in it), an RLlib run of train --backend rllib (rllib:RUN_DIR) "
                  "or pkg.module:name (an agent or a policy(obs, info))")
    ev = sub.add_parser("eval", help="play N racks between two agents and report statistics, "
                                     "beside the random and fixed agents (and an untrained "
                                     "network for a model) on the same racks against B")
    ev.add_argument("--env", default="poolgym/NineBall-v1", metavar="ID", help="the game env whose rules, rack gaps, noise and stroke cap the racks are played under (default poolgym/NineBall-v1)")
    ev.add_argument("--game", help=f"another registered ruleset under the env's settings: {games}")
    ev.add_argument("-a", "--a", default="bot", help=f"agent A, breaks the even racks: {agent_help}")
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
    ev.add_argument("--ray", action="store_true", help="spread the racks over a local Ray instance")
    ev.add_argument("--address", help="spread the racks over the Ray cluster at ADDR (implies --ray)")
    ev.add_argument("--no-progress", action="store_true", help=no_progress)
    ev.add_argument("--trust-model", action="store_true", help=TRUST_MODEL_HELP)
    ev.set_defaults(handler=_eval)

    rt = sub.add_parser("rate", help="rate an agent on the Elo scale against the ladder (a Bradley-Terry fit, "
                                     "the ladder's ratings held fixed, a 95%% bootstrap interval)")
    rt.add_argument("agent", help=f"the agent to rate: {agent_help}")
    rt.add_argument("--games", type=_positive_int, default=300, help="racks to play in all (default 300)")
    rt.add_argument("--seed", type=_seed, default=0, help="the same seed gives the same racks and rating")
    rt.add_argument("--env", default="poolgym/NineBall-v1", metavar="ID",
                    help="the game env whose protocol the racks are played under (default poolgym/NineBall-v1)")
    rt.add_argument("--ladder", metavar="FILE", help="a ladder file (default: the ladder shipped with poolgym)")
    rt.add_argument("--action-mode", choices=("raw", "aim"), help="as for eval")
    rt.add_argument("--obs-mode", choices=("dict", "flat"), help="as for eval")
    rt.add_argument("--json", metavar="FILE", type=_output_file, help="also write the rating to FILE")
    rt.add_argument("--no-progress", action="store_true", help=no_progress)
    rt.set_defaults(handler=_rate)

    bb = sub.add_parser("bench-bot", help="the bot's pot success, break-and-run rate, fouls "
                                          "and speed in self-play")
    bb.add_argument("--racks", type=_positive_int, default=200, help="racks per setting (default 200)")
    bb.add_argument("--game", default="nine_ball", help=f"a registered ruleset: {games} (default nine_ball)")
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
    bb.add_argument("--no-progress", action="store_true", help=no_progress)
    bb.set_defaults(handler=_bench_bot)

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
    bj.add_argument("--no-progress", action="store_true", help=no_progress)
    bj.set_defaults(handler=_bench_jump)

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
    bl.add_argument("--no-progress", action="store_true", help=no_progress + " (racks played)")
    bl.add_argument("--trust-model", action="store_true", help=TRUST_MODEL_HELP)
    bl.set_defaults(handler=_baselines)

    collect = sub.add_parser("collect", help="record an agent's play into a Minari dataset (offline RL, "
                                             "imitation; needs the datasets extra)")
    collect.add_argument("--agent", required=True, help=f"the agent recorded: {agent_help}")
    collect.add_argument("--opponent", help="the env's opponent, a ladder name (default: the env's own, "
                                            "legal-random in the v1 games; PotBall has none)")
    collect.add_argument("--env", default="poolgym/NineBall-v1", metavar="ID", help="a registered env id "
                         "(default poolgym/NineBall-v1)")
    collect.add_argument("--episodes", type=_positive_int, required=True, help="episodes to record")
    collect.add_argument("--dataset-id", required=True, metavar="NS/NAME-vK",
                         help="Minari's id, e.g. poolgym/nine-ball/bot-fast-v0, written under "
                              "$MINARI_DATASETS_PATH (default ~/.minari/datasets); an existing one is "
                              "appended to when its env spec and agent match")
    collect.add_argument("--action-mode", choices=ENV_ACTION_MODES,
                         help="the env's action mode (default: the env's own)")
    collect.add_argument("--observation-mode", choices=("dict", "flat"),
                         help="the env's observation format (default: the env's own, dict)")
    collect.add_argument("--pot-residual", choices=POT_RESIDUALS,
                         help="what a choice mode's cut residual turns on a pot (default: the env's own, "
                              "stroke; object_ball holds a stroke's throw correction in a coarser number)")
    collect.add_argument("--lookahead-samples", type=_positive_int, metavar="N",
                         help="a choice mode's lookahead observation entry, N noisy plays per stroke "
                              "(lookahead=True; default: the env's own, off)")
    collect.add_argument("--seed", type=_seed, default=0, help="episode i is reset with seed + i (default 0)")
    collect.add_argument("--json", metavar="FILE", type=_output_file, help="also write the figures to FILE")
    collect.add_argument("--no-progress", action="store_true", help=no_progress)
    collect.add_argument("--trust-model", action="store_true", help=TRUST_MODEL_HELP)
    collect.set_defaults(handler=_collect)

    play = sub.add_parser("play", help="watch two agents play a rack (window or --gif)")
    play.add_argument("--env", default="poolgym/NineBall-v1", metavar="ID", help="the game env whose rules, rack gaps, noise and stroke cap the racks are played under (default poolgym/NineBall-v1)")
    play.add_argument("--game", help=f"another registered ruleset under the env's settings: {games}")
    play.add_argument("-a", "--a", default="bot", help=f"agent A, who breaks: {agent_help}")
    play.add_argument("-b", "--b", default="bot", help="agent B (same forms)")
    play.add_argument("--seed", type=_seed, default=0)
    play.add_argument("--noise", choices=("none", "tournament", "fastfiz"), help="replace the env's execution noise")
    play.add_argument("--gif", metavar="FILE", type=_output_file,
                      help="write a GIF instead of opening a window (needed without a display)")
    play.add_argument("--fps", type=_fps, default=15.0, help="frames per second (default 15)")
    play.add_argument("--trust-model", action="store_true", help=TRUST_MODEL_HELP)
    play.set_defaults(handler=_play)
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
    the caller's collector as it is)."""
    freeze_imports()
    return main()


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
