"""poolgym: reinforcement-learning environments for pool billiards.

Layers (imports only point down): ``envs`` -> ``rules`` / ``physics`` -> ``events`` / ``table``.
"""

__version__ = "0.1.0"
