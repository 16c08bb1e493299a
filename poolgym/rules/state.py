"""The game state: a frozen value any position of any game can be written as.

Ball 0 is the cue ball. ``balls`` holds the balls on the playing surface with their centres;
a ball in ``out_of_play`` was pocketed or driven off and stays down. While the cue ball is in
hand (``cue_ball_in_hand`` is ``ANYWHERE`` or ``KITCHEN``) it is in neither: the shooter
places it as part of the shot.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields, replace
from enum import Enum
from collections.abc import Mapping
from typing import Any

from poolgym.numbers import is_finite_number, quote, real
from poolgym.rules.decisions import PendingDecision

Point = tuple[float, float]
CUE_BALL = 0


class CueBallZone(str, Enum):
    """Where the incoming player may place the cue ball (WPA 1.5)."""

    NONE = "none"  # the cue ball is played from where it lies
    ANYWHERE = "anywhere"  # anywhere on the playing surface
    KITCHEN = "kitchen"  # behind the head string only (WPA 6.10, 6.11)


@dataclass(frozen=True)
class GameState:
    """One position of one game, between shots. Players are 0 and 1.

    ``balls`` may be given as a mapping ``{ball: (x, y)}``; it is stored as a sorted tuple of
    ``(ball, x, y)``. ``consecutive_fouls`` and ``warned_on_two_fouls`` serve the three-foul
    rule (WPA 6.14); ``groups`` is eight-ball's (``None``: open table, WPA 3.4), e.g.
    ``("solids", "stripes")`` for player 0 and player 1; ``scores`` and ``target_score`` are
    14.1's (WPA 4.7). ``no_progress_innings`` counts the innings each player has left after the
    referee declared no progress (WPA 1.12). ``extra`` carries any further JSON-compatible
    values a game or a variant needs, as sorted ``(key, value)`` pairs.
    """

    game: str
    balls: tuple[tuple[int, float, float], ...]
    out_of_play: tuple[int, ...] = ()
    shooter: int = 0
    breaker: int = 0
    inning: int = 1
    shot_number: int = 0
    awaiting_break: bool = True
    cue_ball_in_hand: CueBallZone = CueBallZone.KITCHEN
    consecutive_fouls: tuple[int, int] = (0, 0)
    warned_on_two_fouls: tuple[bool, bool] = (False, False)
    push_out_available: bool = False
    groups: tuple[str, str] | None = None
    scores: tuple[int, int] = (0, 0)
    target_score: int | None = None
    pending: PendingDecision | None = None
    winner: int | None = None
    stalemate: bool = False
    no_progress_innings: tuple[int, int] | None = None
    rack_number: int = 1
    extra: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        self._normalize(_FIELD_NAMES)
        self._check(_FIELD_NAMES)

    def _normalize(self, names) -> None:
        """Convert the fields ``names`` to their stored form. Rules transitions (``evolve``)
        pass values in that form already: plain ints and floats, tuples, the zone enum.
        Those skip the conversions, which would give the same values back at a cost paid on
        every new state; a stored ball tuple handed on unchanged is kept as it is."""
        set_ = object.__setattr__
        if "balls" in names and (type(self.balls) is not tuple or not _stored_balls(self.balls)):
            mapping = isinstance(self.balls, Mapping)
            normal = []
            for item in (self.balls.items() if mapping else self.balls):
                if mapping:
                    number, (x, y) = item
                else:
                    number, x, y = item
                if type(x) is not float or type(y) is not float:
                    x, y = real(x, f"ball {number} x"), real(y, f"ball {number} y")
                if not (math.isfinite(x) and math.isfinite(y)):
                    raise ValueError(f"ball {number} has a non-finite position ({x}, {y})")
                normal.append((number if type(number) is int else int(number), x, y))
            normal.sort()
            set_(self, "balls", tuple(normal))
        if "out_of_play" in names and (self.out_of_play or type(self.out_of_play) is not tuple):
            set_(self, "out_of_play", tuple(sorted(int(b) for b in self.out_of_play)))
        if "cue_ball_in_hand" in names and type(self.cue_ball_in_hand) is not CueBallZone:
            set_(self, "cue_ball_in_hand", CueBallZone(self.cue_ball_in_hand))
        for name, kind in (("consecutive_fouls", int), ("warned_on_two_fouls", bool), ("scores", int)):
            if name in names:
                pair = getattr(self, name)
                if not (type(pair) is tuple and len(pair) == 2 and type(pair[0]) is kind and type(pair[1]) is kind):
                    set_(self, name, tuple(kind(v) for v in pair))
        if "groups" in names and self.groups is not None:
            set_(self, "groups", tuple(self.groups))
        if "no_progress_innings" in names and self.no_progress_innings is not None:
            set_(self, "no_progress_innings", tuple(int(n) for n in self.no_progress_innings))
        if "extra" in names:
            if self.extra:
                set_(self, "extra", tuple(sorted((str(k), _freeze(v)) for k, v in
                                                 (self.extra.items() if isinstance(self.extra, Mapping)
                                                  else self.extra))))
            else:
                set_(self, "extra", ())

    def _check(self, names) -> None:
        """The checks that involve any of the fields ``names`` (every check for a new state;
        for ``evolve``, those a changed field takes part in: the others held already)."""
        if "balls" in names or "out_of_play" in names:
            numbers = [b[0] for b in self.balls]
            on = set(numbers)
            if len(on) != len(numbers):
                raise ValueError(f"a ball is listed twice on the table: {numbers}")
            out = self.out_of_play
            if out:
                if len(set(out)) != len(out):
                    raise ValueError(f"a ball is listed twice out of play: {out}")
                both = on.intersection(out)
                if both:
                    raise ValueError(f"balls {sorted(both)} are both on the table and out of play")
                if CUE_BALL in out:
                    raise ValueError("the cue ball is never out of play; it is in hand instead")
        for name in ("shooter", "breaker"):
            if name in names and getattr(self, name) not in (0, 1):
                raise ValueError(f"{name} must be player 0 or 1, got {getattr(self, name)!r}")
        if "winner" in names and self.winner not in (None, 0, 1):
            raise ValueError(f"winner must be None, 0 or 1, got {self.winner!r}")
        if "consecutive_fouls" in names and (len(self.consecutive_fouls) != 2 or min(self.consecutive_fouls) < 0):
            raise ValueError(f"consecutive_fouls must be two counts >= 0: {self.consecutive_fouls}")
        if ("warned_on_two_fouls" in names or "scores" in names) and (len(self.warned_on_two_fouls) != 2
                                                                       or len(self.scores) != 2):
            raise ValueError("warned_on_two_fouls and scores hold one value per player")
        if "groups" in names and self.groups is not None and (len(self.groups) != 2 or len(set(self.groups)) != 2):
            raise ValueError(f"groups must name one group per player, two different ones: {self.groups}")
        if ("winner" in names or "stalemate" in names) and self.winner is not None and self.stalemate:
            raise ValueError(f"a rack is won (winner {self.winner}) or a stalemate, not both")
        for name, low in (("inning", 1), ("shot_number", 0), ("rack_number", 1)):
            if name in names and getattr(self, name) < low:
                raise ValueError(f"{name} must be at least {low}, got {getattr(self, name)!r}")
        if "target_score" in names and self.target_score is not None and self.target_score < 1:
            raise ValueError(f"target_score must be at least 1 point (or None), got {self.target_score!r}")
        if "no_progress_innings" in names and self.no_progress_innings is not None and (
                len(self.no_progress_innings) != 2 or min(self.no_progress_innings) < 0):
            raise ValueError(f"no_progress_innings must be two counts >= 0: {self.no_progress_innings}")
        if (("cue_ball_in_hand" in names or "balls" in names) and self.cue_ball_in_hand is not CueBallZone.NONE
                and any(b[0] == CUE_BALL for b in self.balls)):
            raise ValueError("the cue ball is in hand, so it cannot also be on the table")

    def evolve(self, **changes: Any) -> "GameState":
        """``dataclasses.replace(self, **changes)``, for the rules' transitions, which make
        new states for every shot a bot considers: the same state, without the generic
        field-by-field copy and ``__init__`` of ``replace``. An unknown field is a
        ``TypeError``, as there. Only the changed fields are converted, and only the checks
        they take part in run: the others held on this state, which passed them all."""
        names = changes.keys()
        unknown = names - _FIELD_NAMES
        if unknown:
            raise TypeError(f"GameState has no field {sorted(unknown)[0]!r}")
        new = object.__new__(type(self))
        values = new.__dict__
        values.update(self.__dict__)
        if "balls" in names:
            for view in _BALL_VIEWS:  # made from the old balls
                values.pop(view, None)
        values.update(changes)
        new._normalize(names)
        new._check(names)
        return new

    def _after_shot(self, shot: dict[str, Any], changes: Mapping[str, Any]) -> "GameState":
        """``evolve`` for ``Ruleset``'s next state after a shot, the same state without the
        conversions and checks that cannot fail on what the rules build there.

        ``shot`` holds the fields a shot changes, in the stored form: ``balls`` as rows sorted
        from a mapping (so each ball once, and the cue ball lifted when it goes in hand),
        ``out_of_play`` sorted, the foul counts and warnings ``count_foul`` keeps, the next
        shot number, and a handover's inning and no-progress countdown, made from this
        state's. Those are set as they are. What a game's verdict decides is still checked
        here, and sent through ``evolve``'s conversions and checks when it is not in the
        stored form: the rows' numbers and positions, the balls out of play (each once,
        never on the table, never the cue ball), the zone, the scores, the winner and the
        next shooter. ``changes`` (a game's own fields, ``Verdict.changes``) are converted
        and checked as by ``evolve``; the handover's fields in ``shot`` take precedence,
        as they do there.
        """
        new = object.__new__(GameState)
        values = new.__dict__
        values.update(self.__dict__)
        for view in _BALL_VIEWS:  # made from the old balls
            values.pop(view, None)
        values.update(changes)
        values.update(shot)
        names = [*changes]
        balls, out = values["balls"], values["out_of_play"]
        if not _plain_rows(balls) or any([type(b) is not int for b in out]):
            names += ("balls", "out_of_play")
        elif out:
            down = set(out)
            if CUE_BALL in down or len(down) != len(out) or not down.isdisjoint([b[0] for b in balls]):
                names.append("out_of_play")  # for the check's own message
        zone, scores = values["cue_ball_in_hand"], values["scores"]
        if type(zone) is not CueBallZone:
            names.append("cue_ball_in_hand")
        if type(scores[0]) is not int or type(scores[1]) is not int:
            names.append("scores")
        if values["winner"] not in (None, 0, 1):
            names.append("winner")
        if values["shooter"] not in (0, 1):
            names.append("shooter")
        if names:
            new._normalize(names)
            new._check(names)
        return new

    def __getstate__(self) -> dict[str, Any]:
        """The fields alone, without the views cached from ``balls`` (``_BALL_VIEWS``): a
        pickle or a copy holds what it held before they were cached, and the copy makes
        its own on first use."""
        values = self.__dict__
        if any(view in values for view in _BALL_VIEWS):
            values = {k: v for k, v in values.items() if k not in _BALL_VIEWS}
        return values

    # ----------------------------------------------------------------- queries
    # ``positions`` and ``object_balls_on_table`` are read many times from each state (the
    # rules, an env's observation, masks and candidates, a bot's search). A state never
    # changes (its fields are frozen, ``balls`` a tuple of tuples of ints and floats), so
    # each is made once, on first use, and kept in the instance's ``__dict__`` under the
    # names in ``_BALL_VIEWS``: not fields, so equality, hash and repr do not see them.
    @property
    def positions(self) -> dict[int, Point]:
        """Balls on the table and their centres (a fresh dict)."""
        cached = self.__dict__.get("_positions")
        if cached is None:
            cached = self.__dict__["_positions"] = {n: (x, y) for n, x, y in self.balls}
        return cached.copy()  # the caller may change its dict; the points are tuples

    @property
    def on_table(self) -> tuple[int, ...]:
        """Numbers of the balls on the table, the cue ball included when it is there."""
        return tuple(b[0] for b in self.balls)

    @property
    def object_balls_on_table(self) -> tuple[int, ...]:
        """Numbers of the object balls on the table (the stored balls are sorted by number,
        so the cue ball, when there, is the first)."""
        cached = self.__dict__.get("_object_balls_on_table")
        if cached is None:
            balls = self.balls
            cached = self.__dict__["_object_balls_on_table"] = tuple(
                [b[0] for b in (balls[1:] if balls and balls[0][0] == CUE_BALL else balls)])
        return cached

    def position(self, ball: int) -> Point:
        for n, x, y in self.balls:
            if n == ball:
                return (x, y)
        raise ValueError(f"ball {ball} is not on the table")

    @property
    def is_over(self) -> bool:
        """Whether the rack (the game) has ended: someone won or a stalemate was declared."""
        return self.winner is not None or self.stalemate

    @property
    def open_table(self) -> bool:
        """Eight-ball: the groups are not decided yet (WPA 3.4)."""
        return self.groups is None

    def extra_value(self, key: str, default: Any = None) -> Any:
        for k, v in self.extra:
            if k == key:
                return v
        return default

    def with_extra(self, **values: Any) -> "GameState":
        """A copy with ``extra`` entries set (values must be JSON-compatible)."""
        merged = dict(self.extra)
        merged.update(values)
        return replace(self, extra=tuple(merged.items()))

    # ----------------------------------------------------------------- serialisation
    def to_dict(self) -> dict:
        """A JSON-compatible dict; ``GameState.from_dict`` gives back an equal state."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "balls":
                value = [[n, x, y] for n, x, y in value]
            elif f.name == "extra":
                value = [[k, v] for k, v in value]
            elif isinstance(value, Enum):
                value = value.value
            elif isinstance(value, PendingDecision):
                value = value.to_dict()
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "GameState":
        """The state ``to_dict`` wrote; a wrong field raises ``ValueError`` naming it."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a GameState is a mapping of its fields, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown GameState fields {sorted(unknown)}")
        for name in ("game", "balls"):
            if name not in data:
                raise ValueError(f"GameState field {name!r} is missing")
        for name, value in data.items():
            if not _JSON_FIELDS[name](value):
                raise ValueError(f"GameState field {name!r} must be {_JSON_FIELD_TYPES[name]}, "
                                 f"got {quote(value)}")
        values = dict(data)
        values["balls"] = tuple(tuple(b) for b in values["balls"])
        if values.get("pending") is not None:
            try:
                values["pending"] = PendingDecision.from_dict(values["pending"])
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"GameState field 'pending' is not a pending decision: {exc!r}") from None
        values["extra"] = tuple(tuple(kv) for kv in values.get("extra", ()))
        return cls(**values)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "GameState":
        try:
            data = json.loads(text)
        except (TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"a GameState's JSON is not valid JSON: {exc}") from None
        return cls.from_dict(data)


_FIELD_NAMES = frozenset(f.name for f in fields(GameState))
# The views of ``balls`` a state caches in its ``__dict__`` (see ``GameState.positions``).
_BALL_VIEWS = ("_positions", "_object_balls_on_table")


def _stored_balls(balls: tuple) -> bool:
    """Whether ``balls`` is in ``GameState``'s stored form already: ``(ball, x, y)`` rows of a
    plain int and two finite plain floats, in increasing ball order (what the conversion in
    ``__post_init__`` would give back unchanged)."""
    previous = -1
    for row in balls:
        if type(row) is not tuple or len(row) != 3:
            return False
        number, x, y = row
        if (type(number) is not int or number <= previous or type(x) is not float or type(y) is not float
                or not (math.isfinite(x) and math.isfinite(y))):
            return False
        previous = number
    return True


def _plain_rows(rows: tuple) -> bool:
    """``_stored_balls`` for rows ``(ball, x, y)`` sorted by distinct balls as the caller
    built them (``GameState._after_shot``): whether each is a plain int and two finite plain
    floats."""
    isfinite = math.isfinite
    for number, x, y in rows:
        if (type(number) is not int or type(x) is not float or type(y) is not float
                or not (isfinite(x) and isfinite(y))):
            return False
    return True


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)




def _pair(check):
    return lambda v: isinstance(v, (list, tuple)) and len(v) == 2 and all(map(check, v))


def _optional(check):
    return lambda v: v is None or check(v)


# The JSON form of each field (what ``to_dict`` writes), checked before a state is built from it.
_JSON_FIELDS = {
    "game": lambda v: isinstance(v, str),
    "balls": lambda v: isinstance(v, (list, tuple)) and all(
        isinstance(b, (list, tuple)) and len(b) == 3 and _is_int(b[0]) and is_finite_number(b[1])
        and is_finite_number(b[2]) for b in v),
    "out_of_play": lambda v: isinstance(v, (list, tuple)) and all(map(_is_int, v)),
    "shooter": _is_int, "breaker": _is_int, "inning": _is_int, "shot_number": _is_int,
    "rack_number": _is_int, "target_score": _optional(_is_int), "winner": _optional(_is_int),
    "awaiting_break": lambda v: isinstance(v, bool), "push_out_available": lambda v: isinstance(v, bool),
    "stalemate": lambda v: isinstance(v, bool),
    "cue_ball_in_hand": lambda v: v in {z.value for z in CueBallZone},
    "consecutive_fouls": _pair(_is_int), "scores": _pair(_is_int),
    "warned_on_two_fouls": _pair(lambda v: isinstance(v, bool)),
    "no_progress_innings": _optional(_pair(_is_int)),
    "groups": _optional(_pair(lambda v: isinstance(v, str))),
    "pending": lambda v: v is None or isinstance(v, Mapping),
    "extra": lambda v: isinstance(v, (list, tuple)) and all(
        isinstance(kv, (list, tuple)) and len(kv) == 2 and isinstance(kv[0], str) for kv in v),
}
_JSON_FIELD_TYPES = {
    "game": "a string", "balls": "a list of [ball, x, y] with finite coordinates",
    "out_of_play": "a list of ball numbers", "shooter": "an integer", "breaker": "an integer",
    "inning": "an integer", "shot_number": "an integer", "rack_number": "an integer",
    "target_score": "an integer or null", "winner": "an integer or null",
    "awaiting_break": "true or false", "push_out_available": "true or false",
    "stalemate": "true or false", "cue_ball_in_hand": f"one of {[z.value for z in CueBallZone]}",
    "consecutive_fouls": "two integers", "scores": "two integers",
    "warned_on_two_fouls": "two booleans", "no_progress_innings": "null or two integers",
    "groups": "null or two group names", "pending": "null or a pending decision",
    "extra": "a list of [key, value] pairs",
}


def _freeze(value: Any) -> Any:
    """Lists become tuples, so ``extra`` stays immutable and equal after a JSON round trip."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value
