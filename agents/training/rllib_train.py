"""Training with Ray RLlib: PPO on a poolgym environment with several env runners.

Runs on a local Ray instance or joins a cluster (``address``): start one with
``ray start --head`` on the head node and ``ray start --address HEAD:6379`` on each worker,
then pass ``--address HEAD:6379`` (or ``auto`` on a cluster node). Requires the
``distributed`` extra (``pip install "poolgym[distributed]"``).

In the ``choice_discrete`` action mode the env's action masks reach the policy: each env
runner's env gives ``{"observations": flat obs, "action_mask": masks}``
(``MaskedChoiceObservation``) and RLlib's action-masking RLModule sets the logits of masked
actions to the lowest float before sampling, so a masked slot or decision is never chosen;
the env refuses one (the masks are the contract) and counts the masked actions it is given
all the same (``masked_actions`` in the history), a check that the masking holds.

Fault tolerance: a failed env runner (its node gone) is restarted by RLlib and the
iteration goes on. The run directory gets a checkpoint every ``checkpoint_every``
iterations and at the end (``checkpoint-NNNNNN``, written under a temporary name and
renamed into place, with the history up to it), and ``summary.json`` after every iteration
(``poolgym.files``): a run stopped by Ctrl-C, or by the loss of the head node, leaves the
last complete checkpoint and a whole summary, and ``resume=True`` (``poolgym train
--backend rllib --resume-rllib``) goes on from that checkpoint. A checkpoint plays in
``poolgym eval`` as ``rllib:RUN_DIR`` (``load_rllib_agent``).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from poolgym.files import atomic_write_text, read_bounded
from poolgym.agents.training.train_config import REQUIRED, check_section, check_untrusted
from poolgym.yaml_files import load_yaml_file

RLLIB_ENV_NAME = "poolgym"
CHECKPOINT_PREFIX = "checkpoint-"
# The env record (``poolgym.envs.sb3_models.env_record``) in each checkpoint: how the agent
# reads states and writes actions when it plays outside the env.
ENV_RECORD_FILE = "poolgym_env.json"
HISTORY_FILE = "poolgym_history.json"
# Bounds on the small JSON files read back from a run directory.
_JSON_LIMIT = 16 * 1024 * 1024
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
    "gamma": ((float,), 0.99),
    "entropy_coeff": ((float,), 0.0),
    "hiddens": ((list,), [256, 256]),
    "checkpoint_every": ((int,), 10),
    "seed": ((int,), 0),
}
_ENV_SCHEMA = {"id": ((str,), REQUIRED), "kwargs": ((dict,), {})}
_POSITIVE = ("iterations", "train_batch_size", "minibatch_size", "num_epochs", "checkpoint_every")


def load_rllib_config(config: str | Path | dict, trusted: bool = False) -> dict:
    """An RLlib training config from a YAML file or a mapping, checked; errors name the key
    and the file. Keys: ``env`` (``id``, ``kwargs``), ``iterations``, ``num_env_runners``,
    ``train_batch_size``, ``minibatch_size``, ``num_epochs``, ``lr``, ``gamma``,
    ``entropy_coeff``, ``hiddens`` (the layer widths), ``checkpoint_every`` (iterations),
    ``seed``. Unless ``trusted``, ``env.id`` must be a registered id and an opponent in
    ``env.kwargs`` a built-in one (see ``poolgym.agents.training.train_config``)."""
    source = "<dict>"
    if not isinstance(config, dict):
        source = str(config)
        config = load_yaml_file(config, "the config")
    checked = check_section(config, _SCHEMA, "", source)
    checked["env"] = check_section(checked["env"], _ENV_SCHEMA, "env", source)
    if checked["backend"] != "rllib":
        raise ValueError(f"{source}: key 'backend' must be 'rllib' here, got {checked['backend']!r}")
    for key in _POSITIVE + ("num_env_runners",):
        if checked[key] < (0 if key == "num_env_runners" else 1):
            raise ValueError(f"{source}: key {key!r} must be positive, got {checked[key]}")
    if checked["minibatch_size"] > checked["train_batch_size"]:
        raise ValueError(f"{source}: key 'minibatch_size' must be at most train_batch_size "
                         f"({checked['train_batch_size']}), got {checked['minibatch_size']}")
    if not checked["hiddens"] or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0
                                         for n in checked["hiddens"]):
        raise ValueError(f"{source}: key 'hiddens' must be a list of positive layer widths, "
                         f"got {checked['hiddens']!r}")
    if checked["env"]["kwargs"].get("action_mode") == "choice_canonical":
        raise ValueError(f"{source}: key 'env.kwargs.action_mode': the RLlib backend masks choice_discrete's "
                         f"actions only; train 'choice_canonical' with MaskablePPO (poolgym train without "
                         f"--backend rllib)")
    if not trusted:
        opponent = checked["env"]["kwargs"].get("opponent")
        check_untrusted(checked["env"]["id"], {"env.kwargs.opponent": opponent if isinstance(opponent, str) else None},
                        source)
    return checked


class MaskedChoiceObservation(gymnasium.Wrapper):
    """A ``choice_discrete`` env for RLlib's action-masking RLModule: observations
    ``{"observations": the env's flat observation, "action_mask": its action_masks()}``
    (the masks of every dimension concatenated, as floats), and ``masked_actions``, the
    number of actions given so far that the masks forbade (in the slot or the decision);
    each step's ``info["masked_action"]`` says whether that one was."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        nvec = np.asarray(env.action_space.nvec)
        self._starts = np.concatenate([[0], np.cumsum(nvec)[:-1]])
        self.observation_space = gymnasium.spaces.Dict({
            "action_mask": gymnasium.spaces.Box(0.0, 1.0, (int(nvec.sum()),), np.float32),
            "observations": env.observation_space})
        self.masked_actions = 0
        self._mask = None

    def _observe(self, obs) -> dict:
        self._mask = np.asarray(self.env.unwrapped.action_masks(), dtype=bool)
        return {"action_mask": self._mask.astype(np.float32), "observations": obs}

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return self._observe(obs), info

    def step(self, action):
        given = np.asarray(action)
        # An action out of range is left to the env, whose error names the component.
        in_range = given.shape == self._starts.shape and bool(np.all((given >= 0) & (given < self.action_space.nvec)))
        masked = in_range and not bool(self._mask[self._starts + given.astype(np.int64)].all())
        self.masked_actions += masked
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._observe(obs), reward, terminated, truncated, {**info, "masked_action": masked}


def make_env(env_config: dict):
    """The env creator RLlib calls in every env runner (which may be another machine):
    imports poolgym there, so its ids are registered, and makes the env with flat
    observations (and the masks beside them in ``choice_discrete``)."""
    import poolgym  # noqa: F401  (registers the ids in this process)

    kwargs = dict(env_config.get("kwargs", {}))
    kwargs.setdefault("obs_mode", "flat")
    env = gymnasium.make(env_config["id"], **kwargs)
    return MaskedChoiceObservation(env) if kwargs.get("action_mode") == "choice_discrete" else env


def _count_masked_actions(*, episode, metrics_logger=None, **kwargs) -> None:
    """RLlib callback (``on_episode_step``): logs whether the env was given a masked action,
    summed into ``masked_actions`` in the iteration's ``env_runners`` results."""
    infos = episode.get_infos(-1)
    if metrics_logger is not None and isinstance(infos, dict) and "masked_action" in infos:
        metrics_logger.log_value("masked_actions", int(infos["masked_action"]), reduce="sum")


def build_ppo(env_id: str, env_kwargs: dict | None = None, num_env_runners: int = 2,
              train_batch_size: int = 512, minibatch_size: int = 128, num_epochs: int = 2,
              lr: float = 3e-4, seed: int = 0, gamma: float = 0.99, entropy_coeff: float = 0.0,
              hiddens: list[int] | None = None):
    """A PPO algorithm for ``env_id`` with ``num_env_runners`` remote env runners (each
    restarted if it fails); in ``choice_discrete``, with RLlib's action-masking RLModule."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env(RLLIB_ENV_NAME, make_env)
    env_kwargs = dict(env_kwargs or {})
    fragment = max(1, train_batch_size // max(1, num_env_runners))
    model_config = {"fcnet_hiddens": list(hiddens or [256, 256]), "fcnet_activation": "tanh"}
    config = (
        PPOConfig()
        .environment(RLLIB_ENV_NAME, env_config={"id": env_id, "kwargs": env_kwargs})
        .framework("torch")
        .env_runners(num_env_runners=num_env_runners, rollout_fragment_length=fragment,
                     num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size=train_batch_size, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr, gamma=gamma, entropy_coeff=entropy_coeff)
        .fault_tolerance(restart_failed_env_runners=True)
        .debugging(seed=seed)
    )
    if env_kwargs.get("action_mode") == "choice_discrete":
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

        config = (config.rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                                               model_config=model_config))
                  .callbacks(on_episode_step=_count_masked_actions))
    else:
        config = config.rl_module(model_config=model_config)
    return config.build_algo()


def checkpoints(out_dir: str | Path) -> list[Path]:
    """The complete checkpoints of the run in ``out_dir``, oldest first."""
    return sorted(Path(out_dir).glob(CHECKPOINT_PREFIX + "[0-9]" * 6))


def _save_checkpoint(algo, out: Path, history: list[dict], record: dict) -> Path:
    """The algorithm's state, the history so far and the env record as
    ``out/checkpoint-NNNNNN`` (the iteration count): written under a temporary name and
    renamed into place, then the older checkpoints removed."""
    final = out / f"{CHECKPOINT_PREFIX}{len(history):06d}"
    partial = out / f".{final.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    algo.save_to_path(str(partial.resolve()))
    atomic_write_text(partial / HISTORY_FILE, json.dumps(history, indent=1))
    atomic_write_text(partial / ENV_RECORD_FILE, json.dumps(record, indent=1))
    shutil.rmtree(final, ignore_errors=True)
    partial.rename(final)
    for older in checkpoints(out):
        if older != final:
            shutil.rmtree(older, ignore_errors=True)
    return final


def _read_json(path: Path, what: str):
    return json.loads(read_bounded(path, _JSON_LIMIT, what).decode())


def train_rllib(config: str | Path | dict[str, Any], out_dir: str | Path, address: str | None = None,
                num_cpus: int | None = None, trusted: bool = False, resume: bool = False,
                on_iteration=None) -> dict:
    """Train PPO with RLlib as ``config`` (see ``load_rllib_config``) says, in a Ray
    session (``poolgym.agents.evaluation.distributed.ray_session``; ``address`` joins a
    running cluster), checkpointing into ``out_dir`` (module docstring) and writing its
    ``summary.json``. ``resume``: go on from the last checkpoint in ``out_dir`` up to the
    config's ``iterations`` (a ``ValueError`` when there is none). ``trusted`` lets the
    config name import paths. ``on_iteration(algo, row)`` is called after each iteration.
    Returns the summary."""
    from poolgym.agents.evaluation.distributed import ray_session
    from poolgym.envs.sb3_models import env_record

    config = load_rllib_config(config, trusted=trusted)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for partial in out.glob(f".{CHECKPOINT_PREFIX}*.partial"):  # left by a run stopped mid-save
        shutil.rmtree(partial, ignore_errors=True)
    history: list[dict] = []
    start_from = None
    if resume:
        found = checkpoints(out)
        if not found:
            raise ValueError(f"{out}: no checkpoint to resume from (no {CHECKPOINT_PREFIX}NNNNNN folder)")
        start_from = found[-1]
        history = _read_json(start_from / HISTORY_FILE, "the run's history")
    env = make_env(config["env"])
    record = {**env_record(env, config["env"]["id"], config["env"]["kwargs"]), "algorithm": "RLlib PPO"}
    env.close()
    summary: dict[str, Any] = {}
    with ray_session(address, num_cpus):
        algo = build_ppo(config["env"]["id"], config["env"]["kwargs"], config["num_env_runners"],
                         config["train_batch_size"], config["minibatch_size"], config["num_epochs"],
                         config["lr"], config["seed"], config["gamma"], config["entropy_coeff"],
                         config["hiddens"])
        try:
            if start_from is not None:
                algo.restore_from_path(str(start_from.resolve()))
            # Seconds go on from the checkpoint's (the lifetime counts are in its restored
            # state): a resumed run's history is one curve.
            started, seconds_before = time.perf_counter(), history[-1]["seconds"] if history else 0.0
            checkpoint = start_from
            while len(history) < config["iterations"]:
                result = algo.train()
                runners = result.get("env_runners", {})
                row = {"iteration": len(history) + 1,
                       "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
                       "episodes": int(runners.get("num_episodes_lifetime", 0)),
                       "episode_return_mean": _finite(runners.get("episode_return_mean")),
                       "seconds": round(seconds_before + time.perf_counter() - started, 2)}
                if "masked_actions" in runners:
                    row["masked_actions"] = int(runners["masked_actions"])
                history.append(row)
                if len(history) % config["checkpoint_every"] == 0 or len(history) == config["iterations"]:
                    checkpoint = _save_checkpoint(algo, out, history, record)
                summary = _summary(config, history, checkpoint)
                atomic_write_text(out / "summary.json", json.dumps(summary, indent=1))
                if on_iteration is not None:
                    on_iteration(algo, row)
        finally:
            algo.stop()
    return summary or _summary(config, history, start_from)


def _summary(config: dict, history: list[dict], checkpoint: Path | None) -> dict:
    steps, seconds = (history[-1]["env_steps"], history[-1]["seconds"]) if history else (0, 0.0)
    return {"backend": "rllib", "env": config["env"]["id"], "env_kwargs": config["env"]["kwargs"],
            "iterations": len(history), "seconds": round(seconds, 1), "history": history,
            "env_steps_per_s": round(steps / seconds, 1) if seconds > 0 else 0.0,
            "checkpoint": str(checkpoint) if checkpoint is not None else None}


class RLlibPolicy:
    """A trained RLlib module as a policy ``policy(obs, info) -> action`` (its most likely
    action; in ``choice_discrete`` among those ``info["action_masks"]`` allow)."""

    def __init__(self, module, masked: bool) -> None:
        self.module, self.masked = module, masked

    def __call__(self, observation, info: dict):
        import torch
        from ray.rllib.core.columns import Columns

        obs = torch.as_tensor(np.asarray(observation, dtype=np.float32))[None]
        if self.masked:
            masks = np.asarray(info["action_masks"], dtype=np.float32)
            obs = {"observations": obs, "action_mask": torch.as_tensor(masks)[None]}
        with torch.no_grad():
            logits = self.module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
        dist = self.module.get_inference_action_dist_cls().from_logits(logits).to_deterministic()
        return np.asarray(dist.sample()[0].numpy())


def load_rllib_agent(path: str | Path, rules, action_mode: str | None = None, obs_mode: str | None = None):
    """A checkpoint of ``train_rllib`` (a ``checkpoint-NNNNNN`` folder, or a run directory:
    its last checkpoint) as an agent for ``rules``, playing with the mapping and the
    observation format recorded beside it; ``action_mode`` / ``obs_mode``, when given,
    must be the recorded ones."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from poolgym.agents.evaluation.loading import PolicyAgent

    path = Path(path)
    if not (path / ENV_RECORD_FILE).is_file():
        found = checkpoints(path) if path.is_dir() else []
        if not found:
            raise ValueError(f"{path}: not an RLlib checkpoint of poolgym train (no {ENV_RECORD_FILE}) "
                             f"nor a run directory holding one ({CHECKPOINT_PREFIX}NNNNNN)")
        path = found[-1]
    record = _read_json(path / ENV_RECORD_FILE, "the env record")
    for key, asked in (("action_mode", action_mode), ("obs_mode", obs_mode)):
        if asked is not None and asked != record[key]:
            raise ValueError(f"{path} was trained with {key} {record[key]!r}, not the {asked!r} asked for")
    module_dir = path / "learner_group" / "learner" / "rl_module" / "default_policy"
    module = RLModule.from_checkpoint(str(module_dir.resolve()))
    module.eval()
    agent = PolicyAgent.from_record(RLlibPolicy(module, masked=record["action_mode"] == "choice_discrete"),
                                    rules, record)
    agent.env_record = record
    return agent


def _finite(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if value == value and abs(value) != float("inf") else None
