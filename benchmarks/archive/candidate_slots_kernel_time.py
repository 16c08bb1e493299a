"""Microseconds per state of the choice modes' candidate slots with what the env reads of
them (features, mask, best make probability): the compiled kernel
(``poolgym.envs.candidates``) against the interpreted reference it replaced
(``tests/envs/slots_reference.py``), on the states of 150 masked-random steps of NineBall-v1
and EightBall-v1 (where a shot is due), the two alternating in one process, best of 7 passes.
Usage, from the repository root: ``OMP_NUM_THREADS=1 python benchmarks/archive/candidate_slots_kernel_time.py``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from poolgym.envs import candidates as cand  # noqa: E402
from poolgym.envs.derived import PerStateCache  # noqa: E402
from tests.envs import slots_reference as ref  # noqa: E402
from tests.envs.test_candidate_kernel import played_states  # noqa: E402

SIGMA = 0.35


def main() -> None:
    for env_id in ("poolgym/NineBall-v1", "poolgym/EightBall-v1"):
        states, rules = played_states(env_id, 0, 150)
        states = [s for s in states if cand.shot_is_due(s)]
        derived = []
        for state in states:  # the rules' calls and legal balls, kept per state as the env keeps them
            cache = PerStateCache()
            cache.call_options(state, rules)
            cache.legal_targets(state, rules)
            derived.append(cache)

        def reference():
            for state, cache in zip(states, derived):
                slots = ref.candidate_slots(state, rules, SIGMA, cache)
                ref.slot_features(slots, rules.table)
                [s is not None for s in slots]
                ref.best_make_probability(slots)

        def compiled():
            for state, cache in zip(states, derived):
                slots = cand.candidate_slots(state, rules, SIGMA, cache)
                cand.slot_features(slots)
                cand.slot_mask(slots)
                cand.best_make_probability(slots)

        best = {"reference": float("inf"), "compiled": float("inf")}
        for run in (reference, compiled):
            run()  # the first calls (a kernel's load) are not timed
        for _ in range(7):
            for name, run in (("reference", reference), ("compiled", compiled)):
                start = time.perf_counter()
                run()
                best[name] = min(best[name], (time.perf_counter() - start) / len(states) * 1e6)
        print(f"{env_id}: {len(states)} states, us per state: reference {best['reference']:.1f}, "
              f"compiled {best['compiled']:.1f}, ratio {best['reference'] / best['compiled']:.2f}")


if __name__ == "__main__":
    main()
