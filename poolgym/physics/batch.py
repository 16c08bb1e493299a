"""Shots played in one compiled call, each reduced to the facts a rules judge reads: where
the balls stopped, the cue ball's first contact, the drops, the balls off the table, the
cushions reached and the head string crossed.

A lookahead plays dozens of strokes a few times each from every position it foresees
(``poolgym.envs.lookahead``), and a batched env one shot on each of its tables at a time
(``poolgym.envs.batched``); through ``Simulator.simulate_many`` each play costs several
times the event loop's own time in Python (the result, its log, the rules' facts). Here the
plays stay compiled from the strike to the facts, read from the log rows exactly as
``poolgym.physics.row_log.RowLog.log_facts`` and ``RowLog.ends`` read them
(``log_facts``).
"""

from __future__ import annotations

import numpy as np

from poolgym.physics import event_core as core
from poolgym.physics.frozen import frozen_contacts
from poolgym.physics.jit import kernel

INF = np.inf


@kernel(inline=True)
def log_facts(log, cue, duration, strike_x, head_x, after, anytime, off, hole, rank, late, drop_x, drop_y):
    """The facts of one play's log rows ``log`` (the cue ball at ball index ``cue``, struck
    at x ``strike_x``; at rest at ``duration``), as ``RowLog.log_facts`` and ``RowLog.ends``
    read them. Per ball index (the arrays ``after`` to ``drop_y``, of the play's balls,
    cleared by the caller): ``after`` and ``anytime``, it reached a cushion it was not frozen
    to at or after the first contact's time, and at any time; ``off``, it left the table;
    ``hole``, the hole it dropped into (-1: none), ``rank`` its place among the drops (0,
    1, ...), ``late`` whether it dropped after the rest (the rules may put it back, digest
    8.17) and ``drop_x``, ``drop_y`` where (of its first drop). Returns the ball index the cue ball touched
    first (-1 for none), that contact's row (the row count for none), whether the cue ball
    reached the head string before that contact and at all (its strike at or past it
    counts, digest 8.15), and whether the log is odd: a ball that dropped twice, or dropped
    and left the table (the rules refuse such facts; the caller hands them on as they
    are)."""
    rows = log.shape[0]
    first = -1
    contact_time = INF
    contact_row = rows
    for r in range(rows):
        if log[r, core.L_KIND] == core.BALL:
            a, b = int(log[r, core.L_A]), int(log[r, core.L_B])
            if a == cue or b == cue:
                first = b if a == cue else a
                contact_time = log[r, core.L_TIME]
                contact_row = r
                break
    before = ever = strike_x >= head_x
    odd = False
    drops = 0
    for r in range(rows):
        kind, a = log[r, core.L_KIND], int(log[r, core.L_A])
        if kind == core.SEGMENT:
            if log[r, core.L_FLAG] == 0.0:  # a ball frozen to this cushion does not count
                anytime[a] = True
                if log[r, core.L_TIME] >= contact_time:
                    after[a] = True
        elif kind == core.BALL:
            continue
        elif kind == core.HEAD:
            if a == cue and log[r, core.L_FLAG] != 0.0:  # the cue ball towards the foot
                ever = True
                if r < contact_row:
                    before = True
        elif kind == core.HOLE:
            if hole[a] >= 0 or off[a]:
                odd = True
            if hole[a] < 0:
                hole[a] = int(log[r, core.L_B])
                rank[a] = drops
                drops += 1
                drop_x[a], drop_y[a] = log[r, core.L_X1], log[r, core.L_Y1]
            if log[r, core.L_TIME] > duration:
                late[a] = True
        else:
            if hole[a] >= 0:
                odd = True
            off[a] = True
    return first, contact_row, before, ever, odd


@kernel()
def play_batch(x0, y0, cue, strikes, P, segments, tips, holes, open_box, frozen, max_events, air):
    """``core.run_shot`` (without paths, with its ``air``: None for the level core, True for
    the airborne one) of each strike row of ``strikes`` from the same layout, and per play
    (row p) the facts of its log (``log_facts``):

    - ``status[p]``: ``run_shot``'s status (``core.DONE``, ``core.TOO_MANY_EVENTS``, or
      ``core.AIRBORNE_SHOT`` from the level core: that play's facts are not filled in);
    - ``xs[p]``, ``ys[p]``, ``on[p]``: every ball's resting place and whether it is on the
      table (in the layout's ball order);
    - ``first[p]``: the ball index the cue ball touched first (-1 for none);
    - ``pocketed[p]``, ``off[p]``: the balls that dropped, and those that left the table;
    - ``cushion_after[p]``: the balls that reached a cushion they were not frozen to at or
      after the first contact's time; ``cushion_any[p]``: at any time;
    - ``late_drop[p]``: a ball dropped after everything came to rest (the rules may put it
      back, digest 8.17);
    - ``departure[p]``: where the first-contact ball was at that contact and where it was at
      its next event (a cushion, a drop, another ball), as x, y, x, y; NaN where there is
      none: the line it left on (``poolgym.agents.bot.shot_search.object_ball_error``).
    """
    plays, n = strikes.shape[0], x0.shape[0]
    status = np.zeros(plays, np.int64)
    xs, ys = np.zeros((plays, n)), np.zeros((plays, n))
    on = np.zeros((plays, n), np.bool_)
    first = np.full(plays, -1, np.int64)
    pocketed = np.zeros((plays, n), np.bool_)
    off = np.zeros((plays, n), np.bool_)
    cushion_after = np.zeros((plays, n), np.bool_)
    cushion_any = np.zeros((plays, n), np.bool_)
    late_drop = np.zeros(plays, np.bool_)
    departure = np.full((plays, 4), np.nan)
    hole, rank = np.empty(n, np.int64), np.empty(n, np.int64)
    late = np.empty(n, np.bool_)
    drop_x, drop_y = np.empty(n), np.empty(n)
    for p in range(plays):
        done, balls, flags, log, _, counts, _, duration = core.run_shot(
            x0, y0, cue, strikes[p], P, segments, tips, holes, open_box, frozen, max_events, False, air)
        status[p] = done
        if done == core.AIRBORNE_SHOT:
            continue
        for k in range(n):
            xs[p, k], ys[p, k], on[p, k] = balls[k, core.X], balls[k, core.Y], flags[k]
        rows = counts[core.C_LOG]
        hole[:] = -1
        late[:] = False
        ball, contact_row, _, _, _ = log_facts(log[:rows], cue, duration, x0[cue], P[core.P_HEAD_X],
                                               cushion_after[p], cushion_any[p], off[p], hole, rank, late,
                                               drop_x, drop_y)
        first[p] = ball
        for k in range(n):
            pocketed[p, k] = hole[k] >= 0
            late_drop[p] |= late[k]
        if ball >= 0:
            r = contact_row
            a = int(log[r, core.L_A])
            x, y = (log[r, core.L_X2], log[r, core.L_Y2]) if a == cue else (log[r, core.L_X1], log[r, core.L_Y1])
            departure[p, 0], departure[p, 1] = x, y
        for r in range(contact_row + 1, rows):
            kind, a, b = log[r, core.L_KIND], int(log[r, core.L_A]), int(log[r, core.L_B])
            if ((kind == core.SEGMENT or kind == core.HOLE) and a == ball) or (kind == core.BALL and a == ball):
                departure[p, 2], departure[p, 3] = log[r, core.L_X1], log[r, core.L_Y1]
                break
            if kind == core.BALL and b == ball:
                departure[p, 2], departure[p, 3] = log[r, core.L_X2], log[r, core.L_Y2]
                break
    return status, xs, ys, on, first, pocketed, off, cushion_after, cushion_any, late_drop, departure


# Columns of ``play_layouts``' per-layout integers (``tables``): ``run_shot``'s status; the
# ball index within the layout the cue ball touched first (-1 for none); whether the cue
# ball reached the head string before that contact, and at all (0 or 1); whether the play
# is plain; the ball numbers, as bits (bit b: ball b), frozen at the strike against a
# cushion and against the cue ball, driven to a cushion they were not frozen to after the
# first contact and at any time, and off the table; how many balls dropped; whether one
# dropped after the rest.
(T_STATUS, T_FIRST, T_BEFORE, T_EVER, T_PLAIN, T_FROZEN_CUSHION, T_FROZEN_CUE, T_AFTER, T_ANYTIME, T_OFF,
 T_DROPS, T_LATE) = range(12)
TABLE_COLUMNS = 12
# Columns of its per-ball floats (``spots``): the resting place, and where it dropped; and
# of its per-ball integers (``marks``): on the table (0 or 1), the hole it dropped into (-1
# for none), whether after the rest, and ``order``: entry ``starts[t] + j`` of this column
# is the flat index of the j-th ball of layout ``t`` to drop.
S_X, S_Y, S_DROP_X, S_DROP_Y = range(4)
M_ON, M_HOLE, M_LATE, M_ORDER = range(4)


@kernel()
def play_layouts(x0, y0, nums, starts, strikes, P, segments, tips, holes, open_box, marks, max_events, air, todo):
    """``core.run_shot`` (without paths, with its ``air`` as in ``play_batch``) of strike row
    ``t`` of ``strikes`` from layout ``t``, for every layout ``t`` with ``todo[t]``: the
    tables of a batched env, each with its own balls, in one compiled call, with the facts
    of each play's log (``log_facts``).

    Layout ``t`` holds the balls ``starts[t]:starts[t + 1]`` of the flat ``x0``, ``y0`` and
    ``nums`` (their ball numbers, ascending; the cue ball is number 0). Its contacts frozen
    at the strike are found here (``frozen_contacts``, with ``marks`` as there). Returns:

    - ``tables``: per layout, the integers of the ``T_*`` columns. A play is plain when it
      ended (``core.DONE``), every ball on the table is inside the table's rectangle and no
      ball dropped twice or both dropped and left the table: its facts need no other check;
    - ``durations``: per layout, the time everything came to rest;
    - ``spots`` and ``ball_marks``: per ball (flat, as the input), the ``S_*`` floats and
      the ``M_*`` integers;
    - its log rows ``log_rows[log_starts[t]:log_starts[t + 1]]`` (all of them, as
      ``run_shot``'s ``log`` up to its row count);
    - how many plays the level core (``air`` None) handed on as ``core.AIRBORNE_SHOT``.

    A layout whose status is ``core.AIRBORNE_SHOT``, or that is not ``todo``, has no log
    rows and no facts.
    """
    count, total = strikes.shape[0], x0.shape[0]
    tables = np.zeros((count, TABLE_COLUMNS), np.int64)
    durations = np.zeros(count)
    spots = np.zeros((total, 4))
    ball_marks = np.zeros((total, 4), np.int64)
    after = np.zeros(total, np.bool_)
    anytime = np.zeros(total, np.bool_)
    off = np.zeros(total, np.bool_)
    hole = np.full(total, -1, np.int64)
    rank = np.zeros(total, np.int64)
    late = np.zeros(total, np.bool_)
    drop_x, drop_y = np.zeros(total), np.zeros(total)
    log_starts = np.zeros(count + 1, np.int64)
    radius, tolerance, head_x = P[core.P_R], P[core.P_FROZEN_TOL], P[core.P_HEAD_X]
    length, width = P[core.P_LENGTH], P[core.P_WIDTH]
    logs = []
    airborne = 0
    for t in range(count):
        s, e = starts[t], starts[t + 1]
        if not todo[t]:
            logs.append(np.empty((0, core.LOG_COLUMNS)))
            log_starts[t + 1] = log_starts[t]
            continue
        bx, by = np.ascontiguousarray(x0[s:e]), np.ascontiguousarray(y0[s:e])
        cue = 0
        while nums[s + cue] != 0:
            cue += 1
        frozen, on_cushion, on_cue = frozen_contacts(bx, by, cue, segments, marks, open_box, radius, tolerance)
        row = tables[t]
        for k in range(e - s):
            bit = np.int64(1) << nums[s + k]
            if on_cushion[k]:
                row[T_FROZEN_CUSHION] |= bit
            if on_cue[k]:
                row[T_FROZEN_CUE] |= bit
        done, B, flags, log, _, counts, _, duration = core.run_shot(
            bx, by, cue, np.ascontiguousarray(strikes[t]), P, segments, tips, holes, open_box, frozen,
            max_events, False, air)
        row[T_STATUS], durations[t] = done, duration
        rows = 0 if done == core.AIRBORNE_SHOT else counts[core.C_LOG]
        logs.append(log[:rows].copy())
        log_starts[t + 1] = log_starts[t] + rows
        if done == core.AIRBORNE_SHOT:
            airborne += 1
            continue
        inside = True
        for k in range(e - s):
            x, y = B[k, core.X], B[k, core.Y]
            spots[s + k, S_X], spots[s + k, S_Y], ball_marks[s + k, M_ON] = x, y, flags[k]
            if flags[k] and not (0.0 <= x <= length and 0.0 <= y <= width):
                inside = False
        first, _, before, ever, odd = log_facts(
            log[:rows], cue, duration, bx[cue], head_x, after[s:e], anytime[s:e], off[s:e], hole[s:e],
            rank[s:e], late[s:e], drop_x[s:e], drop_y[s:e])
        row[T_FIRST], row[T_BEFORE], row[T_EVER] = first, before, ever
        row[T_PLAIN] = done == core.DONE and inside and not odd
        for k in range(s, e):
            bit = np.int64(1) << nums[k]
            if after[k]:
                row[T_AFTER] |= bit
            if anytime[k]:
                row[T_ANYTIME] |= bit
            if off[k]:
                row[T_OFF] |= bit
            ball_marks[k, M_HOLE] = hole[k]
            if hole[k] >= 0:
                ball_marks[s + rank[k], M_ORDER] = k
                spots[k, S_DROP_X], spots[k, S_DROP_Y] = drop_x[k], drop_y[k]
                ball_marks[k, M_LATE] = late[k]
                row[T_DROPS] += 1
                if late[k]:
                    row[T_LATE] = 1
    log_rows = np.empty((log_starts[count], core.LOG_COLUMNS))
    for t in range(count):
        log_rows[log_starts[t]:log_starts[t + 1]] = logs[t]
    return tables, durations, spots, ball_marks, log_rows, log_starts, airborne
