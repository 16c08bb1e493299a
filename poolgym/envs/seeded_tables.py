"""Independent seeded episodes played on a batched env's tables, handed on in seed order:
what tools that play many episodes (``poolgym collect``, ``evaluate``) share.

Table ``i`` of a batched env, reset with a seed and given the same actions, plays the single
env's episode (``poolgym.envs.batched``). ``play_seeds`` keeps every table busy: a table
takes the next seed when its episode ends, only the tables with an episode are stepped
(``BatchedTables.play_phase``), and each finished episode waits until those of the seeds
before it are handed on. A tool whose actions depend only on the episode (its seed and its
observations) therefore gets the episodes it would get from one env, in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import gymnasium as gym

from poolgym.envs.batched import BatchedTables

Episode = TypeVar("Episode")


def tables_like(env: gym.Env, num_envs: int) -> BatchedTables | None:
    """``num_envs`` tables of the batched env of ``env``'s id, made with the arguments its
    spec records (those ``gym.make`` was given), or None where the id has none
    (``gym.make_vec`` would wrap single envs) or ``num_envs`` is below two."""
    if num_envs < 2 or env.spec is None:
        return None
    tables = gym.make_vec(env.spec.id, num_envs=num_envs, **env.spec.kwargs)
    if not isinstance(tables, BatchedTables):
        tables.close()
        return None
    return tables


def play_seeds(tables: BatchedTables, seeds: range, begin: Callable[[int, int, Any, dict], Episode],
               actions: Callable[[list[int], list[Any]], list[Any]],
               record: Callable[[int, Episode, Any, tuple], None]) -> Iterator[Episode]:
    """The episodes of ``seeds`` played on ``tables``, handed on in seed order.

    ``begin(table, seed, obs, info)``: a table was reset with ``seed``; returns the caller's
    record of the episode. ``actions(which, observations)``: the actions of the tables
    ``which`` (ascending), given each one's latest observation. ``record(table, episode,
    action, step)``: ``step`` is the table's ``(obs, reward, terminated, truncated, info)``
    after ``action``. An episode is handed on once it has ended and every seed before it
    has been handed on."""
    waiting = iter(seeds)
    playing: dict[int, tuple[int, Episode, Any]] = {}  # table: its seed, episode and latest observation
    finished: dict[int, Episode] = {}  # by seed, until those before it are handed on
    next_out = seeds.start

    def start(j: int) -> None:
        episode_seed = next(waiting, None)
        if episode_seed is not None:
            obs, info = tables.reset_table(j, seed=episode_seed)
            playing[j] = (episode_seed, begin(j, episode_seed, obs, info), obs)

    for j in range(tables.num_envs):
        start(j)
    while playing:
        which = sorted(playing)
        chosen = actions(which, [playing[j][2] for j in which])
        results = tables.play_phase(which, chosen).finish()
        for j, action in zip(which, chosen):
            step = results[j]
            episode_seed, episode, _ = playing[j]
            record(j, episode, action, step)
            if step[2] or step[3]:
                finished[episode_seed] = episode
                del playing[j]
                start(j)
            else:
                playing[j] = (episode_seed, episode, step[0])
        while next_out in finished:
            yield finished.pop(next_out)
            next_out += 1
