"""How an agent loses racks under the NineBall-v1 protocol: by what (the opponent's 9-ball,
WPA 2.5, or the agent's third foul, WPA 6.14), after which of its own shots (a legal miss,
or a foul by section), with how many object balls left when the opponent pocketed the 9,
and how often the agent makes the 9 when it is the last ball on the table.

    python benchmarks/rack_losses.py --agents pretrained:nine_ball,fixed,bot:weak,bot:fast \
        --opponent legal-random --racks 200 --markdown benchmarks/results/rack_losses.md

``--max-speed M`` clips every stroke after the break of the agents to M m/s after they choose it (their
aim, spin and placement unchanged): whether hard strokes are what loses the racks. Racks
as ``poolgym baselines`` plays them (seed 0, alternating breaks, the same racks for every
agent); Wilson 95% intervals.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter

from poolgym.agents.evaluation.baselines import agent_match
from poolgym.agents.evaluation.policy_eval import wilson_interval
from poolgym.agents.tools.script_io import agents_parser, write_json, write_text
from poolgym.envs.actions import ShotMove


class SpeedCapped:
    """An agent whose strokes after the break are clipped to ``max_speed`` m/s after it
    chooses them (the break is left as chosen: a soft break is a WPA 2.3 foul)."""

    def __init__(self, agent, max_speed: float) -> None:
        self.agent, self.max_speed = agent, max_speed

    def choose(self, state):
        move = self.agent.choose(state)
        if isinstance(move, ShotMove) and not state.awaiting_break and move.shot.speed > self.max_speed:
            move = dataclasses.replace(move, shot=dataclasses.replace(move.shot, speed=self.max_speed))
        return move


def rack_losses(agent: str, opponent: str, racks: int, seed: int = 0, max_speed: float | None = None,
                env_id: str = "poolgym/NineBall-v1") -> dict:
    """The losses of ``agent`` (player 0) against ``opponent`` over ``racks`` racks."""
    wrap = None if max_speed is None else (lambda player: SpeedCapped(player, max_speed))
    match = agent_match(env_id, agent, opponent, racks, seed, wrap)
    ended_by, before, balls_left = Counter(), Counter(), Counter()
    lone_nine = {"shots": 0, "made": 0}
    wins, fastest = 0, 0.0
    for rack in match.racks:
        shots = [m for m in rack.moves if m.outcome is not None]
        for m in shots:
            if m.player != 0 or m.outcome.break_shot:
                continue
            fastest = max(fastest, m.move.shot.speed)
            if m.state.object_balls_on_table == (9,):
                lone_nine["shots"] += 1
                lone_nine["made"] += 9 in m.outcome.pocketed_legally
        if rack.winner == 0:
            wins += 1
            continue
        last = shots[-1] if shots else None
        ended_by[_section(rack.end_reason)] += 1
        mine = [m for m in shots if m.player == 0]
        if not mine:
            before["no shot"] += 1
        elif mine[-1].outcome.fouls:
            before["foul " + "+".join(sorted({f.section for f in mine[-1].outcome.fouls}))] += 1
        else:
            before["legal, no ball made" if not mine[-1].outcome.pocketed_legally else "legal, ball made"] += 1
        if last is not None and last.player == 1:
            balls_left[len(last.state.object_balls_on_table)] += 1
    return {"agent": agent, "opponent": opponent, "racks": racks, "seed": seed, "max_speed": max_speed,
            "wins": wins, "lost": racks - wins, "fastest_stroke": fastest, "ended_by": dict(ended_by),
            "agent_shot_before": dict(before),
            "balls_left_at_opponents_nine": {str(k): v for k, v in sorted(balls_left.items())},
            "lone_nine": lone_nine}


def _section(end_reason: str) -> str:
    """The WPA section a rack's end reason cites ("... (WPA 2.5)" -> "2.5"), else the reason."""
    found = re.search(r"\(WPA ([0-9.]+)\)", end_reason)
    return found.group(1) if found else end_reason


def _rate(k: int, n: int) -> str:
    if not n:
        return "-"
    low, high = wilson_interval(k, n)
    return f"{k / n:.2f} [{low:.2f}, {high:.2f}] ({k}/{n})"


def markdown(results: list[dict]) -> str:
    lines = ["| agent | strokes | racks won | lost to the 9 (2.5) | lost by 3 fouls (6.14) | its shot before a loss "
             "| balls left at the opponent's 9 | makes the lone 9 |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        before = ", ".join(f"{k} {v}" for k, v in sorted(r["agent_shot_before"].items(), key=lambda kv: -kv[1]))
        left = ", ".join(f"{k}: {v}" for k, v in r["balls_left_at_opponents_nine"].items())
        cap = "as chosen" if r["max_speed"] is None else f"<= {r['max_speed']:g} m/s"
        lines.append(f"| {r['agent']} | {cap} | {_rate(r['wins'], r['racks'])} | {r['ended_by'].get('2.5', 0)} "
                     f"| {r['ended_by'].get('6.14', 0)} | {before or '-'} | {left or '-'} "
                     f"| {_rate(r['lone_nine']['made'], r['lone_nine']['shots'])} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = agents_parser(__doc__.splitlines()[0], "pretrained:nine_ball,fixed,bot:weak,bot:fast", 200)
    parser.add_argument("--max-speed", type=float, action="append", default=None,
                        help="also play each agent with its strokes clipped to this speed (m/s); repeatable")
    args = parser.parse_args()
    caps = [None] + (args.max_speed or [])
    results = [rack_losses(a, args.opponent, args.racks, args.seed, cap)
               for a in args.agents.split(",") for cap in caps]
    table = markdown(results)
    print(table)
    write_json(args.json, results)
    write_text(args.markdown, f"Against {args.opponent}, {args.racks} racks, seed {args.seed} "
                              f"(benchmarks/rack_losses.py)\n\n" + table)


if __name__ == "__main__":
    main()
