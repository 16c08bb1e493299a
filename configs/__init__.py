"""The YAML files shipped with poolgym: training configs (``train/*.yaml``, read by
``poolgym train`` and ``poolgym quickstart``) and environment variants (``variants/*.yaml``).

In a clone of the repository this package is the folder ``configs/``, so the paths typed
there (``poolgym train --config configs/train/default.yaml``) work as they are; an installed
wheel carries the same files as ``poolgym.configs``, found from any directory with
``config_path``::

    from poolgym.configs import config_path
    poolgym.register_from_yaml(config_path("variants/six_ball.yaml"), trusted=True)
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def shipped_configs() -> list[str]:
    """The shipped files' names, ``"train/default.yaml"`` style, sorted."""
    root = files(__name__)
    return sorted(f"{folder}/{entry.name}" for folder in ("train", "variants")
                  for entry in root.joinpath(folder).iterdir() if entry.name.endswith(".yaml"))


def config_path(name: str) -> Path:
    """The path of the shipped file ``name`` (``"train/default.yaml"``,
    ``"variants/six_ball.yaml"``); a name that is not shipped is a ``ValueError`` listing
    those that are."""
    if name not in shipped_configs():
        raise ValueError(f"config {name!r} is not shipped with poolgym; shipped: {', '.join(shipped_configs())}")
    # pip installs a wheel as folders, so the resource is a file on disk: a variant's relative
    # ``file.py`` paths are found from its directory, as in the repository.
    return Path(files(__name__).joinpath(name))
