"""Gymnasium environments, registered as ``poolgym/...`` on ``import poolgym``.

| id | what |
|---|---|
| ``poolgym/NineBall-v1`` | 9-ball, the benchmark: tournament execution noise, racks with random gaps, breaker drawn per episode, match score observed, a ``legal-random`` opponent |
| ``poolgym/EightBall-v1`` | 8-ball, the same defaults |
| ``poolgym/TenBall-v1`` | 10-ball, the same defaults |
| ``poolgym/StraightPool-v1`` | 14.1 continuous, the same defaults |
| ``poolgym/NineBallSolo-v1`` | run out a 9-ball rack alone (the agent plays every shot), noise and rack gaps on |
| ``poolgym/PotBall-v1`` | one shot: pot the target ball from a random layout, noise on |
| ``poolgym/*-v0`` | the same games with their first defaults (no noise, tight racks, the agent always breaks, a uniform-random-action opponent); the physics under them has changed since (``VERSION_HISTORY``) |

Variants differ only in keyword arguments (``gymnasium.make(id, **kwargs)``); custom ones are
registered with ``poolgym.register_variant`` or from YAML (``poolgym.registration``).
"""

from poolgym.envs.pool_env import MoveRecord, PoolEnv
from poolgym.envs.practice import PotBallEnv
from poolgym.envs.video import RecordEveryFrame

# Steps are shots (or decisions); a rack rarely needs more than a few dozen.
GAME_STEP_LIMIT = 500

_GAME = "poolgym.envs.pool_env:PoolEnv"
_POT_BALL = "poolgym.envs.practice:PotBallEnv"
# The ids' natively batched form (``gym.make_vec``): their tables' shots simulated together.
_BATCHED = {_GAME: "poolgym.envs.sharded:make_batched_pool_env", _POT_BALL: "poolgym.envs.sharded:make_batched_pot_ball_env"}
# The benchmark defaults of every v1 game env (see the README's "Benchmark protocol").
# A power break is about 12 m/s, so the v1 strokes reach it.
BENCHMARK_DEFAULTS = {"noise": "tournament", "rack_model": "benchmark", "breaker": "random",
                      "observe_match": True, "opponent": "legal-random", "max_speed": 12.0}
_SOLO_V1 = {"opponent": "solo", "action_mode": "aim", "noise": "tournament", "rack_model": "benchmark",
            "max_speed": 12.0}

BUILTIN_IDS = {
    "poolgym/NineBall-v0": (_GAME, {"game": "nine_ball", "opponent": "uniform-action"}, GAME_STEP_LIMIT),
    "poolgym/EightBall-v0": (_GAME, {"game": "eight_ball", "opponent": "uniform-action"}, GAME_STEP_LIMIT),
    "poolgym/TenBall-v0": (_GAME, {"game": "ten_ball", "opponent": "uniform-action"}, GAME_STEP_LIMIT),
    "poolgym/StraightPool-v0": (_GAME, {"game": "straight_pool", "opponent": "uniform-action"}, GAME_STEP_LIMIT),
    "poolgym/NineBallSolo-v0": (_GAME, {"game": "nine_ball", "opponent": "solo", "action_mode": "aim"},
                                GAME_STEP_LIMIT),
    "poolgym/PotBall-v0": (_POT_BALL, {}, None),
    "poolgym/NineBall-v1": (_GAME, {"game": "nine_ball", **BENCHMARK_DEFAULTS}, GAME_STEP_LIMIT),
    "poolgym/EightBall-v1": (_GAME, {"game": "eight_ball", **BENCHMARK_DEFAULTS}, GAME_STEP_LIMIT),
    "poolgym/TenBall-v1": (_GAME, {"game": "ten_ball", **BENCHMARK_DEFAULTS}, GAME_STEP_LIMIT),
    "poolgym/StraightPool-v1": (_GAME, {"game": "straight_pool", **BENCHMARK_DEFAULTS}, GAME_STEP_LIMIT),
    "poolgym/NineBallSolo-v1": (_GAME, {"game": "nine_ball", **_SOLO_V1}, GAME_STEP_LIMIT),
    "poolgym/PotBall-v1": (_POT_BALL, {"noise": "tournament"}, None),
}


# What each built-in id is, in one line (the docs site's env pages and tables).
ID_SUMMARIES = {
    "NineBall": "9-ball against an opponent, shot by shot, under WPA rules",
    "EightBall": "8-ball against an opponent (groups, called 8, the break options of WPA 3.3)",
    "TenBall": "10-ball against an opponent (call shot)",
    "StraightPool": "14.1 continuous against an opponent (call shot, points, re-racks)",
    "NineBallSolo": "run out a 9-ball rack alone: the agent plays every shot",
    "PotBall": "one shot: pot the target ball from a random layout without scratching",
}

_V1_GAME = ("The benchmark protocol (``BENCHMARK_DEFAULTS``): tournament noise, racks with gaps, a random "
            "breaker, the match observed, ``legal-random`` opponent, strokes up to 12 m/s.")
# Per family, what changed in each version, one line each, for the env pages (the reasons
# are in the docs' benchmark protocol).
VERSION_HISTORY = {
    **{family: {1: _V1_GAME, 0: "Initial release: no noise, tight racks, the agent breaks, "
                                "``uniform-action`` opponent, strokes up to 10 m/s."}
       for family in ("NineBall", "EightBall", "TenBall", "StraightPool")},
    "NineBallSolo": {
        1: "Tournament noise, racks with gaps, strokes up to 12 m/s.",
        0: "Initial release: no noise, tight racks, strokes up to 10 m/s."},
    "PotBall": {
        1: "Tournament execution noise.",
        0: "Initial release: no noise."},
}


def register_builtin_envs() -> None:
    """Register the built-in ids with Gymnasium (idempotent)."""
    import gymnasium

    for env_id, (entry_point, kwargs, limit) in BUILTIN_IDS.items():
        if env_id not in gymnasium.registry:
            batched = _BATCHED.get(entry_point)
            gymnasium.register(env_id, entry_point=entry_point, vector_entry_point=batched, kwargs=dict(kwargs),
                               max_episode_steps=limit)


__all__ = ["BENCHMARK_DEFAULTS", "BUILTIN_IDS", "ID_SUMMARIES", "VERSION_HISTORY", "MoveRecord", "PoolEnv", "PotBallEnv", "RecordEveryFrame",
           "register_builtin_envs"]
