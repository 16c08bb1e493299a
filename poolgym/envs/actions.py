"""From a normalized action vector to a move: a shot (with its call and cue-ball placement)
or the answer to a pending decision.

Every component lies in [-1, 1] so that stable-baselines3 can use the space directly.
Discrete choices (target, call, decision) are read by splitting [-1, 1] into equal bins over
the options valid now; the bins are documented with each mode below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from poolgym.aiming import MAX_CUT_DEG, aim_point, cut_angle_deg, direction_deg, ghost_ball
from poolgym.envs.derived import PerStateCache
from poolgym.numbers import quote, real
from poolgym.physics import Shot
from poolgym.rules import CueBallZone, Decision, GameState, Ruleset, ShotCall
from poolgym.table import POCKET_IDS, Table

Point = tuple[float, float]

RAW_COMPONENTS = ("aim", "speed", "side", "vertical", "place_x", "place_y", "decision", "call")
AIM_COMPONENTS = ("target", "cut", "speed", "side", "vertical", "place_x", "place_y", "decision",
                  "push_out", "safety")
ACTION_MODES = {"raw": RAW_COMPONENTS, "aim": AIM_COMPONENTS}
# The component an elevated cue adds (``elevation=True``), last in every mode.
ELEVATION = "elevation"
# The widest turn off the ghost-ball line that ``cut`` can ask for: a quarter turn either way.
MAX_CUT_TURN_DEG = 90.0


@dataclass(frozen=True)
class ShotMove:
    """A shot to play: the call, where the cue ball goes when in hand, and the stroke."""

    call: ShotCall
    placement: Point | None
    shot: Shot
    target: int | None = None  # the ball aimed at (aim-assisted mode)
    pocket: str | None = None


def bin_index(value: float, n: int) -> int:
    """Which of n equal bins of [-1, 1] ``value`` falls in."""
    return min(n - 1, max(0, int((value + 1.0) * 0.5 * n)))


class ActionMapper:
    """Maps an action of one mode to a move in a given game state.

    Shared components: ``speed`` -> [min_speed, max_speed] m/s linearly; ``side`` and
    ``vertical`` -> tip offsets of +/- ``max_tip_offset`` ball radii; ``place_x``/``place_y``
    -> the cue-ball position inside its zone when in hand (the kitchen: x from one radius to
    the head string; anywhere: the whole surface), ignored otherwise; ``decision`` -> one of
    the pending decision's choices, in the order the rules list them.

    ``elevation`` (only with ``elevation=True``, the last component): the cue's rise above
    level, -1..1 -> 0..``Shot.MAX_ELEVATION_DEG`` degrees linearly (swerve, masse, jump
    shots); without it every stroke is level.

    ``raw``: ``aim`` -> stroke direction, -1..1 = -180..180 degrees (0 = towards the foot
    cushion); ``call`` -> one of the calls the rules allow now (no call, push out, a ball and
    pocket, safety; in ``Ruleset.call_options`` order).

    ``aim`` (aim-assisted): ``target`` -> one (ball, pocket) pair of the candidates (the
    legal first balls times the six pockets, or the rules' ball-and-pocket calls in call-shot
    games), ranked easiest first (``candidates``), which is also the call; the stroke aims at the ghost ball that sends that ball
    to that pocket, turned by ``cut`` * ``max_cut_deg``; ``push_out`` > 0 declares a push out
    when one is available, ``safety`` > 0 calls a safety in call-shot games.
    """

    def __init__(self, table: Table, mode: str = "raw", min_speed: float = 0.3,
                 max_speed: float = 10.0, max_tip_offset: float = 0.5, max_cut_deg: float = 5.0,
                 elevation: bool = False) -> None:
        if mode not in ACTION_MODES:
            raise ValueError(f"action_mode must be one of {sorted(ACTION_MODES)}, got {mode!r}")
        try:
            speeds = real(min_speed, "min_speed"), real(max_speed, "max_speed")
        except ValueError:
            speeds = (math.nan, math.nan)  # named with the range below
        if not 0 < speeds[0] < speeds[1] <= 15.0:
            raise ValueError(f"speeds must satisfy 0 < min_speed < max_speed <= 15 m/s, "
                             f"got {quote(min_speed)}, {quote(max_speed)}")
        min_speed, max_speed = speeds
        max_tip_offset = real(max_tip_offset, "max_tip_offset")
        if not 0 <= max_tip_offset <= 0.6:
            raise ValueError(f"max_tip_offset must be in [0, 0.6] ball radii, got {max_tip_offset!r}")
        max_cut_deg = real(max_cut_deg, "max_cut_deg")
        if not 0 <= max_cut_deg <= MAX_CUT_TURN_DEG:
            raise ValueError(f"max_cut_deg must be in [0, {MAX_CUT_TURN_DEG:g}] degrees, got {max_cut_deg!r}")
        self.table, self.mode = table, mode
        self.elevation = check_elevation_flag(elevation)
        self.components = ACTION_MODES[mode] + ((ELEVATION,) if self.elevation else ())
        self.min_speed, self.max_speed = min_speed, max_speed
        self.max_tip_offset, self.max_cut_deg = max_tip_offset, max_cut_deg
        self.space = spaces.Box(-1.0, 1.0, shape=(len(self.components),), dtype=np.float32)
        # The current state's call options and ranked candidates, worked out once per state
        # (an env shares it with its observation and its other mapping).
        self.derived = PerStateCache()

    def index(self, name: str) -> int:
        return self.components.index(name)

    # The raw and aim modes' actions are Boxes: no action masks.
    masked = False

    def validate(self, action) -> np.ndarray:
        """The action as a float array, or ``ValueError`` naming what is wrong with it."""
        a = real_array(action, self.components, "numbers").astype(np.float64)
        # The common case in one pass over the plain values: a NaN fails both comparisons,
        # an infinite or out-of-range value one; within [-1, 1] the clip below changes
        # nothing (``astype`` has copied already). Else the checks below name it.
        if all(-1.0 <= v <= 1.0 for v in a.tolist()):
            return a
        if not np.all(np.isfinite(a)):
            bad = [self.components[i] for i in np.flatnonzero(~np.isfinite(a))]
            raise ValueError(f"action components {bad} are not finite: {a.tolist()}")
        outside = np.flatnonzero((a < -1.0 - 1e-6) | (a > 1.0 + 1e-6))
        if outside.size:
            bad = {self.components[i]: float(a[i]) for i in outside}
            raise ValueError(f"action components must lie in [-1, 1]; out of range: {bad}")
        return np.clip(a, -1.0, 1.0)  # only float32 round-off beyond the bounds remains

    # ------------------------------------------------------------------ decoding
    def decode(self, action: np.ndarray, state: GameState, rules: Ruleset) -> Decision | ShotMove:
        """The move ``action`` makes in ``state`` (a validated action)."""
        a = dict(zip(self.components, action))
        if state.pending is not None:
            choices = state.pending.choices
            choice = choices[bin_index(a["decision"], len(choices))]
            ball = state.pending.balls[0] if state.pending.balls else None
            return Decision(choice, ball=ball if choice.value == "spot_ball" else None,
                            player=state.pending.player)
        placement = self._placement(a, state)
        cue = placement if placement is not None else state.position(0)
        speed, side, vertical, elevation = self._stroke(a)
        if self.mode == "raw":
            return ShotMove(self._raw_call(a, state, rules), placement,
                            Shot(speed, 180.0 * a["aim"], side, vertical, elevation))
        target, pocket, call = self._target(a, state, rules, cue)
        angle = ghost_ball_angle(self.table, cue, state.position(target), pocket) + a["cut"] * self.max_cut_deg
        return ShotMove(call, placement, Shot(speed, angle, side, vertical, elevation), target, pocket)

    def _stroke(self, a: dict) -> tuple[float, float, float, float]:
        """The speed, tip offsets and elevation of the components ``a``."""
        speed = self.min_speed + (a["speed"] + 1.0) * 0.5 * (self.max_speed - self.min_speed)
        return (speed, a["side"] * self.max_tip_offset, a["vertical"] * self.max_tip_offset,
                elevation_deg(a.get(ELEVATION, -1.0)))

    def _raw_call(self, a: dict, state: GameState, rules: Ruleset) -> ShotCall:
        calls = self.derived.call_options(state, rules)
        return calls[bin_index(a["call"], len(calls))]

    # ------------------------------------------------------------------ encoding
    def encode(self, move: Decision | ShotMove, state: GameState, rules: Ruleset) -> np.ndarray:
        """An action that ``decode`` turns back into ``move`` in ``state`` (the inverse map).

        Values beyond the mapping's range are clipped (a speed above ``max_speed``, a tip
        offset beyond ``max_tip_offset``, a placement outside the zone). An elevated stroke
        needs the ``elevation`` component: without it (``elevation=False``) it is a
        ``ValueError``, as no action of this mapping plays it. A decision keeps
        its choice; a ``SPOT_BALL`` decodes to the first ball the rules offer. In ``raw``
        mode the stroke and the call are exact. In ``aim`` mode the (ball, pocket)
        candidate is the call's, else the one named by ``move.target`` / ``move.pocket``,
        else the one whose ghost-ball angle is nearest the stroke; the stroke is exact when
        it lies within ``max_cut_deg`` of that candidate's ghost-ball angle.
        """
        if isinstance(move, Decision):
            a = dict.fromkeys(self.components, 0.0)
            index, n = offered_choice(move, state)
            a["decision"] = bin_centre(index, n)
            return np.array([a[c] for c in self.components], dtype=np.float64)
        action = np.array(self._shot_components(move, state, rules), dtype=np.float64)
        # Mostly within the bounds already: then the clip would only copy it (NaN compares
        # false and is clipped as before). Python's comparisons of the listed values: cheaper
        # than NumPy's reductions on eight numbers.
        if _within_bounds(action.tolist()):
            return action
        return np.clip(action, -1.0, 1.0)

    def _shot_components(self, move: ShotMove, state: GameState, rules: Ruleset) -> list[float]:
        """``encode``'s components of a shot, in order, before the clip."""
        a = dict.fromkeys(self.components, 0.0)
        shot = move.shot
        if self.elevation:
            a[ELEVATION] = elevation_action(shot.elevation_deg)
        else:
            refuse_elevated(shot)
        a["speed"] = 2.0 * (shot.speed - self.min_speed) / (self.max_speed - self.min_speed) - 1.0
        if self.max_tip_offset > 0:
            a["side"] = shot.side / self.max_tip_offset
            a["vertical"] = shot.vertical / self.max_tip_offset
        if move.placement is not None and state.cue_ball_in_hand is not CueBallZone.NONE:
            a["place_x"], a["place_y"] = self._placement_action(move.placement, state)
        if self.mode == "raw":
            a["aim"] = wrap_deg(shot.angle_deg) / 180.0
            calls = self.derived.call_options(state, rules)
            if move.call not in calls:
                raise ValueError(f"the call {move.call} is not allowed now")
            a["call"] = bin_centre(calls.index(move.call), len(calls))
        else:
            cue = move.placement if move.placement is not None else state.position(0)
            candidates = self.candidates(state, rules, cue)
            index = self._candidate_index(candidates, move, cue, state)
            ball, pocket, _ = candidates[index]
            a["target"] = bin_centre(index, len(candidates))
            ghost = ghost_ball_angle(self.table, cue, state.position(ball), pocket)
            if self.max_cut_deg > 0:
                a["cut"] = wrap_deg(shot.angle_deg - ghost) / self.max_cut_deg
            a["push_out"] = 1.0 if move.call.push_out else -1.0
            a["safety"] = 1.0 if move.call.safety else -1.0
        return [a[c] for c in self.components]

    def played(self, move: Decision | ShotMove, state: GameState, rules: Ruleset
               ) -> tuple[np.ndarray, Decision | ShotMove]:
        """``(action, decode(validate(action), state, rules))`` for ``action = encode(move,
        state, rules)``: the action of an agent's ``move`` and the move it plays through this
        mapping (an env's opponent agents). A raw-mode shot whose components lie within the
        bounds (no clip) takes one pass: ``validate`` would return a copy of the action, and
        ``decode``'s formulas (``_placement``, ``_stroke``, ``_raw_call``) run on the same
        float64 values as Python floats, the same IEEE operations, then made the NumPy
        floats ``decode`` gives. Anything else goes through ``encode``, ``validate`` and
        ``decode``, with their errors."""
        if self.mode == "raw" and isinstance(move, ShotMove) and state.pending is None:
            action = np.array(self._shot_components(move, state, rules), dtype=np.float64)
            values = action.tolist()
            if _within_bounds(values):
                a = dict(zip(self.components, values))
                placement = self._placement(a, state)
                if placement is None:
                    state.position(0)  # ``decode`` looks for the cue ball, and says so when it is missing
                else:
                    placement = (np.float64(placement[0]), np.float64(placement[1]))
                speed, side, vertical, elevation = self._stroke(a)
                f = np.float64
                shot = Shot(f(speed), f(180.0 * a["aim"]), f(side), f(vertical), elevation)
                return action, ShotMove(self._raw_call(a, state, rules), placement, shot)
        action = self.encode(move, state, rules)
        return action, self.decode(self.validate(action), state, rules)

    def _placement_action(self, placement: Point, state: GameState) -> tuple[float, float]:
        R = self.table.ball_radius
        x_hi = (self.table.head_string_x - 1e-6 if state.cue_ball_in_hand is CueBallZone.KITCHEN
                else self.table.length - R)
        return (2.0 * (placement[0] - R) / (x_hi - R) - 1.0,
                2.0 * (placement[1] - R) / (self.table.width - 2 * R) - 1.0)

    def _candidate_index(self, candidates, move: ShotMove, cue: Point, state: GameState) -> int:
        for i, (ball, pocket, call) in enumerate(candidates):
            if move.call.names_ball and call == move.call:
                return i
        for i, (ball, pocket, _) in enumerate(candidates):
            if move.target is not None and (ball, pocket) == (move.target, move.pocket):
                return i

        def miss(i: int) -> float:
            ball, pocket, _ = candidates[i]
            ghost = ghost_ball_angle(self.table, cue, state.position(ball), pocket)
            return abs(wrap_deg(move.shot.angle_deg - ghost))
        return min(range(len(candidates)), key=miss)

    def _placement(self, a: dict, state: GameState) -> Point | None:
        zone = state.cue_ball_in_hand
        if zone is CueBallZone.NONE:
            return None
        R = self.table.ball_radius
        x_hi = self.table.head_string_x - 1e-6 if zone is CueBallZone.KITCHEN else self.table.length - R
        x = R + (a["place_x"] + 1.0) * 0.5 * (x_hi - R)
        y = R + (a["place_y"] + 1.0) * 0.5 * (self.table.width - 2 * R)
        return (x, y)

    def candidates(self, state: GameState, rules: Ruleset, cue: Point,
                   calls: tuple[ShotCall, ...] | None = None) -> list[tuple[int, str, ShotCall]]:
        """The (ball, pocket, call) choices of the ``target`` component, easiest first.

        The choices are the legal first balls times the six pockets, or the rules'
        ball-and-pocket calls in call-shot games. Calls on legal first balls come first;
        within each part they are ranked by ``shot_difficulty`` from ``cue`` (ties by ball,
        then pocket order), so the low end of ``target`` picks the most natural shots
        whatever the layout. ``calls`` are ``rules.call_options(state)`` when the caller
        has them already. The ranking is kept for the last cue-ball spot asked about in the
        current state (``derived``), so decoding and encoding in one state rank once.
        """
        kept = self.derived.value(state, rules, "aim_candidates", dict)
        if kept.get("cue") != cue:
            calls = self.derived.call_options(state, rules) if calls is None else calls
            kept["ranked"] = self._rank_candidates(state, rules, cue, calls)
            kept["cue"] = cue
        return list(kept["ranked"])

    def _rank_candidates(self, state: GameState, rules: Ruleset, cue: Point,
                         calls: tuple[ShotCall, ...]) -> list[tuple[int, str, ShotCall]]:
        legal = self.derived.legal_targets(state, rules)
        ball_calls = [c for c in calls if c.names_ball]
        if ball_calls:
            choices = [(c.ball, c.pocket, c) for c in ball_calls]
        else:
            plain = ShotCall()
            targets = sorted(b for b in legal if b in state.object_balls_on_table)
            if not targets:  # nothing legal to hit: aim at any ball, the rules will judge it
                targets = sorted(state.object_balls_on_table)
            choices = [(b, p, plain) for b in targets for p in POCKET_IDS]
        rank = {p: i for i, p in enumerate(POCKET_IDS)}
        # Calls on balls that may be hit first come before the rest (in 10-ball any ball may
        # be called, but a direct shot at one other than the lowest is a foul).
        return sorted(choices, key=lambda c: (c[0] not in legal,
                                              shot_difficulty(self.table, cue, state.position(c[0]), c[1]),
                                              c[0], rank[c[1]]))

    def _target(self, a: dict, state: GameState, rules: Ruleset, cue: Point) -> tuple[int, str, ShotCall]:
        """The aimed-at (ball, pocket) and the call that goes with it."""
        calls = self.derived.call_options(state, rules)
        candidates = self.candidates(state, rules, cue, calls)
        ball, pocket, call = candidates[bin_index(a["target"], len(candidates))]
        if a["push_out"] > 0.0 and ShotCall.push() in calls:
            call = ShotCall.push()
        elif a["safety"] > 0.0 and ShotCall.safety_shot() in calls:
            call = ShotCall.safety_shot()
        return ball, pocket, call


def check_elevation_flag(elevation) -> bool:
    """``elevation`` as a bool, or ``ValueError`` naming it."""
    if not isinstance(elevation, (bool, np.bool_)):
        raise ValueError(f"elevation must be True or False (an elevated-cue action component), got {elevation!r}")
    return bool(elevation)


def elevation_deg(value: float) -> float:
    """The cue elevation (degrees) of an ``elevation`` component: -1..1 -> 0..``Shot.MAX_ELEVATION_DEG``."""
    return (float(value) + 1.0) * 0.5 * Shot.MAX_ELEVATION_DEG


def elevation_action(degrees: float) -> float:
    """The ``elevation`` component of a cue elevation (``elevation_deg``'s inverse), clipped."""
    return float(np.clip(2.0 * degrees / Shot.MAX_ELEVATION_DEG - 1.0, -1.0, 1.0))


def refuse_elevated(shot: Shot) -> None:
    """``ValueError`` when ``shot`` is elevated: a mapping without the ``elevation``
    component cannot play it (clipping it level would play another shot)."""
    if shot.elevation_deg != 0.0:
        raise ValueError(f"the stroke has elevation_deg={shot.elevation_deg!r}, but this action mapping "
                         "has no elevation component (make the env with elevation=True)")


def offered_choice(move: Decision, state: GameState) -> tuple[int, int]:
    """The index of ``move``'s choice among the pending decision's choices, and how many
    there are; ``ValueError`` when no decision is pending or the choice is not offered."""
    if state.pending is None:
        raise ValueError("a decision was given but none is pending")
    choices = state.pending.choices
    if move.choice not in choices:
        raise ValueError(f"{move.choice.value!r} is not a choice now: {[c.value for c in choices]}")
    return choices.index(move.choice), len(choices)


def real_array(action, components: tuple[str, ...], what: str) -> np.ndarray:
    """``action`` as an array of one real value per component (``what`` they are, for the
    message), or ``ValueError`` naming what is wrong with it: not an array, not of a real
    dtype, or not of the components' shape."""
    # The message's description is written only when it is needed (this runs every move).
    def expected() -> str:
        return f"an array of {len(components)} {what} ({', '.join(components)})"
    try:
        given = np.asarray(action)
    except (TypeError, ValueError):
        raise ValueError(f"action must be {expected()}, got {action!r}") from None
    # Booleans, strings and complex numbers would convert silently; none is a real action.
    if given.dtype.kind not in "fiu":
        raise ValueError(f"action must be {expected()} of a real dtype (float or int), "
                         f"got dtype {given.dtype}: {action!r}")
    if given.shape != (len(components),):
        raise ValueError(f"action must have shape ({len(components)},) "
                         f"({', '.join(components)}), got shape {given.shape}")
    return given


def _within_bounds(values: list[float]) -> bool:
    """Whether every value lies in [-1, 1] (NaN does not)."""
    for v in values:
        if not -1.0 <= v <= 1.0:
            return False
    return True


def bin_centre(index: int, n: int) -> float:
    """The middle of bin ``index`` of n equal bins of [-1, 1] (``bin_index``'s inverse)."""
    return -1.0 + (2 * index + 1) / n


def wrap_deg(angle: float) -> float:
    """An angle in degrees wrapped into [-180, 180)."""
    return (angle + 180.0) % 360.0 - 180.0


def pocket_aim_point(table: Table, pocket_id: str) -> Point:
    """Where to send a ball into a pocket: the middle of the mouth (``poolgym.aiming.aim_point``)."""
    return aim_point(table, pocket_id)


def ghost_ball_angle(table: Table, cue: Point, ball: Point, pocket_id: str) -> float:
    """Stroke direction (degrees) that sends the cue ball to the ghost-ball position: the
    spot touching ``ball`` on the far side from the pocket, so the ball heads to the pocket."""
    return direction_deg(cue, ghost_ball(ball, aim_point(table, pocket_id), table.ball_radius))


def shot_difficulty(table: Table, cue: Point, ball: Point, pocket_id: str) -> float:
    """A cut-and-distance score of sending ``ball`` to a pocket from ``cue`` (lower is
    easier): the cut angle in degrees plus 20 per metre the two balls travel, and 1000 for
    cuts beyond 80 degrees, which are all but impossible."""
    target = aim_point(table, pocket_id)
    ghost = ghost_ball(ball, target, table.ball_radius)
    return difficulty_of(cut_angle_deg(cue, ghost, ball, target), math.dist(cue, ghost) + math.dist(ball, target))


def difficulty_of(cut_deg: float, travel: float) -> float:
    """``shot_difficulty`` from its parts: the cut angle (degrees) and the two balls' travel
    (metres)."""
    return cut_deg + 20.0 * travel + (1000.0 if cut_deg > MAX_CUT_DEG else 0.0)
