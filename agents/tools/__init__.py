"""The ``poolgym`` command and its tools: benchmarks, soak, demo, quickstart and play."""
