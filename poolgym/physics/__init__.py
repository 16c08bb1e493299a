"""Event-driven table simulation: ``Simulator(table).simulate(layout, Shot(...)) -> ShotResult``."""

from poolgym.physics.params import PhysicsParams
from poolgym.physics.result import ShotResult
from poolgym.physics.shot import Noise, Shot
from poolgym.physics.simulator import Simulator

__all__ = ["Noise", "PhysicsParams", "Shot", "ShotResult", "Simulator"]
