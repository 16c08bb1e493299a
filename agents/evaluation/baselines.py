"""The baseline table: every pair of the opponent ladder plays a match under the benchmark
protocol of a v1 game env (its rules, rack model and execution noise; alternating breaks).

``baseline_table`` returns, per pairing, both players' racks won with 95% Wilson intervals,
pot success with its interval and fouls per rack; ``format_markdown`` writes the README's
table. ``agent_table`` plays chosen agents (ladder names, pretrained agents, trained models,
``untrained:<model>`` for a model's untrained network) against chosen opponents, with balls
run per inning and, for a trained model, the wall time and env steps of its training run;
``format_agent_markdown`` writes it. Both tables are followed by the break figures of every
player in every pairing: its break-and-run rate, racks won on its own break and on the
opponent's break, each with its 95% Wilson interval (``break_table``). Pairings are independent, so ``workers`` processes share them; rack k of every
pairing is seeded the same way (``poolgym.agents.evaluation.evaluate.run_match``), so the results do not
depend on ``workers``.
"""

from __future__ import annotations

import functools
import itertools
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Sequence

from poolgym.envs.opponents import LADDER

from poolgym.agents.evaluation import EVAL_TABLES
from poolgym.agents.evaluation.evaluate import break_figures, run_match, summarize, wilson_interval
from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.evaluation.protocol import protocol

# What professionals reach, for the break table's caption (docs/bots.md cites the sources).
PROFESSIONAL_BREAK_AND_RUN = "professional 9-ball: 25-28% of racks (docs/bots.md)"
# The README's table: the ladder up to the fastest bot (the slower budgets cost minutes a rack).
TABLE_PLAYERS = LADDER[:LADDER.index("bot:fast") + 1]

# Workers start from a fresh interpreter: a forked child of a process in which torch has
# started its thread pool (loading a model agent does) can hang on its first tensor.
_POOL_CONTEXT = multiprocessing.get_context("forkserver")


def play_pairing(env_id: str, a: str, b: str, racks: int, seed: int, progress=None) -> dict:
    """One match of ``racks`` racks between ladder members ``a`` and ``b`` under the
    protocol of ``env_id``; ``progress(done, total)`` after each rack, as ``run_match``."""
    played_under = protocol(env_id)
    rules, noise = played_under.rules, played_under.noise
    agents = [make_agent(spec, rules, seed=seed + i, noise=noise, max_speed=played_under.max_speed,
                         elevation=played_under.elevation)
              for i, spec in enumerate((a, b))]
    started = time.perf_counter()
    match = run_match(rules, agents, (a, b), racks, seed=seed, noise=noise, progress=progress)
    summary = summarize(match)
    summary["seconds"] = time.perf_counter() - started
    return {"a": a, "b": b, "summary": summary}


def _play(args: tuple) -> dict:
    return play_pairing(*args)


def _run_jobs(play, jobs: list[tuple], racks: int, workers: int, advance) -> list[dict]:
    """``play(*job)`` for every job, in ``workers`` processes when more than one;
    ``advance(n)`` counts the racks played: each rack here, a pairing's racks as a worker
    finishes it."""
    if workers > 1:
        results = []
        with ProcessPoolExecutor(max_workers=workers, mp_context=_POOL_CONTEXT) as pool:
            for result in pool.map(play, jobs):
                results.append(result)
                if advance is not None:
                    advance(racks)
        return results
    per_rack = None if advance is None else (lambda done, total: advance(1))
    return [play((*job, per_rack)) for job in jobs]


def baseline_table(env_id: str = "poolgym/NineBall-v1", players: Sequence[str] = TABLE_PLAYERS,
                   racks: int = 200, seed: int = 0, workers: int = 1, advance=None, on_ray: bool = False) -> dict:
    """Every pairing of ``players`` (each once; A breaks the even racks), ``racks`` each:
    in ``workers`` processes, or, ``on_ray``, as chunks of racks over the open Ray session
    (``poolgym.agents.evaluation.distributed``; a pairing's ``seconds`` are then the sum of
    its chunks' times on their nodes). ``advance(n)``, when given, counts the racks played
    (``baseline_rack_count`` in all; on Ray, all of them once the batch is back)."""
    jobs = [(env_id, a, b, racks, seed) for a, b in itertools.combinations(players, 2)]
    if on_ray:
        from poolgym.agents.evaluation.distributed import run_matches_ray

        pairs = [(a, b) for _, a, b, _, _ in jobs]
        spread = run_matches_ray(env_id, pairs, racks, seed=seed)
        pairings = []
        for (a, b), match, seconds in zip(pairs, spread.matches, spread.chunk_seconds):
            summary = summarize(match)
            summary["seconds"] = sum(seconds)
            pairings.append({"a": a, "b": b, "summary": summary})
        if advance is not None:
            advance(racks * len(jobs))
    else:
        pairings = _run_jobs(_play, jobs, racks, workers, advance)
    return {"env": env_id, "racks": racks, "seed": seed, "players": list(players), "pairings": pairings}


UNTRAINED = "untrained:"


def _agent(spec: str, rules, seed: int, noise: str, max_speed: float, trusted: bool = False):
    """``make_agent``, plus ``untrained:<model spec>``: that model's network freshly
    initialised with its seed (what training added is measured against it); ``trusted``:
    a model may be unpickled."""
    from poolgym.agents.evaluation.loading import untrained_twin

    if spec.startswith(UNTRAINED):
        return untrained_twin(make_agent(spec[len(UNTRAINED):], rules, seed=seed, noise=noise,
                                         max_speed=max_speed, trusted=trusted))
    return make_agent(spec, rules, seed=seed, noise=noise, max_speed=max_speed, trusted=trusted)


def training_run(spec: str) -> dict | None:
    """The wall time and steps of the training run behind a model spec (env steps, or
    training samples for behaviour cloning: ``unit``): a pretrained agent's card, or the
    ``summary.json`` beside a model zip; None for other agents."""
    from pathlib import Path

    from poolgym.agents.pretrained import PREFIX, pretrained_card
    from poolgym.agents.training.run_folder import read_summary
    from poolgym.envs.sb3_models import parse_model_spec

    if spec.startswith(PREFIX):
        card = pretrained_card(spec[len(PREFIX):])
        unit = "samples" if card.get("steps_are") == "imitation samples" else "steps"
        return {"steps": card["steps"], "train_time_s": card["train_time_s"], "unit": unit}
    if spec.endswith(".zip"):
        summary = Path(parse_model_spec(spec)[1]).with_name("summary.json")
        if summary.is_file():
            data = read_summary(summary)
            unit = "samples" if "imitation" in data else "steps"
            return {"steps": data["steps"], "train_time_s": data["train_time_s"], "unit": unit}
    return None


def agent_match(env_id: str, agent: str, opponent: str, racks: int, seed: int, wrap=None, progress=None,
                trusted: bool = False):
    """The ``Match`` of ``racks`` racks of ``agent`` (A) against ``opponent`` (B) under the
    protocol of ``env_id`` (alternating breaks, the agent breaking the even racks).
    ``wrap``, when given, turns A's agent into the one that plays (a diagnostic's change to
    its moves); ``progress(done, total)`` is called after each rack (``run_match``);
    ``trusted``: a model may be unpickled. A network choosing among discrete actions plays
    ``EVAL_TABLES`` racks side by side (``run_match``'s ``racks_at_once``: the same racks)."""
    played_under = protocol(env_id)
    rules, noise = played_under.rules, played_under.noise
    players = [_agent(spec, rules, seed + i, noise, played_under.max_speed, trusted)
               for i, spec in enumerate((agent, opponent))]
    if wrap is not None:
        players[0] = wrap(players[0])
    return run_match(rules, players, ("A", "B"), racks, seed=seed, noise=noise, progress=progress,
                     racks_at_once=EVAL_TABLES)


def play_agent(env_id: str, agent: str, opponent: str, racks: int, seed: int, progress=None,
               trusted: bool = False) -> dict:
    """The statistics of ``agent_match``'s agent, and the seconds the match took."""
    started = time.perf_counter()
    summary = summarize(agent_match(env_id, agent, opponent, racks, seed, progress=progress, trusted=trusted))
    return {"agent": agent, "opponent": opponent, "stats": summary["agents"]["A"],
            "seconds": time.perf_counter() - started}


def _play_agent(args: tuple, trusted: bool = False) -> dict:
    return play_agent(*args, trusted=trusted)


def agent_table(agents: Sequence[str], opponents: Sequence[str] = ("legal-random", "bot:fast"),
                env_id: str = "poolgym/NineBall-v1", racks: int = 200, seed: int = 0,
                workers: int = 1, advance=None, trusted: bool = False) -> dict:
    """Each of ``agents`` against each of ``opponents``, ``racks`` racks on the same seeds;
    ``advance(n)``, when given, counts the racks played (``len(agents) * len(opponents) *
    racks`` in all); ``trusted``: a model may be unpickled."""
    jobs = [(env_id, a, b, racks, seed) for a in agents for b in opponents]
    results = _run_jobs(functools.partial(_play_agent, trusted=trusted), jobs, racks, workers, advance)
    return {"env": env_id, "racks": racks, "seed": seed, "agents": list(agents), "opponents": list(opponents),
            "training": {a: training_run(a) for a in agents}, "results": results}


def format_agent_markdown(table: dict) -> str:
    """One row per agent: racks won against each opponent and pot success (95% intervals),
    fouls per rack and balls run per inning (over all its racks), and its training run."""
    by = {(r["agent"], r["opponent"]): r["stats"] for r in table["results"]}
    opponents = table["opponents"]
    lines = [f"{table['env']}, {table['racks']} racks per pairing, alternating breaks, seed {table['seed']}.", "",
             "| agent | " + " | ".join(f"racks won vs {o}" for o in opponents)
             + " | pot success | fouls/rack | balls/inning | training |",
             "|---" * (len(opponents) + 5) + "|"]

    def rate(value: float, interval) -> str:
        return f"{value:.2f} [{interval[0]:.2f}, {interval[1]:.2f}]"

    for agent in table["agents"]:
        rows = [by[agent, o] for o in opponents]
        made, attempts = sum(s["pots_made"] for s in rows), sum(s["pot_attempts"] for s in rows)
        innings = sum(s["innings"] for s in rows)
        pots = rate(made / attempts, wilson_interval(made, attempts)) if attempts else "n/a"
        balls = f"{sum(s['balls_pocketed_legally'] for s in rows) / innings:.2f}" if innings else "n/a"
        fouls = sum(s["fouls"] for s in rows) / (table["racks"] * len(rows))
        run = table["training"].get(agent)
        trained = f"{run['steps']:,} {run.get('unit', 'steps')}, {run['train_time_s'] / 60:.0f} min" if run else "-"
        lines.append(f"| {agent} | " + " | ".join(rate(s["win_rate"], s["win_rate_ci95"]) for s in rows)
                     + f" | {pots} | {fouls:.2f} | {balls} | {trained} |")
    return "\n".join(lines + [""] + break_table([(r["agent"], r["opponent"], r["stats"])
                                                 for r in table["results"]]))



def break_table(rows: Sequence[tuple[str, str, dict]]) -> list[str]:
    """Markdown lines: per (player, opponent, player's statistics), the break-and-run rate
    over the player's breaks and the racks won on its own break and on the opponent's,
    each with its 95% Wilson interval and counts."""
    lines = [f"Break figures, 95% Wilson intervals ({PROFESSIONAL_BREAK_AND_RUN}):", "",
             "| player | opponent | break and run | won on own break | won on opponent's break |",
             "|---|---|---|---|---|"]
    for player, opponent, stats in rows:
        lines.append(f"| {player} | {opponent} | " + " | ".join(break_figures(stats)) + " |")
    return lines


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
    breaks = []
    for pairing in table["pairings"]:
        agents = pairing["summary"]["agents"]
        breaks += [(pairing["a"], pairing["b"], agents[pairing["a"]]),
                   (pairing["b"], pairing["a"], agents[pairing["b"]])]
    return "\n".join(lines + [""] + break_table(breaks))
