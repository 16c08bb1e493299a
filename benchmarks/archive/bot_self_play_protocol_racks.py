"""Bot self-play as ``poolgym bench-bot`` plays it (two instances, alternating breaks, the
tournament noise), on the NineBall-v1 protocol's racks (``RackModel`` "benchmark") with its
12 m/s stroke cap, through the API every commit since the benchmark racks has: for timing and
measuring a commit whose ``bench-bot`` has no ``--rack-model``.

    python benchmarks/archive/bot_self_play_protocol_racks.py BUDGET RACKS SEED OUT.json
    # another commit: export it (``git archive``), link its agents/ folder in as
    # poolgym/agents, and run this file with PYTHONPATH=<that tree>
    python benchmarks/archive/bot_self_play_protocol_racks.py pro RACKS SEED OUT.json '{"top_k": 16}'
    # the top rung (``ProBot``) with these keyword arguments in place of its defaults

Writes the pooled figures of ``poolgym.agents.tools.bench_bot.pooled`` (as that commit
computes them) and prints the break-and-run count, rate and interval and the moves per second.
"""

from __future__ import annotations

import json
import sys
import time

from poolgym.racking import RackModel
from poolgym.rules import get_ruleset

from poolgym.agents.bot.player import HeuristicBot
from poolgym.agents.evaluation.evaluate import run_match, summarize
from poolgym.agents.tools.bench_bot import pooled
from poolgym.agents.tools.script_io import write_json


def main(argv=None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    budget, racks, seed, out = args[:4]
    racks, seed = int(racks), int(seed)
    rules = get_ruleset("nine_ball").with_rack_model(RackModel.make("benchmark"))
    if budget == "pro":
        from poolgym.agents.bot.pro import ProBot

        pro_kwargs = json.loads(args[4]) if len(args) > 4 else {}
        bots = [ProBot(rules, noise="tournament", seed=seed + i, max_speed=12.0, **pro_kwargs) for i in range(2)]
    else:
        pro_kwargs = None
        bots = [HeuristicBot(rules, noise="tournament", budget=budget, seed=seed + i, max_speed=12.0)
                for i in range(2)]
    started = time.perf_counter()
    figures = pooled(summarize(run_match(rules, bots, ("bot", "bot"), racks, seed=seed, noise="tournament")))
    figures["wall_s"] = time.perf_counter() - started
    report = {"budget": budget, "racks": racks, "seed": seed, "rack_model": "benchmark", "max_speed": 12.0,
              "tournament": figures}
    if pro_kwargs is not None:
        report["pro_kwargs"] = pro_kwargs
    write_json(out, report)
    print(budget, figures["break_and_runs"], figures["break_and_run_rate"], figures["break_and_run_ci95"],
          figures["moves_per_s_thinking"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
