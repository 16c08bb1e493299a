"""Where a recipe's training time goes: the wall clock of ``poolgym train`` (as the command runs
it, no curve or evaluation) split into the rollouts (the envs' steps, the policy's calls) and
the gradient updates, with torch's thread count for each update. Usage:
python benchmarks/recipe_training_split.py STEPS [CONFIG] (default
configs/train/nine_ball_maskable_ppo.yaml); results in
benchmarks/results/throughput/recipe_training_split.md."""
import collections
import sys
import tempfile
import time

import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from poolgym.agents.tools.cli import freeze_imports
from poolgym.agents.training import idle_cores
from poolgym.envs.sb3_vec_env import BatchedSB3VecEnv
from poolgym.agents.training.train import train

STEPS = int(sys.argv[1])
CONFIG = sys.argv[2] if len(sys.argv) > 2 else "configs/train/nine_ball_maskable_ppo.yaml"
SECONDS = collections.Counter()
UPDATE_THREADS = []


def timed(cls, name: str, row: str) -> None:
    """Add the wall clock of every call of ``cls.name`` to ``SECONDS[row]``."""
    method = getattr(cls, name)

    def measured(*args, **kwargs):
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            SECONDS[row] += time.perf_counter() - start

    setattr(cls, name, measured)


def counted_threads(choose):
    def chosen(*args, **kwargs):
        UPDATE_THREADS.append(choose(*args, **kwargs))
        return UPDATE_THREADS[-1]
    return chosen


ROWS = ("rollouts (collect_rollouts)", "  of which the envs' steps (BatchedSB3VecEnv.step_wait)",
        "  of which the policy's calls (forward)", "gradient updates (MaskablePPO.train)")
for (cls, name), row in zip([(MaskablePPO, "collect_rollouts"), (BatchedSB3VecEnv, "step_wait"),
                             (MaskableActorCriticPolicy, "forward"), (MaskablePPO, "train")], ROWS):
    timed(cls, name, row)
idle_cores.threads_for = counted_threads(idle_cores.threads_for)
freeze_imports()
start = time.perf_counter()
with tempfile.TemporaryDirectory(prefix="poolgym-training-split-") as out:
    summary = train(CONFIG, out=f"{out}/run", steps=STEPS, evaluate=False)
wall = time.perf_counter() - start
print(f"{CONFIG}: {STEPS} steps, {summary['steps_per_s']} steps/s, wall {wall:.1f} s (with start-up), "
      f"torch {torch.__version__}, update threads {UPDATE_THREADS}")
print("| part | seconds | share of the wall clock |")
print("|---|---|---|")
for row in ROWS:
    print(f"| {row} | {SECONDS[row]:.2f} | {100 * SECONDS[row] / wall:.1f}% |")
