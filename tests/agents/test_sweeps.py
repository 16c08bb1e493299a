"""A slice of the benchmark checks (``poolgym check-benchmark``) on poolgym/NineBall-v1: the
full sweeps (500 actions each) are in the README; these run a few actions on few racks."""

import numpy as np

from poolgym.agents.evaluation import sweeps
from poolgym.agents.tools.cli import main


def test_the_break_that_won_every_v0_rack_does_not_pocket_the_nine_on_v1():
    v1 = sweeps.BreakSweep("poolgym/NineBall-v1", "aim", breaks=40, seed=0)(sweeps.V0_AIM_EXPLOIT)
    assert v1["rate"] <= 0.10


def test_a_slice_of_the_break_sweeps_finds_no_memorised_break():
    for mode in ("aim", "raw"):
        results = sweeps.sweep_breaks(mode, actions=6, breaks=30, seed=1)
        assert len(results) == 6 and all(r["breaks"] == 30 for r in results)
        assert sweeps.best(results)["rate"] <= 0.10


def test_raw_break_actions_aim_at_the_rack():
    env = sweeps._game_env("poolgym/NineBall-v1")
    env.reset(seed=0, options={"breaker": 0})
    touched = 0
    for action in sweeps.break_actions("raw", 10, seed=2):
        record = env.play_move(np.asarray(action))
        touched += record.result.first_contact is not None
        env.reset(seed=0, options={"breaker": 0})
    assert touched == 10


def test_a_slice_of_the_constant_play_sweep_finds_no_state_independent_winner():
    results = sweeps.sweep_constant_play(actions=4, racks=12, seed=3, workers=2)
    assert [r["racks"] for r in results] == [12] * 4
    assert sweeps.best(results)["rate"] <= 0.35


def test_break_statistics_count_consistently():
    stats = sweeps.break_statistics("poolgym/NineBall-v1", breaks=40, seed=5)
    assert stats.breaks == 40
    assert stats.made_ball_no_foul <= stats.made_ball <= 40
    assert stats.money_ball <= stats.made_ball and stats.scratches <= stats.fouls
    tight = sweeps.break_statistics("poolgym/NineBall-v1", breaks=40, seed=5, rack_model="tight",
                                    noise="none")
    assert tight.made_ball != stats.made_ball or tight.scratches != stats.scratches


def test_check_benchmark_command_writes_its_report(tmp_path, capsys):
    out = tmp_path / "breaks.json"
    assert main(["check-benchmark", "breaks", "-n", "12", "--json", str(out)]) == 0
    assert "made_ball" in capsys.readouterr().out and out.exists()
