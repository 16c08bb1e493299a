"""Every compiled kernel into the kernel cache now: ``poolgym compile``.

The first import compiles the simulator's level core; the other kernels are compiled on
their first use (``poolgym.physics.jit``): the airborne core on the first shot that leaves
the bed, the bulk plays on the first bot search or lookahead, the pot geometry on the first
choice-mode observation or bot move. An install or an image made read-only after its set-up
would compile those in memory in every process that needs them. ``poolgym compile`` in the
set-up puts them all in the cache (the package's own ``__pycache__``, or
``NUMBA_CACHE_DIR``): it plays each compiled path once on a small position, so the
specializations cached are the ones play uses.
"""

from __future__ import annotations

from typing import Any


def compile_kernels() -> dict[str, Any]:
    """Play each compiled path once (a level and a jump shot, a bulk play of both, both
    as the envs play them, a choice-mode env with the lookahead and a bot's move), compiling or loading every
    kernel; what was played and where the cache is."""
    import gymnasium as gym
    import numpy as np

    import poolgym  # noqa: F401  (registers the ids; compiles the level core)
    from poolgym.agents.bot.player import HeuristicBot
    from poolgym.physics import Shot, Simulator
    from poolgym.physics import event_core as core
    from poolgym.rules import CueBallZone
    from poolgym.table import Table

    sim = Simulator(Table.preset("9ft"))
    layout = sim.validate_layout({0: (0.6, 0.635), 1: (1.9, 0.635), 2: (2.0, 0.3)})
    level, jump = Shot(speed=4.0), Shot(speed=4.0, elevation_deg=40.0)
    played = []
    sim.simulate(layout, level)
    played.append("a level shot (the level core, frozen contacts)")
    sim.simulate(layout, jump)
    played.append("a jump shot (the airborne core)")
    sim.simulate_facts(layout, sim.strikes_under([level, jump], [()]))
    played.append("a bulk play of both (both cores' batches)")
    sim.layout_plays([(layout, level), (layout, jump)])
    played.append("both from their layouts in one call (the envs' plays, both cores)")
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", lookahead=True)
    try:
        env.reset(seed=0)
        mask = env.unwrapped.action_masks()
        bounds = np.cumsum(np.concatenate([[0], env.action_space.nvec]))
        env.step(np.array([np.flatnonzero(mask[lo:hi])[0] for lo, hi in zip(bounds[:-1], bounds[1:])]))
    finally:
        env.close()
    played.append("a choice-mode env step with the lookahead (pot geometry, strike rows, next-shot chances, "
                  "stroke means)")
    bot = HeuristicBot("nine_ball", noise="tournament", budget="fast", seed=0)
    bot.choose(bot.rules.new_game(rng=0).evolve(awaiting_break=False, cue_ball_in_hand=CueBallZone.ANYWHERE))
    played.append("a bot move with the cue ball in hand (its bulk re-checks and position values)")
    return {"played": played, "cache": core.run_shot._cache.cache_path}
