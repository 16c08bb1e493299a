"""Fouls by stroke speed: how often each agent's shots scratch (WPA 6.1) or miss the legal
first contact or a rail (WPA 6.2), by the speed it struck at, under the NineBall-v1 protocol.

    python benchmarks/stroke_fouls.py --agents pretrained:nine_ball,fixed,bot:fast \
        --opponent legal-random --racks 100 --markdown benchmarks/results/stroke_fouls.md

The agents' own shots after the break (breaks left out), racks as ``poolgym baselines``
plays them (seed 0, alternating breaks, the same racks for every agent); Wilson 95%
intervals.
"""

from __future__ import annotations


from poolgym.agents.evaluation.baselines import agent_match
from poolgym.agents.evaluation.policy_eval import wilson_interval
from poolgym.agents.tools.script_io import agents_parser, write_json, write_text

BANDS = ((0.0, 1.5), (1.5, 3.0), (3.0, 5.0), (5.0, 8.0), (8.0, 13.0))


def stroke_fouls(agent: str, opponent: str, racks: int, seed: int = 0, env_id: str = "poolgym/NineBall-v1") -> dict:
    """Per speed band: the agent's shots, and those that scratched or fouled under 6.2."""
    match = agent_match(env_id, agent, opponent, racks, seed)
    bands = {f"{lo}-{hi}": {"shots": 0, "6.1": 0, "6.2": 0} for lo, hi in BANDS}
    for rack in match.racks:
        for move in rack.moves:
            if move.player != 0 or move.outcome is None or move.outcome.break_shot:
                continue
            speed = move.move.shot.speed
            band = next(f"{lo}-{hi}" for lo, hi in BANDS if speed < hi or hi == BANDS[-1][1])
            row = bands[band]
            row["shots"] += 1
            sections = {f.section for f in move.outcome.fouls}
            for section in ("6.1", "6.2"):
                row[section] += section in sections
    return {"agent": agent, "opponent": opponent, "racks": racks, "seed": seed, "bands": bands}


def markdown(results: list[dict]) -> str:
    lines = ["| agent | speed (m/s) | share of shots | scratched (6.1) | 6.2 foul |", "|---|---|---|---|---|"]
    for result in results:
        total = sum(b["shots"] for b in result["bands"].values())
        for band, b in result["bands"].items():
            if not b["shots"]:
                continue
            cells = []
            for section in ("6.1", "6.2"):
                low, high = wilson_interval(b[section], b["shots"])
                cells.append(f"{b[section] / b['shots']:.3f} [{low:.2f}, {high:.2f}]")
            lines.append(f"| {result['agent']} | {band} | {b['shots'] / total:.2f} ({b['shots']}) | {cells[0]} | {cells[1]} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    args = agents_parser(__doc__.splitlines()[0], "pretrained:nine_ball,fixed,bot:fast", 100).parse_args()
    results = [stroke_fouls(a, args.opponent, args.racks, args.seed) for a in args.agents.split(",")]
    table = markdown(results)
    print(table)
    write_json(args.json, results)
    write_text(args.markdown, f"Against {args.opponent}, {args.racks} racks, seed {args.seed} "
                              f"(benchmarks/stroke_fouls.py)\n\n" + table)


if __name__ == "__main__":
    main()
