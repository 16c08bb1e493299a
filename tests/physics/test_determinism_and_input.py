"""Same inputs, same results (also in a new process); bad input gets a clear error."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from poolgym.physics import Noise, PhysicsParams, Shot, Simulator
from poolgym.table import BALL_RADIUS as R, Table

_SCRIPT = """
import json, numpy as np
from poolgym.physics import Simulator, Shot
from poolgym.table import BALL_RADIUS as R, Table
t = Table.preset("9ft")
sim = Simulator(t, noise="tournament")
layout = dict(zip([1, 2, 3, 4, 9, 5, 6, 7, 8], t.rack_positions((1, 2, 3, 2, 1))))
layout[0] = (0.5, 0.6)
res = sim.simulate(layout, Shot(speed=9.0, angle_deg=4.0, side=0.1), rng=np.random.default_rng(99))
print(json.dumps({"positions": {str(k): v for k, v in res.positions.items()},
                  "pocketed": res.pocketed, "duration": res.duration, "events": repr(res.events)}))
"""


def _run_in_new_process():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_same_layout_shot_and_seed_give_identical_results_in_new_processes():
    first, second = _run_in_new_process(), _run_in_new_process()
    assert first == second
    assert len(first["events"]) > 200  # a real break, not an empty log


def test_noise_is_seeded_and_changes_the_shot():
    sim = Simulator(Table.preset("9ft"), noise="tournament")
    layout = {0: (0.5, 0.6), 1: (1.8, 0.7)}
    shot = Shot(speed=3.0, angle_deg=5.0)
    a = sim.simulate(layout, shot, rng=np.random.default_rng(1))
    b = sim.simulate(layout, shot, rng=np.random.default_rng(1))
    c = sim.simulate(layout, shot, rng=np.random.default_rng(2))
    assert a.positions == b.positions and a.shot == b.shot
    assert a.shot != c.shot and a.shot != shot


def test_tournament_noise_has_the_tournament_sigmas():
    noise = Noise.preset("tournament")
    assert (noise.speed, noise.angle_deg) == (0.075, 0.125)
    assert noise.side * 0.028575 == pytest.approx(0.0005)
    rng = np.random.default_rng(0)
    shots = [noise.apply(Shot(speed=3.0, angle_deg=10.0, side=0.1, vertical=-0.1), rng) for _ in range(4000)]
    assert np.std([s.speed for s in shots]) == pytest.approx(0.075, rel=0.05)
    assert np.std([s.angle_deg for s in shots]) == pytest.approx(0.125, rel=0.05)
    assert np.std([s.side for s in shots]) * 0.028575 == pytest.approx(0.0005, rel=0.05)
    assert np.mean([s.angle_deg for s in shots]) == pytest.approx(10.0, abs=0.01)


def test_fastfiz_noise_draws_fastfizs_five_sigmas_and_tournament_its_four():
    """FastFiz 0.2's GaussianNoise defaults: a = b = 0.5 mm, theta 0.1 deg, phi 0.125 deg,
    V 0.075 m/s; "tournament" is the same without theta's draw."""
    fastfiz, tournament = Noise.preset("fastfiz"), Noise.preset("tournament")
    assert (fastfiz.speed, fastfiz.angle_deg, fastfiz.elevation_deg) == (0.075, 0.125, 0.1)
    assert fastfiz.side * R == pytest.approx(0.0005) and fastfiz.vertical * R == pytest.approx(0.0005)
    assert tournament.elevation_deg == 0.0
    assert {**fastfiz.__dict__, "elevation_deg": 0.0} == tournament.__dict__
    # A raised stroke (clear of the clip at level): the elevation's spread is theta's.
    shot = Shot(speed=3.0, angle_deg=10.0, elevation_deg=20.0)
    rng = np.random.default_rng(0)
    shots = [fastfiz.apply(shot, rng) for _ in range(4000)]
    assert np.std([s.elevation_deg for s in shots]) == pytest.approx(0.1, rel=0.05)
    assert np.std([s.vertical for s in shots]) * R == pytest.approx(0.0005, rel=0.05)
    # The first four draws are the tournament preset's.
    same = [tournament.apply(shot, np.random.default_rng(s)) for s in range(5)]
    five = [fastfiz.apply(shot, np.random.default_rng(s)) for s in range(5)]
    assert [(a.speed, a.angle_deg, a.side, a.vertical) for a in same] == \
        [(b.speed, b.angle_deg, b.side, b.vertical) for b in five]
    # A level stroke is never played below level: about half its draws stay level.
    level = [fastfiz.apply(Shot(speed=3.0), rng).elevation_deg for _ in range(2000)]
    assert min(level) == 0.0 and 0.4 < np.mean(np.array(level) == 0.0) < 0.6


def test_no_noise_preset_executes_exactly():
    shot = Shot(speed=3.0, angle_deg=10.0)
    assert Noise.preset("none").apply(shot, np.random.default_rng(0)) is shot


def test_noise_without_a_generator_is_refused():
    sim = Simulator(Table.preset("9ft"), noise="tournament")
    with pytest.raises(ValueError, match="rng"):
        sim.simulate({0: (0.5, 0.6)}, Shot(speed=1.0))


@pytest.mark.parametrize("kwargs, field", [
    ({"speed": math.nan}, "speed"), ({"speed": math.inf}, "speed"), ({"speed": -1.0}, "speed"),
    ({"speed": 0.0}, "speed"), ({"speed": 16.0}, r"speed must be in \(0, 15"),
    ({"speed": 1.0, "angle_deg": math.nan}, "angle_deg"),
    ({"speed": 1.0, "side": 1.2}, r"side must be in \(-1, 1\)"),
    ({"speed": 1.0, "vertical": -math.inf}, "vertical"),
    ({"speed": 1.0, "side": 0.8, "vertical": 0.8}, "side\\*\\*2 \\+ vertical\\*\\*2"),
    ({"speed": "fast"}, "speed must be a real number"),
])
def test_bad_shot_values_name_the_field_and_range(sim9, kwargs, field):
    with pytest.raises(ValueError, match=field):
        sim9.simulate({0: (0.5, 0.6)}, Shot(**kwargs))


@pytest.mark.parametrize("layout, message", [
    ({0: (0.5, 0.6), 1: (0.52, 0.6)}, "balls 0 and 1 overlap"),
    ({0: (0.01, 0.6)}, "ball 0 at .* is off the playing surface"),
    ({0: (3.0, 0.6)}, "off the playing surface"),
    ({0: (0.5, 0.6), 16: (1.0, 0.6)}, "unknown ball 16"),
    ({0: (0.5, 0.6), -1: (1.0, 0.6)}, "unknown ball -1"),
    ({0: (0.5, 0.6), "one": (1.0, 0.6)}, "unknown ball 'one'"),
    ({1: (0.5, 0.6)}, "must contain the cue ball"),
    ({0: (math.nan, 0.6)}, "must be finite"),
    ({0: (0.5,)}, r"layout\[0\] must be a pair"),
    ([(0.5, 0.6)], "layout must be a mapping"),
])
def test_bad_layouts_name_the_balls(sim9, layout, message):
    with pytest.raises(ValueError, match=message):
        sim9.simulate(layout, Shot(speed=1.0))


def test_bad_input_leaves_the_layout_untouched(sim9):
    layout = {0: (0.5, 0.6), 1: (0.52, 0.6)}
    before = dict(layout)
    with pytest.raises(ValueError):
        sim9.simulate(layout, Shot(speed=1.0))
    assert layout == before


def test_bad_parameters_and_tables_are_refused():
    with pytest.raises(ValueError, match="mu_slide"):
        PhysicsParams(mu_slide=-0.2)
    with pytest.raises(ValueError, match="ball_restitution"):
        PhysicsParams(ball_restitution=1.5)
    with pytest.raises(ValueError, match="unknown table preset"):
        Table.preset("6ft")
    with pytest.raises(ValueError, match="Table.length"):
        Table(length=math.nan)
    with pytest.raises(ValueError, match="unknown noise preset"):
        Noise.preset("loud")


def test_miscue_is_reported_beyond_the_limit(sim9):
    normal = sim9.simulate({0: (0.5, 0.6)}, Shot(speed=1.0, side=0.5))
    miscue = sim9.simulate({0: (0.5, 0.6)}, Shot(speed=1.0, side=0.5, vertical=0.5))
    assert not normal.miscue and miscue.miscue


@pytest.mark.parametrize("side, pooltool_deg", [(0.2, -0.845), (0.35, -1.422), (0.5, -1.896)])
def test_squirt_deflects_away_from_the_side_struck(side, pooltool_deg):
    # pooltool 0.6's squirt for the same strokes (same ball and end mass), measured by
    # ``python -m poolgym.agents.tools.peers.compare_physics``.
    table = Table(name="open", length=30.0, width=10.0)
    plain = Simulator(table).simulate({0: (1.0, 5.0)}, Shot(speed=1.0, side=side))
    squirt = Simulator(table, PhysicsParams(squirt=True)).simulate({0: (1.0, 5.0)}, Shot(speed=1.0, side=side))
    assert plain.positions[0][1] == pytest.approx(5.0, abs=1e-9)
    # right english squirts the ball to the left of the aim line: -y when shooting along +x
    # (y = 0 is the left rail)
    angle = math.degrees(math.atan2(squirt.positions[0][1] - 5.0, squirt.positions[0][0] - 1.0))
    assert angle == pytest.approx(pooltool_deg, abs=0.3)
    left = Simulator(table, PhysicsParams(squirt=True)).simulate({0: (1.0, 5.0)}, Shot(speed=1.0, side=-side))
    assert left.positions[0][1] - 5.0 == pytest.approx(-(squirt.positions[0][1] - 5.0), rel=1e-9)


@pytest.mark.parametrize("height", [0.5 * R, R, 2 * R, 0.07])
def test_cushion_height_outside_the_ball_is_refused(height):
    with pytest.raises(ValueError, match=r"Table.cushion_height must be in"):
        Simulator(Table.preset("9ft", cushion_height=height))
