"""Environment ids to test, found in the Gymnasium registry so new games are covered as
soon as they are registered; an id whose game is not installed yet is skipped, with why."""

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401  (registers the ids)
from poolgym.rules import available_rulesets, get_ruleset

GAME_ENTRY_POINT = "poolgym.envs.pool_env:PoolEnv"


def _param(env_id: str):
    try:
        gym.make(env_id).close()
    except ValueError as exc:  # e.g. a registered game whose ruleset is not merged yet
        return pytest.param(env_id, marks=pytest.mark.skip(reason=f"{env_id} cannot be made: {exc}"))
    return env_id


def env_ids(games_only: bool = False) -> list:
    """Every registered ``poolgym/`` id (or every game env id), as pytest parameters."""
    ids = sorted(i for i, spec in gym.registry.items()
                 if i.startswith("poolgym/") and (not games_only or spec.entry_point == GAME_ENTRY_POINT))
    return [_param(i) for i in ids]


def ruleset_names() -> list:
    """Every ruleset registered or named by a game env, as pytest parameters."""
    names = set(available_rulesets()) | {spec.kwargs.get("game") for spec in gym.registry.values()
                                         if spec.entry_point == GAME_ENTRY_POINT}
    params = []
    for name in sorted(n for n in names if n):
        try:
            get_ruleset(name)
        except ValueError as exc:
            params.append(pytest.param(name, marks=pytest.mark.skip(reason=str(exc))))
        else:
            params.append(name)
    return params


def random_actions(space, seed: int):
    """An endless stream of uniform actions of ``space`` (float32, as a policy gives them)."""
    rng = np.random.default_rng(seed)
    while True:
        yield rng.uniform(space.low, space.high).astype(space.dtype)
