"""The public random-rollout checker: passes on the shipped games, fails on broken ones."""

import pytest

from poolgym.rules import NineBall, RulesetCheckError, check_ruleset, get_ruleset


@pytest.mark.parametrize("name, games", [("nine_ball", 1000), ("ten_ball", 1000)])
def test_check_ruleset_passes_for_shipped_games(name, games):
    report = check_ruleset(get_ruleset(name), n_games=games, seed=2024)
    assert report.games == games
    assert sum(report.wins.values()) + report.stalemates == games
    assert report.wins[0] > games // 4 and report.wins[1] > games // 4
    for section in ("6.1", "6.2", "6.3", "6.5", "6.10", "6.14"):
        assert report.fouls[section] > 0, section
    assert report.decision_kinds["push_out_response"] > 0


def test_check_ruleset_is_reproducible():
    rules = get_ruleset("ten_ball")
    assert check_ruleset(rules, 30, seed=5) == check_ruleset(rules, 30, seed=5)


class ForgetsPocketedBalls(NineBall):
    """Broken: legally pocketed balls vanish instead of going out of play."""

    def legal_verdict(self, state, call, events, balls, out, warnings):
        verdict = super().legal_verdict(state, call, events, balls, out, warnings)
        verdict.out_of_play = set(state.out_of_play)
        return verdict


class KeepsTableAfterFoul(NineBall):
    """Broken: the fouling player keeps shooting."""

    def foul_verdict(self, state, events, fouls, warnings, balls, out):
        verdict = super().foul_verdict(state, events, fouls, warnings, balls, out)
        verdict.next_shooter = state.shooter
        return verdict


class CrashesOnCombinations(NineBall):
    """Broken: an error on any shot pocketing two balls."""

    def judge_shot(self, state, call, events):
        if len(events.object_balls_pocketed) > 1:
            raise KeyError("combination")
        return super().judge_shot(state, call, events)


class NeverSpotsTheNine(NineBall):
    """Broken: the 9-ball pocketed on a foul stays out of play (against WPA 2.6) and the
    rack can end with no balls left and no winner."""

    def spot_money_ball(self, balls, out):
        return []


@pytest.mark.parametrize("broken, message", [
    (ForgetsPocketedBalls, "balls not conserved"),
    (KeepsTableAfterFoul, "after a foul the table must go to the opponent"),
    (CrashesOnCombinations, "apply_shot raised KeyError"),
    (NeverSpotsTheNine, "no object ball is left on the table"),
])
def test_check_ruleset_fails_loudly_on_broken_rulesets(broken, message):
    with pytest.raises(RulesetCheckError, match=message):
        check_ruleset(broken(), n_games=300, seed=1)
