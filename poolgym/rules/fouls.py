"""Fouls read from a shot's events, declared fouls, and the three-foul count (WPA 6)."""

from __future__ import annotations

from typing import AbstractSet

from poolgym.rules.ball_in_hand import head_string_foul, placement_foul
from poolgym.rules.outcome import Foul
from poolgym.rules.shot import DECLARABLE_SECTIONS, ShotEvents
from poolgym.rules.state import CueBallZone, GameState
from poolgym.table import Table


def detect_fouls(state: GameState, events: ShotEvents, table: Table, *,
                 legal_first: AbstractSet[int] | None, in_force: AbstractSet[str],
                 push_out: bool = False, complete_miss_is_wrong_ball: bool = True,
                 crossed_before_contact: bool = False, ever_crossed: bool = False) -> list[Foul]:
    """The fouls of WPA 6 that the events show, for the sections ``in_force`` in the game.

    ``legal_first`` is the set of balls the cue ball may touch first (None: any ball, i.e.
    the game has no 6.2). On a push out 6.2 and 6.3 are off (WPA 2.4, 9.4). The head-string
    facts feed 6.11 when the cue ball was in hand in the kitchen.
    """
    fouls: list[Foul] = []
    zone = state.cue_ball_in_hand
    if zone is not CueBallZone.NONE and "6.10" in in_force:
        foul = placement_foul(zone, events.cue_ball_start, state.positions, table)
        if foul:
            fouls.append(foul)
    if zone is CueBallZone.KITCHEN and "6.11" in in_force:
        contact = events.first_contact
        foul = head_string_foul(contact, state.positions.get(contact), crossed_before_contact,
                                ever_crossed, table)
        if foul:
            fouls.append(foul)
    if events.cue_ball_scratched and "6.1" in in_force:
        how = "pocketed" if 0 in events.pocketed_balls else "driven off the table"
        fouls.append(Foul("6.1", f"cue ball {how}"))
    contact = events.first_contact
    checks_first = legal_first is not None and not push_out and "6.2" in in_force
    if contact is None:
        if not push_out:
            if checks_first and complete_miss_is_wrong_ball:
                fouls.append(Foul("6.2", "the cue ball touched no ball (complete miss)"))
            elif "6.3" in in_force:
                fouls.append(Foul("6.3", "the cue ball touched no ball (complete miss)"))
    elif checks_first and contact not in legal_first:
        fouls.append(Foul("6.2", f"first contact with ball {contact}; legal first "
                                 f"{'ball is' if len(legal_first) == 1 else 'balls are'} "
                                 f"{sorted(legal_first)}"))
    elif (not push_out and "6.3" in in_force and not events.pocketed
          and not events.driven_to_cushion):
        fouls.append(Foul("6.3", "no ball pocketed and no ball driven to a cushion after contact"))
    off = events.object_balls_off_table
    if off and "6.5" in in_force:
        fouls.append(Foul("6.5", f"object ball{'s' if len(off) > 1 else ''} {list(off)} "
                                 "driven off the table"))
    return fouls


def declared(events: ShotEvents, in_force: AbstractSet[str]) -> tuple[list[Foul], list[str]]:
    """The fouls declared on the shot, and the 6.16 warnings (which are not fouls).

    A declared section the game does not count as a foul raises ``ValueError``.
    """
    fouls, warnings = [], []
    for d in events.declared_fouls:
        if d.section not in in_force:
            raise ValueError(f"{d.section} ({DECLARABLE_SECTIONS[d.section]}) is not a foul "
                             "in this game")
        text = DECLARABLE_SECTIONS[d.section] + (f": {d.note}" if d.note else "")
        if d.penalty is None:
            warnings.append(f"6.16 warning: {text}")
        else:
            fouls.append(Foul(d.section, text, d.penalty, declared=True))
    return fouls, warnings


def is_third_foul(state: GameState) -> bool:
    """Whether a foul by the shooter now is his third in a row (WPA 6.14).

    It is, when he already has two and was warned on coming to the table; without the
    warning a third foul counts only as the second.
    """
    s = state.shooter
    return state.consecutive_fouls[s] >= 2 and state.warned_on_two_fouls[s]


def count_foul(counts: list[int], warned: list[bool], player: int, fouled: bool) -> None:
    """Update the consecutive-foul count of ``player`` after his shot, in place (WPA 6.14).

    A legal shot (push outs and safeties included) clears it. The third counted foul,
    whose penalty the game applies, starts the count again (WPA 4.11).
    """
    if not fouled:
        counts[player], warned[player] = 0, False
        return
    if counts[player] < 2 or warned[player]:
        counts[player] += 1
    if counts[player] >= 3:
        counts[player], warned[player] = 0, False

