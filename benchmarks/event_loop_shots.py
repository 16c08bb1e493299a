"""The event loop alone on the shots a batched env plays: NineBall-v1 (choice_discrete, masked
random actions, N tables, seed 0) stepped STEPS times with every compiled ``play_layouts``
call recorded, then the recorded calls played again ROUNDS times. Prints the best round's
process (CPU) time per shot in microseconds and a digest of everything the calls returned
(the same digest: the same shots to the last bit).

``--lookahead`` times what the event loop serves most instead: NineBall-v1's lookahead env (the
shipped agent's: ``choice_canonical``, eight plays a stroke), N tables stepped STEPS times after
three, masked random actions: its table steps per CPU second and a digest of its observations.

Usage: python benchmarks/event_loop_shots.py [N STEPS ROUNDS] [--perf FILE | --lookahead]. To set a commit
beside the working tree, run it again with ``PYTHONPATH`` at that commit's checkout,
alternating, in one sitting: both trees record the same shots when they play the same.

``--perf FILE`` also samples the rounds with Linux ``perf`` (``perf record -p``) into FILE and
writes ``/tmp/perf-PID.map``, the compiled kernels' addresses and names, so that ``perf
report -i FILE`` names them. numba compiles the kernels afresh for this (a map needs the
code's symbols, which a cached kernel does not keep): run it with ``NUMBA_CACHE_DIR`` an
empty folder."""
import argparse
import hashlib
import os
import re
import signal
import subprocess
import time

import gymnasium as gym
import numba
import numpy as np

import poolgym
from poolgym.agents.tools.speed_compare import masked_random_steps, random_actions
from poolgym.physics import batch, contact_time, contacts, event_core, frozen, hypot, simulator

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("shape", nargs="*", type=int, default=[32, 100, 7], help="N STEPS ROUNDS")
parser.add_argument("--perf", help="also sample the rounds with perf into this file")
parser.add_argument("--lookahead", action="store_true", help="time the lookahead env's steps instead")
args = parser.parse_args()
N, STEPS, ROUNDS = args.shape
TREE = poolgym.__file__.rsplit('/poolgym/', 1)[0]


def digest_of(values) -> str:
    """The first hex digits of a digest of ``values`` (arrays, or anything by its repr)."""
    digest = hashlib.sha256()
    for value in values:
        digest.update(np.ascontiguousarray(value).tobytes() if isinstance(value, np.ndarray) else repr(value).encode())
    return digest.hexdigest()[:16]


if args.lookahead:
    env = gym.make_vec("poolgym/NineBall-v1", num_envs=N, action_mode="choice_canonical", lookahead=True,
                       lookahead_samples=8, obs_mode="flat")
    env.reset(seed=0)
    rng, observations = np.random.default_rng(0), []
    for step in range(3 + STEPS):
        if step == 3:
            start = time.process_time()
        slots = random_actions(env.action_space, env.action_masks(), rng, [env.single_action_space.n])[:, 0]
        observations.append(env.step(slots)[0])
    print(f"{TREE}: lookahead env {N * STEPS / (time.process_time() - start):.1f} table steps per CPU second "
          f"({N} tables, {STEPS} steps), digest {digest_of(observations)}")
    raise SystemExit

calls, play = [], simulator.play_layouts


def recording(*arguments):
    calls.append(arguments)
    return play(*arguments)


simulator.play_layouts = recording
masked_random_steps(N, STEPS)
simulator.play_layouts = play
shots = sum(int(arguments[-1].sum()) for arguments in calls)


def perf_map() -> None:
    """/tmp/perf-PID.map: each compiled function's address and name, its size up to the next."""
    found = {}
    for module in (batch, contact_time, contacts, event_core, frozen, hypot):
        for value in vars(module).values():
            if not isinstance(value, numba.core.registry.CPUDispatcher):
                continue
            for result in value.overloads.values():
                library = result.library
                for name in re.findall(r'define [^@]*@"?([^"(\s]+)"?\(', library.get_llvm_str()):
                    address = library.get_pointer_to_function(name)
                    if address:
                        found[address] = name
    addresses = sorted(found)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for here, after in zip(addresses, addresses[1:] + [addresses[-1] + 4096]):
            f.write(f"{here:x} {min(after - here, 1 << 20):x} {found[here]}\n")


sampler = None
if args.perf:
    perf_map()
    sampler = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "4000", "-o", args.perf,
                                "-p", str(os.getpid())], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # perf attaches
best, outputs = float("inf"), []
for _ in range(ROUNDS):
    start = time.process_time()
    outputs = [play(*arguments) for arguments in calls]
    best = min(best, time.process_time() - start)
if sampler is not None:
    sampler.send_signal(signal.SIGINT)
    sampler.wait()
print(f"{TREE}: {best / shots * 1e6:.2f} us CPU per shot (best of {ROUNDS} rounds over {shots} shots in "
      f"{len(calls)} calls), digest {digest_of(value for output in outputs for value in output)}")
