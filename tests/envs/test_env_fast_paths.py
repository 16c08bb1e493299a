"""The envs' fast paths give what the plain ones give: the flat observation written directly
equals ``gymnasium.spaces.flatten`` of the dict one, the per-state cache equals the rules'
fresh answers and holds one state, and the simulator's unchecked layout path is only taken
on layouts that pass the check and plays them the same."""

import numpy as np
import pytest
from gymnasium import spaces

from poolgym.aiming import pot_chance
from poolgym.envs import PoolEnv
from poolgym.envs.actions import ActionMapper
from poolgym.envs.choice import ChoiceMapper
from poolgym.envs.observations import flatten_observation, observation_space, observe_candidates, observe_game
from poolgym.envs.play import simulate_move
from poolgym.physics import Shot
from poolgym.rules import GameState

from .helpers import sample_offered

GAMES = ("nine_ball", "eight_ball", "ten_ball", "straight_pool")


def visited_states(game: str, seed: int, steps: int, action_mode: str = "raw"):
    """The states one env passes through with seeded random actions (both players' turns,
    decisions, racks won and lost, balls in hand), and the env."""
    env = PoolEnv(game=game, action_mode=action_mode, opponent="solo", noise="tournament",
                  rack_model="benchmark", race_to=3)
    env.action_space.seed(seed)
    env.reset(seed=seed)
    states = [env.state]
    for _ in range(steps):
        _, _, terminated, _, _ = env.step(env.action_space.sample())
        if terminated:
            env.reset()
        states.append(env.state)
    return env, states


@pytest.mark.parametrize("game", GAMES)
def test_flat_observation_equals_gymnasium_flatten_in_every_variant(game):
    env, states = visited_states(game, seed=11, steps=60)
    mapper = ChoiceMapper(env.table, "choice", sigma_deg=0.5)
    kinds = set()
    for i, state in enumerate(states):
        kinds.add((state.pending is not None, state.cue_ball_in_hand.value, state.winner is not None))
        for player in (0, 1):
            for match in (None, ((i % 3, (i // 3) % 3), 3)):
                for choice in (False, True):
                    obs = observe_game(state, env.rules, env.table, player, match=match)
                    if choice:
                        obs.update(observe_candidates(mapper.slots(state, env.rules)))
                    space = observation_space(match is not None, choice)
                    expected = spaces.flatten(space, obs).astype(np.float32)
                    flat = flatten_observation(obs)
                    assert flat.dtype == np.float32 and flat.shape == expected.shape
                    np.testing.assert_array_equal(flat, expected)
    # The states cover shots from a spot and from hand, and more than one kind of position.
    assert len(kinds) >= 2


@pytest.mark.parametrize("action_mode", ["aim", "raw", "choice", "choice_discrete"])
def test_flat_env_steps_match_the_dict_env_flattened(action_mode):
    kwargs = dict(game="nine_ball", action_mode=action_mode, noise="tournament", rack_model="benchmark",
                  observe_match=True, race_to=2, opponent="legal-random")
    flat_env, dict_env = PoolEnv(obs_mode="flat", **kwargs), PoolEnv(obs_mode="dict", **kwargs)
    flat_env.action_space.seed(5)
    if action_mode == "choice_discrete":  # the masks are the contract: sampled within them
        sample_offered(flat_env)
    flat_obs, _ = flat_env.reset(seed=5)
    dict_obs, _ = dict_env.reset(seed=5)
    for _ in range(40):
        np.testing.assert_array_equal(flat_obs, spaces.flatten(dict_env.observation_space, dict_obs)
                                      .astype(np.float32))
        assert flat_env.observation_space.contains(flat_obs)
        action = flat_env.action_space.sample()
        flat_obs, flat_reward, done, _, flat_info = flat_env.step(action)
        dict_obs, dict_reward, dict_done, _, dict_info = dict_env.step(action)
        assert (flat_reward, done) == (dict_reward, dict_done)
        assert flat_info == dict_info and flat_env.state == dict_env.state
        if done:
            flat_obs, _ = flat_env.reset()
            dict_obs, _ = dict_env.reset()


@pytest.mark.parametrize("game", GAMES)
def test_cached_moves_and_targets_equal_fresh_ones(game):
    """A mapper whose cache has followed the whole episode decodes every action as a fresh
    mapper does, and the cached legal targets and calls are the rules' own."""
    rng = np.random.default_rng(3)
    env, states = visited_states(game, seed=7, steps=50, action_mode="aim")
    kept = {"aim": ActionMapper(env.table, "aim"), "raw": ActionMapper(env.table, "raw"),
            "choice": ChoiceMapper(env.table, "choice", sigma_deg=0.5)}
    kept["raw"].derived = kept["aim"].derived  # shared, as the env shares it
    for state in states:
        if state.winner is not None or state.stalemate:
            continue
        derived = kept["aim"].derived
        assert derived.legal_targets(state, env.rules) == env.rules.legal_targets(state)
        assert derived.call_options(state, env.rules) == env.rules.call_options(state)
        for mode, mapper in kept.items():
            fresh = (ChoiceMapper(env.table, "choice", sigma_deg=0.5) if mode == "choice"
                     else ActionMapper(env.table, mode))
            for _ in range(3):
                action = mapper.validate(rng.uniform(-1, 1, mapper.space.shape))
                try:
                    expected = fresh.decode(action, state, env.rules)
                except ValueError as exc:  # no slot to play: both refuse alike
                    with pytest.raises(ValueError, match=str(exc)):
                        mapper.decode(action, state, env.rules)
                    continue
                assert mapper.decode(action, state, env.rules) == expected
            if mode == "choice":
                assert mapper.slots(state, env.rules) == fresh.slots(state, env.rules)


def test_the_env_cache_holds_the_current_state_only():
    env = PoolEnv(game="eight_ball", action_mode="choice", noise="tournament", opponent="legal-random")
    env.action_space.seed(2)
    env.reset(seed=2)
    derived = env.mapper.derived
    assert env.opponent_mapper.derived is derived
    for _ in range(3):  # across episodes too
        done = False
        while not done:
            _, _, done, _, _ = env.step(env.action_space.sample())
            if not done:
                assert derived._state is env.state
            assert len(derived._values) <= 4  # call options, legal targets, slots, aim candidates
        env.reset()


@pytest.mark.parametrize("game", GAMES)
def test_states_the_env_trusts_pass_the_layout_check_and_play_the_same(game):
    env, states = visited_states(game, seed=21, steps=60)
    sim = env.simulator
    shot = Shot(3.0, 37.0, 0.1, -0.2)
    for state in states[::6]:
        positions = state.positions
        if 0 not in positions:
            continue
        assert sim.validate_layout(positions) == positions  # nothing to convert or refuse
        expected = sim.simulate_many(positions, [shot, shot], rng=np.random.default_rng(1))
        got = sim.simulate_many_validated(positions, [shot, shot], rng=np.random.default_rng(1))
        assert [(r.positions, r.pocketed) for r in got] == [(r.positions, r.pocketed) for r in expected]


def test_a_state_set_from_outside_is_still_checked():
    env = PoolEnv(game="nine_ball", action_mode="raw", opponent="solo")
    env.reset(seed=0)
    env.state = GameState(game="nine_ball", balls={0: (1.0, 0.6), 1: (1.01, 0.6), 9: (2.0, 0.6)},
                          awaiting_break=False, cue_ball_in_hand="none")
    before = env.state
    with pytest.raises(ValueError, match="overlap"):
        env.step(np.zeros(env.action_space.shape, dtype=np.float32))
    assert env.state is before
    with pytest.raises(ValueError, match="overlap"):
        simulate_move(env.simulator, env.rules, before, env.mapper.decode(np.zeros(8), before, env.rules),
                      np.random.default_rng(0), False)


@pytest.mark.parametrize("game", ["nine_ball", "eight_ball"])
def test_pot_slots_make_probability_is_pot_chance(game):
    """The slots share one aim tolerance between the ranking and the feature; each equals
    ``pot_chance`` from the slot's cue ball at that noise."""
    env, states = visited_states(game, seed=4, steps=30)
    checked = 0
    for state in states:
        for sigma in (0.0, 0.4, 2.0):
            for slot in ChoiceMapper(env.table, "choice", sigma_deg=sigma).slots(state, env.rules):
                if slot is None or slot.kind != "pot":
                    continue
                others = {n: p for n, p in state.positions.items() if n not in (0, slot.ball)}
                assert slot.make_probability == pot_chance(env.table, slot.cue, state.position(slot.ball),
                                                           slot.pocket, others, sigma)
                checked += 1
    assert checked > 100


def test_step_infos_are_light_and_the_state_and_shot_are_read_from_the_env():
    """A step's info holds only ``INFO_KEYS``, plain values and ``Outcome`` records (no game
    state or shot result for vector envs to copy); the env keeps both."""
    import copy
    import pickle

    from poolgym.envs.pool_env import INFO_KEYS
    from poolgym.physics import ShotResult
    from poolgym.rules import GameState, Outcome

    env = PoolEnv("nine_ball", action_mode="choice_discrete", noise="tournament", opponent="legal-random",
                  breaker="agent")
    _, info = env.reset(seed=3)
    assert env.last_shot is None
    rng = np.random.default_rng(3)
    sizes = np.cumsum(env.action_space.nvec)[:-1]
    for _ in range(12):
        masks = np.split(env.action_masks(), sizes)
        action = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, done, _, info = env.step(action)
        assert set(info) == set(INFO_KEYS)
        assert all(isinstance(o, Outcome) for o in info["outcomes"])
        assert not any(isinstance(v, (GameState, ShotResult)) for v in info.values())
        assert copy.deepcopy(info) == info and len(pickle.dumps(info)) < 4096
        shot = env.last_shot
        assert isinstance(shot, ShotResult)
        # The last shot of the step left the balls where the state has them, unless it
        # ended the rack (or balls were spotted / the cue ball taken in hand).
        last = info["outcomes"][-1]
        if not done and not last.spotted and not last.pocketed and not last.driven_off:
            assert shot.positions.keys() == env.state.positions.keys()
        assert (info["winner"] in (0, 1)) == done and (info["to_act"] == -1) == done
        if done:
            break


@pytest.mark.parametrize("obs_mode", ["dict", "flat"])
def test_each_env_gets_its_own_observation_space(obs_mode):
    """Spaces are built once per combination and copied: equal, yet independent (seeding or
    sampling one leaves another alone)."""
    from poolgym.envs.observations import flat_observation_space, observation_space, observation_spaces

    first, second = observation_spaces(obs_mode, True, True), observation_spaces(obs_mode, True, True)
    built = observation_space(True, True) if obs_mode == "dict" else flat_observation_space(True, True)
    assert first == second == built and first is not second
    first.seed(1)
    second.seed(1)
    a = first.sample()
    third = observation_spaces(obs_mode, True, True)
    third.seed(2)
    third.sample()
    b = second.sample()
    assert spaces.flatten(built, a).tolist() == spaces.flatten(built, b).tolist()


def extra_states(game: str, state):
    """Positions a random run seldom reaches, made from ``state``: the cue ball in hand
    anywhere and in the kitchen, a push out pending and available, two and one object balls
    left, and a rack over."""
    from dataclasses import replace

    from poolgym.rules import Choice, CueBallZone, DecisionKind
    from poolgym.rules.decisions import PendingDecision

    cue_off = tuple(b for b in state.balls if b[0] != 0)
    few = tuple(b for b in state.balls if b[0] == 0) + tuple(b for b in state.balls if b[0] != 0)[-2:]
    return [replace(state, balls=cue_off, cue_ball_in_hand=CueBallZone.ANYWHERE, awaiting_break=False),
            replace(state, balls=cue_off, cue_ball_in_hand=CueBallZone.KITCHEN),
            replace(state, pending=PendingDecision(DecisionKind.PUSH_OUT_RESPONSE, 1 - state.shooter,
                                                   (Choice.ACCEPT_TABLE, Choice.PASS_BACK)), awaiting_break=False),
            replace(state, push_out_available=True, awaiting_break=False),
            replace(state, balls=few, awaiting_break=False),
            replace(state, balls=few[:1] + few[-1:], awaiting_break=False),
            replace(state, winner=state.shooter)]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [3, 17])
def test_flat_game_observation_equals_the_dict_observation_flattened(game, seed):
    """``flat_game_observation`` (the flat env's direct writer) gives exactly what
    ``gymnasium.spaces.flatten`` gives of ``observe_game`` with the slots' entries and the
    lookahead, for every player, match score and entry combination, on visited states and
    on the rarer positions of ``extra_states``."""
    from poolgym.envs.lookahead import SIZE as LOOKAHEAD_SIZE
    from poolgym.envs.observations import flat_game_observation

    env, states = visited_states(game, seed=seed, steps=50)
    states += [s for state in states[::10] for s in extra_states(game, state)]
    mapper = ChoiceMapper(env.table, "choice", sigma_deg=0.5)
    rng = np.random.default_rng(seed)
    seen = set()
    for i, state in enumerate(states):
        seen.add((state.pending is not None, state.cue_ball_in_hand.value, state.winner is not None,
                  state.push_out_available, len(state.object_balls_on_table) <= 2))
        slots = mapper.slots(state, env.rules)
        look = rng.random(LOOKAHEAD_SIZE).astype(np.float32)
        for player in (0, 1):
            for match in (None, ((i % 3, (i // 3) % 3), 3)):
                for choice, lookahead in ((False, False), (True, False), (True, True)):
                    obs = observe_game(state, env.rules, env.table, player, match=match)
                    if choice:
                        obs.update(observe_candidates(slots))
                    if lookahead:
                        obs["lookahead"] = look
                    space = observation_space(match is not None, choice, lookahead)
                    expected = spaces.flatten(space, obs).astype(np.float32)
                    flat = flat_game_observation(state, env.rules, env.table, player, match=match,
                                                 derived=mapper.derived if i % 2 else None,
                                                 slots=slots if choice else None, lookahead=look if lookahead else None)
                    assert flat.dtype == np.float32 and flat.shape == expected.shape
                    np.testing.assert_array_equal(flat, expected)
    assert {k[0] for k in seen} == {False, True} and {k[1] for k in seen} >= {"none", "anywhere", "kitchen"}
    assert {k[2] for k in seen} == {False, True} and {k[3] for k in seen} == {False, True} and True in {k[4] for k in seen}


def reference_action_masks(mapper, state, rules):
    """``choice_discrete``'s masks built the plain way: each dimension's array, concatenated."""
    slot = mapper.slots(state, rules).mask.astype(bool)
    if not slot.any():
        slot[0] = True
    params = np.ones(sum(mapper.param_bins.values()), dtype=bool)
    decision = np.zeros(len(mapper.nvec) and int(mapper.nvec[-1]), dtype=bool)
    if state.pending is not None:
        for c in state.pending.choices:
            decision[list(type(c)).index(c)] = True
    else:
        decision[0] = True
    return np.concatenate([slot, params, decision])


@pytest.mark.parametrize("game", GAMES)
def test_action_masks_equal_the_masks_built_per_dimension(game):
    env, states = visited_states(game, seed=23, steps=50)
    states += [s for state in states[::10] for s in extra_states(game, state)]
    for elevation in (False, True):
        mapper = ChoiceMapper(env.table, "choice_discrete", sigma_deg=0.5, elevation=elevation)
        for state in states:
            masks = mapper.action_masks(state, env.rules)
            assert masks.dtype == bool
            np.testing.assert_array_equal(masks, reference_action_masks(mapper, state, env.rules))
            # A fresh array each call: changing one leaves the next untouched.
            masks[:] = False
            assert mapper.action_masks(state, env.rules).any()


def test_flat_lookahead_env_steps_match_the_dict_env_flattened():
    """The flat env with the lookahead entry (written by ``flat_game_observation``) against
    the dict env flattened, step by step within the masks."""
    kwargs = dict(game="eight_ball", action_mode="choice_discrete", lookahead=True, observe_match=True, race_to=2,
                  noise="tournament", opponent="legal-random")
    flat_env, dict_env = PoolEnv(obs_mode="flat", **kwargs), PoolEnv(obs_mode="dict", **kwargs)
    sample_offered(flat_env)
    flat_env.action_space.seed(9)
    flat_obs, _ = flat_env.reset(seed=9)
    dict_obs, _ = dict_env.reset(seed=9)
    for _ in range(25):
        np.testing.assert_array_equal(flat_obs, spaces.flatten(dict_env.observation_space, dict_obs)
                                      .astype(np.float32))
        action = flat_env.action_space.sample()
        flat_obs, flat_reward, done, _, _ = flat_env.step(action)
        dict_obs, dict_reward, dict_done, _, _ = dict_env.step(action)
        assert (flat_reward, done) == (dict_reward, dict_done) and flat_env.state == dict_env.state
        if done:
            flat_obs, _ = flat_env.reset()
            dict_obs, _ = dict_env.reset()
