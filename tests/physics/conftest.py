import math

import pytest

from poolgym.physics import Simulator
from poolgym.table import Table

MU_S, MU_R, G = 0.2, 0.01, 9.81
R = 0.028575


@pytest.fixture(scope="session")
def open_sim() -> Simulator:
    """A 30 m x 10 m table: long enough that test paths never meet a cushion."""
    return Simulator(Table(name="open", length=30.0, width=10.0))


@pytest.fixture(scope="session")
def sim9() -> Simulator:
    return Simulator(Table.preset("9ft"))


def direction_deg(v) -> float:
    return math.degrees(math.atan2(v[1], v[0]))


def angle_between_deg(u, v) -> float:
    c = (u[0] * v[0] + u[1] * v[1]) / (math.hypot(*u) * math.hypot(*v))
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def phase_after(phases, t, mode=None):
    """The first phase starting at or after time t (optionally of a given mode)."""
    for p in phases:
        if p.t0 >= t - 1e-12 and (mode is None or p.mode == mode):
            return p
    raise AssertionError(f"no {mode or ''} phase after t={t}")
