"""cProfile of the batched env's steps (NineBall-v1, choice_discrete, masked random, N tables):
the table in benchmarks/results/throughput/batched_env_first_layer.md. Usage: python benchmarks/batched_env_profile.py N STEPS
[THREADS] (the env's num_threads, default its default; cProfile sees the calling thread only: with threads,
layout_plays's time is its own share, the split and merge, and the wait for the other shares)."""
import cProfile, pstats, sys, time
import gymnasium as gym, numpy as np
import poolgym  # noqa
from poolgym.agents.tools.speed_compare import random_actions as _actions
N, STEPS = int(sys.argv[1]), int(sys.argv[2])
THREADS = {"num_threads": int(sys.argv[3])} if len(sys.argv) > 3 else {}
env = gym.make_vec("poolgym/NineBall-v1", num_envs=N, action_mode="choice_discrete", **THREADS)
env.reset(seed=0); rng = np.random.default_rng(0)
nvec = env.single_action_space.nvec
acts = []
def loop(k):
    for _ in range(k):
        env.step(_actions(env.action_space, env.action_masks(), rng, nvec))
loop(5)
prof = cProfile.Profile()
prof.enable(); loop(STEPS); prof.disable()
st = pstats.Stats(prof)
total = st.total_tt
def cum(pattern):
    return sum(v[3] for k, v in st.stats.items() if pattern(k))
rows = {
 "step total (incl. action_masks, action sampling)": total,
 "simulation and the rules' facts: simulate_staged": cum(lambda k: k[2] == "simulate_staged"),
 "  of which Simulator.layout_plays (the compiled call; with threads, split, merge and wait)": cum(lambda k: k[2] == "layout_plays"),
 "  of which the compiled call play_layouts (frozen contacts, event loop, log facts)": cum(lambda k: "batch.py" in k[0] and k[2] == "play_layouts"),
 "  of which the facts per table (LayoutPlays.facts)": cum(lambda k: k[2] == "facts" and "simulator.py" in k[0]),
 "  of which the events (ShotEvents.from_simulation)": cum(lambda k: k[2] == "from_simulation"),
 "  of which ShotResult/RowLog building (Simulator._result, only when read)": cum(lambda k: k[2] == "_result"),
 "rules: apply_shot": cum(lambda k: k[2] == "apply_shot" and "rules" in k[0]),
 "rules: next_rack": cum(lambda k: k[2] == "next_rack"),
 "stage (validate, decode, layout, noise): stage_move": cum(lambda k: k[2] == "stage_move"),
 "opponent's choice: stage_opponent_move (incl. its stage_move)": cum(lambda k: k[2] == "stage_opponent_move"),
 "observation: PoolEnv._observation": cum(lambda k: k[2] == "_observation"),
 "  of which candidate slots (observe_candidates + mapper.slots)": cum(lambda k: k[2] in ("observe_candidates", "slots") and "envs" in k[0]),
 "action_masks": cum(lambda k: k[2] == "action_masks" and "pool_env.py" in k[0]),
 "all-or-nothing guard (_all_or_nothing: saving, restoring, releasing)": cum(
     lambda k: k[2] == "_all_or_nothing" or (k[2] in ("__enter__", "__exit__") and k[0].endswith("pool_env.py"))),
 "resets (reset_table)": cum(lambda k: k[2] == "reset_table"),
 "info (_info) and stacking (concatenate, _add_info, _stack_infos)": cum(lambda k: k[2] in ("_info", "concatenate", "_add_info", "_stack", "_stack_infos")),
}
print(f"N={N} steps={STEPS} table_steps={N*STEPS} threads={env.num_threads} cProfile total {total:.2f}s")
for k, v in rows.items():
    print(f"| {k} | {v:.2f} | {100*v/total:.1f}% |")
st.sort_stats("tottime").print_stats(25)
