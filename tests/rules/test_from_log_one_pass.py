"""``ShotEvents.from_log`` reads its facts in one pass over the log; they equal the
``poolgym.events`` queries it used to call one by one, on simulated shots (breaks, random
strokes from many layouts, with and without the rule options that change the reading) and
on hand-made logs of the cases a simulation seldom shows."""

from __future__ import annotations

import math

import numpy as np
import pytest

from poolgym import events as ev
from poolgym.physics import Shot, Simulator
from poolgym.rules import RuleOptions, ShotEvents
from poolgym.table import Table

TABLE = Table.preset("9ft")


def reference(log, table, final_positions, options):
    """``from_log`` as it was written with the ``poolgym.events`` queries."""
    log = tuple(log)
    strike = next((e for e in log if isinstance(e, ev.Strike)), None)
    rest_time = next((e.time for e in log if isinstance(e, ev.Rest)), math.inf)
    drops = [e for e in log if isinstance(e, ev.Pocketed)]
    restored = {}
    if options.restore_balls_dropping_after_rest:
        restored = {e.ball: e.position for e in drops if e.time > rest_time}
        drops = [e for e in drops if e.time <= rest_time]
    frozen_cushion = frozenset(strike.frozen_to_cushion) if strike else frozenset()
    after_contact = ev.cushion_after_contact(log)
    anytime = ev.cushion_balls(log)
    if not options.frozen_ball_other_cushion_counts:
        after_contact -= frozen_cushion
        anytime -= frozen_cushion
    hs = table.head_string_x
    final = dict(final_positions)
    for ball, where in restored.items():
        final.setdefault(ball, where)
    return ShotEvents(
        cue_ball_start=strike.position if strike else None, first_contact=ev.first_contact(log),
        cushion_after_contact=after_contact, cushion_balls=anytime,
        pocketed=tuple((e.ball, e.pocket) for e in drops), off_table=ev.off_table(log),
        crossed_head_string_before_contact=ev.crossed_head_string_before_contact(log, hs),
        ever_crossed_head_string=ev.ever_crossed_head_string(log, hs),
        frozen_to_cushion=frozen_cushion,
        frozen_to_cue_ball=frozenset(strike.frozen_to_cue_ball) if strike else frozenset(),
        final_positions=final)


OPTIONS = [RuleOptions(), RuleOptions(restore_balls_dropping_after_rest=True),
           RuleOptions(frozen_ball_other_cushion_counts=False)]


def simulated_logs(count: int, seed: int):
    """(log, final positions) of random strokes from random layouts, and of breaks."""
    rng = np.random.default_rng(seed)
    sim = Simulator(TABLE)
    R = TABLE.ball_radius
    rack = dict(enumerate(TABLE.rack_positions((1, 2, 3, 2, 1)), start=1))
    rack[0] = (TABLE.head_string_x - 0.3, TABLE.width / 2)
    out = []
    for k in range(count):
        if k % 5 == 0:
            layout = rack
            shot = Shot(float(rng.uniform(6, 10)), float(rng.uniform(-2, 2)), 0.0, 0.0)
        else:
            layout = {}
            while len(layout) < 6:
                p = (float(rng.uniform(R, TABLE.length - R)), float(rng.uniform(R, TABLE.width - R)))
                if all(math.dist(p, q) > 2.2 * R for q in layout.values()):
                    layout[len(layout)] = p
            shot = Shot(float(rng.uniform(0.5, 8)), float(rng.uniform(-180, 180)),
                        float(rng.uniform(-0.4, 0.4)), float(rng.uniform(-0.4, 0.4)))
        result = sim.simulate(layout, shot)
        out.append((result.events, result.positions))
    return out


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "restore", "frozen-excluded"])
def test_one_pass_facts_equal_the_event_queries_on_simulated_shots(options):
    logs = simulated_logs(60, seed=4)
    for log, final in logs:
        assert ShotEvents.from_log(log, TABLE, final_positions=final, options=options) == \
            reference(log, TABLE, final, options)
    # The shots cover contacts and misses, pots and cushions.
    assert any(ev.first_contact(log) is None for log, _ in logs)
    assert any(ev.pocketed(log) for log, _ in logs) and any(ev.cushion_balls(log) for log, _ in logs)


def test_one_pass_facts_equal_the_event_queries_on_hand_made_logs():
    hs = TABLE.head_string_x
    strike = ev.Strike(0.0, 0, (hs + 0.1, 0.6), 2.0, 0.0, 0.0, 0.0, frozen_to_cushion=(3,),
                       frozen_to_cue_ball=(2,))
    behind = ev.Strike(0.0, 0, (0.4, 0.6), 2.0, 0.0, 0.0, 0.0)
    logs = [
        # crossing the string only after the first contact; a cushion at the contact's time
        (behind, ev.BallCushion(0.5, 3, "left", (1.0, 0.03)), ev.BallBall(0.5, 0, 3, (1, 1), (1, 1)),
         ev.HeadStringCrossing(0.7, 0, (hs, 0.6), True), ev.Rest(2.0)),
        # crossing before contact, back again, a frozen ball's cushion, a ball dropping after rest
        (behind, ev.HeadStringCrossing(0.2, 0, (hs, 0.6), True), ev.HeadStringCrossing(0.3, 0, (hs, 0.6), False),
         ev.BallCushion(0.4, 3, "left", (1.0, 0.03), was_frozen=True), ev.BallBall(0.6, 4, 0, (1, 1), (1, 1)),
         ev.Rest(1.0), ev.Pocketed(1.2, 4, "foot_left", (2.5, 0.0)), ev.Rest(1.5)),
        # struck past the string, no contact, off the table, another ball's crossing
        (strike, ev.HeadStringCrossing(0.2, 5, (hs, 0.6), True), ev.OffTable(0.4, 0, (3.0, 0.2), 0.1),
         ev.BallCushion(0.5, 3, "left", (1.0, 0.03))),
        # no strike and no rest at all
        (ev.BallCushion(0.5, 3, "left", (1.0, 0.03)), ev.Pocketed(0.6, 3, "side_left", (1.2, 0.0))),
    ]
    for log in logs:
        for options in OPTIONS:
            final = {1: (1.0, 1.0)}
            assert ShotEvents.from_log(iter(log), TABLE, final_positions=final, options=options) == \
                reference(log, TABLE, final, options)
