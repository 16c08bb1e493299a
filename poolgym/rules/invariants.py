"""The invariants every position of every game keeps, as a list of problems in words.

``state_violations`` is what the random-rollout checker asserts after every shot and
decision; ``check_state`` turns it into a ``ValueError`` for positions that come from
outside (a saved game, a hand-built position).
"""

from __future__ import annotations

from poolgym.numbers import quote
from poolgym.rules.base import Ruleset
from poolgym.rules.overlaps import overlapping_pairs
from poolgym.rules.state import CUE_BALL, CueBallZone, GameState

# Two balls spotted or placed by the rules may touch; closer than this is an overlap.
OVERLAP_TOLERANCE = 1e-6
# The most balls named in one kind of problem (a state from outside may list thousands).
MAX_LISTED = 10


def state_violations(ruleset: Ruleset, state: GameState,
                     overlap_tolerance: float = OVERLAP_TOLERANCE) -> list[str]:
    """Every way ``state`` is not a possible position of ``ruleset``'s game; empty when sound.

    The state is of this game, there is one shooter, every object ball of the game is
    either on the table or out of play (once), a live rack has an object ball to play and
    the cue ball either on the table or in hand, no live rack is past the three-foul limit,
    balls lie on the playing surface (``Table.contains``: a ball may rest in a pocket's
    throat, past the line of the cushion noses) and no two overlap by more than
    ``overlap_tolerance`` metres (positions from the simulator may touch with round-off);
    and the game's own checks hold (``Ruleset.state_problems``: eight-ball's groups, ...).
    """
    problems = []
    if state.game != ruleset.name:
        problems.append(f"the state's game is {state.game!r}, not {ruleset.name!r}")
    if state.shooter not in (0, 1) or (state.pending and state.pending.player not in (0, 1)):
        problems.append("there must be exactly one shooter, player 0 or 1")
    on = set(state.object_balls_on_table)
    down = set(state.out_of_play)
    if on & down or on | down != set(ruleset.object_balls):
        problems.append(f"balls not conserved: on the table {quote(sorted(on))}, out of play "
                        f"{quote(sorted(down))}, the game has {list(ruleset.object_balls)}")
    if not state.is_over and not on:
        problems.append("no object ball is left on the table, yet the rack goes on")
    if not state.is_over and state.pending is None:
        cue_on = CUE_BALL in state.on_table
        if cue_on == (state.cue_ball_in_hand is not CueBallZone.NONE):
            problems.append("the cue ball must be either on the table or in hand")
    if ruleset.three_foul_rule and not state.is_over and max(state.consecutive_fouls) > 2:
        problems.append(f"a live rack with {state.consecutive_fouls} consecutive fouls")
    problems.extend(ruleset.state_problems(state))
    table = ruleset.table
    off = [(n, x, y) for n, x, y in state.balls if not table.contains(x, y, tolerance=overlap_tolerance)]
    problems.extend(f"ball {n} at ({x}, {y}) is off the table" for n, x, y in off[:MAX_LISTED])
    pairs = overlapping_pairs(state.balls, table.ball_radius, overlap_tolerance, limit=MAX_LISTED)
    problems.extend(f"balls {n} and {m} overlap" for n, m in pairs)
    if len(off) > MAX_LISTED:
        problems.append(f"{len(off) - MAX_LISTED} more balls off the table")
    return problems


def check_state(ruleset: Ruleset, state: GameState) -> None:
    """Raise ``ValueError`` naming every problem when ``state`` breaks an invariant."""
    problems = state_violations(ruleset, state)
    if problems:
        raise ValueError(f"not a possible {ruleset.name} position: " + "; ".join(problems))
