"""Training with Ray RLlib: PPO on a poolgym environment with several env runners.

Runs on a local Ray instance or joins a cluster (``address``): start one with
``ray start --head`` on the head node and ``ray start --address HEAD:6379`` on each worker,
then pass ``--address HEAD:6379`` (or ``auto`` on a cluster node). Requires the
``distributed`` extra (``pip install "poolgym[distributed]"``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from poolgym.agents.training.train_config import REQUIRED, check_section, check_untrusted
from poolgym.files import atomic_write_text
from poolgym.yaml_files import load_yaml_file

RLLIB_ENV_NAME = "poolgym"
# key -> (accepted types, default or REQUIRED), as in poolgym.agents.training.train_config.
_SCHEMA = {
    "description": ((str,), ""),
    "backend": ((str,), "rllib"),
    "env": ((dict,), REQUIRED),
    "iterations": ((int,), 1),
    "num_env_runners": ((int,), 2),
    "train_batch_size": ((int,), 512),
    "minibatch_size": ((int,), 128),
    "num_epochs": ((int,), 2),
    "lr": ((float,), 3e-4),
    "seed": ((int,), 0),
}
_ENV_SCHEMA = {"id": ((str,), REQUIRED), "kwargs": ((dict,), {})}


def load_rllib_config(config: str | Path | dict, trusted: bool = False) -> dict:
    """An RLlib training config from a YAML file or a mapping, checked; errors name the key
    and the file. Keys: ``env`` (``id``, ``kwargs``), ``iterations``, ``num_env_runners``,
    ``train_batch_size``, ``minibatch_size``, ``num_epochs``, ``lr``, ``seed``. Unless
    ``trusted``, ``env.id`` must be a registered id (see ``poolgym.agents.training.train_config``)."""
    source = "<dict>"
    if not isinstance(config, dict):
        source = str(config)
        config = load_yaml_file(config, "the config")
    checked = check_section(config, _SCHEMA, "", source)
    checked["env"] = check_section(checked["env"], _ENV_SCHEMA, "env", source)
    if checked["backend"] != "rllib":
        raise ValueError(f"{source}: key 'backend' must be 'rllib' here, got {checked['backend']!r}")
    for key in ("iterations", "num_env_runners", "train_batch_size", "minibatch_size", "num_epochs"):
        if checked[key] < (0 if key == "num_env_runners" else 1):
            raise ValueError(f"{source}: key {key!r} must be positive, got {checked[key]}")
    if not trusted:
        check_untrusted(checked["env"]["id"], {}, source)
    return checked


def make_env(env_config: dict):
    """The env creator RLlib calls in every env runner (which may be another machine):
    imports poolgym there, so its ids are registered, and makes the env with flat
    observations."""
    import gymnasium

    import poolgym  # noqa: F401  (registers the ids in this process)

    kwargs = dict(env_config.get("kwargs", {}))
    kwargs.setdefault("obs_mode", "flat")
    return gymnasium.make(env_config["id"], **kwargs)


def build_ppo(env_id: str, env_kwargs: dict | None = None, num_env_runners: int = 2,
              train_batch_size: int = 512, minibatch_size: int = 128, num_epochs: int = 2,
              lr: float = 3e-4, seed: int = 0):
    """A PPO algorithm for ``env_id`` with ``num_env_runners`` remote env runners."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    register_env(RLLIB_ENV_NAME, make_env)
    fragment = max(1, train_batch_size // max(1, num_env_runners))
    config = (
        PPOConfig()
        .environment(RLLIB_ENV_NAME, env_config={"id": env_id, "kwargs": dict(env_kwargs or {})})
        .framework("torch")
        .env_runners(num_env_runners=num_env_runners, rollout_fragment_length=fragment,
                     num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size=train_batch_size, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr)
        .debugging(seed=seed)
    )
    return config.build_algo()


def train_rllib(config: str | Path | dict[str, Any], out_dir: str | Path, address: str | None = None,
                num_cpus: int | None = None, trusted: bool = False) -> dict:
    """Train PPO with RLlib as ``config`` (see ``load_rllib_config``) says and write a JSON
    summary to ``out_dir``; ``address`` joins a running Ray cluster; ``trusted`` lets the
    config name import paths."""
    import ray

    config = load_rllib_config(config, trusted=trusted)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        algo = build_ppo(config["env"]["id"], config["env"]["kwargs"], config["num_env_runners"],
                         config["train_batch_size"], config["minibatch_size"], config["num_epochs"],
                         config["lr"], config["seed"])
        history = []
        start = time.perf_counter()
        for i in range(config["iterations"]):
            result = algo.train()
            runners = result.get("env_runners", {})
            history.append({"iteration": i + 1,
                            "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
                            "episode_return_mean": _finite(runners.get("episode_return_mean")),
                            "episodes": int(runners.get("num_episodes_lifetime", 0))})
        elapsed = time.perf_counter() - start
        checkpoint = algo.save_to_path(str((out / "checkpoint").resolve()))
        algo.stop()
    finally:
        if started_here:
            ray.shutdown()
    summary = {"backend": "rllib", "env": config["env"]["id"], "iterations": len(history),
               "seconds": round(elapsed, 1), "history": history,
               "env_steps_per_s": round(history[-1]["env_steps"] / elapsed, 1) if history else 0.0,
               "checkpoint": str(checkpoint)}
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=1))
    return summary


def _finite(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if value == value and abs(value) != float("inf") else None
