"""The elevated cue: the strike along a raised cue, the bed's bounce, flights, jump shots and
swerve, each against a closed form written out here (not the simulator's own kernels)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from poolgym.physics import PhysicsParams, Shot, Simulator
from poolgym.table import Table

TABLE = Table.preset("9ft")
R, G = TABLE.ball_radius, 9.81


def _strike_closed_form(sim: Simulator, shot: Shot):
    """TP A-30 in vectors: the tip's impulse J along the cue d at the contact point
    r = R (side r_hat + vertical u_hat - depth d); v = J / m along d, w = r x J / I."""
    theta, phi = math.radians(shot.elevation_deg), math.radians(shot.angle_deg)
    d = np.array([math.cos(theta) * math.cos(phi), math.cos(theta) * math.sin(phi), -math.sin(theta)])
    right = np.array([-math.sin(phi), math.cos(phi), 0.0])
    up = np.cross(d, right)
    depth = math.sqrt(1.0 - shot.side ** 2 - shot.vertical ** 2)
    r = R * (shot.side * right + shot.vertical * up - depth * d)
    ratio = TABLE.ball_mass / sim.params.cue_mass
    v = shot.speed * (1 + ratio) / (1 + ratio + 2.5 * (shot.side ** 2 + shot.vertical ** 2))
    w = np.cross(r, v * d) / (0.4 * R * R)
    return v * d, w


@pytest.mark.parametrize("elevation, side, vertical", [(0.0, 0.3, -0.2), (30.0, 0.0, 0.0), (45.0, 0.4, 0.1),
                                                       (70.0, -0.3, 0.3), (80.0, 0.0, -0.5)])
def test_strike_along_a_raised_cue_matches_tp_a30(elevation, side, vertical):
    sim = Simulator(TABLE)
    shot = Shot(speed=3.0, angle_deg=25.0, side=side, vertical=vertical, elevation_deg=elevation)
    vx, vy, wx, wy, wz, vz = sim.strike_state(shot)
    v, w = _strike_closed_form(sim, shot)
    np.testing.assert_allclose([vx, vy, vz], v, atol=1e-12)
    np.testing.assert_allclose([wx, wy, wz], w, atol=1e-9)


def test_strike_matches_pooltool_cue_strike_in_its_own_offsets():
    """pooltool 0.6's stick model (``InstantaneousPoint.solve``: offsets across the cue
    turned into the ball's frame, then ``cue_strike``; both formulas copied here) gives the
    same horizontal velocity and spin."""
    sim = Simulator(TABLE)
    shot = Shot(speed=2.5, angle_deg=0.0, side=0.35, vertical=-0.25, elevation_deg=35.0)
    theta = math.radians(shot.elevation_deg)
    depth = math.sqrt(1 - shot.side ** 2 - shot.vertical ** 2)
    # solve(): the contact point in pooltool's ball frame: a right, c towards the player, b up.
    a = shot.side * R
    b = (shot.vertical * math.cos(theta) + depth * math.sin(theta)) * R
    c = (depth * math.cos(theta) - shot.vertical * math.sin(theta)) * R
    m, M = TABLE.ball_mass, sim.params.cue_mass
    V0 = shot.speed * (1 + m / M) / 2  # pooltool's cue speed for our centre-hit launch speed
    I_m = 0.4 * R ** 2
    temp = a ** 2 + (b * math.cos(theta)) ** 2 + (c * math.sin(theta)) ** 2 - 2 * b * c * math.cos(theta) * math.sin(theta)
    v = 2 * V0 / (1 + m / M + temp / I_m)
    w_b = v / I_m * np.array([-c * math.sin(theta) + b * math.cos(theta), a * math.sin(theta), -a * math.cos(theta)])
    # pooltool's ball frame has the cue along -y; rotate by phi + 90 degrees (phi = 0 here):
    # (x, y) -> (-y, x).
    w_t = np.array([-w_b[1], w_b[0], w_b[2]])
    vx, vy, wx, wy, wz, vz = sim.strike_state(shot)
    assert vx == pytest.approx(v * math.cos(theta), rel=1e-12) and vy == pytest.approx(0.0, abs=1e-12)
    # pooltool's w about the travel axis has the opposite sign convention of a, so compare
    # the magnitudes of each component and the signs of the two that share a convention.
    np.testing.assert_allclose([abs(wx), wy, wz], [abs(w_t[0]), w_t[1], w_t[2]], rtol=1e-9)


def test_elevation_out_of_range_is_refused_naming_the_field():
    for bad in (-1.0, 80.5, math.nan, "steep"):
        with pytest.raises(ValueError, match="Shot.elevation_deg"):
            Shot(speed=2.0, elevation_deg=bad).validate(15.0)


def _bounce(vh: float, vz: float, e: float, mu: float):
    """A ball with no spin, moving at vh and falling at vz (< 0) on the bed: its horizontal
    speed, spin (about the axis across its path) and vertical speed after the bounce."""
    pn = (1 + e) * -vz
    slip = vh  # the contact point of a ball without spin moves with it
    p = min(mu * pn, slip / 3.5)
    return vh - p, 2.5 * p / R, e * -vz


def test_a_jump_flies_the_ballistic_closed_form():
    params = PhysicsParams()
    sim = Simulator(TABLE, params)
    speed, elevation = 3.0, 40.0
    result = sim.simulate({0: (0.5, 0.635)}, Shot(speed=speed, elevation_deg=elevation), trajectories=True)
    flight = result.trajectories[0][0]
    assert flight.mode == "airborne" and flight.t0 == 0.0
    theta = math.radians(elevation)
    vh, _, vz = _bounce(speed * math.cos(theta), -speed * math.sin(theta), params.bed_restitution, params.mu_slide)
    airtime, peak, reach = 2 * vz / G, vz * vz / (2 * G), vh * 2 * vz / G
    assert flight.t1 - flight.t0 == pytest.approx(airtime, rel=0.01)
    path = result.sample_path(0, dt=1e-4, height=True)
    in_flight = path[path[:, 0] <= flight.t1]
    assert in_flight[:, 3].max() == pytest.approx(peak, rel=0.01)
    assert in_flight[-1, 1] - in_flight[0, 1] == pytest.approx(reach, rel=0.01)
    assert abs(in_flight[-1, 3]) < 1e-9  # it comes down on the bed


# A ball in the line of a straight shot at the foot-right corner pocket, 0.25 m past the cue
# ball; the target 0.45 m beyond it, 0.30 m from the pocket.
_DIAGONAL = np.array([1.0, 1.0]) / math.sqrt(2.0)


def _on_line(back: float) -> tuple[float, float]:
    x, y = np.array([TABLE.length, TABLE.width]) - back * _DIAGONAL
    return (float(x), float(y))


JUMP_LAYOUT = {0: _on_line(1.00), 2: _on_line(0.75), 1: _on_line(0.30)}


def test_a_jump_clears_the_blocker_and_pots_the_ball_beyond():
    result = Simulator(TABLE).simulate(JUMP_LAYOUT, Shot(speed=4.0, angle_deg=45.0, elevation_deg=50.0),
                                       trajectories=True)
    assert result.first_contact == 1
    assert result.pocketed.get(1) == "foot_right"
    assert 2 not in result.pocketed and result.positions[2] == JUMP_LAYOUT[2]
    # It passed over the blocker: above it (a ball diameter) while level with it.
    path = result.sample_path(0, dt=1e-4, height=True)
    along = (path[:, 1:3] - np.array(JUMP_LAYOUT[0])) @ _DIAGONAL
    level = np.abs(along - 0.25) < 0.005
    assert level.any() and path[level, 3].min() > 2 * R


def test_a_jump_too_slow_hits_the_blocker():
    result = Simulator(TABLE).simulate(JUMP_LAYOUT, Shot(speed=3.0, angle_deg=45.0, elevation_deg=50.0))
    assert result.first_contact == 2


def _swerve_estimate(sim: Simulator, shot: Shot, distance: float) -> float:
    """The lateral offset of a swerve shot when it has gone ``distance`` along the stroke,
    in closed form: the strike (TP A-30), the bed's bounces (each a friction impulse mu (1 +
    e) |vz| against the contact point's slip, at most what stops it, with straight flights
    between), then sliding under a constant friction mu g against the slip (a parabola)
    until the slip ends, then a straight roll. The stroke is along +x."""
    p = sim.params
    v, w = _strike_closed_form(sim, shot)
    pos = np.zeros(2)
    vel, vz = v[:2].copy(), v[2]
    while True:  # bounce, fly, until the hop is below the threshold
        slip = vel + R * np.array([-w[1], w[0]])
        pn = (1 + p.bed_restitution) * -vz
        s = np.linalg.norm(slip)
        imp = min(p.mu_slide * pn, s / 3.5)
        vel = vel - imp * slip / s
        w = w + 2.5 / R * imp * np.array([-slip[1], slip[0], 0.0]) / s
        vz = p.bed_restitution * -vz
        if vz <= p.min_hop_speed:
            break
        pos = pos + vel * 2 * vz / G
        vz = -vz
    slip = vel + R * np.array([-w[1], w[0]])
    s = np.linalg.norm(slip)
    acc = -p.mu_slide * G * slip / s
    t_slide = 2 * s / (7 * p.mu_slide * G)
    end = pos + vel * t_slide + 0.5 * acc * t_slide ** 2
    if end[0] >= distance:  # still sliding there: the first root of the parabola along x
        a2, a1, a0 = 0.5 * acc[0], vel[0], pos[0] - distance
        t = (-a1 + math.sqrt(a1 * a1 - 4 * a2 * a0)) / (2 * a2)
        return float(pos[1] + vel[1] * t + 0.5 * acc[1] * t * t)
    # Rolling on from there in a straight line.
    heading = vel + acc * t_slide
    return float(end[1] + (distance - end[0]) * heading[1] / heading[0])


@pytest.mark.parametrize("elevation, side", [(15.0, 0.5), (25.0, -0.4)])
def test_swerve_offset_after_one_metre_matches_the_sliding_friction_estimate(elevation, side):
    sim = Simulator(TABLE)
    shot = Shot(speed=2.5, angle_deg=0.0, side=side, elevation_deg=elevation)
    start = (0.3, 0.635)
    result = sim.simulate({0: start}, shot, trajectories=True)
    path = result.sample_path(0, dt=1e-5)
    i = int(np.searchsorted(path[:, 1] - start[0], 1.0))
    simulated = path[i, 2] - start[1]
    estimate = _swerve_estimate(sim, shot, 1.0)
    # The ball swerves the way of the english (the player's right is +y for a stroke along +x).
    assert math.copysign(1.0, simulated) == math.copysign(1.0, side)
    assert abs(simulated) > 0.02  # a swerve worth the name
    assert simulated == pytest.approx(estimate, rel=0.05)


def test_zero_elevation_takes_the_flat_paths():
    """``elevation_deg=0`` is the level cue of every earlier release: the same strike
    (no vertical speed) and bit-identical results (the saved reference cases of
    ``test_reference_results`` check the rest)."""
    sim = Simulator(TABLE)
    shot = Shot(speed=3.0, angle_deg=12.0, side=0.2, vertical=-0.3)
    assert sim.strike_state(shot)[5] == 0.0
    layout = {0: (0.6, 0.5), 1: (1.9, 0.7), 2: (2.1, 0.3)}
    a = sim.simulate(layout, shot, trajectories=True)
    b = sim.simulate(layout, Shot(speed=3.0, angle_deg=12.0, side=0.2, vertical=-0.3, elevation_deg=0.0),
                     trajectories=True)
    assert a.events == b.events and a.trajectories == b.trajectories
    assert all(p.mode != "airborne" and p.height == 0.0 for ps in a.trajectories.values() for p in ps)


def test_a_jumping_cue_ball_landing_on_a_ball_is_thrown_up_and_drives_it_into_the_bed():
    """A 3-D contact: the cue ball comes down on the upper half of a ball in its path."""
    from poolgym import events as ev

    layout = {0: (0.8, 0.635), 1: (1.05, 0.635)}
    result = Simulator(TABLE).simulate(layout, Shot(speed=3.0, elevation_deg=50.0), trajectories=True)
    hit = next(e for e in result.events if isinstance(e, ev.BallBall))
    cue = result.trajectories[0]
    before = next(p for p in cue if p.t0 < hit.time <= p.t1)
    after = next(p for p in cue if p.t0 == hit.time)
    assert before.mode == "airborne" and before.height_at(hit.time) > R  # above the ball's centre
    # Centres exactly two radii apart in 3-D at the contact.
    (x0, y0), (x1, y1) = hit.position_a if hit.a == 0 else hit.position_b, layout[1]
    gap = math.dist((x0, y0, before.height_at(hit.time)), (x1, y1, 0.0))
    assert gap == pytest.approx(2 * R, abs=1e-9)
    falling = before.vertical_velocity + before.vertical_acceleration * (hit.time - before.t0)
    assert after.mode == "airborne" and after.vertical_velocity > falling  # thrown up
    struck = next(p for p in result.trajectories[1] if p.t0 == hit.time)
    # Driven down into the bed, the struck ball bounces off it.
    assert struck.mode == "airborne" and struck.height == 0.0 and struck.vertical_velocity > 0.0


def test_a_ball_pinched_between_a_landing_ball_and_the_bed_is_one_contact_in_the_log():
    """The struck ball bounces off the bed straight back into the ball that landed on it:
    the contact is resolved in steps, and logged once."""
    from poolgym import events as ev

    layout = {0: (1.27, 1.07), 2: (1.27, 0.77), 1: (1.27, 0.37)}
    result = Simulator(TABLE).simulate(layout, Shot(3.0, -90.0, 0.0, 0.0, 50.0))
    contacts = [e for e in result.events if isinstance(e, ev.BallBall)]
    assert contacts[0].a == 0 and contacts[0].b == 2
    assert all(b.time - a.time > 1e-6 for a, b in zip(contacts, contacts[1:]))


def test_elevation_noise_draws_after_the_other_four_and_stays_in_range():
    from poolgym.physics import Noise

    shot = Shot(speed=3.0, angle_deg=10.0, side=0.1, vertical=0.1, elevation_deg=79.5)
    plain = Noise.preset("tournament")
    raised = Noise(**{**plain.__dict__, "elevation_deg": 2.0})
    a = plain.apply(shot, np.random.default_rng(7))
    b = raised.apply(shot, np.random.default_rng(7))
    assert (a.speed, a.angle_deg, a.side, a.vertical) == (b.speed, b.angle_deg, b.side, b.vertical)
    assert a.elevation_deg == 79.5
    draws = [raised.apply(shot, np.random.default_rng(s)).elevation_deg for s in range(200)]
    assert max(draws) == Shot.MAX_ELEVATION_DEG and min(draws) < 79.5  # clipped at the cue's limit
    with pytest.raises(ValueError, match="Noise.elevation_deg"):
        Noise(elevation_deg=11.0)


def test_a_ball_rolling_back_off_a_rail_top_leaves_the_nose_edge_where_a_rolling_sphere_does():
    """Rolling over an edge: the ball leaves it at cos(phi) = (10 + 7 v0^2 / (g R)) / 17 from
    the vertical, at speed sqrt(g R cos(phi)); no chatter of tiny cushion contacts."""
    from poolgym import events as ev

    result = Simulator(TABLE).simulate({0: (2.38, 0.77)}, Shot(speed=6.2, angle_deg=349.0, vertical=-0.5,
                                                              elevation_deg=65.0), trajectories=True)
    phases = result.trajectories[0]
    h = TABLE.cushion_height
    i = next(i for i, p in enumerate(phases) if p.mode == "rolling" and p.height == h)
    on_rail, off = phases[i], phases[i + 1]
    v0 = abs(on_rail.velocity_at(on_rail.t1)[0])  # across the foot rail's edge (x)
    cos_phi = (10 + 7 * v0 ** 2 / (G * R)) / 17
    assert off.mode == "airborne" and off.t0 == on_rail.t1
    assert off.height == pytest.approx(h + R * cos_phi - R, rel=1e-6)
    across = math.hypot(off.velocity[0], off.vertical_velocity)  # its speed along the rail is kept
    assert across == pytest.approx(math.sqrt(G * R * cos_phi), rel=1e-6)
    assert not any(isinstance(e, ev.BallCushion) for e in result.events)
    assert 0 in result.positions  # back on the bed


def test_a_flight_over_a_jaw_tip_meets_its_top_corner_and_never_comes_down_inside_a_cushion():
    """A jumped cue ball crossing the head-right pocket's throat just above the cushion
    height: it clips the jaw tip's top corner and the rail, and ends on the playing surface
    (it once came down behind the nose and stopped inside the cushion)."""
    layout = {0: (1.4346176925169392, 0.8738521219209867), 1: (0.32592350971790585, 1.09541849121686),
              2: (0.8573528509516505, 0.9773083898858139), 4: (0.46075583750985005, 0.13542606885840927),
              6: (0.21994181415695896, 1.126424795053381), 8: (0.6783782707462085, 0.5676033730490138),
              9: (2.030740809736403, 1.002624594608722)}
    shot = Shot(4.817223154290952, 168.54137069520323, -0.002439759094192427, 0.004343323103112672, 40.0)
    result = Simulator(TABLE).simulate(layout, shot)
    from poolgym import events as ev
    from poolgym.physics.invariants import shot_violations

    assert shot_violations(TABLE, layout, result) == []
    assert any(isinstance(e, ev.BallCushion) and e.cushion == "head_right_jaw_long" for e in result.events)
    assert all(TABLE.contains(x, y) for x, y in result.positions.values())
