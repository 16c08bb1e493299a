"""The top rung (``bot:pro``): its break table, its safety and two-shot choices on hand-built
positions, and a legal rack played end to end (small budgets throughout)."""

import json

import numpy as np
import pytest

from poolgym.aiming import pot_chance
from poolgym.envs.play import simulate_move
from poolgym.physics import Simulator
from poolgym.rules import CueBallZone, GameState, get_ruleset
from poolgym.table import POCKET_IDS

from poolgym.agents.bot.breaks import NINE_BALL_TABLE, ROW_FIELDS, best_break, load_break_table
from poolgym.agents.bot.player import HeuristicBot
from poolgym.agents.bot.position import shot_quality, state_value
from poolgym.agents.bot.pro import ProBot
from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.evaluation.evaluate import run_match
from poolgym.agents.evaluation.match import play_rack

RULES = get_ruleset("nine_ball")
SMALL = dict(top_k=3, noise_samples=4, lookahead=2, clusters=2)


def _position(balls: dict) -> GameState:
    return GameState(game="nine_ball", balls=balls, awaiting_break=False,
                     cue_ball_in_hand=CueBallZone.NONE, shot_number=2, inning=2)


# ---------------------------------------------------------------------- the break table
def test_shipped_break_table_loads_and_its_best_break_is_a_measured_row():
    table = load_break_table()
    assert table.game == "nine_ball" and table.noise == "tournament" and len(table.rows) > 100
    state = RULES.new_game(rng=0)
    move = best_break(table, RULES, state, max_speed=10.0)
    most = max(r.breaks for r in table.rows)
    allowed = [r for r in table.rows if r.breaks == most and r.speed <= 10.0]
    best = max(allowed, key=lambda r: r.value)
    assert move.placement == (best.x, best.y) and move.shot.speed == best.speed
    # A faster cap may pick a faster stroke; none above the cap is ever played.
    assert best_break(table, RULES, state, max_speed=12.0).shot.speed <= 12.0
    assert best_break(table, RULES, state, max_speed=5.0) is None


def _write(tmp_path, data) -> str:
    path = tmp_path / "table.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


@pytest.mark.parametrize("change, field", [
    (lambda d: "not json {", "not JSON"),
    (lambda d: {k: v for k, v in d.items() if k != "noise"}, "keys"),
    (lambda d: {**d, "fields": d["fields"][::-1]}, "fields"),
    (lambda d: {**d, "rows": []}, "rows"),
    (lambda d: {**d, "rows": [d["rows"][0][:-1]]}, "rows[0]"),
    (lambda d: {**d, "rows": [d["rows"][0][:6] + [1.5] + d["rows"][0][7:]]}, "rows[0].made"),
    (lambda d: {**d, "rows": [d["rows"][0][:5] + [2.5] + d["rows"][0][6:]]}, "rows[0].breaks"),
    (lambda d: {**d, "rows": [d["rows"][0][:3] + [float("nan")] + d["rows"][0][4:]]}, "rows[0].speed"),
    (lambda d: {**d, "seed": "zero"}, "seed"),
])
def test_break_table_loader_refuses_a_malformed_file(tmp_path, change, field):
    good = json.loads(NINE_BALL_TABLE.read_text())
    assert good["fields"] == list(ROW_FIELDS)
    with pytest.raises(ValueError, match="table.json") as info:
        load_break_table(_write(tmp_path, change(good)))
    assert field in str(info.value)
    if field.startswith("rows[0]."):
        assert "must be a number in [" in str(info.value)


def test_a_break_table_of_another_game_is_refused(tmp_path):
    good = json.loads(NINE_BALL_TABLE.read_text())
    path = _write(tmp_path, {**good, "game": "ten_ball"})
    with pytest.raises(ValueError, match="break_table is for ten_ball, not nine_ball"):
        ProBot(RULES, noise="tournament", break_table=path, **SMALL)


def test_the_break_table_is_played_only_on_the_racks_it_was_measured_on(tmp_path):
    """The shipped table was measured on tight racks: on the benchmark protocol's racks the
    rung searches its break as bot:strong does (with its own re-check sizes where given); a
    table named for other racks is refused."""
    from poolgym.racking import BENCHMARK_RACK

    gapped = RULES.with_rack_model(BENCHMARK_RACK)
    assert ProBot(RULES, noise="tournament", **SMALL).break_table is not None
    bot = ProBot(gapped, noise="tournament", **SMALL)
    assert bot.break_table is None
    state = gapped.new_game(rng=np.random.default_rng(4))
    strong = HeuristicBot(gapped, noise="tournament", budget="strong", seed=0)
    assert bot.choose(state) == strong.choose(state)
    # Its own re-check of the searched break: the best break_top_k, break_noise_samples plays each.
    wide = ProBot(gapped, noise="tournament", seed=0, break_top_k=12, break_noise_samples=5, **SMALL)
    search = HeuristicBot(gapped, noise="tournament", budget="strong", seed=0).search
    assert wide.choose(state) == search.recheck(state, search.break_candidates(state), 12, 5)[0].move
    with pytest.raises(ValueError, match="measured on racks RackModel\\(spacing_mm=0.0, jitter_mm=0.0\\)"):
        ProBot(gapped, noise="tournament", break_table=str(NINE_BALL_TABLE), **SMALL)


def test_the_top_rung_is_the_pro_search_made_deeper():
    from poolgym.envs.opponents import LADDER

    top = make_agent("bot:pro-deep", RULES, seed=4, noise="tournament")
    pro = make_agent("bot:pro", RULES, seed=4, noise="tournament")
    assert type(top) is ProBot and type(pro) is ProBot and LADDER[-2:] == ("bot:pro", "bot:pro-deep")
    assert (top.top_k, top.noise_samples, top.lookahead, top.clusters) == (16, 64, 8, 5)
    assert (pro.top_k, pro.noise_samples, pro.lookahead, pro.clusters) == (8, 20, 4, 3)
    assert (top.break_top_k, top.break_noise_samples) == (40, 64)
    assert (pro.break_top_k, pro.break_noise_samples) == (10, 16)


def test_bad_search_sizes_are_refused_naming_the_argument():
    with pytest.raises(ValueError, match="noise_samples must be an integer >= 1, got 0"):
        ProBot(RULES, noise="tournament", noise_samples=0)
    with pytest.raises(ValueError, match="break_top_k must be an integer >= 1, got 0"):
        ProBot(RULES, noise="tournament", break_top_k=0)


# ---------------------------------------------------------------------- choices
# The 1 ball lies across the table by the far rail and its one open pot is a thin cut (a
# closed-form chance below 0.05): the rung has no pot likely enough and plays safe.
SAFETY_POSITION = {0: (2.014687, 0.106470), 1: (1.798052, 1.156805), 2: (2.033000, 1.073231),
                   9: (1.352925, 0.467584)}


def _opponent_reply(bot: ProBot, state: GameState, move, samples: int) -> float:
    """The mean, over noisy plays of ``move``, of the value of the opponent's best reply
    from his side (a rack he then wins is worth the win)."""
    simulator = Simulator(RULES.table, noise="tournament")
    rng = np.random.default_rng(5)
    values = []
    for _ in range(samples):
        events, _ = simulate_move(simulator, RULES, state, move, rng, False)
        after, _ = RULES.apply_shot(state, move.call, events)
        closed = state_value(after, RULES, 1 - state.shooter, bot.search.sigma_deg)
        values.append(bot.table_value(after, closed, 1 - state.shooter))
    return float(np.mean(values))


def test_the_rung_plays_safe_when_no_pot_is_likely_and_leaves_a_worse_reply():
    state = _position(SAFETY_POSITION)
    assert 0.0 < shot_quality(state, RULES, 0.15) < 0.05
    bot = ProBot(RULES, noise="tournament", seed=1, **{**SMALL, "noise_samples": 12})
    move = bot.choose(state)
    assert move.pocket is None and move.target == 1  # a safety: a named ball, no pocket
    pots = bot.search.recheck(state, bot.search.pot_candidates(state, state.position(0), None))
    assert pots, "the position has a pot to attempt"
    samples = 12
    assert _opponent_reply(bot, state, move, samples) < _opponent_reply(bot, state, pots[0].move, samples)


def test_the_two_shot_values_in_bulk_are_those_of_the_replayed_states(monkeypatch):
    """``ProBot.deep`` over noisy plays judged in bulk (``ShotSearch.outcomes``) gives every
    candidate the value it gets with every play replayed through the rules one by one, to
    the last bit, in the same order, and leaves the generator where they leave it; on the
    positions of a played rack (pots, banks and safeties)."""
    from poolgym.agents.bot import shot_search

    agents = [make_agent("bot:fast", RULES, seed=1, noise="tournament"), make_agent("legal-random", RULES, seed=2)]
    states = [m.state for r in run_match(RULES, agents, ("a", "b"), 2, seed=9, noise="tournament").racks
              for m in r.moves if not m.state.awaiting_break and m.state.pending is None
              and m.state.cue_ball_in_hand is CueBallZone.NONE][:8]
    bot = ProBot(RULES, noise="tournament", seed=3, top_k=4, noise_samples=6, lookahead=3, clusters=2)
    compared = 0
    for k, state in enumerate(states):
        cue = state.position(0)
        for candidates in (bot.search.pot_candidates(state, cue, None), bot.search.safety_candidates(state, cue, None)):
            runs = []
            for bulk in (True, False):
                with monkeypatch.context() as m:
                    if not bulk:
                        m.setattr(shot_search.ShotSearch, "_judged", lambda self, *args: None)
                    bot.search.rng = bot.reply_search.rng = np.random.default_rng(k)
                    scored = bot.deep(state, [shot_search.Scored(s.move, s.value, s.pots, s.faulted)
                                              for s in candidates])
                    runs.append(([(s.move, s.value) for s in scored], bot.search.rng.bit_generator.state))
            assert runs[0] == runs[1]
            compared += len(runs[0][0])
    assert compared >= 20


# ---------------------------------------------------------------------- a rack
def test_the_rung_plays_a_legal_rack_end_to_end_under_noise():
    bots = [make_agent("bot:pro", RULES, seed=i, noise="tournament") for i in range(2)]
    assert all(isinstance(b, ProBot) for b in bots)
    for b in bots:  # small budgets: the test checks legality, not strength
        b.top_k, b.noise_samples, b.lookahead = 2, 3, 1
    simulator = Simulator(RULES.table, noise="tournament")
    record = play_rack(RULES, simulator, bots, np.random.default_rng(3), breaker=0, max_moves=40)
    assert not any(m.illegal for m in record.moves), record.end_reason
    shots = [m for m in record.moves if m.outcome is not None]
    first = record.moves[0].move
    table_break = best_break(bots[0].break_table, RULES, record.moves[0].state, bots[0].max_speed)
    assert first == table_break  # the break comes from the measured table
    assert len(shots) >= 2 and all(m.move.call in RULES.call_options(m.state) for m in shots)


# The 1 ball drops for sure in the left side pocket and about half the time in the head-left
# corner; every stroke of the search that pots it in the side leaves no shot at the 2,
# while the corner leaves one.
TWO_SHOT_POSITION = {0: (1.668590, 1.135785), 1: (1.457659, 0.650196), 2: (1.725624, 0.125391),
                     3: (0.327732, 0.639120), 4: (1.810929, 0.153612), 9: (2.204006, 0.751035)}


def test_the_rung_leaves_itself_a_next_shot_rather_than_taking_the_easiest_pot():
    state = _position(TWO_SHOT_POSITION)
    bot = ProBot(RULES, noise="tournament", seed=2, **SMALL)
    balls = state.positions
    others = {n: p for n, p in balls.items() if n not in (0, 1)}
    chances = {p: pot_chance(RULES.table, balls[0], balls[1], p, others, 0.15) for p in POCKET_IDS}
    easiest = max(chances, key=chances.get)
    assert easiest == "side_left" and chances[easiest] > 0.99 and chances["head_left"] > 0.5
    # Every stroke of the search that pots the 1 in the easiest pocket leaves no next shot.
    easy = [s for s in bot.search.pot_candidates(state, balls[0], None) if s.move.pocket == easiest and s.pots]
    assert easy and max(s.value for s in easy) == 0.0
    move = bot.choose(state)
    assert move.pocket != easiest
    after, outcome, _ = bot.search.play(state, move)
    assert outcome.turn_kept and shot_quality(after, RULES, 0.15) > 0.5


def test_the_break_table_builder_measures_its_held_out_rows_again_on_fresh_racks():
    from dataclasses import replace

    from poolgym.agents.tools.build_break_table import build, grid

    shipped = load_break_table()
    assert [(r.x, r.y, r.offset, r.speed, r.vertical) for r in shipped.rows] == grid(RULES)
    fine = replace(shipped, rows=tuple(replace(r, breaks=500) if r.breaks == 1000 else r for r in shipped.rows))
    table = build(resume=fine, held_out=2, validate=3, progress=None)
    again = [i for i, r in enumerate(table.rows) if r.breaks == 3]
    best_fine = sorted((i for i, r in enumerate(fine.rows) if r.breaks == 500),
                       key=lambda i: fine.rows[i].value, reverse=True)[:2]
    assert sorted(again) == sorted(best_fine)
    assert all(table.rows[i] == fine.rows[i] for i in range(len(fine.rows)) if i not in again)
    with pytest.raises(ValueError, match="resume: the table was not built on this grid"):
        build(resume=replace(fine, seed=1), progress=None)


def test_the_break_table_builder_measures_on_the_racks_it_is_asked_for():
    """``rack_model="benchmark"``: the rows are measured on gapped racks (other figures than
    on tight ones from the same generator), the table names those racks and the rung takes
    it on such rules only; a tight table is no resume for it."""
    from poolgym.racking import BENCHMARK_RACK

    from poolgym.agents.tools.build_break_table import build

    gapped = build(coarse=2, fine=2, top=1, rack_model="benchmark", progress=None)
    tight = build(coarse=2, fine=2, top=1, progress=None)
    assert gapped.rack == repr(BENCHMARK_RACK) and tight.rack == repr(RULES.rack_model)
    assert [r.made for r in gapped.rows] != [r.made for r in tight.rows]
    assert ProBot(RULES.with_rack_model(BENCHMARK_RACK), noise="tournament", break_table=gapped,
                  **SMALL).break_table is gapped
    with pytest.raises(ValueError, match="measured on racks"):
        ProBot(RULES, noise="tournament", break_table=gapped, **SMALL)
    with pytest.raises(ValueError, match="racks and seed"):
        build(resume=tight, rack_model="benchmark", progress=None)
