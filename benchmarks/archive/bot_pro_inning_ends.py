"""Where the top rung's breaker's innings end after a made break: how many balls were left,
what the ending shot was (a missed pot, a foul, a safety, a push out) and the closed-form
chance of the best pot it had (``poolgym.agents.bot.position.shot_quality``), beside the
run-out rate once the first shot after the break is made.

The innings of ``benchmarks/archive/bot_pro_innings.py`` (9-ball, tight racks, tournament noise,
the 10 m/s cap of ``poolgym bench-bot``; rack ``r`` racked and noised from
``numpy.random.default_rng([seed, r])``, the bot reseeded with ``[seed, r, 1]``), with one
break row. Run from the repository root:

    python benchmarks/archive/bot_pro_inning_ends.py --racks 300 --seed 6 \\
        --json benchmarks/archive/results/bot_pro_innings/ends_seed6.json

With ``--replays N`` each pot played with the cue ball where it lies is also measured: the
closed-form chance of the pot the rung chose (``poolgym.aiming.pot_chance``, beside the best
one open) and how often its stroke makes that ball over ``N`` replays under the same noise,
from a generator of its own (``[seed, r, 2, shot]``), so the innings are those of a run
without it; the summary groups the pots by their own chance.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

import numpy as np

from poolgym.aiming import pot_chance
from poolgym.agents.bot.breaks import BreakRow, BreakTable, load_break_table
from poolgym.agents.bot.position import shot_quality
from poolgym.agents.bot.pro import ProBot
from poolgym.agents.evaluation.policy_eval import wilson_interval
from poolgym.agents.tools.script_io import write_json
from poolgym.envs.observations import actor
from poolgym.envs.play import simulate_move, simulate_replays
from poolgym.physics import Simulator
from poolgym.rules import CueBallZone, Decision, get_ruleset

MAX_SPEED = 10.0  # bench-bot's stroke cap
MAX_MOVES = 40
# The break row of benchmarks/archive/results/bot_pro_innings/search_default.json.
ROW = [0.5493, 0.8775, 0.0, 8.0, 0.0]


def inning(rules, simulator, bot, rng, replays: int = 0, replay_seed=()) -> dict:
    """The breaker's inning: whether the break made a ball without a foul, whether the
    rack was run out, and each shot after the break (kind, object balls on the table, the
    best pot's closed-form chance where the cue ball lies, a foul, the target made; with
    ``replays``, a pot's own chance and its stroke's make rate, the module docstring)."""
    state = rules.new_game(rng=rng, breaker=0)
    made, shots = False, []
    for k in range(MAX_MOVES):
        if state.is_over or actor(state) != 0:
            break
        move = bot.choose(state)
        if isinstance(move, Decision):
            state = rules.apply_decision(state, move)
            continue
        where = k > 0 and state.cue_ball_in_hand is CueBallZone.NONE
        chance = shot_quality(state, rules, bot.search.sigma_deg) if where else None
        measured = pot_reliability(rules, simulator, bot, state, move, replays, [*replay_seed, 2, k]) \
            if where and replays and move.pocket is not None else {}
        events, _ = simulate_move(simulator, rules, state, move, rng, False)
        after, outcome = rules.apply_shot(state, move.call, events)
        if k == 0:
            made = not outcome.fouls and (outcome.turn_kept or outcome.winner == 0)
        else:
            kind = "pot" if move.pocket is not None else ("push out" if move.call.push_out else "safety")
            shots.append({"kind": kind, "balls": len(state.object_balls_on_table), "chance": chance,
                          "foul": bool(outcome.fouls), "made": move.target in outcome.pocketed_legally,
                          **measured})
        state = after
    return {"made": made, "won": state.winner == 0, "shots": shots}


def pot_reliability(rules, simulator, bot, state, move, replays: int, seed) -> dict:
    """The chosen pot's own closed-form chance and the share of ``replays`` noisy plays of
    its stroke (noise from ``numpy.random.default_rng(seed)``) that make its ball."""
    balls = state.positions
    others = {n: p for n, p in balls.items() if n not in (0, move.target)}
    own = pot_chance(rules.table, balls[0], balls[move.target], move.pocket, others, bot.search.sigma_deg)
    plays = simulate_replays(simulator, rules, state, move, np.random.default_rng(seed), replays,
                             state_checked=True)
    dropped = sum(move.target in rules.apply_shot(state, move.call, events, simulated=True)[1].pocketed_legally
                  for events, _ in plays)
    return {"own_chance": own, "make_rate": dropped / replays}


# The bands of a pot's own closed-form chance in ``reliability``.
BANDS = ((0.99, 1.0), (0.9, 0.99), (0.5, 0.9), (0.0, 0.5))


def reliability(innings: list[dict]) -> list[dict]:
    """The measured pots (``--replays``) by band of their own chance: how many, their mean
    make rate over the replays, and how many were chosen 0.05 or more below the best pot."""
    pots = [s for i in innings for s in i["shots"] if "own_chance" in s]
    out = []
    for low, high in BANDS:
        band = [s for s in pots if low <= s["own_chance"] and (s["own_chance"] < high or high == 1.0)]
        out.append({"own_chance": [low, high], "pots": len(band),
                    "mean_make_rate": float(np.mean([s["make_rate"] for s in band])) if band else None,
                    "chosen_below_the_best": sum(s["own_chance"] <= s["chance"] - 0.05 for s in band)})
    return out


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
    parser.add_argument("--replays", type=int, default=0,
                        help="noisy replays of each pot played, to measure its stroke's make rate")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    if args.replays < 0:
        parser.error(f"--replays must be 0 or more, got {args.replays}")
    rules = get_ruleset("nine_ball")
    base = load_break_table()
    table = BreakTable(base.game, base.noise, base.rack, base.seed, (BreakRow(*ROW, 1, 0.0, 0.0, 0.0, 0.0),))
    bot = ProBot(rules, noise="tournament", seed=args.seed, max_speed=MAX_SPEED, break_table=table)
    simulator = Simulator(rules.table, noise="tournament")
    innings = []
    for r in range(args.racks):
        bot.reseed([args.seed, r, 1])
        innings.append(inning(rules, simulator, bot, np.random.default_rng([args.seed, r]),
                              args.replays, (args.seed, r)))
    result = {"seed": args.seed, "row": ROW, "summary": summary(innings), "innings": innings}
    if args.replays:
        result["summary"]["pots_by_own_chance"] = reliability(innings)
    print(json.dumps(result["summary"], indent=1))
    write_json(args.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
