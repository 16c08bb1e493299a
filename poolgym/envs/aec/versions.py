"""The versioned two-player factories, one module per game and version in PettingZoo's
style (``from poolgym.envs.aec import nine_ball_v1; nine_ball_v1.env()``).

A version's defaults are the registered single-agent ids' of the same version, less the
opponent (both players learn): v1 is ``poolgym.envs.BENCHMARK_DEFAULTS``, so a number
measured on ``nine_ball_v1`` is on the protocol of ``poolgym/NineBall-v1``. Keyword
arguments given to a factory replace the defaults, as ``gymnasium.make``'s do.
"""

from __future__ import annotations

from typing import Any, Callable

from poolgym.envs import BENCHMARK_DEFAULTS

# The games with a versioned module (``<game>_v<version>``).
GAMES = ("nine_ball", "eight_ball", "ten_ball", "straight_pool")
# Each version's defaults, on top of ``PoolAECEnv``'s own (which are v0's).
VERSION_DEFAULTS: dict[int, dict[str, Any]] = {
    1: {key: value for key, value in BENCHMARK_DEFAULTS.items() if key != "opponent"},
}


def factories(game: str, version: int) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``(env, raw_env)`` for ``game`` at ``version``: each builds the two-player env with
    that version's defaults under the metadata name ``<game>_v<version>``; ``env`` adds
    the wrappers ``poolgym.envs.aec.env`` adds."""
    from poolgym.envs import aec

    name = f"{game}_v{version}"
    defaults = {"game": game, **VERSION_DEFAULTS[version]}

    def raw_env(**kwargs):
        """The bare two-player env (``PoolAECEnv``) with this module's defaults."""
        built = aec.PoolAECEnv(**{**defaults, **kwargs})
        built.metadata = {**built.metadata, "name": name}
        return built

    def env(**kwargs):
        """The two-player env with this module's defaults and PettingZoo's wrappers."""
        return aec.wrap(raw_env(**kwargs))

    return env, raw_env
