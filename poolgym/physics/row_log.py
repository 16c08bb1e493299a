"""A shot's event log as the compiled loop wrote it: rows decoded into the typed events of
``poolgym.events`` only when someone reads them.

A bot judges hundreds of simulated shots per move and an env two per step; the rules need a
handful of facts from each log (``poolgym.events.log_facts``), not the events themselves.
``RowLog.log_facts`` reads those facts from the rows directly, building only the events the
facts are made of (the cue ball's first contact and the drops); ``RowLog.events`` decodes
the whole log, once, for whoever asks (``ShotResult.events``: recordings, renderers, tools).
"""

from __future__ import annotations

from poolgym import events as ev
from poolgym.physics import event_core as core

# The row kinds the hot loops below compare against, as the floats the rows hold: local
# float comparisons, not a module attribute and an int-float comparison per row.
_BALL, _SEGMENT, _HOLE, _HEAD = float(core.BALL), float(core.SEGMENT), float(core.HOLE), float(core.HEAD)


class RowLog:
    """The rows ``(kind, time, a, b, x1, y1, x2, y2, flag)`` of one shot's log (the compiled
    loop's ``L_*`` columns, as plain Python lists) with what decodes them: the ``Strike``
    that opened the shot, the shot's duration (its ``Rest``), the ball number of each of the
    loop's ball indices, and the cushion and pocket ids of its feature indices."""

    __slots__ = ("rows", "strike", "duration", "nums", "cushion_ids", "pocket_ids", "_events")

    def __init__(self, rows: list, strike: ev.Strike, duration: float, nums: list[int],
                 cushion_ids: tuple[str, ...], pocket_ids: tuple[str, ...]) -> None:
        self.rows, self.strike, self.duration = rows, strike, duration
        self.nums, self.cushion_ids, self.pocket_ids = nums, cushion_ids, pocket_ids
        self._events = None

    def events(self) -> tuple[ev.Event, ...]:
        """The typed log in time order: the strike, one event per row, the rest (decoded on
        the first call, the same tuple after)."""
        if self._events is None:
            nums = self.nums
            events: list[ev.Event] = [self.strike]
            for kind, t, a, b, x1, y1, x2, y2, flag in self.rows:
                a, b = int(a), int(b)
                if kind == core.BALL:
                    events.append(ev.BallBall(t, nums[a], nums[b], (x1, y1), (x2, y2)))
                elif kind == core.SEGMENT:
                    events.append(ev.BallCushion(t, nums[a], self.cushion_ids[b], (x1, y1), flag != 0.0))
                elif kind == core.HOLE:
                    events.append(ev.Pocketed(t, nums[a], self.pocket_ids[b], (x1, y1)))
                elif kind == core.HEAD:
                    events.append(ev.HeadStringCrossing(t, nums[a], (x1, y1), flag != 0.0))
                else:
                    events.append(ev.OffTable(t, nums[a], (x1, y1), flag))
            events.append(ev.Rest(self.duration))
            self._events = tuple(events)
        return self._events

    def ends(self) -> tuple[dict[int, str], dict[int, tuple[float, float]]]:
        """Where balls left the bed: ball -> pocket id of each drop, and ball -> (x, y) of
        each ball off the table, in the order of the log (``ShotResult.pocketed`` and
        ``off_table``)."""
        nums = self.nums
        pocketed, off_table = {}, {}
        for row in self.rows:
            kind = row[0]
            if kind == _SEGMENT or kind == _BALL or kind == _HEAD:  # most rows: nothing left the bed
                continue
            if kind == _HOLE:
                pocketed[nums[int(row[2])]] = self.pocket_ids[int(row[3])]
            else:
                off_table[nums[int(row[2])]] = (row[4], row[5])
        return pocketed, off_table

    def log_facts(self, head_string_x: float) -> tuple:
        """``poolgym.events.log_facts`` of ``events()``, fact for fact, read from the rows
        (``tests/physics/test_row_log.py`` compares them)."""
        nums = self.nums
        strike = self.strike
        contact = None
        drops, cushions, off = [], [], []
        before = ever = False
        if strike.ball == 0 and strike.position[0] >= head_string_x:
            before = ever = True
        for kind, t, a, b, x1, y1, x2, y2, flag in self.rows:
            if kind == _SEGMENT:  # the kinds in the order of how often they come
                if flag == 0.0:  # a ball frozen to this cushion (flag set) does not count
                    cushions.append((nums[int(a)], t))
            elif kind == _BALL:
                if contact is None:
                    na, nb = nums[int(a)], nums[int(b)]
                    if na == 0 or nb == 0:
                        contact = ev.BallBall(t, na, nb, (x1, y1), (x2, y2))
            elif kind == _HEAD:
                if nums[int(a)] == 0 and flag != 0.0:
                    ever = True
                    before = before or contact is None
            elif kind == _HOLE:
                drops.append(ev.Pocketed(t, nums[int(a)], self.pocket_ids[int(b)], (x1, y1)))
            else:
                off.append(nums[int(a)])
        return strike, self.duration, drops, cushions, contact, off, before, ever
