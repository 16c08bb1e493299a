"""Many shots from one layout in one compiled call, each reduced to the facts a rules judge
reads: where the balls stopped, the cue ball's first contact, the drops, the balls off the
table and the cushions reached.

A lookahead plays dozens of strokes a few times each from every position it foresees
(``poolgym.envs.lookahead``); through ``Simulator.simulate_many`` each play costs several
times the event loop's own time in Python (the result, its log, the rules' facts). Here the
plays stay compiled from the strike to the facts, read from the log rows exactly as
``poolgym.physics.row_log.RowLog.log_facts`` and ``RowLog.ends`` read them.
"""

from __future__ import annotations

import numpy as np

from poolgym.physics import event_core as core
from poolgym.physics.jit import kernel

INF = np.inf


@kernel()
def play_batch(x0, y0, cue, strikes, P, segments, tips, holes, open_box, frozen, max_events, air):
    """``core.run_shot`` (without paths, with its ``air``: None for the level core, True for
    the airborne one) of each strike row of ``strikes`` from the same layout, and per play
    (row p) the facts of its log:

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
    for p in range(plays):
        done, balls, flags, log, _, counts, _, duration = core.run_shot(
            x0, y0, cue, strikes[p], P, segments, tips, holes, open_box, frozen, max_events, False, air)
        status[p] = done
        if done == core.AIRBORNE_SHOT:
            continue
        for k in range(n):
            xs[p, k], ys[p, k], on[p, k] = balls[k, core.X], balls[k, core.Y], flags[k]
        rows = counts[core.C_LOG]
        contact_time = INF
        contact_row = rows
        for r in range(rows):
            if log[r, core.L_KIND] == core.BALL:
                a, b = int(log[r, core.L_A]), int(log[r, core.L_B])
                if a == cue or b == cue:
                    first[p] = b if a == cue else a
                    contact_time = log[r, core.L_TIME]
                    contact_row = r
                    x, y = (log[r, core.L_X2], log[r, core.L_Y2]) if a == cue else (log[r, core.L_X1], log[r, core.L_Y1])
                    departure[p, 0], departure[p, 1] = x, y
                    break
        ball = first[p]
        for r in range(contact_row + 1, rows):
            kind, a, b = log[r, core.L_KIND], int(log[r, core.L_A]), int(log[r, core.L_B])
            if ((kind == core.SEGMENT or kind == core.HOLE) and a == ball) or (kind == core.BALL and a == ball):
                departure[p, 2], departure[p, 3] = log[r, core.L_X1], log[r, core.L_Y1]
                break
            if kind == core.BALL and b == ball:
                departure[p, 2], departure[p, 3] = log[r, core.L_X2], log[r, core.L_Y2]
                break
        for r in range(rows):
            kind, a = log[r, core.L_KIND], int(log[r, core.L_A])
            if kind == core.SEGMENT:
                if log[r, core.L_FLAG] == 0.0:  # a ball frozen to this cushion does not count
                    cushion_any[p, a] = True
                    if log[r, core.L_TIME] >= contact_time:
                        cushion_after[p, a] = True
            elif kind == core.HOLE:
                pocketed[p, a] = True
                if log[r, core.L_TIME] > duration:
                    late_drop[p] = True
            elif kind != core.BALL and kind != core.HEAD:
                off[p, a] = True
    return status, xs, ys, on, first, pocketed, off, cushion_after, cushion_any, late_drop, departure


@kernel()
def play_layouts(x0, y0, starts, cues, strikes, P, segments, tips, holes, open_box, frozen, max_events, air):
    """``core.run_shot`` (without paths, with its ``air`` as in ``play_batch``) of strike row
    ``t`` of ``strikes`` from layout ``t``, for every layout: the tables of a batched env,
    each with its own balls, in one compiled call.

    Layout ``t`` holds the balls ``starts[t]:starts[t + 1]`` of the flat ``x0``, ``y0`` and
    ``frozen`` (its rows of ``core.run_shot``'s ``frozen``), its cue ball at index
    ``cues[t]`` among them. Returns per layout its ``status``, the balls' final ``balls``
    rows and ``on`` flags (flat, as the input), its ``duration``, and its log rows:
    ``log[log_starts[t]:log_starts[t + 1]]`` (all of them, as ``run_shot``'s ``log`` up to
    its row count). A layout whose status is ``core.AIRBORNE_SHOT`` has no log rows.
    """
    tables, total = strikes.shape[0], x0.shape[0]
    status = np.zeros(tables, np.int64)
    durations = np.zeros(tables)
    balls = np.zeros((total, core.BALL_COLUMNS))
    on = np.zeros(total, np.bool_)
    log_starts = np.zeros(tables + 1, np.int64)
    logs = []
    for t in range(tables):
        s, e = starts[t], starts[t + 1]
        done, B, flags, log, _, counts, _, duration = core.run_shot(
            np.ascontiguousarray(x0[s:e]), np.ascontiguousarray(y0[s:e]), cues[t],
            np.ascontiguousarray(strikes[t]), P, segments, tips, holes, open_box,
            np.ascontiguousarray(frozen[s:e]), max_events, False, air)
        status[t], durations[t] = done, duration
        rows = 0 if done == core.AIRBORNE_SHOT else counts[core.C_LOG]
        balls[s:e] = B
        on[s:e] = flags
        logs.append(log[:rows].copy())
        log_starts[t + 1] = log_starts[t] + rows
    log_rows = np.empty((log_starts[tables], core.LOG_COLUMNS))
    for t in range(tables):
        log_rows[log_starts[t]:log_starts[t + 1]] = logs[t]
    return status, balls, on, durations, log_rows, log_starts
