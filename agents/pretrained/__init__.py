"""Pretrained agents shipped inside the package: ``pretrained:<name>`` wherever an agent or
an opponent is named (``poolgym eval``, ``poolgym play``, an env's ``opponent``).

Each agent is a folder here with its stable-baselines3 model (``model.zip``, carrying the
record of the env it was trained on), the training config it ran (``config.json``), the
run's summary, learning curve and a compact training log (``summary.json``, ``curve.json``,
``curve.png``, ``training_log.json``) and ``card.json``: the game, env id, algorithm, seed,
steps and how it was trained (``poolgym.agents.training.shipping`` writes the folder).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

PREFIX = "pretrained:"
#: The shipped agents: name -> the game whose rules they play.
PRETRAINED = {"nine_ball": "nine_ball"}


def pretrained_dir(name: str) -> Path:
    """The folder of the pretrained agent ``name`` (a ``ValueError`` naming the choices for
    an unknown one)."""
    if name not in PRETRAINED:
        raise ValueError(f"unknown pretrained agent {name!r}; shipped: "
                         f"{', '.join(PREFIX + n for n in PRETRAINED)}")
    return Path(str(resources.files(__name__) / name))


def pretrained_model(name: str) -> str:
    """The path of the pretrained agent's model zip."""
    return str(pretrained_dir(name) / "model.zip")


def pretrained_card(name: str) -> dict:
    """What the pretrained agent is: game, env id, algorithm, seed, steps, training time."""
    return json.loads((pretrained_dir(name) / "card.json").read_text())
