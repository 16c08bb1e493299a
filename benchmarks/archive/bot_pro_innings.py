"""The top rung's breaker's innings: how often a break stroke makes a ball and how often
the rack is then run out, under the tournament noise (9-ball, tight racks, 10 m/s cap, as
``poolgym bench-bot`` plays its self-play racks).

Only the breaker's inning is played: the break, then the breaker's shots until the table
passes to the opponent (a break and run is a rack won in it), so a rack costs a fraction of
a whole self-play rack. Each break row is played by ``bot:pro`` with a break table of that
one row; ``--bot`` sets ProBot's search sizes (``top_k``, ``noise_samples``, ``lookahead``,
``clusters``). Rack ``r`` is racked and noised from ``numpy.random.default_rng([seed, r])``,
the bot reseeded with ``[seed, r, 1]``: every row and setting plays the same racks.

    python benchmarks/archive/bot_pro_innings.py --rows table:8 --racks 200 --seed 5 \\
        --json benchmarks/archive/results/bot_pro_innings/break_rows.json
    python benchmarks/archive/bot_pro_innings.py --rows '[[0.5493, 0.8775, 0.0, 8.0, 0.0]]' --racks 300 --seed 6 \\
        --bot '{"top_k": 12, "noise_samples": 30, "lookahead": 6, "clusters": 5}' --json OUT.json

``--rows table:N`` takes the shipped table's N best rows (most breaks measured, the stroke
cap allowed, by value). CPU seconds per move (process time of the bot's decisions after
the break) are reported beside the rates; Wilson 95% intervals.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from poolgym.agents.bot.breaks import BreakRow, BreakTable, load_break_table
from poolgym.agents.bot.pro import ProBot
from poolgym.agents.evaluation.policy_eval import wilson_interval
from poolgym.agents.tools.script_io import write_json
from poolgym.envs.observations import actor
from poolgym.envs.play import simulate_move
from poolgym.physics import Simulator
from poolgym.rules import Decision, get_ruleset

MAX_SPEED = 10.0  # bench-bot's stroke cap
MAX_MOVES = 40


def inning(rules, simulator, bot, rng, clock: list) -> tuple[bool, bool]:
    """(the break made a ball without a foul, the breaker won the rack in this inning)."""
    state = rules.new_game(rng=rng, breaker=0)
    made = False
    for k in range(MAX_MOVES):
        if state.is_over:
            return made, state.winner == 0
        if actor(state) != 0:
            return made, False
        started = time.process_time()
        move = bot.choose(state)
        if k > 0:
            clock[0] += 1
            clock[1] += time.process_time() - started
        if isinstance(move, Decision):
            state = rules.apply_decision(state, move)
            continue
        events, _ = simulate_move(simulator, rules, state, move, rng, False)
        state, outcome = rules.apply_shot(state, move.call, events)
        if k == 0:
            made = not outcome.fouls and (outcome.turn_kept or outcome.winner == 0)
    return made, False


def play_row(rules, stroke, racks: int, seed: int, bot_kwargs: dict, bot_class=ProBot) -> dict:
    """One break stroke (x, y, offset, speed, vertical) over ``racks`` innings, played by
    ``bot_class`` (ProBot or a class built on it) made with ``bot_kwargs``."""
    base = load_break_table()
    table = BreakTable(base.game, base.noise, base.rack, base.seed, (BreakRow(*stroke, 1, 0.0, 0.0, 0.0, 0.0),))
    bot = bot_class(rules, noise="tournament", seed=seed, max_speed=MAX_SPEED, break_table=table, **bot_kwargs)
    simulator = Simulator(rules.table, noise="tournament")
    made = runs = 0
    clock = [0, 0.0]
    started = time.perf_counter()
    for r in range(racks):
        bot.reseed([seed, r, 1])
        m, won = inning(rules, simulator, bot, np.random.default_rng([seed, r]), clock)
        made += m
        runs += won
    return {"row": list(stroke), "bot": bot_kwargs, "racks": racks, "made": made,
            "made_ci95": wilson_interval(made, racks), "break_and_runs": runs,
            "break_and_run_rate": runs / racks, "break_and_run_ci95": wilson_interval(runs, racks),
            "run_outs_of_made": runs / made if made else None, "moves": clock[0],
            "cpu_s_per_move": clock[1] / max(clock[0], 1), "seconds": round(time.perf_counter() - started, 1)}


def table_rows(n: int) -> list[list[float]]:
    """The shipped table's ``n`` best rows within the stroke cap (most breaks, by value)."""
    rows = [r for r in load_break_table().rows if r.speed <= MAX_SPEED]
    most = max(r.breaks for r in rows)
    best = sorted((r for r in rows if r.breaks == most), key=lambda r: -r.value)[:n]
    return [[r.x, r.y, r.offset, r.speed, r.vertical] for r in best]


def main(argv=None, bot_class=ProBot) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="table:8", help="table:N, or a JSON list of [x, y, offset, speed, vertical]")
    parser.add_argument("--racks", type=int, default=200)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--bot", default="{}", help="ProBot search sizes as a JSON object")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    rows = table_rows(int(args.rows.split(":", 1)[1])) if args.rows.startswith("table:") else json.loads(args.rows)
    bot_kwargs = json.loads(args.bot)
    rules = get_ruleset("nine_ball")
    results = []
    for stroke in rows:
        results.append(play_row(rules, stroke, args.racks, args.seed, bot_kwargs, bot_class))
        r = results[-1]
        print(f"break {r['row']}: made {r['made']}/{r['racks']}, break and run {r['break_and_runs']}/{r['racks']} "
              f"({r['break_and_run_rate']:.3f} [{r['break_and_run_ci95'][0]:.3f}, {r['break_and_run_ci95'][1]:.3f}]), "
              f"{r['cpu_s_per_move']:.3f} CPU s per move", flush=True)
        write_json(args.json, {"seed": args.seed, "racks": args.racks, "bot": bot_kwargs, "results": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
