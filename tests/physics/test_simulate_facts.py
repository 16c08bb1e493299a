"""``Simulator.simulate_facts``: the plays of ``simulate_many`` in one compiled call, reduced
to the facts the rules read from each (``ShotEvents.from_log``), the same to the last bit."""

from __future__ import annotations

import numpy as np
import pytest

from poolgym.physics import Noise, Shot, Simulator
from poolgym.physics.invariants import random_shot
from poolgym.rules import RuleOptions, ShotEvents
from poolgym.table import Table

TABLE = Table.preset("9ft")
R = TABLE.ball_radius
# A spread of balls, one frozen to a cushion and one to the cue ball, and a tight cluster.
LAYOUT = {0: (0.6, 0.635), 1: (1.9, 0.635), 2: (2.0, 0.3), 3: (0.6 + 2 * R, 0.635), 5: (1.2, R),
          6: (2.2, 0.9), 7: (2.2 + 2 * R + 1e-4, 0.9), 9: (2.25, 1.1)}


def _facts_of(result, nums) -> dict:
    """The facts the rules read from a ``simulate_many`` result (``ShotEvents.from_log``,
    dropping after the rest aside)."""
    events = ShotEvents.from_log(result.event_log, TABLE, final_positions=result.positions,
                                 options=RuleOptions(restore_balls_dropping_after_rest=False))
    column = {n: k for k, n in enumerate(nums)}
    return dict(positions=result.positions,
                first=-1 if events.first_contact is None else column[events.first_contact],
                pocketed=set(events.pocketed_balls), off=set(events.off_table),
                cushion_after=set(events.cushion_after_contact), cushion_any=set(events.cushion_balls))


def _facts_at(facts, p) -> dict:
    nums = facts.nums

    def balls(flags):
        return {nums[k] for k in np.flatnonzero(flags[p])}

    return dict(positions={nums[k]: (float(facts.xs[p, k]), float(facts.ys[p, k]))
                           for k in range(len(nums)) if facts.on[p, k]},
                first=int(facts.first[p]), pocketed=balls(facts.pocketed), off=balls(facts.off),
                cushion_after=balls(facts.cushion_after), cushion_any=balls(facts.cushion_any))


@pytest.mark.parametrize("noise", ["none", "tournament"])
def test_facts_are_simulate_manys_plays_to_the_last_bit(noise):
    sim = Simulator(TABLE, noise=noise)
    rng = np.random.default_rng(3)
    shots = [random_shot(rng) for _ in range(12)]
    # Strikes along the table, hard and soft, to drop balls and reach the cushions.
    shots += [Shot(speed, angle, side, vertical) for speed in (1.0, 4.0, 9.0) for angle in (0.0, 10.0, 185.0)
              for side, vertical in ((0.0, 0.0), (0.3, -0.4))]
    draws = [sim.noise.draws(np.random.default_rng(9)) if noise != "none" else ()]
    facts = sim.simulate_facts(sim.validate_layout(LAYOUT), sim.strikes_under(shots, draws))
    assert facts.nums == tuple(sorted(LAYOUT)) and (facts.status == 0).all()
    seen = {"first": 0, "pocketed": 0, "cushion_after": 0, "none": 0}
    for p, shot in enumerate(shots):
        result = sim.simulate_many(LAYOUT, [shot], rng=np.random.default_rng(9))[0]
        expected = _facts_of(result, facts.nums)
        assert _facts_at(facts, p) == expected
        seen["first"] += expected["first"] >= 0
        seen["none"] += expected["first"] < 0
        seen["pocketed"] += bool(expected["pocketed"])
        seen["cushion_after"] += bool(expected["cushion_after"])
    assert all(seen.values()), seen


def test_strikes_under_draws_are_the_noisy_shots_strikes():
    """Each shot under each draw is the strike ``Noise.apply`` gives with the generator the
    draws came from: the noise of ``simulate_many``."""
    sim = Simulator(TABLE, noise=Noise(speed=0.1, angle_deg=0.5, side=0.05, vertical=0.05, elevation_deg=2.0))
    shots = [Shot(3.0, 30.0, 0.2, -0.3), Shot(6.0, 200.0, 0.0, 0.0, elevation_deg=12.0)]
    rng = np.random.default_rng(4)
    draws = [sim.noise.draws(rng) for _ in range(5)]
    got = sim.strikes_under(shots, draws)
    assert got.shape == (10, 6)
    for i, shot in enumerate(shots):
        rng = np.random.default_rng(4)
        for j in range(5):
            executed = sim.noise.apply(shot, rng, sim.params.max_speed)
            assert got[i * 5 + j].tolist() == list(sim.strike_state(executed))


def test_bad_shots_are_refused_by_name():
    sim = Simulator(TABLE)
    with pytest.raises(ValueError, match="speed"):
        sim.strikes_under([Shot(-1.0)], [()])


def test_plays_that_leave_the_bed_are_played_by_the_airborne_core_among_level_ones():
    """Jump strikes among level ones: the level core hands them on (``AIRBORNE_SHOT``) and
    the airborne core's facts take their rows, the same as ``simulate_many``'s plays."""
    sim = Simulator(TABLE)
    shots = [Shot(4.0, 0.0), Shot(4.0, 0.0, elevation_deg=40.0), Shot(2.0, 185.0, 0.2, 0.1),
             Shot(5.0, 10.0, 0.0, -0.3, elevation_deg=25.0), Shot(6.0, 0.0, -0.2, 0.2)]
    facts = sim.simulate_facts(sim.validate_layout(LAYOUT), sim.strikes_under(shots, [()]))
    assert (facts.status == 0).all()
    for p, shot in enumerate(shots):
        result = sim.simulate_many(LAYOUT, [shot], trajectories=True)[0]
        assert _facts_at(facts, p) == _facts_of(result, facts.nums)
        flew = any(phase.mode == "airborne" for phases in result.trajectories.values() for phase in phases)
        assert flew == (shot.elevation_deg > 0.0)
