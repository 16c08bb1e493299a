"""Positions and shortcuts shared by the rules tests."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from poolgym.rules import (Choice, CueBallZone, Decision, GameState, Outcome, Ruleset, ShotCall, ShotEvents,
                           random_events)
from poolgym.table import Table

TABLE = Table.preset("9ft")
R = TABLE.ball_radius
HEAD_STRING_X = TABLE.head_string_x
FOOT_SPOT = TABLE.foot_spot
KITCHEN_SPOT = (0.4, 0.5)  # a legal kitchen placement on the 9-ft table
MID = TABLE.width / 2


def spread(*numbers: int, x0: float = 1.0, y: float = 0.3, step: float = 0.1) -> dict:
    """Balls in a row across the table, well apart and clear of the foot spot and head string."""
    return {n: (x0 + i * step, y) for i, n in enumerate(numbers)}


def position(game: str, balls: dict, **fields) -> GameState:
    """A mid-rack position: the cue ball on the table unless a zone is given."""
    fields.setdefault("awaiting_break", False)
    fields.setdefault("cue_ball_in_hand", CueBallZone.NONE)
    fields.setdefault("shot_number", 5)
    return GameState(game=game, balls=balls, **fields)


def play_script(rules: Ruleset, state: GameState, script: list) -> tuple[GameState, list[Outcome]]:
    """Play a golden transcript from ``state``: each entry is a ``Decision`` or
    ``(call, events kwargs, expected outcome fields)``. Fouls compare by section, spotted
    balls by number, the pending decision by kind and player; ``groups`` is the state's
    after the shot. Returns the final state and every shot's outcome."""
    outcomes = []
    for step, entry in enumerate(script):
        if isinstance(entry, Decision):
            state = rules.apply_decision(state, entry)
            continue
        call, events, expected = entry
        state, outcome = rules.apply_shot(state, call, ShotEvents(**events))
        got = outcome.to_dict()
        got["fouls"] = [f["section"] for f in got["fouls"]]
        got["spotted"] = [b for b, *_ in got["spotted"]]
        got["groups"] = None if state.groups is None else list(state.groups)
        if got["pending"] is not None:
            got["pending"] = {k: got["pending"][k] for k in ("kind", "player")}
        for key, value in expected.items():
            assert got[key] == value, f"step {step}: {key}"
        outcomes.append(outcome)
    return state, outcomes


def random_play(rules: Ruleset, rng: np.random.Generator, shots: int, rack: int = 0
                ) -> Iterator[tuple[GameState, ShotCall, ShotEvents, GameState, Outcome]]:
    """``shots`` random shots of ``rules`` from a new game racked with seed ``rack`` (the
    next racks seeded with the shot count): every decision answered in turn, each shot a
    call drawn from ``rng`` and ``random_events``; yields each shot's state, call, events,
    the state after it and its outcome."""
    state, played = rules.new_game(rng=rack), 0
    while played < shots:
        if state.is_over:
            state = rules.next_rack(state, rng=played)
            continue
        if state.pending is not None:
            choice = state.pending.choices[played % len(state.pending.choices)]
            ball = state.pending.balls[0] if choice is Choice.SPOT_BALL else None
            state = rules.apply_decision(state, Decision(choice, ball=ball))
            continue
        played += 1
        options = rules.call_options(state)
        call = options[int(rng.integers(len(options)))]
        events = random_events(rules, state, call, rng)
        after, outcome = rules.apply_shot(state, call, events)
        yield state, call, events, after, outcome
        state = after
