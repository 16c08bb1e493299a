"""Observations: a ``Dict`` space describing a game state from one player's side, and its
flat ``Box`` version for stable-baselines3's ``MlpPolicy``.

The flat vector is written straight into one float32 array from offsets worked out once per
space (``flatten_observation``), element for element what ``gymnasium.spaces.flatten``
gives, without its per-step dispatch over the sub-spaces; an env's flat observation skips
the ``Dict`` too, written from the state's values (``flat_game_observation``)."""

from __future__ import annotations

import copy
import functools

import numpy as np
from gymnasium import spaces

from poolgym.envs.candidates import N_FEATURES, N_SLOTS, slot_features, slot_mask
from poolgym.envs.choice import CHOICE_INDEX, CHOICES
from poolgym.envs.lookahead import SIZE as LOOKAHEAD_SIZE
from poolgym.rules import CueBallZone, DecisionKind, GameState
from poolgym.table import Table

N_BALLS = 16
ZONES = (CueBallZone.NONE, CueBallZone.ANYWHERE, CueBallZone.KITCHEN)
DECISION_KINDS = tuple(DecisionKind)
GROUPS = ("open", "solids", "stripes")
# Balls may rest a little past the cushion noses, in a pocket's jaws.
_COORD_LOW, _COORD_HIGH = -0.1, 1.1
_COORD_LOW32, _COORD_HIGH32 = np.float32(_COORD_LOW), np.float32(_COORD_HIGH)


def observation_space(match: bool = False, choice: bool = False, lookahead: bool = False) -> spaces.Dict:
    """The ``Dict`` observation space (the same for every game).

    - ``balls``: 48 values, (x / L, y / W, on table) for each ball 0-15 in turn, the cue
      ball first; a ball off the table or in hand is (0, 0, 0). (A flat vector, as
      stable-baselines3's policies expect.)
    - ``targets``: 16 flags, the balls the player to act may legally hit first.
    - ``cue_ball_in_hand``: 0 none, 1 anywhere, 2 kitchen.
    - ``pending``: 0 none, else 1 + the index of the decision kind in ``DecisionKind``.
    - ``choices``: flags of the pending decision's choices, in ``Choice`` order.
    - ``push_out_available``: 1 when the shot may be declared a push out.
    - ``group``: the acting player's 8-ball group, 0 open / none, 1 solids, 2 stripes.
    - ``scores``: (mine, opponent's) 14.1 scores over the target (0 elsewhere).
    - ``fouls``: (mine, opponent's) consecutive fouls over 3.
    - ``breaking``: 1 when the next shot is a break.
    - ``player``: the acting player, 0 or 1.
    - ``match`` (only with ``match=True``): (mine, opponent's) racks won over the racks
      needed to win the match, so a race to several racks stays Markov.
    - ``candidates`` (only with ``choice=True``, the choice action modes): the candidate
      slots' features, ``N_SLOTS`` x ``N_FEATURES`` values in [0, 1] in slot order
      (``poolgym.envs.candidates.slot_features``).
    - ``slot_mask`` (only with ``choice=True``): 1 for each slot that may be played now.
    - ``lookahead`` (only with ``choice=True`` and ``lookahead=True``): what canonical
      strokes on the first pot slots leave, ``poolgym.envs.lookahead.SIZE`` values in [0, 1]
      (``poolgym.envs.lookahead.lookahead_features``).
    """
    if lookahead and not choice:
        raise ValueError("the lookahead entry belongs to the choice action modes (choice=True)")
    entries = {
        "balls": spaces.Box(_COORD_LOW, _COORD_HIGH, shape=(N_BALLS * 3,), dtype=np.float32),
        "targets": spaces.MultiBinary(N_BALLS),
        "cue_ball_in_hand": spaces.Discrete(len(ZONES)),
        "pending": spaces.Discrete(len(DECISION_KINDS) + 1),
        "choices": spaces.MultiBinary(len(CHOICES)),
        "push_out_available": spaces.Discrete(2),
        "group": spaces.Discrete(len(GROUPS)),
        "scores": spaces.Box(-2.0, 2.0, shape=(2,), dtype=np.float32),
        "fouls": spaces.Box(0.0, 1.0, shape=(2,), dtype=np.float32),
        "breaking": spaces.Discrete(2),
        "player": spaces.Discrete(2),
    }
    if match:
        entries["match"] = spaces.Box(0.0, 1.0, shape=(2,), dtype=np.float32)
    if choice:
        entries["candidates"] = spaces.Box(0.0, 1.0, shape=(N_SLOTS * N_FEATURES,), dtype=np.float32)
        entries["slot_mask"] = spaces.MultiBinary(N_SLOTS)
    if lookahead:
        entries["lookahead"] = spaces.Box(0.0, 1.0, shape=(LOOKAHEAD_SIZE,), dtype=np.float32)
    return spaces.Dict(entries)


def flat_observation_space(match: bool = False, choice: bool = False, lookahead: bool = False) -> spaces.Box:
    """The ``Dict`` space flattened (``gymnasium.spaces.flatten`` order) into a float32 Box."""
    flat = spaces.flatten_space(observation_space(match, choice, lookahead))
    return spaces.Box(flat.low.astype(np.float32), flat.high.astype(np.float32), dtype=np.float32)


def flatten_observation(obs: dict) -> np.ndarray:
    """The flat float32 vector of the ``Dict`` observation ``obs``: the same, element for
    element, as ``gymnasium.spaces.flatten`` over its space (entries in the space's key
    order, a ``Discrete`` entry one-hot, the others as they are)."""
    layout, size = _FLAT_LAYOUTS["match" in obs, "candidates" in obs, "lookahead" in obs]
    out = np.zeros(size, dtype=np.float32)
    for key, offset, width, one_hot in layout:
        if one_hot:
            out[offset + obs[key]] = 1.0
        else:
            out[offset:offset + width] = obs[key]
    return out


def _flat_layout(space: spaces.Dict) -> tuple[tuple[tuple[str, int, int, bool], ...], int]:
    """Where each entry of ``space`` goes in the flat vector: (key, offset, width, one-hot)
    in ``gymnasium.spaces.flatten`` order, and the vector's length."""
    layout, offset = [], 0
    for key, sub in space.spaces.items():
        one_hot = isinstance(sub, spaces.Discrete)
        if one_hot and int(sub.start) != 0:
            raise ValueError(f"observation entry {key!r}: a Discrete space must start at 0")
        width = int(sub.n) if one_hot else int(np.prod(sub.shape))
        layout.append((key, offset, width, one_hot))
        offset += width
    return tuple(layout), offset


def flat_entries(size: int) -> dict[str, tuple[int, int]]:
    """Where each entry lies in a flat observation of ``size`` values: key -> (offset,
    width); every combination of the match score, candidate slots and lookahead has its own
    size. ``ValueError`` for a size no flat observation has."""
    for layout, total in _FLAT_LAYOUTS.values():
        if total == size:
            return {key: (offset, width) for key, offset, width, _ in layout}
    raise ValueError(f"no flat observation has {size} values (they have "
                     f"{sorted(total for _, total in _FLAT_LAYOUTS.values())})")


def observation_spaces(obs_mode: str, match: bool = False, choice: bool = False,
                       lookahead: bool = False) -> spaces.Space:
    """The space of ``obs_mode`` "dict" or "flat" (with the match score when ``match``, the
    candidate slots when ``choice``, their lookahead features when ``lookahead``): a new
    space each call (its own random generator), a copy of one built once per combination,
    since building a ``Box`` formats its bounds as text, which cost more than the rest of
    making an env."""
    if obs_mode not in ("dict", "flat"):
        raise ValueError(f"obs_mode must be 'dict' or 'flat', got {obs_mode!r}")
    return copy.deepcopy(_space_prototype(obs_mode, bool(match), bool(choice), bool(lookahead)))


@functools.lru_cache(maxsize=None)
def _space_prototype(obs_mode: str, match: bool, choice: bool, lookahead: bool) -> spaces.Space:
    """The space ``observation_spaces`` copies; never sampled or seeded itself."""
    if obs_mode == "dict":
        return observation_space(match, choice, lookahead)
    return flat_observation_space(match, choice, lookahead)


def actor(state: GameState) -> int:
    """The player who acts next: the decider when a decision is pending, else the shooter."""
    return state.pending.player if state.pending is not None else state.shooter


def observe_game(state: GameState, rules, table: Table, player: int,
                 match: tuple[tuple[int, int], int] | None = None, derived=None) -> dict:
    """``observe`` with the legal targets the rules give (none once the rack is over).

    ``match`` is ((racks won by player 0, by player 1), racks needed to win): with it the
    observation has the ``match`` entry, from ``player``'s side. ``derived`` (a
    ``poolgym.envs.derived.PerStateCache``) supplies the legal targets when the action
    mapping has worked them out for this state already."""
    obs = observe(state, _game_targets(state, rules, derived), table, player)
    if match is not None:
        obs["match"] = _match_entry(match, player)
    return obs


def flat_game_observation(state: GameState, rules, table: Table, player: int,
                          match: tuple[tuple[int, int], int] | None = None, derived=None, slots=None,
                          lookahead=None) -> np.ndarray:
    """``flatten_observation`` of ``observe_game(state, rules, table, player, match,
    derived)`` with the entries of the candidate slots ``slots`` (``observe_candidates``)
    and the ``lookahead`` features when given: the same vector, written straight into it
    from ``observe``'s values (``_values``) without the ``Dict`` observation between."""
    layout = _FLAT_OFFSETS[match is not None, slots is not None, lookahead is not None]
    out = np.zeros(layout["size"], dtype=np.float32)
    coords, flags, zone, pending, choices, push_out, group, scores, fouls, breaking = _values(
        state, _game_targets(state, rules, derived), table, player)
    at = layout["balls"]
    balls = out[at:at + N_BALLS * 3]
    balls[:] = coords
    _clip_coords(balls)
    at = layout["targets"]
    for b in flags:
        out[at + b] = 1.0
    out[layout["cue_ball_in_hand"] + zone] = 1.0
    out[layout["pending"] + pending] = 1.0
    at = layout["choices"]
    for c in choices:
        out[at + c] = 1.0
    out[layout["push_out_available"] + push_out] = 1.0
    out[layout["group"] + group] = 1.0
    at = layout["scores"]
    out[at:at + 2] = scores
    at = layout["fouls"]
    out[at:at + 2] = fouls
    out[layout["breaking"] + breaking] = 1.0
    out[layout["player"] + player] = 1.0
    if match is not None:
        at = layout["match"]
        out[at:at + 2] = _match_entry(match, player)
    if slots is not None:
        at = layout["candidates"]
        out[at:at + N_SLOTS * N_FEATURES] = slots.features
        at = layout["slot_mask"]
        out[at:at + N_SLOTS] = slots.mask
    if lookahead is not None:
        at = layout["lookahead"]
        out[at:at + LOOKAHEAD_SIZE] = lookahead
    return out


def _game_targets(state: GameState, rules, derived):
    """The balls ``observe_game`` flags as legal first balls: none once the rack is over."""
    if state.winner is not None or state.stalemate:
        return ()
    return rules.legal_targets(state) if derived is None else derived.legal_targets(state, rules)


def _match_entry(match: tuple[tuple[int, int], int], player: int) -> np.ndarray:
    """The ``match`` entry from ``player``'s side (float32 quotients)."""
    won, race_to = match
    return np.array([won[player], won[1 - player]], dtype=np.float32) / float(race_to)


def _clip_coords(balls: np.ndarray) -> None:
    """Clip the float32 ball coordinates ``balls`` to the space's bounds in place: the
    array's own ``clip`` (what ``np.clip`` calls) with the bounds as float32, as ``np.clip``
    converts Python floats for a float32 array, without its dispatch."""
    balls.clip(_COORD_LOW32, _COORD_HIGH32, out=balls)


def _values(state: GameState, targets, table: Table, player: int) -> tuple:
    """What ``observe`` shows of ``state``, as plain values: the 48 ball coordinates before
    clipping (Python floats), the flagged target balls, the index of each ``Discrete`` entry
    and of each offered choice, and the scores and fouls (Python floats in their bounds)."""
    coords = [0.0] * (N_BALLS * 3)
    length, width = table.length, table.width
    for number, x, y in state.balls:
        if number < N_BALLS:
            i = 3 * number
            coords[i] = x / length
            coords[i + 1] = y / width
            coords[i + 2] = 1.0
    flags = [b for b in targets if b < N_BALLS]
    pending, choices = 0, []
    if state.pending is not None:
        pending = 1 + _DECISION_INDEX[state.pending.kind]
        choices = [CHOICE_INDEX[c] for c in state.pending.choices]
    group = 0
    if state.groups is not None and state.groups[player] in GROUPS:
        group = GROUPS.index(state.groups[player])
    other = 1 - player
    target = float(state.target_score or 0) or 1.0
    # Divided and clipped as Python floats, then rounded to float32 once: the same values as
    # dividing and clipping in float32, since the counts (whole numbers far below 2**24) are
    # exact in float32, a float64 quotient rounded to float32 is the float32 quotient
    # (53 >= 2 * 24 + 2 bits), and rounding keeps the order the bounds clip by.
    scores, fouls = state.scores, state.consecutive_fouls
    scores = (min(max(scores[player] / target, -2.0), 2.0), min(max(scores[other] / target, -2.0), 2.0))
    fouls = (min(max(fouls[player] / 3.0, 0.0), 1.0), min(max(fouls[other] / 3.0, 0.0), 1.0))
    return (coords, flags, _ZONE_INDEX[state.cue_ball_in_hand], pending, choices, int(state.push_out_available),
            group, scores, fouls, int(state.awaiting_break))


def observe(state: GameState, targets, table: Table, player: int) -> dict:
    """The state seen from ``player``'s side (scores and fouls put ``player`` first);
    ``targets`` are the balls that may be hit first."""
    # The values go into Python lists, then into each array in one conversion (the same
    # float32 rounding as element writes): a numpy element write per value cost more.
    coords, flags, zone, pending, choices, push_out, group, scores, fouls, breaking = _values(
        state, targets, table, player)
    balls = np.array(coords, dtype=np.float32)
    _clip_coords(balls)
    target_flags = [0] * N_BALLS
    for b in flags:
        target_flags[b] = 1
    choice_flags = np.zeros(len(CHOICES), dtype=np.int8)
    for c in choices:
        choice_flags[c] = 1
    return {
        "balls": balls,
        "targets": np.array(target_flags, dtype=np.int8),
        "cue_ball_in_hand": zone,
        "pending": pending,
        "choices": choice_flags,
        "push_out_available": push_out,
        "group": group,
        "scores": np.array(scores, dtype=np.float32),
        "fouls": np.array(fouls, dtype=np.float32),
        "breaking": breaking,
        "player": player,
    }


def observe_candidates(slots) -> dict:
    """The ``candidates`` and ``slot_mask`` entries of the candidate slots ``slots``
    (``poolgym.envs.candidates.candidate_slots``)."""
    return {"candidates": slot_features(slots), "slot_mask": slot_mask(slots)}


_DICT_SPACES = {(m, c, a): observation_space(m, c, a) for m in (False, True) for c in (False, True)
                for a in (False, True) if c or not a}
_FLAT_LAYOUTS = {key: _flat_layout(space) for key, space in _DICT_SPACES.items()}
# Each flat layout's offsets by key, and its length under "size" (``flat_game_observation``).
_FLAT_OFFSETS = {key: {**{k: offset for k, offset, _, _ in layout}, "size": size}
                 for key, (layout, size) in _FLAT_LAYOUTS.items()}
_ZONE_INDEX = {zone: i for i, zone in enumerate(ZONES)}
_DECISION_INDEX = {kind: i for i, kind in enumerate(DECISION_KINDS)}
