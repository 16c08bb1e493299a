"""Programs built on poolgym's public API: the ``poolgym`` command, benchmarks and peers."""
