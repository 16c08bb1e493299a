"""The ladder's round robin: every pairing of the rated rungs plays racks under the
NineBall-v1 protocol (``poolgym.agents.evaluation.rating.play_round_robin``), in rounds of
``--chunk`` racks of every pairing, resumable, each pairing's racks in its own JSON file.
``--fit`` then fits the ladder's ratings and writes them (the package's
``ladder_ratings.json``).

    nice -n 5 python benchmarks/rating_ladder.py --racks 120 --seed 5050 \\
        --out benchmarks/results/rating/round_robin
    python benchmarks/rating_ladder.py --fit --racks 120 --seed 5050 \\
        --out benchmarks/results/rating/round_robin
"""

from __future__ import annotations

import argparse
import datetime

from poolgym.agents.evaluation import rating


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the folder of the pairings' files")
    parser.add_argument("--racks", type=int, default=100)
    parser.add_argument("--seed", type=int, default=5050)
    parser.add_argument("--chunk", type=int, default=10)
    parser.add_argument("--deadline", help="HH:MM UTC: stop after the chunk that passes it")
    parser.add_argument("--fit", action="store_true", help="fit the ladder from the folder's racks")
    parser.add_argument("--ladder", default=str(rating.LADDER_FILE), help="where --fit writes the ladder")
    args = parser.parse_args()
    if args.fit:
        # The command that played the racks (the same --racks, --seed and --chunk given here).
        played = (f"python benchmarks/rating_ladder.py --racks {args.racks} --seed {args.seed} "
                  f"--chunk {args.chunk} --out {args.out}")
        ladder = rating.fit_ladder(args.out, command=played)
        rating.write_ladder(ladder, args.ladder)
        for name, row in sorted(ladder["ratings"].items(), key=lambda kv: -kv[1]["rating"]):
            print(f"{name:24s} {row['rating']:7.0f} [{row['ci95'][0]:.0f}, {row['ci95'][1]:.0f}]")
        return 0
    deadline = None
    if args.deadline:
        hours, minutes = (int(x) for x in args.deadline.split(":"))
        now = datetime.datetime.now(datetime.timezone.utc)
        deadline = now.replace(hour=hours, minute=minutes, second=0, microsecond=0).timestamp()
    counts = rating.play_round_robin(args.out, racks=args.racks, seed=args.seed, chunk=args.chunk, deadline=deadline,
                              log=lambda line: print(datetime.datetime.now().strftime("%H:%M:%S"), line, flush=True))
    print(f"racks per pairing: {min(counts.values())} to {max(counts.values())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
