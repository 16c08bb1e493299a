"""Lookahead features of the choice modes: what a few canonical strokes on each pot slot
leave, simulated under the env's execution noise.

The candidate features (``poolgym.envs.candidates``) say how hard a pot is; they say nothing
of where the cue ball goes, and that is where racks are lost: a pot that scratches, or one
that leaves no next shot. With ``lookahead=True`` a choice-mode env adds the ``lookahead``
entry to its observation: for each of the first ``LOOKAHEAD_SLOTS`` pot slots (the easiest
pots, in slot order) and each stroke of ``STROKES``, over ``samples`` noisy plays:

- ``made``: the fraction of plays in which the shooter keeps the table (a legal pot) or
  wins the rack;
- ``scratch``: the fraction in which the cue ball ends in a pocket or off the table;
- ``foul``: the fraction the rules judge a foul (scratches included);
- ``cue_x``, ``cue_y``: where the cue ball stops (mean over the plays it stays on the
  table; over the table's length and width), 0 when it never does;
- ``next_make``: the shooter's best make probability for the next shot in the position
  left (``poolgym.envs.candidates.best_pot_chance``: the closed form of the pot slots'
  ``make_probability``), averaged over the plays,
  1 for a play that wins the rack and 0 for one that gives up the table;
- ``opponent_make``: the same for the opponent, over the plays that give up the table.

``STROKES`` are bins of ``choice_discrete`` (speed x vertical tip offset, the cut, side and
placement bins at their middle, the cue level), so the stroke a feature describes is the
action that plays it: ``choice_discrete`` ``[slot, 5, speed_bin, 2, vertical_bin, 2, 3,
decision]``, the same parameters as bin values in ``choice``, or in ``choice_canonical``
the option ``slot * 9 + stroke`` (``poolgym.envs.canonical``: its first 36 options are these
strokes, in this order, so a policy chooses among the strokes it sees foreseen).

The plays draw their noise from a generator seeded by the layout and ``seed`` alone, the
same draws for every slot and stroke (common random numbers: the features of two strokes
differ by the strokes, not by their luck), so the features are a pure function of the
state: the same position always looks the same. Without execution noise one play is made.

Where the game judges plain shots in bulk (nine-ball: ``NineBall.plain_verdicts``), a
slot's plays are simulated in one compiled call that keeps only the facts the rules read
(``Simulator.simulate_facts``), judged together, and the next shot's chances computed in
another (``pot_geometry.chances_after``): the features are the ones the rules give play by
play, to the last bit, at a fifth of the cost. Other games, and the rare play that needs
the rules' own judgement (a spotted money ball), go through ``Ruleset.apply_shot``.
"""

from __future__ import annotations

import zlib

import numpy as np

from poolgym.envs import candidates as cand
from poolgym.envs.actions import ELEVATION
from poolgym.envs.choice import bin_value
from poolgym.envs.play import bulk_layout, judged_in_bulk, simulate_replays
from poolgym.physics import Simulator
from poolgym.physics import pot_geometry as geometry
from poolgym.physics.jit import compiled_call
from poolgym.rules import CueBallZone, GameState, Ruleset

LOOKAHEAD_SLOTS = 4
# (speed bin of 10, vertical bin of 5): soft, medium and firm (1.6, 2.9 and 4.2 m/s under
# v1's 0.3-12 m/s), each drawn, centre-ball and with follow (full tip offset).
STROKES = tuple((speed, vertical) for speed in (1, 2, 3) for vertical in (0, 2, 4))
FEATURES = ("made", "scratch", "foul", "cue_x", "cue_y", "next_make", "opponent_make")
N_FEATURES = len(FEATURES)
SIZE = LOOKAHEAD_SLOTS * len(STROKES) * N_FEATURES
DEFAULT_SAMPLES = 2
MAX_SAMPLES = 64


def check_samples(value) -> int:
    """``value`` if it is a whole number of plays in 1..``MAX_SAMPLES``, else ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= MAX_SAMPLES:
        raise ValueError(f"lookahead_samples must be a whole number of plays in 1..{MAX_SAMPLES}, got {value!r}")
    return int(value)


def stroke_parameters(mapper, stroke: tuple[int, int]) -> dict[str, float]:
    """The parameter values (name -> value in [-1, 1], ``mapper.params``) that play
    ``stroke`` with ``mapper`` (a ``ChoiceMapper``): its speed and vertical bins, every other
    bin at its middle, the cue level, the first decision."""
    bins = stroke_bins(mapper, stroke)
    values = {name: bin_value(bins[name], n) for name, n in mapper.param_bins.items()}
    values["decision"] = 0.0
    return values


def stroke_bins(mapper, stroke: tuple[int, int]) -> dict[str, int]:
    """The bin of each parameter (``mapper.param_bins``) that plays ``stroke``."""
    bins = {name: n // 2 for name, n in mapper.param_bins.items()}
    bins["speed"], bins["vertical"] = stroke
    if ELEVATION in bins:
        bins[ELEVATION] = 0  # level
    return bins


def stroke_action(mapper, slot_index: int, stroke: tuple[int, int]) -> np.ndarray:
    """The action of ``mapper`` that plays ``stroke`` on slot ``slot_index``: the
    ``choice_discrete`` index vector, ``choice``'s slot scores and parameter values, or in
    ``choice_canonical`` the option index (``slot_index * len(STROKES)`` plus the stroke's:
    the canonical options begin with these strokes, ``poolgym.envs.canonical``)."""
    if mapper.mode == "choice_canonical":
        return np.int64(slot_index * len(STROKES) + STROKES.index(stroke))
    if mapper.mode == "choice_discrete":
        return np.array([slot_index, *stroke_bins(mapper, stroke).values(), 0], dtype=np.int64)
    scores = -np.ones(cand.N_SLOTS)
    scores[slot_index] = 1.0
    values = stroke_parameters(mapper, stroke)
    return np.concatenate([scores, [values[name] for name in mapper.params]])


def noise_seed(state: GameState, seed: int) -> np.random.SeedSequence:
    """The seed of a position's lookahead plays: ``seed`` and the layout's bytes."""
    layout = np.array(sorted(state.balls), dtype=np.float64).tobytes()
    return np.random.SeedSequence([int(seed), zlib.crc32(layout)])


def lookahead_features(state: GameState, rules: Ruleset, simulator: Simulator, mapper,
                       samples: int = DEFAULT_SAMPLES, seed: int = 0, state_checked: bool = False) -> np.ndarray:
    """The ``lookahead`` entry of ``state`` (``SIZE`` values in [0, 1], slot by slot, stroke
    by stroke, ``FEATURES`` order; see the module docstring); all zeros where a slot is not
    a pot, on a break (no cue-ball position to foresee there) and where no shot is due. ``mapper`` is the env's ``ChoiceMapper`` (its slots and
    strokes), ``simulator`` the env's (its table and noise); ``state_checked`` as in
    ``poolgym.envs.play.simulate_move``."""
    out = np.zeros((LOOKAHEAD_SLOTS, len(STROKES), N_FEATURES), dtype=np.float32)
    slots = mapper.slots(state, rules)
    if not cand.shot_is_due(state) or state.awaiting_break:
        return out.reshape(-1)
    plays = 1 if simulator.noise.is_zero else samples
    sequence = noise_seed(state, seed)
    for i, slot in enumerate(slots[:LOOKAHEAD_SLOTS]):
        if slot is None or slot.kind != "pot":
            continue
        moves = [mapper.play(slot, stroke_parameters(mapper, stroke), state) for stroke in STROKES]
        compiled = _compiled_summaries(state, rules, simulator, mapper.sigma_deg, moves, sequence, plays,
                                       state_checked)
        for j, move in enumerate(moves):
            if compiled[j] is not None:
                out[i, j] = compiled[j]
                continue
            rng = np.random.default_rng(sequence)
            played = simulate_replays(simulator, rules, state, move, rng, plays, state_checked=state_checked)
            out[i, j] = _summary(state, rules, mapper.sigma_deg, move, played, simulator.table)
    return out.reshape(-1)


def _summary(state: GameState, rules: Ruleset, sigma_deg: float, move, played, table) -> np.ndarray:
    """One stroke's ``FEATURES`` over its plays (``simulate_replays``'s results)."""
    tallies = []
    for events, result in played:
        after, outcome = rules.apply_shot(state, move.call, events, simulated=True)
        stop = None
        if result is not None:
            # None where the cue ball was pocketed or driven off the table.
            stop = result.positions.get(0, None)
        if outcome.rack_over:
            tallies.append((result is not None, stop, bool(outcome.fouls), float(outcome.winner == state.shooter),
                            False, 0.0))
            continue
        tallies.append((result is not None, stop, bool(outcome.fouls), None, outcome.turn_kept,
                        cand.best_pot_chance(after, rules, sigma_deg)))
    return _features(tallies, table)


def _features(tallies, table) -> np.ndarray:
    """``FEATURES`` from each play's (simulated, cue-ball stop or None, fouled, won: 1 or 0
    where the rack ended else None, turn kept, the next shot's best chance)."""
    made = scratch = foul = next_make = opponent_make = 0.0
    stops = []
    for simulated, stop, fouled, won, kept, best in tallies:
        if simulated:
            if stop is not None:
                stops.append((stop[0] / table.length, stop[1] / table.width))
            else:
                scratch += 1.0
        foul += float(fouled)
        if won is not None:
            made, next_make = made + won, next_make + won
        elif kept:
            made, next_make = made + 1.0, next_make + best
        else:
            opponent_make += best
    n = float(len(tallies))
    cue = np.mean(stops, axis=0) if stops else (0.0, 0.0)
    return np.clip([made / n, scratch / n, foul / n, cue[0], cue[1], next_make / n, opponent_make / n], 0.0, 1.0)


def _compiled_summaries(state: GameState, rules: Ruleset, simulator: Simulator, sigma_deg: float, moves,
                        sequence: np.random.SeedSequence, plays: int, state_checked: bool) -> list:
    """The ``_summary`` of each of ``moves`` (one slot's strokes, each played ``plays``
    times with the noise of ``sequence``), where the game judges its shots in bulk
    (``NineBall.plain_verdicts``): every play of the slot simulated in one compiled call
    (``Simulator.simulate_facts``) and the next shot's chances in another
    (``pot_geometry.chances_after``), the same values as ``_summary``'s to the last bit.
    None for a stroke left to ``_summary``: every stroke where the game does not judge in
    bulk or the placement is no legal one, and a stroke with a play that needs the
    rules' own judgement (a spotted money ball, a ball dropping after the rest)."""
    placement, call = moves[0].placement, moves[0].call
    layout = (None if any(m.placement != placement or m.call != call for m in moves)
              else bulk_layout(simulator, rules, state, call, placement, state_checked))
    if layout is None:
        return [None] * len(moves)
    rng = np.random.default_rng(sequence)
    draws = [() if simulator.noise.is_zero else simulator.noise.draws(rng) for _ in range(plays)]
    facts, verdict = judged_in_bulk(simulator, rules, state, layout,
                                    simulator.strikes_under([m.shot for m in moves], draws))
    table = simulator.table
    # The next shot: the shooter's after a kept table, the opponent's otherwise, with the
    # cue ball in hand anywhere after a foul (WPA 2.7); none after a won or lost rack.
    head = table.head_spot
    with compiled_call():
        chances = geometry.chances_after(
            np.array(facts.nums, dtype=np.int64), facts.xs, facts.ys, facts.on, verdict.foul,
            ~(verdict.won | verdict.lost | verdict.spot), float(sigma_deg), *table.surface_arrays,
            cand.in_hand_place(CueBallZone.ANYWHERE, table), head[0], head[1], geometry.ZONE_ANYWHERE)
    cue = facts.nums.index(0)
    out = []
    for j in range(len(moves)):
        block = slice(j * plays, (j + 1) * plays)
        if verdict.spot[block].any() or facts.late_drop[block].any():
            out.append(None)
            continue
        tallies = []
        for p in range(block.start, block.stop):
            stop = (float(facts.xs[p, cue]), float(facts.ys[p, cue])) if facts.on[p, cue] else None
            won = 1.0 if verdict.won[p] else 0.0 if verdict.lost[p] else None
            tallies.append((True, stop, bool(verdict.foul[p]), won, bool(verdict.kept[p]), float(chances[p])))
        out.append(_features(tallies, table))
    return out
