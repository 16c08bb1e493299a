"""The choice action modes: pick one of the candidate slots (``poolgym.envs.candidates``),
then play it with stroke parameters relative to it.

Parameters (each in [-1, 1] before binning), after the slot choice:

- ``cut``: the turn off the slot's line, times the slot's range. For a pot, with
  ``pot_residual="stroke"`` (the default), the stroke turned up to ``max_cut_deg`` degrees
  around the ghost-ball line: one degree of stroke turns the object ball about 15 degrees
  from a metre away, so in practice only 0 pots, and throw (which sends a ghost-ball stroke
  0.5-2 degrees off line) stays uncorrected. With ``"object_ball"`` the object ball's
  departure is turned up to ``max_cut_deg`` degrees off the ghost-ball line (+1
  counter-clockwise), the stroke by the geometry's ratio
  (``poolgym.aiming.stroke_per_object_ball_deg``), so the residual can take the throw out.
  For a safety, from a full hit (0) to a hairline hit on either side (+/-1) (the
  thickness); for a push out, up to 180 degrees from the line to the ball.
- ``speed`` -> [min_speed, max_speed] m/s linearly; ``side`` and ``vertical`` -> tip
  offsets of +/- ``max_tip_offset`` ball radii.
- ``place_distance``, ``place_angle``: with the cue ball in hand, where it goes relative to
  the slot (``candidates.placement``: 5-55 cm behind the ghost ball, 30 cm at 0, turned up
  to 75 degrees off the straight line; so "straight in from 30 cm" is (0, 0)); ignored
  otherwise.
- ``elevation`` (only with ``elevation=True``, before ``decision``): the cue's rise above
  level, -1..1 -> 0..``Shot.MAX_ELEVATION_DEG`` degrees (``poolgym.envs.actions``).
- ``decision``: the answer to a pending decision (push-out response, 8-ball break options,
  14.1 re-break, spot request); none is pending, it is 0 in ``choice_discrete`` (ignored
  in ``choice``); while one is, the slot and stroke are ignored (the slot is 0 in
  ``choice_discrete``).

``choice`` (a ``Box(-1, 1, (N_SLOTS + 7,))`` for Box algorithms such as PPO and SAC): one
score per slot, then the parameters above; the env plays the best-scoring valid slot (ties
to the lower slot), and ``decision`` picks one of the pending decision's choices by equal
bins of [-1, 1] in the order the rules list them.

``choice_discrete`` (a ``MultiDiscrete`` for sb3-contrib's ``MaskablePPO``): the slot index,
then each parameter as an index into ``PARAM_BINS`` evenly spaced values from -1 to 1 (both
ends included; the middle one 0 where the count is odd), and the decision as an index into
``poolgym.rules.Choice`` (the order of the observation's ``choices`` flags).
``action_masks(state, rules)`` gives MaskablePPO's masks, and they are the contract: an
action they do not offer (an invalid slot, a choice not offered, a slot other than 0 while a
decision is pending, a decision other than 0 while none is) is refused with a ``ValueError``
naming the component, never played as another action. ``decode`` checks this against the
state itself (its slots and pending decision), not against ``action_masks``, so a wrong mask
shows as an offered action that is refused.
"""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from poolgym.envs import candidates as cand
from poolgym.envs.derived import PerStateCache
from poolgym.envs.actions import (ACTION_MODES, ELEVATION, ActionMapper, ShotMove, bin_centre, bin_index,
                                  check_elevation_flag, elevation_action, elevation_deg, offered_choice,
                                  real_array, refuse_elevated, wrap_deg)
from poolgym.physics import Shot
from poolgym.rules import Choice, CueBallZone, Decision, GameState, Ruleset
from poolgym.table import Table

CHOICE_MODES = ("choice", "choice_discrete", "choice_canonical")
# The modes whose actions are discrete and come with ``action_masks`` (MaskablePPO's); the
# canonical moves of "choice_canonical" are ``poolgym.envs.canonical``'s.
MASKED_MODES = ("choice_discrete", "choice_canonical")
# What a pot's ``cut`` residual turns: the object ball's line, or the stroke (module docstring).
POT_RESIDUALS = ("stroke", "object_ball")
PARAMS = ("cut", "speed", "side", "vertical", "place_distance", "place_angle", "decision")
# Bins of each parameter in choice_discrete; odd counts keep 0 (straight, centre ball,
# 30 cm straight behind) a bin of its own.
PARAM_BINS = {"cut": 11, "speed": 10, "side": 5, "vertical": 5, "place_distance": 5, "place_angle": 7}
# With ``elevation=True``: the elevation's bins in choice_discrete (0, 20, 40, 60, 80 degrees).
ELEVATION_BINS = 5
CHOICES = tuple(Choice)
CHOICE_INDEX = {choice: i for i, choice in enumerate(CHOICES)}  # each choice's place in CHOICES


def check_pot_residual(value) -> str:
    """``value`` if it is one of ``POT_RESIDUALS``, else ``ValueError`` naming them."""
    if not isinstance(value, str) or value not in POT_RESIDUALS:
        raise ValueError(f"pot_residual must be one of {list(POT_RESIDUALS)}, got {value!r}")
    return value


def bin_value(index: int, n: int) -> float:
    """The value of bin ``index`` of n evenly spaced values from -1 to 1 (both included)."""
    return -1.0 + 2.0 * index / (n - 1) if n > 1 else 0.0


def nearest_bin(value: float, n: int) -> int:
    """The bin of ``bin_value`` nearest ``value`` (``bin_value``'s inverse)."""
    return int(min(n - 1, max(0, round((value + 1.0) * 0.5 * (n - 1)))))


class ChoiceMapper:
    """Maps a ``choice`` or ``choice_discrete`` action to a move in a given game state (see
    the module docstring for the mapping), and back (``encode``).

    ``sigma_deg`` is the env's aim noise, for the slots' make probability (the slot order
    does not depend on it). ``slots(state, rules)`` are the candidate slots of the state.
    ``elevation`` adds the ``elevation`` parameter (before ``decision``); ``params`` and
    ``param_bins`` are the mapping's parameters and their bins (``PARAMS`` and
    ``PARAM_BINS`` without it). ``pot_residual`` is what a pot's ``cut`` turns (one of
    ``POT_RESIDUALS``; module docstring).
    """

    def __init__(self, table: Table, mode: str = "choice", min_speed: float = 0.3, max_speed: float = 10.0,
                 max_tip_offset: float = 0.5, max_cut_deg: float = 5.0, sigma_deg: float = 0.0,
                 elevation: bool = False, pot_residual: str = "stroke") -> None:
        if mode not in ("choice", "choice_discrete"):
            raise ValueError(f"a ChoiceMapper's mode is 'choice' or 'choice_discrete' (make_action_mapper makes "
                             f"every mode of {list(CHOICE_MODES)}), got {mode!r}")
        check_pot_residual(pot_residual)
        # The shared checks of speeds and tip offsets.
        ActionMapper(table, "aim", min_speed=min_speed, max_speed=max_speed, max_tip_offset=max_tip_offset,
                     max_cut_deg=max_cut_deg)
        if isinstance(sigma_deg, bool) or not isinstance(sigma_deg, (int, float)) \
                or not (math.isfinite(sigma_deg) and sigma_deg >= 0):
            raise ValueError(f"sigma_deg must be a finite aim noise >= 0 degrees, got {sigma_deg!r}")
        self.table, self.mode = table, mode
        self.min_speed, self.max_speed = min_speed, max_speed
        self.max_tip_offset, self.max_cut_deg = max_tip_offset, max_cut_deg
        self.sigma_deg = float(sigma_deg)
        self.pot_residual = pot_residual
        self.elevation = check_elevation_flag(elevation)
        self.params = PARAMS[:-1] + ((ELEVATION,) if self.elevation else ()) + PARAMS[-1:]
        self.param_bins = {**PARAM_BINS, **({ELEVATION: ELEVATION_BINS} if self.elevation else {})}
        # Each parameter's bin values (``bin_value``), worked out once for ``_parameters``.
        self._bin_values = tuple((name, tuple(bin_value(i, n) for i in range(n)))
                                 for name, n in self.param_bins.items())
        # ``action_masks``' starting point: no slot, every parameter bin (every bin may be
        # chosen: that part of the masks never changes), no decision.
        self._mask_template = np.concatenate([np.zeros(cand.N_SLOTS, dtype=bool),
                                              np.ones(sum(self.param_bins.values()), dtype=bool),
                                              np.zeros(len(CHOICES), dtype=bool)])
        if mode == "choice":
            self.components = tuple(f"slot_{i}" for i in range(cand.N_SLOTS)) + self.params
            self.space = spaces.Box(-1.0, 1.0, shape=(len(self.components),), dtype=np.float32)
        else:
            self.components = ("slot",) + self.params
            self.nvec = np.array([cand.N_SLOTS, *self.param_bins.values(), len(CHOICES)], dtype=np.int64)
            self._nvec = tuple(self.nvec.tolist())  # plain ints, for ``validate``'s common case
            self.space = spaces.MultiDiscrete(self.nvec)
        # The current state's slots, call options and legal targets, worked out once per
        # state (an env shares it with its observation and its other mapping).
        self.derived = PerStateCache()
        # The cache's name of the slots under ``sigma_deg``, kept with the value it names.
        self._slots_key = (self.sigma_deg, f"slots@{self.sigma_deg!r}")

    def index(self, name: str) -> int:
        return self.components.index(name)

    @property
    def masked(self) -> bool:
        """Whether the mode's actions come with ``action_masks`` (``MASKED_MODES``)."""
        return self.mode in MASKED_MODES

    # ------------------------------------------------------------------ slots and masks
    def slots(self, state: GameState, rules: Ruleset) -> cand.CandidateSlots:
        """The candidate slots of ``state`` (kept for the last state asked about)."""
        sigma, key = self._slots_key
        if sigma is not self.sigma_deg:  # formatted again only when the noise is replaced
            sigma, key = self._slots_key = (self.sigma_deg, f"slots@{self.sigma_deg!r}")
        return self.derived.value(state, rules, key,
                                  lambda: cand.candidate_slots(state, rules, sigma, self.derived))

    def action_masks(self, state: GameState, rules: Ruleset) -> np.ndarray:
        """``choice_discrete``'s masks, concatenated dimension by dimension as MaskablePPO
        expects: the valid slots (only slot 0 while a decision is pending or the rack is
        over), every bin of each parameter, and the offered choices of a pending decision
        (only the first when none is pending). Every dimension has at least one True;
        ``decode`` refuses what they do not offer."""
        if self.mode != "choice_discrete":
            raise ValueError(f"action masks belong to action_mode 'choice_discrete', not {self.mode!r}")
        mask = self.slots(state, rules).mask
        # Written into a copy of the constant part (every parameter bin; the slots and
        # decision filled below), not concatenated from a new array per dimension.
        masks = self._mask_template.copy()
        masks[:cand.N_SLOTS] = mask
        if not masks[0] and not mask.any():
            masks[0] = True
        decision = masks[-len(CHOICES):]
        if state.pending is not None:
            for c in state.pending.choices:
                decision[CHOICE_INDEX[c]] = True
        else:
            decision[0] = True
        return masks

    # ------------------------------------------------------------------ validation
    def validate(self, action) -> np.ndarray:
        """The action as an array (floats for ``choice``, bin indices for
        ``choice_discrete``), or ``ValueError`` naming what is wrong with it."""
        if self.mode == "choice":
            return ActionMapper.validate(self, action)
        given = real_array(action, self.components, "whole numbers")
        if given.dtype == np.int64 and all(0 <= v < n for v, n in zip(given.tolist(), self._nvec)):
            # The common case (MaskablePPO's int64 indices, all in range) in one pass over
            # plain ints; anything else takes the checks below, which name the problem.
            return given.astype(np.int64)
        if given.dtype.kind == "f" and not np.all(np.isfinite(given) & (given == np.round(given))):
            raise ValueError(f"action must be {len(self.components)} whole numbers "
                             f"({', '.join(self.components)}), got {given.tolist()}")
        # Compared as given: a uint64 (or 1e19) cast to int64 first would wrap to a negative.
        outside = np.flatnonzero((given < 0) | (given >= self.nvec))
        if outside.size:
            bad = {self.components[i]: f"{int(given[i])} not in 0..{int(self.nvec[i]) - 1}" for i in outside}
            raise ValueError(f"action components out of range: {bad}")
        return given.astype(np.int64)

    # ------------------------------------------------------------------ decoding
    def decode(self, action: np.ndarray, state: GameState, rules: Ruleset) -> Decision | ShotMove:
        """The move ``action`` (a validated action) makes in ``state``; in ``choice_discrete``
        a ``ValueError`` naming the component when the state does not offer it (module
        docstring)."""
        params = self._parameters(action)
        if state.pending is not None:
            if self.mode == "choice_discrete" and int(action[0]) != 0:
                raise ValueError(f"action slot {int(action[0])} is not offered while a decision is pending "
                                 "(the slot is 0 then: the masks offer slot 0 only)")
            return self._decision(action, params, state)
        slots = self.slots(state, rules)
        valid = slots.valid()
        if not valid:
            raise ValueError("no candidate slot is valid in this state (no object ball to play)")
        if self.mode == "choice":
            scores = np.asarray(action[:cand.N_SLOTS])
            chosen = max(valid, key=lambda i: (scores[i], -i))
        else:
            chosen = int(action[0])
            if slots[chosen] is None:
                raise ValueError(f"action slot {chosen} is not offered in this state: the valid slots are {valid}")
            if int(action[-1]) != 0:
                raise ValueError(f"action decision {int(action[-1])} is not offered: no decision is pending "
                                 "(the decision is 0 then: the masks offer 0 only)")
        return self.play(slots[chosen], params, state)

    def play(self, slot: cand.Slot, params: dict, state: GameState) -> ShotMove:
        """The shot ``slot`` makes with ``params`` (parameter name -> value in [-1, 1])."""
        spot = cand.placement(state, self.table, slot, params["place_distance"], params["place_angle"])
        cue = spot if spot is not None else state.position(0)
        angle = cand.stroke_reference_deg(state, self.table, slot, cue) \
            + params["cut"] * self._stroke_per_residual(state, slot, cue)
        speed = self.min_speed + (params["speed"] + 1.0) * 0.5 * (self.max_speed - self.min_speed)
        shot = Shot(speed, wrap_deg(angle), params["side"] * self.max_tip_offset,
                    params["vertical"] * self.max_tip_offset, elevation_deg(params.get(ELEVATION, -1.0)))
        return ShotMove(slot.call, spot, shot, slot.ball, slot.pocket)

    def _stroke_per_residual(self, state: GameState, slot: cand.Slot, cue) -> float:
        """Degrees the stroke turns for a ``cut`` of 1 on ``slot`` from ``cue``."""
        if slot.kind == "pot" and self.pot_residual == "object_ball":
            return self.max_cut_deg * cand.pot_stroke_per_object_ball_deg(state, self.table, slot, cue)
        return cand.residual_range_deg(state, self.table, slot, cue, self.max_cut_deg)

    def _parameters(self, action: np.ndarray) -> dict[str, float]:
        if self.mode == "choice":
            return dict(zip(self.params, (float(v) for v in action[cand.N_SLOTS:])))
        indices = action.tolist() if type(action) is np.ndarray else list(action)
        # ``bin_value`` of each parameter's bin, looked up (the values ``_bin_values`` keeps).
        values = {name: bins[int(index)] for (name, bins), index in zip(self._bin_values, indices[1:])}
        values["decision"] = float(indices[-1])
        return values

    def _decision(self, action, params: dict, state: GameState) -> Decision:
        choices = state.pending.choices
        if self.mode == "choice":
            choice = choices[bin_index(params["decision"], len(choices))]
        else:
            choice = CHOICES[int(action[-1])]
            if choice not in choices:
                offered = [CHOICES.index(c) for c in choices]
                raise ValueError(f"action decision {int(action[-1])} ({choice.value}) is not offered: the pending "
                                 f"decision offers {offered} ({', '.join(c.value for c in choices)})")
        ball = state.pending.balls[0] if state.pending.balls else None
        return Decision(choice, ball=ball if choice is Choice.SPOT_BALL else None, player=state.pending.player)

    # ------------------------------------------------------------------ encoding
    def encode(self, move: Decision | ShotMove, state: GameState, rules: Ruleset) -> np.ndarray:
        """An action that ``decode`` turns into ``move`` in ``state``, or the nearest one.

        A decision keeps its choice. A shot goes to the slot of its call (a push out, a
        called ball and pocket among the pot slots, a safety on ``move.target``), else the
        pot slot of ``move.target`` / ``move.pocket``, else the valid slot whose line is
        nearest the stroke. The stroke is exact (up to the bins of ``choice_discrete``)
        when it lies within the slot's residual range and the placement within its range;
        beyond, the parameters are clipped.
        """
        params = dict.fromkeys(self.params, 0.0)
        chosen = 0
        if isinstance(move, Decision):
            index, n = offered_choice(move, state)
            params["decision"] = bin_centre(index, n) if self.mode == "choice" else CHOICES.index(move.choice)
        else:
            if self.elevation:
                params[ELEVATION] = elevation_action(move.shot.elevation_deg)
            else:
                refuse_elevated(move.shot)
            slots = self.slots(state, rules)
            chosen = self._slot_of(move, slots, state)
            slot = slots[chosen]
            cue = self._cue(move, slot, state)
            if move.placement is not None and state.cue_ball_in_hand is not CueBallZone.NONE:
                params["place_distance"], params["place_angle"] = cand.placement_parameters(
                    state, self.table, slot, move.placement)
            reach = self._stroke_per_residual(state, slot, cue)
            turn = wrap_deg(move.shot.angle_deg - cand.stroke_reference_deg(state, self.table, slot, cue))
            params["cut"] = turn / reach if reach != 0 else 0.0
            params["speed"] = 2.0 * (move.shot.speed - self.min_speed) / (self.max_speed - self.min_speed) - 1.0
            if self.max_tip_offset > 0:
                params["side"] = move.shot.side / self.max_tip_offset
                params["vertical"] = move.shot.vertical / self.max_tip_offset
        for name in self.params[:-1]:
            # np.clip's value (NaN and -0.0 kept), without its call on every scalar.
            params[name] = float(min(max(params[name], -1.0), 1.0))
        if self.mode == "choice":
            scores = -np.ones(cand.N_SLOTS)
            scores[chosen] = 1.0
            return np.concatenate([scores, [params[p] for p in self.params]]).astype(np.float64)
        bins = [nearest_bin(params[name], n) for name, n in self.param_bins.items()]
        return np.array([chosen, *bins, int(params["decision"])], dtype=np.int64)

    def _slot_of(self, move: ShotMove, slots, state: GameState) -> int:
        valid = slots.valid()
        if not valid:
            raise ValueError("no candidate slot is valid in this state")
        call = move.call
        if call.push_out and slots[cand.PUSH_OUT_SLOT] is not None:
            return cand.PUSH_OUT_SLOT
        made = [(i, slots[i]) for i in valid]  # each slot read once for the searches below
        for i, s in made:  # the slot the move names
            if s.call == call and (s.ball, s.pocket) == (move.target, move.pocket):
                return i
        if call.names_ball:
            for i, s in made:  # the pot slot of its called ball and pocket
                if s.kind == "pot" and (s.ball, s.pocket) == (call.ball, call.pocket):
                    return i
        if call.safety:
            for i, s in made:  # the safety slot on its ball
                if s.kind == "safety" and s.ball == move.target:
                    return i
        same_call = [i for i, s in made if s.call == call] or valid

        def miss(i: int) -> float:
            cue = self._cue(move, slots[i], state)
            return abs(wrap_deg(move.shot.angle_deg - cand.stroke_reference_deg(state, self.table, slots[i], cue)))
        return min(same_call, key=miss)

    def _cue(self, move: ShotMove, slot: cand.Slot, state: GameState):
        """Where the cue ball is struck from: the move's placement, the slot's default one
        when the cue ball is in hand and the move names none, else its spot."""
        if move.placement is not None:
            return move.placement
        spot = cand.placement(state, self.table, slot, 0.0, 0.0)
        return spot if spot is not None else state.position(0)


def make_action_mapper(table: Table, mode: str, **kwargs) -> ActionMapper | ChoiceMapper:
    """The mapper of any action mode: ``ActionMapper`` for "raw" and "aim", ``ChoiceMapper``
    for "choice" and "choice_discrete", ``poolgym.envs.canonical.CanonicalMapper`` for
    "choice_canonical" (``sigma_deg`` and ``pot_residual`` are only theirs)."""
    if mode == "choice_canonical":
        from poolgym.envs.canonical import CanonicalMapper  # it builds on ChoiceMapper

        return CanonicalMapper(table, **kwargs)
    if mode in CHOICE_MODES:
        return ChoiceMapper(table, mode, **kwargs)
    if mode not in ACTION_MODES:
        raise ValueError(f"action_mode must be one of {sorted(ACTION_MODES) + list(CHOICE_MODES)}, got {mode!r}")
    kwargs.pop("sigma_deg", None)
    # Checked in every mode, so a bad value fails where it is given; the raw and aim modes
    # turn the stroke whatever it says.
    check_pot_residual(kwargs.pop("pot_residual", POT_RESIDUALS[0]))
    return ActionMapper(table, mode, **kwargs)
