"""The evaluation protocol: matches between agents are played under a game env's settings.

``poolgym eval``, ``poolgym play``, the baseline table and distributed evaluation all play
racks with the rules, rack model, execution noise and stroke cap of one registered game
env (``poolgym/NineBall-v1`` by default), so a rate measured outside the env is the rate
an agent meets inside it. ``--game`` and ``--noise`` override the env's game and noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium as gym

import poolgym  # noqa: F401  (registers the environments)
from poolgym.envs import PoolEnv
from poolgym.physics import Noise
from poolgym.rules import Ruleset, get_ruleset

DEFAULT_ENV = "poolgym/NineBall-v1"
NOISE_PRESETS = Noise.PRESETS


@dataclass(frozen=True)
class Protocol:
    """What racks are played under: ``rules`` (with the env's rack model), ``noise`` (a
    preset name), ``max_speed`` (m/s) and ``elevation`` (the env's elevated cue: bots then
    play jump shots where the rules allow them), taken from the game env ``env_id``."""

    env_id: str
    rules: Ruleset
    noise: str
    max_speed: float
    elevation: bool = False

    @property
    def game(self) -> str:
        return self.rules.name

    def describe(self) -> str:
        return (f"{self.env_id} protocol: {self.game}, {self.noise} noise, rack gaps "
                f"{self.rules.rack_model.spacing_mm}/{self.rules.rack_model.jitter_mm} mm, "
                f"strokes up to {self.max_speed} m/s" + (", elevated cue" if self.elevation else ""))


def protocol(env_id: str = DEFAULT_ENV, game: str | None = None, noise: str | None = None) -> Protocol:
    """The protocol of the game env ``env_id``, its game or noise replaced when given."""
    try:
        env = gym.make(env_id).unwrapped
    except gym.error.Error as exc:
        raise ValueError(f"unknown env {env_id!r}: {exc}") from None
    if not isinstance(env, PoolEnv):
        raise ValueError(f"{env_id} is not a game env (its entry point is {type(env).__name__})")
    rules = env.rules
    if game is not None and game != rules.name:
        rules = get_ruleset(game, options=rules.options, table=env.table).with_rack_model(env.rack_model)
    if noise is None:
        noise = next((name for name in NOISE_PRESETS if Noise.preset(name) == env.simulator.noise), None)
        if noise is None:
            raise ValueError(f"{env_id} has custom execution noise; name a preset with --noise "
                             f"({list(NOISE_PRESETS)})")
    elif noise not in NOISE_PRESETS:
        raise ValueError(f"noise must be one of {list(NOISE_PRESETS)}, got {noise!r}")
    env.close()
    return Protocol(env_id, rules, noise, float(env.mapper.max_speed), env.elevation)
