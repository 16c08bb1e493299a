"""A break chosen from a table measured offline over execution noise (the top rung's break).

A row of the table is a break stroke: the cue-ball spot in the kitchen (``x``, ``y``,
metres), the stroke's aim ``offset`` (cue-ball radii beside the head ball's centre),
``speed`` (m/s) and ``vertical`` tip offset (follow > 0, draw < 0), with what it did over
``breaks`` noisy breaks of fresh racks (``measure_break``): ``made`` (the shooter kept the
table or won: a ball made without a foul), ``fouled``, ``won`` (the money ball on the break)
and ``value``, the mean of ``break_outcome_value`` (1 for a win, the next shot's closed-form
chance after a made ball, 0 for a dry break, ``FOUL_VALUE`` after a foul). The table is
built by ``python -m poolgym.agents.tools.build_break_table`` (a coarse grid, its best rows
measured again on many more racks) and shipped beside this module; ``best_break`` picks the
row of highest value among the most-measured rows the bot's stroke cap allows.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from poolgym.envs.actions import ShotMove
from poolgym.envs.play import simulate_move
from poolgym.files import read_bounded
from poolgym.physics import Shot, Simulator
from poolgym.rules import GameState, Ruleset

from poolgym.agents.bot.position import plain_call, shot_quality

# The table shipped for 9-ball (the WPA 9-ft table, the tournament noise).
NINE_BALL_TABLE = Path(__file__).with_name("break_table_nine_ball.json")
# A break table is a few hundred rows; anything much larger is not one.
MAX_TABLE_BYTES = 4_000_000
# A foul on the break hands the opponent ball in hand: worse than a dry break.
FOUL_VALUE = -0.5
ROW_FIELDS = ("x", "y", "offset", "speed", "vertical", "breaks", "made", "fouled", "won", "value")


@dataclass(frozen=True)
class BreakRow:
    """One measured break stroke (module docstring)."""

    x: float
    y: float
    offset: float
    speed: float
    vertical: float
    breaks: int
    made: float
    fouled: float
    won: float
    value: float


@dataclass(frozen=True)
class BreakTable:
    """The measured rows and what they were measured under: ``game``, ``noise`` (a preset
    name), ``rack`` (the rack model, as text) and the ``seed`` of the racks and noise."""

    game: str
    noise: str
    rack: str
    seed: int
    rows: tuple[BreakRow, ...]

    def to_json(self) -> str:
        """The table as the JSON text ``load_break_table`` reads."""
        head = {"game": self.game, "noise": self.noise, "rack": self.rack, "seed": self.seed,
                "fields": list(ROW_FIELDS)}
        # One row a line, so that a rebuilt table's diff shows the rows that changed.
        rows = ",\n".join(json.dumps([getattr(r, f) for f in ROW_FIELDS]) for r in self.rows)
        return json.dumps(head)[:-1] + ', "rows": [\n' + rows + "\n]}\n"


def load_break_table(path: str | Path = NINE_BALL_TABLE) -> BreakTable:
    """The break table in the JSON file ``path``. A file that is not such a table (not
    JSON, a missing or extra key, a row of the wrong length, a number out of its range) is
    a ``ValueError`` naming the file, the field and the allowed range."""
    raw = read_bounded(path, MAX_TABLE_BYTES, "a break table")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a break table (not JSON: {exc})") from None
    keys = {"game", "noise", "rack", "seed", "fields", "rows"}
    if not isinstance(data, dict) or set(data) != keys:
        found = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{path}: a break table is an object with keys {sorted(keys)}, found {found}")
    if data["fields"] != list(ROW_FIELDS):
        raise ValueError(f"{path}: fields must be {list(ROW_FIELDS)}, got {data['fields']!r}")
    for key in ("game", "noise", "rack"):
        if not isinstance(data[key], str):
            raise ValueError(f"{path}: {key} must be a string, got {data[key]!r}")
    if not isinstance(data["seed"], int) or isinstance(data["seed"], bool):
        raise ValueError(f"{path}: seed must be an integer, got {data['seed']!r}")
    if not isinstance(data["rows"], list) or not data["rows"]:
        raise ValueError(f"{path}: rows must be a non-empty list of rows")
    rows = tuple(_row(path, i, row) for i, row in enumerate(data["rows"]))
    return BreakTable(data["game"], data["noise"], data["rack"], data["seed"], rows)


# (low, high) of each numeric field; x and y are checked against the table when played.
_RANGES = {"x": (0.0, 10.0), "y": (0.0, 10.0), "offset": (-2.0, 2.0), "speed": (0.3, 20.0),
           "vertical": (-1.0, 1.0), "breaks": (1, 10**9), "made": (0.0, 1.0), "fouled": (0.0, 1.0),
           "won": (0.0, 1.0), "value": (FOUL_VALUE, 1.0)}


def _row(path, i: int, row) -> BreakRow:
    if not isinstance(row, list) or len(row) != len(ROW_FIELDS):
        raise ValueError(f"{path}: rows[{i}] must be a list of {len(ROW_FIELDS)} numbers "
                         f"({', '.join(ROW_FIELDS)}), got {row!r}")
    values = {}
    for field, value in zip(ROW_FIELDS, row):
        low, high = _RANGES[field]
        number_ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if field == "breaks":
            number_ok = number_ok and float(value).is_integer()
        if not number_ok or not low <= value <= high:
            raise ValueError(f"{path}: rows[{i}].{field} must be a number in [{low}, {high}], got {value!r}")
        values[field] = int(value) if field == "breaks" else float(value)
    return BreakRow(**values)


def break_move(rules: Ruleset, state: GameState, x: float, y: float, offset: float, speed: float,
               vertical: float) -> ShotMove:
    """The break stroke of a row: the cue ball placed at (``x``, ``y``), aimed ``offset``
    radii beside the head ball (the object ball nearest the head string) at ``speed``."""
    balls = state.positions
    R = rules.table.ball_radius
    head_ball = min((b for b in balls if b != 0), key=lambda b: balls[b][0])
    hx, hy = balls[head_ball]
    d = math.hypot(hx - x, hy - y)
    angle = math.degrees(math.atan2(hy - y, hx - x) + math.asin(max(-1.0, min(1.0, offset * R / d))))
    call = plain_call(rules.call_options(state), safety=False)
    return ShotMove(call, (x, y), Shot(speed, (angle + 180.0) % 360.0 - 180.0, 0.0, vertical), head_ball)


def break_outcome_value(rules: Ruleset, state: GameState, after: GameState, outcome, sigma_deg: float) -> float:
    """What one break did for the breaker (module docstring)."""
    if outcome.fouls:
        return FOUL_VALUE
    if outcome.winner == state.shooter:
        return 1.0
    if outcome.turn_kept and after.pending is None:
        return shot_quality(after, rules, sigma_deg)
    return 0.0


def measure_break(rules: Ruleset, simulator: Simulator, stroke: tuple[float, ...], breaks: int,
                  rng: np.random.Generator, sigma_deg: float) -> BreakRow:
    """``stroke`` = (x, y, offset, speed, vertical) played on ``breaks`` fresh racks (each
    racked and noised from ``rng``), with its rates and mean value (module docstring)."""
    made = fouled = won = 0
    total = 0.0
    for _ in range(breaks):
        state = rules.new_game(rng=rng)
        move = break_move(rules, state, *stroke)
        events, _ = simulate_move(simulator, rules, state, move, rng, False, state_checked=True)
        after, outcome = rules.apply_shot(state, move.call, events)
        fouled += bool(outcome.fouls)
        won += outcome.winner == state.shooter
        made += not outcome.fouls and (outcome.turn_kept or outcome.winner == state.shooter)
        total += break_outcome_value(rules, state, after, outcome, sigma_deg)
    return BreakRow(*(float(v) for v in stroke), breaks=breaks, made=made / breaks, fouled=fouled / breaks,
                    won=won / breaks, value=total / breaks)


def best_break(table: BreakTable, rules: Ruleset, state: GameState, max_speed: float) -> ShotMove | None:
    """The stroke of the best row (``best_row``); None when no row fits (the caller
    searches its break instead)."""
    row = best_row(table, rules, state, max_speed)
    return None if row is None else break_move(rules, state, row.x, row.y, row.offset, row.speed, row.vertical)


def best_row(table: BreakTable, rules: Ruleset, state: GameState, max_speed: float) -> BreakRow | None:
    """The row of highest value among the rows measured on the most breaks that
    ``max_speed`` allows and whose spot is free in the kitchen; None when no row fits."""
    R = rules.table.ball_radius
    others = [p for n, p in state.positions.items() if n != 0]
    fits = [r for r in table.rows if r.speed <= max_speed + 1e-9 and r.x < rules.table.head_string_x
            and rules.table.contains(r.x, r.y) and all(math.dist((r.x, r.y), p) > 2 * R for p in others)]
    if not fits:
        return None
    most = max(r.breaks for r in fits)
    return max((r for r in fits if r.breaks == most), key=lambda r: r.value)
