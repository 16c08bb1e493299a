"""The rules' judging of played moves alone: ``Ruleset.apply_shot`` over the moves a batched
NineBall-v1 env (choice_discrete, masked random, N tables, seed 0) judges in STEPS steps,
recorded first, then judged again ROUNDS times; prints the best round's process (CPU) time
per move in microseconds (other jobs on the machine do not enter it, a shared core still does).

Usage: python benchmarks/rules_judging.py [N STEPS ROUNDS]. To set a commit beside the
working tree, run it again with ``PYTHONPATH`` at that commit's ``poolgym`` (``git archive REV
poolgym | tar -x -C DIR``), alternating, in one sitting: the moves are the same in both when
the two trees play the same."""
import sys
import time

import poolgym
from poolgym.agents.tools.speed_compare import masked_random_steps
from poolgym.rules.base import Ruleset

N, STEPS, ROUNDS = (int(a) for a in (sys.argv[1:] or ["32", "100", "7"]))
moves, judge = [], Ruleset.apply_shot


def recording(self, state, call, events, simulated=False):
    moves.append((self, state, call, events, simulated))
    return judge(self, state, call, events, simulated)


Ruleset.apply_shot = recording
masked_random_steps(N, STEPS)
Ruleset.apply_shot = judge
best = float("inf")
for _ in range(ROUNDS):
    start = time.process_time()
    for rules, state, call, events, simulated in moves:
        rules.apply_shot(state, call, events, simulated)
    best = min(best, time.process_time() - start)
print(f"{poolgym.__file__.rsplit('/poolgym/', 1)[0]}: apply_shot {best / len(moves) * 1e6:.2f} us CPU per move "
      f"(best of {ROUNDS} rounds over {len(moves)} moves)")
