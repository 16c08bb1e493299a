"""Plays ``poolgym.agents.tools.peers.compare_physics``' cases in pooltool; run by pooltool's own Python.

Usage: ``python pooltool_physics.py SPEC.json OUT.json``. The spec lists cases in poolgym's
table frame and poolgym's constants; this script sets pooltool's ball, cue and table
constants to them, plays each case once per cushion model (Han 2005, Mathavan 2010, Stronge
compliant, the last as pooltool's default resolver configures it) and writes what it
measured as JSON. It needs only pooltool, so it imports nothing from poolgym.

Frames: pooltool's x is poolgym's y and the other way round, so a poolgym point (x, y) is
pooltool's (y, x), a poolgym direction angle a is pooltool's phi = 90 - a, and poolgym's
side offset s is pooltool's a = -s (negative a is right english there). A strike takes the
cue-stick speed V0: a centre hit launches the ball at 2 V0 / (1 + m / M).

pooltool writes ~/.config/pooltool on import: run it with HOME pointed at a scratch folder.
"""

from __future__ import annotations

import json
import math
import sys

import attrs
import pooltool as pt
from pooltool.physics.resolve.ball_cushion.han_2005 import Han2005Circular, Han2005Linear
from pooltool.physics.resolve.ball_cushion.mathavan_2010 import Mathavan2010Circular, Mathavan2010Linear
from pooltool.physics.resolve.resolver import default_resolver

E = pt.EventType


def engines() -> dict[str, pt.physics.PhysicsEngine]:
    """One physics engine per cushion model; everything else is pooltool's default."""
    base = default_resolver()  # Stronge compliant cushions (omega_ratio 1.8)
    return {
        "han_2005": pt.physics.PhysicsEngine(resolver=attrs.evolve(
            base, ball_linear_cushion=Han2005Linear(), ball_circular_cushion=Han2005Circular())),
        "mathavan_2010": pt.physics.PhysicsEngine(resolver=attrs.evolve(
            base, ball_linear_cushion=Mathavan2010Linear(), ball_circular_cushion=Mathavan2010Circular())),
        "stronge_compliant": pt.physics.PhysicsEngine(resolver=base),
    }


class Setup:
    """pooltool's constants set to poolgym's, and the table the cases are played on."""

    def __init__(self, constants: dict) -> None:
        c = constants
        self.ball_params = attrs.evolve(
            pt.BallParams.default(pt.GameType.NINEBALL), m=c["ball_mass"], R=c["ball_radius"],
            u_s=c["mu_slide"], u_r=c["mu_roll"], e_b=c["ball_restitution"],
            e_c=c["cushion_restitution"], f_c=c["cushion_friction"], g=c["gravity"])
        self.cue_specs = attrs.evolve(pt.objects.CueSpecs.default(), M=c["cue_mass"],
                                      end_mass=c["cue_end_mass"])
        specs = attrs.evolve(pt.objects.PocketTableSpecs(), l=c["table_length"], w=c["table_width"],
                             cushion_height=c["cushion_height"])
        self.table = pt.Table.from_table_specs(specs)
        self.v_per_v0 = 2.0 / (1.0 + c["ball_mass"] / c["cue_mass"])

    def system(self, balls: dict[int, list[float]]) -> pt.System:
        """Balls at poolgym positions ``{number: (x, y)}``, ball 0 the cue ball."""
        made = {}
        for number, (x, y) in balls.items():
            ball_id = "cue" if int(number) == 0 else str(number)
            made[ball_id] = pt.Ball.create(ball_id, xy=(y, x), **attrs.asdict(self.ball_params))
        cue = pt.Cue(cue_ball_id="cue", specs=self.cue_specs)
        return pt.System(cue=cue, table=self.table, balls=made)

    def play(self, case: dict, engine: pt.physics.PhysicsEngine, squirt: bool) -> pt.System:
        system = self.system(case["balls"])
        speed, angle_deg, side, vertical = case["shot"][:4]
        elevation = case["shot"][4] if len(case["shot"]) > 4 else 0.0
        # pooltool's (a, b) are across the cue, as poolgym's offsets are.
        system.strike(V0=speed / self.v_per_v0, phi=(90.0 - angle_deg) % 360.0, theta=elevation,
                      a=-side, b=vertical)
        resolver = engine.resolver
        stick = attrs.evolve(resolver.stick_ball, squirt_throttle=1.0 if squirt else 0.0)
        engine = pt.physics.PhysicsEngine(resolver=attrs.evolve(resolver, stick_ball=stick))
        pt.simulate(system, engine=engine, inplace=True)
        return system


def to_poolgym(vec) -> tuple[float, float]:
    """A pooltool (x, y) vector in poolgym's frame."""
    return float(vec[1]), float(vec[0])


def cue_after(system: pt.System, kind, after: float = -1.0):
    """The cue ball's state right after its first event of ``kind`` later than ``after``."""
    for event in system.events:
        if event.event_type == kind and event.time > after and "cue" in event.ids:
            agent = next(a for a in event.agents if a.id == "cue")
            return event.time, agent.final.state.rvw
    return None, None


def measure(case: dict, system: pt.System) -> dict:
    """What the comparison reads off a finished pooltool shot (poolgym frame)."""
    if case["kind"] == "cushion":
        t_hit, _ = cue_after(system, E.BALL_LINEAR_CUSHION)
        if t_hit is None:
            return dict(error="no cushion contact")
        _, rvw = cue_after(system, E.SLIDING_ROLLING, t_hit)
        if rvw is None:
            return dict(error="never rolled after the cushion")
        vx, vy = to_poolgym(rvw[1])
        return dict(speed=math.hypot(vx, vy), line_deg=math.degrees(math.atan2(vx, vy)))
    if case["kind"] == "draw":
        x = to_poolgym(system.balls["cue"].state.rvw[0])[0]
        return dict(distance=x - case["contact_x"])
    if case["kind"] == "swerve":
        x0, y0 = case["balls"]["0"]
        pt.continuize(system, dt=1e-4, inplace=True)
        for state in system.balls["cue"].history_cts.states:
            x, y = to_poolgym(state.rvw[0])
            if x - x0 >= case["distance"]:
                return dict(offset=y - y0)
        return dict(error="stopped short of the distance")
    if case["kind"] == "squirt":
        _, rvw = cue_after(system, E.STICK_BALL)
        vx, vy = to_poolgym(rvw[1])
        return dict(deflection_deg=math.degrees(math.atan2(vy, vx)) - case["shot"][1])
    raise ValueError(f"unknown case kind {case['kind']!r}")


def main(spec_path: str, out_path: str) -> None:
    with open(spec_path) as f:
        spec = json.load(f)
    setup = Setup(spec["constants"])
    results = {}
    for name, engine in engines().items():
        results[name] = [measure(case, setup.play(case, engine, case["kind"] == "squirt"))
                         for case in spec["cases"]]
    with open(out_path, "w") as f:
        json.dump(dict(version=pt.__version__, models=results), f)


if __name__ == "__main__":
    main(*sys.argv[1:3])
