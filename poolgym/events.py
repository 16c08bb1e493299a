"""The shot's event log: typed, frozen records and the queries derived from them.

This is the one contract between the physics (which writes the log) and the rules (which
read it); it imports neither. Events are in time order. Positions are ball centres in the
table frame (see ``poolgym.table``); ball 0 is the cue ball.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Union

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Strike:
    """The cue hits ``ball`` at ``position``. Values are those executed (after any noise).

    ``frozen_to_cushion`` lists the balls touching a cushion at the strike and
    ``frozen_to_cue_ball`` those touching the cue ball (gap below the frozen tolerance).
    """

    time: float
    ball: int
    position: Point
    speed: float
    angle_deg: float
    side: float
    vertical: float
    miscue: bool = False
    frozen_to_cushion: tuple[int, ...] = ()
    frozen_to_cue_ball: tuple[int, ...] = ()
    elevation_deg: float = 0.0


@dataclass(frozen=True, slots=True)
class BallBall:
    """Balls ``a`` and ``b`` collide; ``a`` is the one that was moving faster."""

    time: float
    a: int
    b: int
    position_a: Point
    position_b: Point


@dataclass(frozen=True, slots=True)
class BallCushion:
    """``ball`` hits cushion segment ``cushion`` (a rail, a pocket jaw or a pocket back).

    ``was_frozen`` is true when the ball was resting against that same cushion at the strike
    and had not left it (WPA 8.4: such a contact does not count as driving it to a cushion).
    """

    time: float
    ball: int
    cushion: str
    position: Point
    was_frozen: bool = False


@dataclass(frozen=True, slots=True)
class Pocketed:
    """``ball`` drops into ``pocket``."""

    time: float
    ball: int
    pocket: str
    position: Point


@dataclass(frozen=True, slots=True)
class OffTable:
    """``ball`` leaves the table (WPA 8.5): it flew or rolled past the rail's outer edge, or
    came to rest on the rail top. ``position`` is its centre where it left (x, y) and
    ``height`` the height of its lowest point above the bed there."""

    time: float
    ball: int
    position: Point
    height: float


@dataclass(frozen=True, slots=True)
class HeadStringCrossing:
    """The struck ball's centre crosses the head string; ``towards_foot`` gives the way."""

    time: float
    ball: int
    position: Point
    towards_foot: bool


@dataclass(frozen=True, slots=True)
class Rest:
    """Every ball is at rest (speeds and spins below the threshold): the shot is over."""

    time: float


Event = Union[Strike, BallBall, BallCushion, Pocketed, OffTable, HeadStringCrossing, Rest]


# --------------------------------------------------------------------------- queries
def struck_ball(events: Iterable[Event]) -> int:
    """The ball the cue hit (0 unless a variant strikes another ball)."""
    for e in events:
        if isinstance(e, Strike):
            return e.ball
    raise ValueError("the event log has no Strike")


def first_contact(events: Iterable[Event], cue_ball: int = 0) -> int | None:
    """The first ball the cue ball touches, or None when it touches none."""
    for e in events:
        if isinstance(e, BallBall) and cue_ball in (e.a, e.b):
            return e.b if e.a == cue_ball else e.a
    return None


def first_contact_time(events: Iterable[Event], cue_ball: int = 0) -> float | None:
    for e in events:
        if isinstance(e, BallBall) and cue_ball in (e.a, e.b):
            return e.time
    return None


def cushion_balls(events: Iterable[Event]) -> frozenset[int]:
    """Balls that reached a cushion at any time (contacts of frozen balls excluded)."""
    return frozenset(e.ball for e in events if isinstance(e, BallCushion) and not e.was_frozen)


def cushion_after_contact(events: Iterable[Event], cue_ball: int = 0) -> frozenset[int]:
    """Balls, cue ball included, that reached a cushion after the cue ball's first contact.

    Frozen balls' contacts are excluded; pocketed balls are not added here (WPA 8.4 counts
    them, which is the rules' call).
    """
    events = tuple(events)
    t0 = first_contact_time(events, cue_ball)
    if t0 is None:
        return frozenset()
    return frozenset(e.ball for e in events
                     if isinstance(e, BallCushion) and not e.was_frozen and e.time >= t0)


def off_table(events: Iterable[Event]) -> frozenset[int]:
    """Balls that left the table (``OffTable`` events)."""
    return frozenset(e.ball for e in events if isinstance(e, OffTable))


def pocketed(events: Iterable[Event]) -> dict[int, str]:
    """Pocketed balls and their pockets, in the order they dropped."""
    return {e.ball: e.pocket for e in events if isinstance(e, Pocketed)}


def crossed_head_string_before_contact(events: Iterable[Event], head_string_x: float,
                                       cue_ball: int = 0) -> bool:
    """Whether the cue-ball centre reached x >= head string before its first contact (WPA 6.11).

    True at once when the cue ball starts at or past the string; a shot without contact
    looks at the whole shot.
    """
    for e in events:
        if isinstance(e, Strike):
            if e.ball == cue_ball and e.position[0] >= head_string_x:
                return True
        elif isinstance(e, HeadStringCrossing) and e.ball == cue_ball and e.towards_foot:
            return True
        elif isinstance(e, BallBall) and cue_ball in (e.a, e.b):
            return False
    return False


def ever_crossed_head_string(events: Iterable[Event], head_string_x: float, cue_ball: int = 0) -> bool:
    """Whether the cue-ball centre reached x >= head string at any time during the shot."""
    for e in events:
        if isinstance(e, Strike) and e.ball == cue_ball and e.position[0] >= head_string_x:
            return True
        if isinstance(e, HeadStringCrossing) and e.ball == cue_ball and e.towards_foot:
            return True
    return False


def log_facts(events: Iterable[Event], head_string_x: float) -> tuple:
    """What ``poolgym.rules.ShotEvents.from_log`` reads from an event log, in one pass over
    it (the queries above, each a pass of its own, for a log judged many times over): the first
    ``Strike``, the first ``Rest``'s time (inf without one), the ``Pocketed`` events, the
    (ball, time) of every ``BallCushion`` of a ball that was not frozen there, the cue
    ball's first ``BallBall`` (None without one), the balls of the ``OffTable`` events, and
    whether the cue ball reached the head string before its first contact and at all --
    ``first_contact``, ``cushion_balls``, ``cushion_after_contact``, ``off_table``,
    ``crossed_head_string_before_contact`` and ``ever_crossed_head_string`` for the cue
    ball, fact for fact (``tests/rules/test_from_log_one_pass.py`` compares them).

    A log that reads its own facts (the simulator's ``poolgym.physics.row_log.RowLog``: a
    ``log_facts`` method taking the head string's x) answers for itself, without building
    its events."""
    own = getattr(events, "log_facts", None)
    if own is not None:
        return own(head_string_x)
    strike = contact = None
    rest_time = math.inf
    drops, cushions, off = [], [], []
    before = ever = rested = False
    for e in events:
        if isinstance(e, BallCushion):
            if not e.was_frozen:
                cushions.append((e.ball, e.time))
        elif isinstance(e, BallBall):
            if contact is None and (e.a == 0 or e.b == 0):
                contact = e
        elif isinstance(e, HeadStringCrossing):
            if e.ball == 0 and e.towards_foot:
                ever = True
                before = before or contact is None
        elif isinstance(e, Strike):
            if strike is None:
                strike = e
            if e.ball == 0 and e.position[0] >= head_string_x:
                ever = True
                before = before or contact is None
        elif isinstance(e, Pocketed):
            drops.append(e)
        elif isinstance(e, OffTable):
            off.append(e.ball)
        elif isinstance(e, Rest) and not rested:
            rest_time, rested = e.time, True
    return strike, rest_time, drops, cushions, contact, off, before, ever


def duration(events: Iterable[Event]) -> float:
    """Simulated seconds from the strike to rest (0 for an empty log)."""
    t = 0.0
    for e in events:
        t = e.time
    return t
