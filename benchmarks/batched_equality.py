"""The batched envs against the single env on seeds the tests do not use: blocks of tables
played side by side (``poolgym.envs.batched_check.play_side_by_side``) until ``--table-steps``
table steps per case are compared; any difference stops the run with the table's id, seed
and step. ``--workers K`` plays the batched env on K processes (``num_workers``), ``--threads K``
on K threads (``num_threads``), ``--same-step`` with ``autoreset_mode=SAME_STEP``;
``--lookahead`` plays the lookahead env (NineBall-v1, ``lookahead=True``, eight plays a stroke)
instead of the four cases. Usage: python benchmarks/batched_equality.py --seed 700000
--table-steps 100000 [--workers 2] [--threads 2] [--same-step] [--lookahead] --json FILE"""
import argparse
import json
import time

import poolgym  # noqa: F401
from poolgym.envs.batched_check import play_side_by_side
from poolgym.files import atomic_write_json

# (id, policy, tables per block, steps per block, env kwargs)
CASES = (
    ("poolgym/NineBall-v1", "masked", 32, 200, {"action_mode": "choice_discrete"}),
    ("poolgym/NineBall-v1", "random", 16, 100, {"action_mode": "aim"}),
    ("poolgym/NineBallSolo-v1", "masked", 16, 100, {"action_mode": "choice_discrete"}),
    ("poolgym/PotBall-v1", "masked", 32, 40, {"action_mode": "choice_discrete"}),
)
LOOKAHEAD = (("poolgym/NineBall-v1", "masked", 16, 50,
              {"action_mode": "choice_discrete", "lookahead": True, "lookahead_samples": 8}),)

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--seed", type=int, default=700_000, help="the first table's seed (the tests use 4401-120415, and "
                                                              "950000 and 970000 for their first 32 tables, "
                                                              "each case a million above the last)")
parser.add_argument("--table-steps", type=int, default=100_000, help="table steps compared per case")
parser.add_argument("--workers", type=int, default=1, help="the batched env's processes (num_workers)")
parser.add_argument("--threads", type=int, default=1, help="the batched env's threads (num_threads)")
parser.add_argument("--same-step", action="store_true", help="the batched env with autoreset_mode=SAME_STEP")
parser.add_argument("--lookahead", action="store_true", help="the lookahead env instead of the four cases")
parser.add_argument("--json", help="also write the counts to this file")
args = parser.parse_args()
rows = []
for k, (env_id, policy, tables, steps, kwargs) in enumerate(LOOKAHEAD if args.lookahead else CASES):
    start, seed, compared, ends = time.perf_counter(), args.seed + 1_000_000 * k, 0, 0
    while compared < args.table_steps:
        done = play_side_by_side(env_id, range(seed, seed + tables), steps, policy, num_workers=args.workers,
                                  num_threads=args.threads, same_step=args.same_step, **kwargs)
        compared, ends, seed = compared + done["table_steps"], ends + done["episode_ends"], seed + tables
    rows.append({"id": env_id, "policy": policy, **kwargs, "num_workers": args.workers, "num_threads": args.threads,
                 "same_step": args.same_step,
                 "seeds": [args.seed + 1_000_000 * k, seed - 1],
                 "table_steps": compared, "episode_ends": ends, "equal": True,
                 "seconds": round(time.perf_counter() - start, 1)})
    print(rows[-1], flush=True)
if args.json:
    atomic_write_json(args.json, {"command": "python benchmarks/batched_equality.py --seed "
                                             f"{args.seed} --table-steps {args.table_steps} --workers {args.workers}"
                                             f" --threads {args.threads}" + (" --same-step" if args.same_step else "")
                                             + (" --lookahead" if args.lookahead else ""),
                                  "cases": rows})
