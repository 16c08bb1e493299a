"""``poolgym bench-bot``: the heuristic bot's strength and speed over many 9-ball racks.

The bot plays itself (two instances, alternating breaks) with no execution noise and with
the tournament noise; for each setting the report gives its per-shot pot success, the
break-and-run rate and the racks the breaker won (95% Wilson intervals; professionals at
9-ball break and run 25-28% of racks, ``docs/bots.md``), fouls per rack and thinking speed
(moves decided per second, and seconds per move), with the racks pooled over both seats.
Several rungs benched in one command play the same racks (the same seeds), so their
figures and times compare side by side.

The racks are tight and the strokes capped at 10 m/s unless asked otherwise: ``racks=
"benchmark"`` and ``max_speed=12`` are the NineBall-v1 protocol's (racks with the random
gaps calibrated to professional break rates, ``poolgym.racking``, and its stroke cap).
"""

from __future__ import annotations

from typing import Any

from poolgym.racking import RACK_PRESETS, RackModel
from poolgym.rules import get_ruleset

from poolgym.agents.evaluation.evaluate import Match, proportion_text, run_match, summarize, wilson_interval
from poolgym.agents.evaluation.loading import make_bot

NOISE_SETTINGS = ("none", "tournament")
# The bench's stroke cap (m/s) unless asked otherwise.
MAX_SPEED = 10.0


def run(racks: int = 200, game: str = "nine_ball", budget: str = "normal", seed: int = 0,
        noises=NOISE_SETTINGS, progress=None, rack_model: str = "tight",
        max_speed: float = MAX_SPEED) -> dict[str, Any]:
    """Bench the bot rung ``bot:<budget>`` (``poolgym.agents.evaluation.loading.BOT_LEVELS``)
    on ``racks`` racks per noise setting, racked by ``rack_model`` (a ``RACK_PRESETS`` name)
    with strokes up to ``max_speed`` m/s; returns the pooled figures."""
    return run_levels((budget,), racks, game, seed, noises, progress, rack_model=rack_model,
                      max_speed=max_speed)[0]


def run_levels(levels, racks: int = 200, game: str = "nine_ball", seed: int = 0, noises=NOISE_SETTINGS,
               progress=None, workers: int = 1, rack_model: str = "tight",
               max_speed: float = MAX_SPEED) -> list[dict[str, Any]]:
    """``run`` for each rung of ``levels`` on the same racks (one report each). With
    ``workers`` > 1 the racks are split into chunks played by that many processes, the
    rungs' chunks interleaved so that they share the machine alike; every rack is seeded by
    its number (``run_match``), so the figures are those of one process."""
    if rack_model not in RACK_PRESETS:
        raise ValueError(f"rack_model must be one of {sorted(RACK_PRESETS)}, got {rack_model!r}")
    chunks = max(1, min(racks, 4 * workers)) if workers > 1 else 1
    bounds = [racks * i // chunks for i in range(chunks + 1)]
    jobs = [(level, noise, game, seed, range(bounds[i], bounds[i + 1]), rack_model, max_speed)
            for noise in noises for i in range(chunks) for level in levels if bounds[i] < bounds[i + 1]]
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("forkserver")) as pool:
            played = []
            for job, records in zip(jobs, pool.map(_play_chunk, jobs)):
                played.append(records)
                if progress is not None:
                    for _ in job[4]:
                        progress(1, racks)
    else:
        played = [_play_chunk(job, progress) for job in jobs]
    reports = []
    for level in levels:
        report = {"game": game, "racks": racks, "budget": level, "seed": seed, "rack_model": rack_model,
                  "max_speed": max_speed, "settings": {}}
        for noise in noises:
            records = [r for job, chunk in zip(jobs, played) if job[:2] == (level, noise) for r in chunk]
            match = Match(game, ("bot", "bot"), records, seed, noise)
            report["settings"][noise] = pooled(summarize(match))
        reports.append(report)
    return reports


def _play_chunk(job: tuple, progress=None) -> list:
    """The rack records of one chunk: (level, noise, game, seed, rack numbers, rack model,
    stroke cap)."""
    level, noise, game, seed, numbers, rack_model, max_speed = job
    rules = get_ruleset(game).with_rack_model(RackModel.make(rack_model))
    bots = [make_bot(level, rules, seed=seed + i, noise=noise, max_speed=max_speed) for i in range(2)]
    return run_match(rules, bots, ("bot", "bot"), numbers, seed=seed, noise=noise, progress=progress).racks


def pooled(summary: dict[str, Any]) -> dict[str, Any]:
    """Both seats of a self-play summary added together."""
    seats = list(summary["agents"].values())
    total = lambda key: sum(s[key] for s in seats)  # noqa: E731 -- a local shorthand
    attempts, runs, breaks = total("pot_attempts"), total("break_and_runs"), total("racks_broken")
    made = total("pots_made")
    won_breaking = total("wins_on_own_break")
    moves, think = total("moves"), total("think_s")
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
        "breaker_wins": won_breaking, "breaker_win_rate": won_breaking / breaks if breaks else None,
        "breaker_win_ci95": list(wilson_interval(won_breaking, breaks)),
        "fouls_per_rack": total("fouls_per_rack"), "fouls_per_rack_by_section": by_section,
        "illegal_moves": total("illegal_moves"), "shots_per_rack": summary["shots_per_rack"],
        "moves_per_s_thinking": sum(moves_per_s) / len(moves_per_s) if moves_per_s else None,
        "seconds_per_move": think / moves if moves else None,
    }


def format_report(report: dict[str, Any]) -> str:
    lines = [f"bot self-play, {report['game']}, {report['racks']} racks per setting, "
             f"budget {report['budget']}, seed {report['seed']}, {report.get('rack_model', 'tight')} racks, "
             f"strokes up to {report.get('max_speed', MAX_SPEED):g} m/s"]
    for noise, r in report["settings"].items():
        lines.append(
            f"  noise {noise}: pot success {proportion_text(r['pots_made'], r['pot_attempts'])}, "
            f"break and run {proportion_text(r['break_and_runs'], r['racks'])}, "
            f"breaker won {proportion_text(r['breaker_wins'], r['racks'])}, "
            f"{r['fouls_per_rack']:.2f} fouls per rack, {r['shots_per_rack']:.1f} shots per rack, "
            f"{r['moves_per_s_thinking']:.2f} moves/s thinking ({r['seconds_per_move']:.3f} s per move), "
            f"{r['illegal_moves']} illegal moves, {r['draws']} unfinished")
    return "\n".join(lines)
