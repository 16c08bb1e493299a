"""Matches spread over Ray: ``poolgym eval --ray [--address ADDR]``.

The racks are split into contiguous chunks, each played by a Ray task that builds its own
agents from their specs; the records come back in rack order and are summarized exactly
as a local match is. Every rack is seeded by its number alone (``evaluate.run_match``), so
the report is identical to the local one for the same seed. Requires the ``distributed``
extra.
"""

from __future__ import annotations

from poolgym.agents.evaluation.evaluate import Match, run_match


def _play_chunk(terms: tuple[str, str | None, str | None], specs: tuple[str, str], numbers: range,
                seed: int, agent_kwargs: dict) -> list:
    """Play racks ``numbers`` in this worker (a Ray task body) under the protocol ``terms``."""
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol

    rules_of = protocol(*terms)
    agents = [make_agent(spec, rules_of.rules, seed=seed + i, noise=rules_of.noise,
                         max_speed=rules_of.max_speed, elevation=rules_of.elevation, **agent_kwargs)
              for i, spec in enumerate(specs)]
    return run_match(rules_of.rules, agents, specs, numbers, seed=seed, noise=rules_of.noise).racks


def run_match_ray(env_id: str, specs: tuple[str, str], racks: int, seed: int = 0, game: str | None = None,
                  noise: str | None = None, address: str | None = None, chunks: int | None = None,
                  num_cpus: int | None = None, **agent_kwargs) -> Match:
    """Play ``racks`` racks between the agents ``specs`` on Ray under the protocol of the
    game env ``env_id`` (``poolgym.agents.evaluation.protocol``; ``game`` and ``noise`` override it) and return
    the match, rack for rack the same as ``run_match`` here. ``address`` joins a running
    cluster; otherwise a local Ray instance starts (``num_cpus`` CPUs)."""
    from poolgym.agents.evaluation.protocol import protocol

    terms = (env_id, game, noise)
    played_under = protocol(*terms)
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        n_chunks = chunks or max(1, min(racks, int(ray.cluster_resources().get("CPU", 1)) * 2))
        bounds = [racks * i // n_chunks for i in range(n_chunks + 1)]
        task = ray.remote(num_cpus=1)(_play_chunk)
        futures = [task.remote(terms, tuple(specs), range(bounds[i], bounds[i + 1]), seed, agent_kwargs)
                   for i in range(n_chunks) if bounds[i] < bounds[i + 1]]
        played = [rack for chunk in ray.get(futures) for rack in chunk]
    finally:
        if started_here:
            ray.shutdown()
    return Match(played_under.game, tuple(specs), played, seed, played_under.noise)
