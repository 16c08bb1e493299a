"""Training a stable-baselines3 agent from a config (``poolgym.agents.training.train_config``).

``train(config)`` builds the vectorized environment, trains with tensorboard logs, periodic
evaluations and checkpoints, saves the final model and writes ``summary.json`` in the run
directory::

    runs/<name>/
      model.zip            the final model, with the env it was trained on inside
                           (``poolgym_env.json``, ``poolgym.envs.sb3_models``)
      best_model.zip       the model of the best periodic evaluation (when there are any),
                           with the same record
      checkpoints/         every ``checkpoint_every`` steps
      monitor/             per-episode training rewards (SB3 Monitor CSVs; a curriculum's
                           stages in monitor/stage<k>/)
      tb/                  tensorboard logs (``tensorboard --logdir runs``)
      curve.json, .png     with a ``curve`` section: racks won over training
                           (``poolgym.agents.training.train_curves``)
      league/              with ``self_play``: the snapshots the league draws from
                           (``poolgym.agents.training.self_play``)
      summary.json         config, steps, time, evaluation history, final scores, and
                           ``segments``: the steps and time of each run into the folder
      .lock                the pid of the run using the folder (while it runs)

Every file is written to a temporary file and renamed into place (``poolgym.files``), so a
full disk or a Ctrl-C never leaves a truncated model or checkpoint under a valid name. The
folder is guarded (``poolgym.agents.training.run_folder``): one run at a time, a folder
that holds a run is refused unless the run is continued (``resume=<out>/model.zip``,
appending) or ``replace=True``. Ctrl-C saves ``model.zip`` and ``summary.json`` of what was
trained (``"interrupted": true``, no final evaluation) and raises ``TrainingInterrupted``.

With ``normalize_reward`` the rewards are scaled by the running spread of the return
(``poolgym.agents.training.return_norm``), whose statistics are saved inside every model zip written here;
``train(..., resume=model.zip)`` goes on from a saved model with them. A curriculum
(``stages``) trains one network on each stage's env in turn (``poolgym.agents.training.curriculum``).

``MaskablePPO`` (sb3-contrib, ``action_mode: choice_discrete``) reads each env's
``action_masks()`` through the vec env (sb3-contrib's ``get_action_masks``, which calls the
method through the Monitor and adapter wrappers, so no ``ActionMasker`` is needed); its
evaluations pass the same masks (``SB3Policy`` with ``info["action_masks"]``).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import io
import os
import signal
import time
from pathlib import Path
from typing import Any, Callable

import gymnasium as gym

import poolgym  # noqa: F401  (registers the environments, also in SubprocVecEnv workers)
from poolgym.agents.training import return_norm, run_folder
from poolgym.agents.evaluation.evaluate import REFERENCE_AGENTS
from poolgym.agents.evaluation import EVAL_TABLES
from poolgym.agents.evaluation.policy_eval import evaluate, resolve_opponent
from poolgym.agents.training.train_config import Stage, TrainConfig, check_seed, load_config
from poolgym.envs.sb3_models import algorithm_class, env_record, load_model as load_sb3_model, write_env_record
from poolgym.files import atomic_write_bytes, atomic_write_text, json_text

# Evaluation racks are seeded apart from the training envs' seeds.
EVAL_SEED_OFFSET = 1_000_000


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped ``train``; ``summary`` is what was saved (``model.zip`` and
    ``summary.json`` of the steps trained, ``"interrupted": true``)."""

    def __init__(self, summary: dict) -> None:
        super().__init__(f"interrupted after {summary['steps']} steps")
        self.summary = summary


def make_env(env_id: str | gym.envs.registration.EnvSpec, observe=None, league: dict | None = None,
             **kwargs) -> gym.Env:
    """``gymnasium.make`` at module level, so SubprocVecEnv workers can unpickle it; with
    ``observe`` (an observation space) adapted to it (``poolgym.agents.training.curriculum.adapt``), with
    ``league`` (``LeagueOpponents`` arguments) playing a self-play league. ``env_id`` may be
    the id's spec, which makes the env in a worker where the id is not registered."""
    env = gym.make(env_id, **kwargs)
    if observe is not None:
        from poolgym.agents.training.curriculum import adapt

        env = adapt(env, observe, env_id if isinstance(env_id, str) else env_id.id)
    if league is not None:
        from poolgym.agents.training.self_play import LeagueOpponents

        env = LeagueOpponents(env, **league)
    return env


def make_worker_env(spec: gym.envs.registration.EnvSpec, observe=None, league: dict | None = None,
                    **kwargs) -> gym.Env:
    """``make_env`` in a SubprocVecEnv worker: from the id's spec (a variant registered at
    run time in the parent is not registered in a fresh worker), ignoring SIGINT, so that
    Ctrl-C reaches only the parent, which saves the model and closes the workers (a worker
    that took it would end and leave the parent a broken pipe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return make_env(spec, observe, league, **kwargs)


def _env_kwargs(cfg: TrainConfig | Stage, opponent: str | None = None) -> dict:
    kwargs = cfg.make_kwargs()
    spec = opponent if opponent is not None else kwargs.get("opponent")
    if spec is not None:
        kwargs["opponent"] = resolve_opponent(spec)
    return kwargs


def save_with_env(model, path: Path, record: dict) -> None:
    """Save ``model`` at ``path`` with the record of the env it was trained on and, when
    its env normalises returns, their statistics (``poolgym.agents.training.return_norm``).
    The zip is built in memory and written atomically: a failed write leaves the previous
    file at ``path`` intact, never a truncated zip."""
    path = str(path) if str(path).endswith(".zip") else f"{path}.zip"
    atomic_write_bytes(path, model_zip(model, record))


def model_zip(model, record: dict) -> bytes:
    """The zip ``save_with_env`` writes, built in memory."""
    buffer = io.BytesIO()
    model.save(buffer)
    write_env_record(buffer, record)
    normalized = return_norm.find(model.get_env())
    if normalized is not None:
        return_norm.write(buffer, normalized)
    return buffer.getvalue()


def _write_run(out: Path, model: bytes, summary: dict) -> None:
    """``model.zip`` and the ``summary.json`` that describes it, written together: the
    summary is serialised first, so nothing that can fail comes between the two renames,
    and a run that fails before them leaves the previous pair as it was."""
    text = json_text(out / "summary.json", summary)
    atomic_write_bytes(out / "model.zip", model)
    atomic_write_text(out / "summary.json", text)


def training_env_record(cfg: TrainConfig) -> dict:
    """The record of the env ``cfg`` trains on: its id, every keyword argument of its spec
    (the registered ones and the config's) and the mapping the env resolved."""
    env = gym.make(cfg.env_id, **_env_kwargs(cfg))
    try:
        kwargs = dict(env.spec.kwargs) if env.spec is not None else cfg.make_kwargs()
        kwargs.update(cfg.make_kwargs())  # the config's names (an opponent spec, not its object)
        return {**env_record(env, cfg.env_id, kwargs), "algorithm": cfg.algorithm}
    finally:
        env.close()


def _matchups(cfg: TrainConfig) -> list[str | None]:
    """The opponents evaluations play against; None is the env as configured."""
    return list(cfg.eval.opponents) or [None]


def _next_multiple(count: int, every: int) -> int:
    """Where periodic work next falls: the first multiple of ``every`` past ``count`` (a
    resumed model, or a later curriculum stage, starts far past ``every``)."""
    return (count // every + 1) * every


def _best_key(history: list[dict]) -> tuple | None:
    """The best (success rate, mean reward) of the evaluations in ``history``: at each step
    count, its first matchup's (the one ``best_model.zip`` is chosen by)."""
    firsts: dict[int, dict] = {}
    for row in history:
        firsts.setdefault(row["timesteps"], row)
    return max(((r["success_rate"], r["mean_reward"]) for r in firsts.values()), default=None)


def _periodic_eval_callback(cfg: TrainConfig, out: Path, start: float, record: dict,
                            history: list[dict] | None = None):
    """An SB3 callback that evaluates every ``cfg.eval.every_steps`` steps (and at step 0, the
    untrained network, when a run starts from scratch), logs to
    tensorboard and keeps the best model; its ``history`` is the list of results, starting
    with ``history`` (a continued run's), whose best score ``best_model.zip`` must beat."""
    from stable_baselines3.common.callbacks import BaseCallback

    from poolgym.envs.opponents import SB3Policy

    class PeriodicEval(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.history: list[dict] = list(history or [])
            self.next_at = cfg.eval.every_steps
            self.best = _best_key(self.history)

        def _on_training_start(self) -> None:
            self.next_at = _next_multiple(self.num_timesteps, cfg.eval.every_steps)
            if self.num_timesteps == 0 and not self.history:
                self._evaluate()  # the untrained network: where the learning curve starts

        def _on_step(self) -> bool:
            if self.num_timesteps < self.next_at:
                return True
            self.next_at += cfg.eval.every_steps
            self._evaluate()
            return True

        def _evaluate(self) -> None:
            policy = SB3Policy(self.model, deterministic=cfg.eval.deterministic)
            for opponent in _matchups(cfg):
                score = evaluate(policy, cfg.env_id, _env_kwargs(cfg, opponent), cfg.eval.episodes,
                                 seed=cfg.seed + EVAL_SEED_OFFSET, num_envs=EVAL_TABLES)
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
        score = evaluate(agent, cfg.env_id, kwargs, n, seed=seed, num_envs=EVAL_TABLES).to_dict()
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


def with_budget(cfg: TrainConfig, steps: int) -> TrainConfig:
    """``cfg`` with ``steps`` steps in all; a curriculum's stages keep their shares (each at
    least one step, the last taking what rounding leaves)."""
    steps = int(steps)
    if not cfg.stages:
        return dataclasses.replace(cfg, total_steps=steps)
    if steps < len(cfg.stages):
        raise ValueError(f"a curriculum of {len(cfg.stages)} stages needs at least {len(cfg.stages)} steps, "
                         f"got {steps}")
    shares = [max(1, round(steps * s.steps / cfg.total_steps)) for s in cfg.stages[:-1]]
    last = steps - sum(shares)
    if last < 1:
        raise ValueError(f"{steps} steps leave nothing for the last stage of {cfg.source}")
    stages = tuple(dataclasses.replace(s, steps=n) for s, n in zip(cfg.stages, shares + [last]))
    return dataclasses.replace(cfg, total_steps=steps, stages=stages)


def with_eval_budget(cfg: TrainConfig, racks: int | None = None, evaluate: bool = True) -> TrainConfig:
    """``cfg`` with its evaluation budgets replaced: ``racks`` episodes (racks in the game
    envs) for every evaluation (periodic, final, the curve's points and its final
    measurement), and with ``evaluate=False`` none at all (no periodic or final evaluation,
    no curve): a smoke run that only trains. ``--steps`` scales training alone, so a short
    run keeps the full evaluations unless these say otherwise."""
    if not evaluate:
        return dataclasses.replace(cfg, eval=dataclasses.replace(cfg.eval, every_steps=0, final_episodes=0),
                                   curve=None)
    if racks is None:
        return cfg
    racks = int(racks)
    if racks < 1:
        raise ValueError(f"the evaluation budget must be at least 1 rack, got {racks}")
    curve = cfg.curve and dataclasses.replace(cfg.curve, racks=racks, final_racks=racks)
    return dataclasses.replace(cfg, eval=dataclasses.replace(cfg.eval, episodes=racks, final_episodes=racks),
                               curve=curve)


def _vec_env(cfg: TrainConfig, stage: Stage, k: int, out: Path, observe, resumed: dict | None,
             append: bool = False):
    """The vectorized env of one stage: ``stage``'s env (adapted to observe ``observe``), in
    a self-play league when configured, with return normalisation when configured
    (starting from ``resumed`` statistics); with ``append`` its monitor CSVs go on from the
    ones in ``out`` (a continued run)."""
    league = None
    if cfg.self_play is not None:
        sp = cfg.self_play
        league = {"ladder": sp.ladder, "league_size": sp.league_size, "ladder_share": sp.ladder_share}
    monitor = out / "monitor" / (f"stage{k}" if len(cfg.stage_list()) > 1 else "")
    if cfg.vec_env in ("batched", "batched_split"):
        vec_env = _batched_vec_env(cfg, stage, k, monitor, append)
    else:
        vec_env = _wrapped_vec_env(cfg, stage, k, monitor, observe, league, append)
    if cfg.normalize_reward:
        vec_env = return_norm.wrap(vec_env, float(cfg.hyperparameters.get("gamma", 0.99)), resumed)
    return vec_env


def _batched_vec_env(cfg: TrainConfig, stage: Stage, k: int, monitor: Path, append: bool):
    """``vec_env: batched``: the stage's id natively batched (``gym.make_vec``), in the
    training process; ``batched_split``: its tables in two shards, one here and one in a
    worker process, stepping at the same time (``num_workers=2``). Its tables are monitored
    as ``make_vec_env`` monitors envs: the same steps, seeds and files as ``vec_env: dummy``.
    The config has no curriculum or league (``parse_config``)."""
    from poolgym.envs.sb3_vec_env import make_sb3_vec_env

    workers = 2 if cfg.vec_env == "batched_split" else 1
    # From the spec, as a worker started afresh (not forked) must make it.
    return make_sb3_vec_env(gym.spec(stage.env_id), cfg.n_envs, seed=cfg.seed + 10_000 * k, monitor_dir=str(monitor),
                            override_existing=not append, num_workers=workers, **_env_kwargs(stage))


def _wrapped_vec_env(cfg: TrainConfig, stage: Stage, k: int, monitor: Path, observe, league: dict | None,
                     append: bool):
    """SB3's vectorization of one env per id (``vec_env``: subproc, split or dummy), each
    env monitored."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if cfg.n_envs > 1 and cfg.vec_env == "subproc":
        make, vec_env_cls = functools.partial(make_worker_env, gym.spec(stage.env_id), observe, league), SubprocVecEnv
    elif cfg.n_envs > 1 and cfg.vec_env == "split":
        from poolgym.agents.training.split_vec_env import SplitVecEnv

        # From the spec, as a worker started afresh (not forked) must make it.
        make, vec_env_cls = functools.partial(make_env, gym.spec(stage.env_id), observe, league), SplitVecEnv
    else:
        make, vec_env_cls = functools.partial(make_env, stage.env_id, observe, league), DummyVecEnv
    return make_vec_env(make, n_envs=cfg.n_envs, seed=cfg.seed + 10_000 * k, env_kwargs=_env_kwargs(stage),
                        monitor_dir=str(monitor), monitor_kwargs={"override_existing": not append},
                        vec_env_cls=vec_env_cls)


def _fused_updates(policy) -> None:
    """The policy optimizer's fused step on the CPU, unless the config chose ``foreach`` or
    ``fused``: torch's CPU default loops over the network's tensors op by op, while the fused
    kernel updates each tensor in one pass (Adam over the MaskablePPO recipe's network: 0.18
    ms a step against 0.75-0.81 for the loop and 0.66-0.70 for the multi-tensor step, the
    same values to float rounding). Left as it is for parameters off the CPU (torch picks its
    own multi-tensor step there) and for an optimizer without a fused form."""
    optimizer = getattr(policy, "optimizer", None)
    params = [p for group in getattr(optimizer, "param_groups", ()) for p in group["params"]]
    if not params or any(p.device.type != "cpu" or not p.is_floating_point() for p in params):
        return
    for group in optimizer.param_groups:
        if (group.get("fused", False) is None and group.get("foreach", False) is None
                and not group.get("differentiable", False)):
            group["fused"] = True


def _update_threads(rollout: int, update: int):
    """A callback that gives torch ``rollout`` threads for each rollout and, for the
    gradient updates after it, up to ``update``: as many as the cores left idle or used by
    the run itself (this process and its env workers) while the rollout ran allow
    (``poolgym.agents.training.idle_cores``), so that runs sharing a machine each update on
    one thread instead of spinning on threads without a core."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    from poolgym.agents.training import idle_cores

    class UpdateThreads(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.started = None

        def _run_seconds(self) -> float | None:
            """The CPU seconds of this process and the model's env workers (its env as it
            is now: a curriculum's next stage sets another)."""
            model = getattr(self, "model", None)
            workers = _worker_pids(model.get_env() if model is not None else None)
            return idle_cores.cpu_seconds([os.getpid(), *workers])

        def _on_rollout_start(self) -> None:
            torch.set_num_threads(rollout)
            self.started = idle_cores.read_cpu_times(), self._run_seconds(), time.perf_counter()

        def _on_rollout_end(self) -> None:
            machine, run, wall = self.started
            idle = idle_cores.idle_cores(machine, idle_cores.read_cpu_times())
            used = idle_cores.cores_used(run, self._run_seconds(), time.perf_counter() - wall)
            torch.set_num_threads(idle_cores.threads_for(idle, rollout, update, used))

        def _on_training_end(self) -> None:
            torch.set_num_threads(rollout)

        def _on_step(self) -> bool:
            return True

    return UpdateThreads()


def _worker_pids(venv) -> list[int]:
    """The process ids of ``venv``'s env workers (``SubprocVecEnv``'s, ``SplitVecEnv``'s and
    ``BatchedSB3VecEnv``'s ``processes``), found through its wrappers (``venv.venv``); none
    for envs stepped here."""
    while venv is not None:
        processes = getattr(venv, "processes", None)
        if processes is not None:
            return [p.pid for p in processes if p.pid is not None]
        venv = getattr(venv, "venv", None)
    return []


def _callbacks(cfg: TrainConfig, out: Path, start: float, record: dict, curve,
               history: list[dict] | None = None) -> tuple[list, Any]:
    """The callbacks of a run: periodic evaluations (going on from ``history``), checkpoints,
    curve points, league snapshots. Returns (callbacks, the periodic evaluator or None)."""
    from stable_baselines3.common.callbacks import BaseCallback

    callbacks: list = []
    evaluator = None
    if cfg.eval.every_steps > 0:
        evaluator = _periodic_eval_callback(cfg, out, start, record, history)
        callbacks.append(evaluator)

    class Every(BaseCallback):
        """Calls ``action(model, timesteps)`` every ``every`` steps."""

        def __init__(self, every: int, action) -> None:
            super().__init__()
            self.every, self.action, self.next_at = every, action, every

        def _on_training_start(self) -> None:
            self.next_at = _next_multiple(self.num_timesteps, self.every)

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_at:
                self.next_at += self.every
                self.action(self.model, self.num_timesteps)
            return True

    if cfg.checkpoint_every > 0:
        checkpoints = out / "checkpoints"
        checkpoints.mkdir(exist_ok=True)

        def checkpoint(model, timesteps: int) -> None:
            # Saved like the final model, so a checkpoint plays and resumes on its own.
            save_with_env(model, checkpoints / f"{cfg.algorithm.lower()}_{timesteps}_steps.zip", record)

        callbacks.append(Every(cfg.checkpoint_every, checkpoint))
    if curve is not None:
        class CurveScalars(BaseCallback):
            """Logs the curve's points to tensorboard as scalars: those measured before
            training (step 0) when it starts, and each new one as it is measured."""

            def _on_training_start(self) -> None:
                curve.log_points(self.logger)

            def _on_step(self) -> bool:
                return True

        callbacks.append(CurveScalars())
        if cfg.curve.every_steps > 0:
            def curve_point(model, timesteps: int) -> None:
                curve.point(model, timesteps)
                curve.log_points(model.logger)

            callbacks.append(Every(cfg.curve.every_steps, curve_point))
    if cfg.self_play is not None:
        league = out / "league"
        league.mkdir(exist_ok=True)

        def snapshot(model, timesteps: int) -> None:
            path = league / f"snapshot_{timesteps}.zip"
            save_with_env(model, path, record)
            model.get_env().env_method("add_snapshot", str(path))

        callbacks.append(Every(cfg.self_play.snapshot_every, snapshot))
    return callbacks, evaluator


def final_evaluation_count(cfg: TrainConfig, untrained: bool = True) -> int:
    """How many evaluations ``final_evaluation`` plays (with or without ``untrained``): none
    when the config's ``final_episodes`` is 0 (``with_eval_budget(evaluate=False)``)."""
    if cfg.eval.final_episodes == 0:
        return 0
    per_opponent = len(REFERENCE_AGENTS) + 1 + (cfg.eval.baseline not in REFERENCE_AGENTS) + bool(untrained)
    return len(_matchups(cfg)) * per_opponent


def train(config: str | Path | dict | TrainConfig, *, out: str | Path | None = None,
          steps: int | None = None, seed: int | None = None, device: str = "cpu",
          progress_bar: bool = False, verbose: int = 0, torch_threads: int = 1, update_threads: int = 2,
          resume: str | Path | None = None, replace: bool = False, eval_racks: int | None = None,
          evaluate: bool = True, progress: Callable[[str, int, str], Any] | None = None,
          trust_model: bool = False) -> dict:
    """Train the agent a config describes and return the run's summary (also written to
    ``<out>/summary.json``). ``steps`` and ``seed`` override the config's; ``out`` defaults
    to ``runs/<config file name>``. ``torch_threads`` caps torch's CPU threads while the envs
    step: a policy call on a few observations gains nothing from more, and on a shared
    machine busy-waiting threads made training ten times slower. ``update_threads`` (at most
    the machine's cores) caps torch's thread count for the gradient updates between rollouts,
    when no env steps: the recipes' minibatches of 256 through two 256-wide networks update
    1.3 times faster on two threads than on one. A second thread is taken only when a core
    was the run's during the rollout before, idle or stepping the run's own env worker
    (``poolgym.agents.training.idle_cores``): runs that share the machine update on one
    thread each. ``resume`` (a model zip written by a run of this config)
    starts from its weights, step count and return statistics (the "untrained" reference
    is then the resumed network), optimiser state included; it is read as data unless
    ``trust_model``, which lets it be unpickled (``poolgym.envs.sb3_models.load_model``).
    ``resume=<out>/model.zip`` continues the run in
    ``out``; any other run into a folder that holds one is refused unless ``replace``
    (``poolgym.agents.training.run_folder``). Ctrl-C saves the model and summary of what
    was trained and raises ``TrainingInterrupted``. ``eval_racks`` and ``evaluate`` set the
    evaluation budgets (``with_eval_budget``). ``progress(label, total, unit)``, when given,
    makes the progress display (``poolgym.agents.tools.progress.Progress``) of each
    evaluation phase as it starts: the curve's points and final racks, and the final
    evaluation.

    Every check of the config, the env arguments, the resumed model (and the summary of
    the run it continues) and a behaviour-cloning dataset comes before the run folder is
    made or touched; ``model.zip`` and ``summary.json`` are written together at the end."""
    import torch

    cfg = load_config(config)
    if steps is not None:
        cfg = with_budget(cfg, steps)
    if seed is not None:
        cfg = dataclasses.replace(cfg, seed=check_seed(seed, "seed", "the seed given to train"))
    cfg = with_eval_budget(cfg, eval_racks, evaluate)
    name = Path(cfg.source).stem if cfg.source != "<dict>" else "train"
    out = Path(out) if out is not None else Path("runs") / name
    try:
        record = training_env_record(cfg)
        observe = _final_observation_space(cfg) if cfg.imitation is None else None
    except (ValueError, TypeError) as exc:  # the env's own checks of its arguments
        raise ValueError(f"{cfg.source}: key 'env': {exc}") from None
    if cfg.n_envs > 1:
        _check_workers_can_make(cfg)
    if cfg.imitation is not None:
        if resume is not None:
            raise ValueError(f"resume: algorithm {cfg.algorithm} starts from a fresh network; fine-tune "
                             "its model with a MaskablePPO config and --resume")
        # The dataset's checks too come before the folder is made or touched.
        record, data = _imitation_data(cfg, record)
        torch.set_num_threads(torch_threads)
        with run_folder.locked(out), _fast_distributions():
            run_folder.prepare(out, None, replace)
            return _train_imitation(cfg, out, record, data, device, progress)
    algorithm = algorithm_class(cfg.algorithm)
    resumed = None
    if resume is not None:
        _check_resumable(str(resume), record, trust_model)
        resumed = return_norm.read(str(resume))
    torch.set_num_threads(torch_threads)
    with run_folder.locked(out), _fast_distributions():
        previous = run_folder.prepare(out, resume, replace)
        return _run(cfg, out, record, observe, algorithm, resume, resumed, previous, device=device,
                    progress_bar=progress_bar, verbose=verbose, progress=progress,
                    threads=(torch_threads, min(update_threads, os.cpu_count() or 1)), trust_model=trust_model)


@contextlib.contextmanager
def _fast_distributions():
    """torch's distribution argument checks off while training runs, restored after.

    They re-validate every logit and action on each policy call (a masked MultiDiscrete
    builds one distribution per dimension): on a small MLP they cost more than the network.
    They only raise on malformed tensors, which the policy never makes; values are
    unchanged."""
    import torch

    validate = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)
    try:
        yield
    finally:
        torch.distributions.Distribution.set_default_validate_args(validate)


def _run(cfg: TrainConfig, out: Path, record: dict, observe, algorithm, resume, resumed: dict | None,
         previous: dict | None, *, device: str, progress_bar: bool, verbose: int,
         progress: Callable[[str, int, str], Any] | None, threads: tuple[int, int] = (1, 1),
         trust_model: bool = False) -> dict:
    """The training of ``train`` in its locked, prepared run folder; ``previous`` is the
    summary of the run being continued there (None for a new run); ``threads``: torch's
    threads while the envs step and during the updates."""
    appending = previous is not None
    model = untrained = evaluator = curve = None
    start = time.perf_counter()
    start_steps = 0
    train_time = None
    final_zip = None  # the final model's zip, written beside the summary that describes it

    def summarize(final, curve_final, interrupted: bool, model_bytes: bytes) -> dict:
        trained_time = train_time if train_time is not None else time.perf_counter() - start
        trained = int(model.num_timesteps) - start_steps
        segment = {"steps_from": start_steps, "steps_to": int(model.num_timesteps),
                   "train_time_s": round(trained_time, 2),
                   "resumed_from": None if resume is None else str(resume), "interrupted": interrupted}
        summary = {
            "config": cfg.to_dict(),
            "config_source": cfg.source,
            "device": str(model.device),
            "steps": int(model.num_timesteps),
            "train_time_s": round(trained_time, 2),
            "steps_per_s": round(trained / max(trained_time, 1e-9), 1),
            "eval_history": evaluator.history if evaluator is not None else
            list((previous or {}).get("eval_history", [])),
            "final": final,
            "curve_final": curve_final,
            "model": str(out / "model.zip"),
            "monitor_dir": str(out / "monitor"),
            "segments": list((previous or {}).get("segments", [])) + [segment],
            "interrupted": interrupted,
        }
        _write_run(out, model_bytes, summary)
        return summary

    try:
        for k, stage in enumerate(cfg.stage_list()):
            vec_env = _vec_env(cfg, stage, k, out, observe, resumed if k == 0 else None, append=appending)
            try:
                if model is None:
                    if resume is not None:
                        # The config's hyperparameters, not the saved ones: a run goes on as its
                        # config says (a network of other ``policy_kwargs`` is refused by SB3).
                        model = load_sb3_model(str(resume), cfg.algorithm, device=device, trusted=trust_model,
                                               env=vec_env, tensorboard_log=str(out / "tb"), **cfg.hyperparameters)
                    else:
                        from poolgym.agents.training.canonical_policy import policy_class

                        model = algorithm(policy_class(cfg.policy), vec_env, seed=cfg.seed, device=device,
                                          verbose=verbose,
                                          tensorboard_log=str(out / "tb"), **cfg.hyperparameters)
                    start_steps = int(model.num_timesteps)
                    from poolgym.agents.training.masked_distribution import use_padded_distribution

                    use_padded_distribution(model.policy)
                    _fused_updates(model.policy)
                    # The starting policy, frozen: scored beside the trained one at the end.
                    untrained = copy.deepcopy(model.policy)
                    if cfg.curve is not None:
                        from poolgym.agents.training.train_curves import Curve

                        curve = Curve(cfg.curve, record, untrained, out, cfg.seed + EVAL_SEED_OFFSET,
                                      previous=_previous_curve(out) if appending else None,
                                      progress=progress and (lambda label, racks: progress(label, racks, "racks")))
                        curve.point(model, model.num_timesteps)
                    callbacks, evaluator = _callbacks(cfg, out, start, record, curve,
                                                      (previous or {}).get("eval_history"))
                    callbacks.append(_update_threads(*threads))
                else:
                    model.set_env(vec_env)
                model.learn(total_timesteps=stage.steps, callback=callbacks, progress_bar=progress_bar,
                            tb_log_name=cfg.algorithm, reset_num_timesteps=k == 0 and resume is None)
                if k == len(cfg.stage_list()) - 1:
                    train_time = time.perf_counter() - start
                    final_zip = model_zip(model, record)
            finally:
                vec_env.close()
        final, curve_final = _final_results(model, cfg, untrained, curve, model.num_timesteps, progress)
        if curve is not None:
            curve.log_final(model.logger, model.num_timesteps)
    except KeyboardInterrupt:
        if model is None:  # nothing trained yet: nothing to save
            raise
        saved = final_zip if final_zip is not None else model_zip(model, record)
        raise TrainingInterrupted(summarize(None, None, True, saved)) from None
    return summarize(final, curve_final, False, final_zip)


def _final_results(model, cfg: TrainConfig, untrained, curve, steps: int, progress) -> tuple[list[dict], Any]:
    """What a run ends with: the final evaluation of ``model`` beside its ``untrained``
    policy network, and the curve's final point at ``steps`` (None without a curve)."""
    from poolgym.envs.opponents import SB3Policy

    final = _shown_final_evaluation(model, cfg, SB3Policy(untrained, deterministic=cfg.eval.deterministic),
                                    progress)
    return final, (curve.final(model, steps) if curve is not None else None)


def _shown_final_evaluation(model, cfg: TrainConfig, untrained, progress) -> list[dict]:
    """``final_evaluation`` of ``model`` beside ``untrained``, in a progress display made by
    ``progress(label, total, unit)`` when given; none when the config's budget is 0."""
    if cfg.eval.final_episodes == 0:
        return []
    count = final_evaluation_count(cfg)
    label = (f"final evaluation ({cfg.eval.final_episodes} episodes of {cfg.env_id} x {count}: the "
             f"trained, untrained and reference agents)")
    shown = progress(label, count, "evaluations") if progress is not None else contextlib.nullcontext()
    with shown:
        return final_evaluation(model, cfg, untrained=untrained,
                                progress=shown.advance if progress is not None else None)


def _previous_curve(out: Path) -> dict | None:
    """The curve a continued run left in ``out`` (None when it wrote none)."""
    from poolgym.agents.training.train_curves import CURVE_JSON

    path = out / CURVE_JSON
    if not path.is_file():
        return None
    return run_folder.read_curve(path)


def _check_workers_can_make(cfg: TrainConfig) -> None:
    """``ValueError`` naming ``n_envs`` when an env spec of the run cannot be sent to a
    SubprocVecEnv worker (the workers make their envs from the specs)."""
    import cloudpickle

    for stage in cfg.stage_list():
        try:
            cloudpickle.dumps(gym.spec(stage.env_id))
        except Exception as exc:  # noqa: BLE001 (any pickling failure means the same)
            raise ValueError(f"{cfg.source}: key 'n_envs' is {cfg.n_envs}, but the registration of "
                             f"{stage.env_id} cannot be sent to a worker process ({type(exc).__name__}: "
                             f"{exc}); use n_envs: 1") from None


def _imitation_data(cfg: TrainConfig, record: dict):
    """The model record of a behaviour-cloning or offline-RL run and its dataset's decisions
    (``bc.load_imitation_data``) or transitions (``offline.load_transitions``, for CQL), read
    and checked against the training env's spaces and mapping."""
    from poolgym.agents.datasets import bc
    from poolgym.agents.training import offline
    from poolgym.agents.training.train_config import network_algorithm
    from poolgym.envs.sb3_models import recorded_mapping

    network = network_algorithm(cfg.algorithm, cfg.env_kwargs.get("action_mode"))
    record = {**record, "algorithm": network,
              "imitation": {"algorithm": cfg.algorithm, "dataset": cfg.imitation.dataset}}
    stage = cfg.stage_list()[0]
    env = make_env(stage.env_id, **_env_kwargs(stage))  # the spaces the network gets from its vec env
    try:
        # The record holds the training env's mapping already (``training_env_record``).
        if cfg.algorithm == "CQL":
            offline.require_torchrl()
        load = offline.load_transitions if cfg.algorithm == "CQL" else bc.load_imitation_data
        return record, load(cfg.imitation.dataset, env.observation_space, env.action_space,
                            mapping=recorded_mapping(record))
    finally:
        env.close()


def _train_imitation(cfg: TrainConfig, out: Path, record: dict, data, device: str,
                     progress: Callable[[str, int, str], Any] | None) -> dict:
    """Behaviour cloning (``algorithm: BC``, ``poolgym.agents.datasets.bc``): the network of
    ``network_algorithm`` (MaskablePPO's or PPO's, by the action mode) fitted to the
    ``imitation`` dataset's decisions ``data`` (``_imitation_data``, with ``record``) for
    ``cfg.total_steps`` samples, with the curve and the final evaluation of every recipe;
    saved as a model of that algorithm (``--resume`` fine-tunes it). Discrete CQL
    (``algorithm: CQL``, ``poolgym.agents.training.offline``) trains the same network from the
    dataset's transitions, its logits read as Q-values."""
    from poolgym.agents.datasets import bc
    from poolgym.agents.training import offline

    imitation = cfg.imitation
    vec_env = _vec_env(cfg, cfg.stage_list()[0], 0, out, None, None)
    try:
        from poolgym.agents.training.canonical_policy import policy_class

        model = algorithm_class(record["algorithm"])(policy_class(cfg.policy), vec_env, seed=cfg.seed,
                                                     device=device, **cfg.hyperparameters)
        rows, held_out = bc.split_by_episode(data, imitation.validation_share, cfg.seed)
        untrained = copy.deepcopy(model.policy)
        curve = None
        if cfg.curve is not None:
            from poolgym.agents.training.train_curves import Curve

            curve = Curve(cfg.curve, record, untrained, out, cfg.seed + EVAL_SEED_OFFSET,
                          progress=progress and (lambda label, racks: progress(label, racks, "racks")))
            curve.point(model, 0)
        start = time.perf_counter()
        every = cfg.curve.every_steps if curve is not None else 0
        on_point = (lambda seen: curve.point(model, seen)) if curve is not None else None
        losses = None
        if cfg.algorithm == "CQL":
            samples, losses = offline.fit(model.policy, rows, cfg.total_steps, imitation.batch_size,
                                          imitation.learning_rate, cfg.seed, gamma=cfg.hyperparameters.get("gamma", 0.99),
                                          alpha=imitation.cql_alpha, target_update=imitation.target_update,
                                          every=every, on_point=on_point)
        else:
            samples = bc.fit(model.policy, rows, cfg.total_steps, imitation.batch_size, imitation.learning_rate,
                             cfg.seed, every=every, on_point=on_point)
        train_time = time.perf_counter() - start
        trained = model_zip(model, record)
    finally:
        vec_env.close()
    final, curve_final = _final_results(model, cfg, untrained, curve, samples, progress)
    # The fit to the recorded moves: for CQL, how often its greedy masked choice is the data's.
    decisions, held_decisions = (rows.decisions(), held_out.decisions()) if losses is not None else (rows, held_out)
    summary = {
        "config": cfg.to_dict(), "config_source": cfg.source, "device": str(model.device),
        "steps": int(samples), "train_time_s": round(train_time, 2),
        "steps_per_s": round(samples / max(train_time, 1e-9), 1),
        "imitation": {"dataset": imitation.dataset, "rows": len(rows), "held_out_rows": len(held_out),
                      "fit": bc.fit_report(model.policy, decisions),
                      "untrained_fit": bc.fit_report(untrained, decisions),
                      "held_out": bc.fit_report(model.policy, held_decisions),
                      "untrained_held_out": bc.fit_report(untrained, held_decisions),
                      **({"losses": losses} if losses is not None else {})},
        "eval_history": [], "final": final, "curve_final": curve_final,
        "model": str(out / "model.zip"), "monitor_dir": str(out / "monitor"),
    }
    _write_run(out, trained, summary)
    return summary


def _check_resumable(path: str, record: dict, trusted: bool = False) -> None:
    """``ValueError`` unless the model at ``path`` was trained by this config's algorithm
    with its action mapping and observation format and loads (as data, unless ``trusted``),
    checked before anything is built."""
    from poolgym.envs.sb3_models import check_loadable, check_model_path, read_env_record, recorded_mapping

    saved = read_env_record(check_model_path(path))
    if saved is None:
        raise ValueError(f"resume: {path} carries no env record; only models and checkpoints "
                         f"written by poolgym train can be resumed")
    ours = {"algorithm": record.get("algorithm"), **recorded_mapping(record)}
    theirs = {"algorithm": saved.get("algorithm"), **recorded_mapping(saved)}
    differ = [f"{k}: model {theirs[k]!r}, config {ours[k]!r}" for k in ours if theirs[k] != ours[k]]
    if differ:
        raise ValueError(f"resume: {path} was not trained with this config's algorithm, action "
                         f"mapping and observation format: {'; '.join(differ)}")
    check_loadable(path, record["algorithm"], trusted)


def _final_observation_space(cfg: TrainConfig):
    """The observation space of the config's env, which every curriculum stage is adapted
    to observe; None without stages."""
    if not cfg.stages:
        return None
    env = gym.make(cfg.env_id, **_env_kwargs(cfg))
    try:
        return env.observation_space
    finally:
        env.close()


def load_model(path: str | Path, algorithm: str, device: str = "cpu", trusted: bool = False):
    """A saved model of ``algorithm`` ("PPO", "SAC", "TD3", "MaskablePPO"), loaded the one way models
    are (``poolgym.envs.sb3_models.load_model``: as data unless ``trusted``)."""
    return load_sb3_model(str(path), algorithm, device=device, trusted=trusted)


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
            ci = s["reward_ci"]  # None from one episode
            reward = f"{s['mean_reward']:+.3f} " + (f"[{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else "[one episode]")
            lines.append(f"  {label:<14}{rate:<28}{reward:<26}{s['mean_pots']:.2f}")
    return "\n".join(lines)
