"""The text drawn over rendered frames: who is at the table, the score, fouls, the last verdict.

Each function returns plain text, so what a frame says can be checked without reading pixels;
``render_rgb(..., status=lines)`` draws it in a bar below the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from poolgym.rules import CueBallZone, Decision, GameState, Outcome

# What the players are called when an environment names them no other way.
PLAYER_NAMES = ("player 0", "player 1")


def game_status(state: GameState, names: Sequence[str] = PLAYER_NAMES,
                racks_won: Sequence[int] | None = None, race_to: int | None = None, *,
                in_hand: bool = True) -> str:
    """One line on ``state``: who acts (to break, to shoot, to decide), the match score
    (``racks_won`` of players 0 and 1, out of ``race_to``), 14.1 points, 8-ball groups,
    each player's consecutive fouls and, unless ``in_hand`` is False (the shot from it is
    rolling, the cue ball placed), a cue ball in hand."""
    if state.winner is not None:
        parts = [f"{names[state.winner]} won the rack"]
    elif state.stalemate:
        parts = ["stalemate"]
    elif state.pending is not None:
        parts = [f"{names[state.pending.player]} to decide ({state.pending.kind.value.replace('_', ' ')})"]
    else:
        parts = [f"{names[state.shooter]} to {'break' if state.awaiting_break else 'shoot'}"]
    if racks_won is not None:
        parts.append(f"racks {racks_won[0]}-{racks_won[1]}" + (f" (race to {race_to})" if race_to else ""))
    if state.target_score is not None:
        parts.append(f"points {state.scores[0]}-{state.scores[1]} of {state.target_score}")
    if state.groups is not None:
        parts.append(f"{names[0]} {state.groups[0]}, {names[1]} {state.groups[1]}")
    parts.append(f"fouls in a row {state.consecutive_fouls[0]}-{state.consecutive_fouls[1]}")
    if in_hand and state.cue_ball_in_hand is not CueBallZone.NONE and not state.is_over:
        parts.append(f"ball in hand ({'kitchen' if state.cue_ball_in_hand is CueBallZone.KITCHEN else 'anywhere'})")
    return " | ".join(parts)


def shot_verdict(outcome: Outcome, names: Sequence[str] = PLAYER_NAMES) -> str:
    """One line on a shot the rules have judged: the shooter, the kind of shot, the fouls
    (WPA sections and the first one's reason) or what was pocketed, and a rack's end."""
    kind = "break" if outcome.break_shot else "push out" if outcome.push_out else "shot"
    parts = [f"last: {names[outcome.shooter]} {kind}"]
    if outcome.fouls:
        parts.append(f"FOUL {', '.join(outcome.foul_sections)} ({outcome.fouls[0].description})")
    if outcome.pocketed:
        parts.append("pocketed " + ", ".join(str(b) if b else "the cue ball" for b, _ in outcome.pocketed))
    elif not outcome.fouls:
        parts.append("nothing pocketed")
    if outcome.winner is not None:
        parts.append(f"{names[outcome.winner]} wins the rack")
    elif outcome.stalemate:
        parts.append("stalemate")
    return " | ".join(parts)


def decision_verdict(player: int, decision: Decision, names: Sequence[str] = PLAYER_NAMES) -> str:
    """One line on a decision just made."""
    choice = decision.choice.value.replace("_", " ")
    ball = f" {decision.ball}" if decision.ball is not None else ""
    return f"last: {names[player]} chose {choice}{ball}"


def shooting(state: GameState, names: Sequence[str] = PLAYER_NAMES) -> str:
    """One line shown while a shot is rolling: who plays it."""
    return f"{names[state.shooter]} {'breaking' if state.awaiting_break else 'shooting'}"
