"""The mask is the contract: in every masked action mode, on many states of every game
(random masked play from many seeds, decision states such as push-out answers and 8-ball
break options included), each action the mask offers is accepted and each it does not offer
is refused with one line, never played as another action. ``decode`` checks the state
itself, so a wrong mask (one that unmasks every decision choice, say) fails here."""

import numpy as np
import pytest

from poolgym.agents.tools.soak import random_action
from poolgym.envs import candidates as cand
from poolgym.envs.canonical import N_OPTIONS, OPTIONS
from poolgym.envs.choice import CHOICES
from poolgym.envs.pool_env import PoolEnv
from poolgym.rules import Decision

GAMES = ("nine_ball", "eight_ball", "ten_ball", "straight_pool")


def _refused(mapper, action, state, rules) -> str | None:
    """The one-line refusal of ``action`` in ``state``, or None when it decodes."""
    try:
        mapper.decode(mapper.validate(action), state, rules)
    except ValueError as exc:
        message = str(exc)
        assert message and "\n" not in message
        return message
    return None


def _check_discrete(env, rng) -> None:
    mapper, state, rules = env.mapper, env.state, env.rules
    masks = np.split(env.action_masks(), np.cumsum(mapper.nvec)[:-1])
    offered = [rng.choice(np.flatnonzero(m)) for m in masks]
    # Every value of the slot and decision dimensions, a few bins of each parameter, each
    # with the other components at offered values.
    for dim, mask in enumerate(masks):
        values = range(len(mask)) if dim in (0, len(masks) - 1) else rng.choice(len(mask), 2, replace=False)
        for value in values:
            action = np.array(offered, dtype=np.int64)
            action[dim] = value
            refusal = _refused(mapper, action, state, rules)
            assert (refusal is None) == bool(mask[value]), (
                f"{mapper.components[dim]} {value}: mask {bool(mask[value])}, refusal {refusal!r}")


def _check_canonical(env) -> None:
    mapper, state, rules = env.mapper, env.state, env.rules
    masks = env.action_masks()
    assert masks.shape == (N_OPTIONS,)
    for index in range(N_OPTIONS):
        refusal = _refused(mapper, index, state, rules)
        assert (refusal is None) == bool(masks[index]), (
            f"option {index} ({OPTIONS[index].kind}): mask {bool(masks[index])}, refusal {refusal!r}")


def _offered_action(env, rng):
    """A random offered action, pushing out whenever a push out is offered (to reach the
    push-out answers)."""
    masks = env.action_masks()
    if env.mapper.mode == "choice_canonical":
        allowed = np.flatnonzero(masks)
        pushes = [i for i in allowed if OPTIONS[i].kind == "push_out"]
        return np.int64(rng.choice(pushes if pushes and rng.random() < 0.7 else allowed))
    split = np.split(masks, np.cumsum(env.mapper.nvec)[:-1])
    action = np.array([rng.choice(np.flatnonzero(m)) for m in split], dtype=np.int64)
    if split[0][cand.PUSH_OUT_SLOT] and rng.random() < 0.7:
        action[0] = cand.PUSH_OUT_SLOT
    return action


@pytest.mark.parametrize("mode", ["choice_discrete", "choice_canonical"])
@pytest.mark.parametrize("game", GAMES)
def test_the_mask_offers_exactly_what_decode_accepts(game, mode):
    env = PoolEnv(game, opponent="solo", action_mode=mode, noise="tournament", rack_model="benchmark")
    decisions = states = 0
    for seed in range(6):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(12):
            if env._done:
                break
            states += 1
            decisions += env.state.pending is not None
            if mode == "choice_discrete":
                _check_discrete(env, rng)
            else:
                _check_canonical(env)
            env.play_move(_offered_action(env, rng))
    assert states >= 40
    if game != "straight_pool":  # push-out answers (9- and 10-ball), break options (8-ball)
        assert decisions, "no decision state was reached"


def _pending_push_out(env) -> None:
    """Play random offered moves from seed 0 on until a push out's answer is pending."""
    for seed in range(50):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not env._done and env.state.pending is None:
            env.play_move(_offered_action(env, rng))
        if not env._done:
            return
    raise AssertionError("no push out in 50 games")


@pytest.mark.parametrize("mode", ["choice_discrete", "choice_canonical"])
def test_an_answer_not_offered_is_refused_naming_it(mode):
    """A pending push-out answer: each offered one decodes to itself, any other is refused
    naming it (it used to be played as the first offered answer)."""
    env = PoolEnv("nine_ball", opponent="solo", action_mode=mode, rack_model="benchmark")
    _pending_push_out(env)
    state, rules, mapper = env.state, env.rules, env.mapper
    offered = state.pending.choices
    assert 0 < len(offered) < len(CHOICES)
    middle = [n // 2 for n in mapper.param_bins.values()]
    for index, choice in enumerate(CHOICES):
        if mode == "choice_canonical":
            action = next(i for i, o in enumerate(OPTIONS) if o.kind == "decision" and o.choice == index)
        else:
            action = np.array([0, *middle, index], dtype=np.int64)
        if choice in offered:
            move = mapper.decode(mapper.validate(action), state, rules)
            assert isinstance(move, Decision) and move.choice is choice
        elif mode == "choice_canonical":
            answers = [i for i, o in enumerate(OPTIONS) if o.kind == "decision" and CHOICES[o.choice] in offered]
            assert _refused(mapper, action, state, rules) == (
                f"option {action} (decision {choice.value}) is not offered: the pending decision's answers "
                f"are the options {answers}")
        else:
            assert _refused(mapper, action, state, rules) == (
                f"action decision {index} ({choice.value}) is not offered: the pending decision offers "
                f"{[CHOICES.index(c) for c in offered]} ({', '.join(c.value for c in offered)})")


@pytest.mark.parametrize("mode", ["choice_discrete", "choice_canonical"])
def test_the_uniform_action_opponent_plays_what_the_masks_offer(mode):
    """The env's own random opponent draws among the offered actions (its info carries the
    masks); it used to draw from the whole space and be mapped to another move."""
    env = PoolEnv("nine_ball", opponent="uniform-action", action_mode=mode, rack_model="benchmark")
    rng = np.random.default_rng(4)
    replies = []
    env.move_listeners.append(lambda record: replies.append(record.player))
    for seed in range(3):
        env.reset(seed=seed)
        for _ in range(15):
            *_, terminated, truncated, _ = env.step(random_action(env, rng))
            if terminated or truncated:
                break
    assert 1 in replies  # the opponent moved
