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


def sample_offered(env) -> None:
    """Make ``env.action_space.sample()`` (an instance of a masked action mode) draw only what
    ``env.action_masks()`` offers, from the space's own seeded generator, so a checker that
    steps with ``sample()`` (Gymnasium's and SB3's ``check_env``) keeps to the mask's
    contract: the masked modes refuse an action their mask does not offer."""
    space = env.action_space
    cls = type(space)
    nvec = getattr(space, "nvec", None)

    def sample(mask=None, probability=None):
        if mask is None and probability is None:
            masks = env.action_masks().astype(np.int8)
            mask = masks if nvec is None else tuple(np.split(masks, np.cumsum(nvec)[:-1]))
        return cls.sample(space, mask=mask, probability=probability)

    space.sample = sample


def check_masked_env(env, seed: int = 123) -> None:
    """Gymnasium's ``check_env`` (without its render check) for an env of a masked action
    mode, whose ``sample()`` draws what the masks offer (``sample_offered``): every check it
    makes, with the step-determinism check's action drawn after its reset, where
    Gymnasium's draws it before (from the previous episode's state, whose masks need not
    hold after the reset)."""
    from copy import deepcopy

    from gymnasium.utils import env_checker as gc
    from gymnasium.utils.passive_env_checker import env_reset_passive_checker, env_step_passive_checker

    sample_offered(env)
    gc.check_action_space(env.action_space)
    gc.check_space_limit(env.action_space, "action")
    gc.check_observation_space(env.observation_space)
    gc.check_space_limit(env.observation_space, "observation")
    gc.check_seed_deprecation(env)
    gc.check_reset_return_info_deprecation(env)
    gc.check_reset_return_type(env)
    gc.check_reset_seed_determinism(env)
    gc.check_reset_options(env)
    env_reset_passive_checker(env)
    env_step_passive_checker(env, env.action_space.sample())
    # check_step_determinism, the action drawn from the masks after the reset.
    env.reset(seed=seed)
    env.action_space.seed(seed)
    action = env.action_space.sample()
    first = env.step(action)
    stepped = deepcopy(env.unwrapped._np_random)
    env.reset(seed=seed)
    second = env.step(action)
    assert env.unwrapped._np_random.bit_generator.state == stepped.bit_generator.state
    for a, b in zip(first, second):
        assert gc.data_equivalence(a, b, exact=True)


def check_env_closes(env) -> None:
    """``check_env``'s close check: an env made from ``env``'s spec closes twice."""
    made = env.spec.make()
    made.close()
    made.close()
