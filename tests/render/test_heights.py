"""Balls off the bed: drawn raised over their shadows, paths dashed through the air, balls
gone once they leave the table, and the side view of heights over time. A shot that stays
on the bed draws exactly as it did before heights existed."""

import hashlib
import math
from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("pygame")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # no display in tests

import matplotlib.pyplot as plt  # noqa: E402

from poolgym import events as ev  # noqa: E402
from poolgym.physics import Shot, Simulator  # noqa: E402
from poolgym.render import (FramePainter, Motion, Still, colors, heights_at, plot_heights, plot_table,  # noqa: E402
                            positions_at, render_rgb, table_to_pixel)
from poolgym.render.geometry import dashes, lifted, path_pieces  # noqa: E402

from .shots import TABLE, G, flat_result, jump_result, off_table_result  # noqa: E402

# SHA-256 prefixes of the pictures of ``flat_result`` drawn by the renderers as they were
# before heights were added (pygame 2.6.1, matplotlib 3.11.2): a flat shot must not change.
FLAT_HASHES = {"phases": "1b23afac77bee41c", "rows": "96bd19cd3e8de6f8", "motion": "538deaba29a7d1d2",
               "plot": "3abc33dc2572d5d6"}


def _hash(array) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def _flat_pictures() -> dict[str, str]:
    r = flat_result()
    painter = FramePainter(TABLE, 320, status_rows=1)
    motion = Motion(r, ("shooting",), Still(r.positions, ("done",), paths=r.trajectories))
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=80)
    plot_table(TABLE, r.positions, result=r, ax=ax)
    fig.canvas.draw()
    plot = np.asarray(fig.canvas.buffer_rgba())
    plt.close(fig)
    return {
        "phases": _hash(render_rgb(TABLE, r.positions, trajectories=r.trajectories, width_px=400, highlight=9)),
        "rows": _hash(render_rgb(TABLE, r.positions, trajectories={b: r.sample_path(b) for b in (0, 3)},
                                 width_px=400)),
        "motion": _hash(np.stack(list(motion.frames(painter, 5)))),
        "plot": _hash(plot),
    }


def test_a_flat_shot_draws_exactly_as_before_heights():
    versions = (__import__("pygame").version.ver, matplotlib.__version__)
    if versions != ("2.6.1", "3.11.2"):
        pytest.skip(f"the stored pictures were drawn with pygame 2.6.1 and matplotlib 3.11.2, not {versions}")
    assert _flat_pictures() == FLAT_HASHES


# ---------------------------------------------------------------- where and how high
def test_heights_follow_the_flight_parabola_and_positions_are_unchanged():
    r = jump_result(take_off=0.1, flight=0.3)
    vz = G * 0.3 / 2
    for t in np.linspace(0.0, r.duration, 37):
        heights, positions = heights_at(r, t), positions_at(r, t)
        assert set(heights) == set(positions) == {0, 5}
        tau = t - 0.1
        expected = vz * tau - G * tau ** 2 / 2 if 0.0 <= tau <= 0.3 else 0.0
        assert heights[0] == pytest.approx(expected, abs=1e-12)
        assert heights[5] == 0.0
    assert heights_at(r, 0.25)[0] == pytest.approx(G * 0.3 ** 2 / 8)  # the apex
    assert heights_at(r, r.duration) == {0: 0.0, 5: 0.0}


def test_a_ball_that_left_the_table_is_gone_from_then_on():
    r = off_table_result()
    assert 0 in positions_at(r, 0.2) and heights_at(r, 0.2)[0] > 0
    for t in (0.25, 0.5, r.duration):
        assert set(positions_at(r, t)) == {4}
    painter = FramePainter(TABLE, 400)
    frames = list(Motion(r, (), Still(r.positions)).frames(painter, 10))
    white = [int(np.all(f == colors.CUE_BALL, axis=2).sum()) for f in frames]
    assert white[0] > 20 and white[2] > 20  # in flight, over the rail
    assert all(w == 0 for w in white[3:]), white  # from 0.3 s on it is off the table


# ---------------------------------------------------------------- the pygame picture
def _px(image, point, width=800):
    col, row = table_to_pixel(TABLE, point, width)
    return tuple(int(v) for v in image[row, col])


def test_a_raised_ball_is_drawn_up_the_picture_larger_over_its_shadow():
    point, height = (1.2, 0.7), 0.1
    flat = render_rgb(TABLE, {0: point}, width_px=800, labels=False)
    raised = render_rgb(TABLE, {0: point}, width_px=800, labels=False, heights={0: height})
    centre, scale = lifted(point, height)
    assert centre == (1.2, 0.6) and scale == pytest.approx(1.2)
    assert _px(flat, point) == colors.CUE_BALL and _px(flat, centre) == colors.CLOTH
    assert _px(raised, centre) == colors.CUE_BALL
    shadow = _px(raised, point)
    assert all(s < c for s, c in zip(shadow, colors.CLOTH))  # the cloth, darkened
    # Larger: just beyond the ball's radius on the bed, the raised ball is still white.
    edge = (centre[0] + 1.1 * TABLE.ball_radius, centre[1])
    assert _px(flat, (point[0] + 1.1 * TABLE.ball_radius, point[1])) == colors.CLOTH
    assert _px(raised, edge) == colors.CUE_BALL
    # Heights of 0 (or none) draw the flat picture.
    assert np.array_equal(render_rgb(TABLE, {0: point}, width_px=800, labels=False, heights={0: 0.0}), flat)


@pytest.mark.parametrize("width", [320, 800])
def test_a_raised_ball_grows_with_its_height_even_in_small_pictures(width):
    """Small pictures draw balls larger than to scale so that numbers fit; a raised ball
    still grows from that size."""
    def ink(height):
        image = render_rgb(TABLE, {0: (1.2, 0.7)}, width_px=width, heights={0: height})
        return int(np.all(image == colors.CUE_BALL, axis=2).sum())

    assert ink(0.0) < ink(0.1) < ink(0.25)


def test_a_raised_ball_is_drawn_over_the_ball_it_jumps():
    below, height = (1.2, 0.7), 0.03
    over = (1.2, 0.7 + height)  # lifted onto the 2's centre in the picture
    image = render_rgb(TABLE, {2: below, 0: over}, width_px=800, labels=False, heights={0: height})
    assert _px(image, below) == colors.CUE_BALL


def test_motion_frames_show_the_ball_in_the_air_at_its_height():
    r = jump_result(take_off=0.1, flight=0.3)
    painter = FramePainter(TABLE, 800)
    frames = list(Motion(r, (), Still(r.positions)).frames(painter, 20))
    t = 5 / 20  # the apex
    point, height = positions_at(r, t)[0], heights_at(r, t)[0]
    apex = frames[5]
    assert _px(apex, lifted(point, height)[0]) == colors.CUE_BALL
    assert all(s < c for s, c in zip(_px(apex, point), colors.CLOTH))  # the shadow
    # Before take-off the ball sits on the bed.
    assert _px(frames[1], positions_at(r, 1 / 20)[0]) == colors.CUE_BALL


def test_a_path_is_dashed_through_the_air_and_solid_on_the_bed():
    r = jump_result(take_off=0.1, flight=0.3)
    image = render_rgb(TABLE, {}, width_px=800, trajectories=r.trajectories)
    air = r.trajectories[0][1]

    def whites(x0, x1):
        return [_px(image, (x, 0.6)) == colors.CUE_BALL for x in np.linspace(x0, x1, 60)]

    start_air, end_air = air.position[0], air.position_at(air.t1)[0]
    solid = whites(r.trajectories[0][0].position[0] + 0.05, start_air - 0.01)
    dashed = whites(start_air + 0.01, end_air - 0.01)
    assert all(solid)
    assert 0.3 < sum(dashed) / len(dashed) < 0.8  # dashes and gaps
    # Rows with heights cut the path at the same places as the phases.
    pieces = path_pieces(r.sample_path(0, height=True))
    assert [off for _, off in pieces] == [off for _, off in path_pieces(r.trajectories[0])] == [False, True, False]
    assert pieces[1][0][0] == pytest.approx(air.position) and pieces[1][0][-1] == pytest.approx(air.position_at(air.t1))


def test_dashes_cut_a_polyline_by_length_along_it():
    line = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    cut = dashes(line, 0.3, 0.2)
    assert len(cut) == 4
    assert sum(np.hypot(*np.diff(d, axis=0).T).sum() for d in cut) == pytest.approx(4 * 0.3)
    assert np.allclose(cut[2], [[1.0, 0.0], [1.0, 0.3]])
    assert dashes(line[:1], 0.3, 0.2) == []
    with pytest.raises(ValueError, match=r"rows of \(t, x, y\), rows of \(t, x, y, z\)"):
        path_pieces(np.zeros((3, 5)))


# ---------------------------------------------------------------- the matplotlib top view
def _patch(ax, gid):
    return next(p for p in ax.patches if p.get_gid() == gid)


def test_plot_table_dashes_flights_marks_balls_gone_and_raises_balls():
    r = jump_result()
    ax = plot_table(TABLE, r.positions, result=r)
    assert [line.get_linestyle() for line in ax.lines if line.get_gid() == "path 0"] == ["-", "--", "-"]
    plt.close(ax.figure)

    gone = off_table_result()
    ax = plot_table(TABLE, gone.positions, result=gone)
    cross = next(line for line in ax.lines if line.get_gid() == "off table 0")
    assert tuple(cross.get_xydata()[0]) == pytest.approx(gone.off_table[0])
    assert {p.get_gid() for p in ax.patches if (p.get_gid() or "").startswith("ball")} == {"ball 4"}
    plt.close(ax.figure)

    point, height = (1.0, 0.5), 0.08
    ax = plot_table(TABLE, {0: point, 3: (2.0, 0.5)}, heights={0: height})
    centre, scale = lifted(point, height)
    assert _patch(ax, "ball 0").center == pytest.approx(centre)
    assert _patch(ax, "ball 0").radius == pytest.approx(TABLE.ball_radius * scale)
    assert _patch(ax, "shadow 0").center == pytest.approx(point)
    assert _patch(ax, "ball 0").zorder > _patch(ax, "ball 3").zorder
    assert _patch(ax, "ball 3").radius == pytest.approx(TABLE.ball_radius)
    plt.close(ax.figure)


# ---------------------------------------------------------------- the side view
def test_plot_heights_draws_the_flight_parabola_and_the_cushion_height():
    take_off, flight = 0.1, 0.3
    r = jump_result(take_off, flight)
    ax = plot_heights(r)  # the balls that leave the bed: the cue ball
    lines = {line.get_gid(): line for line in ax.lines}
    assert set(lines) == {"height 0", "cushion height"}
    t, z = lines["height 0"].get_xdata(), lines["height 0"].get_ydata()
    tau = t - take_off
    expected = np.where((tau >= 0) & (tau <= flight), G * flight / 2 * tau - G * tau ** 2 / 2, 0.0)
    assert np.allclose(z, expected, atol=1e-12)
    assert t[0] == 0.0 and t[-1] == pytest.approx(r.duration)
    assert take_off in t and take_off + flight in t  # the phase changes are sampled exactly
    assert z.max() == pytest.approx(G * flight ** 2 / 8, rel=1e-3)
    assert np.allclose(lines["cushion height"].get_ydata(), TABLE.cushion_height)
    assert ax.get_xlabel().startswith("time") and "height" in ax.get_ylabel()
    plt.close(ax.figure)

    ax = plot_heights(r, balls=[0, 5])
    assert {line.get_gid() for line in ax.lines} == {"height 0", "height 5", "cushion height"}
    plt.close(ax.figure)


def test_plot_heights_marks_where_a_ball_left_the_table():
    r = off_table_result()
    ax = plot_heights(r)
    cross = next(line for line in ax.lines if line.get_gid() == "off table 0")
    leave = next(e for e in r.events if isinstance(e, ev.OffTable))
    assert tuple(cross.get_xydata()[0]) == pytest.approx((leave.time, leave.height))
    assert lines_end(ax, "height 0") == pytest.approx(leave.time)
    plt.close(ax.figure)


def lines_end(ax, gid):
    return next(line for line in ax.lines if line.get_gid() == gid).get_xdata()[-1]


def test_plot_heights_of_a_flat_shot_shows_the_cue_ball_on_the_bed_and_refuses_bad_input():
    r = flat_result()
    ax = plot_heights(r)
    assert not np.any(next(line for line in ax.lines if line.get_gid() == "height 0").get_ydata())
    plt.close(ax.figure)
    with pytest.raises(ValueError, match=r"balls \[7\] were not in this shot"):
        plot_heights(r, balls=[7])
    with pytest.raises(ValueError, match="no trajectories"):
        plot_heights(replace(r, trajectories=None))


# ---------------------------------------------------------------- simulated shots
def test_a_simulated_jump_is_drawn_in_the_air_and_a_ball_jumped_off_is_gone():
    sim = Simulator(TABLE)
    jump = sim.simulate({0: (0.6, 0.6), 5: (2.0, 1.0)}, Shot(5.0, 0.0, elevation_deg=50.0), trajectories=True)
    flight = jump.trajectories[0][0]
    assert flight.mode == "airborne"
    apex = flight.t0 - flight.vertical_velocity / flight.vertical_acceleration
    assert heights_at(jump, apex)[0] == pytest.approx(flight.height_at(apex)) and flight.height_at(apex) > 0.02
    frame = FramePainter(TABLE, 800).paint(positions_at(jump, apex), heights=heights_at(jump, apex))
    point = positions_at(jump, apex)[0]
    assert _px(frame, lifted(point, flight.height_at(apex))[0]) == colors.CUE_BALL
    assert all(s < c for s, c in zip(_px(frame, point), colors.CLOTH))
    ax = plot_heights(jump)
    z = next(line for line in ax.lines if line.get_gid() == "height 0").get_ydata()
    assert z.max() == pytest.approx(flight.height_at(apex), rel=0.05) and z.min() >= -1e-12
    plt.close(ax.figure)

    off = sim.simulate({0: (TABLE.length - 0.3, 0.6), 4: (1.5, 0.9)}, Shot(8.0, 0.0, elevation_deg=60.0),
                       trajectories=True)
    left = next(e for e in off.events if isinstance(e, ev.OffTable))
    assert off.off_table == {0: left.position}
    assert 0 in positions_at(off, left.time * 0.5) and 0 not in positions_at(off, left.time)
    frames = list(Motion(off, (), Still(off.positions)).frames(FramePainter(TABLE, 400), 30))
    white = [int(np.all(f == colors.CUE_BALL, axis=2).sum()) for f in frames]
    flying, gone = white[:math.ceil(left.time * 30)], white[math.ceil(left.time * 30):]
    assert all(flying) and gone and not any(gone)
