"""Building actions and positions for environment tests."""

import math

import numpy as np

from poolgym.envs.actions import ActionMapper


def raw_action(mapper: ActionMapper, angle_deg: float, speed: float, side: float = 0.0,
               vertical: float = 0.0, place=None, zone_x_high=None, decision: float = 0.0,
               call: float = -1.0) -> np.ndarray:
    """The raw-mode action that plays this stroke (the inverse of the documented mapping)."""
    table = mapper.table
    R = table.ball_radius
    a = dict(aim=angle_deg / 180.0,
             speed=2 * (speed - mapper.min_speed) / (mapper.max_speed - mapper.min_speed) - 1,
             side=side / mapper.max_tip_offset, vertical=vertical / mapper.max_tip_offset,
             place_x=0.0, place_y=0.0, decision=decision, call=call)
    if place is not None:
        x_hi = zone_x_high if zone_x_high is not None else table.length - R
        a["place_x"] = 2 * (place[0] - R) / (x_hi - R) - 1
        a["place_y"] = 2 * (place[1] - R) / (table.width - 2 * R) - 1
    return np.array([a[c] for c in mapper.components], dtype=np.float32)


def straight_in(table, ob_distance=0.42, cb_behind=0.71):
    """Object ball on the foot-right pocket's diagonal, cue ball behind it: (cue, ob, angle)."""
    u = 1 / math.sqrt(2)
    ob = (table.length - u * ob_distance, table.width - u * ob_distance)
    cb = (ob[0] - u * cb_behind, ob[1] - u * cb_behind)
    return cb, ob, 45.0


class Recorder:
    """An opponent that records what it saw and plays a fixed soft stroke."""

    def __init__(self, action):
        self.action = action
        self.seen = []

    def __call__(self, obs, info):
        self.seen.append((obs, info))
        return self.action
