"""The interpreted candidate slots, as ``poolgym.envs.candidates`` built them before its
compiled kernel (``poolgym.physics.pot_geometry.candidate_slots``): the reference the
kernel's slots and features are compared with, bit for bit
(``tests/envs/test_candidate_kernel.py``)."""

from __future__ import annotations

import math
from operator import itemgetter

import numpy as np

from poolgym.aiming import chance_divisor, path_is_clear
from poolgym.envs import candidates as cand
from poolgym.envs.actions import difficulty_of
from poolgym.envs.derived import PerStateCache
from poolgym.physics import pot_geometry as geometry
from poolgym.records import stored
from poolgym.table import POCKET_IDS

_NO_CALL, _SAFETY_CALL, _PUSH_CALL = cand._NO_CALL, cand._SAFETY_CALL, cand._PUSH_CALL
_POCKET_ROW = {p: i for i, p in enumerate(POCKET_IDS)}
_KIND_COLUMN = {k: 1 + i for i, k in enumerate(cand.KINDS)}
_POCKET_COLUMN = {p: 5 + i for i, p in enumerate(POCKET_IDS)}


def candidate_slots(state, rules, sigma_deg, derived=None):
    """The ``N_SLOTS`` slots of ``state`` (None where a slot is invalid), in slot order."""
    slots = [None] * cand.N_SLOTS
    if not cand.shot_is_due(state):
        return tuple(slots)
    table = rules.table
    derived = PerStateCache() if derived is None else derived
    calls = derived.call_options(state, rules)
    targets = cand._first_balls(state, derived.legal_targets(state, rules))
    for i, slot in enumerate(_pot_slots(state, table, calls, targets, sigma_deg)):
        slots[i] = slot
    for i, slot in enumerate(_safety_slots(state, table, calls, targets)):
        slots[cand.N_POT_SLOTS + i] = slot
    if _PUSH_CALL in calls:
        slots[cand.PUSH_OUT_SLOT] = cand.Slot("push_out", _PUSH_CALL, targets[0] if targets else None, None,
                                              None, None)
    return tuple(slots)


def slot_features(slots, table):
    """``N_SLOTS`` x ``N_FEATURES`` values in [0, 1], flattened slot by slot."""
    diagonal = math.hypot(table.length, table.width)
    features = np.zeros((cand.N_SLOTS, cand.N_FEATURES), dtype=np.float32)
    for i, s in enumerate(slots):
        if s is None:
            continue
        row = features[i]
        row[0] = 1.0
        row[_KIND_COLUMN[s.kind]] = 1.0
        row[4] = (s.ball or 0) / 15.0
        if s.pocket is not None:
            row[_POCKET_COLUMN[s.pocket]] = 1.0
        row[11:18] = (s.cut_deg / 180.0, s.cue_to_contact / diagonal, s.ball_to_pocket / diagonal,
                      float(s.cue_blocked), float(s.ball_blocked), s.visible_angle / math.pi,
                      s.make_probability)
    return np.clip(features, 0.0, 1.0, out=features).reshape(-1)


def best_make_probability(slots):
    """The best make probability over the valid slots (0 when none is valid)."""
    return max((s.make_probability for s in slots if s is not None), default=0.0)


def _pot_slots(state, table, calls, targets, sigma_deg):
    pairs = cand._pot_pairs(calls, targets)
    if not pairs:
        return []
    rows = cand._pot_rows(state, table, pairs)
    tol, cut, d1, d2 = geometry.TOLERANCE, geometry.CUT, geometry.D1, geometry.D2
    ranking = chance_divisor(cand.RANKING_SIGMA_DEG)
    scored = [((-math.erf(row[tol] / ranking), difficulty_of(row[cut], row[d1] + row[d2]), ball,
                _POCKET_ROW[pocket]), k)
              for k, ((ball, pocket, _), row) in enumerate(zip(pairs, rows))]
    scored.sort(key=itemgetter(0))
    divisor = chance_divisor(sigma_deg)
    return [_pot_slot_of(pairs[k], rows[k], divisor) for _, k in scored[:cand.N_POT_SLOTS]]


def _pot_slot_of(pair, row, divisor):
    ball, pocket, call = pair
    return stored(cand.Slot, kind="pot", call=call, ball=ball, pocket=pocket,
                  contact=(row[geometry.GHOST_X], row[geometry.GHOST_Y]),
                  cue=(row[geometry.CUE_X], row[geometry.CUE_Y]),
                  cut_deg=row[geometry.CUT], cue_to_contact=row[geometry.D1], ball_to_pocket=row[geometry.D2],
                  cue_blocked=row[geometry.CUE_BLOCKED] != 0.0, ball_blocked=row[geometry.BALL_BLOCKED] != 0.0,
                  visible_angle=row[geometry.VISIBLE], make_probability=math.erf(row[geometry.TOLERANCE] / divisor))


def _cue_for(state, table, slot):
    spot = cand.placement(state, table, slot, 0.0, 0.0)
    return spot if spot is not None else cand._cue_spot(state, table)


def _safety_slots(state, table, calls, targets):
    if _SAFETY_CALL in calls:
        call = _SAFETY_CALL
    elif _NO_CALL in calls:
        call = _NO_CALL
    else:
        return []
    R = table.ball_radius
    positions = state.positions
    origin = cand._cue_spot(state, table)
    nearest = sorted(targets, key=lambda b: (math.dist(origin, positions[b]), b))[:cand.N_SAFETY_SLOTS]
    slots = []
    for ball in nearest:
        position = positions[ball]
        cue = _cue_for(state, table, cand.Slot("safety", call, ball, None, None, None))
        to_ball = cand._unit((position[0] - cue[0], position[1] - cue[1]))
        contact = (position[0] - 2 * R * to_ball[0], position[1] - 2 * R * to_ball[1])
        others = [p for n, p in positions.items() if n != 0 and n != ball]
        slots.append(stored(cand.Slot, kind="safety", call=call, ball=ball, pocket=None, contact=contact, cue=cue,
                            cut_deg=0.0, cue_to_contact=math.dist(cue, contact), ball_to_pocket=0.0,
                            cue_blocked=not path_is_clear(cue, contact, others, R), ball_blocked=False,
                            visible_angle=0.0, make_probability=0.0))
    return slots
