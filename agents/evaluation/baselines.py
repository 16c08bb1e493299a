"""The baseline table: every pair of the opponent ladder plays a match under the benchmark
protocol of a v1 game env (its rules, rack model and execution noise; alternating breaks).

``baseline_table`` returns, per pairing, both players' racks won with 95% Wilson intervals,
pot success with its interval and fouls per rack; ``format_markdown`` writes the README's
table. Pairings are independent, so ``workers`` processes share them; rack k of every
pairing is seeded the same way (``poolgym.agents.evaluation.evaluate.run_match``), so the results do not
depend on ``workers``.
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Sequence

from poolgym.envs.opponents import LADDER

from poolgym.agents.evaluation.evaluate import run_match, summarize
from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.evaluation.protocol import protocol

# The README's table: the ladder up to the fastest bot (the slower budgets cost minutes a rack).
TABLE_PLAYERS = LADDER[:LADDER.index("bot:fast") + 1]


def play_pairing(env_id: str, a: str, b: str, racks: int, seed: int) -> dict:
    """One match of ``racks`` racks between ladder members ``a`` and ``b`` under the
    protocol of ``env_id``."""
    played_under = protocol(env_id)
    rules, noise = played_under.rules, played_under.noise
    agents = [make_agent(spec, rules, seed=seed + i, noise=noise, max_speed=played_under.max_speed)
              for i, spec in enumerate((a, b))]
    started = time.perf_counter()
    match = run_match(rules, agents, (a, b), racks, seed=seed, noise=noise)
    summary = summarize(match)
    summary["seconds"] = time.perf_counter() - started
    return {"a": a, "b": b, "summary": summary}


def _play(args: tuple) -> dict:
    return play_pairing(*args)


def baseline_table(env_id: str = "poolgym/NineBall-v1", players: Sequence[str] = TABLE_PLAYERS,
                   racks: int = 200, seed: int = 0, workers: int = 1) -> dict:
    """Every pairing of ``players`` (each once; A breaks the even racks), ``racks`` each."""
    jobs = [(env_id, a, b, racks, seed) for a, b in itertools.combinations(players, 2)]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            pairings = list(pool.map(_play, jobs))
    else:
        pairings = [_play(job) for job in jobs]
    return {"env": env_id, "racks": racks, "seed": seed, "players": list(players), "pairings": pairings}


def format_markdown(table: dict) -> str:
    """The README table: one row per pairing, both players' racks won, pot success and fouls
    per rack with 95% intervals."""
    lines = [f"{table['env']}, {table['racks']} racks per pairing, alternating breaks, seed {table['seed']}.",
             "",
             "| A | B | A racks won | B racks won | A pot success | B pot success | A fouls/rack | B fouls/rack |",
             "|---|---|---|---|---|---|---|---|"]

    def rate(stats: dict, key: str, interval: str) -> str:
        value = stats[key]
        if value is None:
            return "n/a"
        low, high = stats[interval]
        return f"{value:.2f} [{low:.2f}, {high:.2f}]"

    for pairing in table["pairings"]:
        a, b = (pairing["summary"]["agents"][pairing[side]] for side in "ab")
        lines.append(f"| {pairing['a']} | {pairing['b']} | {rate(a, 'win_rate', 'win_rate_ci95')} | "
                     f"{rate(b, 'win_rate', 'win_rate_ci95')} | {rate(a, 'pot_success', 'pot_success_ci95')} | "
                     f"{rate(b, 'pot_success', 'pot_success_ci95')} | {a['fouls_per_rack']:.2f} | "
                     f"{b['fouls_per_rack']:.2f} |")
    return "\n".join(lines)
