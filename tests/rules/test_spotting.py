"""WPA 1.4 spotting on the foot spot and foot line."""

import math

import pytest

from poolgym.rules.spotting import spot_balls, spot_position
from tests.rules.helpers import FOOT_SPOT, R, TABLE

FX, FY = FOOT_SPOT


def test_wpa_1_4_free_foot_spot():
    assert spot_position({}, TABLE) == (FX, FY)


def test_wpa_1_4_blocked_spot_slides_towards_foot_touching_the_blocking_ball():
    blocker = (FX + 0.01, FY + 0.02)
    x, y = spot_position({3: blocker}, TABLE)
    assert y == FY and x > blocker[0]
    assert math.hypot(x - blocker[0], y - blocker[1]) == pytest.approx(2 * R)


def test_wpa_1_4_blocking_cue_ball_leaves_a_gap():
    x, y = spot_position({0: (FX, FY)}, TABLE, cue_ball_gap=0.001)
    assert x == pytest.approx(FX + 2 * R + 0.001)


def test_wpa_1_4_whole_foot_line_taken_goes_towards_the_head():
    step = 2 * R
    row = {n: (FX + i * step, FY) for i, n in enumerate(range(1, 20))
           if FX + i * step <= TABLE.length - R}
    x, y = spot_position(row, TABLE)
    assert y == FY and x == pytest.approx(FX - 2 * R)


def test_wpa_1_4_several_balls_ascending_lowest_nearest_the_spot():
    placed = spot_balls({}, [9, 4], TABLE)
    assert [b for b, _ in placed] == [4, 9]
    assert placed[0][1] == (FX, FY) and placed[1][1][0] == pytest.approx(FX + 2 * R)


def test_wpa_1_4_descending_option_reverses_the_order():
    placed = spot_balls({}, [9, 4], TABLE, lowest_first=False)
    assert placed[0] == (9, (FX, FY))
