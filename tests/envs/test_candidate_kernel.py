"""The compiled candidate slots (``poolgym.physics.pot_geometry.candidate_slots`` behind
``poolgym.envs.candidates.candidate_slots``) equal the interpreted ones
(``tests/envs/slots_reference.py``) bit for bit: every field of every slot (compared by
``repr``, which tells -0.0 from 0.0 and round-trips every float), the feature vector's
bytes, the mask and the best make probability, on the states of masked-random play of every
game with a choice mode and on hand-built positions (ties in the ranking, blocked paths,
balls in the jaws, the cue ball in hand where its default placement is taken)."""

from __future__ import annotations

import math
from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401 -- registers the envs
from poolgym.envs import candidates as cand
from poolgym.rules import CueBallZone, GameState, get_ruleset
from poolgym.table import POCKET_IDS, Table

from tests.envs import slots_reference as ref

TABLE = Table()
R = TABLE.ball_radius
SIGMAS = (0.0, 0.35, 2.0)


def assert_same_slots(state, rules, sigma):
    """The kernel's slots of ``state`` equal the reference's, bit for bit."""
    new = cand.candidate_slots(state, rules, sigma)
    old = ref.candidate_slots(state, rules, sigma)
    assert repr(tuple(new)) == repr(old) and tuple(new) == old
    assert cand.slot_features(new).tobytes() == ref.slot_features(old, rules.table).tobytes()
    assert cand.slot_mask(new).tolist() == [int(s is not None) for s in old]
    assert new.valid() == [i for i, s in enumerate(old) if s is not None]
    assert repr(cand.best_make_probability(new)) == repr(ref.best_make_probability(old))
    return old


def in_hand(state, zone):
    """``state`` with the cue ball off the table and in hand in ``zone``."""
    return replace(state, balls=tuple(b for b in state.balls if b[0] != 0), cue_ball_in_hand=zone)


def played_states(env_id, seed, steps, **kwargs):
    """The states met in ``steps`` masked-random steps of ``env_id`` (resetting when an
    episode ends), and the env's rules."""
    env = gym.make(env_id, action_mode="choice_discrete", **kwargs)
    game = env.unwrapped
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    states = [game.state]
    nvec = env.action_space.nvec
    for _ in range(steps):
        parts = np.split(game.action_masks(), np.cumsum(nvec)[:-1])
        action = np.array([int(rng.choice(np.flatnonzero(p))) for p in parts])
        _, _, terminated, truncated, _ = env.step(action)
        states.append(game.state)
        if terminated or truncated:
            env.reset(seed=int(rng.integers(1 << 30)))
            states.append(game.state)
    return states, game.rules


GAMES = [("poolgym/NineBall-v1", 0), ("poolgym/NineBall-v1", 1), ("poolgym/EightBall-v1", 2),
         ("poolgym/TenBall-v1", 3), ("poolgym/StraightPool-v1", 4), ("poolgym/NineBallSolo-v1", 5)]


@pytest.mark.parametrize("env_id,seed", GAMES)
def test_kernel_equals_the_reference_on_played_states(env_id, seed):
    states, rules = played_states(env_id, seed, 250)
    seen = set()
    for i, state in enumerate(states):
        sigma = SIGMAS[i % len(SIGMAS)]
        old = assert_same_slots(state, rules, sigma)
        seen.update(s.kind for s in old if s is not None)
        seen.add(("zone", state.cue_ball_in_hand))
        seen.add(("pending", state.pending is not None))
        seen.add(("over", state.winner is not None or state.stalemate))
        if state.cue_ball_in_hand is CueBallZone.NONE and cand.shot_is_due(state):
            # The same layout with the cue ball in hand: every slot from its default placement.
            for zone in (CueBallZone.KITCHEN, CueBallZone.ANYWHERE):
                assert_same_slots(in_hand(state, zone), rules, sigma)
    assert {"pot", "safety", ("zone", CueBallZone.NONE), ("pending", False)} <= seen
    if env_id in ("poolgym/NineBall-v1", "poolgym/TenBall-v1"):
        assert "push_out" in seen
    if env_id in ("poolgym/NineBall-v1", "poolgym/EightBall-v1", "poolgym/TenBall-v1"):
        # A pending decision (a push out's answer, 8-ball's break options), a rack over,
        # the cue ball in hand in the kitchen and anywhere, all met in play.
        assert {("pending", True), ("over", True), ("zone", CueBallZone.KITCHEN),
                ("zone", CueBallZone.ANYWHERE)} <= seen


def test_kernel_equals_the_reference_in_pot_ball():
    env = gym.make("poolgym/PotBall-v1", action_mode="choice_discrete")
    game = env.unwrapped
    rng = np.random.default_rng(6)
    nvec = env.action_space.nvec
    for episode in range(60):
        env.reset(seed=episode)
        assert_same_slots(game.state, game.rules, SIGMAS[episode % len(SIGMAS)])
        parts = np.split(game.action_masks(), np.cumsum(nvec)[:-1])
        env.step(np.array([int(rng.choice(np.flatnonzero(p))) for p in parts]))
        assert_same_slots(game.state, game.rules, 0.35)


def open_state(game, balls, **kwargs):
    return GameState(game=game, balls=balls, awaiting_break=False,
                     **{"cue_ball_in_hand": CueBallZone.NONE, **kwargs})


def test_ties_in_the_ranking_fall_to_ball_then_pocket():
    L, W = TABLE.length, TABLE.width
    nine = get_ruleset("nine_ball", table=TABLE)
    # On the long axis, mirror images: each pocket's pot ties its mirror in chance and
    # difficulty, and the pocket row decides.
    state = open_state("nine_ball", {0: (0.5, W / 2), 1: (1.6, W / 2), 9: (2.2, W / 2)})
    slots = assert_same_slots(state, nine, 0.35)
    pots = [s for s in slots if s is not None and s.kind == "pot"]
    keys = [(s.make_probability, s.cut_deg) for s in pots]
    assert any(keys[i] == keys[i + 1] for i in range(len(keys) - 1))
    # 14.1: two balls mirrored across the long axis tie pot for pot (the ball number
    # decides); the safeties tie in distance (the lower number first).
    straight = get_ruleset("straight_pool", table=TABLE)
    state = open_state("straight_pool", {0: (0.6, W / 2), 3: (1.5, W / 2 - 0.2), 7: (1.5, W / 2 + 0.2),
                                         12: (L - 0.3, W / 2)})
    slots = assert_same_slots(state, straight, 0.0)
    safeties = [s.ball for s in slots[cand.N_POT_SLOTS:cand.PUSH_OUT_SLOT] if s is not None]
    assert safeties[:2] == [3, 7]
    # Every pot blocked: all chances 0 (their key -0.0), ranked by difficulty alone.
    wall = {0: (0.4, 0.3)}
    wall.update({n: (0.4 + 0.06 * math.cos(a), 0.3 + 0.06 * math.sin(a))
                 for n, a in zip(range(1, 9), np.linspace(0, 2 * math.pi, 8, endpoint=False))})
    state = open_state("nine_ball", {**wall, 9: (2.0, 0.8)})
    slots = assert_same_slots(state, nine, 0.35)
    assert all(s.make_probability == 0.0 for s in slots if s is not None)


def test_blocked_paths_and_balls_at_the_pockets():
    nine = get_ruleset("nine_ball", table=TABLE)
    aims = {p: TABLE.pocket_aim_rows[i][:2] for i, p in enumerate(POCKET_IDS)}
    fr = aims["foot_right"]
    cases = [
        # A ball between the cue ball and the ghost ball, one between the ball and the pocket.
        {0: (0.6, 0.4), 1: (1.6, 0.8), 9: (1.1, 0.6)},
        {0: (0.6, 0.4), 1: (fr[0] - 0.4, fr[1] - 0.4), 9: (fr[0] - 0.2, fr[1] - 0.2)},
        # The object ball on a pocket's aim point (the ghost-ball direction's fallback), in
        # the jaws of a side pocket (a steep approach), touching a cushion.
        {0: (0.6, 0.4), 1: fr, 9: (1.3, 0.6)},
        {0: (0.6, 0.4), 1: (aims["side_left"][0] + 0.02, aims["side_left"][1] - R * 1.2), 9: (2.0, 0.3)},
        {0: (0.6, 0.4), 1: (TABLE.length - R, 0.7), 9: (R, R + 0.3)},
        # The cue ball frozen to the object ball, and at a ball's distance from the ghost ball.
        {0: (1.0, 0.6), 1: (1.0 + 2 * R, 0.6), 9: (2.0, 1.0)},
    ]
    for balls in cases:
        state = open_state("nine_ball", balls)
        for sigma in SIGMAS:
            assert_same_slots(state, nine, sigma)
            for zone in (CueBallZone.KITCHEN, CueBallZone.ANYWHERE):
                assert_same_slots(in_hand(state, zone), nine, sigma)
    blocked = assert_same_slots(open_state("nine_ball", cases[0]), nine, 0.0)
    assert any(s.cue_blocked for s in blocked if s is not None)
    assert any(s.ball_blocked for s in assert_same_slots(open_state("nine_ball", cases[1]), nine, 0.0)
               if s is not None)


def test_in_hand_placements_slide_off_balls_and_calls_without_a_legal_ball():
    # Balls crowd the default placements (the slide across the table), in the kitchen and anywhere.
    nine = get_ruleset("nine_ball", table=TABLE)
    W = TABLE.width
    crowd = {1: (1.5, W / 2), 9: (2.2, 0.3)}
    crowd.update({n: (1.5 - 0.36 - 2 * R * k, W / 2 + (k - 1) * 0.03) for k, n in enumerate((2, 3, 4))})
    for zone in (CueBallZone.KITCHEN, CueBallZone.ANYWHERE):
        for sigma in SIGMAS:
            assert_same_slots(open_state("nine_ball", crowd, cue_ball_in_hand=zone), nine, sigma)
    # 8-ball with groups: the calls are on the group's balls; 14.1 on its break offers the
    # no-call shot beside the calls; 10-ball a push out beside called pots.
    eight = get_ruleset("eight_ball", table=TABLE)
    balls = {0: (0.5, 0.5), 2: (1.4, 0.3), 5: (1.9, 0.9), 8: (2.1, 0.6), 11: (1.2, 1.0), 14: (0.9, 0.2)}
    for groups in (None, ("solids", "stripes"), ("stripes", "solids")):
        assert_same_slots(open_state("eight_ball", balls, groups=groups), eight, 0.35)
    straight = get_ruleset("straight_pool", table=TABLE)
    assert_same_slots(GameState(game="straight_pool", balls={n: p for n, p in balls.items() if n}), straight, 0.35)
    ten = get_ruleset("ten_ball", table=TABLE)
    state = open_state("ten_ball", {0: (0.6, 0.6), 1: (1.8, 0.4), 2: (2.0, 1.0), 10: (1.2, 0.9)},
                       push_out_available=True)
    slots = assert_same_slots(state, ten, 0.0)
    assert slots[cand.PUSH_OUT_SLOT] is not None and slots[cand.N_POT_SLOTS].call.safety


def test_the_slots_of_a_state_are_made_once_and_read_only():
    nine = get_ruleset("nine_ball", table=TABLE)
    slots = cand.candidate_slots(open_state("nine_ball", {0: (0.6, 0.4), 1: (1.6, 0.8), 9: (2.0, 0.3)}), nine, 0.35)
    assert slots[0] is slots[0] and slots[-1] is slots[cand.N_SLOTS - 1] and slots[:2] == (slots[0], slots[1])
    with pytest.raises(IndexError):
        slots[cand.N_SLOTS]
    with pytest.raises(ValueError):
        slots.features[0] = 0.5
    # What the observation is given is its own copy.
    features = cand.slot_features(slots)
    features[:] = 0.0
    assert cand.slot_features(slots)[0] == 1.0
    assert cand.candidate_slots(replace(open_state("nine_ball", {0: (0.6, 0.4), 9: (2.0, 0.3)}), winner=0),
                                nine, 0.35) is cand.NO_SLOTS
