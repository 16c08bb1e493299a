"""``Simulator.validate_cue_placement`` (the cue ball placed among balls already checked)
gives what ``validate_layout`` gives for the whole layout: the same layout, or the same
error, for spots that are free, on a ball, off the surface or in a pocket's mouth."""

from __future__ import annotations

import numpy as np
import pytest

from poolgym.physics import Simulator
from poolgym.rules import get_ruleset
from poolgym.table import Table


def outcome(check, *args):
    try:
        return ("ok", list(check(*args).items()))
    except ValueError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("game", ["nine_ball", "eight_ball"])
def test_placing_the_cue_ball_is_checked_as_the_whole_layout(game):
    table = Table.preset("9ft")
    sim = Simulator(table)
    rng = np.random.default_rng(8)
    rules = get_ruleset(game)
    R = table.ball_radius
    kinds = set()
    for rack in range(20):
        balls = {n: p for n, p in rules.new_game(rng=rng).positions.items() if n != 0}
        balls = sim.validate_layout({**balls, 0: (0.3, 0.3)})
        del balls[0]
        numbers = sorted(balls)
        for _ in range(30):
            pick = rng.integers(4)
            if pick == 0:  # on or against a ball
                bx, by = balls[numbers[int(rng.integers(len(numbers)))]]
                spot = (bx + float(rng.uniform(-2.1, 2.1)) * R, by + float(rng.uniform(-2.1, 2.1)) * R)
            elif pick == 1:  # anywhere, off the surface included
                spot = (float(rng.uniform(-0.05, table.length + 0.05)), float(rng.uniform(-0.05, table.width + 0.05)))
            elif pick == 2:  # a pocket's mouth
                spot = table.pockets[int(rng.integers(len(table.pockets)))].mouth_centre
            else:
                spot = (float(rng.uniform(R, table.length - R)), float(rng.uniform(R, table.width - R)))
            fast = outcome(sim.validate_cue_placement, balls, spot)
            assert fast == outcome(sim.validate_layout, {**balls, 0: spot})
            kinds.add(fast[0] if fast[0] == "ok" else fast[1].split(" ")[2])
    assert kinds >= {"ok", "and", "at"}  # free spots, overlaps ("balls 0 and b") and off-surface ("ball 0 at")
