"""The envs' benchmark: ``bench-envs``."""

from __future__ import annotations

import argparse

from poolgym.agents.tools.cli_args import UsageError, _names, _output_file, _positive_int
from poolgym.agents.tools.script_io import write_json


def _bench_envs(args: argparse.Namespace) -> int:
    if args.batched:
        return _bench_batched(args)
    for option, value, what in (("--threads", args.threads, "threads"), ("--workers", args.workers, "processes")):
        if value is not None:
            raise UsageError(f"{option} counts the batched env's {what}: give --batched SIZES too")
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
    sizes = _counts(args.batched, "--batched", "table")
    threads: list[int | None] = [1] if args.threads is None else _counts(args.threads, "--threads", "thread")
    workers = [1] if args.workers is None else _counts(args.workers, "--workers", "process")
    modes = _names(args.modes)
    for mode in modes:  # a bad mode is one line before any timing
        _make_env(env_id, action_mode=mode).close()
    rows = batched_bench.run(env_id, modes, sizes, args.steps, args.reps, compare=args.compare, threads=threads,
                             workers=workers)
    print(batched_bench.format_report(rows))
    write_json(args.json, {"batched": rows})
    return 0


def _counts(text: str, option: str, what: str) -> list[int]:
    """``option``'s comma-separated whole numbers >= 1 (``what`` counts), or ``UsageError``."""
    try:
        counts = [int(n) for n in _names(text)]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise UsageError(f"{option} must be comma-separated {what} counts >= 1, got {text!r}")
    return counts


def _env_id(env_id: str, option: str) -> str:
    """``env_id`` when Gymnasium has it registered, else a ``UsageError`` listing poolgym's ids."""
    import gymnasium as gym

    if env_id not in gym.registry:
        ids = sorted(i for i in gym.registry if i.startswith("poolgym/"))
        raise UsageError(f"{option} {env_id!r} is not a registered environment; poolgym's are {ids}")
    return env_id


def _make_env(env_id: str, **kwargs):
    """``gymnasium.make(env_id, **kwargs)``; a value it refuses is a ``ValueError`` naming it."""
    import gymnasium as gym

    try:
        return gym.make(env_id, **kwargs)
    except TypeError as exc:  # a keyword this env does not take
        raise UsageError(f"{env_id}: {exc}") from None


def _add_bench_envs(sub) -> None:
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
                            "--steps table steps per figure, --modes, best of --reps; with --compare, each "
                            "figure also for commit REV, fresh processes alternating")
    bench_envs.add_argument("--threads", metavar="COUNTS", help="with --batched: the batched env on each of "
                            "these comma-separated thread counts, a row each (default: its default of one thread, "
                            "as gym.make_vec gives it; the thr column says how many)")
    bench_envs.add_argument("--workers", metavar="COUNTS", help="with --batched: also the batched env in shards on "
                            "each of these comma-separated counts of processes above one (its num_workers), a row "
                            "each (the wrk column)")
    bench_envs.add_argument("--json", metavar="FILE", type=_output_file, help="also write the figures to FILE")
    bench_envs.set_defaults(handler=_bench_envs)


# The commands this family adds, each name to the function adding its subparser to
# ``sub`` (``cli.build_parser`` calls them in ``cli.COMMAND_ORDER``).
COMMANDS = {"bench-envs": _add_bench_envs}
