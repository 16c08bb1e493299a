"""Times poolgym's benchmark cases in pooltool; run by pooltool's own Python, not poolgym's.

Usage: ``python pooltool_cases.py SPEC.json OUT.json``. The spec, written by
``poolgym.agents.tools.bench``, describes the cases in poolgym's table frame (x along the table from the
head, y across from the left rail) and lists every shot; this script places the same
balls on pooltool's own 7-ft table, plays the shots and writes raw timings as JSON. It
needs only pooltool, so it imports nothing from poolgym.

pooltool's frame is x across (to the right seen from the head), y along the table, so a
poolgym point (x, y) is pooltool's (y, x), a poolgym aim angle a is pooltool's phi = 90 - a,
and right-hand side spin is pooltool's negative ``a``. Its strike takes the cue-stick
speed V0; a centre hit launches the cue ball at 2 V0 / (1 + m_ball / M_cue) (~1.538 V0).

pooltool writes ~/.config/pooltool on import: run it with HOME pointed at a scratch folder.
"""

from __future__ import annotations

import json
import math
import platform
import sys
import time

import attrs
import pooltool as pt
from pooltool.physics.resolve.resolver import default_resolver

# An explicit default engine, so that a user's resolver.yaml cannot change the physics.
ENGINE = pt.physics.PhysicsEngine(resolver=default_resolver())
BALL_PARAMS = pt.BallParams.default(pt.GameType.NINEBALL)
BALL_SPEED_PER_V0 = 2.0 / (1.0 + BALL_PARAMS.m / pt.objects.CueSpecs.default().M)
# poolgym's corner pockets at the foot end and pooltool's names for them.
POCKET_NAMES = {"foot_left": "lt", "foot_right": "rt"}
# A cap on untimed warm-up shots per case: enough to reach every compiled code path.
WARMUP_SHOTS = 30


def make_ball(ball: int, xy: tuple[float, float]) -> pt.Ball:
    """A pooltool ball for poolgym ball number ``ball`` (0 is the cue ball)."""
    return pt.Ball.create("cue" if ball == 0 else str(ball), xy=xy, **attrs.asdict(BALL_PARAMS))


def rack_system(spec: dict, table: pt.Table) -> pt.System:
    """The cue ball at its start and the rack, offsets measured from pooltool's foot spot."""
    foot_x, foot_y = table.w / 2.0, 3.0 * table.l / 4.0
    balls = {"cue": make_ball(0, (table.w / 2.0, spec["cue_start_length_fraction"] * table.l))}
    for ball, along, across in spec["rack"]:
        b = make_ball(ball, (foot_x + across, foot_y + along))
        balls[b.id] = b
    return pt.System(cue=pt.Cue(cue_ball_id="cue"), table=table, balls=balls)


def straight_in_system(case: dict, table: pt.Table) -> pt.System:
    """One object ball on a corner pocket's 45-degree diagonal, the cue ball behind it."""
    pocket = table.pockets[POCKET_NAMES[case["pocket"]]]
    ux = math.copysign(1.0, pocket.a - table.w / 2.0) / math.sqrt(2.0)
    uy = math.copysign(1.0, pocket.b - table.l / 2.0) / math.sqrt(2.0)
    d_object = case["object_to_pocket"]
    d_cue = d_object + case["cue_behind_object"]
    balls = {
        "cue": make_ball(0, (pocket.a - d_cue * ux, pocket.b - d_cue * uy)),
        "1": make_ball(1, (pocket.a - d_object * ux, pocket.b - d_object * uy)),
    }
    return pt.System(cue=pt.Cue(cue_ball_id="cue"), table=table, balls=balls)


def strike_of(shot: list[float]) -> dict:
    """pooltool strike arguments for a poolgym shot (speed, angle_deg, side, vertical)."""
    speed, angle_deg, side, vertical = shot
    return dict(V0=speed / BALL_SPEED_PER_V0, phi=(90.0 - angle_deg) % 360.0, theta=0.0,
                a=-side, b=vertical)


def aimed_at_one_ball(system: pt.System, speed: float, count: int) -> list[dict]:
    """``count`` identical centre-hit strikes at the 1-ball's centre."""
    phi = pt.aim.at_ball(system, "1")
    return [dict(V0=speed / BALL_SPEED_PER_V0, phi=phi, theta=0.0, a=0.0, b=0.0)] * count


def build_cases(spec: dict, table: pt.Table) -> list[tuple[str, pt.System, list[dict]]]:
    """Each case's name, start system and strikes."""
    rack = rack_system(spec, table)
    cases = []
    for case in spec["cases"]:
        if case["kind"] in ("break", "straight_in"):
            system = rack if case["kind"] == "break" else straight_in_system(case, table)
            cases.append((case["name"], system,
                          aimed_at_one_ball(system, case["speed"], case["count"])))
        elif case["kind"] == "from_rack":
            cases.append((case["name"], rack, [strike_of(s) for s in case["shots"]]))
        else:
            raise ValueError(f"unknown case kind {case['kind']!r}")
    return cases


def play(base: pt.System, strike: dict) -> pt.System:
    """One shot as pooltool users run it: a copy of the start, a strike, a simulation."""
    system = base.copy()
    system.strike(**strike)
    pt.simulate(system, engine=ENGINE, inplace=True)
    return system


def time_case(base: pt.System, strikes: list[dict], reps: int) -> dict:
    """Raw timings of ``reps`` passes over the shots, and each shot's outcome."""
    rep_seconds, shot_seconds, sim_seconds, pocketed = [], [], [], []
    for _ in range(reps):
        t_rep = time.perf_counter()
        for strike in strikes:
            t0 = time.perf_counter()
            system = play(base, strike)
            shot_seconds.append(time.perf_counter() - t0)
            sim_seconds.append(float(system.t))
            pocketed.append(sum(e.event_type == pt.EventType.BALL_POCKET for e in system.events))
        rep_seconds.append(time.perf_counter() - t_rep)
    return dict(shots_per_rep=len(strikes), rep_seconds=rep_seconds, shot_seconds=shot_seconds,
                sim_seconds=sim_seconds, pocketed=pocketed)


def main(spec_path: str, out_path: str) -> None:
    with open(spec_path) as f:
        spec = json.load(f)
    table = pt.Table.from_game_type(pt.GameType.NINEBALL)
    cases = build_cases(spec, table)
    # numba compiles (or loads from its cache) each function on first call; keep that
    # out of the timings.
    t0 = time.perf_counter()
    for _, base, strikes in cases:
        for strike in strikes[:WARMUP_SHOTS]:
            play(base, strike)
    warmup_s = time.perf_counter() - t0
    result = dict(
        env=dict(engine="pooltool", version=pt.__version__, python=platform.python_version(),
                 table_length=table.l, table_width=table.w),
        warmup_s=warmup_s,
        cases={name: time_case(base, strikes, spec["reps"]) for name, base, strikes in cases},
    )
    with open(out_path, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main(*sys.argv[1:3])
