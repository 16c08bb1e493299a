"""Gymnasium environments, registered as ``poolgym/...`` on ``import poolgym``.

| id | what |
|---|---|
| ``poolgym/NineBall-v0`` | 9-ball against an opponent (uniform random actions by default) |
| ``poolgym/EightBall-v0`` | 8-ball |
| ``poolgym/TenBall-v0`` | 10-ball |
| ``poolgym/StraightPool-v0`` | 14.1 continuous |
| ``poolgym/NineBallSolo-v0`` | run out a 9-ball rack alone (the agent plays every shot) |
| ``poolgym/PotBall-v0`` | one shot: pot the target ball from a random layout |

Variants differ only in keyword arguments (``gymnasium.make(id, **kwargs)``); custom ones are
registered with ``poolgym.register_variant`` or from YAML (``poolgym.registration``).
"""

from poolgym.envs.pool_env import MoveRecord, PoolEnv
from poolgym.envs.practice import PotBallEnv

# The v0 game ids keep the uniform-random-action opponent they were published with (the
# default opponent of ``PoolEnv`` is now the ladder's "legal-random").
V0_OPPONENT = "uniform-action"
# Steps are shots (or decisions); a rack rarely needs more than a few dozen.
GAME_STEP_LIMIT = 500

BUILTIN_IDS = {
    "poolgym/NineBall-v0": ("poolgym.envs.pool_env:PoolEnv", {"game": "nine_ball", "opponent": V0_OPPONENT}, GAME_STEP_LIMIT),
    "poolgym/EightBall-v0": ("poolgym.envs.pool_env:PoolEnv", {"game": "eight_ball", "opponent": V0_OPPONENT}, GAME_STEP_LIMIT),
    "poolgym/TenBall-v0": ("poolgym.envs.pool_env:PoolEnv", {"game": "ten_ball", "opponent": V0_OPPONENT}, GAME_STEP_LIMIT),
    "poolgym/StraightPool-v0": ("poolgym.envs.pool_env:PoolEnv", {"game": "straight_pool", "opponent": V0_OPPONENT}, GAME_STEP_LIMIT),
    "poolgym/NineBallSolo-v0": ("poolgym.envs.pool_env:PoolEnv",
                                {"game": "nine_ball", "opponent": "solo", "action_mode": "aim"},
                                GAME_STEP_LIMIT),
    "poolgym/PotBall-v0": ("poolgym.envs.practice:PotBallEnv", {}, None),
}


def register_builtin_envs() -> None:
    """Register the built-in ids with Gymnasium (idempotent)."""
    import gymnasium

    for env_id, (entry_point, kwargs, limit) in BUILTIN_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=entry_point, kwargs=dict(kwargs), max_episode_steps=limit)


__all__ = ["BUILTIN_IDS", "MoveRecord", "PoolEnv", "PotBallEnv", "register_builtin_envs"]
