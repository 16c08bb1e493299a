"""Where a sharded batched env's step waits: a timestamped trace of this process and its worker
through a few steps (NineBall-v1, choice_discrete, masked random, N tables on two processes).
Each line: which process, what it began or finished, milliseconds from the step's start.
Usage: python benchmarks/sharded_env_trace.py [N] [STEPS] [SHOWN]  (defaults 32 60 3: the last
SHOWN steps printed; the mean step, each side's phases, and what a step would take were the
pipes free, over all but the first ten)."""
import json, os, sys, tempfile, time
import multiprocessing.connection as connection
import numpy as np
import poolgym.envs.sharded as sharded
from poolgym.envs.batched import BatchedTables

N, STEPS, SHOWN = (int(a) for a in (sys.argv[1:] + ["32", "60", "3"][len(sys.argv) - 1:])[:3])
OUT = tempfile.mkdtemp(prefix="sharded_trace_")
LOG = []


def mark(event):
    LOG.append((os.getpid(), event, time.perf_counter()))  # CLOCK_MONOTONIC: one clock for both processes


def traced(name, function):
    def call(*args, **kwargs):
        mark(name)
        result = function(*args, **kwargs)
        mark(name + " done")
        return result
    return call


# Patched before the worker forks, so that it traces too.
connection.Connection.send = traced("send", connection.Connection.send)
sharded.receive = traced("receive", sharded.receive)
BatchedTables.begin_step = traced("play", BatchedTables.begin_step)
BatchedTables.end_step = traced("end", BatchedTables.end_step)
closing = BatchedTables.close_extras


def dump_and_close(self, **kwargs):
    with open(os.path.join(OUT, f"{os.getpid()}.json"), "w") as f:
        json.dump(LOG, f)
    return closing(self, **kwargs)


BatchedTables.close_extras = dump_and_close

import gymnasium as gym  # noqa: E402
import poolgym  # noqa: E402,F401
from poolgym.agents.tools.speed_compare import random_actions  # noqa: E402

env = gym.make_vec("poolgym/NineBall-v1", num_envs=N, num_workers=2, action_mode="choice_discrete")
env.reset(seed=0)
rng, nvec = np.random.default_rng(0), env.single_action_space.nvec
for _ in range(STEPS):
    actions = random_actions(env.action_space, env.action_masks(), rng, nvec)
    mark("step")
    env.step(actions)
    mark("step done")
main = os.getpid()
env.close()
events = sorted((e for name in os.listdir(OUT) for e in json.load(open(os.path.join(OUT, name)))),
                key=lambda e: e[2])
starts = [i for i, e in enumerate(events) if e[0] == main and e[1] == "step"]
ends = [i for i, e in enumerate(events) if e[0] == main and e[1] == "step done"]
walls = [events[j][2] - events[i][2] for i, j in zip(starts, ends)][10:]
print(f"N={N}: mean step {1000 * sum(walls) / len(walls):.2f} ms over {len(walls)} steps")


def lasted(pid, name, i, j):
    """How long ``pid``'s phase ``name`` took in the step of events ``i..j`` (ms)."""
    begun = next(e[2] for e in events[i:j + 1] if e[0] == pid and e[1] == name)
    return 1000 * (next(e[2] for e in events[i:j + 1] if e[0] == pid and e[1] == name + " done") - begun)


worker = next(e[0] for e in events if e[0] != main)
steps = list(zip(starts, ends))[10:]
phases = {f"{who} {name}": [lasted(pid, name, i, j) for i, j in steps]
          for who, pid in (("this", main), ("worker", worker)) for name in ("play", "end")}
phases["between steps"] = [1000 * (events[k][2] - events[j][2]) for (_, j), k in zip(steps, starts[11:])]
print("mean ms: " + ", ".join(f"{name} {sum(times) / len(times):.2f}" for name, times in phases.items()))
# What a step would take were sending, receiving and stacking free: each phase ends when the
# slower side ends it (as now), the two phases one, or the work shared evenly.
play, end = (np.array([phases[f"this {name}"], phases[f"worker {name}"]]) for name in ("play", "end"))
print(f"were the pipes free, mean ms: two waits {np.mean(play.max(0) + end.max(0)):.2f}, "
      f"one wait {np.mean((play + end).max(0)):.2f}, even {np.mean((play + end).sum(0) / 2):.2f}")
for i, j in list(zip(starts, ends))[len(starts) - SHOWN:]:
    print("----")
    for pid, event, t in events[i:j + 1]:
        print(f"{'this  ' if pid == main else 'worker'} {event:14s} {1000 * (t - events[i][2]):7.2f}")
