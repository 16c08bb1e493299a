"""Training configurations: a YAML file (or a mapping) checked against a small schema.

A config names the environment, the algorithm and its hyperparameters, the budget and the
evaluation schedule::

    env:
      id: poolgym/PotBall-v0            # any registered id
      kwargs: {obs_mode: flat}          # keyword arguments for gymnasium.make
      opponent: random                  # game envs: "random", "solo" or "pkg.mod:callable"
      reward_weights: {legal_pot: 1.0}  # game envs: RewardWeights terms
    algorithm: PPO                      # PPO, SAC, TD3, MaskablePPO (choice_discrete/_canonical), BC or CQL
    policy: MlpPolicy                   # or MultiInputPolicy (dict observations), CanonicalPolicy
    hyperparameters: {learning_rate: 0.0003, n_steps: 256}   # constructor arguments
    total_steps: 40000
    seed: 0
    n_envs: 1                           # envs stepped together (the policy's batch)
    vec_env: subproc                    # n_envs > 1: subproc (a process each), dummy (in turn, here), split (half here, half in one worker), batched (gym.make_vec's batched env, here) or batched_split (its tables in two processes)
    checkpoint_every: 10000             # steps; 0 = no checkpoints
    eval:
      every_steps: 5000                 # 0 = only the final evaluation
      episodes: 100                     # per periodic evaluation
      final_episodes: 500
      opponents: [random]               # game envs: opponents to evaluate against
      baseline: random                  # the agent the trained one is compared with
    normalize_reward: true              # return normalisation (poolgym.agents.training.return_norm)
    curve:                              # racks won over training (poolgym.agents.training.train_curves)
      every_steps: 100000
      racks: 100                        # per opponent and evaluation point
      opponents: [legal-random, bot:weak]
      final_racks: 200
      final_opponents: [legal-random, bot:weak, bot:fast, bot:pro-deep]
      protocol: poolgym/NineBall-v1     # the game env whose rules, racks and noise are played
    stages:                             # a curriculum (poolgym.agents.training.curriculum); `env` is the last
      - {id: poolgym/PotBall-v1, kwargs: {...}, steps: 100000}
      - {id: poolgym/NineBall-v1, kwargs: {...}, opponent: legal-random, steps: 300000}
    imitation:                          # algorithms BC and CQL only (poolgym.agents.datasets.bc)
      dataset: poolgym/nine-ball/bot-fast-v0   # a Minari dataset (poolgym collect), or a list of them
      batch_size: 256
      learning_rate: 0.001
      validation_share: 0.1
    self_play:                          # a league of snapshots (poolgym.agents.training.self_play)
      snapshot_every: 50000
      league_size: 8
      ladder: [legal-random, bot:weak]
      ladder_share: 0.25

With ``stages`` the stage budgets must add up to ``total_steps``; ``stages`` and
``self_play`` do not go together. ``MaskablePPO`` needs a masked action mode
(``choice_discrete`` or ``choice_canonical``) in every env it trains on. ``BC`` (behaviour cloning) trains from the ``imitation`` dataset the
network that fine-tunes it: MaskablePPO's in the masked action modes, PPO's in a Box action mode
such as ``choice`` (its ``hyperparameters`` are that algorithm's); its ``total_steps`` count
training samples, and it takes no ``stages`` or ``self_play``. ``CQL`` (discrete conservative
Q-learning, ``poolgym.agents.training.offline``, the ``offline`` extra) trains the same network
from the same section in ``choice_canonical``, with two more keys, ``cql_alpha`` and ``target_update``.

Every mistake (unknown key, wrong type, missing field, unknown hyperparameter or env
keyword argument, a value out of its range: ``seed`` in 0..``MAX_SEED``, ``n_steps``,
``batch_size``, ``learning_rate``, ``net_arch`` widths and their kin in
``_HYPERPARAMETER_RANGES``) is a ``ValueError`` that names the file, the key and the
allowed range, raised before a run folder is made.

Trust: a config is data unless loaded with ``trusted=True`` (``poolgym train --allow-code``).
Untrusted, ``env.id`` must be a registered id (optionally ``poolgym:<id>``) and the
opponents and baseline built-in names (``random``, ``solo``): an import path there
(``pkg.module:name``) imports and runs that module.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poolgym.envs.choice import MASKED_MODES
from poolgym.numbers import quote
from poolgym.yaml_files import load_yaml_file

ALGORITHMS = ("PPO", "SAC", "TD3", "MaskablePPO", "BC", "CQL")
# How n_envs > 1 envs are stepped: "subproc", one process each (SubprocVecEnv), or "dummy",
# all in the training process in turn (DummyVecEnv: no start-up or pipe cost per step).
VEC_ENVS = ("subproc", "dummy", "split", "batched", "batched_split")
MASKED_ALGORITHMS = ("MaskablePPO",)
# The policies a config may name: SB3's own, and poolgym's stroke scorer for choice_canonical
# with the lookahead observation (``poolgym.agents.training.canonical_policy``).
POLICIES = ("MlpPolicy", "MultiInputPolicy", "CanonicalPolicy")
# The algorithms that learn from a dataset (the ``imitation`` section) instead of an env.
IMITATION_ALGORITHMS = ("BC", "CQL")
# The imitation keys only offline RL reads (``poolgym.agents.training.offline``).
CQL_KEYS = ("cql_alpha", "target_update")


def network_algorithm(algorithm: str, action_mode: str | None = None) -> str:
    """The stable-baselines3 algorithm whose network ``algorithm`` trains and saves. Behaviour
    cloning trains the network of the algorithm that fine-tunes it: MaskablePPO's in the
    masked action modes (``choice_discrete``, ``choice_canonical``), PPO's in the Box modes."""
    if algorithm in IMITATION_ALGORITHMS:
        return "MaskablePPO" if action_mode in MASKED_MODES else "PPO"
    return algorithm
REQUIRED = object()  # marks a key with no default
# The largest seed: numpy's legacy seeding (which SB3 uses) takes seeds below 2**32, and the
# run adds offsets to it (10,000 per curriculum stage, 1,000,000 for the evaluation racks).
MAX_SEED = 2**31 - 1

# Ranges of the hyperparameters the algorithms share, checked before anything is built (SB3
# would fail on them with an assertion or a torch error deep inside the first update):
# key -> (integer?, low, low included?, high, high included?); None: no bound on that side.
_HYPERPARAMETER_RANGES: dict[str, tuple[bool, float | None, bool, float | None, bool]] = {
    "learning_rate": (False, 0.0, False, None, False),
    "n_steps": (True, 1, True, None, False),
    "batch_size": (True, 2, True, None, False),  # SB3 normalises advantages over a batch
    "n_epochs": (True, 1, True, None, False),
    "gamma": (False, 0.0, True, 1.0, True),
    "gae_lambda": (False, 0.0, True, 1.0, True),
    "clip_range": (False, 0.0, False, None, False),
    "clip_range_vf": (False, 0.0, False, None, False),
    "vf_coef": (False, 0.0, True, None, False),
    "max_grad_norm": (False, 0.0, False, None, False),
    "target_kl": (False, 0.0, False, None, False),
    "buffer_size": (True, 1, True, None, False),
    "learning_starts": (True, 0, True, None, False),
    "tau": (False, 0.0, False, 1.0, True),
    "policy_delay": (True, 1, True, None, False),
    "target_policy_noise": (False, 0.0, True, None, False),
    "target_noise_clip": (False, 0.0, True, None, False),
    "sde_sample_freq": (True, -1, True, None, False),
    "stats_window_size": (True, 1, True, None, False),
}
# Hyperparameters that may also be None (SB3's "off").
_NONE_ALLOWED = {"clip_range_vf", "target_kl"}
# Flags among the hyperparameters.
_FLAGS = {"use_sde", "normalize_advantage", "optimize_memory_usage", "use_sde_at_warmup"}

# key -> (accepted types, default or REQUIRED); nested sections have their own tables.
_TOP: dict[str, tuple[tuple[type, ...], Any]] = {
    "description": ((str,), ""),
    "env": ((dict,), REQUIRED),
    "algorithm": ((str,), REQUIRED),
    "policy": ((str,), "MlpPolicy"),
    "hyperparameters": ((dict,), {}),
    "total_steps": ((int,), REQUIRED),
    "seed": ((int,), 0),
    "n_envs": ((int,), 1),
    "vec_env": ((str,), "subproc"),
    "checkpoint_every": ((int,), 0),
    "eval": ((dict,), {}),
    "normalize_reward": ((bool,), False),
    "curve": ((dict,), None),
    "stages": ((list,), []),
    "self_play": ((dict,), None),
    "imitation": ((dict,), None),
}
# The datasets one behaviour-cloning run may read together.
MAX_IMITATION_DATASETS = 8
_IMITATION: dict[str, tuple[tuple[type, ...], Any]] = {
    "dataset": ((str, list), REQUIRED),
    "batch_size": ((int,), 256),
    "learning_rate": ((float, int), 0.001),
    "validation_share": ((float, int), 0.1),
    "cql_alpha": ((float, int), 1.0),
    "target_update": ((float, int), 0.005),
}
_ENV: dict[str, tuple[tuple[type, ...], Any]] = {
    "id": ((str,), REQUIRED),
    "kwargs": ((dict,), {}),
    "opponent": ((str,), None),
    "reward_weights": ((dict,), None),
}
_EVAL: dict[str, tuple[tuple[type, ...], Any]] = {
    "every_steps": ((int,), 0),
    "episodes": ((int,), 50),
    "final_episodes": ((int,), 200),
    "opponents": ((list,), []),
    "baseline": ((str,), "random"),
    "deterministic": ((bool,), True),
}


_STAGE: dict[str, tuple[tuple[type, ...], Any]] = {
    "id": ((str,), REQUIRED),
    "kwargs": ((dict,), {}),
    "opponent": ((str,), None),
    "reward_weights": ((dict,), None),
    "steps": ((int,), REQUIRED),
}
_CURVE: dict[str, tuple[tuple[type, ...], Any]] = {
    "every_steps": ((int,), REQUIRED),
    "racks": ((int,), 100),
    "opponents": ((list,), ["legal-random", "bot:weak"]),
    "final_racks": ((int,), 200),
    "final_opponents": ((list,), ["legal-random", "bot:weak", "bot:fast", "bot:pro-deep"]),
    "protocol": ((str,), "poolgym/NineBall-v1"),
    "deterministic": ((bool,), True),
}
_SELF_PLAY: dict[str, tuple[tuple[type, ...], Any]] = {
    "snapshot_every": ((int,), REQUIRED),
    "league_size": ((int,), 8),
    "ladder": ((list,), ["legal-random"]),
    "ladder_share": ((float, int), 0.25),
}


@dataclass(frozen=True)
class Stage:
    """One stage of a curriculum: an env (as the config's ``env`` section) and its budget."""

    env_id: str
    steps: int
    env_kwargs: dict = field(default_factory=dict)
    opponent: str | None = None
    reward_weights: dict | None = None

    def make_kwargs(self) -> dict:
        """Keyword arguments for ``gymnasium.make(self.env_id, ...)`` (opponent unresolved)."""
        kwargs = dict(self.env_kwargs)
        if self.opponent is not None:
            kwargs["opponent"] = self.opponent
        if self.reward_weights is not None:
            kwargs["reward_weights"] = dict(self.reward_weights)
        return kwargs

    def to_dict(self) -> dict:
        return {"id": self.env_id, "kwargs": self.env_kwargs, "opponent": self.opponent,
                "reward_weights": self.reward_weights, "steps": self.steps}


@dataclass(frozen=True)
class CurveConfig:
    """Racks won over training under a game env's protocol (``poolgym.agents.training.train_curves``)."""

    every_steps: int
    racks: int = 100
    opponents: tuple[str, ...] = ("legal-random", "bot:weak")
    final_racks: int = 200
    final_opponents: tuple[str, ...] = ("legal-random", "bot:weak", "bot:fast", "bot:pro-deep")
    protocol: str = "poolgym/NineBall-v1"
    deterministic: bool = True


@dataclass(frozen=True)
class SelfPlayConfig:
    """A league of past snapshots as opponents (``poolgym.agents.training.self_play``)."""

    snapshot_every: int
    league_size: int = 8
    ladder: tuple[str, ...] = ("legal-random",)
    ladder_share: float = 0.25


@dataclass(frozen=True)
class ImitationConfig:
    """Where behaviour cloning's data comes from and how it is fitted (``poolgym.agents.datasets.bc``)."""

    dataset: str | tuple[str, ...]
    batch_size: int = 256
    learning_rate: float = 0.001
    validation_share: float = 0.1
    cql_alpha: float = 1.0
    target_update: float = 0.005


@dataclass(frozen=True)
class EvalConfig:
    """When and how the policy is evaluated (see the module docstring)."""

    every_steps: int = 0
    episodes: int = 50
    final_episodes: int = 200
    opponents: tuple[str, ...] = ()
    baseline: str = "random"
    deterministic: bool = True


@dataclass(frozen=True)
class TrainConfig:
    """A checked training configuration; ``source`` is the file it came from (for messages)."""

    env_id: str
    algorithm: str
    total_steps: int
    env_kwargs: dict = field(default_factory=dict)
    opponent: str | None = None
    reward_weights: dict | None = None
    policy: str = "MlpPolicy"
    hyperparameters: dict = field(default_factory=dict)
    seed: int = 0
    n_envs: int = 1
    vec_env: str = "subproc"
    checkpoint_every: int = 0
    eval: EvalConfig = EvalConfig()
    description: str = ""
    source: str = "<dict>"
    normalize_reward: bool = False
    curve: CurveConfig | None = None
    stages: tuple[Stage, ...] = ()
    self_play: SelfPlayConfig | None = None
    imitation: ImitationConfig | None = None

    def stage_list(self) -> tuple[Stage, ...]:
        """The stages trained in turn: the curriculum's, or the one env for the whole budget."""
        return self.stages or (self._final_env(),)

    def _final_env(self) -> Stage:
        """The config's own env (the last stage of a curriculum) as a stage of the whole budget."""
        return Stage(self.env_id, self.total_steps, dict(self.env_kwargs), self.opponent, self.reward_weights)

    def make_kwargs(self) -> dict:
        """Keyword arguments for ``gymnasium.make(self.env_id, ...)`` (opponent unresolved)."""
        return self._final_env().make_kwargs()

    def to_dict(self) -> dict:
        """The config as plain data (what a run's summary records)."""
        return {
            "description": self.description,
            "env": {"id": self.env_id, "kwargs": self.env_kwargs, "opponent": self.opponent,
                    "reward_weights": self.reward_weights},
            "algorithm": self.algorithm, "policy": self.policy,
            "hyperparameters": self.hyperparameters, "total_steps": self.total_steps,
            "seed": self.seed, "n_envs": self.n_envs, "vec_env": self.vec_env, "checkpoint_every": self.checkpoint_every,
            "eval": {"every_steps": self.eval.every_steps, "episodes": self.eval.episodes,
                     "final_episodes": self.eval.final_episodes,
                     "opponents": list(self.eval.opponents), "baseline": self.eval.baseline,
                     "deterministic": self.eval.deterministic},
            "normalize_reward": self.normalize_reward,
            "curve": None if self.curve is None else {
                "every_steps": self.curve.every_steps, "racks": self.curve.racks,
                "opponents": list(self.curve.opponents), "final_racks": self.curve.final_racks,
                "final_opponents": list(self.curve.final_opponents), "protocol": self.curve.protocol,
                "deterministic": self.curve.deterministic},
            "stages": [stage.to_dict() for stage in self.stages],
            "self_play": None if self.self_play is None else {
                "snapshot_every": self.self_play.snapshot_every, "league_size": self.self_play.league_size,
                "ladder": list(self.self_play.ladder), "ladder_share": self.self_play.ladder_share},
            "imitation": None if self.imitation is None else {
                "dataset": (self.imitation.dataset if isinstance(self.imitation.dataset, str)
                            else list(self.imitation.dataset)), "batch_size": self.imitation.batch_size,
                "learning_rate": self.imitation.learning_rate,
                "validation_share": self.imitation.validation_share,
                **({"cql_alpha": self.imitation.cql_alpha, "target_update": self.imitation.target_update}
                   if self.algorithm == "CQL" else {})},
        }


def check_section(data: dict, schema: dict, prefix: str, source: str) -> dict:
    """``data`` with defaults filled in, or a ValueError naming the bad key and ``source``."""
    if not isinstance(data, dict):
        raise ValueError(f"{source}: {prefix or 'the config'} must be a mapping, got {type(data).__name__}")
    out = {}
    for key, value in data.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if key not in schema:
            raise ValueError(f"{source}: unknown key {quote(name)}; keys here are {sorted(schema)}")
        types, _ = schema[key]
        # bool is an int in Python; a flag where a count belongs is a mistake.
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            raise ValueError(f"{source}: key {name!r} must be {' or '.join(t.__name__ for t in types)}, "
                             f"got {type(value).__name__} {quote(value)}")
        out[key] = value
    for key, (_, default) in schema.items():
        if key not in out:
            if default is REQUIRED:
                name = f"{prefix}.{key}" if prefix else key
                raise ValueError(f"{source}: missing key {name!r}")
            out[key] = default
    return out


def _at_least(value: int, low: int, name: str, source: str) -> None:
    if value < low:
        raise ValueError(f"{source}: key {name!r} must be at least {low}, got {value}")


def _range_text(integer: bool, low, low_in: bool, high, high_in: bool) -> str:
    """How a range reads in an error message: "an integer >= 1", "a number in (0, 1]"."""
    kind = "an integer" if integer else "a number"
    bound = lambda x: str(x) if isinstance(x, int) else f"{x:g}"  # noqa: E731 (integers in full)
    if high is None:
        return kind if low == -math.inf else f"{kind} {'>=' if low_in else '>'} {bound(low)}"
    return f"{kind} in {'[' if low_in else '('}{bound(low)}, {bound(high)}{']' if high_in else ')'}"


def _check_number(value: Any, name: str, source: str, integer: bool, low, low_in: bool,
                  high=None, high_in: bool = False) -> None:
    """``ValueError`` naming ``source``, the key ``name`` and the range unless ``value`` is
    a (finite) number in it."""
    allowed = _range_text(integer, low, low_in, high, high_in)
    kind_ok = (not isinstance(value, bool) and
               (isinstance(value, int) if integer else isinstance(value, (int, float))))
    ok = kind_ok and math.isfinite(value) and (value >= low if low_in else value > low) and (
        high is None or (value <= high if high_in else value < high))
    if not ok:
        raise ValueError(f"{source}: key {name!r} must be {allowed}, got {type(value).__name__} {quote(value)}")


def check_seed(value: Any, name: str, source: str) -> int:
    """``value`` as a run's seed (an integer in 0..``MAX_SEED``), or a ``ValueError`` naming
    ``source`` and the key ``name``."""
    _check_number(value, name, source, True, 0, True, MAX_SEED, True)
    return int(value)


def _check_net_arch(value: Any, name: str, source: str) -> None:
    """A network shape: a list of layer widths (each an integer >= 1), or a mapping of
    networks (``pi``, ``vf``, ``qf``) to such lists."""
    if isinstance(value, dict):
        for key, widths in value.items():
            if key not in ("pi", "vf", "qf"):
                raise ValueError(f"{source}: key '{name}.{key}' is not a network; net_arch maps "
                                 "'pi', 'vf' or 'qf' to a list of layer widths")
            _check_net_arch(widths, f"{name}.{key}", source)
        return
    if not isinstance(value, list):
        raise ValueError(f"{source}: key {name!r} must be a list of layer widths (integers >= 1) "
                         f"or a mapping of 'pi'/'vf'/'qf' to such lists, got {type(value).__name__} {quote(value)}")
    for i, width in enumerate(value):
        _check_number(width, f"{name}[{i}]", source, True, 1, True)


def _check_policy_kwargs(value: Any, source: str) -> None:
    """The policy keyword arguments a YAML file can give: ``net_arch``, ``log_std_init``,
    ``ortho_init`` checked; others are SB3's to judge."""
    name = "hyperparameters.policy_kwargs"
    if not isinstance(value, dict):
        raise ValueError(f"{source}: key {name!r} must be a mapping, got {type(value).__name__} {quote(value)}")
    if "net_arch" in value:
        _check_net_arch(value["net_arch"], f"{name}.net_arch", source)
    if "log_std_init" in value:
        _check_number(value["log_std_init"], f"{name}.log_std_init", source, False, -math.inf, False)
    if "ortho_init" in value and not isinstance(value["ortho_init"], bool):
        raise ValueError(f"{source}: key '{name}.ortho_init' must be true or false, got {quote(value['ortho_init'])}")


def _check_hyperparameter_values(algorithm: str, hyperparameters: dict, n_envs: int, source: str) -> None:
    """Each hyperparameter of a known kind within its range (``_HYPERPARAMETER_RANGES``)."""
    for key, value in hyperparameters.items():
        name = f"hyperparameters.{key}"
        if key in _NONE_ALLOWED and value is None:
            continue
        if key in _HYPERPARAMETER_RANGES:
            _check_number(value, name, source, *_HYPERPARAMETER_RANGES[key])
        elif key in _FLAGS and not isinstance(value, bool):
            raise ValueError(f"{source}: key {name!r} must be true or false, got {quote(value)}")
        elif key == "policy_kwargs":
            _check_policy_kwargs(value, source)
        elif key == "ent_coef":
            # SAC learns the coefficient with "auto" (or "auto_<initial value>").
            if not (algorithm == "SAC" and isinstance(value, str) and value.startswith("auto")):
                _check_number(value, name, source, False, 0.0, True)
        elif key == "train_freq":
            if isinstance(value, list) and len(value) == 2 and value[1] in ("step", "episode"):
                _check_number(value[0], f"{name}[0]", source, True, 1, True)
            elif not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{source}: key {name!r} must be an integer >= 1 or [n, 'step' or "
                                 f"'episode'], got {quote(value)}")
        elif key == "gradient_steps":
            if value != -1:  # SB3: -1 is as many gradient steps as environment steps
                _check_number(value, name, source, True, 1, True)
    n_steps = hyperparameters.get("n_steps")
    if n_steps is not None and n_steps * n_envs < 2:
        raise ValueError(f"{source}: key 'hyperparameters.n_steps' times key 'n_envs' must be at least 2 "
                         f"(an advantage needs two steps), got {n_steps} x {n_envs}")


def _check_env_kwargs(env_id: str, kwargs: dict, name: str, source: str) -> None:
    """Each keyword argument named by ``kwargs`` is one that ``gymnasium.make(env_id, ...)``
    or the env's constructor takes (when the id is registered and its constructor names
    them); the values are the env's to check when it is made."""
    import gymnasium
    from gymnasium.envs.registration import load_env_creator

    spec = gymnasium.registry.get(env_id.removeprefix("poolgym:"))
    if spec is None or spec.entry_point is None:
        return
    creator = load_env_creator(spec.entry_point) if isinstance(spec.entry_point, str) else spec.entry_point
    try:
        parameters = inspect.signature(creator).parameters
    except (TypeError, ValueError):  # a builtin or C callable: nothing to compare with
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    accepted = set(parameters) | set(inspect.signature(gymnasium.make).parameters) - {"id", "kwargs"}
    for key in kwargs:
        if key not in accepted:
            raise ValueError(f"{source}: unknown key '{name}.{key}' for {env_id}; it takes "
                             f"{sorted(accepted - {'opponent', 'reward_weights'})}")


def _check_hyperparameters(algorithm: str, hyperparameters: dict, source: str,
                           action_mode: str | None = None) -> None:
    """Names the first hyperparameter the algorithm's constructor does not take."""
    from poolgym.envs.sb3_models import algorithm_class

    accepted = set(inspect.signature(algorithm_class(network_algorithm(algorithm, action_mode))).parameters)
    # These are set by the trainer from other keys or its own arguments.
    reserved = {"policy", "env", "seed", "device", "tensorboard_log", "verbose", "_init_setup_model"}
    for key in hyperparameters:
        if key in reserved:
            raise ValueError(f"{source}: key 'hyperparameters.{key}' is set by the trainer, not the config")
        if key not in accepted:
            raise ValueError(f"{source}: unknown key 'hyperparameters.{key}' for {algorithm}; "
                             f"{algorithm} takes {sorted(accepted - reserved)}")
        value = hyperparameters[key]
        # YAML 1.1 reads 3e-4 (no dot) as a string; SB3 would fail much later.
        if isinstance(value, str) and _is_number(value):
            raise ValueError(f"{source}: key 'hyperparameters.{key}' is the string {value!r}; "
                             f"write it as a number (e.g. 3.0e-4, with a dot)")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def check_untrusted(env_id: str, names: dict[str, str | None], source: str) -> None:
    """Refuse the import paths of an untrusted config (see the module docstring): ``names``
    maps each opponent key to the name it gives."""
    import gymnasium

    from poolgym.agents.evaluation.policy_eval import BUILTIN_OPPONENTS

    plain_id = env_id.removeprefix("poolgym:")
    if ":" in plain_id:
        raise ValueError(f"{source}: key 'env.id' is an import path ({quote(env_id)}), which runs code; "
                         "use a registered id, or --allow-code / trusted=True if you trust this config")
    if plain_id not in gymnasium.registry:
        raise ValueError(f"{source}: key 'env.id' {quote(env_id)} is not a registered environment; "
                         f"registered: {sorted(gymnasium.registry)}")
    for key, name in names.items():
        if name is not None and name not in BUILTIN_OPPONENTS:
            raise ValueError(f"{source}: key {key!r} is {quote(name)}; an untrusted config takes only "
                             f"{list(BUILTIN_OPPONENTS)} (an import path runs code: use --allow-code / "
                             "trusted=True if you trust this config)")


def parse_config(data: dict, source: str = "<dict>", trusted: bool = False) -> TrainConfig:
    """A ``TrainConfig`` from a mapping; errors name the key and ``source``. Unless
    ``trusted``, import paths are refused (see the module docstring)."""
    top = check_section(data, _TOP, "", source)
    env = check_section(top["env"], _ENV, "env", source)
    ev = check_section(top["eval"], _EVAL, "eval", source)
    if top["algorithm"] not in ALGORITHMS:
        raise ValueError(f"{source}: key 'algorithm' must be one of {list(ALGORITHMS)}, got {top['algorithm']!r}")
    if top["policy"] not in POLICIES:
        raise ValueError(f"{source}: key 'policy' must be one of {list(POLICIES)}, got {top['policy']!r}")
    if top["policy"] == "CanonicalPolicy" and (env["kwargs"].get("action_mode") != "choice_canonical"
                                               or not env["kwargs"].get("lookahead")
                                               or env["kwargs"].get("obs_mode") != "flat"):
        raise ValueError(f"{source}: policy CanonicalPolicy needs key 'env.kwargs' to hold action_mode "
                         f"'choice_canonical', lookahead true and obs_mode 'flat' (the strokes it scores)")
    _at_least(top["total_steps"], 1, "total_steps", source)
    check_seed(top["seed"], "seed", source)
    _at_least(top["n_envs"], 1, "n_envs", source)
    if top["vec_env"] not in VEC_ENVS:
        raise ValueError(f"{source}: key 'vec_env' must be one of {list(VEC_ENVS)}, got {top['vec_env']!r}")
    if top["vec_env"] in ("batched", "batched_split") and (top["stages"] or top["self_play"] is not None):
        raise ValueError(f"{source}: vec_env {top['vec_env']!r} steps the env of key 'env' alone: it takes no "
                         f"'stages' or 'self_play' (use vec_env dummy, split or subproc)")
    _at_least(top["checkpoint_every"], 0, "checkpoint_every", source)
    _at_least(ev["every_steps"], 0, "eval.every_steps", source)
    _at_least(ev["episodes"], 1, "eval.episodes", source)
    _at_least(ev["final_episodes"], 1, "eval.final_episodes", source)
    for i, opponent in enumerate(ev["opponents"]):
        if not isinstance(opponent, str):
            raise ValueError(f"{source}: key 'eval.opponents[{i}]' must be str, got {opponent!r}")
    for key in env["kwargs"]:
        if key in ("opponent", "reward_weights"):
            raise ValueError(f"{source}: key 'env.kwargs.{key}' belongs at 'env.{key}'")
    _check_hyperparameters(top["algorithm"], top["hyperparameters"], source, env["kwargs"].get("action_mode"))
    _check_hyperparameter_values(top["algorithm"], top["hyperparameters"], top["n_envs"], source)
    _check_env_kwargs(env["id"], env["kwargs"], "env.kwargs", source)
    stages = _parse_stages(top["stages"], top["total_steps"], source)
    curve = _parse_curve(top["curve"], source)
    self_play = _parse_self_play(top["self_play"], source)
    imitation = _parse_imitation(top["imitation"], top["algorithm"], source)
    if imitation is not None and (stages or self_play is not None):
        raise ValueError(f"{source}: algorithm {top['algorithm']} takes no 'stages' or 'self_play'")
    if stages and stages[-1].env_id != env["id"]:
        raise ValueError(f"{source}: the last stage's env ({stages[-1].env_id!r}) must be key 'env.id' "
                         f"({env['id']!r}): the model is recorded and evaluated on it")
    if stages and self_play is not None:
        raise ValueError(f"{source}: keys 'stages' and 'self_play' do not go together; train a "
                         "curriculum, then self-play from its model")
    if top["algorithm"] in MASKED_ALGORITHMS:
        for name, kwargs in [("env.kwargs", env["kwargs"])] + [
                (f"stages[{i}].kwargs", s.env_kwargs) for i, s in enumerate(stages)]:
            if kwargs.get("action_mode") not in MASKED_MODES:
                raise ValueError(f"{source}: {top['algorithm']} needs key '{name}.action_mode' to be one of "
                                 f"{list(MASKED_MODES)} (the masked action modes), got {kwargs.get('action_mode')!r}")
    if top["algorithm"] == "CQL" and env["kwargs"].get("action_mode") != "choice_canonical":
        raise ValueError(f"{source}: CQL needs key 'env.kwargs.action_mode' to be 'choice_canonical' (one "
                         f"Discrete choice a state), got {env['kwargs'].get('action_mode')!r}")
    if not trusted:
        names = {"env.opponent": env["opponent"], "eval.baseline": ev["baseline"]}
        names.update({f"eval.opponents[{i}]": name for i, name in enumerate(ev["opponents"])})
        names.update({f"stages[{i}].opponent": s.opponent for i, s in enumerate(stages)})
        check_untrusted(env["id"], names, source)
        for i, stage in enumerate(stages):
            check_untrusted(stage.env_id, {}, f"{source}: stages[{i}]")
    return TrainConfig(
        env_id=env["id"], env_kwargs=dict(env["kwargs"]), opponent=env["opponent"],
        reward_weights=env["reward_weights"], algorithm=top["algorithm"], policy=top["policy"],
        hyperparameters=dict(top["hyperparameters"]), total_steps=top["total_steps"],
        seed=top["seed"], n_envs=top["n_envs"], vec_env=top["vec_env"], checkpoint_every=top["checkpoint_every"],
        eval=EvalConfig(every_steps=ev["every_steps"], episodes=ev["episodes"],
                        final_episodes=ev["final_episodes"], opponents=tuple(ev["opponents"]),
                        baseline=ev["baseline"], deterministic=ev["deterministic"]),
        description=top["description"], source=source, normalize_reward=top["normalize_reward"],
        curve=curve, stages=stages, self_play=self_play, imitation=imitation)


def _names(values: list, key: str, allowed: tuple[str, ...], source: str) -> tuple[str, ...]:
    """``values`` as a tuple, each one of ``allowed``, or a ValueError naming the entry."""
    for i, value in enumerate(values):
        if value not in allowed:
            raise ValueError(f"{source}: key '{key}[{i}]' must be one of {list(allowed)}, got {quote(value)}")
    return tuple(values)


def _parse_stages(data: list, total_steps: int, source: str) -> tuple[Stage, ...]:
    stages = []
    for i, item in enumerate(data):
        stage = check_section(item, _STAGE, f"stages[{i}]", source)
        _at_least(stage["steps"], 1, f"stages[{i}].steps", source)
        for key in stage["kwargs"]:
            if key in ("opponent", "reward_weights"):
                raise ValueError(f"{source}: key 'stages[{i}].kwargs.{key}' belongs at 'stages[{i}].{key}'")
        _check_env_kwargs(stage["id"], stage["kwargs"], f"stages[{i}].kwargs", source)
        stages.append(Stage(stage["id"], stage["steps"], dict(stage["kwargs"]), stage["opponent"],
                            stage["reward_weights"]))
    if stages and sum(s.steps for s in stages) != total_steps:
        raise ValueError(f"{source}: the stages' steps add up to {sum(s.steps for s in stages)}, "
                         f"not key 'total_steps' ({total_steps})")
    return tuple(stages)


def _parse_curve(data: dict | None, source: str) -> CurveConfig | None:
    from poolgym.envs.opponents import LADDER

    if data is None:
        return None
    curve = check_section(data, _CURVE, "curve", source)
    _at_least(curve["every_steps"], 0, "curve.every_steps", source)
    _at_least(curve["racks"], 1, "curve.racks", source)
    _at_least(curve["final_racks"], 1, "curve.final_racks", source)
    check_untrusted(curve["protocol"], {}, f"{source}: curve.protocol")
    return CurveConfig(curve["every_steps"], curve["racks"], _names(curve["opponents"], "curve.opponents", LADDER, source),
                       curve["final_racks"],
                       _names(curve["final_opponents"], "curve.final_opponents", LADDER, source),
                       curve["protocol"], curve["deterministic"])


def _parse_imitation(data: dict | None, algorithm: str, source: str) -> ImitationConfig | None:
    if (data is None) != (algorithm not in IMITATION_ALGORITHMS):
        raise ValueError(f"{source}: key 'imitation' goes with algorithm BC or CQL, which need it "
                         f"(algorithm {algorithm!r}, imitation {'given' if data is not None else 'missing'})")
    if data is None:
        return None
    if algorithm != "CQL" and any(key in data for key in CQL_KEYS):
        raise ValueError(f"{source}: keys 'imitation.cql_alpha' and 'imitation.target_update' go with "
                         f"algorithm CQL, not {algorithm}")
    section = check_section(data, _IMITATION, "imitation", source)
    from poolgym.agents.datasets.collect import check_dataset_id

    dataset = section["dataset"]
    ids = [dataset] if isinstance(dataset, str) else dataset
    if not 1 <= len(ids) <= MAX_IMITATION_DATASETS or len(set(map(str, ids))) != len(ids):
        raise ValueError(f"{source}: key 'imitation.dataset' must be a dataset id or a list of 1 to "
                         f"{MAX_IMITATION_DATASETS} different ones, got {quote(dataset)}")
    for i, dataset_id in enumerate(ids):
        name = "imitation.dataset" if isinstance(dataset, str) else f"imitation.dataset[{i}]"
        if not isinstance(dataset_id, str):
            raise ValueError(f"{source}: key {name!r} must be str, got {type(dataset_id).__name__}")
        try:
            check_dataset_id(dataset_id)
        except ValueError as exc:
            raise ValueError(f"{source}: key {name!r}: {exc}") from None
    _at_least(section["batch_size"], 1, "imitation.batch_size", source)
    if not (section["learning_rate"] > 0 and math.isfinite(section["learning_rate"])):
        raise ValueError(f"{source}: key 'imitation.learning_rate' must be a finite number > 0, "
                         f"got {section['learning_rate']!r}")
    if not 0.0 <= section["validation_share"] < 1.0:
        raise ValueError(f"{source}: key 'imitation.validation_share' must be within [0, 1), "
                         f"got {section['validation_share']!r}")
    if not (section["cql_alpha"] >= 0 and math.isfinite(section["cql_alpha"])):
        raise ValueError(f"{source}: key 'imitation.cql_alpha' must be a finite number >= 0, "
                         f"got {section['cql_alpha']!r}")
    if not 0.0 < section["target_update"] <= 1.0:
        raise ValueError(f"{source}: key 'imitation.target_update' must be within (0, 1], "
                         f"got {section['target_update']!r}")
    return ImitationConfig(dataset if isinstance(dataset, str) else tuple(ids), section["batch_size"], float(section["learning_rate"]),
                           float(section["validation_share"]), float(section["cql_alpha"]),
                           float(section["target_update"]))


def _parse_self_play(data: dict | None, source: str) -> SelfPlayConfig | None:
    from poolgym.envs.opponents import LADDER

    if data is None:
        return None
    league = check_section(data, _SELF_PLAY, "self_play", source)
    _at_least(league["snapshot_every"], 1, "self_play.snapshot_every", source)
    _at_least(league["league_size"], 1, "self_play.league_size", source)
    share = league["ladder_share"]
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"{source}: key 'self_play.ladder_share' must be within [0, 1], got {share!r}")
    ladder = _names(league["ladder"], "self_play.ladder", LADDER, source)
    if not ladder and share > 0:
        raise ValueError(f"{source}: key 'self_play.ladder' is empty but 'self_play.ladder_share' is {share}")
    return SelfPlayConfig(league["snapshot_every"], league["league_size"], ladder, float(share))


def load_config(config: str | Path | dict | TrainConfig, trusted: bool = False) -> TrainConfig:
    """A checked ``TrainConfig`` from a YAML path, a mapping or an existing config. Unless
    ``trusted``, the config may name only registered envs and built-in opponents."""
    if isinstance(config, TrainConfig):
        return config
    if isinstance(config, dict):
        return parse_config(config, trusted=trusted)
    path = Path(config)
    data = load_yaml_file(path, "the training config")
    return parse_config(data if data is not None else {}, source=str(path), trusted=trusted)
