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

from poolgym.physics import Shot
from poolgym.rules import CueBallZone, Decision, GameState, Ruleset, ShotCall
from poolgym.table import POCKET_IDS, Table

Point = tuple[float, float]

RAW_COMPONENTS = ("aim", "speed", "side", "vertical", "place_x", "place_y", "decision", "call")
AIM_COMPONENTS = ("target", "cut", "speed", "side", "vertical", "place_x", "place_y", "decision",
                  "push_out", "safety")
ACTION_MODES = {"raw": RAW_COMPONENTS, "aim": AIM_COMPONENTS}


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

    ``raw``: ``aim`` -> stroke direction, -1..1 = -180..180 degrees (0 = towards the foot
    cushion); ``call`` -> one of the calls the rules allow now (no call, push out, a ball and
    pocket, safety; in ``Ruleset.call_options`` order).

    ``aim`` (aim-assisted): ``target`` -> one (ball, pocket) pair of the candidates (the
    legal first balls times the six pockets, or the rules' ball-and-pocket calls in call-shot
    games), which is also the call; the stroke aims at the ghost ball that sends that ball
    to that pocket, turned by ``cut`` * ``max_cut_deg``; ``push_out`` > 0 declares a push out
    when one is available, ``safety`` > 0 calls a safety in call-shot games.
    """

    def __init__(self, table: Table, mode: str = "raw", min_speed: float = 0.3,
                 max_speed: float = 10.0, max_tip_offset: float = 0.5, max_cut_deg: float = 5.0) -> None:
        if mode not in ACTION_MODES:
            raise ValueError(f"action_mode must be one of {sorted(ACTION_MODES)}, got {mode!r}")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (min_speed, max_speed)) \
                or not 0 < min_speed < max_speed <= 15.0:
            raise ValueError(f"speeds must satisfy 0 < min_speed < max_speed <= 15 m/s, "
                             f"got {min_speed!r}, {max_speed!r}")
        if isinstance(max_tip_offset, bool) or not isinstance(max_tip_offset, (int, float)) \
                or not 0 <= max_tip_offset <= 0.6:
            raise ValueError(f"max_tip_offset must be in [0, 0.6] ball radii, got {max_tip_offset!r}")
        self.table, self.mode = table, mode
        self.components = ACTION_MODES[mode]
        self.min_speed, self.max_speed = min_speed, max_speed
        self.max_tip_offset, self.max_cut_deg = max_tip_offset, max_cut_deg
        self.space = spaces.Box(-1.0, 1.0, shape=(len(self.components),), dtype=np.float32)

    def index(self, name: str) -> int:
        return self.components.index(name)

    def validate(self, action) -> np.ndarray:
        """The action as a float array, or ``ValueError`` naming what is wrong with it."""
        expected = f"an array of {len(self.components)} numbers ({', '.join(self.components)})"
        try:
            given = np.asarray(action)
        except (TypeError, ValueError):
            raise ValueError(f"action must be {expected}, got {action!r}") from None
        # Booleans, strings and complex numbers would convert silently; none is a real action.
        if given.dtype.kind not in "fiu":
            raise ValueError(f"action must be {expected} of a real dtype (float or int), "
                             f"got dtype {given.dtype}: {action!r}")
        a = given.astype(np.float64)
        if a.shape != self.space.shape:
            raise ValueError(f"action must have shape {self.space.shape} "
                             f"({', '.join(self.components)}), got shape {a.shape}")
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
        speed = self.min_speed + (a["speed"] + 1.0) * 0.5 * (self.max_speed - self.min_speed)
        side = a["side"] * self.max_tip_offset
        vertical = a["vertical"] * self.max_tip_offset
        if self.mode == "raw":
            calls = rules.call_options(state)
            call = calls[bin_index(a["call"], len(calls))]
            return ShotMove(call, placement, Shot(speed, 180.0 * a["aim"], side, vertical))
        target, pocket, call = self._target(a, state, rules)
        angle = ghost_ball_angle(self.table, cue, state.position(target), pocket) + a["cut"] * self.max_cut_deg
        return ShotMove(call, placement, Shot(speed, angle, side, vertical), target, pocket)

    def _placement(self, a: dict, state: GameState) -> Point | None:
        zone = state.cue_ball_in_hand
        if zone is CueBallZone.NONE:
            return None
        R = self.table.ball_radius
        x_hi = self.table.head_string_x - 1e-6 if zone is CueBallZone.KITCHEN else self.table.length - R
        x = R + (a["place_x"] + 1.0) * 0.5 * (x_hi - R)
        y = R + (a["place_y"] + 1.0) * 0.5 * (self.table.width - 2 * R)
        return (x, y)

    def _target(self, a: dict, state: GameState, rules: Ruleset) -> tuple[int, str, ShotCall]:
        """The aimed-at (ball, pocket) and the call that goes with it."""
        calls = rules.call_options(state)
        ball_calls = [c for c in calls if c.names_ball]
        if ball_calls:
            candidates = [(c.ball, c.pocket, c) for c in ball_calls]
        else:
            plain = ShotCall()
            targets = sorted(b for b in rules.legal_targets(state) if b in state.object_balls_on_table)
            if not targets:  # nothing legal to hit: aim at any ball, the rules will judge it
                targets = sorted(state.object_balls_on_table)
            candidates = [(b, p, plain) for b in targets for p in POCKET_IDS]
        ball, pocket, call = candidates[bin_index(a["target"], len(candidates))]
        if a["push_out"] > 0.0 and ShotCall.push() in calls:
            call = ShotCall.push()
        elif a["safety"] > 0.0 and ShotCall.safety_shot() in calls:
            call = ShotCall.safety_shot()
        return ball, pocket, call


def pocket_aim_point(table: Table, pocket_id: str) -> Point:
    """Where to send a ball into a pocket: the middle of the mouth."""
    return table.pocket(pocket_id).mouth_centre


def ghost_ball_angle(table: Table, cue: Point, ball: Point, pocket_id: str) -> float:
    """Stroke direction (degrees) that sends the cue ball to the ghost-ball position: the
    spot touching ``ball`` on the far side from the pocket, so the ball heads to the pocket."""
    px, py = pocket_aim_point(table, pocket_id)
    dx, dy = px - ball[0], py - ball[1]
    d = math.hypot(dx, dy) or 1.0
    gx = ball[0] - 2 * table.ball_radius * dx / d
    gy = ball[1] - 2 * table.ball_radius * dy / d
    return math.degrees(math.atan2(gy - cue[1], gx - cue[0]))
