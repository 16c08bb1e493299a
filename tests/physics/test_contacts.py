"""The contact impulses against conservation laws, symmetry and Alciatore's closed forms."""

import math

import numpy as np
import pytest

from poolgym.physics import PhysicsParams, Shot, Simulator
from poolgym.physics.contacts import ball_ball_impulse, cushion_impulse
from poolgym.table import Table

from .conftest import R

SIN_NOSE = 0.635 * 2 - 1
COS_NOSE = math.sqrt(1 - SIN_NOSE ** 2)
P = PhysicsParams()
FRICTION = (P.ball_friction_min, P.ball_friction_extra, P.ball_friction_decay)


def _energy(v, w):
    """Kinetic energy per unit mass of a solid ball (I = 2/5 m R^2)."""
    return 0.5 * (v[0] ** 2 + v[1] ** 2) + 0.2 * R * R * (w[0] ** 2 + w[1] ** 2 + w[2] ** 2)


def _rotate(x, y, a):
    c, s = math.cos(a), math.sin(a)
    return c * x - s * y, s * x + c * y


def _random_cushion_hit(rng):
    a = rng.uniform(0, 2 * math.pi)
    nx, ny = math.cos(a), math.sin(a)
    # Approaching: a velocity with a negative component along n.
    speed, incidence = rng.uniform(0.01, 10), rng.uniform(-1.5, 1.5)
    vx, vy = _rotate(-nx * speed, -ny * speed, incidence)
    wx, wy, wz = rng.uniform(-400, 400, size=3)
    return (vx, vy, wx, wy, wz), (nx, ny)


def test_cushion_impulse_never_adds_energy_and_always_parts():
    rng = np.random.default_rng(7)
    for _ in range(5000):
        (vx, vy, wx, wy, wz), (nx, ny) = _random_cushion_hit(rng)
        out = cushion_impulse(vx, vy, wx, wy, wz, nx, ny, R, SIN_NOSE, COS_NOSE, 0.8, 0.2)
        assert _energy(out[:2], out[2:]) <= _energy((vx, vy), (wx, wy, wz)) * (1 + 1e-12)
        assert out[0] * nx + out[1] * ny > 0.0


def test_cushion_impulse_turns_with_the_cushion():
    rng = np.random.default_rng(8)
    for _ in range(200):
        (vx, vy, wx, wy, wz), (nx, ny) = _random_cushion_hit(rng)
        a = rng.uniform(0, 2 * math.pi)
        out = cushion_impulse(vx, vy, wx, wy, wz, nx, ny, R, SIN_NOSE, COS_NOSE, 0.8, 0.2)
        turned = cushion_impulse(*_rotate(vx, vy, a), *_rotate(wx, wy, a), wz, *_rotate(nx, ny, a),
                                 R, SIN_NOSE, COS_NOSE, 0.8, 0.2)
        expected = (*_rotate(out[0], out[1], a), *_rotate(out[2], out[3], a), out[4])
        assert turned == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_rolling_ball_loses_most_of_its_top_spin_in_the_rail():
    # pooltool's three cushion models remove 77-89% of a rolling ball's top spin straight in.
    v = 2.0
    out = cushion_impulse(0.0, -v, v / R, 0.0, 0.0, 0.0, 1.0, R, SIN_NOSE, COS_NOSE, 0.8, 0.2)
    top_spin_left = out[2] / (v / R)  # still about +x: forwards into the rail it left
    assert 0.11 <= top_spin_left <= 0.23
    assert out[3] == pytest.approx(0.0, abs=1e-12) and out[4] == pytest.approx(0.0, abs=1e-12)


def test_side_spin_is_kept_in_part_and_bends_a_straight_rebound():
    v, wz = 2.0, -100.0  # right english (wz < 0) straight into the y = 0 rail
    out = cushion_impulse(0.0, -v, v / R, 0.0, wz, 0.0, 1.0, R, SIN_NOSE, COS_NOSE, 0.8, 0.2)
    # The contact is on the ball's -y side: wz < 0 moves it towards -x, friction pushes +x.
    assert out[0] > 0.05
    assert 0.0 > out[4] > wz


def test_ball_ball_impulse_conserves_momentum_and_never_adds_energy():
    rng = np.random.default_rng(9)
    for _ in range(5000):
        a = rng.uniform(0, 2 * math.pi)
        nx, ny = math.cos(a), math.sin(a)
        vk = tuple(rng.uniform(-8, 8, size=2))
        vj = tuple(rng.uniform(-2, 2, size=2))
        if (vk[0] - vj[0]) * nx + (vk[1] - vj[1]) * ny <= 0:
            continue
        wk, wj = tuple(rng.uniform(-400, 400, size=3)), tuple(rng.uniform(-100, 100, size=3))
        (vk2, wk2), (vj2, wj2) = ball_ball_impulse(vk, wk, vj, wj, nx, ny, R, 0.95, *FRICTION)
        assert vk2[0] + vj2[0] == pytest.approx(vk[0] + vj[0], abs=1e-9)
        assert vk2[1] + vj2[1] == pytest.approx(vk[1] + vj[1], abs=1e-9)
        before = _energy(vk, wk) + _energy(vj, wj)
        assert _energy(vk2, wk2) + _energy(vj2, wj2) <= before * (1 + 1e-12)
        # spin about the line of centres is untouched
        assert wk2[0] * nx + wk2[1] * ny == pytest.approx(wk[0] * nx + wk[1] * ny, abs=1e-9)


def test_straight_draw_loses_draw_in_the_contact_as_alciatore_gives():
    # Head-on along +x with back spin w (about -y): the contact points slide vertically at
    # R w. Friction mu (Alciatore's fit at that slip) times the normal impulse
    # (1 + e) v / 2 takes 2.5 mu (1 + e) v / (2 R) of spin off the cue ball (TP A-14); the
    # object ball gets the same change of spin, which is top spin for it.
    v, w = 3.0, 150.0
    (vk, wk), (vj, wj) = ball_ball_impulse((v, 0.0), (0.0, -w, 0.0), (0.0, 0.0), (0.0, 0.0, 0.0),
                                           1.0, 0.0, R, 0.95, *FRICTION)
    mu = FRICTION[0] + FRICTION[1] * math.exp(-FRICTION[2] * R * w)
    loss = 2.5 * mu * (1.95 / 2) * v / R
    assert mu * 1.95 / 2 * v < R * w / 7  # sliding, not sticking
    assert wk[1] == pytest.approx(-w + loss, rel=1e-12)
    assert wj[1] == pytest.approx(loss, rel=1e-12)
    assert vk == pytest.approx(((1 - 0.95) / 2 * v, 0.0)) and vj == pytest.approx(((1 + 0.95) / 2 * v, 0.0))


def test_draw_through_contact_loses_distance():
    # Contact friction takes some draw: the cue ball comes back less far than with
    # frictionless balls (pooltool: a quarter less on such shots).
    table = Table(name="open", length=30.0, width=10.0)
    frictionless = Simulator(table, PhysicsParams(ball_friction_min=1e-12, ball_friction_extra=0.0))
    layout = {0: (5.0, 5.0), 1: (5.9, 5.0)}
    contact_x = 5.9 - 2 * R
    back = contact_x - Simulator(table).simulate(layout, Shot(speed=4.0, vertical=-0.5)).positions[0][0]
    back_free = contact_x - frictionless.simulate(layout, Shot(speed=4.0, vertical=-0.5)).positions[0][0]
    assert 0.5 < back < 0.9 * back_free


def _alciatore_stun_throw_deg(speed: float, cut_deg: float, restitution: float) -> float:
    """Alciatore's throw angle for a stun shot (TP A-14): the object ball leaves the line of
    centres by atan(min(mu(v sin phi) pn, v sin phi / 7) / pn), pn = (1 + e)/2 v cos phi the
    normal impulse per unit mass (v cos phi when e = 1, as in A-14) and v sin phi the slip of
    the contact points; 1/7 of the slip is the tangential impulse that stops it (each ball's
    speed changes by p and its surface speed by 5/2 p), the limit of sticking."""
    phi = math.radians(cut_deg)
    slip = speed * math.sin(phi)
    pn = 0.5 * (1.0 + restitution) * speed * math.cos(phi)
    mu = P.ball_friction_min + P.ball_friction_extra * math.exp(-P.ball_friction_decay * slip)
    return math.degrees(math.atan(min(mu * pn, slip / 7.0) / pn))


@pytest.mark.parametrize("speed", [0.3, 1.0, 2.5, 6.0])
def test_a_stun_cut_throws_the_object_ball_by_alciatores_closed_form(speed):
    """Ball-ball friction stated as the law, not as stored output: the stun-shot throw angle
    over cut angles from nearly full to thin, both sides, with the model's friction. Small
    cut angles stick (the 1/7 limit binds), large ones slide (mu binds): a doubled sticking
    limit or another mu fails here."""
    sticking = sliding = 0
    for cut_deg in (1.0, 3.0, 7.5, 15.0, 22.5, 30.0, 40.0, 50.0, 60.0, 75.0):
        for side in (1.0, -1.0):
            phi = math.radians(side * cut_deg)
            nx, ny = math.cos(phi), math.sin(phi)  # the line of centres, phi off the cue ball's path
            (_, _), ((vj, wj)) = ball_ball_impulse((speed, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0), (0.0, 0.0, 0.0),
                                                   nx, ny, R, P.ball_restitution, *FRICTION)
            along = vj[0] * nx + vj[1] * ny
            across = vj[0] * -ny + vj[1] * nx
            throw = math.degrees(math.atan2(abs(across), along))
            expected = _alciatore_stun_throw_deg(speed, cut_deg, P.ball_restitution)
            assert throw == pytest.approx(expected, abs=1e-9), (speed, side * cut_deg)
            # Thrown the way the cue ball slides across the contact: away from the cut side.
            assert across * side < 0
            # A stun shot's object ball leaves at the normal impulse's speed.
            assert along == pytest.approx(0.5 * (1 + P.ball_restitution) * speed * math.cos(phi), rel=1e-12)
            slip = speed * math.sin(math.radians(cut_deg))
            mu = P.ball_friction_min + P.ball_friction_extra * math.exp(-P.ball_friction_decay * slip)
            stuck = slip / 7.0 < mu * 0.5 * (1 + P.ball_restitution) * speed * math.cos(math.radians(cut_deg))
            sticking += stuck
            sliding += not stuck
    assert sticking and sliding  # both regimes of the law are checked at this speed


@pytest.mark.parametrize("speed", [0.3, 2.5])
def test_the_3d_contact_throws_a_level_stun_cut_by_the_same_closed_form(speed):
    from poolgym.physics.contacts import ball_ball_impulse_3d

    for cut_deg in (3.0, 15.0, 40.0, 75.0):
        phi = math.radians(cut_deg)
        nx, ny = math.cos(phi), math.sin(phi)
        _, (vj, _) = ball_ball_impulse_3d((speed, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0),
                                          nx, ny, 0.0, R, P.ball_restitution, *FRICTION)
        throw = math.degrees(math.atan2(abs(vj[0] * -ny + vj[1] * nx), vj[0] * nx + vj[1] * ny))
        assert throw == pytest.approx(_alciatore_stun_throw_deg(speed, cut_deg, P.ball_restitution), abs=1e-9)
        assert vj[2] == 0.0
