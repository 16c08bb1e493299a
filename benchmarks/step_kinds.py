"""What a compiled 9-ball step must decide: a census of the batched env's table steps by
the kinds of move they hold, and the share of table steps each set of kinds covers.

NineBall-v1 in ``choice_discrete`` against legal-random (the issue's case), masked random
actions, every table's moves read from its move listeners. Each move is of one or more
kinds: ``plain`` (a shot from where the cue ball lies, no foul, the rack goes on, nothing
spotted or pending), or any of ``foul`` (its WPA sections counted too), ``ball in hand``
(the cue ball placed first), ``rack over``, ``break``, ``push-out``, ``decision`` (an
answer to a pending choice), ``pending`` (a shot that leaves a choice to the other player),
``spotted``, ``overlap`` (a placement onto a ball: nothing struck). A table step is also
``reset`` when its episode ended at the last step (``NEXT_STEP``: the step resets it).

A step is covered by a set of kinds when each of its moves' kinds is in the set (and, for
``reset``, the set holds it). The cumulative sets follow what a kernel would take on first:
the plain shot, then fouls, ball in hand, the rack's end, resets, and the rest.
Usage: python benchmarks/step_kinds.py TABLES STEPS [--seed S] [--json FILE]"""
import argparse
import collections

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401  (registers the ids)
from poolgym.agents.tools.speed_compare import random_actions
from poolgym.files import atomic_write_json
from poolgym.rules import CueBallZone, Decision

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("tables", type=int)
parser.add_argument("steps", type=int)
parser.add_argument("--seed", type=int, default=990000)
parser.add_argument("--json", help="also write the figures to this file")
args = parser.parse_args()

# Each set adds kinds to the one before it.
CUMULATIVE = [
    ("plain shots only", {"plain"}),
    ("+ fouls", {"foul"}),
    ("+ ball in hand", {"ball in hand"}),
    ("+ the rack's end", {"rack over"}),
    ("+ resets", {"reset"}),
    ("+ breaks", {"break"}),
    ("+ push-outs, decisions, pending choices", {"push-out", "decision", "pending"}),
    ("+ spotted balls, placement overlaps", {"spotted", "overlap"}),
]


def move_kinds(record) -> set[str]:
    """The kinds of one move (module docstring)."""
    if isinstance(record.move, Decision):
        return {"decision"}
    before, outcome = record.before, record.outcome
    kinds = set()
    if before.awaiting_break:
        kinds.add("break")
    if before.cue_ball_in_hand is not CueBallZone.NONE:
        kinds.add("ball in hand")
    if record.result is None:
        kinds.add("overlap")
    if outcome is not None:
        if outcome.fouls:
            kinds.add("foul")
        if outcome.rack_over:
            kinds.add("rack over")
        if outcome.push_out:
            kinds.add("push-out")
        if outcome.pending is not None:
            kinds.add("pending")
        if outcome.spotted:
            kinds.add("spotted")
    return kinds or {"plain"}


env = gym.make_vec("poolgym/NineBall-v1", num_envs=args.tables, action_mode="choice_discrete")
moves: list[list] = [[] for _ in range(args.tables)]
for i, table in enumerate(env.tables):
    table.move_listeners.append(moves[i].append)
env.reset(seed=args.seed)
rng, nvec = np.random.default_rng(args.seed), env.single_action_space.nvec
steps = []  # per table step: (resetting, [kinds of each move])
sections = collections.Counter()
move_counts = collections.Counter()
resetting = [False] * args.tables  # NEXT_STEP: a step resets the tables the step before ended
for _ in range(args.steps):
    for m in moves:
        m.clear()
    _, _, terminations, truncations, _ = env.step(random_actions(env.action_space, env.action_masks(), rng, nvec))
    for i in range(args.tables):
        kinds = [move_kinds(r) for r in moves[i]]
        steps.append((resetting[i], kinds))
        move_counts[len(kinds)] += 1
        for r in moves[i]:
            if r.outcome is not None:
                sections.update(f.section for f in r.outcome.fouls)
    resetting = (terminations | truncations).tolist()
env.close()

total = len(steps)
kind_steps = collections.Counter()
kind_moves = collections.Counter()
for resetting, kinds in steps:
    seen = set().union(*kinds) if kinds else set()
    if resetting:
        seen.add("reset")
    kind_steps.update(seen)
    for k in kinds:
        kind_moves.update(k)
all_moves = sum(len(k) for _, k in steps)
covered, allowed = [], set()
for name, added in CUMULATIVE:
    allowed |= added
    share = sum(1 for resetting, kinds in steps
                if (not resetting or "reset" in allowed) and all(k <= allowed for k in kinds)) / total
    covered.append((name, share))

print(f"NineBall-v1, choice_discrete, legal-random: {args.tables} tables x {args.steps} steps = {total} table steps, "
      f"{all_moves} moves (seed {args.seed})")
print("\ntable steps covered by a kernel that decides:")
for name, share in covered:
    print(f"  {name:45s} {100 * share:6.2f}%")
print("\nkind: share of table steps with it, share of moves")
for kind, count in kind_steps.most_common():
    print(f"  {kind:14s} {100 * count / total:6.2f}%  {100 * kind_moves[kind] / all_moves:6.2f}%")
print("\nmoves a table step: " + ", ".join(f"{n}: {100 * c / total:.1f}%" for n, c in sorted(move_counts.items())))
print("fouls by WPA section: " + ", ".join(f"{s}: {c}" for s, c in sorted(sections.items())))
if args.json:
    atomic_write_json(args.json, {
        "command": "python benchmarks/step_kinds.py " + f"{args.tables} {args.steps} --seed {args.seed}",
        "table_steps": total, "moves": all_moves,
        "covered": {name: round(share, 5) for name, share in covered},
        "steps_with_kind": {k: round(c / total, 5) for k, c in kind_steps.items()},
        "moves_with_kind": {k: round(c / all_moves, 5) for k, c in kind_moves.items()},
        "moves_per_step": {str(n): c for n, c in sorted(move_counts.items())},
        "fouls_by_section": dict(sorted(sections.items())),
    })
