"""``poolgym bench``: simulation speed on three fixed cases, side by side with pooltool.

Cases, all on the 7-ft table, balls at rest to start:

- ``break``: a 9-ball break. Cue ball at (0.2 L, W/2), 8 m/s, centre hit, aimed at the centre
  of the 1-ball; the rack from ``Table.rack_positions((1, 2, 3, 2, 1))`` in a fixed order.
- ``straight_in``: one object ball on the foot-right corner pocket's 45-degree diagonal,
  0.3 m along each rail (0.42 m) from the pocket centre, the cue ball 0.71 m behind it on
  the same line, 2 m/s, centre hit.
- ``random``: 200 shots from the break's start, speed uniform in [0.77, 9.2] m/s, angle in
  [0, 360) degrees, side and vertical tip offsets in [-0.5, 0.5]; ``default_rng(12345)``.

Per case: shots/s (median over repetitions of the whole case), ms per shot (its inverse),
per-shot p50 and p99 ms, mean simulated seconds to rest and mean balls pocketed (cue ball
included). pooltool runs in its own virtual environment through
``agents/tools/peers/pooltool_cases.py``, after poolgym, so the two never share the CPU.
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import time
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from poolgym.agents.tools.peers import PeerError, run_pooltool
from poolgym import __version__
from poolgym.physics import Shot, Simulator
from poolgym.table import Point, Table

TABLE = "7ft"
NINE_BALL_ROWS = (1, 2, 3, 2, 1)
# Ball numbers in rack_positions' order (row by row from the apex, each row across the
# table): the 1 at the apex, the 9 in the centre, the others in order around them.
NINE_BALL_ORDER = (1, 2, 3, 4, 9, 5, 6, 7, 8)
CUE_START_LENGTH_FRACTION = 0.2
BREAK_SPEED = 8.0
STRAIGHT_IN_POCKET = "foot_right"
STRAIGHT_IN_SPEED = 2.0
OBJECT_TO_POCKET = 0.3 * math.sqrt(2.0)
CUE_BEHIND_OBJECT = 0.5 * math.sqrt(2.0)
RANDOM_SEED = 12345
# Cue-ball speeds of pooltool's cue-stick speeds 0.5-6 m/s, the range its users sample.
RANDOM_SPEED_RANGE = (0.77, 9.2)
RANDOM_TIP_OFFSET = 0.5
SHOT_COUNTS = {"break": 20, "straight_in": 50, "random": 200}
QUICK_SHOT_COUNTS = {"break": 2, "straight_in": 5, "random": 10}
# Untimed warm-up shots per case, for both engines.
WARMUP_SHOTS = 30

ShotParams = tuple[float, float, float, float]  # speed, angle_deg, side, vertical


@dataclass(frozen=True)
class Case:
    """One benchmark case: a start layout and the shots played, each from that layout.

    ``peer`` describes the same case to a peer engine's runner, in poolgym's frame but
    relative to table features, since each engine uses its own slightly different table.
    """

    name: str
    title: str
    layout: dict[int, Point]
    shots: tuple[ShotParams, ...]
    peer: dict


def aim_deg(source: Point, target: Point) -> float:
    """The aim angle from ``source`` at ``target`` (0 = +x, 90 = +y), in [0, 360)."""
    return math.degrees(math.atan2(target[1] - source[1], target[0] - source[0])) % 360.0


def rack_start(table: Table) -> dict[int, Point]:
    """The cue ball at its break position and the nine-ball rack in its fixed order."""
    layout = {0: (CUE_START_LENGTH_FRACTION * table.length, table.width / 2.0)}
    layout.update(zip(NINE_BALL_ORDER, table.rack_positions(NINE_BALL_ROWS)))
    return layout


def straight_in_start(table: Table) -> dict[int, Point]:
    """Object ball 1 on the pocket's 45-degree diagonal and the cue ball behind it."""
    hx, hy = table.pocket(STRAIGHT_IN_POCKET).hole_centre
    # Unit vector along the diagonal, from the table into the corner.
    ux = math.copysign(1.0, hx - table.length / 2.0) / math.sqrt(2.0)
    uy = math.copysign(1.0, hy - table.width / 2.0) / math.sqrt(2.0)
    d_cue = OBJECT_TO_POCKET + CUE_BEHIND_OBJECT
    return {0: (hx - d_cue * ux, hy - d_cue * uy),
            1: (hx - OBJECT_TO_POCKET * ux, hy - OBJECT_TO_POCKET * uy)}


def random_shots(count: int) -> tuple[ShotParams, ...]:
    """``count`` random shots, drawn in the order speed, angle, side, vertical per shot."""
    rng = np.random.default_rng(RANDOM_SEED)
    tip = RANDOM_TIP_OFFSET
    return tuple((float(rng.uniform(*RANDOM_SPEED_RANGE)), float(rng.uniform(0.0, 360.0)),
                  float(rng.uniform(-tip, tip)), float(rng.uniform(-tip, tip)))
                 for _ in range(count))


def build_cases(table: Table, quick: bool = False) -> list[Case]:
    """The three cases; ``quick`` plays a handful of shots per case instead of the full set."""
    counts = QUICK_SHOT_COUNTS if quick else SHOT_COUNTS
    rack = rack_start(table)
    at_one = aim_deg(rack[0], rack[1])
    straight = straight_in_start(table)
    at_pocket = aim_deg(straight[0], straight[1])
    shots = random_shots(counts["random"])
    return [
        Case("break", f"9-ball break {BREAK_SPEED:g} m/s", rack,
             ((BREAK_SPEED, at_one, 0.0, 0.0),) * counts["break"],
             dict(name="break", kind="break", speed=BREAK_SPEED, count=counts["break"])),
        Case("straight_in", f"straight-in {STRAIGHT_IN_SPEED:g} m/s", straight,
             ((STRAIGHT_IN_SPEED, at_pocket, 0.0, 0.0),) * counts["straight_in"],
             dict(name="straight_in", kind="straight_in", speed=STRAIGHT_IN_SPEED,
                  count=counts["straight_in"], pocket=STRAIGHT_IN_POCKET,
                  object_to_pocket=OBJECT_TO_POCKET, cue_behind_object=CUE_BEHIND_OBJECT)),
        Case("random", f"{counts['random']} random shots from the rack", rack, shots,
             dict(name="random", kind="from_rack", shots=[list(s) for s in shots])),
    ]


def peer_spec(table: Table, cases: list[Case], reps: int) -> dict:
    """The cases as a peer runner reads them: rack offsets are from the foot spot."""
    fx, fy = table.foot_spot
    rack = rack_start(table)
    return dict(
        reps=reps,
        cue_start_length_fraction=CUE_START_LENGTH_FRACTION,
        rack=[[ball, rack[ball][0] - fx, rack[ball][1] - fy] for ball in NINE_BALL_ORDER],
        cases=[c.peer for c in cases],
    )


def time_case(sim: Simulator, case: Case, reps: int) -> dict:
    """Raw timings of ``reps`` passes over the case's shots, and each shot's outcome.

    The layout is copied per shot, as pooltool copies its system, so both time the same work.
    """
    shots = [Shot(speed=s, angle_deg=a, side=side, vertical=v) for s, a, side, v in case.shots]
    rep_seconds, shot_seconds, sim_seconds, pocketed = [], [], [], []
    for _ in range(reps):
        t_rep = time.perf_counter()
        for shot in shots:
            t0 = time.perf_counter()
            result = sim.simulate(dict(case.layout), shot)
            shot_seconds.append(time.perf_counter() - t0)
            sim_seconds.append(result.duration)
            pocketed.append(len(result.pocketed))
        rep_seconds.append(time.perf_counter() - t_rep)
    return dict(shots_per_rep=len(shots), rep_seconds=rep_seconds, shot_seconds=shot_seconds,
                sim_seconds=sim_seconds, pocketed=pocketed)


def summarize(raw: dict) -> dict:
    """The reported figures from a runner's raw timings (the same code for every engine)."""
    rates = [raw["shots_per_rep"] / s for s in raw["rep_seconds"]]
    rate = statistics.median(rates)
    p50, p99 = np.percentile(np.asarray(raw["shot_seconds"]) * 1e3, [50, 99])
    return dict(
        shots=raw["shots_per_rep"],
        reps=len(rates),
        shots_per_s=rate,
        shots_per_s_all=rates,
        ms_per_shot=1e3 / rate,
        p50_ms=float(p50),
        p99_ms=float(p99),
        mean_sim_s=statistics.fmean(raw["sim_seconds"]),
        mean_pocketed=statistics.fmean(raw["pocketed"]),
    )


def run_poolgym(table: Table, cases: list[Case], reps: int) -> dict:
    """Warm up, then time every case with poolgym's simulator."""
    sim = Simulator(table)
    t0 = time.perf_counter()
    for case in cases:
        for s, a, side, v in case.shots[:WARMUP_SHOTS]:
            sim.simulate(dict(case.layout), Shot(speed=s, angle_deg=a, side=side, vertical=v))
    warmup_s = time.perf_counter() - t0
    return dict(
        env=dict(engine="poolgym", version=__version__, python=platform.python_version()),
        warmup_s=warmup_s,
        cases={c.name: summarize(time_case(sim, c, reps)) for c in cases},
    )


def run(reps: int = 3, quick: bool = False, pooltool_python: str | None = None) -> dict:
    """Run the benchmark; with ``pooltool_python`` also pooltool's side and the ratios.

    A pooltool failure does not lose poolgym's figures: it is recorded under
    ``pooltool_error`` instead.
    """
    table = Table.preset(TABLE)
    cases = build_cases(table, quick)
    results = dict(
        date=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        machine=dict(platform=platform.platform(), cpus=os.cpu_count(),
                     numpy=np.__version__),
        table=TABLE,
        reps=reps,
        titles={c.name: c.title for c in cases},
        poolgym=run_poolgym(table, cases, reps),
    )
    if pooltool_python:
        try:
            peer = run_pooltool(pooltool_python, peer_spec(table, cases, reps))
        except PeerError as err:
            results["pooltool_error"] = str(err)
        else:
            peer["cases"] = {name: summarize(raw) for name, raw in peer["cases"].items()}
            results["pooltool"] = peer
            results["ratio_poolgym_over_pooltool"] = {
                name: figures["shots_per_s"] / peer["cases"][name]["shots_per_s"]
                for name, figures in results["poolgym"]["cases"].items()}
    return results


def format_report(results: dict) -> str:
    """A plain-text table: one row per case and engine, then the speed ratio."""
    header = (f"{'case':<30} {'engine':<9} {'shots/s':>9} {'ms/shot':>8} {'p50 ms':>8} "
              f"{'p99 ms':>8} {'sim s':>6} {'pocketed':>8}")
    reps = results["reps"]
    lines = [f"table {results['table']}; shots/s: median over {reps} repetitions of each case",
             header,
             "-" * len(header)]
    engines = [e for e in ("poolgym", "pooltool") if e in results]
    for name, title in results["titles"].items():
        for i, engine in enumerate(engines):
            f = results[engine]["cases"][name]
            lines.append(f"{title if i == 0 else '':<30} {engine:<9} {f['shots_per_s']:>9.1f} "
                         f"{f['ms_per_shot']:>8.2f} {f['p50_ms']:>8.2f} {f['p99_ms']:>8.2f} "
                         f"{f['mean_sim_s']:>6.2f} {f['mean_pocketed']:>8.2f}")
        if "ratio_poolgym_over_pooltool" in results:
            ratio = results["ratio_poolgym_over_pooltool"][name]
            lines.append(f"{'':<30} {'poolgym/pooltool shots/s':<34} {ratio:>6.2f}x")
    if "pooltool" in results:
        env = results["pooltool"]["env"]
        lines.append(f"pooltool {env['version']} on its own table ({env['table_length']:g} x "
                     f"{env['table_width']:g} m); its warm-up (numba compilation or cache load) "
                     f"took {results['pooltool']['warmup_s']:.1f} s, untimed")
    if "pooltool_error" in results:
        lines.append(f"pooltool not run: {results['pooltool_error']}")
    return "\n".join(lines)
