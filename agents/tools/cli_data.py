"""The datasets' command: ``collect``."""

from __future__ import annotations

import argparse

from poolgym.agents.tools.cli_args import (
    ENV_ACTION_MODES, NO_PROGRESS_HELP, TRUST_MODEL_HELP, _output_file, _positive_int, _seed, agent_help)
from poolgym.agents.tools.script_io import write_json
from poolgym.envs.choice import POT_RESIDUALS


def _collect(args: argparse.Namespace) -> int:
    from poolgym.agents.datasets.collect import collect

    from poolgym.agents.tools.progress import Progress

    with Progress("collect", args.episodes, "episodes", enabled=not args.no_progress) as progress:
        try:
            result = collect(args.agent, args.env, args.episodes, args.dataset_id, opponent=args.opponent,
                             action_mode=args.action_mode, obs_mode=args.observation_mode,
                             pot_residual=args.pot_residual, lookahead_samples=args.lookahead_samples,
                             seed=args.seed, num_envs=args.num_envs, progress=progress.advance,
                             trust_model=args.trust_model)
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


def _add_collect(sub) -> None:
    collect = sub.add_parser("collect", help="record an agent's play into a Minari dataset (offline RL, "
                                             "imitation; needs the datasets extra)")
    collect.add_argument("--agent", required=True, help=f"the agent recorded: {agent_help()}")
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
    collect.add_argument("--num-envs", type=_positive_int, default=1, metavar="N",
                         help="play N episodes at a time on the env id's batched env, one agent per table; "
                              "the same dataset as one env records, episode for episode (default 1)")
    collect.add_argument("--json", metavar="FILE", type=_output_file, help="also write the figures to FILE")
    collect.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    collect.add_argument("--trust-model", action="store_true", help=TRUST_MODEL_HELP)
    collect.set_defaults(handler=_collect)


# The commands this family adds, each name to the function adding its subparser to
# ``sub`` (``cli.build_parser`` calls them in ``cli.COMMAND_ORDER``).
COMMANDS = {"collect": _add_collect}
