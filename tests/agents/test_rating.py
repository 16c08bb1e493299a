"""Ratings on the Elo scale (``poolgym.agents.evaluation.rating``): the Bradley-Terry fit
recovers known ratings from simulated racks, ``rate`` is fixed by its seed, a rung rated
again against the others lands where the ladder put it, and ``poolgym rate`` on the
command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from poolgym.agents.evaluation import rating
from poolgym.agents.tools.cli import main

TRUE = {"a": 1000.0, "b": 1120.0, "c": 1250.0, "d": 880.0, "e": 1500.0}


def simulated(ratings: dict[str, float], racks: int, seed: int) -> list[rating.Pairing]:
    """Every pairing of ``ratings`` playing ``racks`` racks won as Bradley-Terry says."""
    rng = np.random.default_rng(seed)
    names = list(ratings)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            wins = int(rng.binomial(racks, rating.win_probability(ratings[a], ratings[b])))
            out.append(rating.Pairing(a, b, wins, 0, racks - wins))
    return out


def test_fit_recovers_known_ratings():
    pairings = simulated(TRUE, 600, seed=1)
    fitted = rating.fit_ratings(pairings, anchor=("a", 1000.0))
    assert fitted["a"] == 1000.0
    for name, value in TRUE.items():
        assert abs(fitted[name] - value) < 25, (name, fitted[name], value)
    draws = rating.bootstrap(pairings, anchor=("a", 1000.0), samples=200, seed=0)
    for name, value in TRUE.items():
        if name != "a":
            low, high = rating.interval(draws[name])
            assert low < value < high, (name, low, high, value)
            assert high - low < 100


def test_fit_with_fixed_ratings_rates_a_new_player():
    rng = np.random.default_rng(2)
    new = 1180.0
    pairings = []
    for name, value in TRUE.items():
        wins = int(rng.binomial(800, rating.win_probability(new, value)))
        pairings.append(rating.Pairing("new", name, wins, 0, 800 - wins))
    fitted = rating.fit_ratings(pairings, fixed=TRUE)
    assert {k: fitted[k] for k in TRUE} == TRUE
    assert abs(fitted["new"] - new) < 25


def test_the_fit_on_exact_results_is_exact():
    """Racks won exactly as often as the model says give back the ratings (the prior off)."""
    pairings = [rating.Pairing("x", "y", 760, 0, 240), rating.Pairing("y", "z", 500, 0, 500)]
    fitted = rating.fit_ratings(pairings, anchor=("y", 1000.0), prior_draws=0.0)
    assert fitted["x"] == pytest.approx(1000 + 400 * np.log10(760 / 240), abs=1e-6)
    assert fitted["z"] == pytest.approx(1000.0, abs=1e-6)


def test_a_perfect_record_is_finite_and_a_draw_counts_half():
    fitted = rating.fit_ratings([rating.Pairing("x", "y", 20, 0, 0)], fixed={"y": 1000.0})
    # 20.5 of 21 (the prior's drawn rack counts half).
    assert fitted["x"] == pytest.approx(1000 + 400 * np.log10(20.5 / 0.5), abs=1e-6)
    drawn = rating.fit_ratings([rating.Pairing("x", "y", 0, 10, 0)], fixed={"y": 1000.0})
    assert drawn["x"] == pytest.approx(1000.0, abs=1e-6)


def test_a_player_with_no_racks_against_known_ones_is_refused():
    with pytest.raises(ValueError, match="undetermined"):
        rating.fit_ratings([rating.Pairing("x", "y", 3, 0, 3), rating.Pairing("a", "b", 1, 0, 1)],
                           fixed={"a": 1000.0})
    with pytest.raises(ValueError, match="anchor"):
        rating.fit_ratings([rating.Pairing("x", "y", 3, 0, 3)])


def test_the_shipped_ladder_orders_its_rungs():
    ladder = rating.read_ladder()
    assert set(ladder["ratings"]) == set(rating.LADDER_RUNGS)
    assert ladder["ratings"][rating.ANCHOR]["rating"] == rating.ANCHOR_RATING
    racks = {(p["a"], p["b"]): p["racks"] for p in ladder["pairings"]}
    assert len(racks) == len(rating.LADDER_RUNGS) * (len(rating.LADDER_RUNGS) - 1) // 2
    for name, row in ladder["ratings"].items():
        low, high = row["ci95"]
        assert low <= row["rating"] <= high, name
    # Each adjacent pair is reported separated or not, by its difference's interval.
    for pair in ladder["adjacent"]:
        assert pair["separated"] == (pair["ci95"][0] > 0)
    ratings = rating.ladder_ratings(ladder)
    assert ratings["random"] < ratings["legal-random"] < ratings["bot:fast"] < ratings["bot:pro-deep"]


# The rungs near the bottom of the ladder: fast to play against.
SMALL_LADDER = ("legal-random", "fixed", "bot:weak", "bot:fast")


def small_ladder() -> dict:
    ladder = rating.read_ladder()
    return {**ladder, "ratings": {n: ladder["ratings"][n] for n in SMALL_LADDER}}


def test_rate_is_fixed_by_its_seed():
    games = rating.PROBE_RACKS * len(SMALL_LADDER) + 2 * rating.ROUND_RACKS * rating.ROUND_RUNGS
    runs = [rating.rate("bot:weak", games=games, seed=s, ladder=small_ladder()) for s in (7, 7, 8)]
    first, again, other = (r.to_json() for r in runs)
    for result in (first, again, other):
        assert result["racks"] == games
        assert sum(p["wins"] + p["draws"] + p["losses"] for p in result["against"]) == games
    # The probe (every rung, weakest first), then two rounds against the two rungs nearest
    # an even chance.
    ratings = rating.ladder_ratings(small_ladder())
    assert first["schedule"][:len(SMALL_LADDER)] == [[n, rating.PROBE_RACKS]
                                                     for n in sorted(SMALL_LADDER, key=ratings.get)]
    assert len(first["schedule"]) == len(SMALL_LADDER) + 2 * rating.ROUND_RUNGS
    for key in ("rating", "ci95", "against", "schedule"):
        assert first[key] == again[key], key
    assert first["against"] != other["against"]


def test_a_rung_rated_again_lands_within_the_interval():
    """``fixed`` rated against the other rungs lands where the ladder put it: the two
    ratings differ by less than the 95% interval of their difference (the half-widths of
    the two intervals combined, as for independent estimates)."""
    ladder = rating.read_ladder()
    known = ladder["ratings"]["fixed"]
    others = {**ladder, "ratings": {n: r for n, r in ladder["ratings"].items() if n != "fixed"}}
    result = rating.rate("fixed", games=120, seed=11, ladder=others)
    assert result.racks == 120
    half = np.hypot((result.ci95[1] - result.ci95[0]) / 2, (known["ci95"][1] - known["ci95"][0]) / 2)
    assert abs(result.rating - known["rating"]) <= half, (known, result.rating, result.ci95)
    assert result.ci95[1] - result.ci95[0] < 300


def test_rate_command_writes_json(tmp_path, capsys):
    out = tmp_path / "rating.json"
    assert main(["rate", "fixed", "--games", "6", "--seed", "3", "--no-progress", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["agent"] == "fixed" and data["racks"] == 6 and data["seed"] == 3
    assert data["ci95"][0] <= data["rating"] <= data["ci95"][1]
    assert "fixed:" in capsys.readouterr().out


@pytest.mark.parametrize("content, field", [("{", "invalid JSON"), ('{"ratings": {}}', "'ratings'"),
                                            ('{"ratings": {"fixed": {"rating": "high"}}}', "ratings.fixed.rating")])
def test_rate_refuses_a_bad_ladder_file_in_one_line(tmp_path, capsys, content, field):
    bad = tmp_path / "ladder.json"
    bad.write_text(content)
    assert main(["rate", "fixed", "--games", "2", "--ladder", str(bad), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(bad) in err and field in err


def test_a_break_and_run_is_a_rack_the_opponent_never_moved_in():
    row = {"breaker": 1, "winner": 1, "moves": [0, 9]}
    assert rating.is_break_and_run(row)
    # The opponent's one move (a shot, or an illegal move that forfeited the rack) ends it.
    assert not rating.is_break_and_run({**row, "moves": [1, 9]})
    assert not rating.is_break_and_run({**row, "winner": 0})
