"""Frames for videos and windows: shots animated from their trajectories, the status text,
a cue ball in hand, numbers readable on small balls, and the frame's size."""

import math

import numpy as np
import pytest

pytest.importorskip("pygame")

from poolgym.physics import Shot, Simulator  # noqa: E402
from poolgym.render import FramePainter, Motion, Still, positions_at, render_rgb, shot_frame_count  # noqa: E402
from poolgym.render import colors  # noqa: E402
from poolgym.render.geometry import in_hand_spot  # noqa: E402
from poolgym.render.overlay import decision_verdict, game_status, shot_verdict, shooting  # noqa: E402
from poolgym.render.rgb import (MIN_LABEL_FONT_PX, FrameLayout, _label, ball_radius_px,  # noqa: E402
                                label_font_px, status_bar_px, table_to_pixel)
from poolgym.rules import (Choice, CueBallZone, Decision, DecisionKind, Foul, GameState, Outcome,  # noqa: E402
                           PendingDecision)
from poolgym.table import Table  # noqa: E402

TABLE = Table.preset("9ft")
NAMES = ("agent", "opponent")


def _state(**fields):
    base = dict(game="nine_ball", balls={1: (2.0, 0.6), 9: (2.2, 0.7)}, awaiting_break=False,
                cue_ball_in_hand=CueBallZone.ANYWHERE)
    return GameState(**{**base, **fields})


def _outcome(**fields):
    base = dict(shooter=0, break_shot=False, push_out=False, fouls=(), penalty=None, pocketed=(),
                driven_off=(), pocketed_legally=(), spotted=(), turn_kept=False, next_shooter=1,
                cue_ball_in_hand=CueBallZone.NONE)
    return Outcome(**{**base, **fields})


# ---------------------------------------------------------------- the status text
def test_the_status_names_the_shooter_the_match_score_fouls_and_a_ball_in_hand():
    state = _state(shooter=1, consecutive_fouls=(2, 0))
    assert game_status(state, NAMES, (1, 0), 3) == (
        "opponent to shoot | racks 1-0 (race to 3) | fouls in a row 2-0 | ball in hand (anywhere)")
    # While the shot from hand rolls, the cue ball is on the table.
    assert "ball in hand" not in game_status(state, NAMES, (1, 0), 3, in_hand=False)
    kitchen = _state(shooter=0, awaiting_break=True, cue_ball_in_hand=CueBallZone.KITCHEN)
    assert game_status(kitchen).startswith("player 0 to break | fouls in a row 0-0 | ball in hand (kitchen)")
    on_table = _state(balls={0: (0.5, 0.5), 1: (2.0, 0.6)}, cue_ball_in_hand=CueBallZone.NONE)
    assert "ball in hand" not in game_status(on_table)


def test_the_status_shows_decisions_141_points_8_ball_groups_and_the_rack_winner():
    pending = _state(pending=PendingDecision(DecisionKind.PUSH_OUT_RESPONSE, 1, (Choice.SHOOT, Choice.PASS_BACK)))
    assert game_status(pending, NAMES).startswith("opponent to decide (push out response)")
    points = _state(game="straight_pool", scores=(12, 30), target_score=100)
    assert "points 12-30 of 100" in game_status(points, NAMES)
    groups = _state(game="eight_ball", groups=("stripes", "solids"))
    assert "agent stripes, opponent solids" in game_status(groups, NAMES)
    won = _state(winner=0)
    assert game_status(won, NAMES, (2, 1), 2) == "agent won the rack | racks 2-1 (race to 2) | fouls in a row 0-0"


def test_the_verdict_says_fouls_with_their_sections_pots_and_the_rack_end():
    scratch = _outcome(fouls=(Foul("6.1", "cue ball pocketed"),), pocketed=((0, "foot_left"),),
                       cue_ball_in_hand=CueBallZone.ANYWHERE)
    assert shot_verdict(scratch, NAMES) == "last: agent shot | FOUL 6.1 (cue ball pocketed) | pocketed the cue ball"
    run_out = _outcome(shooter=1, pocketed=((3, "side_left"), (9, "foot_right")), winner=1)
    assert shot_verdict(run_out, NAMES) == "last: opponent shot | pocketed 3, 9 | opponent wins the rack"
    dry_break = _outcome(break_shot=True)
    assert shot_verdict(dry_break, NAMES) == "last: agent break | nothing pocketed"
    assert decision_verdict(1, Decision(Choice.PASS_BACK), NAMES) == "last: opponent chose pass back"
    assert shooting(_state(shooter=1), NAMES) == "opponent shooting"


# ---------------------------------------------------------------- shots as frames
def _shot_with_a_pot():
    """The cue ball drives the 1 straight into the foot-right corner and stops short."""
    u = 1 / math.sqrt(2)
    ob = (TABLE.length - u * 0.4, TABLE.width - u * 0.4)
    cb = (ob[0] - u * 0.6, ob[1] - u * 0.6)
    result = Simulator(TABLE).simulate({0: cb, 1: ob, 5: (0.5, 0.3)}, Shot(speed=2.0, angle_deg=45.0, vertical=-0.3),
                                       trajectories=True)
    assert 1 in result.pocketed and 0 not in result.pocketed
    return result, cb, ob


def test_positions_follow_the_exact_phases_and_a_pocketed_ball_disappears():
    result, cb, ob = _shot_with_a_pot()
    start = positions_at(result, 0.0)
    assert start[0] == pytest.approx(cb) and start[1] == pytest.approx(ob) and start[5] == (0.5, 0.3)
    for t in np.linspace(0.0, result.duration, 23)[:-1]:
        positions = positions_at(result, t)
        for ball, phases in result.trajectories.items():
            phase = next((p for p in phases if p.t0 <= t < p.t1), None)
            if phase is None:
                assert ball not in positions  # it has dropped
            else:
                assert positions[ball] == pytest.approx(phase.position_at(t), abs=1e-12)
    assert positions_at(result, result.duration) == result.positions
    assert 1 not in positions_at(result, result.duration)


def test_a_motion_draws_one_frame_per_tick_then_the_balls_at_rest_with_the_verdict():
    result, _, _ = _shot_with_a_pot()
    fps = 10
    end = Still(result.positions, ("after", "verdict"))
    motion = Motion(result, ("before", "shooting"), end)
    painter = FramePainter(TABLE, 200, status_rows=2)
    frames = list(motion.frames(painter, fps))
    assert len(frames) == motion.frame_count(fps) == math.ceil(result.duration * fps) + 1
    assert shot_frame_count(result.duration, fps) == len(frames) and shot_frame_count(0.0, fps) == 1
    assert np.array_equal(frames[-1], next(end.frames(painter, fps)))
    # The frames show the balls moving: consecutive frames differ while the shot rolls.
    assert not np.array_equal(frames[0], frames[1])
    assert all(f.shape == frames[0].shape for f in frames)


# ---------------------------------------------------------------- the picture
def test_frames_take_the_width_and_height_asked_for_with_the_table_centred():
    for width, height in ((640, 480), (320, 320), (500, 150)):
        frame = render_rgb(TABLE, {}, width_px=width, height_px=height, status=("a", "b"))
        assert frame.shape == (height, width, 3)
        col, row = table_to_pixel(TABLE, TABLE.centre_spot, width, height, status_rows=2)
        assert abs(col - width / 2) <= 1
        assert abs(row - (height - status_bar_px(width, 2)) / 2) <= 1
    default = render_rgb(TABLE, {}, width_px=400)
    with_bar = render_rgb(TABLE, {}, width_px=400, status=("a", "b"))
    assert with_bar.shape[0] == default.shape[0] + status_bar_px(400, 2)
    assert np.array_equal(with_bar[:default.shape[0]], default)  # the bar goes below the table
    with pytest.raises(ValueError, match="height_px"):
        render_rgb(TABLE, {}, width_px=400, height_px=20)


def test_the_status_bar_shows_the_text():
    plain = render_rgb(TABLE, {}, width_px=400, status=("", ""))
    text = render_rgb(TABLE, {}, width_px=400, status=("agent to shoot", ""))
    bar = status_bar_px(400, 2)
    differs = np.any(plain != text, axis=2)
    assert differs[-bar:].sum() > 50 and not differs[:-bar].any()


def test_a_cue_ball_in_hand_is_drawn_see_through_at_a_free_spot():
    layout = {1: TABLE.head_spot, 9: (2.0, 0.6)}
    spot = in_hand_spot(TABLE, layout)
    assert spot[0] < TABLE.head_string_x + 1e-9  # in the kitchen
    assert math.dist(spot, TABLE.head_spot) > 2 * TABLE.ball_radius  # not on the 1
    assert in_hand_spot(TABLE, {9: (2.0, 0.6)}) == TABLE.head_spot
    plain = render_rgb(TABLE, layout, width_px=800)
    shown = render_rgb(TABLE, layout, width_px=800, in_hand=spot)
    col, row = table_to_pixel(TABLE, spot, 800)
    blend, cloth = tuple(int(v) for v in shown[row, col]), tuple(int(v) for v in plain[row, col])
    # Between the cloth and the cue ball's white: neither on the table nor gone.
    assert cloth in (colors.CLOTH, colors.HEAD_STRING)
    assert blend not in (cloth, colors.CUE_BALL)
    assert all(min(c, w) <= b <= max(c, w) for b, c, w in zip(blend, cloth, colors.CUE_BALL))


def _dark_groups(patch: np.ndarray) -> int:
    """How many 8-connected groups of dark (text) pixels ``patch`` holds."""
    dark = patch.sum(axis=2) < 200
    seen = np.zeros_like(dark)
    groups = 0
    for start in zip(*np.nonzero(dark)):
        if seen[start]:
            continue
        groups += 1
        stack = [start]
        while stack:
            r, c = stack.pop()
            if not (0 <= r < dark.shape[0] and 0 <= c < dark.shape[1]) or seen[r, c] or not dark[r, c]:
                continue
            seen[r, c] = True
            stack += [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
    return groups


@pytest.mark.parametrize("width", [320, 480, 800])
def test_two_digit_numbers_stay_two_separate_digits_on_small_balls(width):
    """In a GIF-sized picture each two-digit number is drawn at the minimum font size or
    larger, its two digits apart (not one blur), on white, with the ball's colour around."""
    true_r = FrameLayout(TABLE, width).length(TABLE.ball_radius)
    font = label_font_px(true_r)
    assert font >= MIN_LABEL_FONT_PX
    r = ball_radius_px(true_r, True)
    point = (1.4, 0.6)
    col, row = table_to_pixel(TABLE, point, width)
    for ball in (10, 11, 12, 13, 14, 15):
        image = render_rgb(TABLE, {ball: point}, width_px=width)
        _, _, rx, ry = _label(str(ball), font)
        # Only what lies on the white ellipse: the ball's own colour may be dark too.
        dy, dx = np.mgrid[-ry:ry + 1, -rx:rx + 1]
        patch = image[row - ry:row + ry + 1, col - rx:col + rx + 1].copy()
        patch[(dx / rx) ** 2 + (dy / ry) ** 2 > 0.8] = colors.LABEL_DISC
        assert _dark_groups(patch) == 2, ball
        assert colors.LABEL_DISC in {tuple(int(v) for v in p) for p in patch.reshape(-1, 3)}
        # A ring of the ball's colour shows around the number.
        assert tuple(int(v) for v in image[row, col - r + 1]) == colors.ball_color(ball), ball
