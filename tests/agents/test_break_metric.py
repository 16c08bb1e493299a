"""The break figures (break-and-run rate, racks won on the own and the opponent's break, with
Wilson intervals) on scripted matches, in the summary, the baselines tables and bench-bot."""

import pytest

from poolgym.envs.actions import ShotMove
from poolgym.physics import Shot
from poolgym.rules import CueBallZone, ShotCall, get_ruleset
from poolgym.rules.outcome import Outcome

from poolgym.agents.evaluation import baselines
from poolgym.agents.evaluation.evaluate import Match, proportion_text, summarize, wilson_interval
from poolgym.agents.evaluation.match import MoveRecord, RackRecord
from poolgym.agents.tools import bench_bot

STATE = get_ruleset("nine_ball").new_game(rng=0)


def _shot(player: int, break_shot: bool, kept: bool, winner: int | None = None) -> MoveRecord:
    outcome = Outcome(shooter=player, break_shot=break_shot, push_out=False, fouls=(), penalty=None,
                      pocketed=((1, "foot_left"),) if kept else (), driven_off=(),
                      pocketed_legally=(1,) if kept else (), spotted=(), turn_kept=kept and winner is None,
                      next_shooter=None if winner is not None else (player if kept else 1 - player),
                      cue_ball_in_hand=CueBallZone.NONE, winner=winner)
    move = ShotMove(ShotCall(), None, Shot(2.0, 0.0), 1, "foot_left")
    return MoveRecord(player, move, 0.01, STATE, outcome=outcome)


def _rack(breaker: int, shooters: list[int], winner: int) -> RackRecord:
    """A rack whose shots are played by ``shooters`` in turn (the first one the break), the
    last one winning it; a shot keeps the turn when the next shooter is the same player."""
    moves = []
    for i, player in enumerate(shooters):
        last = i == len(shooters) - 1
        kept = not last and shooters[i + 1] == player
        moves.append(_shot(player, i == 0, kept or last, winner if last else None))
    return RackRecord(breaker=breaker, moves=moves, winner=winner)


def _match() -> Match:
    racks = [
        _rack(0, [0, 0, 0, 0], 0),     # A breaks and runs
        _rack(1, [1, 0, 0], 0),        # B breaks dry, A runs out: A wins on B's break
        _rack(0, [0, 1, 0], 0),        # A breaks, misses, B misses, A wins: won, not a run
        _rack(1, [1, 1, 1], 1),        # B breaks and runs
        _rack(0, [0, 1, 1], 1),        # A breaks dry, B runs out
        _rack(1, [1, 0, 1, 1], 1),     # B breaks, A misses, B wins
    ]
    return Match("nine_ball", ("A", "B"), racks, 0, "none")


def test_break_figures_count_runs_and_wins_by_breaker():
    stats = summarize(_match())["agents"]
    a, b = stats["A"], stats["B"]
    assert (a["racks_broken"], a["break_and_runs"], a["wins_on_own_break"], a["wins_on_opponent_break"]) == (3, 1, 2, 1)
    assert (b["racks_broken"], b["break_and_runs"], b["wins_on_own_break"], b["wins_on_opponent_break"]) == (3, 1, 2, 1)
    assert a["break_and_run_rate"] == pytest.approx(1 / 3)
    assert a["break_and_run_ci95"] == list(wilson_interval(1, 3))
    assert a["win_rate_own_break"] == pytest.approx(2 / 3)
    assert a["win_rate_own_break_ci95"] == list(wilson_interval(2, 3))
    assert a["win_rate_opponent_break"] == pytest.approx(1 / 3)
    assert a["win_rate_opponent_break_ci95"] == list(wilson_interval(1, 3))
    # The own-break and opponent's-break wins add up to the racks won.
    assert a["wins_on_own_break"] + a["wins_on_opponent_break"] == a["wins"]


def test_break_figures_without_breaks_are_none_not_a_rate():
    match = _match()
    match.racks = [r for r in match.racks if r.breaker == 1]
    a = summarize(match)["agents"]["A"]
    assert a["racks_broken"] == 0 and a["break_and_run_rate"] is None and a["break_and_run_ci95"] is None
    assert a["win_rate_own_break"] is None and a["win_rate_opponent_break"] == pytest.approx(1 / 3)


def test_baselines_tables_list_the_break_figures_of_both_players():
    summary = summarize(_match())
    table = {"env": "poolgym/NineBall-v1", "racks": 6, "seed": 0, "players": ["A", "B"],
             "pairings": [{"a": "A", "b": "B", "summary": summary}]}
    text = baselines.format_markdown(table)
    assert "| player | opponent | break and run | won on own break | won on opponent's break |" in text
    row = f"| A | B | {proportion_text(1, 3)} | {proportion_text(2, 3)} | {proportion_text(1, 3)} |"
    assert row in text and "| B | A |" in text and "25-28%" in text
    agent_table = {"env": "poolgym/NineBall-v1", "racks": 6, "seed": 0, "agents": ["A"], "opponents": ["B"],
                   "training": {"A": None}, "results": [{"agent": "A", "opponent": "B", "stats": summary["agents"]["A"]}]}
    assert row in baselines.format_agent_markdown(agent_table)


def test_bench_bot_pools_the_breaker_wins_of_both_seats():
    pooled = bench_bot.pooled(summarize(_match()))
    assert pooled["break_and_runs"] == 2 and pooled["break_and_run_ci95"] == list(wilson_interval(2, 6))
    assert pooled["breaker_wins"] == 4 and pooled["breaker_win_ci95"] == list(wilson_interval(4, 6))
    assert pooled["seconds_per_move"] == pytest.approx(0.01)
    report = {"game": "nine_ball", "racks": 6, "budget": "x", "seed": 0, "settings": {"none": pooled}}
    text = bench_bot.format_report(report)
    assert f"break and run {proportion_text(2, 6)}" in text and f"breaker won {proportion_text(4, 6)}" in text
    assert "tight racks, strokes up to 10 m/s" in text
    text = bench_bot.format_report(dict(report, rack_model="benchmark", max_speed=12.0))
    assert "benchmark racks, strokes up to 12 m/s" in text


def test_bench_bot_racks_the_protocols_gaps_and_caps_the_strokes_when_asked():
    """``rack_model="benchmark"``: the racks differ from the tight ones (the same seeds), and
    no stroke, the break's included, is faster than ``max_speed``; an unknown model is named."""
    tight = bench_bot.run(racks=2, budget="weak", seed=1, noises=("tournament",))
    gapped = bench_bot.run(racks=2, budget="weak", seed=1, noises=("tournament",), rack_model="benchmark",
                           max_speed=6.0)
    assert (tight["rack_model"], tight["max_speed"]) == ("tight", 10.0)
    assert (gapped["rack_model"], gapped["max_speed"]) == ("benchmark", 6.0)
    job = ("weak", "tournament", "nine_ball", 1, range(2), "benchmark", 6.0)
    records = bench_bot._play_chunk(job)
    tight_records = bench_bot._play_chunk(("weak", "tournament", "nine_ball", 1, range(2), "tight", 10.0))
    racked = lambda rs: [r.moves[0].state.positions for r in rs]  # noqa: E731
    assert racked(records) != racked(tight_records)
    strokes = [m.move.shot.speed for r in records for m in r.moves if hasattr(m.move, "shot")]
    assert strokes and max(strokes) <= 6.0
    with pytest.raises(ValueError, match="rack_model must be one of"):
        bench_bot.run(racks=1, budget="weak", rack_model="loose")


def test_proportion_text():
    assert proportion_text(0, 0) == "n/a"
    low, high = wilson_interval(50, 200)
    assert proportion_text(50, 200) == f"25.0% [{100 * low:.1f}, {100 * high:.1f}] (50/200)"


def test_bench_bot_benches_rungs_on_the_same_racks_whatever_the_workers(tmp_path, capsys):
    import json

    from poolgym.agents.tools.cli import main

    serial = bench_bot.run_levels(("weak", "fast"), racks=2, seed=3, noises=("none",))
    out = tmp_path / "bench.json"
    assert main(["bench-bot", "--budget", "weak,fast", "--racks", "2", "--seed", "3", "--noise", "none",
                 "--workers", "2", "--json", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "budget weak" in text and "budget fast" in text and "s per move" in text
    split = json.loads(out.read_text())
    timing = {"moves_per_s_thinking", "seconds_per_move"}
    for one, other in zip(serial, split):
        assert one["budget"] == other["budget"]
        a, b = one["settings"]["none"], other["settings"]["none"]
        # The JSON round trip turns the serial report's tuples into lists, as the file has them.
        assert json.loads(json.dumps({k: v for k, v in a.items() if k not in timing})) == \
            {k: v for k, v in b.items() if k not in timing}
