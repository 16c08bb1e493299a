"""``poolgym soak``: many random shots and games, checking every invariant.

Physics (``run_physics_soak``): half the shots break or play from a 9-ball rack with the
cue ball anywhere, half from random layouts of 1-15 object balls; speeds up to 12 m/s, any
direction, random spin. Each result is checked with
``poolgym.physics.invariants.shot_violations`` (balls end exactly once: at rest, pocketed or
off the table with their ``OffTable`` event). With ``random_tables`` the table changes
every ``TABLE_EVERY`` shots to one drawn from the valid geometry range (``random_table``).
With ``max_elevation`` each shot's cue elevation is drawn uniformly from [0, max_elevation]
degrees, and the report counts the flights and the balls that left the table.

Games (``run_game_soak``): random-vs-random games through every registered game
environment (every id made by ``PoolEnv``), each move checked for the physics invariants
and the rules' state invariants (``poolgym.rules.state_violations``), each observation
against the observation space; then random games through every ruleset with the rules
engine's own checker (``check_ruleset``).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import replace
from typing import Callable

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401  (registers the environments)
from poolgym.envs import MoveRecord
from poolgym import events as ev
from poolgym.physics import Shot, Simulator
from poolgym.physics.invariants import MAX_OVERLAP, random_layout, random_shot, shot_violations
from poolgym.rules import RulesetCheckError, available_rulesets, check_ruleset, get_ruleset, state_violations
from poolgym.table import Table

GAME_ENTRY_POINT = "poolgym.envs.pool_env:PoolEnv"
# What counts as a failure in a game-soak report, per environment and per ruleset.
PHYSICS_FAILURES = ("crashes", "escapes", "overlaps", "lost_balls", "non_finite", "log_mismatches",
                    "off_table_events")
GAME_FAILURES = PHYSICS_FAILURES + ("rule_violations", "invalid_observations")
_EXAMPLES = 5
# Shots played on each random table before the next is drawn.
TABLE_EVERY = 50
# The ranges random tables are drawn from (uniformly, per field): every pool, bar and
# snooker-sized table with pockets from tight to generous. A draw the Table refuses (its
# geometry checks) is drawn again.
RANDOM_TABLE_RANGES = {
    "length": (1.8, 3.7), "ball_radius": (0.026, 0.031), "ball_mass": (0.14, 0.21),
    "corner_mouth": (0.09, 0.15), "side_mouth": (0.10, 0.16),
    "corner_jaw_angle_deg": (115.0, 165.0), "side_jaw_angle_deg": (92.0, 125.0),
    "corner_jaw_length": (0.02, 0.12), "side_jaw_length": (0.02, 0.10),
    "corner_drop_depth": (0.001, 0.05), "side_drop_depth": (0.001, 0.03),
    "corner_hole_radius": (0.04, 0.09), "side_hole_radius": (0.04, 0.09),
}


def random_table(rng: np.random.Generator) -> tuple[Table, int]:
    """A table drawn from ``RANDOM_TABLE_RANGES`` (width 0.45-0.55 of the length, cushion
    nose at 55-75% of the ball's height) that the geometry checks accept, and how many draws
    they refused first."""
    refused = 0
    while True:
        values = {name: float(rng.uniform(low, high)) for name, (low, high) in RANDOM_TABLE_RANGES.items()}
        values["width"] = values["length"] * float(rng.uniform(0.45, 0.55))
        values["cushion_height"] = 2.0 * values["ball_radius"] * float(rng.uniform(0.55, 0.75))
        try:
            return Table(name="random", **values), refused
        except ValueError:
            refused += 1


def _rack_layout(table: Table, rng: np.random.Generator) -> dict[int, tuple[float, float]]:
    positions = table.rack_positions((1, 2, 3, 2, 1))
    others = [2, 3, 4, 5, 6, 7, 8]
    rng.shuffle(others)
    order = [1, *others[:3], 9, *others[3:]]
    layout = dict(zip(order, positions))
    cue = random_layout(table, 0, rng)[0]
    while any(np.hypot(cue[0] - x, cue[1] - y) < 2 * table.ball_radius for x, y in positions):
        cue = random_layout(table, 0, rng)[0]
    layout[0] = cue
    return layout


def run_physics_soak(shots: int, seed: int = 0, table_name: str = "9ft", random_tables: bool = False,
                     progress: Callable[[int, int], None] | None = None,
                     max_elevation: float | None = None) -> dict:
    """Simulate ``shots`` random shots and count every kind of failure; with
    ``random_tables``, on a new random table every ``TABLE_EVERY`` shots; with
    ``max_elevation`` (degrees, in [0, ``Shot.MAX_ELEVATION_DEG``]) each shot's cue
    elevation drawn uniformly from [0, max_elevation], after the rest of the shot, so that
    without it the soak draws the same numbers as ever. ``progress(done, shots)`` is called
    after each shot."""
    if max_elevation is not None and (
            isinstance(max_elevation, bool) or not isinstance(max_elevation, (int, float))
            or not 0.0 <= max_elevation <= Shot.MAX_ELEVATION_DEG):
        raise ValueError(f"max_elevation must be in [0, {Shot.MAX_ELEVATION_DEG:g}] degrees, "
                         f"got {max_elevation!r}")
    table = Table.preset(table_name)
    sim = Simulator(table)
    rng = np.random.default_rng(seed)
    failures: Counter[str] = Counter()
    leaving: Counter[str] = Counter()
    examples: list[str] = []
    events = 0
    max_events = 0
    tables = refused = 0
    elevated = max_elevation is not None
    start = time.perf_counter()
    for i in range(shots):
        if random_tables and i % TABLE_EVERY == 0:
            table, n_refused = random_table(rng)
            sim = Simulator(table)
            tables, refused = tables + 1, refused + n_refused
        layout = _rack_layout(table, rng) if i % 2 == 0 else random_layout(table, int(rng.integers(1, 16)), rng)
        shot = random_shot(rng)
        if elevated:
            shot = replace(shot, elevation_deg=float(rng.uniform(0.0, max_elevation)))
        try:
            # With elevation the motion phases show the flights the report counts.
            result = sim.simulate(layout, shot, trajectories=elevated)
        except Exception as exc:  # a crash is what the soak is looking for
            failures["crash"] += 1
            if len(examples) < 5:
                examples.append(f"shot {i}: {type(exc).__name__}: {exc}; layout {layout}; {shot}; "
                                f"{_table_text(table)}")
        else:
            events += len(result.events)
            max_events = max(max_events, len(result.events))
            for problem in shot_violations(table, layout, result):
                failures[_kind(problem)] += 1
                if len(examples) < 5:
                    examples.append(f"shot {i}: {problem}; layout {layout}; {shot}; {_table_text(table)}")
            if elevated:
                leaving.update(_flights_and_exits(table, result))
        if progress is not None:
            progress(i + 1, shots)
    elapsed = time.perf_counter() - start
    report = {
        "shots": shots, "seed": seed, "table": "random" if random_tables else table_name,
        "random_tables": tables, "refused_table_draws": refused,
        "crashes": failures["crash"], "escapes": failures["escape"], "overlaps": failures["overlap"],
        "lost_balls": failures["conservation"], "non_finite": failures["non-finite"],
        "log_mismatches": failures["log"], "off_table_events": failures["off-table"],
        "seconds": round(elapsed, 2),
        "shots_per_s": round(shots / max(elapsed, 1e-9), 1), "mean_events": round(events / max(1, shots), 1),
        "max_events": max_events, "examples": examples,
    }
    if elevated:
        report["max_elevation"] = max_elevation
        report.update({key: leaving[key] for key in FLIGHT_COUNTS})
    return report


# What an elevated soak counts besides failures (``_flights_and_exits``).
RAIL_EDGE_TOLERANCE = 1e-9
FLIGHT_COUNTS = ("shots_with_flights", "shots_with_object_ball_flights", "shots_with_balls_off",
                 "cue_balls_off", "object_balls_off", "balls_stopped_on_rail_tops",
                 "pocketed_from_flight")


def _flights_and_exits(table: Table, result) -> Counter[str]:
    """The ``FLIGHT_COUNTS`` of one shot simulated with trajectories."""
    counts: Counter[str] = Counter()
    flying = {ball for ball, phases in result.trajectories.items()
              if any(p.mode == "airborne" for p in phases)}
    counts["shots_with_flights"] = bool(flying)
    counts["shots_with_object_ball_flights"] = bool(flying - {0})
    counts["shots_with_balls_off"] = bool(result.off_table)
    counts["cue_balls_off"] = int(0 in result.off_table)
    counts["object_balls_off"] = len(set(result.off_table) - {0})
    # A ball that left anywhere but a rail's outer edge (up to round-off) stopped on a rail top.
    L, W, edge = table.length, table.width, table.rail_width - RAIL_EDGE_TOLERANCE
    for e in result.events:
        if isinstance(e, ev.OffTable):
            x, y = e.position
            counts["balls_stopped_on_rail_tops"] += -edge < x < L + edge and -edge < y < W + edge
    counts["pocketed_from_flight"] = sum(1 for ball in result.pocketed
                                         if result.trajectories[ball][-1].mode == "airborne")
    return counts


def _table_text(table: Table) -> str:
    """The table of an example, in full when it is not a preset (to reproduce it)."""
    if table.name != "random":
        return f"table {table.name}"
    from dataclasses import asdict

    return f"table {asdict(table)}"


def game_env_ids() -> list[str]:
    """Every registered environment id that plays a game (made by ``PoolEnv``)."""
    return sorted(env_id for env_id, spec in gym.registry.items() if spec.entry_point == GAME_ENTRY_POINT)


def run_game_soak(games: int, seed: int = 0, env_ids: list[str] | None = None,
                  max_steps: int | None = None, progress: Callable[[str], None] | None = None,
                  elevation: bool = False, action_mode: str | None = None) -> dict:
    """Play ``games`` random-vs-random games in each game environment and ``games`` random
    games through each ruleset's checker; count every kind of failure. With ``elevation``
    the environments are made with ``elevation=True``: the random actions raise the cue
    anywhere in [0, 80] degrees, so balls leave the table and the rules judge them. With
    ``action_mode`` (e.g. ``"choice_discrete"``) they are made in that action mode, so its
    mapping (the candidate slots, masks and placements of the choice modes) is soaked too.

    An id whose environment cannot be made (its game is not installed) is listed under
    ``unavailable`` with the reason, not counted as a crash. ``max_steps`` truncates each
    game sooner than the environment's own step limit (random 14.1 games rarely end before
    it). ``progress`` is given each environment's and ruleset's lines of the report as soon
    as they are done (long runs).
    """
    report: dict = {"games": games, "seed": seed, "elevation": elevation, "envs": {}, "unavailable": {},
                    "rules": {}}
    # Only the settings asked for are passed, so a plain soak makes the environments as ever.
    raised = {"elevation": True} if elevation else {}
    if action_mode is not None:
        report["action_mode"] = raised["action_mode"] = action_mode
    for env_id in env_ids if env_ids is not None else game_env_ids():
        try:
            env = gym.make(env_id, max_episode_steps=max_steps, **raised)
        except ValueError as exc:
            report["unavailable"][env_id] = str(exc)
            continue
        report["envs"][env_id] = _soak_env(env, games, seed)
        env.close()
        if progress:
            progress(_env_lines(env_id, report["envs"][env_id]))
    for name in _ruleset_names():
        try:
            get_ruleset(name)
        except ValueError as exc:
            report["unavailable"][f"rules {name}"] = str(exc)
            continue
        report["rules"][name] = _soak_ruleset(name, games, seed)
        if progress:
            progress(_ruleset_lines(name, report["rules"][name]))
    return report


def _ruleset_names() -> list[str]:
    """Every ruleset registered so far or named by a registered game environment (built-in
    games register only when first looked up)."""
    named = {spec.kwargs.get("game") for spec in gym.registry.values() if spec.entry_point == GAME_ENTRY_POINT}
    return sorted((set(available_rulesets()) | named) - {None})


def _soak_env(env: gym.Env, games: int, seed: int) -> dict:
    base = env.unwrapped
    failures: Counter[str] = Counter()
    examples: list[str] = []
    counts: Counter[str] = Counter()
    game = 0

    def note(kind: str, text: str) -> None:
        failures[kind] += 1
        if len(examples) < _EXAMPLES:
            examples.append(f"game {game}: {text}")

    def check_move(record: MoveRecord) -> None:
        counts["shots" if record.outcome is not None else "decisions"] += 1
        if record.result is not None:
            counts["balls_off"] += len(record.result.off_table)
            for problem in shot_violations(base.table, record.layout, record.result):
                note(_kind(problem), f"{problem}; layout {record.layout}; {record.result.shot}")
        for problem in state_violations(base.rules, record.after, overlap_tolerance=MAX_OVERLAP):
            note("rule_violations", f"{problem}; state {record.after.to_json()}")

    base.move_listeners.append(check_move)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for game in range(games):
        try:
            obs, _ = env.reset(seed=seed * 1_000_003 + game)
            done = False
            while not done:
                if not env.observation_space.contains(obs):
                    note("invalid_observations", "an observation outside the observation space")
                obs, reward, terminated, truncated, info = env.step(random_action(env, rng))
                counts["steps"] += 1
                if not math.isfinite(reward):
                    note("non_finite", f"reward {reward}")
                done = terminated or truncated
            counts["truncated" if truncated else "finished"] += 1
            if terminated:
                counts[f"won_by_{info['winner']}"] += 1
        except Exception as exc:  # a crash is what the soak is looking for
            note("crash", f"{type(exc).__name__}: {exc}")
    elapsed = time.perf_counter() - start
    base.move_listeners.remove(check_move)
    return {
        "games": games, "finished": counts["finished"], "truncated": counts["truncated"],
        "wins": [counts["won_by_0"], counts["won_by_1"]], "steps": counts["steps"],
        "shots": counts["shots"], "decisions": counts["decisions"], "balls_off": counts["balls_off"],
        "crashes": failures["crash"], "escapes": failures["escape"], "overlaps": failures["overlap"],
        "lost_balls": failures["conservation"], "non_finite": failures["non-finite"],
        "log_mismatches": failures["log"], "off_table_events": failures["off-table"],
        "rule_violations": failures["rule_violations"],
        "invalid_observations": failures["invalid_observations"], "seconds": round(elapsed, 2),
        "games_per_s": round(games / elapsed, 2), "shots_per_s": round(counts["shots"] / elapsed, 1),
        "examples": examples,
    }


def random_action(env: gym.Env, rng: np.random.Generator) -> np.ndarray:
    """A random action of ``env``: every component of a ``Box`` uniform in [-1, 1]; in the
    ``MultiDiscrete`` choice mode, each dimension's index drawn from those its
    ``action_masks()`` allow, in the ``Discrete`` one an option it allows (the env refuses
    a masked one)."""
    space = env.action_space
    if isinstance(space, gym.spaces.Discrete):
        return np.int64(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
    if isinstance(space, gym.spaces.MultiDiscrete):
        masks, start, action = env.unwrapped.action_masks(), 0, []
        for n in space.nvec:
            action.append(int(rng.choice(np.flatnonzero(masks[start:start + n]))))
            start += n
        return np.array(action, dtype=np.int64)
    return rng.uniform(-1.0, 1.0, space.shape).astype(np.float32)


def _soak_ruleset(name: str, games: int, seed: int) -> dict:
    start = time.perf_counter()
    out = {"games": games, "shots": 0, "decisions": 0, "rule_violations": 0, "crashes": 0, "examples": []}
    try:
        report = check_ruleset(get_ruleset(name), n_games=games, seed=seed)
        out.update(shots=report.shots, decisions=report.decisions)
    except RulesetCheckError as exc:  # the checker stops at the first broken invariant
        out["rule_violations"] = 1
        out["examples"].append(str(exc)[:2000])
    except Exception as exc:
        out["crashes"] = 1
        out["examples"].append(f"{type(exc).__name__}: {exc}")
    elapsed = time.perf_counter() - start
    out.update(seconds=round(elapsed, 2), games_per_s=round(games / elapsed, 1))
    return out


def game_failures(report: dict) -> int:
    """The number of failures of every kind in a game-soak report."""
    rows = list(report["envs"].values()) + list(report["rules"].values())
    return sum(row.get(key, 0) for row in rows for key in GAME_FAILURES)


def format_game_report(report: dict) -> str:
    """The game-soak report as text: one block per environment, one line per ruleset."""
    lines = [game_report_title(report)]
    lines += [_env_lines(env_id, row) for env_id, row in report["envs"].items()]
    lines += [f"  {env_id}: not played ({reason})" for env_id, reason in report["unavailable"].items()]
    lines += [_ruleset_lines(name, row) for name, row in report["rules"].items()]
    return "\n".join(lines)


def game_report_title(report: dict) -> str:
    """The first line of the game-soak report."""
    raised = ", the environments with the elevated cue" if report.get("elevation") else ""
    mode = f", action mode {report['action_mode']}" if report.get("action_mode") else ""
    return (f"{report['games']} random-vs-random games per game environment and per ruleset "
            f"(seed {report['seed']}{raised}{mode})")


def _env_lines(env_id: str, r: dict) -> str:
    lines = [f"  {env_id}: {r['finished']} finished, {r['truncated']} truncated, wins {r['wins']}, "
             f"{r['shots']} shots, {r['decisions']} decisions, {r['balls_off']} balls off the table; "
             f"{r['games_per_s']} games/s, "
             f"{r['shots_per_s']} shots/s, {r['seconds']} s",
             "    " + ", ".join(f"{key.replace('_', ' ')} {r[key]}" for key in GAME_FAILURES)]
    lines.extend(f"    e.g. {example}" for example in r["examples"])
    return "\n".join(lines)


def _ruleset_lines(name: str, r: dict) -> str:
    lines = [f"  rules {name}: {r['games']} games, {r['shots']} shots, {r['decisions']} decisions, "
             f"{r['games_per_s']} games/s; rule violations {r['rule_violations']}, crashes {r['crashes']}"]
    lines.extend(f"    e.g. {example}" for example in r["examples"])
    return "\n".join(lines)


def _kind(problem: str) -> str:
    """The failure kind of a ``shot_violations`` problem (``failures`` keys of the soaks)."""
    for key, kind in (("escaped", "escape"), ("overlap", "overlap"), ("conserved", "conservation"),
                      ("balls both", "conservation"), ("non-finite", "non-finite"),
                      ("leave the table", "off-table"), ("off-table balls", "off-table"),
                      ("left the table", "off-table")):
        if key in problem:
            return kind
    return "log"


def format_report(report: dict) -> str:
    where = (f"{report['random_tables']} random tables ({report['refused_table_draws']} draws refused)"
             if report.get("random_tables") else f"the {report['table']} table")
    elevation = (f", cue elevation uniform in [0, {report['max_elevation']:g}] degrees"
                 if report.get("max_elevation") is not None else "")
    lines = [f"{report['shots']} random shots on {where}{elevation} (seed {report['seed']}): "
             f"{report['shots_per_s']} shots/s, {report['seconds']} s, "
             f"{report['mean_events']} events per shot (max {report['max_events']})"]
    for key in PHYSICS_FAILURES:
        lines.append(f"  {key.replace('_', ' '):17s} {report[key]}")
    if report.get("max_elevation") is not None:
        lines.append("  " + ", ".join(f"{key.replace('_', ' ')} {report[key]}" for key in FLIGHT_COUNTS))
    lines.extend(f"  e.g. {example}" for example in report["examples"])
    return "\n".join(lines)
