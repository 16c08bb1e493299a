"""The rules' facts of simulated shots read from the compiled plays (``Simulator.layout_plays``,
``ShotEvents.from_simulation``, ``poolgym.envs.play.simulate_staged``) equal, field for
field, what ``shot_events`` reads from ``Simulator.simulate_executed``'s result, and each
play's ``ShotResult``, built when first read, is that result: on breaks, random strokes
(level and airborne, from random layouts), layouts with frozen balls, every shot of
masked-random play in the batched env over many seeds, under each rule option that changes
the reading; and on hand-made logs for what a simulation never shows (a drop after the
rest)."""

from __future__ import annotations

import copy
import math
import pickle
from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401
from poolgym import events as ev
from poolgym.envs.play import shot_events, simulate_staged
from poolgym.physics import PhysicsParams, Shot, Simulator
from poolgym.physics import event_core as core
from poolgym.physics.batch import T_DROPS, T_LATE, T_PLAIN, log_facts
from poolgym.physics.invariants import random_layout, random_shot
from poolgym.physics.row_log import RowLog
from poolgym.rules import RuleOptions, ShotEvents, get_ruleset
from poolgym.table import Table

TABLE = Table.preset("9ft")
R = TABLE.ball_radius
OPTIONS = {"default": RuleOptions(), "no-restore": RuleOptions(restore_balls_dropping_after_rest=False),
           "frozen-excluded": RuleOptions(frozen_ball_other_cushion_counts=False)}
JUDGES = {name: get_ruleset("nine_ball", options=options, table=TABLE) for name, options in OPTIONS.items()}


def assert_as_the_reference(sim: Simulator, plays: list, kept: list | None = None) -> dict:
    """Every play of ``plays`` through ``simulate_staged`` (in one call, under each rule
    option) against ``simulate_executed`` and ``shot_events`` one by one (and ``kept``, the
    results an env kept of them, against the same); what the plays showed, counted."""
    seen = dict.fromkeys(("miss", "scratch", "off", "airborne", "frozen_cushion", "frozen_cue", "drops2",
                          "before", "cushion_after"), 0)
    # Plays whose facts go through ``from_log`` (a ball at rest in a pocket's mouth, past
    # the table's rectangle): their results are built at once.
    seen["not_plain"] = int(np.sum(sim.layout_plays(plays).tables[:, T_PLAIN] == 0))
    references = [sim.simulate_executed(layout, shot) for layout, shot in plays]
    for result, reference in zip(references if kept is None else kept, references, strict=True):
        assert result == reference and list(result.pocketed.items()) == list(reference.pocketed.items())
    for judge in JUDGES.values():
        got = simulate_staged(sim, plays, [judge] * len(plays))
        for (layout, shot), reference, (result, events) in zip(plays, references, got):
            expected = shot_events(sim, judge, reference)
            assert events == expected, (layout, shot)
            assert [getattr(events, f) for f in ShotEvents.__dataclass_fields__] == \
                [getattr(expected, f) for f in ShotEvents.__dataclass_fields__]
            assert result == reference and result.events == reference.events
            assert list(result.pocketed.items()) == list(reference.pocketed.items())
            assert list(result.positions.items()) == list(reference.positions.items())
            assert list(result.off_table.items()) == list(reference.off_table.items())
    for (layout, shot), reference in zip(plays, references):
        events = shot_events(sim, JUDGES["default"], reference)
        seen["miss"] += events.first_contact is None
        seen["scratch"] += events.cue_ball_scratched
        seen["off"] += bool(events.object_balls_off_table)
        seen["airborne"] += shot.elevation_deg > 0.0
        seen["frozen_cushion"] += bool(events.frozen_to_cushion)
        seen["frozen_cue"] += bool(events.frozen_to_cue_ball)
        seen["drops2"] += len(events.pocketed) >= 2
        seen["before"] += events.crossed_head_string_before_contact
        seen["cushion_after"] += bool(events.cushion_after_contact)
    return seen


def rack_breaks(game: str, count: int, seed: int, sim: Simulator) -> list:
    """Breaks of ``game``'s racks: the cue ball behind the head string, hard strokes at the
    rack under the simulator's noise."""
    rng = np.random.default_rng(seed)
    rules = get_ruleset(game, table=TABLE)
    plays = []
    for _ in range(count):
        balls = dict(rules.new_game(rng=rng).positions)
        cue = (TABLE.head_string_x - float(rng.uniform(0.05, 0.5)), TABLE.width / 2 + float(rng.uniform(-0.4, 0.4)))
        apex = min(balls.values())
        angle = math.degrees(math.atan2(apex[1] - cue[1], apex[0] - cue[0])) + float(rng.normal(0.0, 1.0))
        shot = Shot(float(rng.uniform(5.0, 11.0)), angle, float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3)))
        plays.append((sim.validate_layout({**balls, 0: cue}), sim.executed([shot], rng)[0]))
    return plays


@pytest.mark.parametrize("game", ["nine_ball", "eight_ball", "ten_ball"])
def test_breaks_are_the_reference(game):
    sim = Simulator(TABLE, noise="tournament")
    seen = assert_as_the_reference(sim, rack_breaks(game, 120, 5, sim))
    assert seen["drops2"] and seen["cushion_after"], seen


def test_random_strokes_level_and_airborne_are_the_reference():
    """Random strokes from random layouts, a third of them elevated (jumps, flights off the
    table), in the same calls: the level core hands the airborne plays on."""
    sim = Simulator(TABLE)
    rng = np.random.default_rng(21)
    plays = []
    for k in range(3000):
        layout = random_layout(TABLE, int(rng.integers(1, 16)), rng)
        shot = random_shot(rng)
        if k % 3 == 0:
            shot = replace(shot, elevation_deg=float(rng.uniform(0.0, Shot.MAX_ELEVATION_DEG)))
        plays.append((layout, shot))
    seen = assert_as_the_reference(sim, plays)
    assert all(seen[k] for k in ("miss", "scratch", "off", "airborne", "drops2", "before", "cushion_after",
                                 "not_plain")), seen


def test_frozen_balls_are_the_reference():
    """Balls resting against the cushions and against the cue ball at the strike, with
    the option that stops a frozen ball's own cushion from counting."""
    sim = Simulator(TABLE)
    rng = np.random.default_rng(8)
    plays = []
    for _ in range(300):
        cue = (float(rng.uniform(0.5, 2.0)), float(rng.uniform(0.3, 0.9)))
        turn = float(rng.uniform(0.0, 2 * math.pi))
        layout = {0: cue, 1: (cue[0] + 2 * R * math.cos(turn), cue[1] + 2 * R * math.sin(turn)),
                  2: (float(rng.choice([rng.uniform(0.3, 1.0), rng.uniform(1.55, 2.2)])), R),
                  3: (TABLE.length - R, float(rng.uniform(0.3, 0.9))),
                  4: (float(rng.choice([rng.uniform(0.3, 1.0), rng.uniform(1.55, 2.2)])), TABLE.width - R)}
        plays.append((sim.validate_layout(layout), random_shot(rng, max_speed=6.0)))
    seen = assert_as_the_reference(sim, plays)
    assert seen["frozen_cushion"] == len(plays) and seen["frozen_cue"] == len(plays), seen
    assert seen["cushion_after"], seen


def test_every_shot_of_masked_random_play_across_seeds_is_the_reference():
    """The shots the batched env played (its tables' move records: the layout and the
    executed shot), played again through both paths."""
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=12, action_mode="choice_discrete")
    records = []
    for table in vec.tables:
        table.move_listeners.append(records.append)
    kept = {}  # each table's last shot, as it was after each step
    vec.reset(seed=[3100 + 7 * k for k in range(12)])
    rng = np.random.default_rng(31)
    nvec = vec.single_action_space.nvec
    for _ in range(120):
        actions = []
        for mask in vec.action_masks():
            parts = np.split(mask, np.cumsum(nvec)[:-1])
            actions.append([rng.choice(np.flatnonzero(p)) if p.any() else 0 for p in parts])
        vec.step(np.array(actions))
        kept.update((id(t.last_shot), t.last_shot) for t in vec.tables if t.last_shot is not None)
    sim = vec.simulator
    shots = [r for r in records if r.result is not None]
    plays = [(sim.validate_layout(r.layout), r.result.shot) for r in shots]
    assert len(plays) > 2000
    # The results the records hold are those the tables kept as ``last_shot``.
    assert {id(r.result) for r in shots} >= set(kept) and len(kept) > 1000
    seen = assert_as_the_reference(sim, plays, [r.result for r in shots])
    assert all(seen[k] for k in ("miss", "scratch", "drops2", "cushion_after", "frozen_cue")), seen


def test_a_result_built_when_read_is_the_result_read_compared_copied_and_pickled():
    sim = Simulator(TABLE)
    layout = sim.validate_layout({0: (0.6, 0.635), 1: (1.9, 0.635), 2: (2.0, 0.3)})
    shot = Shot(4.0, 2.0, 0.1, -0.2)
    reference = sim.simulate_executed(layout, shot)
    for read in (lambda r: r, copy.deepcopy, copy.copy, lambda r: pickle.loads(pickle.dumps(r))):
        (result, _), = simulate_staged(sim, [(layout, shot)], [JUDGES["default"]])
        assert "positions" not in vars(result)  # nothing built yet
        again = read(result)
        assert again == reference and repr(again) == repr(reference) and again.events == reference.events


def test_a_play_past_max_events_raises_as_the_reference():
    sim = Simulator(TABLE, params=PhysicsParams(max_events=3))
    layout = sim.validate_layout({0: (0.6, 0.635), 1: (1.9, 0.635), 2: (2.0, 0.3)})
    shot = Shot(8.0, 0.0)
    with pytest.raises(RuntimeError) as expected:
        sim.simulate_executed(layout, shot)
    with pytest.raises(RuntimeError) as got:
        simulate_staged(sim, [(layout, shot)], [JUDGES["default"]])
    assert str(got.value) == str(expected.value)


def test_the_simulators_drops_never_come_after_its_rest():
    """Why no play above drops a ball after the rest: the rest is at or after the last
    event (the plays' ``T_LATE`` stays clear), so only hand-made logs show one (below)."""
    sim = Simulator(TABLE)
    rng = np.random.default_rng(2)
    plays = [(random_layout(TABLE, 15, rng), random_shot(rng)) for _ in range(200)]
    tables = sim.layout_plays(plays).tables
    assert tables[:, T_DROPS].sum() > 50 and not tables[:, T_LATE].any()


def _hand_log():
    """A log where the cue ball crosses the head string, hits ball 2 (index 1), a frozen
    ball's cushion and a free one are reached, ball 3 drops, then ball 5 drops after the
    rest and ball 4 leaves the table."""
    nums = [0, 2, 3, 4, 5]
    hs = TABLE.head_string_x
    rows = [[core.HEAD, 0.1, 0, -1, hs, 0.6, 0.0, 0.0, 1.0],
            [core.SEGMENT, 0.2, 2, 3, 1.0, R, 0.0, 0.0, 1.0],
            [core.BALL, 0.3, 0, 1, 1.5, 0.6, 1.55, 0.62, 0.0],
            [core.SEGMENT, 0.3, 3, 5, 2.0, R, 0.0, 0.0, 0.0],
            [core.SEGMENT, 0.6, 1, 7, 2.2, R, 0.0, 0.0, 0.0],
            [core.HOLE, 0.8, 2, 2, 2.5, 0.0, 0.0, 0.0, 0.0],
            [core.OFF, 0.9, 3, -1, 2.6, -0.1, 0.0, 0.0, 0.02],
            [core.HOLE, 1.4, 4, 3, 2.5, 1.27, 0.0, 0.0, 0.0]]
    return nums, np.array(rows, dtype=float), 1.0


def test_log_facts_read_a_hand_made_log_as_the_row_log_does():
    nums, rows, duration = _hand_log()
    n = len(nums)
    after, anytime, off = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    hole, rank, late = np.full(n, -1), np.zeros(n, np.int64), np.zeros(n, bool)
    drop_x, drop_y = np.zeros(n), np.zeros(n)
    first, row, before, ever, odd = log_facts(rows, 0, duration, 0.5, TABLE.head_string_x, after, anytime, off,
                                              hole, rank, late, drop_x, drop_y)
    sim = Simulator(TABLE)
    strike = ev.Strike(0.0, 0, (0.5, 0.6), 3.0, 0.0, 0.0, 0.0, frozen_to_cushion=(3,))
    log = RowLog(rows.tolist(), strike, duration, nums, sim._cushion_ids, sim._pocket_ids)
    _, _, drops, cushions, contact, offs, want_before, want_ever = log.log_facts(TABLE.head_string_x)
    assert (nums[first], row, before, ever, odd) == (contact.b, 2, want_before, want_ever, False)
    assert {nums[k] for k in np.flatnonzero(anytime)} == {b for b, _ in cushions}
    assert {nums[k] for k in np.flatnonzero(after)} == {b for b, t in cushions if t >= contact.time}
    assert {nums[k] for k in np.flatnonzero(off)} == set(offs)
    dropped = sorted(np.flatnonzero(hole >= 0), key=lambda k: rank[k])
    assert [(nums[k], sim._pocket_ids[hole[k]], bool(late[k]), (drop_x[k], drop_y[k])) for k in dropped] == \
        [(e.ball, e.pocket, e.time > duration, e.position) for e in drops]
    # The same facts as ``LayoutPlays.facts`` hands them on give ``from_log``'s events
    # under every option (the ball dropped after the rest is put back, digest 8.17).
    def balls(flags):
        return frozenset(nums[k] for k in np.flatnonzero(flags))

    final_rows = ((0, 1.6, 0.6), (2, 2.2, 0.3))
    facts = (strike.position, nums[first], balls(after), balls(anytime),
             tuple((nums[k], sim._pocket_ids[hole[k]]) for k in dropped),
             tuple((nums[k], (float(drop_x[k]), float(drop_y[k]))) for k in dropped if late[k]), balls(off),
             bool(before), bool(ever), frozenset({3}), frozenset(), final_rows)
    for options in OPTIONS.values():
        expected = ShotEvents.from_log(log, TABLE, final_positions={n: (x, y) for n, x, y in final_rows},
                                       options=options)
        assert ShotEvents.from_simulation(*facts, options=options) == expected
    assert ShotEvents.from_simulation(*facts).final_positions[-1][0] == 5
