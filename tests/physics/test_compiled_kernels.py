"""The compiled kernels against straightforward references on random inputs, their disk
cache, and a first shot in a new process."""

from __future__ import annotations

import heapq
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from poolgym.physics import event_core as core
from poolgym.physics import jit
from poolgym.physics.contact_time import INF, _cubic_roots, point_entry, quadratic_entry, quartic_entry
from poolgym.physics.hypot import hypot


def _dense_first(f, horizon, samples=200_001):
    """The first grid time in [0, horizon] where f <= 0, and the grid step."""
    t = np.linspace(0.0, horizon, samples)
    below = np.nonzero(f(t) <= 0.0)[0]
    return (t[below[0]] if below.size else INF), t[1] - t[0]


@pytest.mark.parametrize("seed", range(3))
def test_quadratic_entry_matches_a_dense_search(seed):
    rng = np.random.default_rng(seed)
    found = 0
    for _ in range(300):
        c0, c1, c2 = rng.uniform(0.0, 0.5), rng.uniform(-4.0, 4.0), rng.normal(0.0, 2.0)
        horizon = float(rng.uniform(0.05, 3.0))
        t = quadratic_entry(c0, c1, c2, horizon)
        expected, step = _dense_first(lambda s: c0 + s * (c1 + s * c2), horizon)
        if expected == INF:
            assert t == INF or c0 + t * (c1 + t * c2) == pytest.approx(0.0, abs=1e-9)
            continue
        found += 1
        assert expected - step <= t <= expected + 1e-12
    assert found > 50


@pytest.mark.parametrize("seed", range(3))
def test_point_entry_matches_a_dense_search(seed):
    rng = np.random.default_rng(seed)
    r2 = 0.06 ** 2
    found = 0
    for _ in range(200):
        d = rng.uniform(-0.8, 0.8, 2)
        if d @ d <= r2:
            continue
        v = -d * rng.uniform(0.5, 4.0) + rng.normal(0.0, 0.3, 2)
        a = rng.normal(0.0, 2.0, 2)
        horizon = float(rng.uniform(0.05, 2.0))
        t = point_entry(d[0], d[1], v[0], v[1], a[0], a[1], r2, horizon)

        def gap(s):
            x = d[0] + v[0] * s + 0.5 * a[0] * s * s
            y = d[1] + v[1] * s + 0.5 * a[1] * s * s
            return x * x + y * y - r2

        expected, step = _dense_first(gap, horizon)
        if expected == INF:
            assert t == INF or gap(t) >= 0.0
            continue
        found += 1
        assert expected - step <= t <= expected + 1e-12
        assert gap(t) >= -1e-12  # never past the contact (up to round-off in this form)
    assert found > 25


@pytest.mark.parametrize("seed", range(3))
def test_cubic_roots_match_numpy(seed):
    rng = np.random.default_rng(seed)
    counts = set()
    for _ in range(500):
        d = rng.normal(size=4)
        lo, hi = sorted(rng.uniform(-3.0, 3.0, 2))
        roots = np.roots(d[::-1])
        if any(1e-12 < abs(r.imag) < 1e-6 or min(abs(r.real - lo), abs(r.real - hi)) < 1e-6 for r in roots):
            continue  # too close to call for either method
        real = sorted(r.real for r in roots if abs(r.imag) <= 1e-12 and lo < r.real < hi)
        count, *slots = _cubic_roots(d[0], d[1], d[2], d[3], lo, hi)
        assert count == len(real)
        assert slots[:count] == pytest.approx(real, abs=1e-7)
        counts.add(count)
    assert counts == {0, 1, 2, 3}


def test_quartic_entry_finds_a_head_on_contact_in_closed_form():
    # Two balls 1 m apart, closing at 2 m/s with no acceleration: they touch when the gap
    # of 1 - 2R has closed, at (1 - 2R) / 2 s.
    R2 = (2 * 0.028575) ** 2
    c = (1.0 - R2, -4.0, 4.0, 0.0, 0.0)
    assert quartic_entry(*c, 5.0) == pytest.approx((1.0 - 2 * 0.028575) / 2.0, abs=1e-12)


def test_hypot_is_cpythons_to_the_last_bit():
    rng = np.random.default_rng(8)
    values = rng.normal(size=(200_000, 2)) * 10.0 ** rng.integers(-8, 4, size=(200_000, 2))
    for x, y in values.tolist():
        assert hypot(x, y) == math.hypot(x, y), (x, y)
    tiny = 5e-324  # subnormals, zeros, infinities and NaN take their own branches
    for x, y in [(0.0, 0.0), (-3.0, 0.0), (3.0, 4.0), (tiny, tiny), (3 * tiny, 1e-310), (1e308, 1e308),
                 (math.inf, math.nan), (-math.inf, 1.0), (1.0, math.nan),
                 # the ends of the scale read from the exponent's bits, and past them frexp's
                 (2.0 ** 1021 * 1.5, 2.0 ** 1020), (2.0 ** 1022, 3.0), (2.0 ** 1023 * 1.75, 1e300),
                 (2.0 ** -1022, 2.0 ** -1023), (2.0 ** -1023 * 1.5, 0.0), (2.0 ** -1024 * 1.25, tiny)]:
        expected = math.hypot(x, y)
        assert hypot(x, y) == expected or (math.isnan(expected) and math.isnan(hypot(x, y)))


def test_event_heap_pops_in_heapq_order_and_compaction_drops_only_stale_events():
    rng = np.random.default_rng(4)
    n, slots = 6, 40
    times = np.empty(slots)
    events = np.empty((slots, 6), np.int64)
    count = np.zeros(4, np.int64)
    on = np.ones(n, np.bool_)
    ver = np.zeros(n, np.int64)
    reference = []
    for _ in range(400):
        k, other = int(rng.integers(n)), int(rng.integers(n))
        kind = int(rng.integers(6))
        time = float(rng.choice([0.5, 1.0, rng.uniform(0, 2)]))  # ties on time and kind too
        core._push(times, events, count, on, ver, time, kind, k, other, int(ver[other]))
        reference.append((time, kind, int(count[core.C_SEQ]), k, other, int(ver[k]), int(ver[other])))
        if rng.uniform() < 0.5:  # a ball's phase changes: its queued events go stale
            ver[int(rng.integers(n))] += 1
    assert count[core.C_HEAP] <= slots  # compaction kept the heap within its slots
    popped = []
    while count[core.C_HEAP] > 0:
        e = core._pop(times, events, count)
        if core._is_current(events, e, on, ver):
            popped.append((times[e], *events[e].tolist()))
    heapq.heapify(reference)
    expected = []
    while reference:
        time, kind, seq, k, other, ver_k, ver_other = heapq.heappop(reference)
        if ver[k] == ver_k and (kind != core.BALL or ver[other] == ver_other):
            expected.append((time, kind, seq, k, other, ver_k, ver_other))
    assert popped == expected and len(expected) > 10


def test_every_kernel_cache_is_stamped_with_all_kernel_modules(tmp_path, monkeypatch):
    locator = core.run_shot._cache._impl.locator
    assert isinstance(locator, jit._KernelSourceStamp)
    assert locator.get_source_stamp() == jit.kernel_source_stamp()
    # An edit to any one kernel module changes the stamp, so no stale machine code is loaded.
    for name in jit.KERNEL_MODULES:
        shutil.copy(os.path.join(jit._HERE, name), tmp_path / name)
    monkeypatch.setattr(jit, "_HERE", str(tmp_path))
    before = jit.kernel_source_stamp()
    with open(tmp_path / "contacts.py", "a") as f:
        f.write("\n# edited\n")
    assert jit.kernel_source_stamp() != before


_FIRST_SHOT = """
import json
from poolgym.physics import Shot, Simulator, event_core
from poolgym.table import Table
res = Simulator(Table.preset("9ft")).simulate({0: (0.6, 0.635), 1: (1.9, 0.635)}, Shot(speed=2.0))
print(json.dumps({"first_contact": res.first_contact, "events": len(res.events),
                  "cache_hits": sum(event_core.run_shot.stats.cache_hits.values())}))
"""


def test_a_new_process_plays_its_first_shot_from_the_cached_kernels():
    runs = [json.loads(subprocess.run([sys.executable, "-c", _FIRST_SHOT], capture_output=True, text=True,
                                      check=True).stdout) for _ in range(2)]
    for run in runs:
        assert run["first_contact"] == 1 and run["events"] >= 4
    assert runs[1]["cache_hits"] == 1  # loaded, not compiled again


def test_ctrl_c_during_a_compiled_shot_is_a_keyboard_interrupt():
    # A SIGINT lands inside the compiled loop on almost every try (numba's callbacks into
    # Python run the handler there); callers that handle Ctrl-C must see KeyboardInterrupt.
    import signal
    import threading

    from poolgym.physics import Shot, Simulator

    simulator = Simulator()
    layout = {0: (0.5, 0.6), 1: (1.5, 0.7), 2: (1.8, 0.3), 3: (2.0, 1.0)}
    shot = Shot(angle_deg=10.0, speed=4.0)
    simulator.simulate(layout, shot)
    rng = np.random.default_rng(5)
    for delay in rng.uniform(0.01, 0.1, size=10):
        timer = threading.Timer(delay, signal.raise_signal, (signal.SIGINT,))
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            while True:
                simulator.simulate(layout, shot)
        timer.join()


def test_a_compiled_call_turns_only_a_ctrl_c_chain_into_a_keyboard_interrupt():
    """``compiled_call``, the context of every call into a kernel from Python: the
    ``SystemError`` chain numba leaves around a Ctrl-C becomes ``KeyboardInterrupt``; any
    other error leaves it as it came."""
    from poolgym.physics.jit import compiled_call

    def chained(inner):
        try:
            try:
                raise inner
            except BaseException as exc:
                raise SystemError("returned a result with an exception set") from exc
        except SystemError as outer:
            return outer

    with pytest.raises(KeyboardInterrupt):
        with compiled_call():
            raise chained(KeyboardInterrupt())
    plain = chained(ValueError("not a Ctrl-C"))
    with pytest.raises(SystemError) as info:
        with compiled_call():
            raise plain
    assert info.value is plain
    with pytest.raises(ValueError, match="as it came"):
        with compiled_call():
            raise ValueError("as it came")


def test_a_kernel_with_a_signature_is_compiled_for_it_alone():
    """A caller's constant arguments (numba types them ``Literal[int]``) are converted to the
    signature instead of compiling another specialization with its own copy of every kernel
    below it."""
    import numba

    @numba.njit
    def caller(rows):
        return core._grown(rows, 2, 1), core._grown(rows, 0, 1)

    bigger, same = caller(np.ones((2, 3)))
    assert bigger.shape == (2 * 2 + 1, 3) and np.all(bigger[:2] == 1.0) and same.shape == (2, 3)
    assert len(core._grown.signatures) == 1


def _core_args(sim, layout: dict, shot, record: bool) -> tuple:
    """``run_shot``'s arguments but ``air`` for ``shot`` from ``layout``, as ``Simulator`` builds them."""
    from poolgym.physics.simulator import _Start

    start = _Start(sim, sim.validate_layout(layout))
    strike = np.array(sim.strike_state(shot.validate(sim.params.max_speed)), dtype=float)
    return (start.x0, start.y0, start.cue, strike, sim._constants, sim._segment_table, sim._tip_table,
            sim._hole_table, sim._open_box_array, start.frozen, sim.params.max_events, record)


def _played(out) -> tuple:
    """What ``run_shot`` returned, as exact bytes (the used rows of the log and the phases)."""
    status, balls, on, log, phases, counts, now, duration = out
    return (int(status), balls.tobytes(), on.tobytes(), log[:counts[core.C_LOG]].tobytes(),
            phases[:counts[core.C_PHASES]].tobytes(), counts.tobytes(), float(now).hex(), float(duration).hex())


def test_the_level_core_plays_level_shots_as_the_airborne_core_to_the_last_bit():
    """The level core (``air`` None, the airborne paths left out before typing) against the
    airborne core on 9-ball breaks and random level shots: every returned array, log row
    and phase the same bytes."""
    from poolgym.agents.tools import bench
    from poolgym.physics import Shot, Simulator
    from poolgym.physics.invariants import random_layout, random_shot
    from poolgym.table import Table

    core.airborne_core()
    rng = np.random.default_rng(11)
    cases = []
    for preset in ("7ft", "9ft"):
        sim = Simulator(Table.preset(preset))
        rack = dict(bench.rack_start(sim.table))
        for speed in (6.0, 8.0, 12.0):
            cases.append((sim, rack, Shot(speed=speed, angle_deg=bench.aim_deg(rack[0], rack[1])), True))
        for _ in range(40):
            cases.append((sim, random_layout(sim.table, int(rng.integers(1, 16)), rng),
                          random_shot(rng, max_speed=min(12.0, sim.params.max_speed)), bool(rng.uniform() < 0.5)))
    events = 0
    for sim, layout, shot, record in cases:
        args = _core_args(sim, layout, shot, record)
        level = _played(core.run_shot(*args, None))
        assert level[0] == core.DONE
        assert level == _played(core.run_shot(*args, True))
        events += len(level[3])
    assert events > 0


def played_cases_digest() -> dict:
    """``run_shot`` on 9-ball and 15-ball breaks, random level shots, elevated (jump) shots
    and hard shots into 15 balls on a 1 m table (logs of over 64 rows), recorded or not: a
    digest of every returned array's bytes, the largest log and phase counts, and how many
    shots flew."""
    import dataclasses
    import hashlib

    from poolgym.agents.tools import bench
    from poolgym.physics import Shot, Simulator
    from poolgym.physics.invariants import random_layout, random_shot
    from poolgym.table import Table

    core.airborne_core()
    rng = np.random.default_rng(23)
    sim = Simulator(Table.preset("9ft"))
    small = Simulator(dataclasses.replace(Table.preset("7ft"), length=1.0, width=0.5))
    rack = dict(bench.rack_start(sim.table))
    fifteen = {0: rack[0], **dict(enumerate(sim.table.rack_positions((1, 2, 3, 4, 5)), start=1))}
    cases = [(sim, layout, Shot(speed=speed, angle_deg=bench.aim_deg(layout[0], layout[1])), record)
             for layout in (rack, fifteen) for speed in (6.0, 10.0, 14.0) for record in (False, True)]
    for _ in range(30):
        cases.append((sim, random_layout(sim.table, int(rng.integers(1, 16)), rng),
                      random_shot(rng, max_speed=12.0), bool(rng.uniform() < 0.5)))
    for _ in range(10):
        cases.append((sim, random_layout(sim.table, int(rng.integers(2, 16)), rng),
                      Shot(speed=float(rng.uniform(3.0, 8.0)), angle_deg=float(rng.uniform(-180.0, 180.0)),
                           elevation_deg=float(rng.uniform(20.0, 60.0))), True))
    for i in range(20):
        cases.append((small, random_layout(small.table, 15, rng),
                      Shot(speed=15.0, angle_deg=float(rng.uniform(-180.0, 180.0))), i % 2 == 0))
    digest, most_log, most_phases, flew = hashlib.sha256(), 0, 0, 0
    for simulator, layout, shot, record in cases:
        played = _played(core.run_shot(*_core_args(simulator, layout, shot, record), True))
        for part in played:
            digest.update(repr(part).encode())
        counts = np.frombuffer(played[5], np.int64)
        most_log, most_phases = max(most_log, int(counts[core.C_LOG])), max(most_phases, int(counts[core.C_PHASES]))
        phases = np.frombuffer(played[4]).reshape(-1, core.PHASE_COLUMNS)
        flew += bool((phases[:, core.F_MODE] == core.AIRBORNE).any())
    return {"digest": digest.hexdigest(), "most_log": most_log, "most_phases": most_phases, "flew": flew}


def test_the_event_loops_borrowed_views_never_outlive_their_arrays():
    """``run_shot`` hands its calls borrowed views (``poolgym.physics.borrow``) of arrays it
    owns. A process whose freed memory glibc overwrites at once (``MALLOC_PERTURB_``) plays
    the same shots to the last bit as this one: no view is read after its array is freed,
    including a log and a phase table grown past their first 64 rows and shots that fly."""
    here = played_cases_digest()
    assert here["most_log"] > 64 and here["most_phases"] > 64 and here["flew"] > 0
    env = {**os.environ, "MALLOC_PERTURB_": "165"}
    script = "import json; from tests.physics.test_compiled_kernels import played_cases_digest as p; " \
             "print(json.dumps(p()))"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    perturbed = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True,
                               check=True, timeout=600)
    assert json.loads(perturbed.stdout.strip().splitlines()[-1]) == here


_LEVEL_THEN_JUMP = """
import json
from poolgym.physics import Shot, Simulator, event_core
from poolgym.table import Table
sim = Simulator(Table.preset("9ft"))
layout = {0: (0.6, 0.635), 1: (1.9, 0.635)}
sim.simulate(layout, Shot(speed=4.0))
level = len(event_core.run_shot.signatures)
jump = sim.simulate(layout, Shot(speed=4.0, elevation_deg=40.0), trajectories=True)
print(json.dumps({"after_level": level, "after_jump": len(event_core.run_shot.signatures),
                  "flew": any(p.mode == "airborne" for p in jump.trajectories[0])}))
"""


def test_a_process_that_plays_level_shots_never_compiles_or_loads_the_airborne_core():
    """Level shots run on the level core alone; the first shot that leaves the bed brings
    the airborne core in (compiled or loaded from the cache), and flies."""
    run = json.loads(subprocess.run([sys.executable, "-c", _LEVEL_THEN_JUMP], capture_output=True, text=True,
                                    check=True).stdout)
    assert run == {"after_level": 1, "after_jump": 2, "flew": True}
