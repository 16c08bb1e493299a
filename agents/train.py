"""Training a stable-baselines3 agent from a config (``agents.train_config``).

``train(config)`` builds the vectorized environment, trains with tensorboard logs, periodic
evaluations and checkpoints, saves the final model and writes ``summary.json`` in the run
directory::

    runs/<name>/
      model.zip            the final model, with the env it was trained on inside
                           (``poolgym_env.json``, ``poolgym.envs.sb3_models``)
      best_model.zip       the model of the best periodic evaluation (when there are any),
                           with the same record
      checkpoints/         every ``checkpoint_every`` steps
      monitor/             per-episode training rewards (SB3 Monitor CSVs)
      tb/                  tensorboard logs (``tensorboard --logdir runs``)
      summary.json         config, steps, time, evaluation history, final scores
"""

from __future__ import annotations

import dataclasses
import functools
import json
import time
from pathlib import Path
from typing import Any, Callable

import gymnasium as gym

import poolgym  # noqa: F401  (registers the environments, also in SubprocVecEnv workers)
from agents.evaluate import REFERENCE_AGENTS
from agents.policy_eval import evaluate, resolve_opponent
from agents.train_config import TrainConfig, load_config
from poolgym.envs.sb3_models import env_record, load_model as load_sb3_model, write_env_record

# Evaluation racks are seeded apart from the training envs' seeds.
EVAL_SEED_OFFSET = 1_000_000


def make_env(env_id: str, **kwargs) -> gym.Env:
    """``gymnasium.make`` at module level, so SubprocVecEnv workers can unpickle it."""
    return gym.make(env_id, **kwargs)


def _env_kwargs(cfg: TrainConfig, opponent: str | None = None) -> dict:
    kwargs = cfg.make_kwargs()
    spec = opponent if opponent is not None else kwargs.get("opponent")
    if spec is not None:
        kwargs["opponent"] = resolve_opponent(spec)
    return kwargs


def save_with_env(model, path: Path, record: dict) -> None:
    """Save ``model`` at ``path`` with the record of the env it was trained on."""
    model.save(path)
    write_env_record(str(path), record)


def training_env_record(cfg: TrainConfig) -> dict:
    """The record of the env ``cfg`` trains on: its id, every keyword argument of its spec
    (the registered ones and the config's) and the mapping the env resolved."""
    env = gym.make(cfg.env_id, **_env_kwargs(cfg))
    try:
        kwargs = dict(env.spec.kwargs) if env.spec is not None else cfg.make_kwargs()
        kwargs.update(cfg.make_kwargs())  # the config's names (an opponent spec, not its object)
        return env_record(env, cfg.env_id, kwargs)
    finally:
        env.close()


def _matchups(cfg: TrainConfig) -> list[str | None]:
    """The opponents evaluations play against; None is the env as configured."""
    return list(cfg.eval.opponents) or [None]


def _periodic_eval_callback(cfg: TrainConfig, out: Path, start: float, record: dict):
    """An SB3 callback that evaluates every ``cfg.eval.every_steps`` steps, logs to
    tensorboard and keeps the best model; its ``history`` is the list of results."""
    from stable_baselines3.common.callbacks import BaseCallback

    from poolgym.envs.opponents import SB3Policy

    class PeriodicEval(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.history: list[dict] = []
            self.next_at = cfg.eval.every_steps
            self.best = None

        def _on_step(self) -> bool:
            if self.num_timesteps < self.next_at:
                return True
            self.next_at += cfg.eval.every_steps
            policy = SB3Policy(self.model, deterministic=cfg.eval.deterministic)
            for opponent in _matchups(cfg):
                score = evaluate(policy, cfg.env_id, _env_kwargs(cfg, opponent), cfg.eval.episodes,
                                 seed=cfg.seed + EVAL_SEED_OFFSET)
                tag = f"eval/{opponent}" if opponent else "eval"
                self.logger.record(f"{tag}/mean_reward", score.mean_reward)
                self.logger.record(f"{tag}/{score.success_name.replace(' ', '_')}", score.success_rate)
                self.history.append({"timesteps": self.num_timesteps,
                                     "time_s": round(time.perf_counter() - start, 2),
                                     "opponent": opponent or cfg.opponent, **score.to_dict()})
            first = next(h for h in reversed(self.history) if h["timesteps"] == self.num_timesteps)
            key = (first["success_rate"], first["mean_reward"])
            if self.best is None or key > self.best:
                self.best = key
                save_with_env(self.model, out / "best_model.zip", record)
            return True

    return PeriodicEval()


def final_evaluation(model_or_policy: Any, cfg: TrainConfig, episodes: int | None = None,
                     untrained: Any = None, progress: Callable[[], None] | None = None) -> list[dict]:
    """The trained policy, the reference agents and the baseline agent on the same seeded
    episodes, against each evaluation opponent: ``[{"opponent", "trained": Score dict,
    "references": {name: Score dict}, "baseline_name", "baseline": Score dict}]``. The
    references are ``REFERENCE_AGENTS`` (the ladder's random and fixed agents) and, with
    ``untrained`` (the policy before learning), ``"untrained"``, also under its own key: a
    deterministic fresh network already plays a fixed middling shot, so beating random
    alone does not show that anything was learned. ``progress()`` is called after each of
    the ``final_evaluation_count`` evaluations."""
    from poolgym.envs.opponents import SB3Policy

    def scored(agent, kwargs):
        score = evaluate(agent, cfg.env_id, kwargs, n, seed=seed).to_dict()
        if progress is not None:
            progress()
        return score

    policy = model_or_policy if callable(model_or_policy) else SB3Policy(
        model_or_policy, deterministic=cfg.eval.deterministic)
    n = episodes or cfg.eval.final_episodes
    seed = cfg.seed + EVAL_SEED_OFFSET
    rows = []
    for opponent in _matchups(cfg):
        kwargs = _env_kwargs(cfg, opponent)
        references = {name: scored(name, kwargs) for name in REFERENCE_AGENTS}
        row = {"opponent": opponent or cfg.opponent,
               "trained": scored(policy, kwargs),
               "references": references, "baseline_name": cfg.eval.baseline,
               "baseline": references.get(cfg.eval.baseline) or
               scored(cfg.eval.baseline, kwargs)}
        if untrained is not None:
            row["untrained"] = references["untrained"] = scored(untrained, kwargs)
        rows.append(row)
    return rows


def final_evaluation_count(cfg: TrainConfig, untrained: bool = True) -> int:
    """How many evaluations ``final_evaluation`` plays (with or without ``untrained``)."""
    per_opponent = len(REFERENCE_AGENTS) + 1 + (cfg.eval.baseline not in REFERENCE_AGENTS) + bool(untrained)
    return len(_matchups(cfg)) * per_opponent


def train(config: str | Path | dict | TrainConfig, *, out: str | Path | None = None,
          steps: int | None = None, seed: int | None = None, device: str = "cpu",
          progress_bar: bool = False, verbose: int = 0, torch_threads: int = 1,
          final_progress: Callable[[], None] | None = None) -> dict:
    """Train the agent a config describes and return the run's summary (also written to
    ``<out>/summary.json``). ``steps`` and ``seed`` override the config's; ``out`` defaults
    to ``runs/<config file name>``. ``torch_threads`` caps torch's CPU threads: small MLP
    updates gain nothing from more, and on a shared machine busy-waiting threads made
    training ten times slower. ``final_progress`` goes to ``final_evaluation``."""
    import stable_baselines3
    import torch

    from poolgym.envs.opponents import SB3Policy
    from stable_baselines3.common.callbacks import CheckpointCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    cfg = load_config(config)
    torch.set_num_threads(torch_threads)
    if steps is not None:
        cfg = dataclasses.replace(cfg, total_steps=int(steps))
    if seed is not None:
        cfg = dataclasses.replace(cfg, seed=int(seed))
    name = Path(cfg.source).stem if cfg.source != "<dict>" else "train"
    out = Path(out) if out is not None else Path("runs") / name
    out.mkdir(parents=True, exist_ok=True)

    record = training_env_record(cfg)
    vec_env = make_vec_env(functools.partial(make_env, cfg.env_id), n_envs=cfg.n_envs, seed=cfg.seed,
                           env_kwargs=_env_kwargs(cfg), monitor_dir=str(out / "monitor"),
                           vec_env_cls=SubprocVecEnv if cfg.n_envs > 1 else DummyVecEnv)
    try:
        algorithm = getattr(stable_baselines3, cfg.algorithm)
        model = algorithm(cfg.policy, vec_env, seed=cfg.seed, device=device, verbose=verbose,
                          tensorboard_log=str(out / "tb"), **cfg.hyperparameters)
        # A frozen copy of the starting weights, scored at the end beside the trained ones.
        untrained = algorithm(cfg.policy, vec_env, seed=cfg.seed, device=device, **cfg.hyperparameters)
        untrained.policy.load_state_dict(model.policy.state_dict())
        start = time.perf_counter()
        callbacks = []
        evaluator = None
        if cfg.eval.every_steps > 0:
            evaluator = _periodic_eval_callback(cfg, out, start, record)
            callbacks.append(evaluator)
        if cfg.checkpoint_every > 0:
            callbacks.append(CheckpointCallback(max(1, cfg.checkpoint_every // cfg.n_envs),
                                                str(out / "checkpoints"), name_prefix=cfg.algorithm.lower()))
        model.learn(total_timesteps=cfg.total_steps, callback=callbacks, progress_bar=progress_bar,
                    tb_log_name=cfg.algorithm)
        train_time = time.perf_counter() - start
        save_with_env(model, out / "model.zip", record)
        final = final_evaluation(model, cfg, untrained=SB3Policy(untrained, deterministic=cfg.eval.deterministic),
                                 progress=final_progress)
    finally:
        vec_env.close()

    summary = {
        "config": cfg.to_dict(),
        "config_source": cfg.source,
        "device": str(model.device),
        "steps": int(model.num_timesteps),
        "train_time_s": round(train_time, 2),
        "steps_per_s": round(model.num_timesteps / max(train_time, 1e-9), 1),
        "eval_history": evaluator.history if evaluator is not None else [],
        "final": final,
        "model": str(out / "model.zip"),
        "monitor_dir": str(out / "monitor"),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def load_model(path: str | Path, algorithm: str, device: str = "cpu"):
    """A saved model of ``algorithm`` ("PPO", "SAC" or "TD3"), loaded the one way models
    are (``poolgym.envs.sb3_models.load_model``)."""
    return load_sb3_model(str(path), algorithm, device=device)


def format_final(summary: dict) -> str:
    """The final evaluation as a small table: the trained agent beside the untrained
    network, the reference agents and the baseline, with 95% intervals."""
    lines = []
    for row in summary["final"]:
        t, b = row["trained"], row["baseline"]
        vs = f" vs opponent {row['opponent']}" if row["opponent"] else ""
        lines.append(f"{summary['config']['env']['id']}{vs}, {t['episodes']} episodes each "
                     f"(same seeds), 95% intervals:")
        lines.append(f"  {'agent':<14}{t['success_name']:<28}{'mean reward':<26}legal pots/episode")
        references = [(name, s) for name, s in row.get("references", {}).items() if name != "untrained"]
        agents = [("trained", t), ("untrained", row.get("untrained"))] + references
        if row["baseline_name"] not in dict(references):
            agents.append((row["baseline_name"], b))
        for label, s in [(label, s) for label, s in agents if s is not None]:
            rate = f"{s['success_rate']:.3f} [{s['success_ci'][0]:.3f}, {s['success_ci'][1]:.3f}]"
            reward = f"{s['mean_reward']:+.3f} [{s['reward_ci'][0]:+.3f}, {s['reward_ci'][1]:+.3f}]"
            lines.append(f"  {label:<14}{rate:<28}{reward:<26}{s['mean_pots']:.2f}")
    return "\n".join(lines)
