"""The pygame picture, the matplotlib plot and the headless window."""

import numpy as np
import pytest

pytest.importorskip("pygame")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # no display in tests

from poolgym.physics import Shot, Simulator  # noqa: E402
from poolgym.render import HumanWindow, plot_table, render_rgb, table_to_pixel  # noqa: E402
from poolgym.render import colors  # noqa: E402
from poolgym.render.geometry import outer_margin  # noqa: E402
from poolgym.table import Table  # noqa: E402

TABLE = Table.preset("9ft")
WIDTH = 800
# Scattered balls: a solid, a stripe, the eight and the cue ball, well apart.
LAYOUT = {0: (0.5, 0.6), 3: (1.0, 0.3), 8: (1.5, 0.9), 11: (2.0, 0.5)}


def pixel(image: np.ndarray, point, dx: int = 0, dy: int = 0) -> tuple[int, int, int]:
    col, row = table_to_pixel(TABLE, point, WIDTH)
    return tuple(int(v) for v in image[row + dy, col + dx])


def radius_px() -> int:
    """A ball's radius in pixels, give or take the one lost to rounding."""
    return int(TABLE.ball_radius * WIDTH / (TABLE.length + 2 * outer_margin()))


def test_image_shape_and_dtype_follow_the_table_proportions():
    image = render_rgb(TABLE, LAYOUT, width_px=WIDTH)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[1:] == (WIDTH, 3)
    # Height over width as the table with its rails: about 0.55 for a 9-ft table.
    assert 0.5 < image.shape[0] / WIDTH < 0.6


def test_ball_centres_show_each_ball_colour():
    image = render_rgb(TABLE, LAYOUT, width_px=WIDTH, labels=False)
    for ball, point in LAYOUT.items():
        assert pixel(image, point) == colors.ball_color(ball)


def test_labels_sit_on_a_white_disc_and_leave_the_ball_colour_around_it():
    image = render_rgb(TABLE, LAYOUT, width_px=WIDTH)
    r = radius_px()
    col, row = table_to_pixel(TABLE, LAYOUT[3], WIDTH)
    k = r // 3
    middle = {tuple(int(v) for v in rgb)
              for rgb in image[row - k:row + k + 1, col - k:col + k + 1].reshape(-1, 3)}
    # The number: a white disc with a dark digit on it.
    assert colors.LABEL_DISC in middle and any(sum(rgb) < 200 for rgb in middle)
    assert pixel(image, LAYOUT[3], dx=int(0.8 * r)) == colors.ball_color(3)
    assert pixel(image, LAYOUT[0]) == colors.CUE_BALL  # the cue ball has no number


def test_stripes_are_white_above_and_below_the_band():
    image = render_rgb(TABLE, LAYOUT, width_px=WIDTH, labels=False)
    r = radius_px()
    assert pixel(image, LAYOUT[11], dy=-int(0.8 * r)) == colors.STRIPE_BASE
    assert pixel(image, LAYOUT[11], dy=int(0.8 * r)) == colors.STRIPE_BASE
    assert pixel(image, LAYOUT[11], dx=int(0.8 * r)) == colors.ball_color(11)


def test_pocket_holes_are_dark_and_the_empty_table_shows_cloth():
    image = render_rgb(TABLE, {}, width_px=WIDTH)
    for pocket in TABLE.pockets:
        assert sum(pixel(image, pocket.hole_centre)) < 60, pocket.id
    assert pixel(image, TABLE.centre_spot) == colors.CLOTH
    assert pixel(image, (-0.1, TABLE.width / 2 + 0.05)) == colors.RAIL


def test_highlight_rings_the_ball():
    r = radius_px()
    plain = render_rgb(TABLE, LAYOUT, width_px=WIDTH)
    ringed = render_rgb(TABLE, LAYOUT, width_px=WIDTH, highlight=3)
    assert pixel(plain, LAYOUT[3], dx=r + 2) == colors.CLOTH
    assert pixel(ringed, LAYOUT[3], dx=r + 2) == colors.HIGHLIGHT
    assert pixel(ringed, LAYOUT[8], dx=r + 2) == colors.CLOTH


def test_sampled_path_is_drawn_along_its_points():
    path = np.array([(0.0, 0.4, 0.3), (1.0, 2.2, 1.0)])
    plain = render_rgb(TABLE, {}, width_px=WIDTH)
    drawn = render_rgb(TABLE, {}, trajectories={2: path}, width_px=WIDTH)
    for s in (0.25, 0.5, 0.75):
        point = path[0, 1:] + s * (path[1, 1:] - path[0, 1:])
        assert pixel(drawn, point) == colors.ball_color(2) != pixel(plain, point)
    assert pixel(drawn, (0.4, 1.0)) == pixel(plain, (0.4, 1.0))  # far from the path


def test_simulated_motion_phases_are_drawn():
    layout = {0: (0.5, 0.635)}
    result = Simulator(TABLE).simulate(layout, Shot(speed=1.0, angle_deg=0.0), trajectories=True)
    drawn = render_rgb(TABLE, result.positions, trajectories=result.trajectories, width_px=WIDTH)
    plain = render_rgb(TABLE, result.positions, width_px=WIDTH)
    midway = ((0.5 + result.positions[0][0]) / 2, 0.635)
    assert pixel(drawn, midway) == colors.CUE_BALL != pixel(plain, midway)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="width_px"):
        render_rgb(TABLE, {}, width_px=10)
    with pytest.raises(ValueError, match="trajectory"):
        render_rgb(TABLE, {}, trajectories={0: np.zeros((4, 2))})
    with pytest.raises(ValueError, match="ball numbers"):
        render_rgb(TABLE, {16: (1.0, 0.5)})


def test_plot_table_draws_one_disc_per_ball_and_labels_the_axes():
    import matplotlib.pyplot as plt

    result = Simulator(TABLE).simulate(LAYOUT, Shot(speed=2.0, angle_deg=-30.0), trajectories=True)
    ax = plot_table(TABLE, result.positions, result=result, title="after the shot")
    try:
        discs = [p for p in ax.patches if (p.get_gid() or "").startswith("ball ")]
        assert sorted(p.get_gid() for p in discs) == sorted(f"ball {b}" for b in result.positions)
        assert ax.get_xlabel() == "x (m)" and ax.get_ylabel() == "y (m)"
        assert ax.get_title() == "after the shot"
        assert ax.get_aspect() == 1.0
        assert len(ax.lines) == 1 + len(result.trajectories)  # the head string and one path per ball
        assert ax.get_ylim()[0] > ax.get_ylim()[1]  # y downwards, as in the RGB picture
    finally:
        plt.close(ax.figure)


def test_plot_table_draws_into_a_given_axes():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        assert plot_table(TABLE, LAYOUT, ax=ax) is ax
    finally:
        plt.close(fig)


def test_human_window_shows_frames_headless(monkeypatch):
    import pygame

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    frame = render_rgb(TABLE, LAYOUT, width_px=400)
    window = HumanWindow(fps=None)
    assert not window.is_open
    try:
        window.show(frame)
        assert window.is_open
        shown = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
        assert np.array_equal(shown, frame)
        with pytest.raises(ValueError, match="uint8"):
            window.show(frame.astype(float))
    finally:
        window.close()
    assert not window.is_open
    window.close()  # a second close is harmless
