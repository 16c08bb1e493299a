"""A shot as the rules see it: the player's call and what happened (``ShotEvents``).

``ShotEvents`` can be entered by hand (a referee's account) or derived from the simulator's
event log with ``ShotEvents.from_log``. Either way it holds only facts; the ruleset judges
them against the state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from collections.abc import Iterable, Mapping

from poolgym import events as ev
from poolgym.numbers import quote
from poolgym.records import stored
from poolgym.rules.options import RuleOptions
from poolgym.rules.outcome import Penalty
from poolgym.table import POCKET_IDS, Table

Point = tuple[float, float]

# Fouls a referee (or a player) sees but the event log cannot show (digest 7).
DECLARABLE_SECTIONS = {
    "6.4": "foot foul",
    "6.6": "touched ball",
    "6.7": "double hit / frozen balls",
    "6.8": "push shot",
    "6.9": "shot while balls were still moving",
    "6.12": "cue left on the table",
    "6.13": "played out of turn",
    "6.15": "slow play",
    "6.16": "unsportsmanlike conduct",
}


@dataclass(frozen=True)
class ShotCall:
    """The shooter's announcement before the shot (WPA 1.6, 2.4, 8.17).

    ``ball`` and ``pocket`` name a called shot; ``safety`` calls a safety; ``push_out``
    declares a push out. ``ShotCall()`` is "no call" (nine-ball, every break).
    """

    ball: int | None = None
    pocket: str | None = None
    safety: bool = False
    push_out: bool = False

    def __post_init__(self) -> None:
        if (self.ball is None) != (self.pocket is None):
            raise ValueError("a called shot names both a ball and a pocket")
        if self.pocket is not None and self.pocket not in POCKET_IDS:
            raise ValueError(f"unknown pocket {self.pocket!r}; pockets are {list(POCKET_IDS)}")
        if self.ball is not None and (not isinstance(self.ball, int) or self.ball <= 0):
            raise ValueError(f"a call names an object ball (1 and up), not {self.ball!r}")
        if self.safety and (self.ball is not None or self.push_out):
            raise ValueError("a safety call names no ball and is not a push out")
        if self.push_out and self.ball is not None:
            raise ValueError("a push out calls no ball")

    @classmethod
    def called(cls, ball: int, pocket: str) -> "ShotCall":
        return cls(ball=ball, pocket=pocket)

    @classmethod
    def safety_shot(cls) -> "ShotCall":
        return cls(safety=True)

    @classmethod
    def push(cls) -> "ShotCall":
        return cls(push_out=True)

    @property
    def names_ball(self) -> bool:
        return self.ball is not None


# Every call naming a ball, built once and shared by every list of calls (balls 1-15).
_SAFETY_CALL = ShotCall.safety_shot()
_PUSH_CALL = ShotCall.push()
_BALL_CALLS = {b: tuple(ShotCall.called(b, p) for p in POCKET_IDS) for b in range(1, 16)}


@lru_cache(maxsize=256)
def ball_and_pocket_calls(balls: tuple[int, ...], push_out: bool = False) -> tuple[ShotCall, ...]:
    """A safety, each of ``balls`` into each pocket, then a push out when ``push_out``: the
    calls of the call-shot games, in that order. Cached (the same sets recur shot after
    shot) in a small cache of shared calls: a full one holds about 0.2 MB."""
    calls = (_SAFETY_CALL,) + tuple(call for b in balls for call in _BALL_CALLS[b])
    return calls + (_PUSH_CALL,) if push_out else calls


@dataclass(frozen=True)
class DeclaredFoul:
    """A foul only a person can see, declared on the shot (WPA 6.4-6.16, digest 7).

    ``penalty`` matters for 6.16, where the referee picks it; a 6.16 warning is
    ``penalty=None`` and is recorded without being a foul.
    """

    section: str
    penalty: Penalty | None = Penalty.STANDARD
    note: str = ""

    def __post_init__(self) -> None:
        if self.section not in DECLARABLE_SECTIONS:
            raise ValueError(f"section {self.section!r} cannot be declared; declarable fouls are "
                             f"{sorted(DECLARABLE_SECTIONS)} (the others are read from the events)")
        if self.penalty is None and self.section != "6.16":
            raise ValueError("only 6.16 unsportsmanlike conduct may be a warning (penalty=None)")
        if self.penalty is not None:
            object.__setattr__(self, "penalty", Penalty(self.penalty))


@dataclass(frozen=True)
class ShotEvents:
    """What happened on one shot, as facts.

    - ``cue_ball_start``: where the cue ball was struck (its placement when it was in hand).
    - ``first_contact``: the first object ball the cue ball touched, or None.
    - ``cushion_after_contact``: balls (cue ball included) driven to a cushion after the first
      contact, counted as WPA 8.4 says (a frozen ball only after leaving its cushion).
      Pocketed and off-table balls count anyway; they need not be listed.
    - ``cushion_balls``: balls that reached a cushion at any time (for the break counts);
      None means the same as ``cushion_after_contact``.
    - ``pocketed``: ``(ball, pocket)`` in the order they dropped (a mapping is accepted).
    - ``off_table``: balls driven off the table (WPA 8.5).
    - ``crossed_head_string_before_contact`` / ``ever_crossed_head_string``: whether the
      cue-ball centre reached the head string (digest 8.15); None lets the ruleset infer it
      from the positions (see ``Ruleset.head_string_facts``).
    - ``frozen_to_cushion`` / ``frozen_to_cue_ball``: frozen balls declared at the strike.
    - ``final_positions``: ``{ball: (x, y)}`` of every ball left on the table at rest; None
      keeps the balls that did not drop where they were (the cue ball at its placement).
    - ``declared_fouls``: fouls the referee saw (``DeclaredFoul``).
    """

    cue_ball_start: Point | None = None
    first_contact: int | None = None
    cushion_after_contact: frozenset[int] = frozenset()
    cushion_balls: frozenset[int] | None = None
    pocketed: tuple[tuple[int, str], ...] = ()
    off_table: frozenset[int] = frozenset()
    crossed_head_string_before_contact: bool | None = None
    ever_crossed_head_string: bool | None = None
    frozen_to_cushion: frozenset[int] = frozenset()
    frozen_to_cue_ball: frozenset[int] = frozenset()
    final_positions: tuple[tuple[int, float, float], ...] | None = None
    declared_fouls: tuple[DeclaredFoul, ...] = field(default=())

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        pocketed = self.pocketed.items() if isinstance(self.pocketed, Mapping) else self.pocketed
        pocketed = tuple((_ball(b), str(p)) for b, p in pocketed)
        set_(self, "pocketed", pocketed)
        for name in ("cushion_after_contact", "off_table", "frozen_to_cushion", "frozen_to_cue_ball"):
            balls = getattr(self, name)
            if balls or type(balls) is not frozenset:  # an empty frozenset is stored as it is
                set_(self, name, frozenset(_ball(b) for b in balls))
        if self.cushion_balls is not None:
            set_(self, "cushion_balls", frozenset(_ball(b) for b in self.cushion_balls))
        if self.cue_ball_start is not None:
            set_(self, "cue_ball_start", _point(self.cue_ball_start, "cue_ball_start"))
        if self.final_positions is not None:
            final = (self.final_positions.items() if isinstance(self.final_positions, Mapping)
                     else ((n, (x, y)) for n, x, y in self.final_positions))
            set_(self, "final_positions", tuple(sorted(_row(n, p) for n, p in final)))
        set_(self, "declared_fouls", tuple(self.declared_fouls))
        if self.first_contact is not None:
            set_(self, "first_contact", _ball(self.first_contact))
        self._check()

    def _check(self) -> None:
        """The checks of the facts in their stored form (``__post_init__`` converts first)."""
        final = self.final_positions
        at_rest = None if final is None else {r[0] for r in final}
        if final is not None and len(at_rest) != len(final):
            raise ValueError("final_positions lists a ball twice")
        if self.first_contact == 0:
            raise ValueError("first_contact names an object ball; the cue ball cannot hit itself")
        pocketed = self.pocketed
        if not pocketed and not self.off_table:
            return  # nothing left the table: the checks below have nothing to find
        balls = [b for b, _ in pocketed]
        dropped = set(balls)
        if len(dropped) != len(balls):
            raise ValueError(f"a ball is pocketed twice on one shot: {balls}")
        for b, p in pocketed:
            if p not in POCKET_IDS:
                raise ValueError(f"ball {b} went into unknown pocket {p!r}; pockets are {list(POCKET_IDS)}")
        both = dropped & self.off_table
        if both:
            raise ValueError(f"balls {sorted(both)} cannot be both pocketed and off the table")
        if final is not None:
            gone = at_rest & (dropped | self.off_table)
            if gone:
                raise ValueError(f"balls {sorted(gone)} left the table but have a final position")

    # ----------------------------------------------------------------- derived facts
    @property
    def pocketed_balls(self) -> tuple[int, ...]:
        return tuple([b for b, _ in self.pocketed])

    @property
    def object_balls_pocketed(self) -> tuple[int, ...]:
        return tuple([b for b, _ in self.pocketed if b != 0])

    @property
    def object_balls_off_table(self) -> tuple[int, ...]:
        off = self.off_table
        return tuple(sorted([b for b in off if b != 0])) if off else ()  # mostly none

    @property
    def cue_ball_scratched(self) -> bool:
        """The cue ball was pocketed or left the table (WPA 6.1, 8.6)."""
        for ball, _ in self.pocketed:  # read on every shot: no tuple of the balls made
            if ball == 0:
                return True
        return 0 in self.off_table

    def pocket_of(self, ball: int) -> str | None:
        for b, p in self.pocketed:
            if b == ball:
                return p
        return None

    @property
    def driven_to_cushion(self) -> frozenset[int]:
        """Balls counted as driven to a cushion after contact: WPA 8.4 adds pocketed and
        off-table balls to those that touched a cushion. An object ball moves only once the
        cue ball has touched a ball, so any cushion it reached counts too."""
        anytime = self.cushion_balls or ()
        if 0 in anytime:
            anytime = anytime - {0}
        pocketed = self.pocketed
        return self.cushion_after_contact.union(anytime, [b for b, _ in pocketed] if pocketed else (),
                                                self.off_table)

    @property
    def distinct_object_balls_to_cushion(self) -> frozenset[int]:
        """Object balls that reached a cushion at any time during the shot (break counts, 8.4)."""
        seen = self.cushion_after_contact if self.cushion_balls is None else self.cushion_balls
        return frozenset(b for b in seen | set(self.pocketed_balls) | self.off_table if b != 0)

    def referenced_balls(self) -> set[int]:
        """Every ball these events mention (to check them against the state)."""
        out = set(self.pocketed_balls) | self.off_table | self.cushion_after_contact
        out |= self.frozen_to_cushion | self.frozen_to_cue_ball
        if self.cushion_balls is not None:
            out |= self.cushion_balls
        if self.first_contact is not None:
            out.add(self.first_contact)
        if self.final_positions is not None:
            out |= {r[0] for r in self.final_positions}
        return out

    # ----------------------------------------------------------------- from the simulator
    @classmethod
    def from_log(cls, log: Iterable[ev.Event], table: Table,
                 final_positions: Mapping[int, Point] | None = None,
                 off_table: Iterable[int] = (),
                 declared_fouls: Iterable[DeclaredFoul] = (),
                 options: RuleOptions | None = None) -> "ShotEvents":
        """Derive the facts from the simulator's event log (``poolgym.events``).

        ``final_positions`` (the balls at rest) come from the simulation result, which the
        log does not repeat; balls off the table are those of the log's ``OffTable`` events
        together with ``off_table`` (for a referee's call). With ``restore_balls_dropping_after_rest``
        (digest 8.17) a ball that drops after the ``Rest`` event is put back where it dropped.
        """
        options = options or RuleOptions()
        hs = table.head_string_x
        # The simulator's own log (``poolgym.events.log_facts``) holds plain values only: its
        # facts are stored as they are, without the conversions, and checked.
        own_facts = hasattr(log, "log_facts")
        strike, rest_time, drops, cushions, contact, off, before, ever = ev.log_facts(log, hs)
        restored = {}
        if options.restore_balls_dropping_after_rest:
            restored = {e.ball: e.position for e in drops if e.time > rest_time}
            drops = [e for e in drops if e.time <= rest_time]
        frozen_cushion = frozenset(strike.frozen_to_cushion) if strike else frozenset()
        after_contact = (frozenset() if contact is None
                         else frozenset(ball for ball, time in cushions if time >= contact.time))
        anytime = frozenset(ball for ball, _ in cushions)
        if not options.frozen_ball_other_cushion_counts:
            after_contact -= frozen_cushion
            anytime -= frozen_cushion
        final = None
        if final_positions is not None:
            final = dict(final_positions)
            for ball, where in restored.items():
                final.setdefault(ball, where)
        called_off = frozenset(off_table)
        facts = dict(
            cue_ball_start=strike.position if strike else None,
            first_contact=None if contact is None else (contact.b if contact.a == 0 else contact.a),
            cushion_after_contact=after_contact,
            cushion_balls=anytime,
            pocketed=tuple((e.ball, e.pocket) for e in drops),
            off_table=called_off | frozenset(off),
            crossed_head_string_before_contact=before,
            ever_crossed_head_string=ever,
            frozen_to_cushion=frozen_cushion,
            frozen_to_cue_ball=frozenset(strike.frozen_to_cue_ball) if strike else frozenset(),
            final_positions=final,
            declared_fouls=tuple(declared_fouls),
        )
        if own_facts and not called_off and not facts["declared_fouls"]:
            rows = None if final is None else _plain_rows(final)
            if final is None or rows is not None:
                facts["final_positions"] = rows
                return cls._stored(facts)
        return cls(**facts)

    @classmethod
    def from_simulation(cls, cue_ball_start: Point, first_contact: int | None, cushion_after: frozenset[int],
                        cushion_any: frozenset[int], pocketed: tuple[tuple[int, str], ...],
                        late_drops: tuple[tuple[int, Point], ...], off_table: frozenset[int], before: bool,
                        ever: bool, frozen_to_cushion: frozenset[int], frozen_to_cue_ball: frozenset[int],
                        final_rows: tuple[tuple[int, float, float], ...],
                        options: RuleOptions | None = None) -> "ShotEvents":
        """``from_log`` of a simulated shot, from its facts as the simulator's compiled
        plays hold them (``poolgym.physics.simulator.LayoutPlays.facts``, in plain values):
        the cue ball's start, its first contact, the balls that reached a cushion after it
        and at any time (not counting a cushion a ball was frozen to), every drop as
        ``(ball, pocket)`` in order and those after the rest as ``(ball, (x, y))``, the
        balls off the table, the head-string crossings, the frozen balls and the rows
        ``(ball, x, y)`` of the balls at rest, ascending. The same ``ShotEvents``, field for
        field, as ``from_log`` of the shot's log and positions with ``options``
        (tests/rules/test_simulated_facts.py)."""
        options = options or RuleOptions()
        final = final_rows
        if late_drops and options.restore_balls_dropping_after_rest:  # digest 8.17
            late = {ball for ball, _ in late_drops}
            pocketed = tuple([drop for drop in pocketed if drop[0] not in late])
            at_rest = {ball: (x, y) for ball, x, y in final_rows}
            for ball, where in late_drops:
                at_rest.setdefault(ball, where)
            final = _plain_rows(at_rest)
        if not options.frozen_ball_other_cushion_counts:  # WPA 8.4
            cushion_after -= frozen_to_cushion
            cushion_any -= frozen_to_cushion
        facts = dict(cue_ball_start=cue_ball_start, first_contact=first_contact, cushion_after_contact=cushion_after,
                     cushion_balls=cushion_any, pocketed=pocketed, off_table=off_table,
                     crossed_head_string_before_contact=before, ever_crossed_head_string=ever,
                     frozen_to_cushion=frozen_to_cushion, frozen_to_cue_ball=frozen_to_cue_ball,
                     final_positions=final, declared_fouls=())
        if final is None:  # a restored position that is not a pair of finite floats
            facts["final_positions"] = at_rest
            return cls(**facts)
        return cls._stored(facts)

    @classmethod
    def _stored(cls, facts: dict) -> "ShotEvents":
        """Facts already in their stored form (plain ints, floats and strings, frozensets,
        sorted rows; every field given, in field order): set as they are, then checked as
        any."""
        new = stored(cls, **facts)
        new._check()
        return new


def _plain_rows(final: Mapping[int, Point]) -> tuple[tuple[int, float, float], ...] | None:
    """``final``'s rows ``(ball, x, y)`` sorted, when every position is a pair of finite
    plain floats (the simulator's, stored as they are); None otherwise (for the conversions)."""
    rows = sorted([(n, x, y) for n, (x, y) in final.items()])
    isfinite = math.isfinite
    for _, x, y in rows:
        if type(x) is not float or type(y) is not float or not (isfinite(x) and isfinite(y)):
            return None
    return tuple(rows)


def _ball(value) -> int:
    if type(value) is int and value >= 0:
        return value  # the common case, without the checks below
    if isinstance(value, bool) or not isinstance(value, (int,)) and not (
            hasattr(value, "__index__")):
        raise ValueError(f"a ball is named by its number, not {value!r}")
    number = int(value)
    if number < 0:
        raise ValueError(f"ball numbers are 0 (cue ball) and up, not {number}")
    return number


def _row(ball, position) -> tuple[int, float, float]:
    """A ``final_positions`` row ``(ball, x, y)`` from a ball and its position, checked."""
    if type(ball) is int and ball >= 0 and type(position) is tuple and len(position) == 2:
        x, y = position
        if type(x) is float and type(y) is float and math.isfinite(x) and math.isfinite(y):
            return (ball, x, y)  # the simulator's plain values, as _ball and _point return them
    return (_ball(ball),) + _point(position, f"final position of ball {ball}")


def _point(value, what: str) -> Point:
    if type(value) is tuple and len(value) == 2:
        x, y = value
        if type(x) is float and type(y) is float and math.isfinite(x) and math.isfinite(y):
            return value  # already a pair of finite plain floats
    try:
        x, y = (float(v) for v in value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{what} must be an (x, y) pair of numbers in the float range, "
                         f"got {quote(value)}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"{what} must be finite, got ({x}, {y})")
    return (x, y)
