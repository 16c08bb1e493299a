"""The shot candidates of the choice action modes: a fixed number of slots, each one shot
the shooter may choose now (a ball into a pocket, a safety on a ball, a push out), with the
features an agent sees of it and the cue-ball placement relative to it.

Slots, in this order (``N_SLOTS`` = 20):

- ``N_POT_SLOTS`` (16) pot slots: the (ball, pocket) pots open now, the legal first balls
  times the six pockets, or the rules' ball-and-pocket calls on legal first balls in
  call-shot games (all of their calls when no legal first ball is callable), ranked easiest
  first by the closed-form make probability at ``RANKING_SIGMA_DEG`` (ties by
  ``shot_difficulty``, then ball and pocket), the best 16 kept (8-ball has at most 7 x 6 =
  42 pots, 14.1 up to 90). Unused slots are invalid.
- ``N_SAFETY_SLOTS`` (3) safety slots: the legal first balls nearest the cue ball, with a
  called safety where the rules offer one (else no call).
- 1 push-out slot, valid only when the rules offer a push out.

The order depends on the state alone (never on the execution noise), so an encoder and the
env agree on it; the make probability feature is the one under the env's noise. With the
cue ball in hand every slot is judged from its default placement (``placement`` at (0, 0):
30 cm straight behind the ghost ball). No slot is valid while a decision is pending or once
the rack is over.

A state's slots are worked out in one compiled call (``pot_geometry.candidate_slots``):
the observation, the masks and the shaping potential read its arrays, and
``CandidateSlots`` makes a slot's ``Slot`` only when something reads it (the slot played).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from poolgym.aiming import (aim_point, chance_divisor, chance_within, direction_deg, ghost_ball,
                            stroke_per_object_ball_deg)
from poolgym.physics import pot_geometry as geometry
from poolgym.physics.jit import compiled_call
from poolgym.records import stored
from poolgym.envs.derived import PerStateCache
from poolgym.rules import CueBallZone, GameState, Ruleset, ShotCall
from poolgym.table import POCKET_IDS, Table

Point = tuple[float, float]

N_POT_SLOTS = geometry.POT_SLOTS
N_SAFETY_SLOTS = geometry.SAFETY_SLOTS
N_SLOTS = geometry.SLOTS
PUSH_OUT_SLOT = N_SLOTS - 1
KINDS = ("pot", "safety", "push_out")
# The reference aim error that ranks the pot slots: large enough that the order means
# something without execution noise, and fixed so the order is the same for every noise.
RANKING_SIGMA_DEG = 1.0
# Cue-ball placement in hand: the distance behind the slot's contact point runs over
# [PLACE_MIN_M, PLACE_MAX_M] (the middle, 30 cm, at 0) and the approach turns up to
# PLACE_MAX_ANGLE_DEG either side of the straight line.
PLACE_MIN_M, PLACE_MAX_M = 0.05, 0.55
PLACE_MAX_ANGLE_DEG = 75.0
# A push out may be struck in any direction: its residual turns the stroke up to this far
# from the line to the nearest legal ball.
PUSH_OUT_MAX_TURN_DEG = 180.0

FEATURES = ("valid", "kind_pot", "kind_safety", "kind_push_out", "ball",
            *(f"pocket_{p}" for p in POCKET_IDS), "cut", "cue_to_ghost", "ball_to_pocket",
            "cue_path_blocked", "ball_path_blocked", "pocket_visible_angle", "make_probability")
N_FEATURES = len(FEATURES)
assert N_FEATURES == geometry.SLOT_FEATURES and KINDS.index("push_out") == geometry.PUSH_OUT


@dataclass(frozen=True)
class Slot:
    """One valid slot: what is played and how it looks from the cue ball.

    ``contact`` is where the cue-ball centre meets the object ball on the straight line
    (the ghost ball of a pot; the full-ball contact of a safety), ``cue`` the cue-ball
    position the features are measured from (its spot, or the default placement when in
    hand). ``cut_deg`` is the cut angle, ``cue_to_contact`` and ``ball_to_pocket`` the two
    travels (metres), ``visible_angle`` the angle (radians) the pocket's usable mouth
    subtends from the ball, ``make_probability`` the closed-form chance under the env's aim
    noise (``poolgym.aiming.pot_chance``; 0 for a safety or push out).
    """

    kind: str
    call: ShotCall
    ball: int | None
    pocket: str | None
    contact: Point | None
    cue: Point | None
    cut_deg: float = 0.0
    cue_to_contact: float = 0.0
    ball_to_pocket: float = 0.0
    cue_blocked: bool = False
    ball_blocked: bool = False
    visible_angle: float = 0.0
    make_probability: float = 0.0


# The calls the slots play, built once: a ``ShotCall`` is a frozen value compared by
# value, and making one runs its checks, which cost more than the rest of a safety slot.
_NO_CALL = ShotCall()
_SAFETY_CALL = ShotCall.safety_shot()
_PUSH_CALL = ShotCall.push()


def shot_is_due(state: GameState) -> bool:
    """Whether the next move is a shot (not a decision, and the rack is not over)."""
    return state.pending is None and state.winner is None and not state.stalemate


def candidate_slots(state: GameState, rules: Ruleset, sigma_deg: float,
                    derived: PerStateCache | None = None) -> CandidateSlots:
    """The ``N_SLOTS`` slots of ``state`` (``CandidateSlots``: a Slot or None per slot, in
    slot order), worked out in one compiled call (``pot_geometry.candidate_slots``);
    ``sigma_deg`` is the env's aim noise for the make probability. ``derived`` supplies the
    rules' call options and legal targets when they are kept for this state already."""
    if not shot_is_due(state):
        return NO_SLOTS
    table = rules.table
    derived = PerStateCache() if derived is None else derived
    ball_calls, call_rows, no_call, safety_call, push_call = _call_arrays(derived.call_options(state, rules))
    targets = _first_balls(state, derived.legal_targets(state, rules))
    cue = _cue_spot(state, table)
    zone = state.cue_ball_in_hand
    place = _NOT_IN_HAND if zone is CueBallZone.NONE else _kept_in_hand_place(zone, table)
    pockets, _, _, dims = table.surface_arrays
    balls = np.array(state.balls, dtype=np.float64).reshape(-1, 3)
    with compiled_call():
        arrays = geometry.candidate_slots(balls, np.array(targets, dtype=np.int64), call_rows, no_call, safety_call,
                                          push_call, cue[0], cue[1], place, pockets, dims,
                                          _RANKING_DIVISOR, chance_divisor(sigma_deg))
    return CandidateSlots(*arrays, ball_calls, _SAFETY_CALL if safety_call else _NO_CALL)


# ``chance_within(tolerance, RANKING_SIGMA_DEG)`` is ``erf(tolerance / _RANKING_DIVISOR)``.
_RANKING_DIVISOR = chance_divisor(RANKING_SIGMA_DEG)
_NO_CALL_ROWS = np.zeros((0, 2), dtype=np.int64)
_NO_CALL_ROWS.flags.writeable = False
# ``_call_arrays``' results by the identity of the calls tuple (kept in each entry, so its
# id is not reused while the entry lives): the rules hand out the same few tuples shot
# after shot (``poolgym.rules.shot.ball_and_pocket_calls`` is cached), and comparing 40
# calls with the three plain ones costs more than the rest of the slots.
_CALL_ARRAYS: dict[int, tuple] = {}
_CALL_ARRAYS_MAX = 512


def _call_arrays(calls: tuple[ShotCall, ...]) -> tuple[tuple[ShotCall, ...], np.ndarray, bool, bool, bool]:
    """What ``pot_geometry.candidate_slots`` reads of the rules' call options ``calls``:
    the calls naming a ball and their rows of (ball, pocket row), and whether the no-call
    shot, a called safety and a push out are offered."""
    kept = _CALL_ARRAYS.get(id(calls))
    if kept is not None and kept[0] is calls:
        return kept[1]
    ball_calls = tuple(c for c in calls if c.names_ball)
    if ball_calls:
        rows = np.array([(c.ball, _POCKET_ROW[c.pocket]) for c in ball_calls], dtype=np.int64)
        rows.flags.writeable = False  # shared by every state offered these calls
    else:
        rows = _NO_CALL_ROWS
    value = (ball_calls, rows, _NO_CALL in calls, _SAFETY_CALL in calls, _PUSH_CALL in calls)
    if len(_CALL_ARRAYS) >= _CALL_ARRAYS_MAX:
        _CALL_ARRAYS.clear()
    _CALL_ARRAYS[id(calls)] = (calls, value)
    return value


class CandidateSlots(Sequence):
    """The ``N_SLOTS`` slots of a state as ``pot_geometry.candidate_slots`` gives them: a
    read-only sequence of ``Slot`` or None (an invalid slot), in slot order, each ``Slot``
    made on first use. ``features`` (``slot_features``), ``mask`` (``slot_mask``) and
    ``best`` (``best_make_probability``) are read from the arrays without making any.
    ``codes`` and ``values`` are the kernel's per-slot arrays; ``ball_calls`` the calls its
    ``CALL`` column indexes, ``safety_call`` the call of the safety slots."""

    __slots__ = ("codes", "values", "features", "mask", "best", "ball_calls", "safety_call", "_made")

    def __init__(self, codes: np.ndarray, values: np.ndarray, features: np.ndarray, mask: np.ndarray,
                 best: float, ball_calls: tuple[ShotCall, ...], safety_call: ShotCall) -> None:
        for array in (codes, values, features, mask):
            array.flags.writeable = False  # shared by every reader of the state's slots
        self.codes, self.values, self.features, self.mask, self.best = codes, values, features, mask, best
        self.ball_calls, self.safety_call = ball_calls, safety_call
        self._made: list = [_UNMADE] * N_SLOTS

    def __len__(self) -> int:
        return N_SLOTS

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(N_SLOTS)))
        i = operator.index(index)
        if i < 0:
            i += N_SLOTS
        if not 0 <= i < N_SLOTS:
            raise IndexError(f"slot index {index} out of range 0..{N_SLOTS - 1}")
        slot = self._made[i]
        if slot is _UNMADE:
            slot = self._made[i] = self._slot(i)
        return slot

    def valid(self) -> list[int]:
        """The indices of the valid slots, ascending."""
        return np.flatnonzero(self.mask).tolist()

    def _slot(self, i: int) -> Slot | None:
        kind, ball, pocket, call = self.codes[i].tolist()
        if kind == geometry.NO_SLOT:
            return None
        ball = ball if ball >= 0 else None
        if kind == geometry.PUSH_OUT:
            return Slot("push_out", _PUSH_CALL, ball, None, None, None)
        (contact_x, contact_y, cue_x, cue_y, cut, d1, d2, cue_blocked, ball_blocked, visible,
         make) = self.values[i].tolist()
        if kind == geometry.POT:
            return stored(Slot, kind="pot", call=self.ball_calls[call] if call >= 0 else _NO_CALL, ball=ball,
                          pocket=POCKET_IDS[pocket], contact=(contact_x, contact_y), cue=(cue_x, cue_y),
                          cut_deg=cut, cue_to_contact=d1, ball_to_pocket=d2, cue_blocked=cue_blocked != 0.0,
                          ball_blocked=ball_blocked != 0.0, visible_angle=visible, make_probability=make)
        return stored(Slot, kind="safety", call=self.safety_call, ball=ball, pocket=None,
                      contact=(contact_x, contact_y), cue=(cue_x, cue_y), cut_deg=0.0, cue_to_contact=d1,
                      ball_to_pocket=0.0, cue_blocked=cue_blocked != 0.0, ball_blocked=False, visible_angle=0.0,
                      make_probability=0.0)

    def __eq__(self, other) -> bool:
        if not isinstance(other, (CandidateSlots, tuple)):
            return NotImplemented
        return tuple(self) == tuple(other)

    __hash__ = None

    def __repr__(self) -> str:
        return f"CandidateSlots({tuple(self)!r})"


_UNMADE = object()  # a slot not made yet (None is an invalid slot)


def _no_slots() -> CandidateSlots:
    codes = np.full((N_SLOTS, 4), geometry.NO_SLOT, dtype=np.int64)
    return CandidateSlots(codes, np.zeros((N_SLOTS, geometry.SLOT_VALUES)),
                          np.zeros(N_SLOTS * N_FEATURES, dtype=np.float32), np.zeros(N_SLOTS, dtype=np.int8), 0.0,
                          (), _NO_CALL)


NO_SLOTS = _no_slots()
"""The slots of a state where no shot is due: none valid."""


def slot_mask(slots: CandidateSlots) -> np.ndarray:
    """One flag per slot: 1 where the slot may be played now (a fresh array)."""
    return slots.mask.copy()


def best_make_probability(slots: CandidateSlots) -> float:
    """The best make probability over the pot slots (0 when none is open)."""
    return slots.best


def slot_features(slots: CandidateSlots) -> np.ndarray:
    """``N_SLOTS`` x ``N_FEATURES`` values in [0, 1], flattened slot by slot (``FEATURES``
    order), a fresh float32 array: valid flag; kind one-hot; ball number / 15; pocket
    one-hot; cut angle / 180 degrees; cue-to-contact and ball-to-pocket distances over the
    table's diagonal; cue-ball and object-ball paths blocked (0/1); the pocket's visible
    angle / pi; make probability. An invalid slot is all zeros."""
    return slots.features.copy()


# ---------------------------------------------------------------------- placement
def placement(state: GameState, table: Table, slot: Slot, distance: float, angle: float) -> Point | None:
    """Where the cue ball goes for ``slot`` when it is in hand (None when it is not):
    ``distance`` and ``angle`` in [-1, 1] put it ``PLACE_MIN_M``..``PLACE_MAX_M`` behind the
    slot's contact point (30 cm at 0), turned up to ``PLACE_MAX_ANGLE_DEG`` off the straight
    line (the line from the pocket through the ghost ball for a pot, from the table's centre
    through the ball for a safety or push out), then moved into the zone."""
    if state.cue_ball_in_hand is CueBallZone.NONE:
        return None
    anchor, back = _placement_line(state, table, slot)
    metres, c, s = _placement_turn(distance, angle)
    ux, uy = back[0] * c - back[1] * s, back[0] * s + back[1] * c
    return _into_zone(state, table, (anchor[0] + metres * ux, anchor[1] + metres * uy))


def _placement_turn(distance: float, angle: float) -> tuple[float, float, float]:
    """``placement``'s distance behind the anchor (metres) and the cosine and sine of its
    turn off the straight line, for ``distance`` and ``angle`` in [-1, 1]."""
    metres = PLACE_MIN_M + (distance + 1.0) * 0.5 * (PLACE_MAX_M - PLACE_MIN_M)
    turn = math.radians(angle * PLACE_MAX_ANGLE_DEG)
    return metres, math.cos(turn), math.sin(turn)


def _zone_high(zone: CueBallZone, table: Table) -> tuple[float, float]:
    """The largest x and y of a cue-ball centre in ``zone`` (the kitchen or the whole surface)."""
    R = table.ball_radius
    x_high = table.head_string_x - 1e-6 if zone is CueBallZone.KITCHEN else table.length - R
    return x_high, table.width - R


def placement_parameters(state: GameState, table: Table, slot: Slot, spot: Point) -> tuple[float, float]:
    """The (distance, angle) in [-1, 1] that ``placement`` turns into ``spot`` (clipped;
    exact for a spot in range that needs no move into the zone)."""
    anchor, back = _placement_line(state, table, slot)
    dx, dy = spot[0] - anchor[0], spot[1] - anchor[1]
    metres = math.hypot(dx, dy)
    turn = math.degrees(math.atan2(back[0] * dy - back[1] * dx, back[0] * dx + back[1] * dy))
    distance = 2.0 * (metres - PLACE_MIN_M) / (PLACE_MAX_M - PLACE_MIN_M) - 1.0
    return (float(np.clip(distance, -1.0, 1.0)), float(np.clip(turn / PLACE_MAX_ANGLE_DEG, -1.0, 1.0)))


def _placement_line(state: GameState, table: Table, slot: Slot) -> tuple[Point, Point]:
    """The anchor of a slot's placement and the unit vector pointing back from it."""
    if slot.kind == "pot":
        ball = state.position(slot.ball)
        target = aim_point(table, slot.pocket)
        anchor = ghost_ball(ball, target, table.ball_radius)
        return anchor, _unit((anchor[0] - target[0], anchor[1] - target[1]))
    centre = (table.length / 2.0, table.width / 2.0)
    if slot.ball is None:
        return centre, (-1.0, 0.0)
    ball = state.position(slot.ball)
    back = _unit((centre[0] - ball[0], centre[1] - ball[1]), default=(-1.0, 0.0))
    return (ball[0] + 2 * table.ball_radius * back[0], ball[1] + 2 * table.ball_radius * back[1]), back


def _into_zone(state: GameState, table: Table, spot: Point) -> Point:
    """``spot`` moved into the cue ball's zone (the kitchen or the whole surface), then off
    the balls it would overlap when a free spot lies a little further along the same line
    (a placement still on a ball is the rules' foul, as in the other modes)."""
    R = table.ball_radius
    x_high, y_high = _zone_high(state.cue_ball_in_hand, table)
    x = min(max(spot[0], R), x_high)
    y = min(max(spot[1], R), y_high)
    others = [p for n, p in state.positions.items() if n != 0]
    free = all(math.dist((x, y), p) > 2 * R + 1e-4 for p in others)
    if free or not others:
        return (x, y)
    for step in range(1, 9):  # slide across the table, a radius at a time, either way
        for sign in (1.0, -1.0):
            candidate = (x, min(max(y + sign * step * R, R), y_high))
            if all(math.dist(candidate, p) > 2 * R + 1e-4 for p in others):
                return candidate
    return (x, y)


def _unit(v: Point, default: Point = (1.0, 0.0)) -> Point:
    n = math.hypot(*v)
    return (v[0] / n, v[1] / n) if n > 1e-12 else default


# ---------------------------------------------------------------------- building slots
def _first_balls(state: GameState, legal_targets: frozenset[int]) -> list[int]:
    """The legal first balls on the table, or every object ball when none is."""
    on_table = state.object_balls_on_table
    legal = sorted(b for b in legal_targets if b in on_table)
    return legal or sorted(on_table)


def _cue_spot(state: GameState, table: Table) -> Point:
    """Where the features measure from when the cue ball is not in hand: the cue ball's
    spot (the first of the stored balls, which are sorted by number), else the head spot."""
    balls = state.balls
    return (balls[0][1], balls[0][2]) if balls and balls[0][0] == 0 else table.head_spot


def _pot_pairs(calls, targets: list[int]) -> list[tuple[int, str, ShotCall]]:
    """The (ball, pocket, call) pots of the pot slots, before ranking (module docstring)."""
    ball_calls = [c for c in calls if c.names_ball]
    if ball_calls:
        on_first = [c for c in ball_calls if c.ball in targets]
        return [(c.ball, c.pocket, c) for c in (on_first or ball_calls)]
    if _NO_CALL in calls:
        return [(b, p, _NO_CALL) for b in targets for p in POCKET_IDS]
    return []


def best_pot_chance(state: GameState, rules: Ruleset, sigma_deg: float) -> float:
    """The best closed-form make probability under aim noise ``sigma_deg`` over the pots
    the pot slots are drawn from (each one's ``_pot_slot`` ``make_probability``, without
    ranking them into slots): 0 when no shot is due or no pot is open."""
    if not shot_is_due(state):
        return 0.0
    pairs = _pot_pairs(rules.call_options(state), _first_balls(state, rules.legal_targets(state)))
    if not pairs:
        return 0.0
    if state.cue_ball_in_hand is CueBallZone.NONE:
        # From where the cue ball lies, one compiled call over every pot gives the same value
        # to the last bit (``pot_geometry.best_pot_chance``; the slots judge a cue ball in hand
        # from their own placement, which that kernel does not know).
        with compiled_call():
            return geometry.best_pot_chance(np.array(state.balls), np.array([(b, _POCKET_ROW[p]) for b, p, _ in pairs]),
                                            geometry.ZONE_NONE, float(sigma_deg), *rules.table.surface_arrays)
    rows = _pot_rows(state, rules.table, pairs)
    return max(chance_within(row[geometry.TOLERANCE], sigma_deg) for row in rows)


def _pot_rows(state: GameState, table: Table, pairs) -> list[list[float]]:
    """The geometry of each pot of ``pairs`` (``poolgym.physics.pot_geometry``'s rows, the
    cue ball's spot or default placement included), computed for all the pots in one call."""
    # ``state.balls`` is what ``state.positions`` is made from, in the same order, read
    # directly rather than through the property's fresh copy of the dict.
    balls = state.balls
    index = {n: i for i, (n, _, _) in enumerate(balls)}
    xs, ys = [b[1] for b in balls], [b[2] for b in balls]
    cue = _cue_spot(state, table)
    place = _NOT_IN_HAND if state.cue_ball_in_hand is CueBallZone.NONE else in_hand_place(state.cue_ball_in_hand, table)
    with compiled_call():
        rows = geometry.pot_geometry(
            np.array(xs), np.array(ys),
            index.get(0, -1), np.array([index[b] for b, _, _ in pairs], dtype=np.int64),
            np.array([_POCKET_ROW[p] for _, p, _ in pairs], dtype=np.int64), cue[0], cue[1],
            table.surface_arrays[0], table.ball_radius, place)
    return rows.tolist()


_NOT_IN_HAND = np.zeros(6)
_NOT_IN_HAND.flags.writeable = False


def in_hand_place(zone: CueBallZone, table: Table) -> np.ndarray:
    """``pot_geometry``'s ``place`` for the cue ball in hand in ``zone``: each pot's default
    placement (``placement`` at (0, 0)) within the zone's bounds."""
    return np.array([1.0, *_placement_turn(0.0, 0.0), *_zone_high(zone, table)])


# ``in_hand_place`` by zone and table identity (each entry keeps its table, so its id is
# not reused while the entry lives); read-only, shared by every state.
_IN_HAND_PLACES: dict[tuple[CueBallZone, int], tuple[Table, np.ndarray]] = {}


def _kept_in_hand_place(zone: CueBallZone, table: Table) -> np.ndarray:
    """``in_hand_place(zone, table)``, made once per zone and table."""
    kept = _IN_HAND_PLACES.get((zone, id(table)))
    if kept is None or kept[0] is not table:
        place = in_hand_place(zone, table)
        place.flags.writeable = False
        if len(_IN_HAND_PLACES) >= 64:
            _IN_HAND_PLACES.clear()
        kept = _IN_HAND_PLACES[(zone, id(table))] = (table, place)
    return kept[1]


_POCKET_ROW = {p: i for i, p in enumerate(POCKET_IDS)}


def stroke_reference_deg(state: GameState, table: Table, slot: Slot, cue: Point) -> float:
    """The stroke direction (degrees) of ``slot`` from ``cue`` before the residual: at the
    ghost ball for a pot, at the ball's centre (a full hit) for a safety, at the nearest
    legal ball for a push out."""
    if slot.kind == "pot":
        return direction_deg(cue, slot.contact)
    if slot.ball is None:
        return 0.0
    return direction_deg(cue, state.position(slot.ball))


def pot_stroke_per_object_ball_deg(state: GameState, table: Table, slot: Slot, cue: Point) -> float:
    """Degrees the stroke turns per degree a pot slot's object ball turns off its line,
    from ``cue`` (``poolgym.aiming.stroke_per_object_ball_deg``)."""
    ball, target = state.position(slot.ball), aim_point(table, slot.pocket)
    return stroke_per_object_ball_deg(cue, slot.contact, ball, target, table.ball_radius)


def residual_range_deg(state: GameState, table: Table, slot: Slot, cue: Point, max_cut_deg: float) -> float:
    """How far (degrees) a residual of 1 turns the stroke off ``stroke_reference_deg``: the
    cut residual ``max_cut_deg`` for a pot, the turn from a full hit to a hairline hit on
    the ball for a safety (the thickness), ``PUSH_OUT_MAX_TURN_DEG`` for a push out."""
    if slot.kind == "pot":
        return max_cut_deg
    if slot.kind == "push_out" or slot.ball is None:
        return PUSH_OUT_MAX_TURN_DEG
    d = math.dist(cue, state.position(slot.ball))
    return math.degrees(math.asin(min(1.0, 2 * table.ball_radius / max(d, 1e-9))))
