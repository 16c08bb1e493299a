"""Microseconds per ``candidate_slots`` call on the 22 saved states of
``tests/envs/data/candidate_slots_dc398ea.json`` (9-ball, 8-ball and 14.1, ball in hand
among them), the best of 30 passes, for the 9-ball states and for all. Run it with each
tree on ``PYTHONPATH`` in turn (alternating fresh processes), from that tree's root:
``PYTHONPATH=. python benchmarks/archive/candidate_slots_time.py``."""

from __future__ import annotations

import json
import time
from pathlib import Path

from poolgym.envs import candidates as cand
from poolgym.rules import GameState, get_ruleset

DATA = Path(__file__).resolve().parents[1] / "tests" / "envs" / "data" / "candidate_slots_dc398ea.json"


def main() -> None:
    cases = [(GameState.from_dict(c["state"]), get_ruleset(c["game"]), c["sigma_deg"])
             for c in json.loads(DATA.read_text())["cases"]]
    groups = {"nine_ball": [c for c in cases if c[0].game == "nine_ball"], "all": cases}
    for state, rules, sigma in cases:  # the first calls (a kernel's load) are not timed
        cand.candidate_slots(state, rules, sigma)
    best = dict.fromkeys(groups, float("inf"))
    for _ in range(30):
        for name, group in groups.items():
            start = time.perf_counter()
            for state, rules, sigma in group:
                cand.candidate_slots(state, rules, sigma)
            best[name] = min(best[name], (time.perf_counter() - start) / len(group) * 1e6)
    print(json.dumps({name: round(us, 1) for name, us in best.items()}))


if __name__ == "__main__":
    main()
