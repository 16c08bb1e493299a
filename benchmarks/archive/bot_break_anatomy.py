"""How a rung's break-and-run rate splits into the break and the run-out, in self-play as
``poolgym bench-bot`` plays it: the same racks, seats, seeds and noise as ``bench-bot
--budget B --noise tournament --racks N --seed S --rack-model R --max-speed V``.

Each rack's break is counted as a golden break (the 9-ball made, rack won), a made break
(a ball made without a foul, table kept), a dry break or a foul; the break-and-runs (the
breaker won with no shot by the opponent, as ``bench-bot`` counts them) are split by the
break they followed. Professionals' figures to set them beside: 71% of breaks made a ball
without fouling and 28% of racks were broken and run at the 2016 WPA World 9-Ball
Championship, so a run-out from about 39% of made breaks (``docs/bots.md``). Wilson 95%
intervals; the rung's wall-clock seconds a move beside them.

    python benchmarks/archive/bot_break_anatomy.py --budgets strong --racks 200 --seeds 2027,77,5 \\
        --rack-model benchmark --max-speed 12 --json benchmarks/results/bot_protocol/break_anatomy.json
"""

from __future__ import annotations

import argparse
from collections import Counter

from poolgym.agents.evaluation.policy_eval import wilson_interval
from poolgym.agents.tools.bench_bot import _play_chunk
from poolgym.agents.tools.cli import freeze_imports
from poolgym.agents.tools.script_io import write_json

BREAKS = ("golden", "made", "dry", "foul")


def break_kind(rack) -> str:
    """What the rack's break did for the breaker (module docstring)."""
    outcome = next(m.outcome for m in rack.moves if m.outcome is not None)
    if outcome.fouls:
        return "foul"
    if outcome.winner == outcome.shooter:
        return "golden"
    return "made" if outcome.turn_kept else "dry"


def broke_and_ran(rack) -> bool:
    """The breaker won the rack and the opponent never shot (``bench-bot``'s count)."""
    shooters = [m.player for m in rack.moves if m.outcome is not None]
    return rack.winner == rack.breaker and all(p == rack.breaker for p in shooters)


def anatomy(records) -> dict:
    """The breaks and break-and-runs of ``records`` (``RackRecord``s), with rates."""
    breaks, runs = Counter(), Counter()
    for rack in records:
        kind = break_kind(rack)
        breaks[kind] += 1
        runs[kind] += broke_and_ran(rack)
    n = sum(breaks.values())
    rate = lambda k, total: {"count": k, "of": total, "rate": k / total if total else None,  # noqa: E731
                             "ci95": list(wilson_interval(k, total)) if total else None}
    made = breaks["made"]
    moves = [m for rack in records for m in rack.moves]
    return {"racks": n, "seconds_per_move": sum(m.think_s for m in moves) / len(moves) if moves else None, "breaks": {k: rate(breaks[k], n) for k in BREAKS},
            "break_and_runs": rate(sum(runs.values()), n),
            "run_out_of_made_breaks": rate(runs["made"], made),
            "break_and_runs_by_break": {k: runs[k] for k in BREAKS}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", default="strong")
    parser.add_argument("--racks", type=int, default=200)
    parser.add_argument("--seeds", default="2027")
    parser.add_argument("--rack-model", default="benchmark")
    parser.add_argument("--max-speed", type=float, default=12.0)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    freeze_imports()
    report = {"racks": args.racks, "rack_model": args.rack_model, "max_speed": args.max_speed,
              "noise": "tournament", "rungs": {}}
    for budget in args.budgets.split(","):
        per_seed, pooled = {}, []
        for seed in (int(s) for s in args.seeds.split(",")):
            records = _play_chunk((budget, "tournament", "nine_ball", seed, range(args.racks), args.rack_model,
                                   args.max_speed))
            per_seed[seed] = anatomy(records)
            pooled += records
            figures = per_seed[seed]
            print(f"bot:{budget} seed {seed}: made breaks {figures['breaks']['made']['rate']:.3f}, "
                  f"break and run {figures['break_and_runs']['rate']:.3f}, "
                  f"run-out of made breaks {figures['run_out_of_made_breaks']['rate']:.3f}", flush=True)
        report["rungs"][budget] = {"seeds": per_seed, "pooled": anatomy(pooled)}
        pooled_figures = report["rungs"][budget]["pooled"]
        print(f"bot:{budget} pooled: {pooled_figures}", flush=True)
    write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
