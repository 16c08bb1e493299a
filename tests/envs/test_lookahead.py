"""The choice modes' lookahead features (``poolgym.envs.lookahead``): checked against direct
simulation of the strokes they describe, against what a straight-in follow and draw shot
must do, and through the env and its model record."""

import math

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401  (registers the ids)
from poolgym.aiming import aim_point
from poolgym.envs import candidates as cand
from poolgym.envs import lookahead as la
from poolgym.envs.choice import ChoiceMapper
from poolgym.envs.pool_env import PoolEnv
from poolgym.envs.sb3_models import check_env_matches, env_side, record_observation_space
from poolgym.physics import Simulator
from poolgym.rules import CueBallZone, GameState, ShotEvents, get_ruleset

MADE, SCRATCH, FOUL, CUE_X, CUE_Y, NEXT, OPPONENT = range(la.N_FEATURES)


def straight_in(distance: float = 0.6, ball_from_pocket: float = 0.3) -> tuple[GameState, object]:
    """A 9-ball position: the 1 straight in to the foot-right corner, ``ball_from_pocket``
    from the pocket's aim point, the cue ball ``distance`` behind it on the same line; the
    9 out of the way."""
    rules = get_ruleset("nine_ball")
    table = rules.table
    target = aim_point(table, "foot_right")
    back = math.atan2(table.width / 2 - target[1], table.length / 2 - target[0])
    ball = (target[0] + ball_from_pocket * math.cos(back), target[1] + ball_from_pocket * math.sin(back))
    cue = (ball[0] + distance * math.cos(back), ball[1] + distance * math.sin(back))
    state = GameState(game="nine_ball", balls={0: cue, 1: ball, 9: (0.4, 0.2)}, awaiting_break=False,
                      cue_ball_in_hand=CueBallZone.NONE)
    return state, rules


def features(state, rules, simulator, mapper, samples=2) -> np.ndarray:
    return la.lookahead_features(state, rules, simulator, mapper, samples).reshape(
        la.LOOKAHEAD_SLOTS, len(la.STROKES), la.N_FEATURES)


def slot_of(mapper, state, rules, ball, pocket) -> int:
    slots = mapper.slots(state, rules)
    return next(i for i, s in enumerate(slots) if s is not None and (s.ball, s.pocket) == (ball, pocket))


@pytest.mark.parametrize("mode", ["choice_discrete", "choice"])
def test_features_equal_direct_simulation_of_each_stroke(mode):
    """Each (slot, stroke) entry is what playing that stroke's action gives, shot by shot
    with ``Simulator.simulate`` and the rules, the noise drawn as the module says."""
    state, rules = straight_in()
    simulator = Simulator(rules.table, noise="tournament")
    mapper = ChoiceMapper(rules.table, mode, max_speed=12.0, sigma_deg=simulator.noise.angle_deg)
    got = features(state, rules, simulator, mapper, samples=3)
    slots = mapper.slots(state, rules)
    checked = 0
    for i, slot in enumerate(slots[:la.LOOKAHEAD_SLOTS]):
        if slot is None or slot.kind != "pot":
            assert not got[i].any()
            continue
        for j, stroke in enumerate(la.STROKES):
            move = mapper.decode(la.stroke_action(mapper, i, stroke), state, rules)
            rng = np.random.default_rng(la.noise_seed(state, 0))
            made = scratch = foul = next_make = opponent_make = 0.0
            stops = []
            for _ in range(3):
                result = simulator.simulate(state.positions, move.shot, rng=rng)
                events = ShotEvents.from_log(result.events, rules.table, final_positions=result.positions,
                                             options=rules.options)
                after, outcome = rules.apply_shot(state, move.call, events)
                if 0 in result.positions:
                    stops.append((result.positions[0][0] / rules.table.length,
                                  result.positions[0][1] / rules.table.width))
                else:
                    scratch += 1
                foul += bool(outcome.fouls)
                if outcome.rack_over:
                    won = outcome.winner == state.shooter
                    made, next_make = made + won, next_make + won
                    continue
                best = cand.best_make_probability(cand.candidate_slots(after, rules, mapper.sigma_deg))
                if outcome.turn_kept:
                    made, next_make = made + 1, next_make + best
                else:
                    opponent_make += best
            cue = np.mean(stops, axis=0) if stops else (0.0, 0.0)
            expected = np.array([made / 3, scratch / 3, foul / 3, cue[0], cue[1], next_make / 3,
                                 opponent_make / 3], dtype=np.float32)
            np.testing.assert_allclose(got[i, j], expected, rtol=0, atol=1e-6)
            checked += 1
    assert checked >= len(la.STROKES)


def test_follow_scratches_and_draw_comes_back_on_a_straight_in_pot():
    """Straight in, without noise: the cue ball follows the object ball into the pocket
    with follow and any speed that reaches it rolling, stops short with a firm draw (it
    comes back along the line, away from the pocket), and every stroke pots the 1."""
    state, rules = straight_in(distance=0.4, ball_from_pocket=0.25)
    simulator = Simulator(rules.table)
    mapper = ChoiceMapper(rules.table, "choice_discrete", max_speed=12.0)
    slot = slot_of(mapper, state, rules, 1, "foot_right")
    row = features(state, rules, simulator, mapper)[slot]
    strokes = {s: j for j, s in enumerate(la.STROKES)}
    follow, draw = row[strokes[(3, 4)]], row[strokes[(3, 0)]]
    assert follow[MADE] == 0.0 and follow[SCRATCH] == 1.0 and follow[FOUL] == 1.0
    assert draw[MADE] == 1.0 and draw[SCRATCH] == 0.0 and draw[FOUL] == 0.0
    # Drawn back: the cue ball ends farther from the pocket than the object ball was.
    target = aim_point(rules.table, "foot_right")
    stop = (draw[CUE_X] * rules.table.length, draw[CUE_Y] * rules.table.width)
    assert math.dist(stop, target) > math.dist(state.position(1), target) + rules.table.ball_radius
    # The 1 made and the 9 left: the next shot's chance is the 9's best pot from there.
    after = GameState(game="nine_ball", balls={0: stop, 9: state.position(9)}, awaiting_break=False,
                      cue_ball_in_hand=CueBallZone.NONE)
    assert draw[NEXT] == pytest.approx(cand.best_pot_chance(after, rules, 0.0), abs=0.05)
    assert (row[:, [MADE, SCRATCH, FOUL, CUE_X, CUE_Y, NEXT, OPPONENT]] >= 0).all()


def test_features_are_a_function_of_the_position_alone():
    """The same position gives the same features whatever the env's generator did before;
    another position other features; the best pot chance matches the slots' own."""
    state, rules = straight_in()
    simulator = Simulator(rules.table, noise="tournament")
    mapper = ChoiceMapper(rules.table, "choice_discrete", max_speed=12.0, sigma_deg=simulator.noise.angle_deg)
    first = la.lookahead_features(state, rules, simulator, mapper)
    np.random.default_rng(1).random(100)
    assert np.array_equal(first, la.lookahead_features(state, rules, simulator, mapper))
    moved, _ = straight_in(distance=0.9)
    assert not np.array_equal(first, la.lookahead_features(moved, rules, simulator, mapper))
    slots = cand.candidate_slots(state, rules, mapper.sigma_deg)
    assert cand.best_pot_chance(state, rules, mapper.sigma_deg) == cand.best_make_probability(slots)


def test_the_env_observes_lookahead_and_its_model_record_says_so():
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", obs_mode="flat", lookahead=True)
    dict_env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", lookahead=True)
    obs, _ = env.reset(seed=5)
    dict_obs, _ = dict_env.reset(seed=5)
    assert env.observation_space.contains(obs) and dict_env.observation_space.contains(dict_obs)
    np.testing.assert_array_equal(obs, gym.spaces.flatten(dict_env.observation_space, dict_obs))
    u = dict_env.unwrapped
    np.testing.assert_array_equal(dict_obs["lookahead"], la.lookahead_features(
        u.state, u.rules, u.simulator, u.mapper, u.lookahead_samples))
    for _ in range(4):
        masks = u.action_masks()
        action = np.array([int(np.flatnonzero(masks[:cand.N_SLOTS])[0]), 5, 2, 2, 2, 2, 3, 0])
        dict_obs, _, done, _, _ = dict_env.step(action)
        assert dict_env.observation_space.contains(dict_obs)
        if done:
            break
    record = env_side(env)
    assert record["lookahead"] is True and record["lookahead_samples"] == la.DEFAULT_SAMPLES
    assert record_observation_space(record) == env.observation_space
    plain = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", obs_mode="flat")
    with pytest.raises(ValueError, match="lookahead: model True, env False"):
        check_env_matches(record, plain)
    # A record written before the option reads as without it.
    old = {k: v for k, v in env_side(plain).items() if k not in ("lookahead", "lookahead_samples")}
    check_env_matches(old, plain)


@pytest.mark.parametrize("kwargs, message", [
    ({"action_mode": "aim", "lookahead": True}, "lookahead=True needs a choice action mode"),
    ({"action_mode": "choice_discrete", "lookahead": 1}, "lookahead must be True or False"),
    ({"action_mode": "choice_discrete", "lookahead": True, "lookahead_samples": 0},
     r"lookahead_samples must be a whole number of plays in 1\.\.64, got 0"),
    ({"action_mode": "choice_discrete", "lookahead": True, "lookahead_samples": 2.5},
     "lookahead_samples must be a whole number"),
])
def test_bad_lookahead_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PoolEnv(**kwargs)


def test_no_features_on_a_break():
    rules = get_ruleset("nine_ball")
    simulator = Simulator(rules.table, noise="tournament")
    mapper = ChoiceMapper(rules.table, "choice_discrete", max_speed=12.0, sigma_deg=simulator.noise.angle_deg)
    state = rules.new_game(np.random.default_rng(0))
    assert state.awaiting_break
    assert mapper.slots(state, rules)[0] is not None  # the break is played from a pot slot
    assert not la.lookahead_features(state, rules, simulator, mapper).any()


def test_a_model_record_with_a_bad_lookahead_is_refused():
    from poolgym.envs.sb3_models import check_record, env_record

    env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", obs_mode="flat", lookahead=True)
    record = env_record(env, "poolgym/NineBall-v1", {"action_mode": "choice_discrete", "lookahead": True})
    check_record(record, "m.zip")
    with pytest.raises(ValueError, match=r"m.zip: poolgym_env.json: lookahead_samples must be a whole number"):
        check_record({**record, "lookahead_samples": 0}, "m.zip")
    with pytest.raises(ValueError, match="field 'lookahead' must be bool"):
        check_record({**record, "lookahead": "yes"}, "m.zip")
    with pytest.raises(ValueError, match="lookahead entry belongs to the choice action modes"):
        check_record({**record, "action_mode": "aim"}, "m.zip")


def test_the_next_shots_chance_is_the_pot_rows_to_the_last_bit():
    """``candidates.best_pot_chance`` from where the cue ball lies (one compiled call) is the
    best of the pot rows' chances (``_pot_rows``, the slots' geometry) on played positions of
    every game, under the tournament's aim noise and none."""
    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.aiming import chance_within
    from poolgym.physics import pot_geometry

    checked = 0
    for game in ("nine_ball", "eight_ball", "ten_ball", "straight_pool"):
        rules = get_ruleset(game)
        agents = [make_agent("bot:weak", rules, seed=1, noise="tournament"), make_agent("legal-random", rules, seed=2)]
        for rack in run_match(rules, agents, ("a", "b"), 3, seed=3, noise="tournament").racks:
            for move in rack.moves:
                state = move.state
                if not cand.shot_is_due(state) or state.cue_ball_in_hand is not CueBallZone.NONE:
                    continue
                pairs = cand._pot_pairs(rules.call_options(state), cand._first_balls(state, rules.legal_targets(state)))
                for sigma in (0.125, 0.0):
                    rows = cand._pot_rows(state, rules.table, pairs) if pairs else []
                    expected = max((chance_within(r[pot_geometry.TOLERANCE], sigma) for r in rows), default=0.0)
                    assert cand.best_pot_chance(state, rules, sigma) == expected
                checked += 1
    assert checked > 100


def _all_by_the_rules(monkeypatch):
    """Every stroke through ``_summary`` (the rules' ``apply_shot`` play by play): no
    placement is judged in bulk."""
    monkeypatch.setattr(la, "bulk_layout", lambda *args: None)


def _judged_in_bulk(state, rules, simulator, mapper, slot) -> bool:
    """Whether ``slot``'s strokes from ``state`` are played and judged in bulk."""
    move = mapper.play(slot, la.stroke_parameters(mapper, la.STROKES[0]), state)
    return la.bulk_layout(simulator, rules, state, move.call, move.placement, False) is not None


@pytest.mark.parametrize("game", ["nine_ball", "ten_ball"])
def test_compiled_plays_give_the_rules_features_to_the_last_bit(game, monkeypatch):
    """Nine-ball's strokes are played and judged in bulk (``poolgym.physics.strikes``,
    ``Simulator.simulate_facts``, ``NineBall.plain_verdicts``, ``pot_geometry.chances_after``,
    ``poolgym.physics.stroke_summary``): on played positions, the cue ball in hand or not, a
    third foul pending, the same features as the rules give play by play. Ten-ball (its own
    calls) always goes through the rules."""
    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_agent

    rules = get_ruleset(game)
    simulator = Simulator(rules.table, noise="tournament")
    mapper = ChoiceMapper(rules.table, "choice_discrete", max_speed=12.0, sigma_deg=simulator.noise.angle_deg)
    agents = [make_agent("bot:weak", rules, seed=1, noise="tournament"), make_agent("legal-random", rules, seed=2)]
    states = [move.state for rack in run_match(rules, agents, ("a", "b"), 4, seed=5, noise="tournament").racks
              for move in rack.moves if cand.shot_is_due(move.state) and not move.state.awaiting_break]
    states = states[:40]
    states.append(states[0].evolve(consecutive_fouls=(2, 2), warned_on_two_fouls=(True, True)))
    compiled = [la.lookahead_features(s, rules, simulator, mapper, samples=4) for s in states]
    bulk = sum(_judged_in_bulk(s, rules, simulator, mapper, slot)
               for s in states for slot in mapper.slots(s, rules)[:1] if slot is not None and slot.kind == "pot")
    _all_by_the_rules(monkeypatch)
    for state, got in zip(states, compiled):
        assert np.array_equal(got, la.lookahead_features(state, rules, simulator, mapper, samples=4))
    in_hand = sum(s.cue_ball_in_hand is not CueBallZone.NONE for s in states)
    assert in_hand >= 3 and len(states) >= 30
    if game == "nine_ball":
        assert bulk >= 25
        assert np.asarray(compiled)[-1].reshape(la.LOOKAHEAD_SLOTS, len(la.STROKES), -1)[..., FOUL].any()
    else:
        assert bulk == 0


def _env_states(seeds, steps: int, **kwargs) -> list:
    """The states a NineBall-v1 choice_discrete env meets under masked-random play."""
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", **kwargs)
    u, states = env.unwrapped, []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        for _ in range(steps):
            states.append(u.state)
            parts = np.split(u.action_masks(), np.cumsum(env.action_space.nvec)[:-1])
            _, _, done, cut, _ = env.step(np.array([int(rng.choice(np.flatnonzero(p))) for p in parts]))
            if done or cut:
                env.reset()
    return [s for s in states if cand.shot_is_due(s) and not s.awaiting_break]


def _few_balls(state, keep: int):
    """``state`` with only its ``keep`` highest object balls (the money ball among them) left."""
    positions = state.positions
    objects = sorted(b for b in positions if b != 0)
    return state.evolve(balls={b: p for b, p in positions.items() if b == 0 or b in objects[-keep:]})


@pytest.mark.parametrize("noise, samples", [("tournament", 2), ("tournament", 5), ("fastfiz", 3), ("none", 2)])
def test_lookahead_equals_the_rules_on_masked_random_play(noise, samples, monkeypatch):
    """The features of the states masked-random play meets in NineBall-v1 (over seeds; the
    cue ball in hand after its fouls), of the same states with two or three balls left, and
    of a money ball hanging in the jaws (fouls that sink it spot it: the rules' own
    judgement), under noise with and without the elevation's draw and none, are the rules'
    play-by-play features to the last bit; the plays the rules must judge themselves are
    met, played again alone and handed to them."""
    rules = get_ruleset("nine_ball")
    simulator = Simulator(rules.table, noise=noise)
    mapper = ChoiceMapper(rules.table, "choice_discrete", max_speed=12.0, sigma_deg=simulator.noise.angle_deg)
    played = _env_states([301, 302, 303], 25)
    states = played + [_few_balls(s, keep) for s, keep in zip(played[::4], [2, 3] * 50)]
    # The 9 at the foot-right jaw, the 1 to play: a scratch or a wrong first ball that
    # drops it has it spotted (WPA 2.6).
    hanging = GameState(game="nine_ball", balls={0: (1.2, 1.0), 1: (1.9, 0.9), 9: (2.45, 0.07)},
                        awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE)
    states += [hanging, hanging.evolve(cue_ball_in_hand=CueBallZone.ANYWHERE, balls={1: (1.9, 0.9), 9: (2.45, 0.07)})]
    ruled = []
    original = la.shot_events
    monkeypatch.setattr(la, "shot_events", lambda *args: ruled.append(args[2]) or original(*args))
    compiled = [la.lookahead_features(s, rules, simulator, mapper, samples=samples, seed=4) for s in states]
    met_in_bulk_then_ruled = len(ruled)
    _all_by_the_rules(monkeypatch)
    for state, got in zip(states, compiled):
        assert got.tobytes() == la.lookahead_features(state, rules, simulator, mapper, samples=samples,
                                                      seed=4).tobytes()
    assert sum(s.cue_ball_in_hand is not CueBallZone.NONE for s in states) >= 5
    assert sum(len(s.balls) <= 4 for s in states) >= 10
    assert np.asarray(compiled).any()
    if noise != "none":
        assert met_in_bulk_then_ruled >= 1


def test_each_slots_strokes_are_the_mappers_plays(monkeypatch):
    """The shots the lookahead strikes for a slot are ``ChoiceMapper.play``'s of each stroke's
    parameters (``stroke_parameters``), in both modes and with the elevation parameter, the
    cue ball in hand or not."""
    from poolgym.physics import strikes

    rules = get_ruleset("nine_ball")
    simulator = Simulator(rules.table, noise="none")
    states = _env_states([41], 30)
    struck = []
    original = strikes.strike_rows
    monkeypatch.setattr(la, "strike_rows", lambda sim, shots, draws: struck.append(shots.copy()) or original(
        sim, shots, draws))
    checked = 0
    for mode, elevation in (("choice_discrete", False), ("choice", False), ("choice_discrete", True)):
        mapper = ChoiceMapper(rules.table, mode, max_speed=12.0, elevation=elevation)
        for state in states:
            struck.clear()
            la.lookahead_features(state, rules, simulator, mapper)
            pots = [s for s in mapper.slots(state, rules)[:la.LOOKAHEAD_SLOTS] if s is not None and s.kind == "pot"]
            expected = [mapper.play(slot, la.stroke_parameters(mapper, stroke), state).shot
                        for slot in pots for stroke in la.STROKES]
            rows = np.array([(s.speed, s.angle_deg, s.side, s.vertical, s.elevation_deg) for s in expected])
            assert len(struck) == 1 and struck[0].tobytes() == rows.tobytes()
            checked += 1
    assert checked >= 60


def _interpreted_features(tallies, length, width) -> np.ndarray:
    """The per-stroke means as the interpreted tally computed them: each play's (simulated,
    cue-ball stop or None, fouled, won: 1 or 0 where the rack ended else None, turn kept,
    the next shot's best chance), summed play by play, the stops averaged by NumPy."""
    made = scratch = foul = next_make = opponent_make = 0.0
    stops = []
    for simulated, stop, fouled, won, kept, best in tallies:
        if simulated:
            if stop is not None:
                stops.append((stop[0] / length, stop[1] / width))
            else:
                scratch += 1.0
        foul += float(fouled)
        if won is not None:
            made, next_make = made + won, next_make + won
        elif kept:
            made, next_make = made + 1.0, next_make + best
        else:
            opponent_make += best
    n = float(len(tallies))
    cue = np.mean(stops, axis=0) if stops else (0.0, 0.0)
    return np.clip([made / n, scratch / n, foul / n, cue[0], cue[1], next_make / n, opponent_make / n], 0.0, 1.0)


def test_stroke_features_are_the_interpreted_means_in_double_precision():
    """``stroke_summary.stroke_features`` against the interpreted tally, before the
    observation's float32 rounding (which would hide a last-bit difference in float64):
    random plays, every count of plays up to ``MAX_SAMPLES``."""
    from poolgym.physics.stroke_summary import stroke_features

    rng = np.random.default_rng(17)
    length, width = 2.54, 1.27
    for plays in range(1, la.MAX_SAMPLES + 1):
        blocks = 5
        size = blocks * plays
        simulated, on, foul, ended, kept = (rng.random(size) < q for q in (0.95, 0.8, 0.3, 0.1, 0.5))
        x, y = rng.uniform(0.03, length - 0.03, size), rng.uniform(0.03, width - 0.03, size)
        won, best = rng.integers(0, 2, size).astype(float), rng.random(size)
        got = stroke_features(simulated, on, x, y, foul, ended, won, kept, best, plays, length, width)
        for b in range(blocks):
            tallies = [(bool(simulated[p]), (float(x[p]), float(y[p])) if on[p] else None, bool(foul[p]),
                        float(won[p]) if ended[p] else None, bool(kept[p]), float(best[p]))
                       for p in range(b * plays, (b + 1) * plays)]
            assert got[b].tobytes() == _interpreted_features(tallies, length, width).tobytes()
