"""Playing racks between two agents on states, without an environment, shot by shot.

An agent is anything with ``choose(state) -> Decision | ShotMove``. ``play_rack`` referees
one rack with the real simulator and rules and returns a ``RackRecord``: every move with
what it did, who won and why. A move the rules refuse (an illegal call, a decision that is
not a choice) forfeits the rack to the other player and is recorded as illegal.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from poolgym.envs.actions import ShotMove
from poolgym.envs.observations import actor
from poolgym.envs.play import simulate_move
from poolgym.physics import Shot, Simulator
from poolgym.rules import Decision, GameState, Outcome, Ruleset

# A rack still going after this many moves is stopped and counted as a draw.
MAX_MOVES = 400


@dataclass
class MoveRecord:
    """One move of a rack: who made it, what it was, how long the agent thought, and for a
    shot the rules' outcome, the state it was played from and ``executed``, the stroke as
    the simulator played it (after execution noise; None when no stroke was played), so a
    rack played under noise can be replayed exactly on a noiseless simulator."""

    player: int
    move: Any
    think_s: float
    state: GameState
    outcome: Outcome | None = None
    first_contact: int | None = None
    illegal: str | None = None
    executed: Shot | None = None


@dataclass
class RackRecord:
    """A refereed rack: its moves, the winner (None for a draw) and the final state."""

    breaker: int
    moves: list[MoveRecord] = field(default_factory=list)
    winner: int | None = None
    end_reason: str = ""
    final: GameState | None = None


def play_rack(rules: Ruleset, simulator: Simulator, agents, rng: np.random.Generator,
              breaker: int = 0, state: GameState | None = None,
              max_moves: int = MAX_MOVES) -> RackRecord:
    """Play one rack (a 14.1 game to its target score) between ``agents[0]`` and ``agents[1]``.

    ``rng`` racks the balls and draws the execution noise; ``state`` starts from a given
    position instead of a fresh rack.
    """
    rack = rack_moves(rules, simulator, rng, breaker, state, max_moves)
    try:
        player, state = next(rack)
        while True:
            started = time.perf_counter()
            move = agents[player].choose(state)
            player, state = rack.send((move, time.perf_counter() - started))
    except StopIteration as ended:
        return ended.value


def rack_moves(rules: Ruleset, simulator: Simulator, rng: np.random.Generator, breaker: int = 0,
               state: GameState | None = None,
               max_moves: int = MAX_MOVES) -> Generator[tuple[int, GameState], tuple[Any, float], RackRecord]:
    """``play_rack`` as a generator, for a caller that asks the agents itself: it yields
    ``(player, state)``, the player to move and the state, and is sent back ``(move,
    seconds)``, the move and how long the agent thought; its value (``StopIteration``'s) is
    the ``RackRecord``. Racks played this way side by side
    (``poolgym.agents.evaluation.evaluate.run_match``'s ``racks_at_once``) are each the one
    ``play_rack`` plays."""
    state = state if state is not None else rules.new_game(rng=rng, breaker=breaker)
    record = RackRecord(breaker=state.breaker)
    while not state.is_over and len(record.moves) < max_moves:
        player = actor(state)
        move, seconds = yield player, state
        entry = MoveRecord(player, move, seconds, state)
        record.moves.append(entry)
        try:
            if isinstance(move, Decision):
                state = rules.apply_decision(state, move)
                continue
            if not isinstance(move, ShotMove):
                raise ValueError(f"an agent's move is a Decision or a ShotMove, not {move!r}")
            events, result = simulate_move(simulator, rules, state, move, rng, False)
            state, entry.outcome = rules.apply_shot(state, move.call, events)
            entry.first_contact = events.first_contact
            entry.executed = result.shot if result is not None else None
        except ValueError as exc:
            entry.illegal = str(exc)
            record.winner = 1 - player
            record.end_reason = f"player {player} made an illegal move: {exc}"
            record.final = state
            return record
    record.final = state
    record.winner = state.winner
    last = next((m.outcome for m in reversed(record.moves) if m.outcome is not None), None)
    if state.is_over:
        record.end_reason = last.end_reason if last is not None and last.end_reason else (
            "stalemate" if state.stalemate else "")
    else:
        record.end_reason = f"stopped after {max_moves} moves"
    return record
