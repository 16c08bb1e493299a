"""The simulator's ``RowLog``: the facts it reads from its rows equal those of the events it
decodes (``poolgym.events.log_facts``), so the rules judge a shot the same from either; a
result built from its log decodes its events once, on first read, and compares, copies and
pickles like one built from its events."""

from __future__ import annotations

import copy
import pickle
from dataclasses import replace

import numpy as np
import pytest

from poolgym import events as ev
from poolgym.physics import Shot, ShotResult, Simulator
from poolgym.physics.invariants import random_layout, random_shot
from poolgym.rules import RuleOptions, ShotEvents
from poolgym.table import Table

TABLE = Table.preset("9ft")
HS = TABLE.head_string_x
OPTIONS = [RuleOptions(), RuleOptions(restore_balls_dropping_after_rest=True),
           RuleOptions(frozen_ball_other_cushion_counts=False)]


def shots(count: int, seed: int):
    """(layout, shot) pairs: breaks from the kitchen, random strokes from random layouts
    (some from behind the head string, some with the cue raised, so that the log holds
    head-string crossings and balls off the table), and shots at frozen balls."""
    rng = np.random.default_rng(seed)
    rack = dict(enumerate(TABLE.rack_positions((1, 2, 3, 2, 1)), start=1))
    R = TABLE.ball_radius
    out = []
    for k in range(count):
        if k % 6 == 0:
            layout = {**rack, 0: (float(rng.uniform(0.3, HS - 0.05)), float(rng.uniform(0.3, TABLE.width - 0.3)))}
            shot = Shot(float(rng.uniform(6, 12)), float(rng.uniform(-3, 3)), 0.0, float(rng.uniform(-0.3, 0.3)))
        elif k % 6 == 1:
            # A ball frozen to a cushion and one frozen to the cue ball.
            layout = {0: (1.0, 0.6), 1: (1.0 + 2 * R, 0.6), 2: (1.8, R), 3: (0.4, 1.0)}
            shot = Shot(float(rng.uniform(0.5, 6)), float(rng.uniform(-180, 180)), 0.0, 0.0)
        else:
            layout = random_layout(TABLE, int(rng.integers(1, 10)), rng)
            shot = random_shot(rng)
            if k % 6 == 2:
                shot = replace(shot, elevation_deg=float(rng.uniform(0.0, 60.0)))
        out.append((layout, shot))
    return out


@pytest.fixture(scope="module")
def sim():
    return Simulator(TABLE)


def test_facts_read_from_the_rows_equal_the_decoded_events_facts(sim):
    seen = {"contact": 0, "miss": 0, "drops": 0, "off": 0, "crossed": 0, "frozen": 0}
    for layout, shot in shots(240, seed=11):
        result = sim.simulate(layout, shot)
        assert "events" not in result.__dict__  # not decoded yet
        from_rows = result.log.log_facts(HS)
        events = result.events
        assert isinstance(events, tuple) and result.log.events() is events
        assert from_rows == ev.log_facts(events, HS)
        strike, _, drops, cushions, contact, off, before, ever = from_rows
        seen["contact"] += contact is not None
        seen["miss"] += contact is None
        seen["drops"] += bool(drops)
        seen["off"] += bool(off)
        seen["crossed"] += ever and strike.position[0] < HS
        seen["frozen"] += bool(strike.frozen_to_cushion or strike.frozen_to_cue_ball)
    # The shots cover what the facts are about.
    assert all(n > 0 for n in seen.values()), seen


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "restore", "frozen-excluded"])
def test_the_rules_facts_are_the_same_from_the_log_and_from_the_events(sim, options):
    for layout, shot in shots(120, seed=12):
        fresh = sim.simulate(layout, shot)
        decoded = sim.simulate(layout, shot)
        events = decoded.events
        assert ShotEvents.from_log(fresh.event_log, TABLE, final_positions=fresh.positions, options=options) == \
            ShotEvents.from_log(events, TABLE, final_positions=decoded.positions, options=options)


def test_a_result_from_its_log_compares_copies_and_pickles_as_one_from_its_events(sim):
    layout, shot = shots(1, seed=13)[0]
    lazy = sim.simulate(layout, shot)
    eager = sim.simulate(layout, shot)
    built = ShotResult(eager.positions, eager.pocketed, eager.events, eager.duration, eager.shot,
                       eager.trajectories, eager.off_table)
    for copied in (pickle.loads(pickle.dumps(sim.simulate(layout, shot))), copy.deepcopy(sim.simulate(layout, shot))):
        assert copied == built and copied.events == built.events
    assert lazy == built and built.event_log is built.events and lazy.event_log is lazy.log
    with pytest.raises(ValueError, match="needs its events"):
        ShotResult({}, {}, None, 0.0, shot)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = lazy.nothing
