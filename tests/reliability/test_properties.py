"""Property-based tests across the layers: any sound input keeps every invariant.

Each test fixes its example count and runs derandomized, so CI is bounded and repeatable;
a failure prints the shrunk example (a layout and shot, a sequence of event seeds and
choices, or a list of actions).
"""

import math

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from poolgym.physics import PhysicsParams, Shot, Simulator
from poolgym.physics.invariants import shot_violations
from poolgym.rules import Decision, GameState, get_ruleset, random_events, state_violations
from poolgym.table import Table

from .helpers import env_ids, ruleset_names

TABLE = Table.preset("9ft")
SIM = Simulator(TABLE)
R = TABLE.ball_radius
MAX_SPEED = PhysicsParams().max_speed
SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ------------------------------------------------------------------------------ physics
@st.composite
def layouts(draw):
    """The cue ball and up to 15 object balls anywhere on the playing surface, some frozen
    to another ball (touching exactly) and some against a cushion or in a pocket's jaws."""
    balls = [0] + draw(st.permutations(range(1, 16)))[:draw(st.integers(0, 15))]
    layout: dict[int, tuple[float, float]] = {}
    for ball in balls:
        if layout and draw(st.booleans()):  # frozen to a ball already placed
            other = layout[draw(st.sampled_from(sorted(layout)))]
            phi = draw(st.floats(0.0, 2 * math.pi))
            x, y = other[0] + 2 * R * math.cos(phi), other[1] + 2 * R * math.sin(phi)
        else:
            x = draw(st.floats(R, TABLE.length - R))
            y = draw(st.floats(R, TABLE.width - R))
        if TABLE.contains(x, y) and all(math.hypot(x - u, y - v) >= 2 * R - 1e-9 for u, v in layout.values()):
            layout[ball] = (x, y)
        elif ball == 0:  # the cue ball comes first: the table is empty, any spot will do
            layout[0] = (TABLE.length / 8, TABLE.width / 2)
    return layout


@st.composite
def shots(draw, max_speed=MAX_SPEED):
    """Any shot in range: speed in (0, max], any angle, tip anywhere on the ball's face."""
    reach = draw(st.floats(0.0, 0.99))
    phi = draw(st.floats(0.0, 2 * math.pi))
    return Shot(speed=draw(st.floats(0.0, max_speed, exclude_min=True)),
                angle_deg=draw(st.floats(-720.0, 720.0)),
                side=reach * math.cos(phi), vertical=reach * math.sin(phi))


@settings(max_examples=300, **SETTINGS)
@given(layout=layouts(), shot=shots())
def test_any_layout_and_shot_keep_the_physics_invariants(layout, shot):
    result = SIM.simulate(layout, shot)
    assert shot_violations(TABLE, layout, result) == []
    assert math.isfinite(result.duration) and result.duration >= 0.0


@settings(max_examples=40, **SETTINGS)
@given(layout=layouts(), field=st.sampled_from(["speed", "angle_deg", "side", "vertical"]),
       value=st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, None, "1.0", True]),
                       st.floats(MAX_SPEED, 1e9, exclude_min=True), st.floats(-1e9, -1.0)))
def test_any_bad_shot_value_is_refused_naming_its_field(layout, field, value):
    if field == "angle_deg" and isinstance(value, float) and math.isfinite(value):
        value = math.nan  # every finite angle is a direction
    shot = Shot(**{"speed": 1.0, field: value})
    before = dict(layout)
    with pytest.raises(ValueError, match=f"Shot.{field}|side and Shot.vertical"):
        SIM.simulate(layout, shot)
    assert layout == before


# ------------------------------------------------------------------------------ rules
SEEDS = st.integers(0, 2**32 - 1)


@pytest.mark.parametrize("game", ruleset_names())
@settings(max_examples=40, **SETTINGS)
@given(data=st.data())
def test_any_well_formed_event_sequence_keeps_the_rules_invariants(game, data):
    rules = get_ruleset(game)
    state = rules.new_game(rng=data.draw(SEEDS, label="rack seed"), breaker=data.draw(st.integers(0, 1)))
    for _ in range(data.draw(st.integers(1, 40), label="moves")):
        if state.is_over:
            break
        if state.pending is not None:
            choice = data.draw(st.sampled_from(state.pending.choices), label="choice")
            ball = state.pending.balls[0] if choice.value == "spot_ball" else None
            new = rules.apply_decision(state, Decision(choice, ball, state.pending.player))
            assert new != state
        else:
            call = data.draw(st.sampled_from(rules.call_options(state)), label="call")
            events = random_events(rules, state, call, np.random.default_rng(data.draw(SEEDS, label="events")))
            new, outcome = rules.apply_shot(state, call, events)
            assert (new, outcome) == rules.apply_shot(state, call, events)  # pure
            assert outcome.shooter == state.shooter
            assert outcome.rack_over == new.is_over and outcome.winner == new.winner
            if outcome.fouls and not new.is_over:
                assert (new.pending.player if new.pending else new.shooter) == 1 - state.shooter
            assert set(new.out_of_play) - set(state.out_of_play) <= (
                set(events.pocketed_balls) | events.off_table) or new.awaiting_break
        assert state_violations(rules, new) == []
        assert new.inning >= state.inning
        assert GameState.from_json(new.to_json()) == new
        state = new


# ------------------------------------------------------------------------------ environments
ENV_IDS = env_ids()
_ENVS: dict[str, gym.Env] = {}


def _env(env_id: str) -> gym.Env:
    if env_id not in _ENVS:
        _ENVS[env_id] = gym.make(env_id)
    return _ENVS[env_id]


def _actions(n: int):
    """Any action in the Box: float32 values in [-1, 1], the bounds and -0.0 included."""
    return arrays(np.float32, (n,), elements=st.floats(-1.0, 1.0, width=32))


@pytest.mark.parametrize("env_id", ENV_IDS)
@settings(max_examples=15, **SETTINGS)
@given(data=st.data())
def test_any_action_in_the_space_gives_a_valid_observation(env_id, data):
    env = _env(env_id)
    obs, info = env.reset(seed=data.draw(st.integers(0, 2**31 - 1), label="seed"))
    assert env.observation_space.contains(obs)
    for action in data.draw(st.lists(_actions(env.action_space.shape[0]), min_size=1, max_size=4),
                            label="actions"):
        assert env.action_space.contains(action)
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        assert isinstance(reward, float) and math.isfinite(reward)
        assert isinstance(info, dict)
        if terminated or truncated:
            obs, _ = env.reset()


def _bad_actions(n: int):
    """An action of the right shape with at least one value NaN, infinite or out of range."""
    bad = st.sampled_from([np.nan, np.inf, -np.inf]) | st.floats(1.001, 1e30) | st.floats(-1e30, -1.001)
    return st.tuples(_actions(n), st.integers(0, n - 1), bad).map(
        lambda t: np.where(np.arange(n) == t[1], np.float32(t[2]), t[0]).astype(np.float32))


@pytest.mark.parametrize("env_id", ENV_IDS)
@settings(max_examples=15, **SETTINGS)
@given(data=st.data())
def test_any_action_outside_the_space_is_refused_and_changes_nothing(env_id, data):
    env = _env(env_id)
    env.reset(seed=data.draw(st.integers(0, 2**31 - 1), label="seed"))
    before = env.unwrapped.state.to_json()
    action = data.draw(_bad_actions(env.action_space.shape[0]), label="action")
    with pytest.raises(ValueError, match=r"not finite|must lie in \[-1, 1\]"):
        env.step(action)
    assert env.unwrapped.state.to_json() == before
