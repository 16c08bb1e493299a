"""The ``choice_canonical`` action mode: one of a fixed list of canonical moves.

Each option is an action of ``choice_discrete`` (``poolgym.envs.choice``) written down once:
a candidate slot and the bins of its stroke, or a pending decision's answer. The action is
one index (a ``Discrete(N_OPTIONS)`` space, masked like ``choice_discrete`` for sb3-contrib's
``MaskablePPO``), so a policy chooses a whole move at once instead of a slot and each stroke
parameter apart. The first options are exactly the strokes the lookahead observation
foresees (``poolgym.envs.lookahead``), in its order: with ``lookahead=True`` the policy sees,
for each of them, what it leaves (made, scratch and foul rates, where the cue ball stops,
the next shot's chance and the opponent's), and choosing an option plays that stroke.

The options, in index order (bins are ``choice_discrete``'s; a parameter not named sits in
its middle bin: a straight stroke, centre ball, 30 cm straight behind when in hand):

- ``pot_stroke``: the ``LOOKAHEAD_SLOTS`` (4) easiest pot slots, each with the nine
  lookahead strokes (index ``slot * 9 + stroke``, ``lookahead.STROKES`` order);
- ``pot``: the other pot slots, each with the middle stroke (2.9 m/s under v1's 12 m/s
  cap, centre ball);
- ``safety``: the three safety slots, each a full hit or a half-ball hit either side
  (``cut`` bins 3, 5, 7), soft or medium (``speed`` bins 1, 2);
- ``push_out``: the push-out slot, straight at the nearest legal ball or turned 36 degrees
  either side, soft;
- ``break``: on a break, a full hit on the first safety slot's ball (the nearest legal
  ball) at the two hardest speeds (``speed`` bins 8, 9), the cue ball in hand put 55 cm
  back and turned to either side rail or the middle (``place_angle`` bins 0, 3, 6; moved
  onto the head string);
- ``decision``: each answer of ``poolgym.rules.Choice`` (the order of the observation's
  ``choices`` flags).

Masks (``action_masks``): a pending decision allows its offered answers only; a break
allows the break options only (the pot and safety options where no break option is valid);
otherwise every option whose slot is valid now. The masks are the contract: ``decode``
refuses an option they do not offer with a ``ValueError`` naming it, checked against the
state itself (its slots, pending decision and break), not against ``action_masks``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from poolgym.envs import candidates as cand
from poolgym.envs.actions import ShotMove
from poolgym.envs.choice import CHOICES, ChoiceMapper
from poolgym.envs.lookahead import LOOKAHEAD_SLOTS, STROKES
from poolgym.rules import Decision, GameState, Ruleset

CANONICAL_MODE = "choice_canonical"
# The options' kinds, in the order they come (module docstring).
KINDS = ("pot_stroke", "pot", "safety", "push_out", "break", "decision")


@dataclass(frozen=True)
class Option:
    """One canonical move: its ``kind``, the candidate ``slot`` it plays (None for a
    decision), the parameter ``bins`` it sets away from their middle, and a decision's
    ``choice`` (an index into ``poolgym.rules.Choice``)."""

    kind: str
    slot: int | None
    bins: tuple[tuple[str, int], ...] = ()
    choice: int = 0


def _options() -> tuple[Option, ...]:
    out = [Option("pot_stroke", i, (("speed", speed), ("vertical", vertical)))
           for i in range(LOOKAHEAD_SLOTS) for speed, vertical in STROKES]
    out += [Option("pot", i, (("speed", 2),)) for i in range(LOOKAHEAD_SLOTS, cand.N_POT_SLOTS)]
    out += [Option("safety", cand.N_POT_SLOTS + i, (("cut", cut), ("speed", speed)))
            for i in range(cand.N_SAFETY_SLOTS) for cut in (3, 5, 7) for speed in (1, 2)]
    out += [Option("push_out", cand.PUSH_OUT_SLOT, (("cut", cut), ("speed", 1))) for cut in (5, 4, 6)]
    out += [Option("break", cand.N_POT_SLOTS, (("speed", speed), ("place_distance", 4), ("place_angle", angle)))
            for speed in (9, 8) for angle in (3, 0, 6)]
    out += [Option("decision", None, choice=c) for c in range(len(CHOICES))]
    return tuple(out)


OPTIONS = _options()
N_OPTIONS = len(OPTIONS)
# The options of the lookahead strokes: OPTIONS[:N_POT_STROKES], as the lookahead lists them.
N_POT_STROKES = LOOKAHEAD_SLOTS * len(STROKES)


class CanonicalMapper(ChoiceMapper):
    """Maps a ``choice_canonical`` action (an option index) to a move in a given state, and
    back (``encode``: the nearest valid option); arguments as ``ChoiceMapper``'s, without the
    elevated cue (every canonical stroke is level)."""

    def __init__(self, table, min_speed: float = 0.3, max_speed: float = 10.0, max_tip_offset: float = 0.5,
                 max_cut_deg: float = 5.0, sigma_deg: float = 0.0, elevation: bool = False,
                 pot_residual: str = "stroke") -> None:
        if elevation is not False:
            raise ValueError(f"action_mode {CANONICAL_MODE!r} plays level strokes only: elevation must be False, "
                             f"got {elevation!r}")
        super().__init__(table, "choice_discrete", min_speed=min_speed, max_speed=max_speed,
                         max_tip_offset=max_tip_offset, max_cut_deg=max_cut_deg, sigma_deg=sigma_deg,
                         pot_residual=pot_residual)
        self.mode = CANONICAL_MODE
        self.components = ("option",)
        self.space = spaces.Discrete(N_OPTIONS)
        self._vectors = np.array([self._vector_of(o) for o in OPTIONS], dtype=np.int64)

    def _vector_of(self, option: Option) -> list[int]:
        bins = {name: n // 2 for name, n in self.param_bins.items()}
        bins.update(option.bins)
        return [option.slot if option.slot is not None else 0, *bins.values(), option.choice]

    def vector(self, index: int) -> np.ndarray:
        """The ``choice_discrete`` action of option ``index``."""
        return self._vectors[int(index)].copy()

    def action_masks(self, state: GameState, rules: Ruleset) -> np.ndarray:
        """One flag per option: True where it may be chosen now (module docstring); at least
        one is True."""
        masks = np.zeros(N_OPTIONS, dtype=bool)
        if state.pending is not None:
            offered = {CHOICES.index(c) for c in state.pending.choices}
            masks[:] = [o.kind == "decision" and o.choice in offered for o in OPTIONS]
        else:
            mask = self.slots(state, rules).mask
            valid = [o.kind != "decision" and mask[o.slot] != 0 for o in OPTIONS]
            breaking = [v and o.kind == "break" for v, o in zip(valid, OPTIONS)]
            if state.awaiting_break and any(breaking):
                masks[:] = breaking
            else:
                masks[:] = [v and o.kind != "break" for v, o in zip(valid, OPTIONS)]
        if not masks.any():
            masks[0] = True
        return masks

    def validate(self, action) -> np.int64:
        """The option index of ``action`` (a whole number, or an array holding one), or
        ``ValueError`` naming the allowed range."""
        try:
            given = np.asarray(action)
        except (TypeError, ValueError):
            given = np.asarray(None)
        # Booleans, strings and complex numbers would convert silently; none is an index.
        ok = given.dtype.kind in "fiu" and given.size == 1
        value = given.reshape(-1)[0] if ok else 0
        # Compared as given: a uint64 (or 1e19) cast to int64 first would wrap to a negative.
        if not ok or not np.isfinite(value) or value != np.round(value) or not 0 <= value < N_OPTIONS:
            raise ValueError(f"a {CANONICAL_MODE} action is one option index, a whole number in "
                             f"0..{N_OPTIONS - 1}, got {action!r}")
        return np.int64(value)

    def decode(self, action, state: GameState, rules: Ruleset) -> Decision | ShotMove:
        """The move option ``action`` (a validated index) makes in ``state``; a ``ValueError``
        naming it when the state does not offer it (module docstring)."""
        index = int(action)
        option = OPTIONS[index]
        if (option.kind == "decision") != (state.pending is not None):
            raise ValueError(f"option {index} ({option.kind}) is not offered: "
                             + ("a decision is pending, which only its answers answer" if state.pending is not None
                                else "no decision is pending"))
        if option.kind == "decision":
            if CHOICES[option.choice] not in state.pending.choices:
                offered = [i for i, o in enumerate(OPTIONS)
                           if o.kind == "decision" and CHOICES[o.choice] in state.pending.choices]
                raise ValueError(f"option {index} (decision {CHOICES[option.choice].value}) is not offered: the "
                                 f"pending decision's answers are the options {offered}")
        else:
            slots = self.slots(state, rules)
            breaking = state.awaiting_break and slots[cand.N_POT_SLOTS] is not None
            if (option.kind == "break") != breaking:
                raise ValueError(f"option {index} ({option.kind}) is not offered: "
                                 + ("a break takes a break option" if breaking else "no break is due"))
            if slots[option.slot] is None:
                raise ValueError(f"option {index} ({option.kind}) is not offered in this state: its slot "
                                 f"{option.slot} is not valid")
        # The vector's slot and decision are then offered (``ChoiceMapper.decode`` checks them).
        return super().decode(self.vector(index), state, rules)

    def encode(self, move: Decision | ShotMove, state: GameState, rules: Ruleset) -> np.int64:
        """The valid option nearest ``move``: a decision's own answer; for a shot, among the
        valid options of its slot (``ChoiceMapper.encode``'s) or, when none is, of any slot,
        the one whose move differs least from it (``_difference``)."""
        allowed = np.flatnonzero(self.action_masks(state, rules))
        if isinstance(move, Decision):
            choice = CHOICES.index(move.choice)
            return np.int64(next((i for i in allowed if OPTIONS[i].choice == choice), allowed[0]))
        slot = super().encode(move, state, rules)[0]
        same = [i for i in allowed if OPTIONS[i].slot == slot] or list(allowed)
        gaps = [self._difference(move, self.decode(i, state, rules)) for i in same]
        return np.int64(same[int(np.argmin(gaps))])

    def _difference(self, a: ShotMove, b: Decision | ShotMove) -> float:
        """How far apart two shots are: speed over the stroke range, tip offsets over their
        reach, direction over 10 degrees, the placements over 0.5 m, added up."""
        if not isinstance(b, ShotMove):
            return np.inf
        x, y = a.shot, b.shot
        turn = abs((x.angle_deg - y.angle_deg + 180.0) % 360.0 - 180.0)
        placed = 0.0 if a.placement is None or b.placement is None else float(np.hypot(
            a.placement[0] - b.placement[0], a.placement[1] - b.placement[1]))
        reach = max(self.max_tip_offset, 1e-9)
        return (abs(x.speed - y.speed) / (self.max_speed - self.min_speed) + turn / 10.0 + placed / 0.5
                + (abs(x.side - y.side) + abs(x.vertical - y.vertical)) / reach)
