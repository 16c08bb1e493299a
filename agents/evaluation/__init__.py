"""Matches between agents, the evaluation protocol, the ladder's agents and baseline tables,
and ratings on the Elo scale (``rate``: ``poolgym.agents.evaluation.rating.rate``)."""

# How many episodes (or racks) the library's evaluations of a network play side by side,
# one network call for all of them: ``policy_eval.evaluate``'s ``num_envs`` in training,
# the racks at once of training's curve and of ``poolgym eval`` (``evaluate.run_match``).
# The same games as one at a time, about three to four times as fast against legal-random
# (benchmarks/results/throughput/evaluate_tables.md).
EVAL_TABLES = 16


def __getattr__(name: str):
    # Imported when asked for: the package's other modules do not need the rating's imports.
    if name == "rate":
        from poolgym.agents.evaluation.rating import rate

        return rate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
