"""Records the bot's moves on a few seeded self-play racks into ``bot_moves.json``.

``tests/agents/test_bot_same_moves.py`` plays the same racks and compares every move with
the recorded ones, so that a faster search is shown to choose exactly what the recording
commit's search chose. Run from the repository root, on the commit whose choices are the
reference: ``python tests/agents/data/record_bot_moves.py`` records the cases the file does
not hold yet, each with the commit it was recorded on, and keeps the others as they are.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from poolgym.files import atomic_write_text
from poolgym.rules import get_ruleset

from poolgym.agents.evaluation.evaluate import run_match
from poolgym.agents.evaluation.loading import make_bot

OUT = Path(__file__).with_name("bot_moves.json")
# (game, bot level, noise, seed, rack numbers): breaks, pots, ball in hand, safeties and
# noisy re-checks at every budget the ladder's heuristic rungs use, and the top rung.
CASES = (
    ("nine_ball", "fast", "tournament", 77, [1, 2]),
    ("nine_ball", "fast", "none", 5, [0]),
    ("eight_ball", "fast", "tournament", 3, [0]),
    ("nine_ball", "normal", "tournament", 77, [1]),
    ("nine_ball", "strong", "tournament", 77, [2]),
    ("nine_ball", "pro", "tournament", 77, [3]),
    ("nine_ball", "pro-deep", "tournament", 77, [3]),
)


def move_record(move) -> dict:
    """A move as plain JSON values (floats written exactly by ``repr``)."""
    if hasattr(move, "choice"):  # a Decision
        return {"decision": move.choice.value, "ball": move.ball, "player": move.player}
    shot = move.shot
    return {"call": [move.call.ball, move.call.pocket, move.call.safety, move.call.push_out],
            "placement": None if move.placement is None else [repr(float(c)) for c in move.placement],
            "shot": [repr(float(v)) for v in (shot.speed, shot.angle_deg, shot.side, shot.vertical,
                                              shot.elevation_deg)],
            "target": move.target, "pocket": move.pocket}


def play_case(game: str, level: str, noise: str, seed: int, racks: list[int]) -> list[dict]:
    """The moves of bot ``level`` playing itself on ``racks`` (as ``bench-bot`` seeds them)."""
    rules = get_ruleset(game)
    bots = [make_bot(level, rules, seed=seed + i, noise=noise) for i in range(2)]
    match = run_match(rules, bots, ("bot", "bot"), range(racks[0], racks[-1] + 1), seed=seed, noise=noise)
    return [move_record(m.move) for rack in match.racks for m in rack.moves]


def main() -> None:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    held = json.loads(OUT.read_text())["cases"] if OUT.exists() else []
    kept = {(c["game"], c["level"], c["noise"], c["seed"], tuple(c["racks"])): c for c in held}
    cases, added = [], 0
    for g, lv, n, s, r in CASES:
        case = kept.get((g, lv, n, s, tuple(r)))
        if case is None:
            case = {"game": g, "level": lv, "noise": n, "seed": s, "racks": r, "commit": commit,
                    "moves": play_case(g, lv, n, s, r)}
            added += 1
        cases.append(case)
    atomic_write_text(OUT, json.dumps({"cases": cases}, indent=1) + "\n")
    print(f"{OUT}: {added} of {len(cases)} cases recorded on {commit}")


if __name__ == "__main__":
    main()
