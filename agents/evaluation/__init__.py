"""Matches between agents, the evaluation protocol, the ladder's agents and baseline tables,
and ratings on the Elo scale (``rate``: ``poolgym.agents.evaluation.rating.rate``)."""


def __getattr__(name: str):
    # Imported when asked for: the package's other modules do not need the rating's imports.
    if name == "rate":
        from poolgym.agents.evaluation.rating import rate

        return rate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
