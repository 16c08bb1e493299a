"""``poolgym collect`` on the batched env's tables against one env: the recorded steps a
second of ``collect(..., num_envs=1)`` and ``num_envs=N``, alternating in one process, each
into a fresh dataset under a temporary Minari path (NineBall-v1, ``choice_discrete``, flat
observations, seeds from 500). Both record the same dataset; the ratio is what the tables
buy, writing included.
Usage: python benchmarks/collect_tables.py AGENT EPISODES N ROUNDS [--json FILE]"""
import argparse
import os
import statistics
import tempfile

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("agent")
parser.add_argument("episodes", type=int)
parser.add_argument("tables", type=int)
parser.add_argument("rounds", type=int)
parser.add_argument("--json", help="also write the figures to this file")
args = parser.parse_args()

os.environ["MINARI_DATASETS_PATH"] = tempfile.mkdtemp(prefix="collect_tables_")
from poolgym.agents.datasets.collect import collect  # noqa: E402  (reads the Minari path)
from poolgym.files import atomic_write_json  # noqa: E402

rates = {1: [], args.tables: []}
for r in range(args.rounds):
    for k in (1, args.tables) if r % 2 == 0 else (args.tables, 1):
        result = collect(args.agent, "poolgym/NineBall-v1", args.episodes, f"bench/collect/r{r}-n{k}-v0",
                         action_mode="choice_discrete", obs_mode="flat", seed=500, num_envs=k)
        rates[k].append(result.steps / result.seconds)
        print(f"round {r}, num_envs={k}: {result.steps} steps in {result.seconds:.2f} s, "
              f"{rates[k][-1]:.0f} steps/s", flush=True)
ratios = [b / a for a, b in zip(rates[1], rates[args.tables])]
print(f"num_envs={args.tables} over 1: median {statistics.median(ratios):.2f} "
      f"(rounds {', '.join(f'{x:.2f}' for x in ratios)})")
if args.json:
    atomic_write_json(args.json, {
        "command": f"python benchmarks/collect_tables.py {args.agent} {args.episodes} {args.tables} {args.rounds}",
        "steps_per_s": {str(k): [round(x, 1) for x in v] for k, v in rates.items()},
        "ratios": [round(x, 3) for x in ratios], "median_ratio": round(statistics.median(ratios), 3)})
