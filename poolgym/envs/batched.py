"""The envs batched: ``gym.make_vec(id, num_envs=N)`` for a ``PoolEnv`` id (the ids'
``vector_entry_point``, ``poolgym.envs.sharded``) gives ``BatchedPoolEnv``, a
``gymnasium.vector.VectorEnv`` of N tables whose shots are simulated together; for a
``PotBallEnv`` id, ``BatchedPotBallEnv``. With ``num_workers`` above one, shards of them
step in several processes (``poolgym.envs.sharded.ShardedTables``).

Each table is a ``PoolEnv`` built from the same arguments: its state, generator and
opponent are the single env's own, and its step is the single env's, in phases
(``PoolEnv.begin_step``, ``stage_move``, ``finish_move``, ``end_step``). Between the
phases the batch plays every table's staged shot in one compiled call, which also reads
the facts each table's rules judge (``poolgym.envs.play.simulate_staged``): the agents'
shots, then, round by round, the opponents' shots of every table whose opponent is to
act, until each table is back to its agent.
Table ``i`` reset with seed ``s_i`` and given actions ``a_i`` therefore gives exactly what
``gym.make(id)`` gives from ``s_i`` and ``a_i`` (tests/envs/test_batched_env.py): the same
noise from the same generator in the same order, the same rules engine.

Autoreset is Gymnasium's ``NEXT_STEP`` by default (``metadata["autoreset_mode"]``), as
``SyncVectorEnv``'s: the step after a table's episode ends resets it (no seed: its
generator goes on) and ignores its action. ``autoreset_mode=AutoresetMode.SAME_STEP``
resets it in the step that ends it, as ``SyncVectorEnv`` does in that mode: the reset's
observation and info are returned, the last ones in ``info["final_obs"]`` and
``info["final_info"]`` (what stable-baselines3's autoreset needs,
``poolgym.envs.sb3_vec_env``). The registered step limit truncates each
table as ``gymnasium.wrappers.TimeLimit`` does. Infos are stacked as Gymnasium's vector
envs stack them (a key per info entry, ``_key`` its mask).
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, iterate

from poolgym.envs.play import simulate_staged
from poolgym.envs.pool_env import MoveRecord, PoolEnv, StagedMove
from poolgym.envs.practice import PotBallEnv
from poolgym.envs.stacking import stack_infos, stack_observations
from poolgym.numbers import quote, seed as check_seed
from poolgym.physics.threads import KernelThreads, thread_count
from poolgym.rules import Outcome


class BatchedTables(VectorEnv):
    """``num_envs`` tables of ``table_class(**kwargs)`` stepped together: what the batched
    envs share (arguments, seeds, autoreset, the step limit, stacking); ``play_phase`` is
    each kind's own. ``max_episode_steps`` truncates each table's episode (``gym.make_vec``
    passes the id's). ``num_threads`` threads share each compiled call (default 1; None:
    the cores available to the process), never more than the tables; every output is the
    same for any count. One is the default because the call is a small part of a step: a
    second thread gained 0-4% on idle cores and lost 5-17% on busy ones
    (benchmarks/results/throughput/batched_threads.md); with ``lookahead=True``, whose
    plays the threads share too, it gained 40% (``lookahead_threads.md`` there).
    ``autoreset_mode``: ``NEXT_STEP`` or ``SAME_STEP`` (module docstring). Rendering is not
    batched: ``render_mode`` and ``trajectories`` are refused."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    table_class: type = PoolEnv

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = None, *, num_threads: int | None = 1,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, **kwargs: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        self.autoreset_mode = autoreset_mode_of(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        if max_episode_steps is not None and (isinstance(max_episode_steps, bool) or not isinstance(
                max_episode_steps, numbers.Integral) or max_episode_steps < 1):
            raise ValueError(f"max_episode_steps must be a whole number >= 1 or None, got {max_episode_steps!r}")
        threads = min(thread_count(num_threads), int(num_envs))
        for name in ("render_mode", "trajectories"):
            if kwargs.get(name):
                raise ValueError(f"{name} is not batched: use gym.make_vec(id, num_envs, vectorization_mode='sync') "
                                 f"or gym.make(id, {name}=...) for rendering")
        self.num_envs = int(num_envs)
        self.max_episode_steps = None if max_episode_steps is None else int(max_episode_steps)
        opponents = table_opponents(kwargs.get("opponent"), self.num_envs)
        self.tables = [self.table_class(**({**kwargs, "opponent": opponents[i]} if opponents else kwargs))
                       for i in range(self.num_envs)]
        first = self.tables[0]
        self.simulator = first.simulator  # every table's simulator is built alike: one plays them all
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._elapsed = np.zeros(self.num_envs, np.int64)
        self._autoreset = np.zeros(self.num_envs, np.bool_)
        self.num_threads = threads
        self._threads = KernelThreads(threads) if threads > 1 else None

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | list[int | None] | None = None, options: dict | None = None):
        """Reset every table: ``seed`` None, an int ``s`` (table ``i`` gets ``s + i``) or one
        seed per table; ``options`` go to each table's ``PoolEnv.reset``."""
        super().reset(seed=None)
        observations, infos = self.reset_each(table_seeds(seed, self.num_envs), options)
        return observations, self._stack_infos(infos)

    def reset_each(self, seeds: list[int | None], options: dict | None = None) -> tuple[Any, list[dict]]:
        """Reset table ``i`` with ``seeds[i]`` (checked, ``table_seeds``): the observations
        stacked, and each table's info."""
        observations, infos = self.reset_tables(seeds, options)
        return self._stack(observations), infos

    def reset_tables(self, seeds: list[int | None], options: dict | None = None) -> tuple[list, list[dict]]:
        """``reset`` with one checked seed per table (``table_seeds``): each table's
        observation and info, unstacked."""
        observations, infos = [], []
        for i, table_seed in enumerate(seeds):
            obs, info = self.reset_table(i, seed=table_seed, options=options)
            observations.append(obs)
            infos.append(info)
        self._autoreset[:] = False
        return observations, infos

    def step(self, actions):
        """Step every table: play its agent's action and its opponent's replies, every
        round of shots simulated in one call; a table whose episode ended at the last step
        is reset instead (``NEXT_STEP``), its action ignored, or a table whose episode ends
        is reset at once (``SAME_STEP``)."""
        stepped = self.step_tables(actions)
        return (*stepped[:4], self._stack_infos(with_finals(stepped)))

    def step_tables(self, actions) -> "TableSteps":
        """``step`` with each table's info apart: its ``TableSteps``, the observations stacked."""
        stepped = self.end_step(self.begin_step(actions))
        return stepped._replace(observations=self._stack(stepped.observations))

    def begin_step(self, actions) -> "PendingStep":
        """The first phase of ``step``: every playing table's moves played, all or nothing
        (when any table fails, every table is left as it was and the error is raised). The
        plays are held until ``end_step`` keeps them or ``pending.plays.undo()`` puts every
        table back: the form several processes' tables step together in (``ShardedTables``)."""
        actions = per_table(self, actions)
        resetting = self._autoreset.tolist()
        playing = [i for i, reset in enumerate(resetting) if not reset]
        return PendingStep(resetting, self.play_phase(playing, [actions[i] for i in playing]))

    def end_step(self, pending: "PendingStep") -> "TableSteps":
        """The last phase of ``step``: the plays of ``begin_step`` kept, the tables to reset
        reset (``autoreset_mode``); the tables' ``TableSteps``, their observations a list."""
        played = pending.plays.finish()
        observations, infos, finals = [], [], {}
        rewards = np.zeros(self.num_envs)
        terminations = np.zeros(self.num_envs, np.bool_)
        truncations = np.zeros(self.num_envs, np.bool_)
        same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        for i, reset in enumerate(pending.resetting):
            if reset:
                obs, info = self.reset_table(i)
            else:
                obs, rewards[i], terminations[i], truncations[i], info = played[i]
                if same_step and (terminations[i] or truncations[i]):
                    finals[i] = (obs, info)
                    obs, info = self.reset_table(i)
            observations.append(obs)
            infos.append(info)
        if not same_step:
            self._autoreset = terminations | truncations
        return TableSteps(observations, rewards, terminations, truncations, infos, finals)

    def action_masks(self) -> np.ndarray:
        """Each table's ``PoolEnv.action_masks()`` stacked (sb3-contrib's ``MaskablePPO``
        reads them); a table about to be reset (its action ignored) allows everything."""
        autoreset = self._autoreset.tolist()
        return np.stack([self._masks(table, ending) for table, ending in zip(self.tables, autoreset)])

    def table_action_masks(self, i: int) -> np.ndarray:
        """Table ``i``'s action masks (``action_masks``' row ``i``)."""
        i = self._table_index(i)
        return self._masks(self.tables[i], bool(self._autoreset[i]))

    def _masks(self, table: PoolEnv | PotBallEnv, ending: bool) -> np.ndarray:
        """``table``'s action masks; everything allowed when its ``ending`` episode makes the
        next step reset it (or it was never reset)."""
        if table.mapper.masked and (ending or table.state is None):
            space = self.single_action_space
            size = int(space.nvec.sum()) if hasattr(space, "nvec") else int(space.n)
            return np.ones(size, dtype=bool)
        return table.action_masks()

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple:
        """Each table's ``name``: its method called with the arguments, or its attribute."""
        found = [getattr(table, name) for table in self.tables]
        return tuple(f(*args, **kwargs) if callable(f) else f for f in found)

    def get_attr(self, name: str) -> tuple:
        """Each table's attribute ``name``."""
        return tuple(getattr(table, name) for table in self.tables)

    def table_attr(self, i: int, name: str) -> Any:
        """Table ``i``'s attribute ``name``."""
        return getattr(self.tables[self._table_index(i)], name)

    def set_table_attr(self, i: int, name: str, value: Any) -> None:
        """Set table ``i``'s attribute ``name`` to ``value``."""
        setattr(self.tables[self._table_index(i)], name, value)

    def table_call(self, i: int, name: str, *args: Any, **kwargs: Any) -> Any:
        """Table ``i``'s method ``name`` called with the arguments."""
        return getattr(self.tables[self._table_index(i)], name)(*args, **kwargs)

    def close_extras(self, **kwargs: Any) -> None:
        """Close every table and stop the threads (``VectorEnv.close`` calls this once)."""
        # getattr: an __init__ that refused its arguments made no tables, and Gymnasium's
        # __del__ still closes the env.
        for table in getattr(self, "tables", ()):
            table.close()
        if getattr(self, "_threads", None) is not None:
            self._threads.close()

    # ------------------------------------------------------------------ the tables
    def reset_table(self, i: int, seed: int | None = None, options: dict | None = None):
        """Reset table ``i`` alone (``PoolEnv.reset``); its observation and info."""
        i = self._table_index(i)
        self._elapsed[i] = 0
        self._autoreset[i] = False
        return self.tables[i].reset(seed=seed, options=options)

    def play_phase(self, which: list[int], actions: list) -> "HeldPlays":
        """Play the tables ``which`` with ``actions`` (one each), their shots simulated in
        one call, all or nothing (when any table fails, every table is left as it was and
        the error is raised); the plays are held until ``HeldPlays.finish`` keeps them and
        gives each table's step result (observation, reward, terminated, truncated, info,
        with the step limit's truncation) by table, or ``HeldPlays.undo`` leaves every
        table as it was before."""
        raise NotImplementedError

    def _limited(self, i: int, result: tuple) -> tuple:
        """Table ``i``'s step ``result`` counted against the step limit (truncated at it, as
        ``gymnasium.wrappers.TimeLimit``)."""
        obs, reward, terminated, truncated, info = result
        self._elapsed[i] += 1
        if self.max_episode_steps is not None and self._elapsed[i] >= self.max_episode_steps:
            truncated = True
        return obs, reward, terminated, truncated, info

    def _table_index(self, i) -> int:
        if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < self.num_envs:
            raise ValueError(f"table must be a whole number in 0..{self.num_envs - 1}, got {quote(i)}")
        return int(i)

    def _stack(self, observations: list):
        """The tables' observations stacked, as Gymnasium's ``concatenate`` stacks them."""
        return stack_observations(self.single_observation_space, observations)

    def _stack_infos(self, infos: list[dict]) -> dict:
        return stacked_infos(self, infos)


def table_opponents(opponent: Any, num_envs: int) -> list | None:
    """Each table's own ``opponent``, when it is an object (an agent, a policy): the first
    table takes it and the others a copy each. One object shared by the tables would be
    reseeded by each table's reset and would draw for all of them in turn, so no table
    would play the single env's game. None for a name or None (each table makes its own
    from the name). A function is shared: it is not copied. An object that cannot be
    copied is refused in one line."""
    if opponent is None or isinstance(opponent, str):
        return None
    try:
        return [opponent] + [copy.deepcopy(opponent) for _ in range(num_envs - 1)]
    except Exception as exc:  # whatever the object's own copying raises
        raise ValueError(f"opponent {quote(opponent)} cannot be copied for each of the {num_envs} tables "
                         f"({type(exc).__name__}: {exc}); pass its name, or use "
                         f"gym.make_vec(id, num_envs, vectorization_mode='sync')") from None


def autoreset_mode_of(mode) -> AutoresetMode:
    """``mode`` as an ``AutoresetMode`` (its value, such as ``"SameStep"``, too), or
    ``ValueError`` naming the two the batched envs offer."""
    offered = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
    for choice in offered:
        if mode is choice or (isinstance(mode, str) and mode == choice.value):
            return choice
    raise ValueError(f"autoreset_mode must be AutoresetMode.NEXT_STEP or AutoresetMode.SAME_STEP "
                     f"(or {offered[0].value!r}, {offered[1].value!r}), got {quote(mode)}")


def with_finals(stepped: "TableSteps") -> list[dict]:
    """The tables' infos of ``stepped`` as a vector step stacks them: a table reset in the
    step that ended it (``SAME_STEP``) with its last observation and info first, under
    ``final_obs`` and ``final_info``, as ``SyncVectorEnv`` adds them."""
    if not stepped.finals:
        return stepped.infos
    infos = list(stepped.infos)
    for i, (obs, info) in stepped.finals.items():
        infos[i] = {"final_obs": obs, "final_info": info, **infos[i]}
    return infos


def per_table(env: VectorEnv, actions) -> list:
    """``actions`` split into one action per table of ``env``, or ``ValueError`` when they are not
    ``num_envs`` of them (before any table plays)."""
    try:
        split = list(iterate(env.action_space, actions))
    except (TypeError, ValueError, IndexError):
        split = None
    if split is None or len(split) != env.num_envs:
        got = f"{len(split)} rows" if split is not None else quote(actions)
        raise ValueError(f"actions must hold one action per table ({env.num_envs} rows of "
                         f"{env.single_action_space}), got {got}")
    return split


def stacked_infos(env: VectorEnv, infos: list[dict]) -> dict:
    """The tables' infos stacked, as ``VectorEnv._add_info`` stacks them table by table
    (``stack_infos``; by ``env``'s ``_add_info`` itself where that depends on the order of
    its calls)."""
    stacked = stack_infos(infos, env.num_envs)
    if stacked is None:
        stacked = {}
        for i, info in enumerate(infos):
            stacked = env._add_info(stacked, info, i)
    return stacked


class BatchedPoolEnv(BatchedTables):
    """``num_envs`` tables of ``PoolEnv(**kwargs)`` stepped together (module docstring).
    Its ``num_threads`` threads share the tables' lookahead plays too (``lookahead=True``:
    ``PoolEnv.kernel_threads``)."""

    table_class = PoolEnv

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = None, **kwargs: Any) -> None:
        super().__init__(num_envs, max_episode_steps, **kwargs)
        for table in self.tables:
            table.kernel_threads = self._threads

    def play_phase(self, which: list[int], actions: list) -> "HeldPlays":
        """``BatchedTables.play_phase``: every round of the tables' shots simulated in one
        call, each table's step guarded (``PoolEnv._all_or_nothing``) until the plays are
        kept or undone."""
        tables = self.tables
        guards = []

        def undo() -> None:
            for guard in guards:
                guard.undo()

        try:
            for i in which:
                guard = tables[i]._all_or_nothing()
                guard.__enter__()
                guards.append(guard)
            begun = {i: tables[i].begin_step(a) for i, a in zip(which, actions)}
            staged = {i: tables[i].stage_move(a) for i, a in zip(which, actions) if not tables[i]._done}
            decisions = {i: record.decision for i, record in self._finish(staged, begun, opponent=False).items()}
            while True:
                moving = [i for i in which if tables[i].opponent_to_act()]
                if not moving:
                    break
                staged = {i: tables[i].stage_opponent_move(begun[i][0]) for i in moving}
                self._finish(staged, begun, opponent=True)
        except BaseException:
            undo()
            raise

        def keep() -> dict[int, tuple]:
            for guard in guards:
                guard.keep()
            return {i: self._limited(i, tables[i].end_step(*begun[i], decisions.get(i))) for i in which}

        return HeldPlays(keep, undo)

    def _finish(self, staged: dict[int, StagedMove], begun: dict[int, tuple[list[Outcome], float]],
                opponent: bool) -> dict[int, MoveRecord]:
        """Simulate the staged shots of all tables in one call, then finish each table's
        move (the rules' verdict, the next state), its outcome added to its step's; the
        moves' records, by table."""
        shots = [(i, s.shot) for i, s in staged.items() if s.shot is not None]
        played = dict(zip([i for i, _ in shots], simulate_staged(self.simulator, [s for _, s in shots],
                                                                 [self.tables[i].rules for i, _ in shots],
                                                                 self._threads)))
        records = {}
        for i, move in staged.items():
            table = self.tables[i]
            finish = table.finish_opponent_move if opponent else table.finish_move
            record = records[i] = finish(move, *played.get(i, (None, None)))
            if record.outcome is not None:
                begun[i][0].append(record.outcome)
        return records


class BatchedPotBallEnv(BatchedTables):
    """``num_envs`` tables of ``PotBallEnv(**kwargs)`` (the drill) stepped together: each
    table's shot staged (``PotBallEnv.stage_shot``: the action validated and decoded, the
    noise drawn from its generator), all shots simulated in one call, each table's step
    finished (``PotBallEnv.finish_shot``). Table ``i`` gives exactly what ``gym.make(id)``
    gives from the same seed and actions."""

    table_class = PotBallEnv

    def play_phase(self, which: list[int], actions: list) -> "HeldPlays":
        """``BatchedTables.play_phase``: every table's one shot staged and simulated in one
        call; nothing but the tables' generators changes until the plays are kept."""
        tables = self.tables
        generators = [(tables[i].np_random, tables[i].np_random.bit_generator.state) for i in which]

        def undo() -> None:
            # Staging draws noise: undone, every generator is as it was.
            for generator, state in generators:
                generator.bit_generator.state = state

        try:
            staged = [tables[i].stage_shot(a) for i, a in zip(which, actions)]
            results = self.simulator.simulate_layouts(staged, self._threads)
        except BaseException:
            undo()
            raise
        return HeldPlays(lambda: {i: self._limited(i, tables[i].finish_shot(result))
                                  for i, result in zip(which, results)}, undo)


def table_seeds(seed, num_envs: int) -> list[int | None]:
    """Each of ``num_envs`` tables' reset seed from a vector reset's ``seed``: None for
    all, an int ``s`` (table ``i`` gets ``s + i``) or one seed per table, every one
    checked (``ValueError`` naming it) before any table is reset."""
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        return [check_seed(seed) + i for i in range(num_envs)]
    try:
        seeds = list(seed)
    except TypeError:
        raise ValueError(f"seed must be None, an int or one seed per table ({num_envs}), got {quote(seed)}") from None
    if len(seeds) != num_envs:
        raise ValueError(f"seed must be None, an int or one seed per table ({num_envs}), got {len(seeds)} seeds")
    return [check_seed(s, f"seed[{i}]") for i, s in enumerate(seeds)]


class HeldPlays(NamedTuple):
    """Plays made and held (``BatchedTables.play_phase``): ``finish()`` keeps them and gives
    each table's step result by table; ``undo()`` leaves every table as it was before them.
    One of the two, once."""

    finish: Callable[[], dict[int, tuple]]
    undo: Callable[[], None]


class TableSteps(NamedTuple):
    """What a batched step gives, table by table: the observations (a list from
    ``end_step``, stacked from ``step_tables``), the rewards and flags (arrays), each
    table's info, and ``finals``: for each table reset in the step that ended its episode
    (``SAME_STEP``), by table, that episode's last observation and info (the observation
    and info above are then the reset's)."""

    observations: Any
    rewards: np.ndarray
    terminations: np.ndarray
    truncations: np.ndarray
    infos: list[dict]
    finals: dict[int, tuple[Any, dict]]


class PendingStep(NamedTuple):
    """A step begun (``BatchedTables.begin_step``): which tables it resets (their flags,
    by table) and the other tables' held plays."""

    resetting: list[bool]
    plays: HeldPlays

