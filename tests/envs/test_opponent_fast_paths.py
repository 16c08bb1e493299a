"""The baseline opponents' fast paths give exactly what the plain computations give: the
same moves from the same draws (``uniform``), and the same action and staged move from an
agent's move (``ActionMapper.played``, ``PoolEnv.stage_opponent_move``), over thousands of
states of real play and hand-built edge cases."""

import math

import numpy as np
import pytest

from poolgym.envs import pool_env as pool_env_module
from poolgym.envs.actions import ActionMapper, ShotMove
from poolgym.envs.baseline_agents import (LEGAL_AIM_TRIES, REACH_FACTOR, LegalRandomAgent, RandomAgent,
                                          is_free_spot, reach_speed, uniform)
from poolgym.envs.pool_env import PoolEnv
from poolgym.physics import Shot
from poolgym.rules import CueBallZone, Decision, ShotCall, get_ruleset


def _plain_first_ball_hit(balls, reach, cue, angle_deg):
    radians = math.radians(angle_deg)
    dx, dy = math.cos(radians), math.sin(radians)
    cx, cy = cue
    reach2 = reach * reach
    best, best_t = None, math.inf
    for ball, x, y in balls:
        if ball == 0:
            continue
        along = (x - cx) * dx + (y - cy) * dy
        across2 = (x - cx) ** 2 + (y - cy) ** 2 - along * along
        if along <= 0 or across2 >= reach2:
            continue
        t = along - math.sqrt(reach2 - across2)
        if t < best_t:
            best, best_t = ball, t
    return best


class _PlainDraws:
    """The agents' moves as they were first written: every draw ``float(rng.uniform(...))``,
    each line tested against every ball afresh."""

    def choose(self, state):
        rng = self.rng
        if state.pending is not None:
            return RandomAgent.choose(self, state)
        calls = self.rules.call_options(state)
        call = calls[int(rng.integers(len(calls)))]
        spot = None if state.cue_ball_in_hand is CueBallZone.NONE else self.random_spot(state)
        angle, slowest = self.aim(state, spot if spot is not None else state.position(0))
        speed = float(rng.uniform(slowest, self.max_speed))
        side, vertical = float(rng.uniform(-0.5, 0.5)), float(rng.uniform(-0.5, 0.5))
        return ShotMove(call, spot, Shot(speed, angle, side, vertical))

    def random_spot(self, state):
        R = self.table.ball_radius
        x_high = (self.table.head_string_x - 1e-4 if state.cue_ball_in_hand is CueBallZone.KITCHEN
                  else self.table.length - R)
        for _ in range(200):
            spot = (float(self.rng.uniform(R, x_high)), float(self.rng.uniform(R, self.table.width - R)))
            if is_free_spot(self.table, state, spot):
                return spot
        return (R + 0.1, self.table.width / 2.0)


class _PlainRandom(_PlainDraws, RandomAgent):
    def aim(self, state, cue):
        return float(self.rng.uniform(-180.0, 180.0)), 0.3


class _PlainLegalRandom(_PlainDraws, LegalRandomAgent):
    def aim(self, state, cue):
        on_table = state.object_balls_on_table
        targets = sorted([b for b in self.rules.legal_targets(state) if b in on_table]) or sorted(on_table)
        if not targets:
            return _PlainRandom.aim(self, state, cue)
        reach = 2 * self.table.ball_radius
        positions = state.positions
        for _ in range(LEGAL_AIM_TRIES):
            ball = targets[int(self.rng.integers(len(targets)))]
            bx, by = positions[ball]
            d = math.hypot(bx - cue[0], by - cue[1])
            centre = math.degrees(math.atan2(by - cue[1], bx - cue[0]))
            half = math.degrees(math.asin(min(1.0, reach / max(d, 1e-9))))
            angle = centre + float(self.rng.uniform(-0.98 * half, 0.98 * half))
            if _plain_first_ball_hit(state.balls, reach, cue, angle) == ball:
                break
        return angle, min(reach_speed(REACH_FACTOR * d), self.max_speed)


GAMES = ("nine_ball", "eight_ball", "ten_ball", "straight_pool")


def _played_states(game, opponent, seed, count):
    """(state, the opponent generator's state) before each of ``count`` opponent moves of
    real play: masked random agent actions against ``opponent``."""
    env = PoolEnv(game=game, opponent=opponent, action_mode="choice_discrete")
    seen = []
    agent = env.opponent
    choose = agent.choose

    def recording(state):
        seen.append((state, agent.rng.bit_generator.state))
        return choose(state)

    agent.choose = recording
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    nvec = env.action_space.nvec
    while len(seen) < count:
        parts = np.split(env.action_masks(), np.cumsum(nvec)[:-1])
        action = [int(rng.choice(np.flatnonzero(p))) if p.any() else 0 for p in parts]
        if any(env.step(np.array(action))[2:4]):
            env.reset()
    return env, seen[:count]


def _same(a, b):
    """Equal, and equal in every field's type (a repr shows ``np.float64`` and ``float`` apart)."""
    return a == b and repr(a) == repr(b)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("name", ["legal-random", "random"])
def test_moves_match_the_plain_draws_over_real_play(game, name):
    env, seen = _played_states(game, name, seed=len(game), count=400)
    plain = (_PlainLegalRandom if name == "legal-random" else _PlainRandom)(env.rules, max_speed=env.opponent.max_speed)
    fast = type(env.opponent)(env.rules, max_speed=env.opponent.max_speed)
    in_hand = 0
    for state, rng_state in seen:
        plain.rng.bit_generator.state = rng_state
        fast.rng.bit_generator.state = rng_state
        assert _same(fast.choose(state), plain.choose(state))
        assert fast.rng.bit_generator.state == plain.rng.bit_generator.state
        in_hand += state.cue_ball_in_hand is not CueBallZone.NONE
    assert in_hand > 20  # the placements were exercised


@pytest.mark.parametrize("game", GAMES)
def test_played_matches_encode_validate_decode_over_real_play(game):
    env, seen = _played_states(game, "legal-random", seed=7 + len(game), count=400)
    mapper, rules = env.opponent_mapper, env.rules
    agent = LegalRandomAgent(rules, max_speed=env.opponent.max_speed)
    for state, rng_state in seen:
        agent.rng.bit_generator.state = rng_state
        move = agent.choose(state)
        action, played = mapper.played(move, state, rules)
        want = mapper.encode(move, state, rules)
        assert action.dtype == want.dtype and action.tobytes() == want.tobytes()
        assert _same(played, mapper.decode(mapper.validate(want), state, rules))


def _mappers(table):
    return [ActionMapper(table, "raw", max_speed=12.0), ActionMapper(table, "raw", elevation=True),
            ActionMapper(table, "raw", max_tip_offset=0.0), ActionMapper(table, "aim", max_speed=12.0)]


def _outcome(fn):
    try:
        return fn()
    except ValueError as exc:
        return f"ValueError: {exc}"


def _played_as_the_round_trip(mapper, move, state, rules) -> None:
    """``mapper.played`` gives what ``encode``, ``validate`` and ``decode`` give, or fails
    with the same error."""
    got = _outcome(lambda: mapper.played(move, state, rules))
    want = _outcome(lambda: (lambda a: (a, mapper.decode(mapper.validate(a), state, rules)))(
        mapper.encode(move, state, rules)))
    if isinstance(want, str):
        assert got == want
    else:
        assert got[0].tobytes() == want[0].tobytes() and _same(got[1], want[1])


def test_played_matches_on_edge_cases():
    """Decisions, clipped and refused strokes, placements out of the zone, a cue ball
    placed when none is in hand, elevated strokes, calls the rules do not allow: each
    mapping gives what encode, validate and decode give, errors included."""
    rules = get_ruleset("nine_ball")
    table = rules.table
    env = PoolEnv(game="nine_ball", opponent="solo")
    env.reset(seed=3)
    open_table = env.state
    in_hand = open_table.evolve(cue_ball_in_hand=CueBallZone.ANYWHERE,
                                balls=tuple(b for b in open_table.balls if b[0] != 0))
    kitchen = open_table.evolve(cue_ball_in_hand=CueBallZone.KITCHEN,
                                balls=tuple(b for b in open_table.balls if b[0] != 0))
    call = rules.call_options(open_table)[0]
    strokes = [Shot(3.0, 45.0, 0.1, -0.2), Shot(11.5, -179.99, 0.5, 0.5), Shot(40.0, 190.0, 0.9, -0.9),
               Shot(0.3, 180.0), Shot(math.nan, 10.0), Shot(2.0, math.inf), Shot(2.0, 10.0, elevation_deg=30.0),
               Shot(np.float32(2.5), np.float32(33.3), np.float32(0.1)), Shot(2, 90)]
    placements = [None, (0.5, 0.6), (table.length + 1.0, -2.0), (table.head_string_x + 0.3, 0.4)]
    calls = [call, ShotCall(ball=9, pocket="foot_left"), ShotCall.safety_shot()]
    checked = 0
    for mapper in _mappers(table):
        for state in (open_table, in_hand, kitchen):
            for stroke in strokes:
                for placement in placements:
                    for shot_call in calls:
                        _played_as_the_round_trip(mapper, ShotMove(shot_call, placement, stroke), state, rules)
                        checked += 1
    # Pending decisions of real play: each choice, and a shot given instead.
    pending = [state for game in ("nine_ball", "ten_ball")
               for state, _ in _played_states(game, "legal-random", seed=1, count=600)[1] if state.pending is not None]
    assert pending
    mapper = ActionMapper(table, "raw")
    for state in pending:
        moves = [Decision(choice, player=state.pending.player) for choice in state.pending.choices]
        for move in moves + [ShotMove(call, None, Shot(2.0, 10.0))]:
            _played_as_the_round_trip(mapper, move, state, rules)
    assert checked > 1000


def test_uniform_is_the_generators_uniform():
    """The same numbers and generator states as ``float(rng.uniform(low, high))`` over many
    ranges of many sizes; a range NumPy refuses is refused alike."""
    ranges = np.random.default_rng(5)
    for seed in range(40):
        fast, plain = np.random.default_rng(seed), np.random.default_rng(seed)
        lows = ranges.uniform(-200, 200, 500) * 10.0 ** ranges.integers(-6, 3, 500)
        spans = ranges.uniform(0, 50, 500) * 10.0 ** ranges.integers(-6, 3, 500)
        for low, span in zip(lows.tolist(), spans.tolist()):
            got, want = uniform(fast, low, low + span), float(plain.uniform(low, low + span))
            assert got == want and math.copysign(1, got) == math.copysign(1, want)
            if seed % 8 == 0:  # interleaved with the integer draws the agents make
                assert int(fast.integers(9)) == int(plain.integers(9))
        assert uniform(fast, 0.0, 0.0) == float(plain.uniform(0.0, 0.0))
        assert fast.bit_generator.state == plain.bit_generator.state
    for low, high in ((1.0, 0.5), (0.0, math.inf), (-math.inf, 0.0), (math.nan, 1.0)):
        fast, plain = np.random.default_rng(0), np.random.default_rng(0)
        with pytest.raises(Exception) as got:
            uniform(fast, low, high)
        with pytest.raises(Exception) as want:
            plain.uniform(low, high)
        assert (type(got.value), str(got.value)) == (type(want.value), str(want.value))


def test_the_agents_edge_cases_match_the_plain_draws():
    """Every legal ball hidden (all tries fail: the last draw is played), nothing legal on
    the table, a crowded kitchen (spots drawn again and again)."""
    rules = get_ruleset("nine_ball")
    table = rules.table
    env = PoolEnv(game="nine_ball", opponent="solo")
    env.reset(seed=2)
    base = env.state
    R = table.ball_radius
    # The 1 ball behind a wall of balls: every line to it meets another first.
    hidden = ((0, 0.4, 0.6), (1, 2.2, 0.6), (2, 0.55, 0.6), (3, 0.55, 0.6 + 2.05 * R), (4, 0.55, 0.6 - 2.05 * R),
              (5, 0.55, 0.6 + 4.1 * R), (6, 0.55, 0.6 - 4.1 * R), (9, 1.8, 0.9))
    crowded = tuple((n, x, y) for n, (x, y) in enumerate(
        [(xx, yy) for xx in np.arange(R + 0.001, table.head_string_x, 2 * R + 0.0002).tolist()
         for yy in np.arange(R + 0.001, table.width - R, 2 * R + 0.0002).tolist()][:15], start=1))
    states = [base.evolve(balls=hidden, cue_ball_in_hand=CueBallZone.NONE),
              base.evolve(balls=hidden[1:], cue_ball_in_hand=CueBallZone.ANYWHERE),
              base.evolve(balls=((0, 0.5, 0.5),), cue_ball_in_hand=CueBallZone.NONE)]
    kitchen_crowded = base.evolve(balls=crowded, cue_ball_in_hand=CueBallZone.KITCHEN)
    states.append(kitchen_crowded)
    for cls, plain_cls in ((LegalRandomAgent, _PlainLegalRandom), (RandomAgent, _PlainRandom)):
        for seed in range(30):
            for state in states:
                fast, plain = cls(rules, seed=seed), plain_cls(rules, seed=seed)
                assert _same(fast.choose(state), plain.choose(state))
                assert fast.rng.bit_generator.state == plain.rng.bit_generator.state


def _original_stage_opponent_move(self, outcomes):
    """``stage_opponent_move`` through ``encode``, ``validate`` and ``decode``, as first written."""
    opponent, theirs = self.opponent, 1 - self.agent
    try:
        if hasattr(opponent, "choose"):
            state = self.state
            move = opponent.choose(state)
            action = self.opponent_mapper.encode(move, state, self.rules)
            return self.stage_move(action, mapping=self.opponent_mapper.mode)
        action = opponent(self._observation(theirs), self._info(outcomes, {}, player=theirs))
        return self.stage_move(action)
    except Exception as exc:
        raise self._opponent_error(exc) from exc


@pytest.mark.parametrize("mode", ["choice_discrete", "aim", "raw"])
@pytest.mark.parametrize("opponent", ["legal-random", "random", "fixed"])
def test_envs_stage_the_opponents_moves_as_before(monkeypatch, mode, opponent):
    """Every record of a played match (action, move and its field types, outcome, states)
    and every step's output are those of the staging through encode, validate and decode."""

    def play(staging):
        monkeypatch.setattr(pool_env_module.PoolEnv, "stage_opponent_move", staging)
        env = PoolEnv(game="nine_ball", opponent=opponent, action_mode=mode, obs_mode="flat", noise="tournament",
                      breaker="alternate")
        records = []
        env.move_listeners.append(lambda record: records.append(repr(record)))
        obs, _ = env.reset(seed=17)
        rng = np.random.default_rng(17)
        steps = [obs.tobytes()]
        for _ in range(120):
            if mode == "choice_discrete":
                parts = np.split(env.action_masks(), np.cumsum(env.action_space.nvec)[:-1])
                action = np.array([int(rng.choice(np.flatnonzero(p))) if p.any() else 0 for p in parts])
            else:
                action = rng.uniform(-1, 1, env.action_space.shape)
            obs, reward, term, trunc, info = env.step(action)
            steps.append((obs.tobytes(), reward, term, trunc, repr(info.get("outcomes"))))
            if term or trunc:
                obs, _ = env.reset()
        return records, steps

    fast = play(PoolEnv.stage_opponent_move)
    plain = play(_original_stage_opponent_move)
    assert len(fast[0]) > 100
    assert fast == plain


def test_a_finished_episode_refuses_the_opponents_move_as_before():
    env = PoolEnv(game="nine_ball", opponent="legal-random")
    env.reset(seed=0)
    env._done = True
    with pytest.raises(pool_env_module.OpponentError, match="ResetNeeded"):
        env.stage_opponent_move([])
