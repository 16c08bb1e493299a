"""The heuristic bot and the random agent play legal games of every available game."""

from dataclasses import replace

import numpy as np
import pytest

from poolgym.physics import Simulator
from poolgym.rules import (Choice, DecisionKind, PendingDecision, available_rulesets,
                           get_ruleset)

from poolgym.agents.bot.player import HeuristicBot
from poolgym.envs.baseline_agents import RandomAgent
from poolgym.agents.evaluation.evaluate import run_match, summarize
from poolgym.agents.evaluation.match import play_rack


def _games():
    games = ["nine_ball", "ten_ball", "eight_ball"]
    try:
        get_ruleset("straight_pool")
    except ValueError:
        return games
    return games + ["straight_pool"]


GAMES = _games()


@pytest.mark.parametrize("game", GAMES)
def test_bot_plays_legal_racks(game):
    rules = get_ruleset(game)
    if game == "straight_pool":
        rules = get_ruleset(game, target_score=10)
    bots = [HeuristicBot(rules, budget="fast", seed=i) for i in range(2)]
    for k in range(2):
        record = play_rack(rules, Simulator(rules.table), bots, np.random.default_rng(k),
                           breaker=k % 2, max_moves=120)
        assert not any(m.illegal for m in record.moves), record.end_reason
        shots = [m for m in record.moves if m.outcome is not None]
        assert shots, "the rack had no shot"
        for m in shots:
            if m.move.call.names_ball:
                assert m.move.call in rules.call_options(m.state)


def test_bot_calls_are_offered_calls_in_call_shot_games():
    rules = get_ruleset("eight_ball")
    bot = HeuristicBot(rules, budget="fast")
    record = play_rack(rules, Simulator(rules.table), [bot, bot], np.random.default_rng(3), max_moves=40)
    for m in record.moves:
        if m.outcome is not None:
            assert m.move.call in rules.call_options(m.state)


def test_random_agent_makes_well_formed_moves():
    rules = get_ruleset("eight_ball")
    agents = [RandomAgent(rules, seed=1), RandomAgent(rules, seed=2)]
    record = play_rack(rules, Simulator(rules.table), agents, np.random.default_rng(0), max_moves=60)
    assert not any(m.illegal for m in record.moves)


def test_bot_beats_random():
    rules = get_ruleset("nine_ball")
    agents = [HeuristicBot(rules, budget="fast", seed=0), RandomAgent(rules, seed=1)]
    summary = summarize(run_match(rules, agents, ("bot", "random"), racks=6, seed=5))
    bot = summary["agents"]["bot"]
    assert bot["wins"] >= 5
    assert bot["illegal_moves"] == 0
    assert bot["pot_success"] > 0.8


def test_bot_breaks_and_decides_in_eight_ball():
    rules = get_ruleset("eight_ball")
    bot = HeuristicBot(rules, budget="fast")
    state = rules.new_game(rng=0)
    move = bot.choose(state)
    assert move.placement is not None and move.placement[0] < rules.table.head_string_x
    # A dry break leaves the incoming player a decision; the bot answers with one of its choices.
    pending = PendingDecision(DecisionKind.EIGHT_BALL_DRY_BREAK, 1,
                              (Choice.ACCEPT_TABLE, Choice.RERACK_AND_BREAK, Choice.RERACK_OPPONENT_BREAKS))
    dry = replace(state, pending=pending, shooter=1, awaiting_break=False,
                  balls={**state.positions, 0: (0.5, 0.6)}, cue_ball_in_hand="none")
    decision = bot.choose(dry)
    assert decision.choice in pending.choices


def test_bot_is_deterministic_given_its_seed():
    rules = get_ruleset("nine_ball")
    state = rules.new_game(rng=4)
    a = HeuristicBot(rules, noise="tournament", budget="fast", seed=3).choose(state)
    b = HeuristicBot(rules, noise="tournament", budget="fast", seed=3).choose(state)
    assert a == b


def test_available_games_listed():
    assert set(GAMES) <= set(available_rulesets())


@pytest.mark.parametrize("from_corner", [(1.5, 0.45), (2.0, 0.35)])
def test_aim_refinement_takes_the_throw_out(from_corner):
    """A ghost-ball stroke on a long cut misses by its throw; the refined stroke turns the
    object ball back onto its line (turned the wrong way, the error doubles)."""
    import math

    from poolgym.agents.bot.position import plain_call
    from poolgym.agents.bot.shot_search import SearchBudget, ShotSearch, object_ball_error
    from poolgym.aiming import aim_point, direction_deg, ghost_ball
    from poolgym.rules import CueBallZone, GameState, get_ruleset

    rules = get_ruleset("nine_ball")
    table, R = rules.table, rules.table.ball_radius
    target = aim_point(table, "foot_right")
    ball = (table.length - from_corner[0], table.width - from_corner[1])
    ghost = ghost_ball(ball, target, R)
    back = math.atan2(ghost[1] - ball[1], ghost[0] - ball[0]) - math.radians(40.0)
    cue = (ghost[0] + 0.5 * math.cos(back), ghost[1] + 0.5 * math.sin(back))
    state = GameState(game="nine_ball", balls={0: cue, 1: ball, 9: (0.3, 0.3)}, awaiting_break=False,
                      cue_ball_in_hand=CueBallZone.NONE)
    search = ShotSearch(rules, SearchBudget.preset("fast"), None, np.random.default_rng(0), 0.0)
    move = search.move(state, plain_call(rules.call_options(state), safety=False), None,
                       direction_deg(cue, ghost), 2.0, target=1, pocket="foot_right")
    simulator = Simulator(table)
    before = object_ball_error(simulator.simulate(state.positions, move.shot).events, 1, target)
    assert abs(before) > 0.5 and not search.score(state, move).pots
    refined = search.aimed(state, move, cue, ball, target)
    after = object_ball_error(simulator.simulate(state.positions, refined.move.shot).events, 1, target)
    assert abs(after) < 0.2 and refined.pots
