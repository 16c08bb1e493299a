"""How well the top rung's searched break makes a ball as its noisy re-check grows.

On the NineBall-v1 protocol's racks (their random gaps) ``ProBot`` searches its break as
bot:strong does: a grid of strokes played exactly, the best ``break_top_k`` re-played
``break_noise_samples`` times under the noise, the best mean kept. For each rack (seeded as
``run_match`` seeds it) this script lets the rung choose its break with each re-check size,
plays every chosen break ``--replays`` times under the tournament noise from one seeded
generator per rack, and reports per size: the share of plays that made a ball and kept the
table (golden breaks included), the share that fouled, the mean ``state_value`` the plays
leave the breaker, and the CPU seconds the choice took.

    python benchmarks/archive/bot_break_rechecks.py --sizes 10x16,10x64,20x64,40x64,20x128 --racks 100 \\
        --seed 77 --replays 20 --json benchmarks/results/bot_pro_deep/break_rechecks_seed77.json
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from poolgym.envs.play import simulate_replays
from poolgym.physics import Simulator
from poolgym.racking import RackModel
from poolgym.rules import get_ruleset

from poolgym.agents.bot.position import state_value
from poolgym.agents.bot.pro import ProBot
from poolgym.agents.evaluation.evaluate import wilson_interval
from poolgym.agents.tools.script_io import write_json


def measure(sizes: list[tuple[int, int]], racks: int, seed: int, replays: int) -> list[dict]:
    """Each re-check size's break figures over the same racks and replays (module docstring)."""
    rules = get_ruleset("nine_ball").with_rack_model(RackModel.make("benchmark"))
    bots = [ProBot(rules, noise="tournament", seed=seed, max_speed=12.0, break_top_k=k, break_noise_samples=n)
            for k, n in sizes]
    simulator = Simulator(rules.table, noise="tournament")
    totals = [[0, 0, 0.0, 0.0] for _ in sizes]
    for rack in range(racks):
        state = rules.new_game(rng=np.random.default_rng([seed, rack]), breaker=rack % 2)
        for bot, total in zip(bots, totals):
            bot.reseed([seed, rack, 0])
            started = time.process_time()
            move = bot.choose(state)
            total[3] += time.process_time() - started
            rng = np.random.default_rng([seed, rack, replays])
            for events, _ in simulate_replays(simulator, rules, state, move, rng, replays):
                after, outcome = rules.apply_shot(state, move.call, events)
                total[0] += bool(outcome.pocketed_legally) and not outcome.fouls and after.shooter == state.shooter
                total[1] += bool(outcome.fouls)
                total[2] += state_value(after, rules, state.shooter, bot.search.sigma_deg)
    plays = racks * replays
    return [{"break_top_k": k, "break_noise_samples": n, "plays": plays, "made": made / plays,
             "made_ci95": list(wilson_interval(made, plays)), "fouled": fouled / plays, "value": value / plays,
             "cpu_s_per_break": cpu / racks}
            for (k, n), (made, fouled, value, cpu) in zip(sizes, totals)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10x16,10x64,20x64,40x64,20x128",
                        help="re-check sizes, TOPxSAMPLES, comma-separated (10x16: bot:strong's)")
    parser.add_argument("--racks", type=int, default=100)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    sizes = [tuple(int(v) for v in size.split("x")) for size in args.sizes.split(",")]
    rows = measure(sizes, args.racks, args.seed, args.replays)
    write_json(args.json, {"racks": args.racks, "seed": args.seed, "replays": args.replays, "rows": rows})
    for r in rows:
        lo, hi = r["made_ci95"]
        print(f"{r['break_top_k']}x{r['break_noise_samples']}: made {r['made']:.3f} [{lo:.3f}, {hi:.3f}], "
              f"fouled {r['fouled']:.3f}, value {r['value']:.3f}, {r['cpu_s_per_break']:.3f} CPU s a break")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
