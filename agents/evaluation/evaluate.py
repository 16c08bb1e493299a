"""Matches between two agents and their statistics (``poolgym eval``, ``poolgym bench-bot``).

``run_match`` plays N racks of any game with alternating breaks (agent A breaks the even
racks), seeded so the same arguments give the same games. ``summarize`` reports per agent:

- wins with a 95% Wilson interval (a draw -- a rack stopped at the move cap or a
  stalemate -- counts as no win);
- ``pot_success``: pot attempts that dropped a ball legally and kept the turn (or won the
  rack) over pot attempts. A pot attempt is a shot other than a break, a push out or a
  called safety, and, for agents that say what they aim at (``ShotMove.target`` set),
  one that names a pocket -- the bot's safeties and kicks name a ball but no pocket;
- fouls per rack, in total and by WPA section; illegal moves (refused by the rules);
  racks lost by the agent's own third consecutive foul (WPA 6.14);
- break-and-run rate: racks the agent broke and won with every shot of the rack its own,
  over the racks it broke, with a 95% Wilson interval; and racks won on its own break and
  on the opponent's break, each over those racks, with their intervals (professionals at
  9-ball break and run 25-28% of racks: ``docs/bots.md``);
- shots per rack (both players) and the agent's thinking speed in moves per second;
- 14.1 points per inning (points scored over the agent's visits to the table) and balls
  run per inning (balls pocketed legally over those visits, any game).

``shot_rows`` turns the records into one CSV row per shot, for notebooks.

Reference points (``reference_report``): the same racks (same seeds) against the same
opponent B, played by the ladder's ``random`` and ``fixed`` agents and, when A is a saved
model, by the untrained network (the same architecture freshly initialised with the
model's seed). A rate means little without them: against a random player who fouls its
racks away, ``random`` itself wins some and ``fixed`` most.
"""

from __future__ import annotations

import copy
import csv
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from poolgym.envs.actions import ShotMove
from poolgym.files import atomic_writer
from poolgym.numbers import integer
from poolgym.physics import Simulator
from poolgym.rules import Ruleset

from poolgym.agents.evaluation.match import RackRecord, play_rack, rack_moves

# The agents every evaluation report measures beside agent A (``reference_report``).
REFERENCE_AGENTS = ("random", "fixed")

WILSON_Z = 1.959963984540054  # 95%


def wilson_interval(successes: int, n: int, z: float = WILSON_Z) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (0, 1 when n is 0)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def proportion_text(successes: int, n: int) -> str:
    """``successes`` of ``n`` as a percentage with its 95% Wilson interval and the counts,
    e.g. ``"25.0% [19.5, 31.4] (50/200)"`` (``"n/a"`` when n is 0)."""
    if n == 0:
        return "n/a"
    low, high = wilson_interval(successes, n)
    return f"{100 * successes / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}] ({successes}/{n})"


def break_figures(stats: dict[str, Any]) -> tuple[str, str, str]:
    """An agent's break-and-run rate, racks won on its own break and racks won on the
    opponent's break (``_agent_stats``' figures), each as ``proportion_text``."""
    broken = stats["racks_broken"]
    received = stats["wins_on_opponent_break_of"]
    return (proportion_text(stats["break_and_runs"], broken),
            proportion_text(stats["wins_on_own_break"], broken),
            proportion_text(stats["wins_on_opponent_break"], received))


@dataclass
class Match:
    """A played match: the game, the agents' names and every rack's record."""

    game: str
    names: tuple[str, str]
    racks: list[RackRecord]
    seed: int
    noise: str


def run_match(rules: Ruleset, agents, names: tuple[str, str], racks: int | range, seed: int = 0,
              noise: str = "none", progress=None, racks_at_once: int = 1) -> Match:
    """Play ``racks`` racks (a count, or a range of rack numbers) between ``agents[0]`` (A)
    and ``agents[1]`` (B), A breaking the even-numbered racks.

    Rack k is racked and noised from ``default_rng([seed, k])``, and agents that can
    (``reseed``) restart their own randomness from ``[seed, k, player]``: every rack plays
    the same whichever process plays it and in whatever order, so a match split over
    workers (``poolgym.agents.evaluation.distributed``) gives the same racks as one played here.

    ``racks_at_once`` above one plays that many racks side by side when an agent chooses
    for many states in one call (``choose_many`` and ``batchable``: a network choosing
    deterministically among discrete actions, ``PolicyAgent``): the moves of all the racks
    waiting for it are chosen together, each move's thinking time its share of the call,
    while the other agent plays each rack as a copy of its own. The racks are those played
    one at a time (as ``poolgym.agents.evaluation.policy_eval.evaluate`` says of a batched
    network call), in the same order; ``progress(done, total)`` follows that order.
    """
    if integer(racks_at_once, "racks_at_once") < 1:
        raise ValueError(f"racks_at_once must be a whole number >= 1, got {racks_at_once}")
    simulator = Simulator(rules.table, noise=noise)
    numbers = range(racks) if isinstance(racks, int) else racks
    if racks_at_once > 1 and len(numbers) > 1 and any(map(_chooses_many, agents)):
        played = _racks_side_by_side(rules, simulator, agents, numbers, seed, min(racks_at_once, len(numbers)),
                                     progress)
        return Match(rules.name, names, played, seed, noise)
    played = []
    for done, k in enumerate(numbers, start=1):
        _reseed(agents, seed, k)
        rng = np.random.default_rng([seed, k])
        played.append(play_rack(rules, simulator, agents, rng, breaker=k % 2))
        if progress is not None:
            progress(done, len(numbers))
    return Match(rules.name, names, played, seed, noise)


def _reseed(agents, seed: int, k: int) -> None:
    for player, agent in enumerate(agents):
        if hasattr(agent, "reseed"):
            agent.reseed([seed, k, player])


def _chooses_many(agent) -> bool:
    return callable(getattr(agent, "choose_many", None)) and bool(getattr(agent, "batchable", False))


def _racks_side_by_side(rules: Ruleset, simulator: Simulator, agents, numbers: range, seed: int, width: int,
                        progress) -> list[RackRecord]:
    """``run_match``'s racks, ``width`` at a time (its docstring): each place at the table
    (a slot) plays its next rack when one ends; the agents that choose many moves at once
    are shared by the slots, the others copied into each, and reseeded per rack as in
    ``run_match``."""
    many = [agent if _chooses_many(agent) else None for agent in agents]  # by player
    # The memo keeps the shared agents out of the copies.
    shared = {id(agent): agent for agent in many if agent is not None}
    seats = [list(agents)] + [copy.deepcopy(list(agents), dict(shared)) for _ in range(width - 1)]
    waiting = iter(enumerate(numbers))
    active: dict[int, tuple[int, Any, tuple[int, Any]]] = {}  # slot: rack index, its moves, (player, state)
    finished: dict[int, RackRecord] = {}
    played: list[RackRecord] = []

    def advance(slot: int, index: int, rack, sent) -> None:
        try:
            active[slot] = (index, rack, next(rack) if sent is None else rack.send(sent))
        except StopIteration as ended:
            finished[index] = ended.value
            del active[slot]
            start(slot)

    def start(slot: int) -> None:
        item = next(waiting, None)
        if item is not None:
            index, k = item
            _reseed(seats[slot], seed, k)
            advance(slot, index, rack_moves(rules, simulator, np.random.default_rng([seed, k]), breaker=k % 2), None)

    for slot in range(width):
        start(slot)
    while active:
        asked = sorted(active.items())
        moves: dict[int, tuple[Any, float]] = {}
        for player, agent in enumerate(many):
            if agent is None:
                continue
            which = [slot for slot, (_, _, (to_move, _)) in asked if to_move == player]
            if which:
                started = time.perf_counter()
                chosen = agent.choose_many([active[slot][2][1] for slot in which])
                each = (time.perf_counter() - started) / len(which)
                moves.update((slot, (move, each)) for slot, move in zip(which, chosen))
        for slot, (_, _, (player, state)) in asked:
            if slot not in moves:
                started = time.perf_counter()
                move = seats[slot][player].choose(state)
                moves[slot] = (move, time.perf_counter() - started)
        for slot, (index, rack, _) in asked:
            advance(slot, index, rack, moves[slot])
        while len(played) in finished:
            played.append(finished.pop(len(played)))
            if progress is not None:
                progress(len(played), len(numbers))
    return played


def reference_agents(spec_a: str, agent_a, rules: Ruleset, seed: int = 0,
                     noise: str = "none", max_speed: float = 10.0) -> dict[str, Any]:
    """The reference agents for agent A (``spec_a``, ``agent_a``): ``REFERENCE_AGENTS``
    (seeded like A) and, when A is a saved model, ``"untrained"`` (``untrained_twin``)."""
    from poolgym.agents.evaluation.loading import PolicyAgent, make_agent, untrained_twin

    refs = {name: make_agent(name, rules, seed=seed, noise=noise, max_speed=max_speed)
            for name in REFERENCE_AGENTS}
    if isinstance(agent_a, PolicyAgent) and hasattr(agent_a.policy, "model") and spec_a.endswith(".zip"):
        refs["untrained"] = untrained_twin(agent_a)
    return refs


def reference_report(rules: Ruleset, references: dict[str, Any], opponent, opponent_name: str,
                     racks: int, seed: int = 0, noise: str = "none", play=None,
                     progress=None, racks_at_once: int = 1) -> dict[str, Any]:
    """Each reference agent's statistics as agent A against ``opponent`` on the racks of
    ``run_match(..., racks, seed)``: ``{"opponent": name, "agents": {name: stats}}``.
    ``play(name, agent)`` plays a match in another way (e.g. on Ray) and returns it;
    ``progress`` and ``racks_at_once`` go to ``run_match`` otherwise."""
    out = {"opponent": opponent_name, "agents": {}}
    for name, agent in references.items():
        match = (play(name, agent) if play is not None else
                 run_match(rules, [agent, opponent], (name, opponent_name), racks, seed=seed, noise=noise,
                           progress=progress, racks_at_once=racks_at_once))
        out["agents"][name] = _agent_stats(match, 0)
    return out


def is_pot_attempt(move: ShotMove, break_shot: bool) -> bool:
    """See the module docstring."""
    if break_shot or move.call.push_out or move.call.safety:
        return False
    return move.target is None or move.pocket is not None


def summarize(match: Match) -> dict[str, Any]:
    """The match's statistics per agent (see the module docstring) as a JSON-ready dict."""
    n = len(match.racks)
    shots_total = sum(1 for r in match.racks for m in r.moves if m.outcome is not None)
    out = {"game": match.game, "racks": n, "seed": match.seed, "noise": match.noise,
           "draws": sum(1 for r in match.racks if r.winner is None),
           "shots_per_rack": shots_total / n if n else 0.0, "agents": {}}
    for player, name in enumerate(match.names):
        out["agents"][name if match.names[0] != match.names[1] else f"{name}_{'ab'[player]}"] = \
            _agent_stats(match, player)
    return out


def _agent_stats(match: Match, player: int) -> dict[str, Any]:
    n = len(match.racks)
    wins = sum(1 for r in match.racks if r.winner == player)
    attempts = made = shots = fouls = illegal = breaks = runs = points = innings = moves = balls = 0
    won_breaking = won_receiving = 0
    three_fouls = 0
    think = 0.0
    by_section: dict[str, int] = {}
    for rack in match.racks:
        shooters = [m.player for m in rack.moves if m.outcome is not None]
        last = next((m for m in reversed(rack.moves) if m.outcome is not None), None)
        if last is not None and last.player == player and rack.winner == 1 - player and \
                any(f.section == "6.14" for f in last.outcome.fouls):
            three_fouls += 1
        if rack.breaker == player:
            breaks += 1
            won_breaking += rack.winner == player
            if rack.winner == player and shooters and all(p == player for p in shooters):
                runs += 1
        else:
            won_receiving += rack.winner == player
        previous = None
        for m in rack.moves:
            if m.player != player:
                previous = m.player if m.outcome is not None else previous
                continue
            moves += 1
            think += m.think_s
            if m.illegal:
                illegal += 1
            o = m.outcome
            if o is None:
                continue
            shots += 1
            if previous != player:
                innings += 1
            previous = player
            points += o.points[player]
            balls += len(o.pocketed_legally)
            fouls += len(o.fouls)
            for f in o.fouls:
                by_section[f.section] = by_section.get(f.section, 0) + 1
            if is_pot_attempt(m.move, o.break_shot):
                attempts += 1
                if o.pocketed_legally and (o.turn_kept or o.winner == player):
                    made += 1
    low, high = wilson_interval(wins, n)
    return {
        "wins": wins, "win_rate": wins / n if n else 0.0, "win_rate_ci95": [low, high],
        "shots": shots, "pot_attempts": attempts, "pots_made": made,
        "pot_success": made / attempts if attempts else None,
        "pot_success_ci95": list(wilson_interval(made, attempts)) if attempts else None,
        "fouls": fouls, "fouls_per_rack": fouls / n if n else 0.0,
        "fouls_per_rack_by_section": {k: v / n for k, v in sorted(by_section.items())},
        "illegal_moves": illegal, "racks_lost_by_three_fouls": three_fouls,
        "racks_broken": breaks, "break_and_runs": runs,
        "break_and_run_rate": runs / breaks if breaks else None,
        "break_and_run_ci95": list(wilson_interval(runs, breaks)) if breaks else None,
        "wins_on_own_break": won_breaking,
        "win_rate_own_break": won_breaking / breaks if breaks else None,
        "win_rate_own_break_ci95": list(wilson_interval(won_breaking, breaks)) if breaks else None,
        "wins_on_opponent_break": won_receiving, "wins_on_opponent_break_of": n - breaks,
        "win_rate_opponent_break": won_receiving / (n - breaks) if n > breaks else None,
        "win_rate_opponent_break_ci95": (list(wilson_interval(won_receiving, n - breaks))
                                         if n > breaks else None),
        "moves": moves, "think_s": think,
        "moves_per_s_thinking": moves / think if think > 0 else None,
        "points": points, "innings": innings,
        "points_per_inning": points / innings if innings else None,
        "balls_pocketed_legally": balls, "balls_per_inning": balls / innings if innings else None,
    }


CSV_FIELDS = ("rack", "move", "player", "agent", "breaker", "break_shot", "call_ball",
              "call_pocket", "safety", "push_out", "placement_x", "placement_y", "speed",
              "angle_deg", "side", "vertical", "target", "pocket", "pot_attempt",
              "first_contact", "pocketed", "pocketed_legally", "fouls", "turn_kept",
              "points", "winner", "think_s")


def shot_rows(match: Match) -> list[dict[str, Any]]:
    """One row per shot of the match (``CSV_FIELDS``)."""
    rows = []
    for k, rack in enumerate(match.racks):
        for i, m in enumerate(rack.moves):
            o = m.outcome
            if o is None:
                continue
            move, shot = m.move, m.move.shot
            rows.append({
                "rack": k, "move": i, "player": m.player, "agent": match.names[m.player],
                "breaker": rack.breaker, "break_shot": o.break_shot, "call_ball": move.call.ball,
                "call_pocket": move.call.pocket, "safety": move.call.safety,
                "push_out": move.call.push_out,
                "placement_x": move.placement[0] if move.placement else None,
                "placement_y": move.placement[1] if move.placement else None,
                "speed": shot.speed, "angle_deg": shot.angle_deg, "side": shot.side,
                "vertical": shot.vertical, "target": move.target, "pocket": move.pocket,
                "pot_attempt": is_pot_attempt(move, o.break_shot),
                "first_contact": m.first_contact,
                "pocketed": " ".join(f"{b}:{p}" for b, p in o.pocketed),
                "pocketed_legally": " ".join(str(b) for b in o.pocketed_legally),
                "fouls": " ".join(o.foul_sections), "turn_kept": o.turn_kept,
                "points": o.points[m.player], "winner": o.winner, "think_s": round(m.think_s, 6),
            })
    return rows


def write_csv(match: Match, path: str) -> None:
    """Write ``shot_rows`` to ``path`` (atomically: a failed write leaves the previous file)."""
    with atomic_writer(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(shot_rows(match))


def _pot(s: dict[str, Any]) -> str:
    """Pot success with its 95% interval, as a percentage."""
    if s["pot_success"] is None:
        return "n/a"
    low, high = s["pot_success_ci95"]
    return f"{100 * s['pot_success']:.1f}% ({100 * low:.1f}-{100 * high:.1f}%)"


def format_references(references: dict[str, Any]) -> str:
    """The reference points as a small table: racks won with 95% intervals, pot success
    and fouls per rack against the same opponent on the same racks."""
    width = max(12, *(len(name) + 2 for name in references["agents"]))
    lines = [f"reference points: the same racks against {references['opponent']} (95% intervals)",
             f"  {'agent':<{width}}{'racks won':<28}{'pot success':<24}fouls/rack"]
    for name, s in references["agents"].items():
        low, high = s["win_rate_ci95"]
        won = f"{s['wins']} ({100 * s['win_rate']:.1f}%, {100 * low:.1f}-{100 * high:.1f}%)"
        lines.append(f"  {name:<{width}}{won:<28}{_pot(s):<24}{s['fouls_per_rack']:.2f}")
    return "\n".join(lines)


def format_summary(summary: dict[str, Any]) -> str:
    """A few readable lines per agent, then the reference points when there are any."""
    lines = [f"{summary['game']}: {summary['racks']} racks, noise {summary['noise']}, "
             f"seed {summary['seed']}, {summary['draws']} drawn, "
             f"{summary['shots_per_rack']:.1f} shots per rack"]
    if "protocol" in summary:
        lines.insert(0, summary["protocol"])
    for name, s in summary["agents"].items():
        low, high = s["win_rate_ci95"]
        pot = _pot(s)
        bnr, own, other = break_figures(s)
        speed = "n/a" if s["moves_per_s_thinking"] is None else f"{s['moves_per_s_thinking']:.1f}"
        lines.append(f"  {name}: won {s['wins']} ({100 * s['win_rate']:.1f}%, 95% CI "
                     f"{100 * low:.1f}-{100 * high:.1f}%), pot success {pot} of "
                     f"{s['pot_attempts']} attempts, {s['fouls_per_rack']:.2f} fouls per rack "
                     f"{_sections(s['fouls_per_rack_by_section'])}, "
                     f"{s['racks_lost_by_three_fouls']} racks lost by three fouls, break and run {bnr} "
                     f"of its breaks, won {own} of its breaks and {other} of the opponent's, "
                     f"{speed} moves/s thinking, "
                     f"{s['illegal_moves']} illegal moves")
        if s["points"]:
            lines.append(f"    {s['points']} points in {s['innings']} innings "
                         f"({s['points_per_inning']:.2f} per inning)")
    if summary.get("references"):
        lines.append(format_references(summary["references"]))
    return "\n".join(lines)


def _sections(by_section: dict[str, float]) -> str:
    if not by_section:
        return ""
    return "(" + ", ".join(f"{k}: {v:.2f}" for k, v in by_section.items()) + ")"
