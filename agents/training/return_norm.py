"""Return normalisation for training: rewards scaled by a running estimate of the return's
spread, with the statistics saved inside the model.

Why: the game envs' rack terms (+/-10, mostly decided by the opponent) swamp the per-shot
terms (about 1), so the critic's targets vary by an order of magnitude more than what the
agent's own shots change. ``VecNormalize(norm_obs=False, norm_reward=True)`` divides each
reward by the running standard deviation of the discounted return, which keeps the value
targets near unit scale whatever the env's reward scale (and across curriculum stages).

Observations stay unnormalised: the candidate features and positions are already in about
[-1, 1] (``poolgym.envs.observations``), so a saved model acts on the env's own
observations, and evaluation, ``poolgym eval``, env opponents and league snapshots need no
wrapper or statistics to play it. Reward scaling changes only the learning targets, not
what the policy sees.

The statistics (``RunningMeanStd`` of the return, the discount and clip) are written as a
JSON entry ``RETURN_NORM`` of the model's zip (no pickle), so a run can resume with them
(``poolgym.agents.training.train.train(..., resume=...)``).
"""

from __future__ import annotations

import json
import zipfile

import numpy as np

from poolgym.numbers import is_finite_number, quote

RETURN_NORM = "poolgym_return_norm.json"


def wrap(venv, gamma: float, stats: dict | None = None):
    """``venv`` in a ``VecNormalize`` that scales rewards only (module docstring), starting
    from ``stats`` (``read``) when given."""
    from stable_baselines3.common.vec_env import VecNormalize

    normalized = VecNormalize(venv, norm_obs=False, norm_reward=True, gamma=gamma)
    if stats is not None:
        if stats["gamma"] != gamma:
            raise ValueError(f"return statistics were gathered with gamma {stats['gamma']}, "
                             f"not the {gamma} asked for")
        normalized.clip_reward = stats["clip_reward"]
        normalized.epsilon = stats["epsilon"]
        normalized.ret_rms.mean = np.float64(stats["mean"])
        normalized.ret_rms.var = np.float64(stats["var"])
        normalized.ret_rms.count = float(stats["count"])
    return normalized


def statistics(normalized) -> dict:
    """The return statistics of a ``VecNormalize`` as plain data."""
    rms = normalized.ret_rms
    return {"gamma": float(normalized.gamma), "clip_reward": float(normalized.clip_reward),
            "epsilon": float(normalized.epsilon), "mean": float(np.asarray(rms.mean)),
            "var": float(np.asarray(rms.var)), "count": float(rms.count)}


def write(path, normalized) -> None:
    """Add the statistics of ``normalized`` to the saved model's zip at ``path`` (a path or a
    seekable binary file: ``train.save_with_env`` builds the zip in memory, then writes it
    atomically)."""
    with zipfile.ZipFile(path, "a") as archive:
        if RETURN_NORM in archive.namelist():
            raise ValueError(f"{path} already holds {RETURN_NORM}")
        archive.writestr(RETURN_NORM, json.dumps(statistics(normalized), indent=1))


def read(path: str) -> dict | None:
    """The return statistics saved in the model at ``path``, or None when it has none; read
    within the bounds of a model record (``poolgym.envs.sb3_models.read_zip_json``)."""
    from poolgym.envs.sb3_models import MAX_RECORD_BYTES, read_zip_json

    stats = read_zip_json(path, RETURN_NORM, MAX_RECORD_BYTES)
    if stats is None:
        return None
    if not isinstance(stats, dict) or sorted(stats) != sorted(_STATISTICS):
        raise ValueError(f"{path}: {RETURN_NORM} must be an object of the numbers {list(_STATISTICS)}, "
                         f"got {quote(stats)}")
    # A model's statistics scale every reward of the run that resumes from it: one that is
    # not finite (JSON's reader takes NaN) would make every reward NaN.
    for key, (low, high) in _STATISTICS.items():
        value = stats[key]
        if not is_finite_number(value) or not low <= value <= high:
            raise ValueError(f"{path}: {RETURN_NORM}: key {key!r} must be a finite number in [{low:g}, {high:g}], "
                             f"got {quote(value)}")
    return stats


# The statistics ``statistics`` writes and the range each may take.
_STATISTICS = {"gamma": (0.0, 1.0), "clip_reward": (0.0, 1e12), "epsilon": (0.0, 1.0), "mean": (-1e12, 1e12),
               "var": (0.0, 1e24), "count": (0.0, 1e15)}


def find(venv):
    """The ``VecNormalize`` in a chain of vec env wrappers, or None."""
    from stable_baselines3.common.vec_env import VecEnvWrapper, VecNormalize

    while isinstance(venv, VecEnvWrapper):
        if isinstance(venv, VecNormalize):
            return venv
        venv = venv.venv
    return None
