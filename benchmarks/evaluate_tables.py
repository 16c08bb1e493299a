"""A network's evaluation with N episodes side by side against one at a time: the episodes a
second of ``evaluate(..., num_envs=1)`` and ``num_envs=N`` (on the batched env's tables),
or with ``--racks`` of ``run_match(..., racks_at_once=1)`` and ``N`` (racks on states under
the NineBall-v1 protocol, as the training curve and ``poolgym eval`` play them), alternating
in one process, the results checked equal every round. MODEL is ``shipped`` (the
pretrained 9-ball network, ``choice_canonical`` with the lookahead) or ``long`` (the
12M-step MaskablePPO network, ``choice_discrete``); against legal-random, seeds from
1,000,000.
Usage: python benchmarks/evaluate_tables.py MODEL EPISODES N ROUNDS [--racks] [--json FILE]"""
import argparse
import statistics
import time

from poolgym.agents.evaluation.evaluate import run_match
from poolgym.agents.evaluation.loading import load_sb3, make_agent
from poolgym.agents.evaluation.policy_eval import evaluate
from poolgym.agents.evaluation.protocol import protocol
from poolgym.agents.pretrained import pretrained_model
from poolgym.envs.opponents import SB3Policy
from poolgym.files import atomic_write_json

MODELS = {
    "shipped": (pretrained_model("nine_ball"), {"obs_mode": "flat", "action_mode": "choice_canonical",
                                                "lookahead": True, "lookahead_samples": 8}),
    "long": ("benchmarks/results/recipes/nine_ball_maskable_ppo_long/model.zip",
             {"obs_mode": "flat", "action_mode": "choice_discrete"}),
}
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("model", choices=sorted(MODELS))
parser.add_argument("episodes", type=int)
parser.add_argument("tables", type=int)
parser.add_argument("rounds", type=int)
parser.add_argument("--racks", action="store_true", help="run_match's racks on states instead of env episodes")
parser.add_argument("--json", help="also write the figures to this file")
args = parser.parse_args()

path, kwargs = MODELS[args.model]
kwargs = {**kwargs, "opponent": "legal-random"}
if args.racks:
    p = protocol("poolgym/NineBall-v1")
    network = load_sb3(path, "MaskablePPO", p.rules, noise=p.noise)
    opponent = make_agent("legal-random", p.rules, seed=1, noise=p.noise, max_speed=p.max_speed)

    def played(n: int, seed: int, at_once: int):
        match = run_match(p.rules, [network, opponent], ("network", "legal-random"), n, seed=seed, noise=p.noise,
                          racks_at_once=at_once)
        rows = [(r.winner, r.end_reason, [(m.move, m.outcome, m.executed) for m in r.moves]) for r in match.racks]
        return rows, sum(r.winner == 0 for r in match.racks) / n
else:
    policy = SB3Policy(path, algorithm="MaskablePPO")

    def played(n: int, seed: int, at_once: int):
        score = evaluate(policy, "poolgym/NineBall-v1", kwargs, n, seed=seed, num_envs=at_once)
        return score, score.success_rate
played(2, 0, 2)  # compiles and loads what both use
what = "racks" if args.racks else "episodes"
rates = {1: [], args.tables: []}
results = {}
for r in range(args.rounds):
    for k in (1, args.tables) if r % 2 == 0 else (args.tables, 1):
        start = time.perf_counter()
        result, win_rate = played(args.episodes, 1_000_000 + r, k)
        seconds = time.perf_counter() - start
        results.setdefault(r, []).append((result, win_rate))
        rates[k].append(args.episodes / seconds)
        print(f"round {r}, {k} at once: {args.episodes} {what} in {seconds:.2f} s, "
              f"{rates[k][-1]:.1f} {what}/s, win rate {win_rate:.3f}", flush=True)
    if results[r][0] != results[r][1]:
        raise SystemExit(f"round {r}: the {what} differ")
ratios = [b / a for a, b in zip(rates[1], rates[args.tables])]
print(f"{args.tables} at once over 1: median {statistics.median(ratios):.2f} "
      f"(rounds {', '.join(f'{x:.2f}' for x in ratios)}); the {what} equal in every round")
if args.json:
    atomic_write_json(args.json, {
        "command": f"python benchmarks/evaluate_tables.py {args.model} {args.episodes} {args.tables} {args.rounds}"
                   + (" --racks" if args.racks else ""),
        f"{what}_per_s": {str(k): [round(x, 2) for x in v] for k, v in rates.items()},
        "ratios": [round(x, 3) for x in ratios], "median_ratio": round(statistics.median(ratios), 3),
        "win_rates": [results[r][0][1] for r in range(args.rounds)], "equal": True})
