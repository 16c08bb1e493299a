"""Benchmark checks on the v1 game envs: break statistics and sweeps of constant actions.

A benchmark that a memorised action can win measures nothing. These checks look for such
actions the way a user (or an optimiser) would:

- ``break_statistics``: N breaks of the benchmark break (cue ball anywhere in the break box
  behind the head string, aimed at the apex ball's centre, a firm centre-ball stroke)
  through an env, with its noise and rack model: how often a ball drops, the money ball
  drops, the cue ball scratches. The rack model is calibrated on it (``poolgym.racking``).
- ``sweep_breaks``: many constant break actions in one action mode, each played as the
  break of the same racks: the fraction of breaks that pocket the money ball, per action.
- ``sweep_constant_play``: many constant raw actions, each played on every shot of whole
  racks against an opponent with alternating breaks: the racks won, per action.

Rack k of every action is the env reset with seed ``seed + k`` (common random numbers), so
the actions are compared on the same racks and noise streams. ``workers`` > 1 spreads the
actions over processes; results do not depend on it.
"""

from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401  (registers the environments)
from poolgym.envs import PoolEnv
from poolgym.envs.actions import ShotMove
from poolgym.numbers import quote, real
from poolgym.physics import Shot
from poolgym.rules import ShotCall

from poolgym.agents.evaluation.evaluate import wilson_interval

# The benchmark break: a power break (12 m/s, about 27 mph, the speed professionals break
# at) from the break box, the area about 8 inches either side of the long string behind the
# head string that professional 9-ball events use.
BREAK_SPEED = 12.0
BREAK_BOX_HALF_WIDTH = 0.2  # m
# The action the v0 world let win every rack: easiest target, no cut, full speed, centred.
V0_AIM_EXPLOIT = (-1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def benchmark_break(env: PoolEnv, rng: np.random.Generator, speed: float = BREAK_SPEED) -> ShotMove:
    """The benchmark break from ``env``'s current state (awaiting the break): cue ball at a
    random spot of the break box, aimed at the centre of the ball on the foot spot."""
    table = env.table
    state = env.state
    R = table.ball_radius
    x = table.head_string_x - R - float(rng.uniform(0.0, 0.1))
    y = table.width / 2.0 + float(rng.uniform(-BREAK_BOX_HALF_WIDTH, BREAK_BOX_HALF_WIDTH))
    fx, fy = table.foot_spot
    apex = min(state.positions.items(), key=lambda item: math.hypot(item[1][0] - fx, item[1][1] - fy))
    ax, ay = apex[1]
    angle = math.degrees(math.atan2(ay - y, ax - x))
    return ShotMove(ShotCall(), (x, y), Shot(speed, angle), target=apex[0])


@dataclass
class BreakStats:
    """Counts over ``breaks`` breaks, each with a 95% Wilson interval in ``intervals``."""

    breaks: int
    made_ball: int
    made_ball_no_foul: int
    money_ball: int
    scratches: int
    fouls: int

    def rate(self, name: str) -> float:
        return getattr(self, name) / self.breaks if self.breaks else 0.0

    def as_dict(self) -> dict:
        out = asdict(self)
        for name in ("made_ball", "made_ball_no_foul", "money_ball", "scratches", "fouls"):
            out[f"{name}_rate"] = self.rate(name)
            out[f"{name}_interval"] = wilson_interval(getattr(self, name), self.breaks)
        return out


def _game_env(env_id: str, **kwargs) -> PoolEnv:
    """The unwrapped game env of ``env_id``, played move by move (no opponent needed)."""
    env = gym.make(env_id, opponent="solo", action_mode="raw", **kwargs).unwrapped
    if not isinstance(env, PoolEnv):
        raise ValueError(f"{env_id} is not a game env")
    return env


def _money_ball(env: PoolEnv) -> int:
    return max(env.rules.object_balls)


def _tally(stats: BreakStats, env: PoolEnv, outcome) -> None:
    pocketed = {b for b, _ in outcome.pocketed}
    stats.breaks += 1
    made = any(b != 0 for b in pocketed)
    stats.made_ball += made
    stats.made_ball_no_foul += made and not outcome.fouls
    stats.money_ball += _money_ball(env) in pocketed
    stats.scratches += 0 in pocketed
    stats.fouls += bool(outcome.fouls)


def check_break_speed(env_id: str, speed, field: str = "speed", env: PoolEnv | None = None) -> float:
    """``speed`` as a float when the actions of ``env_id`` (or of ``env``, made from it) can
    express it (their ``[min_speed, max_speed]``), else ``ValueError`` naming ``field`` and
    the range."""
    if env is None:
        env = _game_env(env_id)
        try:
            return check_break_speed(env_id, speed, field, env)
        finally:
            env.close()
    mapper = env.mapper
    value = real(speed, field)
    if not mapper.min_speed <= value <= mapper.max_speed:
        raise ValueError(f"{field} must be in [{mapper.min_speed:g}, {mapper.max_speed:g}] m/s (the strokes "
                         f"of {env_id}), got {quote(speed)}")
    return value


def break_statistics(env_id: str = "poolgym/NineBall-v1", breaks: int = 1000, seed: int = 0,
                     speed: float = BREAK_SPEED, **env_kwargs) -> BreakStats:
    """The benchmark break played on ``breaks`` racks of ``env_id`` (seeds ``seed``,
    ``seed + 1``, ...), with the env's noise and rack model. ``speed`` must be one the env's
    actions can express (its ``[min_speed, max_speed]``): a faster break would be played
    at the stroke cap and reported at the speed asked for."""
    env = _game_env(env_id, **env_kwargs)
    try:
        check_break_speed(env_id, speed, env=env)
    except ValueError:
        env.close()
        raise
    stats = BreakStats(0, 0, 0, 0, 0, 0)
    for k in range(breaks):
        env.reset(seed=seed + k, options={"breaker": 0})
        move = benchmark_break(env, np.random.default_rng([seed, k]), speed)
        record = env.play_move(env.mapper.encode(move, env.state, env.rules))
        _tally(stats, env, record.outcome)
    env.close()
    return stats


# Rack models and break speeds of the calibration table (README, "Benchmark protocol").
CALIBRATION_RACKS = ("tight", {"spacing_mm": 0.2, "jitter_mm": 0.3}, "benchmark",
                     {"spacing_mm": 1.0, "jitter_mm": 1.0})
CALIBRATION_SPEEDS = (8.0, 10.0, 12.0)


def calibration_table(env_id: str = "poolgym/NineBall-v1", breaks: int = 1000, seed: int = 0,
                      racks=CALIBRATION_RACKS, speeds=CALIBRATION_SPEEDS) -> list[dict]:
    """``break_statistics`` for every rack model and break speed (strokes capped at the
    fastest speed), on the same racks: how the make rate depends on both."""
    rows = []
    for rack in racks:
        for speed in speeds:
            stats = break_statistics(env_id, breaks=breaks, seed=seed, speed=speed, rack_model=rack,
                                     max_speed=max(speeds))
            rows.append({"rack_model": rack, "speed": speed, **stats.as_dict()})
    return rows


# ============================================================================ constant actions
def break_actions(mode: str, n: int, seed: int, env_id: str = "poolgym/NineBall-v1") -> list[tuple[float, ...]]:
    """``n`` constant break actions of ``mode`` to sweep: for "aim", the v0 exploit first,
    then uniform draws of every component; for "raw", uniform draws whose aim is turned to
    within 2 degrees of the foot spot as seen from the placement, and whose speed is in the
    upper part of the range, since a break that misses the rack pockets nothing."""
    rng = np.random.default_rng(seed)
    actions: list[tuple[float, ...]] = []
    if mode == "aim":
        actions.append(V0_AIM_EXPLOIT)
        while len(actions) < n:
            actions.append(tuple(float(v) for v in rng.uniform(-1.0, 1.0, 10)))
        return actions
    if mode != "raw":
        raise ValueError(f"mode must be 'aim' or 'raw', got {mode!r}")
    env = _game_env(env_id)
    env.reset(seed=seed, options={"breaker": 0})
    fx, fy = env.table.foot_spot
    for _ in range(n):
        a = rng.uniform(-1.0, 1.0, 8)
        a[1] = rng.uniform(0.2, 1.0)
        x, y = env.mapper.decode(env.mapper.validate(a), env.state, env.rules).placement
        angle = math.degrees(math.atan2(fy - y, fx - x)) + rng.uniform(-2.0, 2.0)
        a[0] = angle / 180.0
        actions.append(tuple(float(v) for v in a))
    env.close()
    return actions


def play_actions(actions: Sequence[Sequence[float]], evaluate: Callable[[tuple[float, ...]], dict],
                 workers: int = 1) -> list[dict]:
    """``evaluate`` on every action, in ``workers`` processes; results in action order."""
    actions = [tuple(float(v) for v in a) for a in actions]
    if workers <= 1:
        return [evaluate(a) for a in actions]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(evaluate, actions, chunksize=max(1, len(actions) // (8 * workers))))


@dataclass(frozen=True)
class BreakSweep:
    """``evaluate`` for ``play_actions``: one constant break action on ``breaks`` racks."""

    env_id: str
    mode: str
    breaks: int
    seed: int

    def __call__(self, action: tuple[float, ...]) -> dict:
        env = gym.make(self.env_id, opponent="solo", action_mode=self.mode).unwrapped
        money = _money_ball(env)
        hits = 0
        for k in range(self.breaks):
            env.reset(seed=self.seed + k, options={"breaker": 0})
            record = env.play_move(np.asarray(action))
            hits += record.outcome is not None and money in {b for b, _ in record.outcome.pocketed}
        env.close()
        return {"action": list(action), "money_ball": hits, "breaks": self.breaks,
                "rate": hits / self.breaks, "interval": wilson_interval(hits, self.breaks)}


def sweep_breaks(mode: str, actions: int = 500, breaks: int = 200, seed: int = 0,
                 env_id: str = "poolgym/NineBall-v1", workers: int = 1) -> list[dict]:
    """Every action of ``break_actions(mode, actions, seed)`` as the break of the same
    ``breaks`` racks; one result per action (money-ball pots, rate and interval)."""
    return play_actions(break_actions(mode, actions, seed, env_id), BreakSweep(env_id, mode, breaks, seed),
                        workers)


@dataclass(frozen=True)
class ConstantPlay:
    """``evaluate`` for ``play_actions``: one constant raw action played on every shot (and
    every decision) of ``racks`` racks against ``opponent``, alternating breaks."""

    env_id: str
    opponent: str
    racks: int
    seed: int

    def __call__(self, action: tuple[float, ...]) -> dict:
        env = gym.make(self.env_id, opponent=self.opponent, action_mode="raw")
        wins = 0
        by_three_fouls = 0
        for k in range(self.racks):
            env.reset(seed=self.seed + k, options={"breaker": k % 2})
            done = False
            info: dict = {}
            while not done:
                _, _, terminated, truncated, info = env.step(np.asarray(action, dtype=np.float32))
                done = terminated or truncated
            won = info.get("winner") == 0 and terminated
            wins += won
            last = info["outcomes"][-1] if info["outcomes"] else None
            by_three_fouls += last is not None and "6.14" in {f.section for f in last.fouls}
        env.close()
        return {"action": list(action), "wins": wins, "racks": self.racks, "rate": wins / self.racks,
                "interval": wilson_interval(wins, self.racks), "ended_by_three_fouls": by_three_fouls}


def constant_actions(n: int, seed: int) -> list[tuple[float, ...]]:
    """``n`` constant raw actions: uniform over the whole raw space (a state-independent
    policy is one point of it)."""
    rng = np.random.default_rng(seed)
    return [tuple(float(v) for v in rng.uniform(-1.0, 1.0, 8)) for _ in range(n)]


def sweep_constant_play(actions: int = 500, racks: int = 100, seed: int = 0,
                        env_id: str = "poolgym/NineBall-v1", opponent: str = "legal-random",
                        workers: int = 1) -> list[dict]:
    """Every action of ``constant_actions(actions, seed)`` played on every shot of the same
    ``racks`` racks against ``opponent``; one result per action (racks won, interval)."""
    return play_actions(constant_actions(actions, seed), ConstantPlay(env_id, opponent, racks, seed), workers)


def best(results: list[dict]) -> dict:
    """The result with the highest rate (the first on ties)."""
    return max(results, key=lambda r: r["rate"])
