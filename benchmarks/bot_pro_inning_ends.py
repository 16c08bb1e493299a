"""Where the top rung's breaker's innings end after a made break: how many balls were left,
what the ending shot was (a missed pot, a foul, a safety, a push out) and the closed-form
chance of the best pot it had (``poolgym.agents.bot.position.shot_quality``), beside the
run-out rate once the first shot after the break is made.

The innings of ``benchmarks/bot_pro_innings.py`` (9-ball, tight racks, tournament noise,
the 10 m/s cap of ``poolgym bench-bot``; rack ``r`` racked and noised from
``numpy.random.default_rng([seed, r])``, the bot reseeded with ``[seed, r, 1]``), with one
break row. Run from the repository root:

    python benchmarks/bot_pro_inning_ends.py --racks 300 --seed 6 \\
        --json benchmarks/results/bot_pro_innings/ends_seed6.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

import numpy as np

from poolgym.agents.bot.breaks import BreakRow, BreakTable, load_break_table
from poolgym.agents.bot.position import shot_quality
from poolgym.agents.bot.pro import ProBot
from poolgym.agents.evaluation.policy_eval import wilson_interval
from poolgym.agents.tools.script_io import write_json
from poolgym.envs.observations import actor
from poolgym.envs.play import simulate_move
from poolgym.physics import Simulator
from poolgym.rules import CueBallZone, Decision, get_ruleset

MAX_SPEED = 10.0  # bench-bot's stroke cap
MAX_MOVES = 40
# The break row of benchmarks/results/bot_pro_innings/search_default.json.
ROW = [0.5493, 0.8775, 0.0, 8.0, 0.0]


def inning(rules, simulator, bot, rng) -> dict:
    """The breaker's inning: whether the break made a ball without a foul, whether the
    rack was run out, and each shot after the break (kind, object balls on the table, the
    best pot's closed-form chance where the cue ball lies, a foul, the target made)."""
    state = rules.new_game(rng=rng, breaker=0)
    made, shots = False, []
    for k in range(MAX_MOVES):
        if state.is_over or actor(state) != 0:
            break
        move = bot.choose(state)
        if isinstance(move, Decision):
            state = rules.apply_decision(state, move)
            continue
        chance = (shot_quality(state, rules, bot.search.sigma_deg)
                  if k > 0 and state.cue_ball_in_hand is CueBallZone.NONE else None)
        events, _ = simulate_move(simulator, rules, state, move, rng, False)
        after, outcome = rules.apply_shot(state, move.call, events)
        if k == 0:
            made = not outcome.fouls and (outcome.turn_kept or outcome.winner == 0)
        else:
            kind = "pot" if move.pocket is not None else ("push out" if move.call.push_out else "safety")
            shots.append({"kind": kind, "balls": len(state.object_balls_on_table), "chance": chance,
                          "foul": bool(outcome.fouls), "made": move.target in outcome.pocketed_legally})
        state = after
    return {"made": made, "won": state.winner == 0, "shots": shots}


def summary(innings: list[dict]) -> dict:
    """Counts over the made breaks: how their innings ended, with how many balls left and
    how likely a pot was, and the run-out rate after the first shot was made."""
    made = [i for i in innings if i["made"]]
    ends, balls_left, chances = Counter(), Counter(), Counter()
    for i in made:
        if i["won"] or not i["shots"]:
            continue
        last = i["shots"][-1]
        kind = last["kind"] if last["kind"] != "pot" else ("pot, foul" if last["foul"] else "pot, missed")
        ends[kind] += 1
        balls_left[last["balls"]] += 1
        c = last["chance"]
        chances["none" if c is None else ("< 0.5" if c < 0.5 else ("< 0.9" if c < 0.9 else ">= 0.9"))] += 1
    first = [i["shots"][0]["chance"] for i in made if i["shots"] and i["shots"][0]["chance"] is not None]
    potted_first = [i for i in made if i["shots"] and i["shots"][0]["kind"] == "pot" and i["shots"][0]["made"]]
    runs = sum(i["won"] for i in made)
    return {"racks": len(innings), "made_breaks": len(made), "break_and_runs": runs,
            "break_and_run_ci95": wilson_interval(runs, len(innings)),
            "ends": dict(ends), "balls_left_at_the_end": dict(sorted(balls_left.items())),
            "ending_shot_chance": dict(chances),
            "first_shot_chance_below_0.5": sum(c < 0.5 for c in first), "first_shot_chance_known": len(first),
            "first_shot_potted": len(potted_first),
            "run_outs_after_first_shot_potted": sum(i["won"] for i in potted_first)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--racks", type=int, default=300)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    rules = get_ruleset("nine_ball")
    base = load_break_table()
    table = BreakTable(base.game, base.noise, base.rack, base.seed, (BreakRow(*ROW, 1, 0.0, 0.0, 0.0, 0.0),))
    bot = ProBot(rules, noise="tournament", seed=args.seed, max_speed=MAX_SPEED, break_table=table)
    simulator = Simulator(rules.table, noise="tournament")
    innings = []
    for r in range(args.racks):
        bot.reseed([args.seed, r, 1])
        innings.append(inning(rules, simulator, bot, np.random.default_rng([args.seed, r])))
    result = {"seed": args.seed, "row": ROW, "summary": summary(innings), "innings": innings}
    print(json.dumps(result["summary"], indent=1))
    write_json(args.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
