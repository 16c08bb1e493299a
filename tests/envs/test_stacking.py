"""The batched envs stack their tables' observations and infos into exactly what
Gymnasium's generic functions build (``concatenate``; ``VectorEnv._add_info`` called table by
table): the same keys in the same order, ``_key`` masks, dtypes, shapes, values bit for bit
and the same objects in object arrays. Checked on real steps (resets, terminations,
truncations, a reset's empty reward terms beside full ones) and on infos of every shape
``_add_info`` takes."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import concatenate, create_empty_array
from hypothesis import example, given, settings
from hypothesis import strategies as st

import poolgym  # noqa: F401
from poolgym.envs.batched import BatchedTables
from poolgym.envs.stacking import stack_infos, stack_observations


class _Vector(VectorEnv):
    """Just enough of a vector env for Gymnasium's own ``_add_info`` (its ``num_envs``)."""

    def __init__(self, num_envs: int) -> None:
        self.num_envs = num_envs


def _gymnasium_infos(infos: list[dict]) -> dict:
    vector, stacked = _Vector(len(infos)), {}
    for i, info in enumerate(infos):
        stacked = vector._add_info(stacked, info, i)
    return stacked


def _assert_identical(got, want, path="infos"):
    """``got`` is ``want``: dicts with the same keys in the same order, arrays of the same
    type, dtype, shape, flags and bytes (object arrays: the same objects)."""
    assert type(got) is type(want), path
    if isinstance(want, dict):
        assert list(got) == list(want), path
        for key in want:
            _assert_identical(got[key], want[key], f"{path}[{key!r}]")
        return
    if not isinstance(want, np.ndarray):  # what ``_add_info`` leaves where keys collide
        assert got is want or got == want, path
        return
    assert (got.dtype, got.shape) == (want.dtype, want.shape), path
    assert got.flags["C_CONTIGUOUS"] and got.flags["OWNDATA"] and got.flags["WRITEABLE"], path
    if want.dtype == object:
        assert all(a is b for a, b in zip(got.tolist(), want.tolist())), path
    else:
        assert got.tobytes() == want.tobytes(), path


def _arrays(infos: dict):
    for value in infos.values():
        yield from _arrays(value) if isinstance(value, dict) else [value]


def _recorded_steps(env_id: str, num_envs: int, steps: int, **kwargs):
    """A batched env's per-table observations and infos as its reset and steps stacked them."""
    vec = gym.make_vec(env_id, num_envs=num_envs, **kwargs)
    recorded = []
    stack_obs, stack_info = vec._stack, vec._stack_infos
    vec._stack = lambda observations: recorded.append(("obs", list(observations))) or stack_obs(observations)
    vec._stack_infos = lambda infos: recorded.append(("infos", list(infos))) or stack_info(infos)
    vec.reset(seed=[501 + i for i in range(num_envs)])
    rng = np.random.default_rng(5)
    space = vec.single_action_space
    ends = 0
    for _ in range(steps):
        if hasattr(space, "nvec"):
            cuts = np.cumsum(space.nvec)[:-1]
            actions = np.array([[rng.choice(np.flatnonzero(p)) for p in np.split(row, cuts)]
                                for row in vec.action_masks()], vec.action_space.dtype)
        else:
            actions = rng.uniform(-1, 1, vec.action_space.shape).astype(vec.action_space.dtype)
        _, _, terminated, truncated, _ = vec.step(actions)
        ends += int(np.sum(terminated | truncated))
    vec.close()
    return vec, recorded, ends


@pytest.mark.parametrize("env_id, kwargs", [
    ("poolgym/NineBall-v1", dict(action_mode="choice_discrete", max_episode_steps=5)),
    ("poolgym/NineBall-v1", dict(action_mode="aim", obs_mode="flat")),
    ("poolgym/PotBall-v1", dict(action_mode="choice_discrete", shaping=True)),
])
def test_real_steps_stack_as_gymnasium_stacks_them(env_id, kwargs):
    vec, recorded, ends = _recorded_steps(env_id, 6, 30, **kwargs)
    assert ends >= 6  # resets beside steps in the same vector step
    partial = 0
    for kind, items in recorded:
        if kind == "obs":
            space = vec.single_observation_space
            _assert_identical(stack_observations(space, items),
                              concatenate(space, items, create_empty_array(space, len(items))))
        else:
            got = stack_infos(items, len(items))
            assert got is not None  # the envs' infos never need the fallback
            _assert_identical(got, _gymnasium_infos(items))
            arrays = list(_arrays(got))  # each its own, as Gymnasium's (a mask changed changes no other)
            assert not any(np.shares_memory(a, b) for k, a in enumerate(arrays) for b in arrays[k + 1:])
            partial += any(isinstance(v, dict) and len(set(map(len, (i[k] for i in items)))) > 1
                           for k, v in items[0].items())
    if env_id == "poolgym/NineBall-v1":
        assert partial > 0  # a reset's empty reward terms beside a step's full ones


_scalars = st.one_of(st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                     st.none(), st.integers(-3, 3).map(np.int64), st.floats(-2, 2, width=32).map(np.float32),
                     st.booleans().map(np.bool_), st.tuples(st.integers(0, 2), st.integers(0, 2)),
                     st.lists(st.integers(0, 2), max_size=2), st.text(max_size=2),
                     st.integers(0, 4).map(lambda k: np.arange(k % 3 + 1, dtype=np.int8)),
                     st.floats(-1, 1).map(lambda x: np.array([x, -x])))
_keys = st.sampled_from(["a", "b", "c", "_a", "final_obs", 1, "_1"])
_infos = st.dictionaries(_keys, st.one_of(_scalars, st.dictionaries(_keys, _scalars, max_size=3)), max_size=5)


def _outcome(stack, infos):
    try:
        return stack(infos), None
    except Exception as exc:  # noqa: BLE001 (the kind of failure is compared)
        return None, type(exc)


@settings(max_examples=400, deadline=None)
@given(st.lists(_infos, min_size=1, max_size=5))
# Refused by Gymnasium at table 1's first key ('a': None), by a key-at-a-time stacking at 'b' ('').
@example([{"b": 0, "a": 0}, {"a": None, "b": ""}])
def test_any_infos_stack_as_gymnasium_stacks_them(infos):
    want, want_error = _outcome(_gymnasium_infos, infos)
    # The batched env's stacking: ``stack_infos``, or ``_add_info`` where it declines.
    vector = _Vector(len(infos))
    got, got_error = _outcome(lambda i: BatchedTables._stack_infos(vector, i), infos)
    assert got_error is want_error
    if want_error is None:
        _assert_identical(got, want)


def test_the_infos_left_to_gymnasium_are_the_order_dependent_ones():
    assert stack_infos([{"a": 1, "_a": 2}], 1) is None  # a key named as another's mask
    assert stack_infos([{1: 1, "1": 2}], 1) is None  # two keys with one mask name
    assert stack_infos([{"a": {"x": 1}}, {"a": 2}], 2) is None  # a mapping in one table, not in another
    assert stack_infos([{"a": 2}, {"a": {"x": 1}}], 2) is None
    stacked = stack_infos([{"a": 1, "b": {}}, {"b": {"x": 2.0}, "c": None}], 2)
    _assert_identical(stacked, _gymnasium_infos([{"a": 1, "b": {}}, {"b": {"x": 2.0}, "c": None}]))
    assert list(stacked) == ["a", "_a", "b", "_b", "c", "_c"]


def test_observations_of_another_dtype_or_shape_go_through_concatenate():
    box = gym.spaces.Box(-1, 1, (3,), np.float32)
    as_float64 = [np.array([0.1, 0.2, 0.3]), np.array([0.4, 0.5, 0.6])]
    _assert_identical(stack_observations(box, as_float64), concatenate(box, as_float64, create_empty_array(box, 2)))
    for ragged in ([np.zeros(3, np.float32), np.zeros(2, np.float32)], [np.zeros(1, np.float32)] * 2):
        with pytest.raises(ValueError):
            concatenate(box, ragged, create_empty_array(box, 2))
        with pytest.raises(ValueError):
            stack_observations(box, ragged)
    discrete = gym.spaces.Discrete(3)
    _assert_identical(stack_observations(discrete, [0, 2, 1]),
                      concatenate(discrete, [0, 2, 1], create_empty_array(discrete, 3)))
