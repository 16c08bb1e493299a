"""``ActionMapper.encode`` is the inverse of ``decode``, and agents play as env opponents."""

from dataclasses import replace

import numpy as np
import pytest

from poolgym.envs import PoolEnv
from poolgym.envs.actions import ActionMapper, ShotMove, ghost_ball_angle
from poolgym.physics import Shot
from poolgym.rules import (Choice, CueBallZone, Decision, DecisionKind, PendingDecision,
                           ShotCall, get_ruleset)

from poolgym.agents.bot.player import HeuristicBot


def _in_hand(rules, seed=0):
    state = rules.new_game(rng=seed)
    return replace(state, awaiting_break=False, cue_ball_in_hand=CueBallZone.ANYWHERE)


@pytest.mark.parametrize("game", ["nine_ball", "eight_ball", "ten_ball"])
def test_raw_round_trip(game):
    rules = get_ruleset(game)
    mapper = ActionMapper(rules.table, "raw")
    state = _in_hand(rules)
    for i, call in enumerate(rules.call_options(state)[:8]):
        move = ShotMove(call, (0.4 + 0.01 * i, 0.3), Shot(2.5 + 0.1 * i, -120.0 + 17 * i, 0.2, -0.3))
        back = mapper.decode(mapper.validate(mapper.encode(move, state, rules)), state, rules)
        assert back.call == call
        assert back.placement == pytest.approx(move.placement)
        assert back.shot.speed == pytest.approx(move.shot.speed)
        assert back.shot.angle_deg == pytest.approx(move.shot.angle_deg)
        assert (back.shot.side, back.shot.vertical) == pytest.approx((0.2, -0.3))


def test_aim_round_trip_on_a_ghost_ball_stroke():
    rules = get_ruleset("eight_ball")
    mapper = ActionMapper(rules.table, "aim")
    state = replace(rules.new_game(rng=1), awaiting_break=False,
                    cue_ball_in_hand=CueBallZone.NONE,
                    balls={**rules.new_game(rng=1).positions, 0: (0.6, 0.6)})
    call = ShotCall.called(3, "foot_left")
    angle = ghost_ball_angle(rules.table, (0.6, 0.6), state.position(3), "foot_left") + 1.5
    move = ShotMove(call, None, Shot(3.0, angle, 0.0, 0.25), 3, "foot_left")
    back = mapper.decode(mapper.validate(mapper.encode(move, state, rules)), state, rules)
    assert (back.call, back.target, back.pocket) == (call, 3, "foot_left")
    assert back.shot.angle_deg == pytest.approx(angle)
    assert back.shot.speed == pytest.approx(3.0)


def test_decision_round_trip():
    rules = get_ruleset("nine_ball")
    mapper = ActionMapper(rules.table, "aim")
    state = replace(rules.new_game(rng=0), awaiting_break=False, cue_ball_in_hand=CueBallZone.NONE,
                    balls={**rules.new_game(rng=0).positions, 0: (0.5, 0.5)},
                    pending=PendingDecision(DecisionKind.PUSH_OUT_RESPONSE, 0,
                                            (Choice.SHOOT, Choice.PASS_BACK)))
    for choice in (Choice.SHOOT, Choice.PASS_BACK):
        action = mapper.encode(Decision(choice), state, rules)
        assert mapper.decode(mapper.validate(action), state, rules).choice is choice


@pytest.mark.parametrize("mode", ["raw", "aim"])
def test_bot_as_env_opponent(mode):
    bot = HeuristicBot("nine_ball", budget="fast")
    env = PoolEnv("nine_ball", opponent=bot.policy(mode), action_mode=mode)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    opponent_shots = 0
    for _ in range(6):
        _, _, done, _, info = env.step(rng.uniform(-1, 1, env.action_space.shape))
        opponent_shots += sum(o.shooter == 1 for o in info["outcomes"])
        if done:
            break
    assert opponent_shots > 0 or done
    env.close()
