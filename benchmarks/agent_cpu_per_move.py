"""CPU seconds per move of agents under the NineBall-v1 protocol, each playing the same
racks against one opponent (its own moves after the break, in process time, so that other
jobs on the machine do not enter it): the budget a learned agent is held to beside a bot
rung ("no more seconds per move than bot:normal").

    python benchmarks/agent_cpu_per_move.py --agents lookahead-greedy,bot:normal,bot:fast \\
        --opponent bot:fast --racks 20 --seed 5 [--json FILE]   # one JSON line per agent
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from poolgym.agents.evaluation.evaluate import run_match
from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.evaluation.protocol import protocol
from poolgym.agents.tools.script_io import agents_parser, write_json

# The bots' own timer (their script also runs in older checkouts, so it imports nothing new).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bot_cpu_per_move import Timed  # noqa: E402


def measure(spec: str, opponent: str, racks: int, seed: int) -> dict:
    """``spec``'s CPU seconds per move over ``racks`` racks against ``opponent``."""
    p = protocol("poolgym/NineBall-v1")
    clock = [0, 0.0]
    agents = [Timed(make_agent(spec, p.rules, seed=seed, noise=p.noise, max_speed=p.max_speed), clock),
              make_agent(opponent, p.rules, seed=seed + 1, noise=p.noise, max_speed=p.max_speed)]
    run_match(p.rules, agents, (spec, opponent), racks, seed=seed, noise=p.noise)
    return {"agent": spec, "opponent": opponent, "racks": racks, "seed": seed, "moves": clock[0],
            "cpu_s_per_move": round(clock[1] / max(clock[0], 1), 5)}


def main() -> None:
    args = agents_parser(__doc__.splitlines()[0], "lookahead-greedy,bot:normal,bot:fast", 20).parse_args()
    rows = []
    for spec in args.agents.split(","):
        rows.append(measure(spec, args.opponent, args.racks, args.seed))
        print(json.dumps(rows[-1]), flush=True)
    if args.json:
        write_json(args.json, rows)


if __name__ == "__main__":
    main()
