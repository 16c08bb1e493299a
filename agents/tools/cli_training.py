"""The training commands: ``train``, ``bench-train`` and ``quickstart``."""

from __future__ import annotations

import argparse
import os
import sys

from poolgym.agents.tools.cli_args import (
    INTERRUPTED, TRUST_MODEL_HELP, UsageError, _count, _model_file, _names, _output_dir, _output_file,
    _positive_int, _seed)
from poolgym.agents.tools.script_io import write_json


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


def _quickstart(args: argparse.Namespace) -> int:
    from poolgym.agents.tools.quickstart import run_quickstart

    run_quickstart(out=args.out, steps=args.steps, episodes=args.episodes, racks=args.racks,
                   progress_bar=not args.no_progress, replace=args.replace)
    return 0


def _add_train(sub) -> None:
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
                            "the machine's cores; more than one only when a core was idle or the run's own during the rollout)")
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


def _add_bench_train(sub) -> None:
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


def _add_quickstart(sub) -> None:
    quick = sub.add_parser("quickstart", help="train the default agent on the pot-ball drill (about a minute), "
                                              "evaluate it beside the untrained network, random and fixed, play "
                                              "it at 9-ball beside the pretrained 9-ball agent, save pictures")
    quick.add_argument("--out", metavar="DIR", type=_output_dir,
                       help="run directory (default: a new one, runs/quickstart, runs/quickstart-2, ...)")
    quick.add_argument("--replace", action="store_true", help="replace the run already in --out")
    quick.add_argument("--steps", type=_positive_int, help="training steps (default: the recipe's, 98,304); "
                                                           "a few hundred make a smoke test")
    quick.add_argument("--episodes", type=_positive_int, help="evaluation episodes per agent and point "
                                                              "(default: the recipe's, 100 per point, 2,000 at the end)")
    quick.add_argument("--racks", type=_positive_int, default=100,
                       help="9-ball racks against legal-random per agent (default 100; 1 for a smoke test)")
    quick.add_argument("--no-progress", action="store_true", help="no progress bar")
    quick.set_defaults(handler=_quickstart)


# The commands this family adds, each name to the function adding its subparser to
# ``sub`` (``cli.build_parser`` calls them in ``cli.COMMAND_ORDER``).
COMMANDS = {"train": _add_train, "bench-train": _add_bench_train, "quickstart": _add_quickstart}
