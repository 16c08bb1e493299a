"""Recorded play as offline-RL datasets in Minari's format (the ``datasets`` extra):
``poolgym collect`` and ``collect`` (``poolgym.agents.datasets.collect``), the behaviour
cloning that learns from them (``poolgym.agents.datasets.bc``), and the checks every dataset
passes before it is read (``poolgym.agents.datasets.checks``)."""
