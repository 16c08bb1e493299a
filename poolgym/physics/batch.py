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


@kernel()
def play_layouts(x0, y0, nums, starts, strikes, P, segments, tips, holes, open_box, marks, max_events, air, todo):
    """``core.run_shot`` (without paths, with its ``air`` as in ``play_batch``) of strike row
    ``t`` of ``strikes`` from layout ``t``, for every layout ``t`` with ``todo[t]``: the
    tables of a batched env, each with its own balls, in one compiled call, with the facts
    of each play's log (``log_facts``).

    Layout ``t`` holds the balls ``starts[t]:starts[t + 1]`` of the flat ``x0``, ``y0`` and
    ``nums`` (their ball numbers, ascending; the cue ball is number 0). Its contacts frozen
    at the strike are found here (``frozen_contacts``, with ``marks`` as there). Returns:

    - per layout: ``status`` (``run_shot``'s), ``durations``; ``first`` (the ball index
      within the layout the cue ball touched first, -1 for none), ``before`` and ``ever``
      (the cue ball reached the head string before that contact, and at all); the ball
      numbers, as bits (bit b: ball b), ``frozen_cushion`` and ``frozen_cue`` (at rest
      against a cushion, against the cue ball, at the strike), ``after`` and ``anytime``
      (reached a cushion they were not frozen to after the first contact, at any time) and
      ``off`` (left the table); ``drops`` (how many balls dropped), ``late`` (one dropped
      after the rest); ``plain``: the play ended (``core.DONE``), every ball on the table
      is inside the table's rectangle and no ball dropped twice or both dropped and left
      the table (the facts need no other check);
    - per ball (flat, as the input): ``xs``, ``ys``, ``on`` (its resting place, on the
      table), ``hole`` (the hole it dropped into, -1 for none), ``dropped_late`` and
      ``drop_x``, ``drop_y`` (where it dropped); ``order``: entry ``starts[t] + j`` holds
      the flat index of the j-th ball to drop of layout ``t``;
    - its log rows ``log_rows[log_starts[t]:log_starts[t + 1]]`` (all of them, as
      ``run_shot``'s ``log`` up to its row count).

    A layout whose status is ``core.AIRBORNE_SHOT``, or that is not ``todo``, has no log
    rows and no facts.
    """
    tables, total = strikes.shape[0], x0.shape[0]
    status = np.zeros(tables, np.int64)
    durations = np.zeros(tables)
    first = np.full(tables, -1, np.int64)
    before = np.zeros(tables, np.bool_)
    ever = np.zeros(tables, np.bool_)
    plain = np.zeros(tables, np.bool_)
    frozen_cushion = np.zeros(tables, np.int64)
    frozen_cue = np.zeros(tables, np.int64)
    after_bits = np.zeros(tables, np.int64)
    anytime_bits = np.zeros(tables, np.int64)
    off_bits = np.zeros(tables, np.int64)
    drops = np.zeros(tables, np.int64)
    late_any = np.zeros(tables, np.bool_)
    xs, ys = np.zeros(total), np.zeros(total)
    on = np.zeros(total, np.bool_)
    after = np.zeros(total, np.bool_)
    anytime = np.zeros(total, np.bool_)
    off = np.zeros(total, np.bool_)
    hole = np.full(total, -1, np.int64)
    rank = np.zeros(total, np.int64)
    late = np.zeros(total, np.bool_)
    drop_x, drop_y = np.zeros(total), np.zeros(total)
    order = np.zeros(total, np.int64)
    log_starts = np.zeros(tables + 1, np.int64)
    radius, tolerance, head_x = P[core.P_R], P[core.P_FROZEN_TOL], P[core.P_HEAD_X]
    length, width = P[core.P_LENGTH], P[core.P_WIDTH]
    logs = []
    for t in range(tables):
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
        for k in range(e - s):
            bit = np.int64(1) << nums[s + k]
            if on_cushion[k]:
                frozen_cushion[t] |= bit
            if on_cue[k]:
                frozen_cue[t] |= bit
        done, B, flags, log, _, counts, _, duration = core.run_shot(
            bx, by, cue, np.ascontiguousarray(strikes[t]), P, segments, tips, holes, open_box, frozen,
            max_events, False, air)
        status[t], durations[t] = done, duration
        rows = 0 if done == core.AIRBORNE_SHOT else counts[core.C_LOG]
        logs.append(log[:rows].copy())
        log_starts[t + 1] = log_starts[t] + rows
        if done == core.AIRBORNE_SHOT:
            continue
        inside = True
        for k in range(e - s):
            x, y = B[k, core.X], B[k, core.Y]
            xs[s + k], ys[s + k], on[s + k] = x, y, flags[k]
            if flags[k] and not (0.0 <= x <= length and 0.0 <= y <= width):
                inside = False
        ball, _, before[t], ever[t], odd = log_facts(
            log[:rows], cue, duration, bx[cue], head_x, after[s:e], anytime[s:e], off[s:e], hole[s:e],
            rank[s:e], late[s:e], drop_x[s:e], drop_y[s:e])
        first[t] = ball
        plain[t] = done == core.DONE and inside and not odd
        for k in range(e - s):
            bit = np.int64(1) << nums[s + k]
            if after[s + k]:
                after_bits[t] |= bit
            if anytime[s + k]:
                anytime_bits[t] |= bit
            if off[s + k]:
                off_bits[t] |= bit
            if hole[s + k] >= 0:
                order[s + rank[s + k]] = s + k
                drops[t] += 1
                if late[s + k]:
                    late_any[t] = True
    log_rows = np.empty((log_starts[tables], core.LOG_COLUMNS))
    for t in range(tables):
        log_rows[log_starts[t]:log_starts[t + 1]] = logs[t]
    return (status, durations, first, before, ever, plain, frozen_cushion, frozen_cue, after_bits, anytime_bits,
            off_bits, drops, late_any, xs, ys, on, hole, late, drop_x, drop_y, order, log_rows, log_starts)
