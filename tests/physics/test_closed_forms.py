"""The simulator against textbook closed forms (Alciatore; pooltool's validation), never itself."""

import math

import pytest

from poolgym import events as ev
from poolgym.physics import PhysicsParams, Shot, Simulator
from poolgym.table import Table

from .conftest import G, MU_R, MU_S, R, angle_between_deg, phase_after


@pytest.mark.parametrize("v0", [0.5, 1.0, 2.0, 4.0, 8.0])
def test_centre_hit_rolls_at_five_sevenths_after_slide_time(open_sim, v0):
    res = open_sim.simulate({0: (1.0, 5.0)}, Shot(speed=v0, angle_deg=0.0), trajectories=True)
    sliding, rolling = res.trajectories[0][:2]
    assert (sliding.mode, rolling.mode) == ("sliding", "rolling")
    t_roll = 2 * v0 / (7 * MU_S * G)
    assert sliding.t1 == pytest.approx(t_roll, rel=0.01)
    assert rolling.velocity[0] == pytest.approx(5 / 7 * v0, rel=0.005)
    assert abs(rolling.velocity[1]) < 1e-9


@pytest.mark.parametrize("v0", [0.5, 1.5, 3.0])
def test_slide_and_total_distance(open_sim, v0):
    res = open_sim.simulate({0: (1.0, 5.0)}, Shot(speed=v0, angle_deg=0.0), trajectories=True)
    sliding = res.trajectories[0][0]
    slide = sliding.position_at(sliding.t1)[0] - 1.0
    assert slide == pytest.approx(12 * v0**2 / (49 * MU_S * G), rel=0.01)
    total = res.positions[0][0] - 1.0
    expected = 12 * v0**2 / (49 * MU_S * G) + (5 / 7 * v0) ** 2 / (2 * MU_R * G)
    assert total == pytest.approx(expected, rel=0.01)
    # and the time to stop: slide time plus rolling time (5/7 v0) / (mu_r g)
    t_stop = 2 * v0 / (7 * MU_S * G) + (5 / 7 * v0) / (MU_R * G)
    assert res.duration == pytest.approx(t_stop, rel=0.01)


def test_direction_of_travel_follows_angle(open_sim):
    res = open_sim.simulate({0: (5.0, 5.0)}, Shot(speed=1.0, angle_deg=135.0))
    dx, dy = res.positions[0][0] - 5.0, res.positions[0][1] - 5.0
    assert math.degrees(math.atan2(dy, dx)) == pytest.approx(135.0, abs=1e-6)


def _cut_layout(cut_deg, distance):
    """Cue ball at the origin side, object ball placed for a cut of cut_deg to +x travel."""
    ob = (1.0 + distance, 5.0)
    # The cue ball heads along +x; its centre at contact is 2R from the OB along the line of
    # centres, which makes cut_deg with +x.
    contact_y = ob[1] + 2 * R * math.sin(math.radians(cut_deg))
    return {0: (1.0, contact_y), 1: ob}


def _after_first_contact(res):
    t = ev.first_contact_time(res.events)
    cue = phase_after(res.trajectories[0], t)
    ob = phase_after(res.trajectories[1], t)
    return t, cue, ob


def _natural_roll_deflection(e):
    """Closed form for a half-ball hit by a rolling cue ball, frictionless contact with
    restitution e: the cue ball leaves with its tangential velocity plus (1 - e) / 2 of the
    normal one, keeps its top spin, and rolls on at (5 v' + 2 v x_hat) / 7. e = 1 gives the
    textbook 33.7 degrees (the 30-degree rule)."""
    cut = math.radians(30.0)
    n = (math.cos(cut), -math.sin(cut))
    t = (math.sin(cut), math.cos(cut))
    vt, vn = math.sin(cut), (1 - e) / 2 * math.cos(cut)
    vx, vy = vt * t[0] + vn * n[0], vt * t[1] + vn * n[1]
    return math.degrees(math.atan2(5 * vy, 5 * vx + 2))


def _half_ball_deflection(sim):
    # vertical = 0.4 of the radius gives natural roll straight off the tip (5 f / 2 = 1).
    res = sim.simulate(_cut_layout(30.0, 1.0), Shot(speed=1.5, vertical=0.4), trajectories=True)
    t, _, _ = _after_first_contact(res)
    final = phase_after(res.trajectories[0], t, mode="rolling")
    return angle_between_deg((1.0, 0.0), final.velocity)


def test_half_ball_natural_roll_deflects_cue_ball_33_7_degrees():
    ideal = Simulator(Table(name="open", length=30.0, width=10.0),
                      PhysicsParams(ball_restitution=1.0, ball_friction_min=1e-12, ball_friction_extra=0.0))
    assert _natural_roll_deflection(1.0) == pytest.approx(33.7, abs=0.05)
    assert _half_ball_deflection(ideal) == pytest.approx(33.7, abs=0.3)


def test_half_ball_natural_roll_with_restitution_and_throw(open_sim):
    # With e = 0.95 the closed form gives 32.3 degrees; throw takes off a little more.
    expected = _natural_roll_deflection(0.95)
    assert expected == pytest.approx(32.3, abs=0.1)
    assert _half_ball_deflection(open_sim) == pytest.approx(expected, abs=1.5)
    assert _half_ball_deflection(open_sim) == pytest.approx(33.7, abs=2.5)


def test_stun_cut_leaves_cue_ball_near_ninety_degrees(open_sim):
    # The cue ball is 2 mm from the contact point: it arrives sliding without spin (stun).
    layout = _cut_layout(30.0, 2 * R * math.cos(math.radians(30.0)) + 0.002)
    res = open_sim.simulate(layout, Shot(speed=2.0), trajectories=True)
    _, cue, ob = _after_first_contact(res)
    separation = angle_between_deg(cue.velocity, ob.velocity)
    assert 84.0 <= separation <= 91.0
    # The object ball goes along the line of centres, thrown a little by ball-ball friction.
    assert 26.0 <= angle_between_deg((1.0, 0.0), ob.velocity) <= 30.0


def test_straight_draw_comes_back_and_follow_goes_on(open_sim):
    layout = {0: (1.0, 5.0), 1: (1.35, 5.0)}
    draw = open_sim.simulate(layout, Shot(speed=3.0, vertical=-0.5))
    follow = open_sim.simulate(layout, Shot(speed=3.0, vertical=0.5))
    stun_x = 1.35 - 2 * R  # where the cue ball meets the object ball
    assert draw.positions[0][0] < stun_x - 0.1
    assert follow.positions[0][0] > stun_x + 0.1
    # the object ball goes on either way
    assert draw.positions[1][0] > 1.5 and follow.positions[1][0] > 1.5


def _rebound_from_left_rail(sim, side):
    """Send the cue ball at 45 degrees into the y = 0 rail; angle of the rebound from the
    rail's normal right after the contact."""
    res = sim.simulate({0: (0.4, 0.3)}, Shot(speed=1.2, angle_deg=-45.0, side=side, vertical=0.4),
                       trajectories=True)
    hit = next(e for e in res.events if isinstance(e, ev.BallCushion))
    assert hit.cushion == "left_head"
    after = phase_after(res.trajectories[0], hit.time)
    vx, vy = after.velocity
    assert vy > 0
    return math.degrees(math.atan2(vx, vy))


def test_running_side_spin_widens_the_cushion_rebound(sim9):
    # Heading along +x into the y = 0 rail (the left rail: +y is to the right of +x), the
    # contact is on the ball's left; right english spins anticlockwise seen from above, so
    # the contact point slides backwards and the rail's friction pushes the ball along +x.
    running = _rebound_from_left_rail(sim9, 0.4)
    plain = _rebound_from_left_rail(sim9, 0.0)
    reverse = _rebound_from_left_rail(sim9, -0.4)
    assert running > plain + 3.0
    assert reverse < plain - 1.0


def test_cushion_rebound_straight_in_follows_han_2005(sim9):
    # Straight in, Han's model (2005, eqs. 14-23) in closed form: the nose at height h
    # touches the ball on a normal tilted by theta (sin theta = h / R - 1). Per unit mass
    # the normal impulse is (1 + e) u cos(theta) for an approach speed u; the contact point
    # slips by s = u sin(theta) + R w (w the top spin) and friction sticks when
    # s / 3.5 < mu (1 + e) u cos(theta), so the ball leaves at
    # u (1 + e) cos^2(theta) + s sin(theta) / 3.5 - u.
    e, mu, h = 0.8, 0.2, 0.635 * 2 * R
    sin_t = h / R - 1
    cos_t = math.sqrt(1 - sin_t * sin_t)
    res = sim9.simulate({0: (1.0, 0.1)}, Shot(speed=1.0, angle_deg=-90.0), trajectories=True)
    hit = next(e for e in res.events if isinstance(e, ev.BallCushion))
    before = [p for p in res.trajectories[0] if p.t1 <= hit.time + 1e-12][-1]
    after = phase_after(res.trajectories[0], hit.time)
    u = -before.velocity_at(hit.time)[1]
    assert before.mode == "sliding"
    # A centre hit slides: the cloth turns each m/s of lost speed into 2.5 m/s of R w.
    slip = u * sin_t + 2.5 * (1.0 - u)
    assert slip / 3.5 < mu * (1 + e) * u * cos_t
    expected = u * (1 + e) * cos_t ** 2 + slip * sin_t / 3.5 - u
    assert after.velocity[1] == pytest.approx(expected, rel=1e-9)
    assert after.velocity[0] == pytest.approx(0.0, abs=1e-12)


def test_head_on_collision_transfers_speed_by_restitution(open_sim):
    # Stun (no spin at contact): the object ball leaves at (1 + e) / 2 of the cue ball's speed.
    layout = {0: (1.0, 5.0), 1: (1.0 + 2 * R + 0.001, 5.0)}
    res = open_sim.simulate(layout, Shot(speed=2.0), trajectories=True)
    t, cue, ob = _after_first_contact(res)
    incoming = res.trajectories[0][0].velocity_at(t)[0]
    assert ob.velocity[0] == pytest.approx((1 + 0.95) / 2 * incoming, rel=0.01)
    assert cue.velocity[0] == pytest.approx((1 - 0.95) / 2 * incoming, rel=0.05)


def test_spin_about_vertical_axis_decays_at_its_rate(open_sim):
    # A pure side-spin stroke: time to rest includes the spin's decay at 10.9 rad/s^2.
    res = open_sim.simulate({0: (1.0, 5.0)}, Shot(speed=0.5, side=0.5), trajectories=True)
    strike = res.events[0]
    v = strike.speed * 1.3 / (1.3 + 2.5 * 0.25)
    wz = 2.5 * v / R * 0.5
    assert res.duration >= (wz - 1e-2) / 10.9 - 1e-6
