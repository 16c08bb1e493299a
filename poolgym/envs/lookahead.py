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

Where the game judges plain shots in bulk (nine-ball: ``NineBall.plain_verdicts``), the
position's plays stay in arrays: the strike rows of every slot, stroke and play from one
compiled call (``poolgym.physics.strikes``), the plays from each cue-ball spot in one more
that keeps only the facts the rules read (``Simulator.simulate_facts``: one for the whole
position unless the cue ball is in hand), judged together, the next shot's chances in
another (``pot_geometry.chances_after``) and the means in a last one
(``poolgym.physics.stroke_summary``): the features are the ones the rules give play by
play, to the last bit, at a fraction of the cost. Other games, and the rare play that
needs the rules' own judgement (a spotted money ball), go through ``Ruleset.apply_shot``.
"""

from __future__ import annotations

import weakref
import zlib
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from poolgym.envs import candidates as cand
from poolgym.envs.actions import ELEVATION
from poolgym.envs.choice import bin_value
from poolgym.envs.play import bulk_layout, shot_events, simulate_replays
from poolgym.physics import Shot, Simulator
from poolgym.physics import pot_geometry as geometry
from poolgym.physics.jit import compiled_call
from poolgym.physics.stroke_summary import stroke_features
from poolgym.physics.strikes import ANGLE, noise_draws, strike_rows
from poolgym.rules import CueBallZone, GameState, Ruleset

if TYPE_CHECKING:  # no thread pool at import
    from poolgym.physics.threads import KernelThreads

LOOKAHEAD_SLOTS = 4
# (speed bin of 10, vertical bin of 5): soft, medium and firm (1.6, 2.9 and 4.2 m/s under
# v1's 0.3-12 m/s), each drawn, centre-ball and with follow (full tip offset).
STROKES = tuple((speed, vertical) for speed in (1, 2, 3) for vertical in (0, 2, 4))
FEATURES = ("made", "scratch", "foul", "cue_x", "cue_y", "next_make", "opponent_make")
N_FEATURES = len(FEATURES)
SIZE = LOOKAHEAD_SLOTS * len(STROKES) * N_FEATURES
DEFAULT_SAMPLES = 2
MAX_SAMPLES = 64
# The fewest plays whose next shots' chances a thread works out (``chances_after``): about
# 0.0025 ms a play against about 0.1 ms a share costs.
MIN_CHANCES_PER_THREAD = 32


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
                       samples: int = DEFAULT_SAMPLES, seed: int = 0, state_checked: bool = False,
                       threads: KernelThreads | None = None) -> np.ndarray:
    """The ``lookahead`` entry of ``state`` (``SIZE`` values in [0, 1], slot by slot, stroke
    by stroke, ``FEATURES`` order; see the module docstring); all zeros where a slot is not
    a pot, on a break (no cue-ball position to foresee there) and where no shot is due.
    ``mapper`` is the env's ``ChoiceMapper`` (its slots and strokes), ``simulator`` the
    env's (its table and noise); ``state_checked`` as in ``poolgym.envs.play.simulate_move``.
    With ``threads`` (``poolgym.physics.threads.KernelThreads``) the plays in bulk and
    their next shots' chances are shared among the threads: the same values."""
    out = np.zeros((LOOKAHEAD_SLOTS, len(STROKES), N_FEATURES), dtype=np.float32)
    slots = mapper.slots(state, rules)
    if not cand.shot_is_due(state) or state.awaiting_break:
        return out.reshape(-1)
    pots = [(i, slot) for i, slot in enumerate(slots[:LOOKAHEAD_SLOTS]) if slot is not None and slot.kind == "pot"]
    if not pots:
        return out.reshape(-1)
    plays = 1 if simulator.noise.is_zero else samples
    sequence = noise_seed(state, seed)
    strokes = _mapper_strokes(mapper, pots[0][1], state)
    strokes.check(simulator.params.max_speed)
    bulk, layouts = [], {}
    for i, slot in pots:
        lead = mapper.play(slot, strokes.params[0], state)
        # The slot's strokes are checked as simulate_many checks them: the first one in
        # full (its angle is the slot's), the others' fields by strokes.check.
        lead.shot.validate(simulator.params.max_speed)
        # One check per call and cue-ball spot (one for all the slots unless in hand).
        key = (lead.call, lead.placement)
        if key not in layouts:
            layouts[key] = bulk_layout(simulator, rules, state, lead.call, lead.placement, state_checked)
        layout = layouts[key]
        if layout is None:
            for j in range(len(STROKES)):
                out[i, j] = _by_the_rules(state, rules, simulator, mapper, slot, j, sequence, plays, state_checked)
        else:
            bulk.append((i, slot, lead, layout))
    if bulk:
        _judged_in_bulk(out, bulk, strokes.fields, state, rules, simulator, mapper, sequence, plays, state_checked,
                        threads)
    return out.reshape(-1)


class _Strokes(NamedTuple):
    """``STROKES`` as a mapper plays them: each one's parameter values
    (``stroke_parameters``) and its shot's fields (``Shot``'s order) but the angle, which
    is the slot's."""

    params: tuple[dict[str, float], ...]
    fields: np.ndarray
    checked: set

    def check(self, max_speed: float) -> None:
        """``Shot.validate`` of every stroke under ``max_speed`` (once per value): the same
        ``ValueError`` as the stroke's shot, whatever its angle, would raise."""
        if max_speed not in self.checked:
            for speed, _, side, vertical, elevation in self.fields.tolist():
                Shot(speed, 0.0, side, vertical, elevation).validate(max_speed)
            self.checked.add(max_speed)


# Each mapper's strokes (a mapper is its env's: its strokes are the env's constants).
_STROKES_OF: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _mapper_strokes(mapper, slot, state: GameState) -> _Strokes:
    """``mapper``'s ``_Strokes``, read from its plays of ``slot`` in ``state`` the first time:
    ``ChoiceMapper.play`` turns a stroke's speed, side, vertical and elevation values into
    the shot's fields alone, and takes the placement and the stroke's angle from the slot
    and the cut, placement and decision values, which every stroke shares (so a slot's nine
    shots are its first stroke's with these fields)."""
    strokes = _STROKES_OF.get(mapper)
    if strokes is None:
        params = tuple(stroke_parameters(mapper, stroke) for stroke in STROKES)
        shots = [mapper.play(slot, p, state).shot for p in params]
        fields = np.array([(s.speed, 0.0, s.side, s.vertical, s.elevation_deg) for s in shots], dtype=np.float64)
        strokes = _STROKES_OF[mapper] = _Strokes(params, fields, set())
    return strokes


def _by_the_rules(state: GameState, rules: Ruleset, simulator: Simulator, mapper, slot, j: int,
                  sequence: np.random.SeedSequence, plays: int, state_checked: bool) -> np.ndarray:
    """Stroke ``j``'s features on ``slot``, its plays simulated one by one and judged by
    ``Ruleset.apply_shot`` (``_summary``), the noise drawn afresh from ``sequence``."""
    move = mapper.play(slot, stroke_parameters(mapper, STROKES[j]), state)
    rng = np.random.default_rng(sequence)
    played = simulate_replays(simulator, rules, state, move, rng, plays, state_checked=state_checked)
    return _summary(state, rules, mapper.sigma_deg, move, played, simulator.table)


def _summary(state: GameState, rules: Ruleset, sigma_deg: float, move, played, table) -> np.ndarray:
    """One stroke's ``FEATURES`` over its plays (``simulate_replays``'s results)."""
    tallies = _Tallies.of(len(played))
    for p, (events, result) in enumerate(played):
        tallies.judge(p, state, rules, sigma_deg, move.call, events, result)
    return tallies.features(len(played), table)[0]


class _Tallies(NamedTuple):
    """What ``stroke_summary.stroke_features`` reads of each play (its arguments)."""

    simulated: np.ndarray
    on: np.ndarray
    x: np.ndarray
    y: np.ndarray
    foul: np.ndarray
    ended: np.ndarray
    won: np.ndarray
    kept: np.ndarray
    best: np.ndarray

    @classmethod
    def of(cls, count: int, **columns) -> "_Tallies":
        """``count`` plays' rows: ``columns`` as given, the others cleared."""
        flags = {name: np.zeros(count, dtype=bool) for name in ("simulated", "on", "foul", "ended", "kept")}
        values = {name: np.zeros(count) for name in ("x", "y", "won", "best")}
        return cls(**{**flags, **values, **columns})

    def judge(self, p: int, state: GameState, rules: Ruleset, sigma_deg: float, call, events, result) -> None:
        """Row ``p``: a play's ``events`` and ``result`` (None: not simulated) judged by
        ``Ruleset.apply_shot``, the next shot's chance ``candidates.best_pot_chance``."""
        after, outcome = rules.apply_shot(state, call, events, simulated=True)
        self.simulated[p], self.foul[p] = result is not None, bool(outcome.fouls)
        # No stop where the cue ball was pocketed or driven off the table.
        self.on[p] = result is not None and 0 in result.positions
        if self.on[p]:
            self.x[p], self.y[p] = result.positions[0]
        self.ended[p] = outcome.rack_over
        if outcome.rack_over:
            self.won[p], self.kept[p], self.best[p] = float(outcome.winner == state.shooter), False, 0.0
        else:
            self.won[p], self.kept[p] = 0.0, outcome.turn_kept
            self.best[p] = cand.best_pot_chance(after, rules, sigma_deg)

    def features(self, plays: int, table) -> np.ndarray:
        """``FEATURES`` of each block of ``plays`` rows."""
        with compiled_call():
            return stroke_features(*self, plays, table.length, table.width)


def _judged_in_bulk(out: np.ndarray, bulk: list, fields: np.ndarray, state: GameState, rules: Ruleset,
                    simulator: Simulator, mapper, sequence: np.random.SeedSequence, plays: int,
                    state_checked: bool, threads: KernelThreads | None) -> None:
    """Fill ``out``'s rows of the ``bulk`` slots ((slot index, slot, its first stroke's move,
    the layout ``bulk_layout`` gave); ``fields``: ``_Strokes.fields``), where the game
    judges shots in bulk (``NineBall.plain_verdicts``): every stroke's plays on every slot
    struck in one compiled call (``strikes.strike_rows``) under the same draws, the plays
    from each cue-ball spot simulated in one (``Simulator.simulate_facts``), all judged
    together, the next shots' chances in one call (``pot_geometry.chances_after``) and the
    means in one (``stroke_summary.stroke_features``): the same values as ``_summary``'s
    to the last bit.
    A play that needs the rules' own judgement (a spotted money ball, a ball dropping after
    the rest) is played again alone and judged by ``Ruleset.apply_shot``. ``threads`` share
    the compiled calls on the plays (``lookahead_features``)."""
    count = len(STROKES)
    shots = np.tile(fields, (len(bulk), 1))
    shots[:, ANGLE] = np.repeat([lead.shot.angle_deg for _, _, lead, _ in bulk], count)
    draws = (np.zeros((1, 0)) if simulator.noise.is_zero
             else noise_draws(simulator.noise, np.random.default_rng(sequence), plays))
    strikes = strike_rows(simulator, shots, draws)
    block = count * plays  # a slot's rows: stroke by stroke, play by play
    # The slots struck from one cue-ball spot (all of them unless the cue ball is in hand).
    spots: dict = {}
    for k, (_, _, lead, _) in enumerate(bulk):
        spots.setdefault(lead.placement, []).append(k)
    order = [k for ks in spots.values() for k in ks]
    played = []
    for ks in spots.values():
        rows = (strikes[ks[0] * block:(ks[-1] + 1) * block] if ks == list(range(ks[0], ks[-1] + 1))
                else np.concatenate([strikes[k * block:(k + 1) * block] for k in ks]))
        played.append(simulator.simulate_facts(bulk[ks[0]][3], rows, threads))
    # Every layout holds the state's balls and the cue ball: the same ball columns.
    facts = played[0] if len(played) == 1 else played[0]._make(
        [played[0].nums] + [np.concatenate(column) for column in zip(*(f[1:] for f in played))])
    verdict = rules.plain_verdicts(state, facts.nums, facts.first, facts.pocketed, facts.off,
                                   facts.cushion_after, facts.cushion_any)
    table = simulator.table
    # The next shot: the shooter's after a kept table, the opponent's otherwise, with the
    # cue ball in hand anywhere after a foul (WPA 2.7); none after a won or lost rack.
    head = table.head_spot
    ended = verdict.won | verdict.lost
    cue = facts.nums.index(0)
    nums, need = np.array(facts.nums, dtype=np.int64), ~(ended | verdict.spot)
    fixed = (float(mapper.sigma_deg), *table.surface_arrays, cand.in_hand_place(CueBallZone.ANYWHERE, table),
             head[0], head[1], geometry.ZONE_ANYWHERE)
    shares = [slice(0, len(need))] if threads is None else threads.row_shares(len(need), MIN_CHANCES_PER_THREAD)
    with compiled_call():
        if len(shares) == 1:
            chances = geometry.chances_after(nums, facts.xs, facts.ys, facts.on, verdict.foul, need, *fixed)
        else:  # each play's chance is its own: the rows shared among the threads
            chances = np.concatenate(threads.run([
                partial(geometry.chances_after, nums, facts.xs[rows], facts.ys[rows], facts.on[rows],
                        verdict.foul[rows], need[rows], *fixed) for rows in shares]))
    tallies = _Tallies.of(len(chances), simulated=np.ones(len(chances), dtype=bool),
                       on=np.ascontiguousarray(facts.on[:, cue]), x=np.ascontiguousarray(facts.xs[:, cue]),
                       y=np.ascontiguousarray(facts.ys[:, cue]), foul=verdict.foul, ended=ended,
                       won=verdict.won.astype(np.float64), kept=verdict.kept, best=chances)
    # The plays the rules judge themselves, played again one by one under their own draws
    # (simulate_many's plays: the executed shot from the same layout) and judged by them.
    for r in np.flatnonzero(verdict.spot | facts.late_drop).tolist():
        k, j, p = order[r // block], r // plays % count, r % plays
        _, _, lead, layout = bulk[k]
        speed, _, side, vertical, elevation = fields[j].tolist()
        shot = Shot(speed, float(lead.shot.angle_deg), side, vertical, elevation)
        if not simulator.noise.is_zero:
            shot = Shot(*simulator.noise.executed(shot, tuple(draws[p].tolist()), simulator.params.max_speed))
        result = simulator.simulate_executed(layout, shot)
        tallies.judge(r, state, rules, mapper.sigma_deg, lead.call, shot_events(simulator, rules, result), result)
    features = tallies.features(plays, table)
    out[[bulk[k][0] for k in order]] = features.reshape(len(order), count, N_FEATURES)
