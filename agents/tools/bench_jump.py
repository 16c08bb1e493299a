"""``poolgym bench-jump``: how often the bot's jump shot and its best kick make a legal hit
from positions where every straight line to the ball on is blocked.

Each position is a seeded 9-ball layout with the 1 ball shielded
(``poolgym.agents.bot.blocked.blocked_position``). In it the bot (``HeuristicBot`` with
``jump=True``) ranks its jump candidates and its one-cushion kick candidates separately, as
its search does (exact simulation, then the best few replayed with the execution noise);
the best of each kind is then played once with the noise and judged by the 9-ball rules.
A legal hit is a first contact with the 1 ball; a clean shot is one with no foul at all.
The bot's own choice (all its candidates together) is played too, and that of the same
bot without jumps, so the report also says what jumping adds. Rates carry 95% Wilson
intervals.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from poolgym.envs.play import simulate_move
from poolgym.physics import Simulator
from poolgym.rules import get_ruleset

from poolgym.agents.bot.blocked import blocked_position
from poolgym.agents.bot.player import HeuristicBot
from poolgym.agents.evaluation.evaluate import wilson_interval

KINDS = ("jump", "kick", "bot_with_jumps", "bot_without_jumps")


def run(positions: int = 200, budget: str = "normal", noise: str = "tournament", seed: int = 0,
        max_speed: float = 12.0, progress=None) -> dict[str, Any]:
    """Play the best jump, the best kick and both bots' choices from ``positions`` blocked
    positions, strokes up to ``max_speed`` (the v1 envs' 12 m/s by default); returns the
    counts and rates per kind (``KINDS``)."""
    rules = get_ruleset("nine_ball")
    jumper = HeuristicBot(rules, noise=noise, budget=budget, seed=seed, max_speed=max_speed, jump=True)
    plain = HeuristicBot(rules, noise=noise, budget=budget, seed=seed, max_speed=max_speed, jump=False)
    table_sim = Simulator(rules.table, noise=noise)
    tallies = {kind: {"played": 0, "legal_hits": 0, "clean": 0, "jumps": 0} for kind in KINDS}
    for i in range(positions):
        state = blocked_position(rules.table, np.random.default_rng([seed, i]))
        search = jumper.search
        cue = state.position(0)
        jumper.reseed([seed, i])
        best = {"jump": jumper.rechecked(state, search.jump_candidates(state, cue, None, 1)),
                "kick": jumper.rechecked(state, search.kick_candidates(state, cue, None, 1))}
        moves = {kind: (s.move if s is not None else None) for kind, s in best.items()}
        jumper.reseed([seed, i])
        moves["bot_with_jumps"] = jumper.choose(state)
        plain.reseed([seed, i])
        moves["bot_without_jumps"] = plain.choose(state)
        for k, kind in enumerate(KINDS):
            move = moves[kind]
            if move is None:
                continue
            events, _ = simulate_move(table_sim, rules, state, move, np.random.default_rng([seed, i, k]), False)
            _, outcome = rules.apply_shot(state, move.call, events)
            tally = tallies[kind]
            tally["played"] += 1
            tally["legal_hits"] += events.first_contact in rules.legal_targets(state)
            tally["clean"] += not outcome.fouls
            tally["jumps"] += move.shot.elevation_deg > 0
        if progress is not None:
            progress(i + 1, positions)
    return {"positions": positions, "budget": budget, "noise": noise, "seed": seed, "max_speed": max_speed,
            "kinds": {kind: _rates(t, positions) for kind, t in tallies.items()}}


def _rates(tally: dict[str, int], positions: int) -> dict[str, Any]:
    """Counts over all positions (a position without a candidate of the kind counts as no
    hit) with their rates and Wilson intervals."""
    out = dict(tally)
    for name in ("legal_hits", "clean"):
        out[f"{name}_rate"] = tally[name] / positions if positions else None
        out[f"{name}_ci95"] = list(wilson_interval(tally[name], positions))
    return out


def command(report: dict[str, Any]) -> str:
    """The ``poolgym`` command line that reproduces ``report``."""
    return (f"poolgym bench-jump --positions {report['positions']} --budget {report['budget']} "
            f"--noise {report['noise']} --seed {report['seed']} --max-speed {report['max_speed']:g}")


def format_report(report: dict[str, Any]) -> str:
    """The report as a Markdown table, with the command that reproduces it."""
    lines = [f"Blocked 9-ball positions: {report['positions']} (seed {report['seed']}), the 1 ball shielded "
             f"from every straight stroke; bot budget {report['budget']}, noise {report['noise']}, "
             f"strokes up to {report['max_speed']:g} m/s.",
             "",
             "| shot | positions with one | legal hit (first contact the 1) | 95% CI | no foul | 95% CI | jumps played |",
             "|---|---|---|---|---|---|---|"]
    for kind, r in report["kinds"].items():
        lo, hi = r["legal_hits_ci95"]
        clo, chi = r["clean_ci95"]
        lines.append(f"| {kind.replace('_', ' ')} | {r['played']} | {r['legal_hits']} ({100 * r['legal_hits_rate']:.1f}%) "
                     f"| {100 * lo:.1f}-{100 * hi:.1f}% | {r['clean']} ({100 * r['clean_rate']:.1f}%) "
                     f"| {100 * clo:.1f}-{100 * chi:.1f}% | {r['jumps']} |")
    lines += ["", "Rates are over all positions: one where the bot has no candidate of the kind (no flight "
              "clears the blockers within the stroke cap, no one-rail line) counts as no hit. The bots' "
              "rows are their own choice among all their candidates; the jump and kick rows the best "
              "of that kind alone. Each is played once with the noise and judged by the 9-ball rules.",
              "", f"Reproduce: `{command(report)}`"]
    return "\n".join(lines)
