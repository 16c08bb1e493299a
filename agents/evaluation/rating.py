"""Ratings on the Elo scale: a Bradley-Terry fit over racks played under the NineBall-v1
protocol, the ladder's own ratings, and ``rate`` for any agent against the ladder.

A rack of 9-ball is won or lost (a rack stopped at the move cap or a stalemate counts as a
draw, half a win each). The Bradley-Terry model gives player i a rating r_i with

    P(i wins a rack against j) = 1 / (1 + 10 ** ((r_j - r_i) / 400)),

the Elo scale: 400 / ln 10 rating points per logit, so 200 points apart is a 76% win rate.
``fit_ratings`` finds the maximum-likelihood ratings with every pairing also counting
``PRIOR_DRAWS`` virtual drawn rack (BayesElo's prior), which keeps the rating of a player who
won or lost every rack finite; ratings are anchored at one named player (the ladder:
``ANCHOR`` = ``ANCHOR_RATING``) or, for a new agent, fitted with the others held fixed. The
95% interval is the 2.5 and 97.5 percentiles of the fit over ``bootstrap`` resamplings of
the racks of every pairing (seeded).

The ladder (``LADDER_RUNGS``) is rated by one round robin (``play_round_robin``:
``benchmarks/rating_ladder.py``) and shipped as ``ladder_ratings.json`` beside this module.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from poolgym.files import atomic_writer

from poolgym.agents.evaluation.evaluate import run_match
from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.evaluation.protocol import DEFAULT_ENV, protocol

# The rungs rated by the round robin, in the order of the opponent ladder, then the
# lookahead reader and the pretrained agent.
LADDER_RUNGS = ("random", "legal-random", "fixed", "bot:weak", "bot:fast", "bot:normal", "bot:strong",
                "bot:pro", "bot:pro-deep", "lookahead-greedy", "pretrained:nine_ball")
ANCHOR, ANCHOR_RATING = "legal-random", 1000.0
ELO_PER_LOGIT = 400.0 / math.log(10.0)
PRIOR_DRAWS = 1.0
LADDER_FILE = Path(__file__).with_name("ladder_ratings.json")


# --- racks -------------------------------------------------------------------------------

def rack_rows(match, offset: int) -> list[dict[str, Any]]:
    """One row per rack of a ``Match``: its number (``offset`` + index), the breaker and
    the winner (0 for A, 1 for B; the winner None for a draw), each side's moves and
    thinking seconds."""
    rows = []
    for i, rack in enumerate(match.racks):
        moves, think = [0, 0], [0.0, 0.0]
        for m in rack.moves:
            moves[m.player] += 1
            think[m.player] += m.think_s
        rows.append({"rack": offset + i, "breaker": rack.breaker, "winner": rack.winner,
                     "moves": moves, "think_s": [round(t, 6) for t in think]})
    return rows


def is_break_and_run(row: dict[str, Any]) -> bool:
    """Whether the breaker won the rack of a ``rack_rows`` row without the opponent making a
    move (a shot, an illegal move or a decision)."""
    return row["winner"] == row["breaker"] and row["moves"][1 - row["breaker"]] == 0


def score(rows: Sequence[dict[str, Any]]) -> tuple[float, int]:
    """A's score over racks (a win 1, a draw 1/2) and the number of racks."""
    return sum(1.0 if r["winner"] == 0 else 0.5 if r["winner"] is None else 0.0 for r in rows), len(rows)


def _file_name(a: str, b: str) -> str:
    return f"{a}--{b}".replace(":", "_") + ".json"


class AgentCache:
    """The agents of a protocol, made once per (spec, seed): a pretrained model is loaded
    once, and ``run_match`` reseeds agents that can be reseeded for every rack."""

    def __init__(self, env_id: str = DEFAULT_ENV) -> None:
        self.protocol = protocol(env_id)
        self._agents: dict[tuple[str, int], Any] = {}

    def get(self, spec: str, seed: int):
        key = (spec, seed)
        if key not in self._agents:
            p = self.protocol
            self._agents[key] = make_agent(spec, p.rules, seed=seed, noise=p.noise, max_speed=p.max_speed,
                                           elevation=p.elevation)
        return self._agents[key]

    def play(self, a, b, names: tuple[str, str], racks: range, seed: int):
        """``run_match`` of agents ``a`` and ``b`` on racks ``racks`` under the protocol."""
        p = self.protocol
        return run_match(p.rules, [a, b], names, racks, seed=seed, noise=p.noise)


def play_round_robin(folder: str | Path, rungs: Sequence[str] = LADDER_RUNGS, racks: int = 100,
                     seed: int = 0, chunk: int = 10, deadline: float | None = None,
                     env_id: str = DEFAULT_ENV, log: Callable[[str], None] | None = None) -> dict[str, int]:
    """Every pairing of ``rungs`` (each once, the earlier rung A: it breaks the even racks)
    plays ``racks`` racks, in rounds of ``chunk`` racks of every pairing in turn, each
    pairing's racks written to ``folder/<a>--<b>.json`` after each chunk. Resumable: a
    pairing's racks already in its file are not played again. ``deadline`` (a
    ``time.time()``) stops it after the chunk that passes it, so pairings then differ by
    at most one chunk. Rack k of a pairing is ``run_match``'s rack k of seed ``seed``, A
    seeded ``seed``, B ``seed + 1``. Returns the racks each pairing has."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    cache = AgentCache(env_id)
    pairs = [(a, b) for i, a in enumerate(rungs) for b in rungs[i + 1:]]
    done = {}
    for a, b in pairs:
        path = folder / _file_name(a, b)
        done[a, b] = json.loads(path.read_text()) if path.is_file() else {
            "a": a, "b": b, "seed": seed, "env": env_id, "seconds": 0.0, "racks": []}
        if done[a, b]["seed"] != seed or done[a, b]["env"] != env_id:
            raise ValueError(f"{path} was played with seed {done[a, b]['seed']} on {done[a, b]['env']}, "
                             f"not seed {seed} on {env_id}")
    for start in range(0, racks, chunk):
        for a, b in pairs:
            entry = done[a, b]
            have = len(entry["racks"])
            if have >= min(start + chunk, racks):
                continue
            numbers = range(have, min(start + chunk, racks))
            started = time.perf_counter()
            match = cache.play(cache.get(a, seed), cache.get(b, seed + 1), (a, b), numbers, seed)
            entry["racks"] += rack_rows(match, numbers.start)
            entry["seconds"] = round(entry["seconds"] + time.perf_counter() - started, 3)
            with atomic_writer(folder / _file_name(a, b)) as f:
                json.dump(entry, f)
            if log is not None:
                s, n = score(entry["racks"])
                log(f"{a} vs {b}: {s:g}/{n} racks, {entry['seconds']:.0f} s")
            if deadline is not None and time.time() > deadline:
                return {f"{a} vs {b}": len(done[a, b]["racks"]) for a, b in pairs}
    return {f"{a} vs {b}": len(done[a, b]["racks"]) for a, b in pairs}


def read_round_robin(folder: str | Path, rungs: Sequence[str] = LADDER_RUNGS) -> list[dict[str, Any]]:
    """The pairings ``play_round_robin`` wrote in ``folder`` (those with racks)."""
    folder = Path(folder)
    out = []
    for i, a in enumerate(rungs):
        for b in rungs[i + 1:]:
            path = folder / _file_name(a, b)
            if path.is_file():
                entry = json.loads(path.read_text())
                if entry["racks"]:
                    out.append(entry)
    return out


# --- the Bradley-Terry fit --------------------------------------------------------------

@dataclass(frozen=True)
class Pairing:
    """Racks between players ``a`` and ``b``: ``a``'s wins, the draws and ``a``'s losses."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int

    @property
    def racks(self) -> int:
        return self.wins + self.draws + self.losses

    @classmethod
    def from_rows(cls, a: str, b: str, rows: Sequence[dict[str, Any]]) -> "Pairing":
        """The pairing of ``rack_rows``' rows (winner 0: ``a``)."""
        winners = [r["winner"] for r in rows]
        return cls(a, b, winners.count(0), winners.count(None), winners.count(1))


def fit_ratings(pairings: Sequence[Pairing], fixed: dict[str, float] | None = None,
                anchor: tuple[str, float] | None = None, prior_draws: float = PRIOR_DRAWS) -> dict[str, float]:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale of every player in
    ``pairings``: those in ``fixed`` keep their ratings, ``anchor`` (a name and its rating)
    pins one more; each pairing counts ``prior_draws`` extra drawn racks. Newton's method on
    the concave log-likelihood. A player connected to no fixed or anchored one (its rating
    would be undetermined) is a ``ValueError`` naming it."""
    fixed = dict(fixed or {})
    if anchor is not None:
        fixed[anchor[0]] = float(anchor[1])
    names = sorted({p.a for p in pairings} | {p.b for p in pairings})
    free = [n for n in names if n not in fixed]
    index = {n: i for i, n in enumerate(free)}
    if not fixed:
        raise ValueError("a Bradley-Terry fit needs an anchor or fixed ratings: ratings are relative")
    _check_connected(pairings, free, fixed)
    x = np.zeros(len(free))  # free ratings in logits relative to the fixed ones
    fixed_logits = {n: r / ELO_PER_LOGIT for n, r in fixed.items()}
    if free:
        x[:] = np.mean(list(fixed_logits.values()))
    a_idx = np.array([index.get(p.a, -1) for p in pairings])
    b_idx = np.array([index.get(p.b, -1) for p in pairings])
    a_fix = np.array([fixed_logits.get(p.a, 0.0) for p in pairings])
    b_fix = np.array([fixed_logits.get(p.b, 0.0) for p in pairings])
    n = np.array([p.racks + prior_draws for p in pairings], dtype=float)
    s = np.array([p.wins + 0.5 * (p.draws + prior_draws) for p in pairings], dtype=float)
    for _ in range(100):
        if not free:
            break
        ra = np.where(a_idx >= 0, x[np.maximum(a_idx, 0)], a_fix)
        rb = np.where(b_idx >= 0, x[np.maximum(b_idx, 0)], b_fix)
        p = 1.0 / (1.0 + np.exp(rb - ra))
        residual, weight = s - n * p, n * p * (1.0 - p)
        grad = np.zeros(len(free))
        hess = np.zeros((len(free), len(free)))
        for k in range(len(pairings)):
            i, j = a_idx[k], b_idx[k]
            if i >= 0:
                grad[i] += residual[k]
                hess[i, i] += weight[k]
            if j >= 0:
                grad[j] -= residual[k]
                hess[j, j] += weight[k]
            if i >= 0 and j >= 0:
                hess[i, j] -= weight[k]
                hess[j, i] -= weight[k]
        step = np.linalg.solve(hess, grad)
        # Damped where far from the optimum (a lopsided pairing's first steps overshoot).
        step *= min(1.0, 2.0 / max(np.max(np.abs(step)), 1e-300))
        x += step
        if np.max(np.abs(step)) < 1e-9:
            break
    out = {name: float(r) for name, r in fixed.items() if name in names}
    out.update({name: float(x[i] * ELO_PER_LOGIT) for name, i in index.items()})
    return out


def _check_connected(pairings: Sequence[Pairing], free: Sequence[str], fixed: dict[str, float]) -> None:
    reached = set(fixed)
    grew = True
    while grew:
        grew = False
        for p in pairings:
            if (p.a in reached) != (p.b in reached):
                reached |= {p.a, p.b}
                grew = True
    lost = [n for n in free if n not in reached]
    if lost:
        raise ValueError(f"no racks connect {lost} to a player of known rating: their ratings are undetermined")


def resample(pairings: Sequence[Pairing], rng: np.random.Generator) -> list[Pairing]:
    """The pairings with each one's racks drawn again with replacement (the bootstrap)."""
    out = []
    for p in pairings:
        w, d, l = rng.multinomial(p.racks, np.array([p.wins, p.draws, p.losses]) / p.racks)
        out.append(Pairing(p.a, p.b, int(w), int(d), int(l)))
    return out


def bootstrap(pairings: Sequence[Pairing], fixed: dict[str, float] | None = None,
              anchor: tuple[str, float] | None = None, samples: int = 1000, seed: int = 0) -> dict[str, np.ndarray]:
    """``fit_ratings`` over ``samples`` resamplings of the racks (``resample``, generator
    seeded ``seed``): every player's ratings, one per resampling."""
    rng = np.random.default_rng(seed)
    fits = [fit_ratings(resample(pairings, rng), fixed, anchor) for _ in range(samples)]
    return {name: np.array([f[name] for f in fits]) for name in fits[0]}


def interval(draws: np.ndarray) -> list[float]:
    """The 95% percentile interval of bootstrap draws."""
    low, high = np.percentile(draws, [2.5, 97.5])
    return [float(low), float(high)]


def win_probability(rating: float, other: float) -> float:
    """The Bradley-Terry chance of winning a rack against a player rated ``other``."""
    return 1.0 / (1.0 + 10.0 ** ((other - rating) / 400.0))


# --- the ladder ---------------------------------------------------------------------------

LADDER_BOOTSTRAP = 1000
# A ladder file is small (a rating per rung and the pairings' counts).
LADDER_LIMIT = 1 << 20


def fit_ladder(folder: str | Path, command: str, rungs: Sequence[str] = LADDER_RUNGS,
               samples: int = LADDER_BOOTSTRAP, seed: int = 0) -> dict[str, Any]:
    """The ladder's ratings from the round robin in ``folder`` (``play_round_robin``):
    ``ANCHOR`` at ``ANCHOR_RATING``, 95% bootstrap intervals (``samples`` resamplings,
    seeded ``seed``), each rung's seconds a move and breaks run out over all its racks, the
    pairings' counts, and per pair of rungs adjacent in rating the bootstrap interval of
    their difference (``separated`` when it excludes 0) beside their head-to-head result.
    ``command`` is recorded as the command that played the racks."""
    from poolgym.agents.evaluation.evaluate import wilson_interval

    entries = read_round_robin(folder, rungs)
    if not entries:
        raise ValueError(f"{folder}: no round-robin racks")
    pairings = [Pairing.from_rows(e["a"], e["b"], e["racks"]) for e in entries]
    anchor = (ANCHOR, ANCHOR_RATING)
    point = fit_ratings(pairings, anchor=anchor)
    draws = bootstrap(pairings, anchor=anchor, samples=samples, seed=seed)
    moves = {n: 0 for n in point}
    think = {n: 0.0 for n in point}
    breaks = {n: [0, 0] for n in point}
    for e in entries:
        for side, name in enumerate((e["a"], e["b"])):
            for r in e["racks"]:
                moves[name] += r["moves"][side]
                think[name] += r["think_s"][side]
                if r["breaker"] == side:
                    breaks[name][0] += is_break_and_run(r)
                    breaks[name][1] += 1
    ratings = {n: {"rating": round(point[n], 1), "ci95": [round(v, 1) for v in interval(draws[n])],
                   "seconds_per_move": think[n] / moves[n] if moves[n] else None,
                   "break_and_run": breaks[n], "racks": sum(p.racks for p in pairings if n in (p.a, p.b))}
               for n in sorted(point, key=point.get)}
    order = sorted(point, key=point.get, reverse=True)
    by_pair = {(p.a, p.b): p for p in pairings}
    adjacent = []
    for high, low in zip(order, order[1:]):
        difference = draws[high] - draws[low]
        wins, n = None, None
        if (high, low) in by_pair:
            p = by_pair[high, low]
            wins, n = p.wins + 0.5 * p.draws, p.racks
        elif (low, high) in by_pair:
            p = by_pair[low, high]
            wins, n = p.losses + 0.5 * p.draws, p.racks
        adjacent.append({"higher": high, "lower": low, "difference": round(point[high] - point[low], 1),
                         "ci95": [round(v, 1) for v in interval(difference)],
                         "separated": bool(np.percentile(difference, 2.5) > 0),
                         "head_to_head": None if n is None else {
                             "score": wins, "racks": n,
                             "ci95": [round(v, 3) for v in wilson_interval(round(wins), n)]}})
    played = protocol(entries[0]["env"])
    return {"env": entries[0]["env"], "protocol": played.describe(), "seed": entries[0]["seed"],
            "command": command, "anchor": {"name": ANCHOR, "rating": ANCHOR_RATING},
            "prior_draws": PRIOR_DRAWS, "bootstrap": {"samples": samples, "seed": seed},
            "ratings": ratings, "adjacent": adjacent,
            "pairings": [{"a": e["a"], "b": e["b"], "wins": p.wins, "draws": p.draws, "losses": p.losses,
                          "racks": p.racks, "seconds": e["seconds"]} for e, p in zip(entries, pairings)]}


def write_ladder(ladder: dict[str, Any], path: str | Path = LADDER_FILE) -> None:
    """Write a ladder (``fit_ladder``) as JSON, atomically."""
    with atomic_writer(path) as f:
        json.dump(ladder, f, indent=1)
        f.write("\n")


def read_ladder(path: str | Path = LADDER_FILE) -> dict[str, Any]:
    """A ladder file (``fit_ladder``'s JSON), read bounded and checked: ``ratings`` maps
    each rung's name to an object with a finite ``rating``. Anything else is a one-line
    ``ValueError`` naming the file and the field."""
    from poolgym.files import read_bounded

    try:
        ladder = json.loads(read_bounded(path, LADDER_LIMIT, "a ladder"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a ladder file: invalid JSON ({exc})") from None
    ratings = ladder.get("ratings") if isinstance(ladder, dict) else None
    if not isinstance(ratings, dict) or not ratings:
        raise ValueError(f"{path}: a ladder file has 'ratings', an object of rung names to their ratings")
    for name, row in ratings.items():
        value = row.get("rating") if isinstance(row, dict) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{path}: ratings.{name}.rating must be a finite number, got {value!r}")
    return ladder


def ladder_ratings(ladder: dict[str, Any] | None = None) -> dict[str, float]:
    """Each rung's rating in ``ladder`` (the shipped ladder when None)."""
    ladder = read_ladder() if ladder is None else ladder
    return {name: float(row["rating"]) for name, row in ladder["ratings"].items()}


# --- rating an agent --------------------------------------------------------------------

# The first racks of ``rate`` go to every rung but ``random`` (whose rating only says that
# it won almost nothing): ``PROBE_RACKS`` each.
PROBE_RACKS = 4
# Then rounds of ``ROUND_RACKS`` racks against each of the ``ROUND_RUNGS`` rungs whose
# results are least certain: those the current fit gives the nearest to an even chance.
ROUND_RACKS, ROUND_RUNGS = 10, 3
RATE_BOOTSTRAP = 500
# The rated agent's name in the fit (a rung rated again must not be taken for itself).
RATED = "(rated agent)"


@dataclass
class Rating:
    """An agent's rating against the ladder: the fit, its 95% bootstrap interval, the racks
    against each rung (``Pairing``, the agent as ``a``, named ``RATED``), the racks and seconds in all, and
    the agent's seconds a move."""

    agent: str
    rating: float
    ci95: tuple[float, float]
    pairings: list[Pairing]
    racks: int
    seconds: float
    seconds_per_move: float | None
    seed: int
    schedule: list[tuple[str, int]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "rating": round(self.rating, 1), "ci95": [round(v, 1) for v in self.ci95],
                "racks": self.racks, "seconds": round(self.seconds, 1), "seconds_per_move": self.seconds_per_move,
                "seed": self.seed, "against": [{"rung": p.b, "wins": p.wins, "draws": p.draws, "losses": p.losses}
                                               for p in self.pairings],
                "schedule": [list(s) for s in self.schedule]}

    def describe(self) -> str:
        """A few lines: the rating, its interval, the racks and the time, each rung's result."""
        lines = [f"{self.agent}: {self.rating:.0f} [{self.ci95[0]:.0f}, {self.ci95[1]:.0f}] (95% bootstrap "
                 f"interval, the ladder held fixed), {self.racks} racks in {self.seconds:.0f} s, seed {self.seed}"]
        for p in self.pairings:
            lines.append(f"  vs {p.b}: {p.wins} won, {p.losses} lost, {p.draws} drawn")
        return "\n".join(lines)


def rate(policy, games: int = 300, seed: int = 0, env_id: str = DEFAULT_ENV, ladder: dict[str, Any] | None = None,
         name: str | None = None, action_mode: str | None = None, obs_mode: str | None = None,
         progress: Callable[[int, int], None] | None = None) -> Rating:
    """Rate ``policy`` on the ladder in ``games`` racks under the protocol of ``env_id``.

    ``policy`` is an agent spec (``poolgym.agents.evaluation.loading.make_agent``: a rung,
    ``path.zip``, ``pkg.mod:name``), an agent with ``choose(state)``, or a policy
    ``policy(obs, info) -> action`` (seen through ``action_mode`` / ``obs_mode``, default raw
    and dict). The schedule (``PROBE_RACKS``, ``ROUND_RACKS``, ``ROUND_RUNGS``) is fixed
    by the seed: the racks against each rung are ``run_match``'s racks 0, 1, ... of seed
    ``seed`` with the agent breaking the even ones, the rungs seeded ``seed + 1``, so the
    same arguments give the same rating. The fit holds the ladder's ratings fixed
    (``ladder``, the shipped one by default), so the interval is that of the agent's own
    racks. ``progress(done, games)`` after each batch of racks."""
    from poolgym.agents.evaluation.loading import PolicyAgent

    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive whole number of racks, got {games!r}")
    fixed = ladder_ratings(ladder)
    panel = [r for r in sorted(fixed, key=fixed.get) if r != "random"]
    cache = AgentCache(env_id)
    p = cache.protocol
    if isinstance(policy, str):
        label = name or policy
        agent = make_agent(policy, p.rules, seed=seed, noise=p.noise, action_mode=action_mode, obs_mode=obs_mode,
                           max_speed=p.max_speed, elevation=p.elevation)
    elif hasattr(policy, "choose"):
        label, agent = name or type(policy).__name__, policy
    elif callable(policy):
        label = name or getattr(policy, "__name__", "policy")
        agent = PolicyAgent(policy, p.rules, action_mode or "raw", obs_mode or "dict", max_speed=p.max_speed)
    else:
        raise ValueError(f"rate takes an agent spec, an agent with choose(state) or a policy(obs, info), "
                         f"got {policy!r}")
    rows: dict[str, list[dict[str, Any]]] = {r: [] for r in panel}
    schedule: list[tuple[str, int]] = []
    started = time.perf_counter()
    done = 0

    def play(rung: str, racks: int) -> None:
        nonlocal done
        have = len(rows[rung])
        match = cache.play(agent, cache.get(rung, seed + 1), (label, rung), range(have, have + racks), seed)
        rows[rung] += rack_rows(match, have)
        schedule.append((rung, racks))
        done += racks
        if progress is not None:
            progress(done, games)

    for rung in panel:
        if done >= games:
            break
        play(rung, min(PROBE_RACKS, games - done))
    while done < games:
        estimate = _fit_one(rows, fixed)
        certainty = sorted(panel, key=lambda r: (abs(win_probability(estimate, fixed[r]) - 0.5), panel.index(r)))
        for rung in certainty[:ROUND_RUNGS]:
            if done < games:
                play(rung, min(ROUND_RACKS, games - done))
    seconds = time.perf_counter() - started
    pairings = [Pairing.from_rows(RATED, r, rows[r]) for r in panel if rows[r]]
    estimate, ci95 = rate_pairings(pairings, fixed, seed)
    moves = sum(r["moves"][0] for rs in rows.values() for r in rs)
    think = sum(r["think_s"][0] for rs in rows.values() for r in rs)
    return Rating(label, estimate, ci95, pairings, done, seconds,
                  think / moves if moves else None, seed, schedule)


def rate_pairings(pairings: Sequence[Pairing], fixed: dict[str, float], seed: int = 0,
                  samples: int = RATE_BOOTSTRAP) -> tuple[float, tuple[float, float]]:
    """The rating of ``RATED`` (every pairing's ``a``) against opponents of ``fixed``
    ratings, and its 95% bootstrap interval (``samples`` resamplings, seeded ``seed``)."""
    known = {p.b: fixed[p.b] for p in pairings}
    draws = bootstrap(pairings, fixed=known, samples=samples, seed=seed)[RATED]
    low, high = interval(draws)
    return fit_ratings(pairings, fixed=known)[RATED], (low, high)


def _fit_one(rows: dict[str, list[dict[str, Any]]], fixed: dict[str, float]) -> float:
    pairings = [Pairing.from_rows(RATED, r, rs) for r, rs in rows.items() if rs]
    return fit_ratings(pairings, fixed={r: fixed[r] for r in rows})[RATED]


# --- the figure -----------------------------------------------------------------------------

# Professional 9-ball players break and run 25-28% of racks (docs/bots.md cites the sources).
PROFESSIONAL_BREAK_AND_RUN = (0.25, 0.28)


def plot_ladder(ladder: dict[str, Any] | None = None, extra: dict[str, Rating] | None = None):
    """A matplotlib figure of the ladder on the rating scale: each rung's rating with its
    95% interval (left) and, on the same rows, its break-and-run rate over its breaks with
    the Wilson interval beside the professionals' 25-28% (right). ``extra`` draws rated
    agents (``rate``'s results, by label) on the left panel in another colour."""
    import matplotlib.pyplot as plt

    from poolgym.agents.evaluation.evaluate import wilson_interval

    ladder = read_ladder() if ladder is None else ladder
    rows = [(name, row["rating"], row["ci95"], row.get("break_and_run")) for name, row in ladder["ratings"].items()]
    rows += [(label, r.rating, list(r.ci95), None) for label, r in (extra or {}).items()]
    rows.sort(key=lambda row: row[1])
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 0.4 * len(rows) + 1.6), sharey=True,
                                         gridspec_kw={"width_ratios": [3, 2]})
    for y, (name, value, (low, high), breaks) in enumerate(rows):
        colour = "tab:orange" if extra and name in extra else "tab:blue"
        left.errorbar(value, y, xerr=[[value - low], [high - value]], fmt="o", color=colour, capsize=3)
        if breaks and breaks[1]:
            share, (b_low, b_high) = breaks[0] / breaks[1], wilson_interval(*breaks)
            right.errorbar(share, y, xerr=[[max(0.0, share - b_low)], [max(0.0, b_high - share)]], fmt="o",
                           color="tab:blue", capsize=3)
    left.set_yticks(range(len(rows)), [row[0] for row in rows])
    left.set_xlabel(f"rating (Elo scale, {ladder['anchor']['name']} = {ladder['anchor']['rating']:g})")
    left.set_title("rating, 95% bootstrap interval")
    left.grid(axis="x", alpha=0.3)
    right.axvspan(*PROFESSIONAL_BREAK_AND_RUN, color="tab:red", alpha=0.25, label="professional 9-ball (25-28%)")
    right.set_xlabel("break and run, share of its breaks")
    right.set_title("break and run, 95% Wilson interval")
    right.legend(loc="lower right", fontsize=8)
    right.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    return figure
