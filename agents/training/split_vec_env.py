"""A vectorized env stepped on two cores: half its envs in the training process, half in one
worker process, at the same time.

SB3's ``SubprocVecEnv`` gives every env a process of its own and leaves the training
process waiting while they step; on two cores, eight workers plus the training process
spent what they gained on pipes, pickles and a second round trip per step for the action
masks (``MaskablePPO`` asks every env for them after every step). ``SplitVecEnv`` keeps
one pipe: the worker steps its half (a ``DummyVecEnv``) while the training process steps
the other, and each step's action masks come back with the step. Every env steps exactly as
in a ``DummyVecEnv`` of the same env functions, so a run trains the same model, to the last
bit, as with ``vec_env: dummy``.
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper

from poolgym.envs.worker_process import default_start_method, settle_worker

MASKS = "action_masks"


def _masks(venv: DummyVecEnv, masked: bool):
    return np.stack(venv.env_method(MASKS)) if masked else None


def _dummy_half(env_fns: list[Callable[[], gym.Env]], first: int, count: int) -> DummyVecEnv:
    """A ``DummyVecEnv`` of ``env_fns[first:first + count]``: one half of a ``SplitVecEnv``."""
    return DummyVecEnv(env_fns[first:first + count])


def _worker(conn, parent_end, make_half: CloudpickleWrapper, masked: bool) -> None:
    """The worker's loop: its half of the envs (``make_half``), answering the parent's commands.
    Ctrl-C is left to the training process, which closes the worker; an exception is sent
    back (its traceback as text) for the training process to raise. The parent's end of the
    pipe, which a forked worker holds too, is closed first: when the training process dies
    the worker reads the end of the pipe and ends."""
    parent_end.close()
    settle_worker()
    venv = None
    while True:
        try:
            command, data = conn.recv()
        except (EOFError, OSError):
            return  # the training process has gone
        try:
            if command == "make":
                venv = make_half.var()
                reply = None
            elif command == "step":
                reply = (*venv.step(data), _masks(venv, masked))
            elif command == "reset":
                venv._seeds, venv._options = data
                reply = (venv.reset(), list(venv.reset_infos), _masks(venv, masked))
            elif command == "close":
                venv.close()
                conn.send(("ok", None))
                return
            else:  # has_attr, get_attr, set_attr, env_method, env_is_wrapped, get_images
                args, kwargs = data
                reply = getattr(venv, command)(*args, **kwargs)
        except Exception:  # noqa: BLE001 (every failure goes back to the training process)
            conn.send(("error", traceback.format_exc()))
            continue
        conn.send(("ok", reply))


class SplitVecEnv(VecEnv):
    """The envs of ``env_fns``: the first ``len - len // 2`` stepped in this process, the
    rest in one worker process (module docstring). ``start_method`` is the worker's
    multiprocessing start method; by default ``fork`` where the platform has it and this
    process runs no other thread (the worker then starts from this process as it is, its
    imports and compiled kernels loaded), else ``forkserver`` or ``spawn``, which need
    ``env_fns`` that pickle."""

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], start_method: str | None = None) -> None:
        if not env_fns:
            raise ValueError("SplitVecEnv needs at least one env function")
        self._start(len(env_fns), functools.partial(_dummy_half, list(env_fns)), start_method)

    def _start(self, num_envs: int, make_half: Callable[[int, int], VecEnv], start_method: str | None) -> None:
        count = num_envs - num_envs // 2
        self.local = make_half(0, count)
        self.count = count
        self.masked = self.local.has_attr(MASKS)
        self.closed = False
        self._remote = num_envs > count
        self._conn = self._process = None
        self._actions = None
        self._cached_masks = None
        if self._remote:
            ctx = mp.get_context(start_method or default_start_method())
            self._conn, child = ctx.Pipe()
            half = CloudpickleWrapper(functools.partial(make_half, count, num_envs - count))
            self._process = ctx.Process(target=_worker, args=(child, self._conn, half, self.masked), daemon=True)
            self._process.start()
            child.close()
            try:
                self._call("make", None)
            except RuntimeError:  # an env the worker could not make: no worker left behind
                self._process.terminate()
                self.local.close()
                raise
        # Last: VecEnv reads the envs' render modes through ``get_attr``.
        super().__init__(num_envs, self.local.observation_space, self.local.action_space)

    @property
    def processes(self) -> list:
        """The worker process (none when every env steps here), listed as
        ``SubprocVecEnv.processes`` lists its own: training reads their CPU time."""
        return [] if self._process is None else [self._process]

    # ------------------------------------------------------------------ the worker
    def _send(self, command: str, data: Any) -> None:
        self._conn.send((command, data))

    def _receive(self) -> Any:
        try:
            status, reply = self._conn.recv()
        except (EOFError, OSError):  # the pipe closed or reset: the worker is gone
            raise RuntimeError("the env worker process ended without a reply (see its output above)") from None
        if status == "error":
            raise RuntimeError(f"an env in the worker process failed:\n{reply}")
        return reply

    def _call(self, command: str, data: Any) -> Any:
        self._send(command, data)
        return self._receive()

    # ------------------------------------------------------------------ VecEnv
    def reset(self):
        local_seeds, remote_seeds = self._seeds[:self.count], self._seeds[self.count:]
        local_options, remote_options = self._options[:self.count], self._options[self.count:]
        if self._remote:
            self._send("reset", (remote_seeds, remote_options))
        self.local._seeds, self.local._options = local_seeds, local_options
        obs = self.local.reset()
        infos, masks = list(self.local.reset_infos), _masks(self.local, self.masked)
        if self._remote:
            remote_obs, remote_infos, remote_masks = self._receive()
            obs, infos = _joined(obs, remote_obs), infos + remote_infos
            masks = None if masks is None else np.concatenate([masks, remote_masks])
        self.reset_infos = infos
        self._cached_masks = masks
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions
        self._cached_masks = None
        if self._remote:
            self._send("step", actions[self.count:])

    def step_wait(self):
        obs, rewards, dones, infos = self.local.step(self._actions[:self.count])
        masks = _masks(self.local, self.masked)
        if self._remote:
            remote_obs, remote_rewards, remote_dones, remote_infos, remote_masks = self._receive()
            obs = _joined(obs, remote_obs)
            rewards, dones = np.concatenate([rewards, remote_rewards]), np.concatenate([dones, remote_dones])
            infos = list(infos) + list(remote_infos)
            masks = None if masks is None else np.concatenate([masks, remote_masks])
        self._cached_masks = masks
        return obs, rewards, dones, infos

    def close(self) -> None:
        if self.closed:
            return
        if self._process is not None:
            try:
                self._call("close", None)
            except (RuntimeError, BrokenPipeError, OSError):
                pass  # the worker is gone already
            self._process.join(timeout=10)
            if self._process.is_alive():
                self._process.terminate()
        self.local.close()
        self.closed = True

    def get_images(self) -> Sequence[np.ndarray | None]:
        images = list(self.local.get_images())
        return images + list(self._call("get_images", ((), {}))) if self._remote else images

    def has_attr(self, attr_name: str) -> bool:
        """Whether every env has ``attr_name``, asked in each process (the attribute itself,
        a bound method say, is not sent across)."""
        return self.local.has_attr(attr_name) and (not self._remote or self._call("has_attr", ((attr_name,), {})))

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return self._both("get_attr", (attr_name,), {}, indices)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        self._cached_masks = None
        self._both("set_attr", (attr_name, value), {}, indices)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        """As ``DummyVecEnv``'s; ``action_masks`` of every env right after a step or reset
        are the ones that came back with it."""
        if method_name == MASKS and indices is None and not method_args and not method_kwargs \
                and self._cached_masks is not None:
            return list(self._cached_masks)
        self._cached_masks = None
        return self._both("env_method", (method_name, *method_args), method_kwargs, indices)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices=None) -> list[bool]:
        return self._both("env_is_wrapped", (wrapper_class,), {}, indices)

    def _both(self, command: str, args: tuple, kwargs: dict, indices) -> list:
        """``command`` on the envs at ``indices`` (all when None), each half on its own."""
        chosen = list(range(self.num_envs)) if indices is None else \
            [indices] if isinstance(indices, int) else list(indices)
        local = [i for i in chosen if i < self.count]
        remote = [i - self.count for i in chosen if i >= self.count]
        results = {}
        if local:
            results.update(zip(local, getattr(self.local, command)(*args, indices=local, **kwargs) or [None] * len(local)))
        if remote:
            answer = self._call(command, (args, dict(kwargs, indices=remote)))
            results.update(zip((self.count + i for i in remote), answer or [None] * len(remote)))
        return [results[i] for i in chosen]


def _joined(a, b):
    """Two halves' batched observations as one batch (arrays, or dicts / tuples of them)."""
    if isinstance(a, dict):
        return {key: _joined(a[key], b[key]) for key in a}
    if isinstance(a, tuple):
        return tuple(_joined(x, y) for x, y in zip(a, b))
    return np.concatenate([a, b])
