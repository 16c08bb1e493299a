"""Which break strokes leave the breaker an open shot: the rate of breaks that make a ball
without a foul *and* leave the lowest ball a pot of closed-form chance 0.5 or more
(``shot_quality``, the chance ``bot:pro`` judges positions by), over the break table's
grid (``poolgym.agents.tools.build_break_table.grid``) under the tournament noise.

Where ``bot:pro``'s made breaks lead (``benchmarks/archive/results/bot_pro_innings/``): after a
made break the rung ran out 47% of the racks whose first shot was open in this sense and
17% of the others, so a break is worth its made-and-open rate more than its made rate.

Stage 1 plays every stroke of the grid the 10 m/s cap of ``poolgym bench-bot`` allows on
``--racks`` racks; stage 2 plays the ``--top`` best again on ``--fine`` other racks, beside
the stroke ``bot:pro`` breaks with under the cap (the shipped table's). Rack
``r`` of a stage is racked and noised from ``numpy.random.default_rng([seed, stage, r])``
(every stroke of a stage breaks the same racks). Wilson 95% intervals.

    python benchmarks/archive/break_open_screen.py --racks 100 --top 10 --fine 400 --seed 11 \\
        --also '[[0.5493, 0.8775, 0.0, 8.0, 0.0]]' \\
        --json benchmarks/archive/results/bot_pro_innings/break_open_screen.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from poolgym.agents.bot.breaks import best_row, break_move, load_break_table
from poolgym.agents.bot.player import PLANNING_SIGMA_DEG
from poolgym.agents.bot.position import shot_quality
from poolgym.agents.evaluation.policy_eval import wilson_interval
from poolgym.agents.tools.build_break_table import grid
from poolgym.agents.tools.script_io import write_json
from poolgym.envs.play import simulate_move
from poolgym.physics import Noise, Simulator
from poolgym.rules import CueBallZone, get_ruleset

MAX_SPEED = 10.0  # bench-bot's stroke cap
OPEN_CHANCE = 0.5


def measure(rules, simulator, stroke, racks: int, seed: int, stage: int, sigma: float) -> dict:
    """One stroke (x, y, offset, speed, vertical) on ``racks`` racks of ``stage``."""
    made = open_ = won = 0
    for r in range(racks):
        rng = np.random.default_rng([seed, stage, r])
        state = rules.new_game(rng=rng, breaker=0)
        move = break_move(rules, state, *stroke)
        events, _ = simulate_move(simulator, rules, state, move, rng, False, state_checked=True)
        after, outcome = rules.apply_shot(state, move.call, events)
        if outcome.fouls:
            continue
        if outcome.winner == 0:
            won += 1
            continue
        if outcome.turn_kept:
            made += 1
            open_ += (after.pending is None and after.cue_ball_in_hand is CueBallZone.NONE
                      and shot_quality(after, rules, sigma) >= OPEN_CHANCE)
    low, high = wilson_interval(made + won, racks)
    olow, ohigh = wilson_interval(open_ + won, racks)
    return {"row": list(stroke), "racks": racks, "made": made + won, "made_ci95": [low, high],
            "won": won, "made_and_open": open_ + won, "made_and_open_ci95": [olow, ohigh]}


def shipped_stroke() -> tuple[float, ...]:
    """The stroke of the shipped table's row ``bot:pro`` breaks with under the cap
    (``best_row`` on a fresh rack: the kitchen is open)."""
    rules = get_ruleset("nine_ball")
    row = best_row(load_break_table(), rules, rules.new_game(rng=0), MAX_SPEED)
    return (row.x, row.y, row.offset, row.speed, row.vertical)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--racks", type=int, default=100)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--fine", type=int, default=400)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--also", default="[]", help="strokes to play in stage 2 as well (JSON list of rows)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rules = get_ruleset("nine_ball")
    simulator = Simulator(rules.table, noise="tournament")
    sigma = max(Noise.preset("tournament").angle_deg, PLANNING_SIGMA_DEG)
    strokes = [s for s in grid(rules) if s[3] <= MAX_SPEED]
    started = time.perf_counter()
    coarse = []
    for i, stroke in enumerate(strokes):
        coarse.append(measure(rules, simulator, stroke, args.racks, args.seed, 1, sigma))
        if (i + 1) % 100 == 0:
            print(f"coarse {i + 1}/{len(strokes)} ({time.perf_counter() - started:.0f} s)", flush=True)
    best = [tuple(row["row"]) for row in sorted(coarse, key=lambda row: row["made_and_open"], reverse=True)]
    shipped = shipped_stroke()
    fine = []
    also = [tuple(float(v) for v in row) for row in json.loads(args.also)]
    for stroke in [shipped, *also] + [s for s in best if s != shipped and s not in also][:args.top]:
        fine.append(dict(measure(rules, simulator, stroke, args.fine, args.seed, 2, sigma), shipped=stroke == shipped))
        print("fine", fine[-1], flush=True)
    fine.sort(key=lambda row: row["made_and_open"], reverse=True)
    write_json(args.json, {"seed": args.seed, "racks": args.racks, "fine_racks": args.fine,
                           "open_chance": OPEN_CHANCE, "seconds": round(time.perf_counter() - started, 1),
                           "fine": fine, "coarse": coarse})


if __name__ == "__main__":
    main()
