"""The shortcuts the bot's search takes give what the plain computations give: the path
check against ``distance_to_segment`` ball by ball, the per-pocket aiming geometry against
the pockets' own, and the stored-form fast paths of ``GameState``, ``ShotEvents`` and
``Shot.validate`` against the conversions they skip."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from poolgym.aiming import aim_point, distance_to_segment, path_is_clear, pocket_axis
from poolgym.physics import Shot
from poolgym.rules import GameState, ShotEvents, get_ruleset
from poolgym.table import Table

R = Table.preset("9ft").ball_radius


def _reference_clear(a, b, balls, radius):
    limit = 2.0 * radius - 1e-6
    return all(distance_to_segment(p, a, b) >= limit for p in balls)


def test_path_is_clear_matches_the_distance_of_every_ball():
    rng = np.random.default_rng(0)
    limit = 2.0 * R - 1e-6
    checked = blocked = 0
    for _ in range(3000):
        a = tuple(rng.uniform(0.0, 1.2, 2).tolist())
        b = a if rng.random() < 0.05 else tuple(rng.uniform(0.0, 1.2, 2).tolist())
        balls = [tuple(rng.uniform(0.0, 1.2, 2).tolist()) for _ in range(rng.integers(0, 9))]
        # Balls right at the limit, beside and beyond the segment's ends, where the box test
        # and the distance must agree to the last bit.
        dx, dy = b[0] - a[0], b[1] - a[1]
        d = math.hypot(dx, dy) or 1.0
        for t, off in ((0.5, limit), (0.5, limit * (1 - 1e-15)), (1.0 + limit / d, 0.0), (-limit / d, 0.0)):
            balls.append((a[0] + t * dx - off * dy / d, a[1] + t * dy + off * dx / d))
        expected = _reference_clear(a, b, balls, R)
        assert path_is_clear(a, b, balls, R) == expected
        assert path_is_clear(a, b, iter(balls), R) == expected  # any iterable of points
        checked += 1
        blocked += not expected
    assert 0 < blocked < checked


def test_pocket_aims_are_the_pockets_geometry():
    for name in ("9ft", "7ft"):
        table = Table.preset(name)
        for p in table.pockets:
            mx, my = p.mouth_centre
            hx, hy = p.hole_centre
            d = math.hypot(hx - mx, hy - my)
            assert aim_point(table, p.id) == p.mouth_centre
            assert pocket_axis(table, p.id) == ((hx - mx) / d, (hy - my) / d)
            assert table.pocket_aims[p.id][2] == (table.side_mouth if p.kind == "side" else table.corner_mouth)
    with pytest.raises(ValueError, match="unknown pocket 'middle'"):
        aim_point(Table.preset("9ft"), "middle")


def test_game_state_stored_form_is_kept_or_rebuilt_alike():
    rules = get_ruleset("nine_ball")
    state = rules.new_game(np.random.default_rng(2))
    same = replace(state, shooter=1)
    assert same.balls is state.balls  # handed on unchanged
    # Rows out of order, NumPy numbers or duplicates still go through the conversion.
    rows = tuple(reversed(state.balls))
    assert replace(state, balls=rows).balls == state.balls
    numpy_rows = tuple((np.int64(n), np.float64(x), y) for n, x, y in state.balls)
    converted = replace(state, balls=numpy_rows).balls
    assert converted == state.balls and all(type(n) is int and type(x) is float for n, x, _ in converted)
    with pytest.raises(ValueError, match="listed twice on the table"):
        replace(state, balls=state.balls + (state.balls[-1],))
    with pytest.raises(ValueError, match="non-finite"):
        replace(state, balls=((1, math.nan, 0.5),))
    with pytest.raises(ValueError, match="both on the table and out of play"):
        replace(state, out_of_play=(state.balls[-1][0],))
    assert replace(state, consecutive_fouls=[1, 0]).consecutive_fouls == (1, 0)
    assert replace(state, warned_on_two_fouls=(0, 1)).warned_on_two_fouls == (False, True)


def test_shot_events_rows_from_plain_and_other_values():
    plain = ShotEvents(final_positions={3: (1.0, 0.5), 0: (0.4, 0.2)})
    assert plain.final_positions == ((0, 0.4, 0.2), (3, 1.0, 0.5))
    mixed = ShotEvents(final_positions={np.int64(3): np.array([1.0, 0.5]), 0: [0.4, 0.2]})
    assert mixed.final_positions == plain.final_positions
    assert all(type(v) in (int, float) for row in mixed.final_positions for v in row)
    with pytest.raises(ValueError, match="final position of ball 2"):
        ShotEvents(final_positions={2: (math.inf, 0.3)})
    assert ShotEvents(off_table=[np.int64(4)]).off_table == frozenset({4})


def test_shot_validate_returns_plain_shots_as_they_are():
    shot = Shot(2.0, 10.0, 0.1, -0.2)
    assert shot.validate(10.0) is shot
    converted = Shot(np.float32(2.0), 10, 0.1, -0.2).validate(10.0)
    assert converted == Shot(2.0, 10.0, 0.1, -0.2) and type(converted.speed) is float
    with pytest.raises(ValueError, match="Shot.speed must be in"):
        Shot(12.0).validate(10.0)


def _reference_in_hand(state, rules, ball, pocket, others, sigma_deg):
    """``in_hand_chance`` as first written: every test in turn, then ``pot_chance``."""
    from poolgym.physics.pot_geometry import IN_HAND_DISTANCE
    from poolgym.aiming import ghost_ball, pot_chance, usable_half_width
    from poolgym.rules import CueBallZone

    table, radius = rules.table, rules.table.ball_radius
    position = state.position(ball)
    target = aim_point(table, pocket)
    if not path_is_clear(position, target, list(others.values()), radius):
        return 0.0
    if usable_half_width(table, pocket, position, target) <= 0.0:
        return 0.0
    ghost = ghost_ball(position, target, radius)
    dx, dy = ghost[0] - target[0], ghost[1] - target[1]
    d = math.hypot(dx, dy) or 1.0
    cue = (ghost[0] + IN_HAND_DISTANCE * dx / d, ghost[1] + IN_HAND_DISTANCE * dy / d)
    if state.cue_ball_in_hand is CueBallZone.KITCHEN:
        if position[0] < table.head_string_x:
            return 0.0
        if cue[0] >= table.head_string_x:
            cue = (table.head_string_x - 2 * radius, min(max(cue[1], 2 * radius), table.width - 2 * radius))
    if not table.contains(*cue):
        cue = (ghost[0] + 2.5 * radius * dx / d, ghost[1] + 2.5 * radius * dy / d)
        if not table.contains(*cue):
            return 0.0
    return pot_chance(table, cue, position, pocket, others, sigma_deg)


def _reference_quality(state, rules, sigma_deg):
    """``shot_quality`` as first written: the best ``pot_chance`` (or in-hand chance) of all pairs."""
    from poolgym.agents.bot.position import pot_pairs
    from poolgym.aiming import pot_chance
    from poolgym.rules import CueBallZone

    balls, best = state.positions, 0.0
    for ball, pocket in pot_pairs(state, rules):
        others = {n: p for n, p in balls.items() if n not in (0, ball)}
        if state.cue_ball_in_hand is CueBallZone.NONE:
            chance = pot_chance(rules.table, balls[0], balls[ball], pocket, others, sigma_deg)
        else:
            chance = _reference_in_hand(state, rules, ball, pocket, others, sigma_deg)
        best = max(best, chance)
    return best


@pytest.mark.parametrize("game", ["nine_ball", "eight_ball"])
def test_shot_quality_equals_the_best_pot_chance_bit_for_bit(game):
    from poolgym.agents.bot.position import shot_quality
    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_bot
    from poolgym.rules import CueBallZone

    rules = get_ruleset(game)
    rng = np.random.default_rng(1)
    match = run_match(rules, [make_bot("weak", rules, seed=i, noise="tournament") for i in range(2)],
                      ("a", "b"), 3, seed=4, noise="tournament")
    states = [m.state for rack in match.racks for m in rack.moves if not m.state.awaiting_break]
    # Random layouts of the same balls too: blocked paths, thin cuts, balls in the kitchen.
    for state in list(states):
        layout = {n: (float(rng.uniform(0.1, 2.44)), float(rng.uniform(0.1, 1.17))) for n, _, _ in state.balls}
        try:
            states.append(replace(state, balls=layout))
        except ValueError:
            pass
        if state.cue_ball_in_hand is not CueBallZone.NONE:  # the kitchen's tests too
            states.append(replace(state, cue_ball_in_hand=CueBallZone.KITCHEN))
    zones = {s.cue_ball_in_hand for s in states}
    assert len(states) > 20 and zones == set(CueBallZone)
    for state in states:
        for sigma in (0.15, 1.0):
            assert shot_quality(state, rules, sigma) == _reference_quality(state, rules, sigma)


def test_evolve_is_replace():
    rules = get_ruleset("nine_ball")
    state = rules.new_game(np.random.default_rng(3))
    kept = {n: p for n, p in state.positions.items() if n not in (2, 5)}
    for changes in ({"shooter": 1, "inning": 4}, {"balls": kept, "cue_ball_in_hand": "anywhere"},
                    {"balls": kept, "out_of_play": [5, 2], "scores": [1, 2]}, {}):
        evolved = state.evolve(**changes)
        assert evolved == replace(state, **changes) and type(evolved) is GameState
    assert state.evolve().balls is state.balls
    with pytest.raises(TypeError, match="GameState has no field 'shoter'"):
        state.evolve(shoter=1)
    with pytest.raises(ValueError, match="shooter must be player 0 or 1"):
        state.evolve(shooter=2)


# One invalid change per check of ``GameState``: ``evolve`` runs only the checks a changed
# field takes part in, so each must still catch what ``replace`` (every check) catches.
BAD_CHANGES = [
    {"balls": ((1, 1.0, 0.5), (1, 1.2, 0.5))},
    {"balls": {1: (1.0, float("nan"))}},
    {"out_of_play": (3, 3)},
    {"out_of_play": (1,)},
    {"out_of_play": (0,)},
    {"shooter": 2}, {"breaker": -1}, {"winner": 3},
    {"consecutive_fouls": (0, -1)}, {"consecutive_fouls": (0, 0, 0)},
    {"warned_on_two_fouls": (False,)}, {"scores": (1, 2, 3)},
    {"groups": ("solids", "solids")},
    {"winner": 0, "stalemate": True}, {"stalemate": True},
    {"inning": 0}, {"shot_number": -1}, {"rack_number": 0},
    {"target_score": 0}, {"no_progress_innings": (1, -1)},
    {"cue_ball_in_hand": "anywhere"},
]


@pytest.mark.parametrize("changes", BAD_CHANGES, ids=[",".join(c) for c in BAD_CHANGES])
def test_evolve_refuses_what_replace_refuses(changes):
    rules = get_ruleset("nine_ball")
    state = rules.new_game(np.random.default_rng(3))
    balls = {**state.positions, 0: (0.4, 0.6)}
    base = replace(state, balls=balls, cue_ball_in_hand="none", awaiting_break=False)
    if changes == {"stalemate": True}:
        base = replace(base, winner=1)  # a won rack declared a stalemate too
    with pytest.raises(ValueError) as expected:
        replace(base, **changes)
    with pytest.raises(ValueError) as got:
        base.evolve(**changes)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("game", ["nine_ball", "eight_ball", "ten_ball", "straight_pool"])
def test_next_state_is_apply_shots_state(game):
    """``Ruleset.next_state`` (the bot's noisy replays) gives ``apply_shot``'s state: along
    random play, with its fouls, ball in hand, two-foul warnings (WPA 6.14), handovers and
    won racks, and for the same events judged from the same state."""
    from poolgym.envs.actions import ShotMove
    from poolgym.envs.baseline_agents import decision_options
    from poolgym.envs.play import simulate_move
    from poolgym.physics import Shot, Simulator
    from poolgym.rules import CueBallZone, ShotCall

    rules = get_ruleset(game)
    simulator = Simulator(rules.table)
    rng = np.random.default_rng(7)
    seen = {"warning": 0, "handover": 0, "in_hand": 0, "over": 0}
    state = rules.new_game(rng)
    for _ in range(150):
        if state.is_over:
            seen["over"] += 1
            state = rules.new_game(rng)
        if state.pending is not None:
            state = rules.apply_decision(state, decision_options(state)[0])
            continue
        placement = None
        if state.cue_ball_in_hand is not CueBallZone.NONE:
            seen["in_hand"] += 1
            placement = (float(rng.uniform(0.1, rules.table.head_string_x - 0.05)), float(rng.uniform(0.1, 1.17)))
        calls = rules.call_options(state)
        call = calls[int(rng.integers(len(calls)))] if calls else ShotCall()
        move = ShotMove(call, placement, Shot(float(rng.uniform(0.5, 6.0)), float(rng.uniform(-180, 180))))
        events, _ = simulate_move(simulator, rules, state, move, rng, False, state_checked=True)
        expected, outcome = rules.apply_shot(state, call, events, simulated=True)
        assert rules.next_state(state, call, events, simulated=True) == expected
        assert rules.next_state(state, call, events) == expected
        seen["warning"] += outcome.warning_to is not None
        seen["handover"] += outcome.next_shooter not in (None, state.shooter)
        state = expected
    assert seen["handover"] > 10 and seen["in_hand"] > 5, seen
    if rules.three_foul_rule:  # eight-ball plays without it: no warnings there
        assert seen["warning"] > 5, seen


def test_a_game_that_overrides_hand_table_to_still_hands_the_table_through_it():
    """``conclude`` puts the handover into its one ``evolve``; a game with its own
    ``hand_table_to`` has it called, as before."""
    from poolgym.rules import NineBall, ShotCall, ShotEvents

    calls = []

    class Counted(NineBall):
        def hand_table_to(self, state, player):
            calls.append(player)
            return super().hand_table_to(state, player)

    plain, counted = NineBall(), Counted()
    state = plain.new_game(np.random.default_rng(2))
    state = state.evolve(awaiting_break=False, cue_ball_in_hand="none", shot_number=1)
    miss = ShotEvents(first_contact=1, cushion_after_contact={1}, final_positions=state.positions)
    expected, _ = plain.apply_shot(state, ShotCall(), miss)
    got, outcome = counted.apply_shot(state, ShotCall(), miss)
    assert calls == [1] and got == expected and expected.shooter == 1 and outcome.next_shooter == 1


def _mark_own_judgement(monkeypatch, every: int) -> None:
    """Every ``every``-th play the bot's search judges in bulk marked as needing the rules'
    own judgement (as a spotted nine is)."""
    from poolgym.agents.bot import shot_search

    judged = shot_search.judged_in_bulk

    def marked(*args):
        facts, verdict = judged(*args)
        return facts, verdict._replace(spot=verdict.spot | (np.arange(len(verdict.spot)) % every == 0))
    monkeypatch.setattr(shot_search, "judged_in_bulk", marked)


@pytest.mark.parametrize("game, own_every", [("nine_ball", 0), ("nine_ball", 3), ("ten_ball", 0)])
def test_outcomes_in_bulk_are_the_replayed_states(game, own_every, monkeypatch):
    """``ShotSearch.outcomes``: a 9-ball run of noisy plays played, judged and valued in
    bulk gives the values ``state_value`` gives each replayed state to the last bit, the
    same ended racks, and on asking the same states (built from each play's executed
    stroke), and leaves the generator where the one-by-one replays leave it; on played
    positions (the cue ball in hand or not), with a third foul pending, from pots, banks and
    safeties. With ``own_every`` every third play of a bulk run is marked as needing its
    own judgement (as a spotted nine does) and goes through the rules alone: the same
    outcomes. Ten-ball goes through the replays."""
    from poolgym.agents.bot import shot_search
    from poolgym.agents.bot.player import HeuristicBot
    from poolgym.agents.bot.position import state_value
    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_agent

    if own_every:
        _mark_own_judgement(monkeypatch, own_every)
    rules = get_ruleset(game)
    agents = [make_agent("bot:weak", rules, seed=1, noise="tournament"), make_agent("legal-random", rules, seed=2)]
    states = [m.state for r in run_match(rules, agents, ("a", "b"), 3, seed=6, noise="tournament").racks
              for m in r.moves if not m.state.awaiting_break and m.state.pending is None][:24]
    states.append(states[1].evolve(consecutive_fouls=(2, 2), warned_on_two_fouls=(True, True)))
    bot = HeuristicBot(rules, noise="tournament", budget="fast", seed=3)
    search = bot.search
    bulk = ended = 0
    for k, state in enumerate(states):
        spot = None if 0 in state.on_table else search.placement_spots(state)[0]
        cue = state.position(0) if spot is None else spot
        candidates = search.pot_candidates(state, cue, spot)[:4] + search.bank_candidates(state, cue, spot)[:2]
        moves = [s.move for s in candidates for _ in range(3)]
        if not moves:
            continue
        search.rng = np.random.default_rng(k)
        got = search.outcomes(state, moves)
        after_bulk = search.rng.bit_generator.state
        bulk += sum(type(play) is shot_search.Play for play in got._plays)
        search.rng = np.random.default_rng(k)
        replayed = search.replayed(search.noisy, state, moves)
        assert got.values == [state_value(s, rules, state.shooter, search.sigma_deg) for s in replayed]
        assert got.ended == [s.is_over for s in replayed]
        assert search.rng.bit_generator.state == after_bulk
        assert [got.state(i) for i in range(len(got))] == replayed
        part = got.part(3, 6)
        assert part.values == got.values[3:6] and [part.state(i) for i in range(len(part))] == replayed[3:6]
        ended += sum(got.ended)
    assert (bulk >= 100) if game == "nine_ball" else bulk == 0
    assert ended >= 1


@pytest.mark.parametrize("game, own_every", [("nine_ball", 0), ("nine_ball", 3), ("eight_ball", 0)])
def test_exact_scores_in_bulk_are_the_rules_scores(game, own_every, monkeypatch):
    """``ShotSearch.score_many``: 9-ball candidates scored in bulk have the value, the made
    pot and the foul the rules give each exact play, and the object ball's departure gives
    ``object_ball_error``'s degrees from the result's events; 8-ball goes one by one. With
    ``own_every`` every third play of a bulk run is marked as needing its own judgement
    and is scored alone: the same scores."""
    from poolgym.agents.bot import shot_search

    if own_every:
        _mark_own_judgement(monkeypatch, own_every)
    from poolgym.agents.bot.player import HeuristicBot
    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.aiming import aim_point

    rules = get_ruleset(game)
    agents = [make_agent("bot:weak", rules, seed=1, noise="tournament"), make_agent("legal-random", rules, seed=2)]
    states = [m.state for r in run_match(rules, agents, ("a", "b"), 3, seed=8, noise="tournament").racks
              for m in r.moves if not m.state.awaiting_break and m.state.pending is None][:20]
    search = HeuristicBot(rules, noise="tournament", budget="normal", seed=3).search
    bulk = errors = 0
    for state in states:
        spot = None if 0 in state.on_table else search.placement_spots(state)[0]
        cue = state.position(0) if spot is None else spot
        moves = [s.move for s in search.pot_candidates(state, cue, spot) + search.bank_candidates(state, cue, spot)]
        if not moves:
            continue
        got = search.score_many(state, moves)
        with monkeypatch.context() as m:
            m.setattr(shot_search.ShotSearch, "_judged", lambda self, *args: None)
            expected = search.score_many(state, moves)
        for (a, departure), (b, result), move in zip(got, expected, moves):
            assert (a.value, a.pots, a.faulted) == (b.value, b.pots, b.faulted)
            if isinstance(departure, shot_search.Departure):
                bulk += 1
                target = aim_point(rules.table, move.pocket) if move.pocket else (0.5, 0.5)
                want = shot_search.object_ball_error(result.events, move.target, target)
                assert departure.error(move.target, target) == want
                errors += want is not None
    assert (bulk >= 100 and errors >= 50) if game == "nine_ball" else bulk == 0
