"""Record an agent's play into a Minari dataset (``poolgym collect``).

``collect(agent, env_id, episodes, dataset_id, ...)`` plays ``episodes`` episodes of
``env_id`` (made with the given ``opponent``, ``action_mode``, ``obs_mode`` and
``pot_residual``, so the dataset's env spec rebuilds exactly that env:
``dataset.recover_environment()``) with any
agent the ladder names (``poolgym.agents.evaluation.loading.make_agent``: ``legal-random``,
``fixed``, ``bot:fast`` .. ``bot:strong``, ``pretrained:NAME``, a model zip, ``pkg.mod:name``),
and writes them under Minari's data path (``MINARI_DATASETS_PATH``, else
``~/.minari/datasets``) in its default HDF5 format (no JAX: episodes are handed to
``minari.create_dataset_from_buffers`` / ``MinariDataset.update_dataset_from_buffer`` as
``EpisodeBuffer`` values, not built by ``DataCollector``, whose step buffer needs JAX).

What an episode holds (Minari's layout: one more observation and info than actions):

- ``observations``: what the env returned (reset, then every step); ``actions``: the
  agent's actions in the env's own action space. An agent that plays on states (the bots,
  legal-random, fixed) acts through the env's mapping: its move is encoded with
  ``env.mapper.encode`` (so in ``choice_discrete`` the stroke is binned); the action is
  cast to the action space's dtype before the env plays it (a Box is float32), so what is
  recorded is exactly what was played. A saved model whose mapping and
  observation format are the env's acts on the env's observation directly.
- ``rewards``, ``terminations``, ``truncations`` as the env returned them.
- ``infos``: light, fixed keys (``LIGHT_INFO_KEYS``), never whole game states:
  ``action_masks`` (the masked action modes: the masks of the state the observation shows, what
  behaviour cloning trains with; all True once the episode is over), and for the game envs
  ``legal`` (the agent's own shot this step: 1 legal, 0 a foul, -1 no shot), ``fouls`` (its
  WPA foul sections, comma-separated), ``potted`` (object balls it pocketed legally),
  ``opponent_fouls`` and ``opponent_potted`` (the opponent's replies), ``racks_won``
  (agent, opponent) and ``verdict`` (the rules' verdict of the agent's shot, as the
  rendered frames say it); for PotBall ``target``, ``potted`` and ``scratched``.
- the episode's ``seed`` (Minari's episode metadata): ``reset(seed=...)`` with it and the
  recorded actions replay the episode exactly (the opponent is reseeded from the env's
  generator on every reset).

The dataset's metadata: ``algorithm_name`` (the agent's name), a ``description`` naming the
agent, opponent, env and poolgym version (``minari show`` prints it), and the same as keys:
``poolgym_version``, ``agent``, ``opponent``, ``action_mode``, ``obs_mode`` and
``collections`` (one entry per run: first seed, episodes, seconds). Episode ``i`` of a run
started with ``seed`` is reset with ``seed + n + i``, ``n`` the episodes the dataset held
before the run (0 for a new one), so a run appended with the same ``seed`` plays new racks.

Several episodes at a time: with ``num_envs=N`` (``--num-envs``) the episodes are played N
at a time on the id's batched env (``gym.make_vec``), each table by an agent of its own,
each table taking the next seed when its episode ends. A table's episode is its single
env's, and every agent starts each episode afresh from its seed, so the dataset is the one
one env records, episode for episode; episodes are handed to the dataset in seed order.
An interrupted run keeps the finished episodes up to the first unfinished one.

Appending: a dataset id that exists is opened through poolgym's checks
(``poolgym.agents.datasets.checks``: a dataset is data, and a damaged one is refused in one
line) and gets the new episodes after its own, once its env spec (id, entry point, keyword
arguments, step limit), spaces and agent are found equal to this run's; otherwise
``ValueError`` naming what differs.

Nothing is lost: the run writes into a working copy beside the dataset's folder (hidden:
``.<name>.<random>.tmp``; the dataset copied there first when appending) and puts it in
the folder's place when the run ends, so a failure at any point (a full disk, a crash)
leaves the dataset as it was and its id usable. Episodes are written to the copy every
``flush_every`` finished episodes (so memory holds one batch) and when the run ends or is
interrupted (Ctrl-C, or SIGTERM, which acts as Ctrl-C while a collection runs): an
interrupted collection keeps every finished episode and drops the one in progress; a
process killed outright (SIGKILL, a crash) keeps none of the run's, the dataset as it was. Free space for each batch is checked before it is written. One run writes
a dataset at a time: it holds the dataset's lock (``.<name>.lock`` beside its folder), and a
second run on the same id is refused naming the dataset.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import re
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import gymnasium as gym
import numpy as np

import poolgym
from poolgym.agents.datasets.checks import dataset_folder, load_dataset
from poolgym.envs.seeded_tables import play_seeds, tables_like
from poolgym.files import replace_folder

# Minari's ``namespace/name-vN`` ids (the namespace may be nested: ``poolgym/nine-ball``).
DATASET_ID = re.compile(r"^(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+-v\d+$")
# Finished episodes written per batch: what an interrupted collection can lose at most is
# the episode in progress; between batches they wait in memory.
FLUSH_EVERY = 20
GAME_INFO_KEYS = ("legal", "fouls", "potted", "opponent_fouls", "opponent_potted", "racks_won", "verdict")
POT_BALL_INFO_KEYS = ("target", "potted", "scratched")
LIGHT_INFO_KEYS = ("action_masks",) + GAME_INFO_KEYS + POT_BALL_INFO_KEYS
# A small dataset shipped with poolgym for tests and examples: bot:fast against legal-random
# in NineBall-v1 (choice_discrete, flat), six episodes; point MINARI_DATASETS_PATH here.
SHIPPED_DATASETS_PATH = Path(__file__).resolve().parent / "shipped"
SHIPPED_DATASET_ID = "poolgym/nine-ball/bot-fast-tiny-v0"
# The spec fields that must agree before episodes are appended to a dataset.
SPEC_FIELDS = ("id", "entry_point", "kwargs", "max_episode_steps")
# Free space kept beyond twice a batch's arrays before it is written (HDF5's own structures).
FREE_SPACE_MARGIN = 1 << 20


def require_minari():
    """The ``minari`` module, or ``ValueError`` saying how to install it."""
    try:
        import minari
    except ImportError:
        raise ValueError("datasets need Minari and h5py: pip install 'poolgym[datasets]'") from None
    return minari


def check_dataset_id(dataset_id: Any) -> str:
    """``dataset_id`` if it is Minari's ``namespace/name-vN`` form, else ``ValueError``."""
    message = (f"dataset_id must be Minari's 'namespace/name-vN' form (e.g. "
               f"'poolgym/nine-ball/bot-fast-v0'), got {dataset_id!r}")
    if not isinstance(dataset_id, str) or not DATASET_ID.match(dataset_id):
        raise ValueError(message)
    try:  # Minari's own parser too (a namespace takes two characters or more)
        from minari.dataset.minari_dataset import parse_dataset_id
    except ImportError:
        return dataset_id
    try:
        parse_dataset_id(dataset_id)
    except ValueError:
        raise ValueError(message) from None
    return dataset_id


def _count(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class CollectResult:
    """What a collection wrote: ``episodes`` and ``steps`` recorded in this run (the
    dataset's totals after it in ``total_episodes`` / ``total_steps``), its wall time
    (``seconds``), the agent's rate, whether it was ``interrupted``, and ``path``."""

    dataset_id: str
    agent: str
    episodes: int
    steps: int
    seconds: float
    total_episodes: int
    total_steps: int
    size_bytes: int
    path: str
    interrupted: bool

    @property
    def episodes_per_s(self) -> float:
        return self.episodes / self.seconds if self.seconds > 0 else math.nan

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else math.nan

    def to_dict(self) -> dict:
        return {**{f: getattr(self, f) for f in self.__dataclass_fields__},
                "episodes_per_s": round(self.episodes_per_s, 3), "steps_per_s": round(self.steps_per_s, 2)}


class EnvActor:
    """An agent acting in one env: ``act(obs)`` is its action in the env's action space for
    the env's current state. Agents that play on states are rebuilt when the env's rules
    object changes (PotBall's drill rules name each episode's target) and reseeded every
    episode (``start``), so an episode's actions depend only on its seed."""

    def __init__(self, spec: str, env: gym.Env, seed: int, trusted: bool = False, agent=None) -> None:
        from poolgym.agents.evaluation.loading import PolicyAgent, make_agent

        self.env, self.game = env, env.unwrapped
        self._make = lambda rules, s: make_agent(spec, rules, seed=s, noise=self.game.simulator.noise,
                                                 action_mode=self.game.mapper.mode, obs_mode=self.game.obs_mode,
                                                 max_speed=self.game.mapper.max_speed,
                                                 elevation=bool(getattr(self.game, "elevation", False)),
                                                 trusted=trusted)
        self._rules = self.game.rules
        self.agent = agent if agent is not None else self._make(self._rules, seed)
        self._direct = isinstance(self.agent, PolicyAgent) and self._same_format(self.agent)

    @property
    def batches(self) -> bool:
        """Whether the agent is a network reading the env's observations as they are whose
        actions for many tables at once are those it takes for each alone
        (``SB3Policy.batchable``): the tables may then share it, one call for all."""
        return self._direct and self.agent.batchable

    def _same_format(self, agent) -> bool:
        """A policy that reads the env's observation and writes its actions as they are."""
        record = getattr(agent, "env_record", None)
        if record is None:
            return False
        from poolgym.envs.sb3_models import env_side

        return all(record.get(k) == v for k, v in env_side(self.env).items())

    def start(self, seed: int) -> None:
        """A new episode has been reset: the agent for its rules, reseeded with ``seed``. A
        network that reads the env's observations as they are plays on without its rules."""
        if self.game.rules is not self._rules and not self._direct:
            self._rules = self.game.rules
            self.agent = self._make(self._rules, seed)
        elif hasattr(self.agent, "reseed"):
            self.agent.reseed(seed)

    def act(self, obs):
        game = self.game
        if game.state.is_over:
            # The opponent won the match before the agent's first move (it broke and ran
            # out): the env ends the episode on this step without playing its action.
            return np.zeros(self.env.action_space.shape, dtype=self.env.action_space.dtype)
        if self._direct:
            info = {"state": game.state, "player": 0}
            if game.mapper.masked:
                info["action_masks"] = game.action_masks()
            return np.asarray(self.agent.policy(obs, info))
        move = self.agent.choose(game.state)
        return game.mapper.encode(move, game.state, game.rules)


def light_info(env: gym.Env, info: dict, done: bool) -> dict:
    """The recorded info of one reset or step (module docstring): fixed keys and types
    every step, so Minari stores them as arrays."""
    game = env.unwrapped
    out: dict[str, Any] = {}
    if game.mapper.masked:
        out["action_masks"] = (np.ones(len(game.action_masks()), dtype=bool) if done
                               else np.asarray(game.action_masks(), dtype=bool))
    if "outcomes" not in info:  # the PotBall drill
        out["target"] = int(info.get("target", game.target))
        out["potted"] = int(bool(info.get("potted", False)))
        out["scratched"] = int(bool(info.get("scratched", False)))
        return out
    from poolgym.render.overlay import shot_verdict

    # In solo play (NineBallSolo) the agent plays both sides: every shot is its own.
    ours = [game.solo or o.shooter == game.agent for o in info["outcomes"]]
    mine = [o for o, own in zip(info["outcomes"], ours) if own]
    theirs = [o for o, own in zip(info["outcomes"], ours) if not own]
    out["legal"] = -1 if not mine else int(all(o.legal for o in mine))
    out["fouls"] = ",".join(s for o in mine for s in o.foul_sections)
    out["potted"] = sum(len(o.pocketed_legally) for o in mine)
    out["opponent_fouls"] = sum(len(o.fouls) for o in theirs)
    out["opponent_potted"] = sum(len(o.pocketed_legally) for o in theirs)
    out["racks_won"] = np.asarray(info["racks_won"], dtype=np.int64)
    out["verdict"] = " / ".join(shot_verdict(o, ("agent", "opponent")) for o in mine)
    return out


class _Episode:
    """One episode's steps as Minari's ``EpisodeBuffer`` wants them (no JAX: observations,
    actions and infos are stacked here, by key for Dict values)."""

    def __init__(self, seed: int, obs, info: dict) -> None:
        self.seed = seed
        self.observations, self.infos = [obs], [info]
        self.actions: list = []
        self.rewards: list[float] = []
        self.terminations: list[bool] = []
        self.truncations: list[bool] = []

    def add(self, action, obs, reward, terminated, truncated, info) -> None:
        self.actions.append(action)
        self.observations.append(obs)
        self.rewards.append(float(reward))
        self.terminations.append(bool(terminated))
        self.truncations.append(bool(truncated))
        self.infos.append(info)

    def nbytes(self) -> int:
        """About the bytes of the episode's arrays (strings by their length)."""
        def size(value) -> int:
            if isinstance(value, dict):
                return sum(size(v) for v in value.values())
            if isinstance(value, str):
                return len(value.encode())
            return np.asarray(value).nbytes if not isinstance(value, list) else sum(size(v) for v in value)

        return sum(size(v) for v in (self.observations, self.actions, self.rewards, self.terminations,
                                     self.truncations, self.infos))

    def buffer(self):
        from minari.data_collector import EpisodeBuffer

        return EpisodeBuffer(seed=self.seed, observations=_stack(self.observations), actions=_stack(self.actions),
                             rewards=self.rewards, terminations=self.terminations, truncations=self.truncations,
                             infos=_stack(self.infos))


def _stack(values: list):
    """A list of per-step values as arrays along a first axis; dicts key by key."""
    first = values[0]
    if isinstance(first, dict):
        return {k: _stack([v[k] for v in values]) for k in first}
    if isinstance(first, str):
        return list(values)
    return np.stack([np.asarray(v) for v in values])


def _size_on_disk(path) -> int:
    """Bytes of the files under ``path`` (0 when there is none)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def _spec_fields(spec) -> dict:
    return {f: getattr(spec, f) for f in SPEC_FIELDS}


def _check_appendable(dataset, env: gym.Env, agent: str) -> None:
    """``ValueError`` naming the difference when ``env``'s episodes do not belong in ``dataset``."""
    ours, theirs = _spec_fields(env.spec), _spec_fields(dataset.spec.env_spec)
    differ = [f"{k}: dataset {theirs[k]!r}, this run {ours[k]!r}" for k in SPEC_FIELDS if ours[k] != theirs[k]]
    if dataset.observation_space != env.observation_space:
        differ.append("observation_space")
    if dataset.action_space != env.action_space:
        differ.append("action_space")
    recorded = dataset.storage.metadata.get("agent")
    if recorded != agent:
        differ.append(f"agent: dataset {recorded!r}, this run {agent!r}")
    if differ:
        raise ValueError(f"dataset {dataset.spec.dataset_id} was recorded in another env or by another agent; "
                         f"cannot append: {'; '.join(differ)}")


def make_collection_env(env_id: str, opponent: str | None = None, action_mode: str | None = None,
                        obs_mode: str | None = None, pot_residual: str | None = None,
                        lookahead_samples: int | None = None) -> gym.Env:
    """``gymnasium.make(env_id, ...)`` with only the arguments given, so the spec (what
    ``recover_environment()`` rebuilds) says exactly how the env was made;
    ``lookahead_samples`` turns the choice modes' lookahead entry on with that many plays
    per stroke (``lookahead=True``)."""
    if not isinstance(env_id, str) or env_id not in gym.registry:
        raise ValueError(f"env must be a registered id such as 'poolgym/NineBall-v1', got {env_id!r}")
    kwargs = {k: v for k, v in (("opponent", opponent), ("action_mode", action_mode), ("obs_mode", obs_mode),
                                ("pot_residual", pot_residual)) if v is not None}
    if lookahead_samples is not None:
        kwargs.update(lookahead=True, lookahead_samples=lookahead_samples)
    if opponent is not None and not isinstance(opponent, str):
        raise ValueError(f"opponent must be a ladder name (a string the env spec can record), got {opponent!r}")
    if action_mode is not None and not isinstance(action_mode, str):
        raise ValueError(f"action_mode must be a string, got {action_mode!r}")
    try:
        return gym.make(env_id, **kwargs)
    except TypeError as exc:  # an argument the env does not take (PotBall has no opponent)
        raise ValueError(f"{env_id} does not take these arguments {sorted(kwargs)}: {exc}") from None


def collect(agent: str, env_id: str, episodes: int, dataset_id: str, *, opponent: str | None = None,
            action_mode: str | None = None, obs_mode: str | None = None, pot_residual: str | None = None,
            lookahead_samples: int | None = None, seed: int = 0, num_envs: int = 1,
            flush_every: int = FLUSH_EVERY, progress: Callable[[], None] | None = None,
            stop_after: int | None = None, trust_model: bool = False) -> CollectResult:
    """Record ``episodes`` episodes of ``agent`` (a ladder name or model spec) in ``env_id``
    into the Minari dataset ``dataset_id`` (module docstring), in an env made with the given
    arguments (``make_collection_env``); ``progress()`` is called
    after each episode. ``num_envs`` above one plays that many episodes at a time on the
    id's batched env (``gym.make_vec``), one agent per table: the dataset is the one a
    single env records, episode for episode (``_played_on_tables``). ``stop_after`` raises
    ``KeyboardInterrupt`` after that many steps of
    this run, as a Ctrl-C would (for tests of an interrupted collection). A
    ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM while the collection runs) keeps the finished
    episodes and is raised again after they are written; ``CollectResult.interrupted`` is
    then on the exception's ``result``. Another run on the same ``dataset_id`` meanwhile is
    refused (``dataset_lock``). ``trust_model``: a model agent may be unpickled
    (``poolgym.envs.sb3_models.load_model``)."""
    minari = require_minari()
    check_dataset_id(dataset_id)
    if not isinstance(agent, str):
        raise ValueError(f"agent must be a ladder name or model spec (a string), got {agent!r}")
    episodes = _count(episodes, "episodes", 1)
    seed = _count(seed, "seed", 0)
    num_envs = _count(num_envs, "num_envs", 1)
    flush_every = _count(flush_every, "flush_every", 1)
    env = make_collection_env(env_id, opponent, action_mode, obs_mode, pot_residual, lookahead_samples)
    tables = None
    try:
        if num_envs > 1 and episodes > 1:
            # The id's batched env, made with the arguments the single env's spec records;
            # an id without one (make_vec wraps single envs) plays one episode at a time.
            tables = tables_like(env, min(num_envs, episodes))
        with dataset_lock(dataset_id), _Interrupts().installed() as interrupts:
            return _collect(minari, agent, env, tables, episodes, dataset_id, opponent, seed, flush_every,
                            progress, stop_after, interrupts, trust_model)
    finally:
        env.close()
        if tables is not None:
            tables.close()


def _collect(minari, agent: str, env: gym.Env, tables, episodes: int, dataset_id: str, opponent: str | None,
             seed: int, flush_every: int, progress: Callable[[], None] | None, stop_after: int | None,
             interrupts: _Interrupts, trust_model: bool) -> CollectResult:
    """``collect`` once the arguments are checked, the env (and with ``num_envs``, the
    batched ``tables``) made and the dataset's lock held."""
    folder = dataset_folder(dataset_id)
    _remove_leftovers(folder)
    existing = load_dataset(dataset_id) if (folder / "data").exists() else None
    if existing is not None:
        _check_appendable(existing, env, agent)
    writer = _Writer(minari, dataset_id, env, agent, opponent, existing)
    # Appended episodes take the seeds after the dataset's own.
    first_seed = seed + writer.total_episodes
    seeds = range(first_seed, first_seed + episodes)
    counted = _StepCount(stop_after)
    start = time.perf_counter()
    interrupted = None
    try:
        if tables is None:
            played = _played_one_by_one(env, EnvActor(agent, env, seed, trusted=trust_model), seeds, counted)
        else:
            played = _played_on_tables(tables, _table_actors(agent, tables, seed, trust_model), seeds, counted)
        for episode in played:
            writer.add(episode)
            if progress is not None:
                progress()
            if len(writer.pending) >= flush_every:
                with interrupts.writing():
                    writer.flush()
    except BaseException as exc:  # Ctrl-C, or an agent that failed: keep what was finished
        interrupted = exc
    seconds = time.perf_counter() - start
    try:
        if writer.failed is None:
            with interrupts.writing(then_raise=False):
                writer.flush(seconds=seconds, first_seed=first_seed)
                writer.publish()
    finally:
        writer.discard()
    if writer.failed is not None:
        raise writer.failed
    result = CollectResult(dataset_id, agent, writer.recorded_episodes, writer.recorded_steps,
                           round(seconds, 3), writer.total_episodes, writer.total_steps,
                           _size_on_disk(folder), str(folder), interrupted is not None)
    if interrupted is not None:
        if isinstance(interrupted, KeyboardInterrupt):
            interrupted.result = result
        raise interrupted
    return result


class _StepCount:
    """The steps a collection has played; ``KeyboardInterrupt`` once there are ``stop_after``."""

    def __init__(self, stop_after: int | None) -> None:
        self.stop_after = stop_after
        self.steps = 0

    def add(self) -> None:
        self.steps += 1
        if self.stop_after is not None and self.steps >= self.stop_after:
            raise KeyboardInterrupt


def _played_one_by_one(env: gym.Env, actor: EnvActor, seeds: range, counted: _StepCount) -> Iterator[_Episode]:
    """Each episode of ``seeds`` played in ``env`` by ``actor``, in order."""
    game = env.unwrapped
    for episode_seed in seeds:
        obs, info = env.reset(seed=episode_seed)
        actor.start(episode_seed)
        episode = _Episode(episode_seed, obs, light_info(env, info, False))
        finished = False
        while not finished:
            action = _played(actor, game, obs, env.action_space.dtype)
            obs, reward, terminated, truncated, info = env.step(action)
            finished = terminated or truncated
            episode.add(action, obs, reward, terminated, truncated, light_info(env, info, finished))
            counted.add()
        yield episode


def _table_actors(agent: str, tables, seed: int, trusted: bool) -> list[EnvActor]:
    """An actor per table; a network that batches (``EnvActor.batches``) is loaded once
    and shared by them."""
    first = EnvActor(agent, tables.tables[0], seed, trusted=trusted)
    shared = first.agent if first.batches else None
    return [first] + [EnvActor(agent, table, seed, trusted=trusted, agent=shared) for table in tables.tables[1:]]


def _played_on_tables(tables, actors: list[EnvActor], seeds: range, counted: _StepCount) -> Iterator[_Episode]:
    """The episodes of ``seeds`` played on the batched env's ``tables`` and handed on in
    seed order (``poolgym.envs.seeded_tables.play_seeds``), each table with its own actor
    (``actors``). Each actor starts every episode afresh from its seed
    (``EnvActor.start``), so each episode is the one ``_played_one_by_one`` plays. A
    network shared by the actors (``_table_actors``) chooses for all the tables in one
    call (``_network_actions``)."""
    dtype = tables.single_action_space.dtype
    network = actors[0].agent if actors[0].batches else None

    def begin(j: int, episode_seed: int, obs, info: dict) -> _Episode:
        actors[j].start(episode_seed)
        return _Episode(episode_seed, obs, light_info(tables.tables[j], info, False))

    def actions(which: list[int], observations: list) -> list:
        if network is not None:
            return _network_actions(network, actors, tables, which, observations)
        return [_played(actors[j], tables.tables[j], obs, dtype) for j, obs in zip(which, observations)]

    def record(j: int, episode: _Episode, action, step: tuple) -> None:
        obs, reward, terminated, truncated, info = step
        done = terminated or truncated
        episode.add(action, obs, reward, terminated, truncated, light_info(tables.tables[j], info, done))
        counted.add()

    return play_seeds(tables, seeds, begin, actions, record)


def _network_actions(network, actors: list[EnvActor], tables, which: list[int],
                     observations: list) -> list[np.ndarray]:
    """``_played`` of a batching network (``EnvActor.batches``) shared by ``actors`` at the
    tables ``which``: one call of its policy for all the tables whose match is not over,
    the others as their actors play them (``EnvActor.act``)."""
    dtype = tables.single_action_space.dtype
    games = [tables.tables[j].unwrapped for j in which]
    out: list = [None] * len(which)
    live = []
    for i, (game, j) in enumerate(zip(games, which)):
        if game.state.is_over:
            out[i] = _played(actors[j], tables.tables[j], observations[i], dtype)
        else:
            live.append(i)
    if live:
        masks = [games[i].action_masks() for i in live] if games[0].mapper.masked else None
        for i, action in zip(live, network.policy.act_batch([observations[i] for i in live], masks)):
            out[i] = np.asarray(games[i].mapper.validate(action)).astype(dtype)
    return out


def _played(actor: EnvActor, game, obs, dtype) -> np.ndarray:
    """The actor's action, played as recorded: in the action space's dtype (a Box is
    float32, so a bot's float64 stroke is rounded before the env sees it)."""
    return np.asarray(game.mapper.validate(actor.act(obs))).astype(dtype)


@contextlib.contextmanager
def dataset_lock(dataset_id: str) -> Iterator[Path]:
    """Holds the lock of ``dataset_id`` (a file beside its folder, ``.<name>.lock``) for the
    ``with`` block: ``ValueError`` naming the dataset when another process writes it. The
    system drops the lock when its holder ends, however it ends; the file stays."""
    import fcntl

    folder = dataset_folder(dataset_id)
    folder.parent.mkdir(parents=True, exist_ok=True)
    lock = folder.parent / f".{folder.name}.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ValueError(f"dataset {dataset_id} is being written by another process (it holds {lock}); "
                             f"wait for that collection to end, or choose another --dataset-id") from None
        yield lock
    finally:
        os.close(fd)


class _Interrupts:
    """Ctrl-C and SIGTERM (a job's time limit, ``kill``) during a collection: a
    ``KeyboardInterrupt`` between writes, so the finished episodes are put in place before
    the process ends; one that comes while a batch is written or the copy put in place
    (``writing``) waits until that is done, so it never leaves a half-written copy. Only in
    the main thread, where Python takes signals; elsewhere nothing changes."""

    def __init__(self) -> None:
        self.busy = False
        self.pending = False

    @contextlib.contextmanager
    def installed(self) -> Iterator["_Interrupts"]:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = {sig: signal.signal(sig, self._handle) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _handle(self, signum, frame) -> None:
        if self.busy:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def writing(self, then_raise: bool = True) -> Iterator[None]:
        """The block runs to its end; an interrupt that came meanwhile is raised after it
        (when ``then_raise``) or dropped (the collection is ending anyway)."""
        self.busy = True
        try:
            yield
        finally:
            self.busy = False
        if self.pending:
            self.pending = False
            if then_raise:
                raise KeyboardInterrupt


def _remove_leftovers(folder: Path) -> None:
    """Removes the working copies a killed collection left beside ``folder`` (hidden, so
    Minari never lists them); called with the dataset's lock held, so none is in use."""
    import shutil

    pattern = re.compile(re.escape(f".{folder.name}.") + r"[0-9a-f]{8}\.(tmp|old)")
    if folder.parent.is_dir():
        for path in folder.parent.iterdir():
            if pattern.fullmatch(path.name) and path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)


class _Writer:
    """Writes finished episodes into a working copy of the dataset beside its folder (the
    dataset copied there when it exists), batch by batch, and puts the copy in the
    dataset's place at the end (``publish``): a failure at any point (a full disk) leaves
    the dataset as it was. The run's entry in ``collections`` is written with the last batch."""

    def __init__(self, minari, dataset_id: str, env: gym.Env, agent: str, opponent: str | None, existing) -> None:
        self.minari, self.dataset_id, self.env, self.agent = minari, dataset_id, env, agent
        self.opponent = opponent if opponent is not None else env.spec.kwargs.get("opponent")
        self.folder = dataset_folder(dataset_id)
        self.existing = existing
        self.total_episodes = int(existing.total_episodes) if existing is not None else 0
        self.total_steps = int(existing.total_steps) if existing is not None else 0
        self.work: Path | None = None
        self.dataset = None
        self.failed: BaseException | None = None
        self.pending: list[_Episode] = []
        self.recorded_steps = 0
        self.recorded_episodes = 0

    def add(self, episode: _Episode) -> None:
        self.pending.append(episode)

    def _description(self) -> str:
        game = self.env.unwrapped
        against = f" against {self.opponent}" if self.opponent is not None else ""
        return (f"{self.agent}{against} in {self.env.spec.id} (action_mode {game.mapper.mode}, obs_mode "
                f"{game.obs_mode}), recorded by poolgym {poolgym.__version__} (poolgym collect). Actions are "
                f"in the env's own action space; infos hold {', '.join(self._info_keys())}; every "
                f"episode's seed replays it with recover_environment().")

    def _info_keys(self) -> list[str]:
        first = self.pending[0].infos[0] if self.pending else {}
        return sorted(first)

    def flush(self, seconds: float | None = None, first_seed: int | None = None) -> None:
        """Writes the pending episodes into the working copy (and, with ``seconds``, the
        run's entry in ``collections``). A failure discards the copy and is kept in
        ``failed``, raised as an ``OSError`` naming the dataset when it was one."""
        try:
            self._flush(seconds, first_seed)
        except BaseException as exc:
            self.discard()
            if isinstance(exc, (OSError, RuntimeError)):  # h5py's errors of a full disk are either
                code = getattr(exc, "errno", None) or (errno.ENOSPC if "errno = 28" in str(exc) else errno.EIO)
                exc = OSError(code,
                              f"cannot write dataset {self.dataset_id} ({_one_line(exc)}); the dataset "
                              f"is unchanged")
            self.failed = exc
            raise exc from None

    def _flush(self, seconds: float | None, first_seed: int | None) -> None:
        import shutil

        from minari.dataset.minari_dataset import MinariDataset
        from minari.dataset.minari_storage import MinariStorage

        buffers = [e.buffer() for e in self.pending]
        if self.dataset is None and not buffers:
            return
        # HDF5 meets a full disk badly (a cascade of errors, at times a crash as the process
        # ends): the space is checked first, so a full disk is met here in one line.
        needed = 2 * sum(e.nbytes() for e in self.pending) + FREE_SPACE_MARGIN
        if self.dataset is None:
            self.work = self.folder.with_name(f".{self.folder.name}.{uuid.uuid4().hex[:8]}.tmp")
            if self.existing is not None:
                _check_free_space(self.folder.parent, needed + _size_on_disk(self.folder))
                shutil.copytree(self.folder, self.work, symlinks=True)
                self.dataset = MinariDataset(self.work / "data")
            else:
                self.work.mkdir()
                game = self.env.unwrapped
                storage = MinariStorage.new(self.work / "data", self.env.observation_space, self.env.action_space,
                                            env_spec=self.env.spec)
                # What minari.create_dataset_from_buffers records, and poolgym's own keys.
                storage.update_metadata({
                    "dataset_id": self.dataset_id, "author": {"poolgym"}, "algorithm_name": self.agent,
                    "description": self._description(), "minari_version": self.minari.__version__,
                    "poolgym_version": poolgym.__version__, "agent": self.agent, "opponent": self.opponent,
                    "action_mode": game.mapper.mode, "obs_mode": game.obs_mode, "collections": []})
                self.dataset = MinariDataset(storage)
        if buffers:
            _check_free_space(self.work, needed)
            self.dataset.storage.update_episodes(buffers)
        self.recorded_steps += sum(len(e.rewards) for e in self.pending)
        self.recorded_episodes += len(self.pending)
        self.total_steps += sum(len(e.rewards) for e in self.pending)
        self.total_episodes += len(self.pending)
        self.pending = []
        if seconds is not None:
            collections = list(self.dataset.storage.metadata.get("collections", []))
            collections.append({"first_seed": first_seed, "episodes": self.recorded_episodes,
                                "steps": self.recorded_steps, "seconds": round(seconds, 2),
                                "poolgym_version": poolgym.__version__})
            self.dataset.storage.update_metadata({"collections": collections})

    def publish(self) -> None:
        """Puts the working copy in the dataset's place (nothing when no episode was written)."""
        if self.work is None:
            return
        from minari.dataset.minari_dataset import parse_dataset_id
        from minari.namespace import create_namespace, list_local_namespaces

        namespace = parse_dataset_id(self.dataset_id)[0]
        if namespace is not None and namespace not in list_local_namespaces():
            create_namespace(namespace)
        try:
            replace_folder(self.work, self.folder)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot write dataset {self.dataset_id} ({_one_line(exc)}); the dataset "
                                     f"is unchanged") from None
        self.work = None

    def discard(self) -> None:
        """Removes the working copy, if one is left."""
        import shutil

        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None


def _check_free_space(folder: Path, needed: int) -> None:
    """``OSError`` (ENOSPC) when the file system of ``folder`` has less than ``needed`` bytes free."""
    stats = os.statvfs(folder)
    free = stats.f_bavail * stats.f_frsize
    if free < needed:
        raise OSError(errno.ENOSPC, f"needs about {needed / 1e6:.1f} MB, {free / 1e6:.1f} MB free in {folder}")


def _one_line(exc: BaseException) -> str:
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    lines = text.strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def describe(dataset_id: str) -> dict:
    """A dataset's figures (docs/datasets.md): episodes, steps, size on disk, the collection
    runs' seconds, and how the recorded agent did: racks won (game envs; an episode is won
    when the agent's racks exceed the opponent's at its end) or pots (PotBall), with 95%
    Wilson intervals."""
    from poolgym.agents.evaluation.evaluate import wilson_interval

    dataset = load_dataset(check_dataset_id(dataset_id))
    meta = dataset.storage.metadata
    wins = episodes = 0
    for episode in dataset.iterate_episodes():
        episodes += 1
        infos = episode.infos
        if "racks_won" in infos:
            agent, opponent = infos["racks_won"][-1]
            wins += int(agent > opponent)
        else:
            wins += int(infos["potted"][-1] and not infos["scratched"][-1])
    low, high = wilson_interval(wins, episodes)
    what = "racks_won" if "racks_won" in dataset[0].infos else "pots"
    return {"dataset_id": dataset_id, "agent": meta.get("agent"), "opponent": meta.get("opponent"),
            "env_id": dataset.spec.env_spec.id, "action_mode": meta.get("action_mode"),
            "obs_mode": meta.get("obs_mode"), "episodes": episodes, "steps": int(dataset.total_steps),
            "size_bytes": _size_on_disk(dataset_folder(dataset_id)),
            "seconds": round(sum(c["seconds"] for c in meta.get("collections", [])), 1),
            "poolgym_version": meta.get("poolgym_version"),
            what: {"count": wins, "rate": round(wins / episodes, 4), "ci95": [round(low, 4), round(high, 4)]}}
