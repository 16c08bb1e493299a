"""Matches spread over Ray: ``poolgym eval --ray [--address ADDR]``, ``poolgym baselines --ray``.

A command opens one Ray session (``ray_session``) and plays every match it needs in it --
``poolgym eval``'s match and each reference agent's match on the same racks -- as one batch
of tasks (``run_matches_ray``): the worker processes start, import poolgym and load the
numba cache once per command, and the racks of all the matches share the cluster's CPUs.

The racks of each match are split into contiguous chunks, each played by a Ray task that
builds its own agents from their specs; tasks are spread over the nodes (Ray's ``SPREAD``
scheduling) and the records come back in rack order and are summarized exactly as a local
match is. A chunk is a pure function of its arguments: every rack is seeded by its number
alone (``evaluate.run_match``), so the report is identical to the local one for the same
seed, and a chunk whose node dies is played again elsewhere (Ray retries it,
``MAX_RETRIES``) with the same racks. Requires the ``distributed`` extra.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

from poolgym.agents.evaluation.evaluate import Match, run_match

# How often a chunk is played again after its worker or node died (Ray's own default for
# tasks, said here because the reports' equality with the local run rests on it). An
# exception raised by the game itself is not retried: it would be raised again.
MAX_RETRIES = 3


@contextlib.contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator:
    """The Ray session of one command: joins the cluster at ``address`` (``"auto"``: the
    one this node belongs to) or starts a local instance with ``num_cpus`` CPUs, and shuts
    it down at the end. Inside a session already open (a test's cluster, a notebook's
    ``ray.init``), it uses that one and leaves it open. Without Ray installed, a one-line
    ``ValueError`` names the extra that brings it."""
    try:
        import ray
    except ImportError:
        raise ValueError("spreading over Ray (--ray, --address) needs Ray: "
                         "pip install 'poolgym[distributed]'") from None

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        if started_here:
            ray.shutdown()


@dataclass
class Spread:
    """Matches played on Ray, and where: ``nodes[i]`` holds, for each chunk of match
    ``i`` in rack order, the id of the node that played it (its last attempt), and
    ``chunk_seconds[i]`` the seconds each chunk took there."""

    matches: list[Match]
    nodes: list[list[str]] = field(default_factory=list)
    chunk_seconds: list[list[float]] = field(default_factory=list)

    def node_count(self) -> int:
        """How many nodes played at least one chunk."""
        return len({node for chunk_nodes in self.nodes for node in chunk_nodes})


def _play_chunk(terms: tuple[str, str | None, str | None], specs: tuple[str, str], numbers: range,
                seed: int, agent_kwargs: dict) -> tuple[str, float, list]:
    """Play racks ``numbers`` in this worker (a Ray task body) under the protocol ``terms``;
    returns the node's id, the seconds taken and the rack records."""
    import ray

    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol

    started = time.perf_counter()
    rules_of = protocol(*terms)
    agents = [make_agent(spec, rules_of.rules, seed=seed + i, noise=rules_of.noise,
                         max_speed=rules_of.max_speed, elevation=rules_of.elevation, **agent_kwargs)
              for i, spec in enumerate(specs)]
    racks = run_match(rules_of.rules, agents, specs, numbers, seed=seed, noise=rules_of.noise).racks
    return ray.get_runtime_context().get_node_id(), time.perf_counter() - started, racks


def run_matches_ray(env_id: str, pairs: Sequence[tuple[str, str]], racks: int, seed: int = 0,
                    game: str | None = None, noise: str | None = None, chunks: int | None = None,
                    progress: Callable[[int], None] | None = None, **agent_kwargs) -> Spread:
    """Play ``racks`` racks for each pair of agent specs in ``pairs`` (A, B) on the open Ray
    session (``ray_session``) under the protocol of the game env ``env_id``
    (``poolgym.agents.evaluation.protocol``; ``game`` and ``noise`` override it); each match
    is rack for rack the same as ``run_match`` here with agents seeded ``seed`` and
    ``seed + 1``. ``chunks`` tasks per match (default twice the cluster's CPUs, at most one
    per rack); ``progress(n)`` is called as each chunk of ``n`` racks comes back.
    ``agent_kwargs`` go to ``make_agent`` (``action_mode``, ``obs_mode``)."""
    import ray

    from poolgym.agents.evaluation.protocol import protocol

    terms = (env_id, game, noise)
    played_under = protocol(*terms)
    n_chunks = chunks or max(1, min(racks, int(ray.cluster_resources().get("CPU", 1)) * 2))
    bounds = [racks * i // n_chunks for i in range(n_chunks + 1)]
    spans = [range(bounds[i], bounds[i + 1]) for i in range(n_chunks) if bounds[i] < bounds[i + 1]]
    task = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False,
                      scheduling_strategy="SPREAD")(_play_chunk)
    futures = [[task.remote(terms, tuple(pair), span, seed, agent_kwargs) for span in spans] for pair in pairs]
    if progress is not None:
        sizes = {future: len(span) for row in futures for future, span in zip(row, spans)}
        waiting = list(sizes)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1)
            progress(sizes[done[0]])
    spread = Spread([])
    for pair, row in zip(pairs, futures):
        chunks_played = ray.get(row)
        spread.matches.append(Match(played_under.game, tuple(pair),
                                    [rack for _, _, chunk in chunks_played for rack in chunk],
                                    seed, played_under.noise))
        spread.nodes.append([node for node, _, _ in chunks_played])
        spread.chunk_seconds.append([seconds for _, seconds, _ in chunks_played])
    return spread


def run_match_ray(env_id: str, specs: tuple[str, str], racks: int, seed: int = 0, game: str | None = None,
                  noise: str | None = None, address: str | None = None, chunks: int | None = None,
                  num_cpus: int | None = None, **agent_kwargs) -> Match:
    """One match (``run_matches_ray``) in a Ray session of its own (``ray_session``:
    ``address`` joins a running cluster, else a local instance of ``num_cpus`` CPUs starts,
    unless a session is already open)."""
    with ray_session(address, num_cpus):
        return run_matches_ray(env_id, [specs], racks, seed=seed, game=game, noise=noise, chunks=chunks,
                               **agent_kwargs).matches[0]
