"""What the ``poolgym`` command's families share: the argument types that check a value
before any work (seeds, counts, output files and folders), the checks of an env id or game
a command makes once it runs, ``UsageError`` and the help texts several commands give.
The ``_``-names are for the ``cli_*`` modules only."""

from __future__ import annotations

import argparse
import math
import os
import tempfile

from poolgym.envs.actions import ACTION_MODES
from poolgym.envs.choice import CHOICE_MODES

# Every env action mode, for the commands that make envs in one (``import poolgym`` has
# loaded these modules already: no cost to ``--help``).
ENV_ACTION_MODES = (*ACTION_MODES, *CHOICE_MODES)

# The fastest frame rate ``play`` draws at: beyond it frames only cost memory.
MAX_FPS = 120.0
# The exit status of a command stopped by Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130
NO_PROGRESS_HELP = "no progress line on stderr"
TRUST_MODEL_HELP = ("trust the model files named: let stable-baselines3 unpickle them, which runs code "
                    "(without it a model is read as data, and one that needs unpickling is refused)")


class UsageError(ValueError):
    """A command-line value found unusable once the command runs (an unknown game, an
    environment that is not a game); ``main`` prints it on one line and exits with status 2."""


def games_help() -> str:
    """The registered rulesets, for the help of a ``--game`` option."""
    from poolgym.rules import available_rulesets

    return ", ".join(available_rulesets())


def agent_help() -> str:
    """The forms an agent spec takes, for the help of an agent option."""
    from poolgym.agents.evaluation.loading import AGENT_NAMES

    return (f"a ladder name or pretrained agent ({', '.join(AGENT_NAMES)}), a stable-baselines3 model ([ALGO:]path.zip, "
            "played with the mapping recorded in it), an RLlib run of train --backend rllib (rllib:RUN_DIR) "
            "or pkg.module:name (an agent or a policy(obs, info))")


def _game_env_id(env_id: str, option: str) -> str:
    """``env_id`` when it is a registered game environment (``PoolEnv``), else a
    ``UsageError`` listing them."""
    from poolgym.agents.tools.soak import game_env_ids

    games = game_env_ids()
    if env_id not in games:
        raise UsageError(f"{option} {env_id!r} is not a game environment; game environments are {games}")
    return env_id


def _ruleset(name: str):
    """The ruleset ``--game`` names, or a ``UsageError`` listing the registered ones."""
    from poolgym.rules import available_rulesets, get_ruleset

    try:
        return get_ruleset(name)
    except ValueError:
        if name in available_rulesets():
            raise  # registered, but it failed to build: not a usage error
        raise UsageError(f"--game {name!r} is not a registered ruleset; choose one of "
                         f"{list(available_rulesets())}") from None


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _seed(text: str) -> int:
    """A seed: an integer >= 0 (what numpy's generators take)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed must be an integer >= 0, got {value}")
    return value


def _real_in(text: str, what: str, low: float, high: float, unit: str, low_included: bool = False) -> float:
    """A finite number in (``low``, ``high``] (``[low, high]`` with ``low_included``), or an
    ``ArgumentTypeError`` saying ``what`` is wanted or the range in ``unit``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
    above = low <= value if low_included else low < value
    if not (math.isfinite(value) and above and value <= high):
        raise argparse.ArgumentTypeError(f"must be in {'[' if low_included else '('}{low:g}, {high:g}] {unit}, "
                                         f"got {text}")
    return value


def _fps(text: str) -> float:
    """Frames per second in (0, ``MAX_FPS``]."""
    return _real_in(text, "a number of frames per second", 0.0, MAX_FPS, "frames per second")


def _elevation(text: str) -> float:
    """The soak's largest cue elevation: degrees in [0, ``Shot.MAX_ELEVATION_DEG``]."""
    from poolgym.physics import Shot

    return _real_in(text, "a number of degrees", 0.0, Shot.MAX_ELEVATION_DEG, "degrees", low_included=True)


def _max_speed(text: str) -> float:
    """A stroke cap in m/s, in (0.3, 15]."""
    return _real_in(text, "a stroke speed in m/s", 0.3, 15.0, "m/s")


def _check_writable_dir(directory: str, what: str) -> None:
    """Raise ``ArgumentTypeError`` unless a file can be created in ``directory`` (tried for
    real: permission bits say nothing to root or on a read-only mount)."""
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{what}: cannot write in {directory!r} ({exc.strerror})") from None


def _output_file(text: str) -> str:
    """An output FILE (``--json``, ``--csv``, ``--gif``), checked before any work is done:
    not a directory, in an existing directory where files can be written."""
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file")
    parent = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(parent):
        raise argparse.ArgumentTypeError(f"{text!r}: no directory {parent!r}")
    _check_writable_dir(parent, repr(text))
    if os.path.exists(text) and not os.access(text, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text!r} exists and is not writable")
    return text


def _model_file(text: str) -> str:
    """A saved model given on the command line: an existing zip (checked before any work)."""
    from poolgym.envs.sb3_models import check_model_path

    try:
        return check_model_path(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _output_dir(text: str) -> str:
    """An output DIR (``--out``), checked before any work is done: an existing directory,
    or one that can be created (its nearest existing parent is a writable directory)."""
    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is an existing file, not a directory")
    existing = os.path.abspath(text)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise argparse.ArgumentTypeError(f"{text!r}: {existing!r} is a file, not a directory")
    _check_writable_dir(existing, repr(text))
    return text


def _names(text: str) -> list[str]:
    """A comma-separated list of names (ids, modes, budgets)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
