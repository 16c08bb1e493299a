"""The batched envs on several cores: ``gym.make_vec(id, num_envs=N, num_workers=K)`` gives
``ShardedTables``, N tables in K shards of consecutive tables, each shard a batched env of
its own (``BatchedPoolEnv``, ``BatchedPotBallEnv``): the first in this process, each other
in a worker process, all stepping at the same time. Python holds most of a table's step,
and one process runs its Python on one core; shards in processes run on as many.

Every table is its shard's, and a shard's table ``j`` is table ``first + j`` of the whole:
reset with the same seed and given the same actions, table ``i`` gives exactly what it gives
with ``num_workers=1`` and what ``gym.make(id)`` gives (``tests/envs/test_sharded_env.py``).
The outputs are stacked as the one-process env stacks them, from every table's observation
and info. A step is all or nothing across the shards as within one: each shard plays its
tables and holds the plays (``BatchedTables.begin_step``) until every shard has played;
then all keep them, or, when any failed, all undo them and the first failure is raised.

The workers start by ``fork`` where the platform has it and this process runs no other
thread (they start with this process's imports and compiled kernels), else by
``forkserver`` or ``spawn``, which need the env's arguments to pickle (``cloudpickle``).
Objects cross between the processes by pickle, between this library's own processes only.
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import numbers
import pickle
import traceback
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import CloudpickleWrapper, batch_space

from poolgym.envs.batched import BatchedPoolEnv, BatchedPotBallEnv, BatchedTables, TableSteps, autoreset_mode_of, \
    per_table, stacked_infos, table_seeds, with_finals
from poolgym.envs.stacking import join_stacked, joins_stacks, stack_observations
from poolgym.envs.worker_process import default_start_method, receive, settle_worker
from poolgym.numbers import quote
from poolgym.physics.threads import thread_count

def make_batched_pool_env(num_envs: int = 1, max_episode_steps: int | None = None, *, num_threads: int | None = 1,
                          num_workers: int | None = 1, **kwargs: Any) -> BatchedPoolEnv | ShardedTables:
    """The game ids' ``vector_entry_point``: ``BatchedPoolEnv(num_envs, ...)`` in this
    process for one worker (the default), ``ShardedTables`` of it for more (None: one per
    core available)."""
    return _batched(BatchedPoolEnv, num_envs, max_episode_steps, num_threads, num_workers, kwargs)


def make_batched_pot_ball_env(num_envs: int = 1, max_episode_steps: int | None = None, *,
                              num_threads: int | None = 1, num_workers: int | None = 1,
                              **kwargs: Any) -> BatchedPotBallEnv | ShardedTables:
    """The drill ids' ``vector_entry_point``: ``BatchedPotBallEnv(num_envs, ...)``, or
    ``ShardedTables`` of it (``make_batched_pool_env``)."""
    return _batched(BatchedPotBallEnv, num_envs, max_episode_steps, num_threads, num_workers, kwargs)


def _batched(shard_class: type[BatchedTables], num_envs, max_episode_steps, num_threads, num_workers, kwargs: dict):
    if thread_count(num_workers, "num_workers") == 1:
        return shard_class(num_envs, max_episode_steps, num_threads=num_threads, **kwargs)
    return ShardedTables(shard_class, num_envs, num_workers, max_episode_steps, num_threads=num_threads, **kwargs)


def shard_sizes(num_envs: int, num_workers: int) -> list[int]:
    """How many consecutive tables each of ``num_workers`` shards holds (never more shards
    than tables): as even as can be, the first shards one larger where they cannot all be."""
    count = min(num_workers, num_envs)
    return [num_envs // count + (1 if k < num_envs % count else 0) for k in range(count)]


class ShardedTables(VectorEnv):
    """``num_envs`` tables of ``shard_class`` (a ``BatchedTables`` kind) in ``num_workers``
    shards, this process stepping the first and a worker process each other (module
    docstring). ``max_episode_steps``, ``num_threads`` (each shard's) and the env's
    arguments (``autoreset_mode`` too) are the shards'; ``start_method`` the workers'
    multiprocessing start method (default: ``fork`` where it is safe). ``close()`` ends the
    workers."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, shard_class: type[BatchedTables], num_envs: int, num_workers: int,
                 max_episode_steps: int | None = None, *, start_method: str | None = None, **kwargs: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        sizes = shard_sizes(int(num_envs), thread_count(num_workers, "num_workers"))
        if "autoreset_mode" in kwargs:  # refused here, before any worker starts
            kwargs["autoreset_mode"] = autoreset_mode_of(kwargs["autoreset_mode"])
        firsts = [sum(sizes[:k]) for k in range(len(sizes))]
        self.num_envs = int(num_envs)
        self.num_workers = len(sizes)
        self._workers: list[_Worker] = []
        self.local = None
        make = functools.partial(shard_class, max_episode_steps=max_episode_steps, **kwargs)
        # The workers first: a fork is safe while this process runs one thread, and the
        # local shard's kernel threads (num_threads > 1) would be a second.
        context = mp.get_context(start_method or default_start_method())
        try:
            for first, size in zip(firsts[1:], sizes[1:]):
                self._workers.append(_Worker(context, functools.partial(make, size), first, size))
            self.local = make(sizes[0])
            _raise_first(self._answers([None] * len(self._workers)))  # each shard made, or what stopped it
        except BaseException:
            self.close_extras()
            raise
        self.max_episode_steps = self.local.max_episode_steps
        self.autoreset_mode = self.local.autoreset_mode
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.num_threads = self.local.num_threads
        self.single_observation_space = self.local.single_observation_space
        self.single_action_space = self.local.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._masked = getattr(self.local.tables[0].mapper, "masked", False)

    @property
    def processes(self) -> list:
        """The worker processes, listed as SB3's ``SubprocVecEnv.processes`` lists its own."""
        return [worker.process for worker in self._workers]

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | list[int | None] | None = None, options: dict | None = None):
        """Reset every table, as ``BatchedTables.reset`` (table ``i`` seeded ``s + i`` for
        an int ``s``), every shard at the same time."""
        super().reset(seed=None)
        observations, infos = self.reset_each(table_seeds(seed, self.num_envs), options)
        return observations, stacked_infos(self, infos)

    def reset_each(self, seeds: list[int | None], options: dict | None = None) -> tuple[Any, list[dict]]:
        """``BatchedTables.reset_each``: every shard resetting its tables at the same time."""
        asked = self._ask("reset", lambda worker: (worker.part(seeds), options))
        local = _attempt(self.local.reset_tables, seeds[:self.local.num_envs], options)
        replies = self._answers(asked)
        self._masks_follow(replies)
        observations, infos = _raise_first([local, *replies])[0]
        parts = [observations]
        for obs, info in replies:
            parts.append(obs)
            infos = infos + info
        return self._joined(parts), infos

    def step(self, actions):
        """Step every table, as ``BatchedTables.step``: every shard plays its tables at the
        same time, all or nothing across the shards (module docstring)."""
        stepped = self.step_tables(actions)
        return (*stepped[:4], stacked_infos(self, with_finals(stepped)))

    def step_tables(self, actions) -> TableSteps:
        """``BatchedTables.step_tables``: ``step`` with each table's info apart."""
        rows = per_table(self, actions)
        asked = self._ask("play", lambda worker: worker.part(rows))
        pending = _attempt(self.local.begin_step, rows[:self.local.num_envs])
        played = self._answers(asked)
        if any(isinstance(reply, _Failure) for reply in [pending, *played]):
            if not isinstance(pending, _Failure):
                pending.plays.undo()
            for worker, reply in zip(self._workers, played):
                if not isinstance(reply, _Failure):
                    _attempt(worker.send, "undo", None)
            _raise_first([pending, *played])
        asked = self._ask("keep", lambda worker: None)
        local = _attempt(self.local.end_step, pending)
        replies = self._answers(asked)
        self._masks_follow(replies)
        local = _raise_first([local, *replies])[0]
        parts, infos, finals = [local.observations], list(local.infos), dict(local.finals)
        for worker, reply in zip(self._workers, replies):
            parts.append(reply.observations)
            infos += reply.infos
            finals.update((worker.first + j, final) for j, final in reply.finals.items())
        shards = [local, *replies]
        return TableSteps(self._joined(parts), np.concatenate([s.rewards for s in shards]),
                          np.concatenate([s.terminations for s in shards]),
                          np.concatenate([s.truncations for s in shards]), infos, finals)

    def action_masks(self) -> np.ndarray:
        """Every table's masks, as ``BatchedTables.action_masks``: the workers' as they sent
        them after their last step or reset (worked out there while this process works out
        its own)."""
        parts = [self.local.action_masks()]
        for worker in self._workers:
            parts.append(worker.current_masks())
        return np.concatenate(parts)

    def table_action_masks(self, i: int) -> np.ndarray:
        """Table ``i``'s action masks (``action_masks``' row ``i``)."""
        shard, j = self._shard_of(i)
        return self.local.table_action_masks(j) if shard is None else shard.call("table_action_masks", j)

    def reset_table(self, i: int, seed: int | None = None, options: dict | None = None):
        """Reset table ``i`` alone (``BatchedTables.reset_table``); its observation and info."""
        shard, j = self._shard_of(i)
        if shard is None:
            return self.local.reset_table(j, seed=seed, options=options)
        reply = shard.call("reset_table", (j, seed, options))
        shard.masks = None  # after the call, which reads any masks on their way first
        return reply

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple:
        """Each table's ``name``: its method called with the arguments, or its attribute
        (sent back from the workers by pickle)."""
        asked = self._ask("call", lambda worker: (name, args, kwargs))
        local = _attempt(self.local.call, name, *args, **kwargs)
        replies = self._answers(asked)
        for worker in self._workers:
            worker.masks = None  # a method may have changed its tables
        return tuple(value for part in _raise_first([local, *replies]) for value in part)

    def get_attr(self, name: str) -> tuple:
        """Each table's attribute ``name``."""
        asked = self._ask("get_attr", lambda worker: name)
        local = _attempt(self.local.get_attr, name)
        return tuple(value for part in _raise_first([local, *self._answers(asked)]) for value in part)

    def table_attr(self, i: int, name: str) -> Any:
        """Table ``i``'s attribute ``name`` (sent back by pickle from a worker's table)."""
        return self._on_table(i, "table_attr", name)

    def set_table_attr(self, i: int, name: str, value: Any) -> None:
        """Set table ``i``'s attribute ``name`` to ``value``."""
        self._on_table(i, "set_table_attr", name, value)

    def table_call(self, i: int, name: str, *args: Any, **kwargs: Any) -> Any:
        """Table ``i``'s method ``name`` called with the arguments."""
        return self._on_table(i, "table_call", name, *args, **kwargs)

    def _on_table(self, i: int, method: str, *args: Any, **kwargs: Any) -> Any:
        """The shard's ``method`` (``BatchedTables.table_attr`` and the like) on table ``i``."""
        shard, j = self._shard_of(i)
        if shard is None:
            return getattr(self.local, method)(j, *args, **kwargs)
        reply = shard.call("table", (method, j, args, kwargs))
        if method != "table_attr":
            shard.masks = None  # the call may have changed the table
        return reply

    def close_extras(self, **kwargs: Any) -> None:
        """End the workers and close this process's shard (``VectorEnv.close`` calls this once)."""
        for worker in getattr(self, "_workers", ()):
            worker.close()
        if getattr(self, "local", None) is not None:
            self.local.close()

    # ------------------------------------------------------------------ the shards
    def _shard_of(self, i) -> tuple[_Worker | None, int]:
        """Which shard holds table ``i`` (None: this process's) and its index there."""
        if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < self.num_envs:
            raise ValueError(f"table must be a whole number in 0..{self.num_envs - 1}, got {quote(i)}")
        for worker in reversed(self._workers):
            if i >= worker.first:
                return worker, int(i) - worker.first
        return None, int(i)

    def _ask(self, command: str, data_for) -> list:
        """``command`` sent to every worker with ``data_for(worker)``: per worker None, or the
        ``_Failure`` of a worker found gone."""
        return [_attempt(worker.send, command, data_for(worker)) for worker in self._workers]

    def _answers(self, asked: list) -> list:
        """Every asked worker's reply (``_ask``), in order: its value, or a ``_Failure`` (each
        worker is heard, so that none is left with a reply unread)."""
        return [sent if isinstance(sent, _Failure) else _attempt(worker.receive)
                for sent, worker in zip(asked, self._workers)]

    def _masks_follow(self, replies: list) -> None:
        """After a step's or reset's ``replies``: a masked env's workers that answered send
        their masks next (``_serve``)."""
        for worker, reply in zip(self._workers, replies):
            worker.masks = None
            worker.masks_follow = self._masked and not isinstance(reply, _Failure)

    def _joined(self, parts: list):
        """The shards' observations (this process's a list; each worker's stacked where its
        space's batches join, ``_serve``) as one batch, stacked as one process stacks them."""
        space = self.single_observation_space
        if joins_stacks(space):
            return join_stacked(space, [stack_observations(space, parts[0]), *parts[1:]])
        return stack_observations(space, [obs for part in parts for obs in part])


class _Failure:
    """An error kept until every shard has answered (``_attempt``)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


def _attempt(function, *args, **kwargs):
    """``function(*args, **kwargs)``, or its ``Exception`` as a ``_Failure``."""
    try:
        return function(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 (raised again once every shard has answered)
        return _Failure(error)


def _raise_first(replies: list) -> list:
    """``replies`` when none is a ``_Failure``; else the first failure's error raised."""
    for reply in replies:
        if isinstance(reply, _Failure):
            raise reply.error
    return replies


class _Worker:
    """One shard in a worker process: tables ``first`` .. ``first + count - 1``, its pipe,
    and its tables' masks: on their way after a step or reset of a masked env
    (``masks_follow``), or as received (None: to be asked for)."""

    def __init__(self, context, make_shard, first: int, count: int) -> None:
        self.first, self.count = first, count
        self.masks = None
        self.masks_follow = False
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, self.conn, CloudpickleWrapper(make_shard)), daemon=True,
                                       name=f"poolgym-tables-{first}-{first + count - 1}")
        self.process.start()
        child.close()

    def part(self, rows: list) -> list:
        """This shard's rows of a per-table list."""
        return rows[self.first:self.first + self.count]

    def send(self, command: str, data: Any) -> None:
        try:
            self.conn.send((command, data))
        except OSError:  # the pipe closed: the worker is gone
            raise self._gone() from None

    def receive(self) -> Any:
        """The worker's reply to the last command, or its error raised here (the masks it
        sent after a step or reset, not asked for since, read first and kept)."""
        self._take_masks()
        status, reply = self._read()
        if status == "error":
            reply.add_note(f"(raised in the env worker process of tables {self.first}..{self.first + self.count - 1})")
            raise reply
        return reply

    def call(self, command: str, data: Any) -> Any:
        self.send(command, data)
        return self.receive()

    def current_masks(self) -> np.ndarray:
        """The shard's action masks: those it sent after its last step or reset, else asked for."""
        self._take_masks()
        if self.masks is None:
            self.masks = self.call("action_masks", None)
        return self.masks

    def _take_masks(self) -> None:
        """The masks on their way (``masks_follow``) read and kept."""
        if self.masks_follow:
            self.masks_follow = False
            status, masks = self._read()
            self.masks = masks if status == "ok" else None  # else asked for again, and refused then

    def _read(self) -> tuple[str, Any]:
        try:
            return receive(self.conn)
        except (EOFError, OSError):
            raise self._gone() from None

    def _gone(self) -> RuntimeError:
        return RuntimeError(f"the env worker process of tables {self.first}..{self.first + self.count - 1} "
                            f"has ended (exit code {self.process.exitcode}; see its output above)")

    def close(self) -> None:
        """End the worker: its shard closed, the process joined (terminated after 10 s).
        Any reply it has not read yet is left unread."""
        try:
            self.send("close", None)
        except RuntimeError:
            pass  # the worker is gone already
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join()
        self.conn.close()


def _serve(conn, parent_end, make_shard: CloudpickleWrapper) -> None:
    """A worker's loop: its shard made, then the parent's commands answered one by one; an
    error goes back as the exception itself (as text in a ``RuntimeError`` where it does
    not pickle) for the parent to raise. The parent's end of the pipe, which a forked
    worker holds too, is closed first: when the parent dies the worker reads the end of
    the pipe and ends."""
    parent_end.close()
    settle_worker()
    try:
        shard = make_shard.fn()
    except Exception as error:  # noqa: BLE001 (the parent raises it)
        conn.send(("error", _sendable(error)))
        return
    conn.send(("ok", None))
    masked = getattr(shard.tables[0].mapper, "masked", False)
    try:
        _answer(conn, shard, masked, joins_stacks(shard.single_observation_space))
    except (EOFError, OSError):
        return  # the parent has gone: the pipe is closed


def _answer(conn, shard: BatchedTables, masked: bool, stacked: bool) -> None:
    """``_serve``'s commands, answered until ``close``; a step's or reset's observations
    sent ``stacked`` (one array per entry pickles in a tenth of the time of one per table),
    else as a list."""
    def sent(observations: list):
        return stack_observations(shard.single_observation_space, observations) if stacked else observations

    while True:
        command, data = receive(conn)
        try:
            if command == "play":
                pending = shard.begin_step(data)
                conn.send(("ok", None))
                verdict, _ = receive(conn)
                if verdict == "undo":
                    pending.plays.undo()
                    continue
                stepped = shard.end_step(pending)
                reply = stepped._replace(observations=sent(stepped.observations))
            elif command == "reset":
                observations, infos = shard.reset_tables(*data)
                reply = (sent(observations), infos)
            elif command == "reset_table":
                j, seed, options = data
                reply = shard.reset_table(j, seed=seed, options=options)
            elif command == "action_masks":
                reply = shard.action_masks()
            elif command == "table_action_masks":
                reply = shard.table_action_masks(data)
            elif command == "call":
                name, args, kwargs = data
                reply = shard.call(name, *args, **kwargs)
            elif command == "get_attr":
                reply = shard.get_attr(data)
            elif command == "table":
                method, j, args, kwargs = data
                if method not in ("table_attr", "set_table_attr", "table_call"):
                    raise ValueError(f"unknown table method {method!r}")
                reply = getattr(shard, method)(j, *args, **kwargs)
            elif command == "close":
                shard.close()
                conn.send(("ok", None))
                return
            else:
                raise ValueError(f"unknown command {command!r}")
        except Exception as error:  # noqa: BLE001 (the parent raises it)
            conn.send(("error", _sendable(error)))
            continue
        conn.send(("ok", reply))
        if masked and command in ("play", "reset"):
            # After the reply: the parent stacks the tables' outputs meanwhile.
            _send_masks(conn, shard)


def _send_masks(conn, shard: BatchedTables) -> None:
    """The shard's action masks sent (or what stopped them)."""
    try:
        conn.send(("ok", shard.action_masks()))
    except Exception as error:  # noqa: BLE001 (the parent raises it)
        conn.send(("error", _sendable(error)))


def _sendable(error: Exception) -> Exception:
    """``error`` itself where it pickles, else a ``RuntimeError`` holding its traceback."""
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001 (any failure to pickle)
        return RuntimeError("".join(traceback.format_exception(error)))
