"""A small slice of ``poolgym soak --games``: random games through every game env and ruleset."""

import json

import pytest

from poolgym.agents.tools.cli import build_parser, main
from poolgym.agents.tools.soak import GAME_FAILURES, game_env_ids, game_failures, run_game_soak


def test_random_games_through_every_game_env_keep_every_invariant():
    report = run_game_soak(games=3, seed=7, max_steps=60)  # random 14.1 games run to the limit
    played_or_not = set(report["envs"]) | {k for k in report["unavailable"] if not k.startswith("rules ")}
    assert played_or_not == set(game_env_ids())
    assert {"poolgym/NineBall-v0", "poolgym/EightBall-v0", "poolgym/TenBall-v0"} <= set(report["envs"])
    assert {"nine_ball", "eight_ball", "ten_ball"} <= set(report["rules"])
    for row in list(report["envs"].values()) + list(report["rules"].values()):
        assert row["examples"] == []
        for key in GAME_FAILURES:
            assert row.get(key, 0) == 0, key
    for row in report["envs"].values():
        assert row["finished"] + row["truncated"] == 3 and row["shots"] >= 3
    assert game_failures(report) == 0


def test_game_soak_plays_variants_of_the_discrete_choice_mode():
    """A registered variant in choice_discrete is soaked with masked random actions."""
    from poolgym.registration import register_variant

    env_id = register_variant("test/SoakChoiceDiscrete-v0", game="nine_ball", action_mode="choice_discrete",
                              noise="tournament")
    report = run_game_soak(games=2, seed=3, env_ids=[env_id], max_steps=40)
    row = report["envs"][env_id]
    assert row["examples"] == [] and row["crashes"] == 0 and row["shots"] >= 2
    assert row["finished"] + row["truncated"] == 2


def test_soak_command_with_games_writes_its_report(tmp_path, capsys):
    out = tmp_path / "soak.json"
    assert main(["soak", "--shots", "20", "--games", "1", "--max-steps", "20", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["physics"]["shots"] == 20 and report["games"]["games"] == 1
    text = capsys.readouterr().out
    assert "random shots" in text and "poolgym/NineBall-v0" in text and "rules nine_ball" in text


@pytest.mark.parametrize("argv", [["soak", "--games", "-1"], ["soak", "--games", "many"], ["soak", "--shots", "-5"]])
def test_bad_soak_counts_exit_with_usage(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(argv)
    assert exit_info.value.code == 2
    assert argv[1] in capsys.readouterr().err


def test_soak_command_can_take_one_env(capsys):
    assert main(["soak", "--shots", "0", "--games", "1", "--env", "poolgym/TenBall-v0", "--max-steps", "5"]) == 0
    text = capsys.readouterr().out
    assert "poolgym/TenBall-v0" in text and "poolgym/NineBall-v0" not in text
    assert "rules ten_ball" in text and "rules eight_ball" in text  # every ruleset, whichever envs


@pytest.mark.parametrize("mode", ["choice", "choice_discrete"])
def test_the_soak_command_makes_the_games_in_the_action_mode_asked_for(mode, tmp_path, capsys, monkeypatch):
    """--action-mode reaches the envs: the choice modes' slots, masks and placements are
    played (a choice mode's env has candidate slots; the default mode's has none)."""
    import gymnasium as gym

    from poolgym.envs.choice import ChoiceMapper

    made = []
    real_make = gym.make

    def recording_make(env_id, **kwargs):
        env = real_make(env_id, **kwargs)
        made.append(env.unwrapped.mapper)
        return env

    out = tmp_path / "soak.json"
    monkeypatch.setattr(gym, "make", recording_make)
    code = main(["soak", "--shots", "0", "--games", "2", "--env", "poolgym/NineBall-v1", "--max-steps", "20",
                 "--action-mode", mode, "--json", str(out)])
    assert code == 0
    assert len(made) == 1 and isinstance(made[0], ChoiceMapper) and made[0].mode == mode
    report = json.loads(out.read_text())["games"]
    assert report["action_mode"] == mode and report["envs"]["poolgym/NineBall-v1"]["shots"] >= 2
    assert f"action mode {mode}" in capsys.readouterr().out
