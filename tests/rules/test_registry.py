"""Looking rulesets up by name and registering new ones."""

import pytest

from poolgym.rules import (NineBall, RuleOptions, TenBall, available_rulesets, get_ruleset,
                           register_ruleset)
from poolgym.table import Table


def test_shipped_games_by_name():
    assert isinstance(get_ruleset("nine_ball"), NineBall)
    assert isinstance(get_ruleset("ten_ball"), TenBall)
    assert {"nine_ball", "ten_ball"} <= set(available_rulesets())


def test_options_and_table_are_passed_on():
    options = RuleOptions(ten_ball_break_ten_wins=False)
    rules = get_ruleset("ten_ball", options=options, table=Table.preset("7ft"))
    assert rules.options is options and rules.table.name == "7ft"
    assert rules.new_game(rng=0).position(1) == pytest.approx(Table.preset("7ft").foot_spot)


def test_register_a_variant_and_refuse_duplicates():
    @register_ruleset("seven_ball_test")
    class SevenBall(NineBall):
        name = "seven_ball_test"
        object_balls = tuple(range(1, 8))
        money_ball = 7
        rack_rows = (1, 2, 1, 2, 1)
        money_ball_slot = 3

    rules = get_ruleset("seven_ball_test")
    state = rules.new_game(rng=1)
    assert sorted(state.on_table) == list(range(1, 8)) and isinstance(rules, SevenBall)
    with pytest.raises(ValueError, match="already registered"):
        register_ruleset("seven_ball_test", NineBall)


def test_options_reject_unknown_names_and_wrong_types():
    with pytest.raises(ValueError, match="unknown rule options"):
        RuleOptions.from_dict({"ten_ball_break_ten_loses": True})
    with pytest.raises(ValueError, match="must be a bool"):
        RuleOptions(illegal_break_is_foul="yes")
    assert RuleOptions.from_dict(RuleOptions().to_dict()) == RuleOptions()
