"""poolgym: reinforcement-learning environments for pool billiards.

Layers (imports only point down): ``envs`` -> ``rules`` / ``physics`` -> ``events`` / ``table``.
Importing the package registers the Gymnasium environments (``poolgym/NineBall-v0``, ...).
"""

__version__ = "0.1.0"

from poolgym.envs import register_builtin_envs  # noqa: E402
from poolgym.registration import register_directory, register_from_yaml, register_variant  # noqa: E402

register_builtin_envs()

__all__ = ["register_directory", "register_from_yaml", "register_variant"]
