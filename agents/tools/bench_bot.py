"""``poolgym bench-bot``: the heuristic bot's strength and speed over many 9-ball racks.

The bot plays itself (two instances, alternating breaks) with no execution noise and with
the tournament noise; for each setting the report gives its per-shot pot success, the
break-and-run rate, fouls per rack and thinking speed (moves decided per second), with the
racks pooled over both seats.
"""

from __future__ import annotations

from typing import Any

from poolgym.rules import get_ruleset

from poolgym.agents.bot.player import HeuristicBot
from poolgym.agents.evaluation.evaluate import run_match, summarize, wilson_interval

NOISE_SETTINGS = ("none", "tournament")


def run(racks: int = 200, game: str = "nine_ball", budget: str = "normal", seed: int = 0,
        noises=NOISE_SETTINGS, progress=None) -> dict[str, Any]:
    """Bench the bot on ``racks`` racks per noise setting; returns the pooled figures."""
    rules = get_ruleset(game)
    report = {"game": game, "racks": racks, "budget": budget, "seed": seed, "settings": {}}
    for noise in noises:
        bots = [HeuristicBot(rules, noise=noise, budget=budget, seed=seed + i) for i in range(2)]
        match = run_match(rules, bots, ("bot", "bot"), racks, seed=seed, noise=noise,
                          progress=progress)
        report["settings"][noise] = pooled(summarize(match))
    return report


def pooled(summary: dict[str, Any]) -> dict[str, Any]:
    """Both seats of a self-play summary added together."""
    seats = list(summary["agents"].values())
    total = lambda key: sum(s[key] for s in seats)  # noqa: E731 -- a local shorthand
    attempts, runs, breaks = total("pot_attempts"), total("break_and_runs"), total("racks_broken")
    made = sum(round(s["pot_success"] * s["pot_attempts"]) for s in seats if s["pot_attempts"])
    moves_per_s = [s["moves_per_s_thinking"] for s in seats if s["moves_per_s_thinking"]]
    by_section: dict[str, float] = {}
    for s in seats:
        for k, v in s["fouls_per_rack_by_section"].items():
            by_section[k] = by_section.get(k, 0.0) + v
    return {
        "racks": summary["racks"], "draws": summary["draws"],
        "pot_attempts": attempts, "pots_made": made,
        "pot_success": made / attempts if attempts else None,
        "pot_success_ci95": list(wilson_interval(made, attempts)),
        "break_and_runs": runs, "break_and_run_rate": runs / breaks if breaks else None,
        "break_and_run_ci95": list(wilson_interval(runs, breaks)),
        "fouls_per_rack": total("fouls_per_rack"), "fouls_per_rack_by_section": by_section,
        "illegal_moves": total("illegal_moves"), "shots_per_rack": summary["shots_per_rack"],
        "moves_per_s_thinking": sum(moves_per_s) / len(moves_per_s) if moves_per_s else None,
    }


def format_report(report: dict[str, Any]) -> str:
    lines = [f"bot self-play, {report['game']}, {report['racks']} racks per setting, "
             f"budget {report['budget']}, seed {report['seed']}"]
    for noise, r in report["settings"].items():
        lo, hi = r["pot_success_ci95"]
        blo, bhi = r["break_and_run_ci95"]
        lines.append(
            f"  noise {noise}: pot success {100 * r['pot_success']:.1f}% "
            f"({r['pots_made']}/{r['pot_attempts']}, CI {100 * lo:.1f}-{100 * hi:.1f}%), "
            f"break and run {100 * r['break_and_run_rate']:.1f}% "
            f"({r['break_and_runs']}/{r['racks']}, CI {100 * blo:.1f}-{100 * bhi:.1f}%), "
            f"{r['fouls_per_rack']:.2f} fouls per rack, {r['shots_per_rack']:.1f} shots per rack, "
            f"{r['moves_per_s_thinking']:.2f} moves/s thinking, {r['illegal_moves']} illegal moves, "
            f"{r['draws']} unfinished")
    return "\n".join(lines)
