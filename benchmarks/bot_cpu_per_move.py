"""CPU seconds per move of a bot rung in self-play 9-ball racks under the tournament noise
(10 m/s cap; the breaks are not counted): the time budget of the top rung, measured in
process time so that other jobs on the machine do not enter it.

    python benchmarks/bot_cpu_per_move.py strong 8 77     # LEVEL RACKS SEED; one JSON line

It uses only what every commit since the issue's (dc398ea) has, so the same file runs in
an older checkout (``cd OLD && python /path/to/bot_cpu_per_move.py strong 8 77``) beside
this one.
"""

import json
import sys
import time

from poolgym.agents.evaluation.evaluate import run_match
from poolgym.agents.evaluation.loading import make_agent
from poolgym.rules import get_ruleset


class Timed:
    """An agent whose decisions after the break are timed in process time into ``clock``."""

    def __init__(self, agent, clock: list) -> None:
        self.agent, self.clock = agent, clock

    def choose(self, state):
        started = time.process_time()
        move = self.agent.choose(state)
        if not state.awaiting_break:
            self.clock[0] += 1
            self.clock[1] += time.process_time() - started
        return move

    def reseed(self, seed) -> None:
        if hasattr(self.agent, "reseed"):
            self.agent.reseed(seed)


def main(level: str, racks: int, seed: int) -> dict:
    rules = get_ruleset("nine_ball")
    clock = [0, 0.0]
    bots = [Timed(make_agent(f"bot:{level}", rules, seed=seed + i, noise="tournament", max_speed=10.0), clock)
            for i in range(2)]
    run_match(rules, bots, ("a", "b"), racks, seed=seed, noise="tournament")
    return {"level": level, "racks": racks, "seed": seed, "moves": clock[0],
            "cpu_s_per_move": clock[1] / max(clock[0], 1)}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
