"""The baseline tables: the ladder's pairings and agents against chosen opponents."""

import pytest

from poolgym.agents.evaluation import baselines
from poolgym.agents.evaluation.evaluate import run_match, summarize
from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.evaluation.protocol import protocol
from poolgym.agents.tools.cli import main


def test_agent_table_plays_each_agent_against_each_opponent_on_the_same_racks():
    table = baselines.agent_table(["fixed", "random"], ["legal-random"], racks=4, seed=3)
    assert [(r["agent"], r["opponent"]) for r in table["results"]] == [("fixed", "legal-random"),
                                                                      ("random", "legal-random")]
    # The same racks as a match played directly under the protocol, agent A breaking the even racks.
    p = protocol("poolgym/NineBall-v1")
    players = [make_agent(s, p.rules, seed=3 + i, noise=p.noise, max_speed=p.max_speed)
               for i, s in enumerate(("fixed", "legal-random"))]
    direct = summarize(run_match(p.rules, players, ("A", "B"), 4, seed=3, noise=p.noise))["agents"]["A"]
    fixed = table["results"][0]["stats"]
    assert fixed["wins"] == direct["wins"] and fixed["pot_attempts"] == direct["pot_attempts"]
    assert fixed["balls_pocketed_legally"] >= fixed["pots_made"]
    assert table["training"] == {"fixed": None, "random": None}
    text, _, breaks = baselines.format_agent_markdown(table).partition("Break figures")
    rows = [line for line in text.splitlines() if line.startswith("| fixed") or line.startswith("| random")]
    assert "| fixed | legal-random |" in breaks and "| random | legal-random |" in breaks
    assert len(rows) == 2 and rows[0].count("|") == 7
    balls = fixed["balls_pocketed_legally"] / fixed["innings"]
    assert f"| {balls:.2f} |" in rows[0]


def test_baselines_agents_option_refuses_unknown_agents(capsys):
    assert main(["baselines", "--agents", "fixed,nobody", "--racks", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nobody" in err[0]
    with pytest.raises(ValueError, match="unknown pretrained agent"):
        baselines.training_run("pretrained:nobody")


def test_a_model_agent_plays_in_worker_processes():
    """The command loads a model agent (torch) before it starts its workers; forked workers
    of such a process hung. Run as the user would, in a process of its own, with a bound."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "poolgym.agents.tools.cli", "baselines", "--agents", "pretrained:nine_ball,fixed",
               "--opponents", "legal-random", "--racks", "1", "--workers", "2"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "| pretrained:nine_ball |" in done.stdout and "| fixed |" in done.stdout


def test_baselines_counts_its_racks_on_a_progress_bar(capsys):
    counted = []
    table = baselines.agent_table(["fixed"], ["random", "legal-random"], racks=3, seed=1, advance=counted.append)
    assert sum(counted) == 6 and len(table["results"]) == 2
    assert main(["baselines", "--agents", "fixed", "--opponents", "random", "--racks", "2"]) == 0
    err = capsys.readouterr().err
    assert "baselines (1 agents x 1 opponents)" in err and "2/2" in err
    assert main(["baselines", "--agents", "fixed", "--opponents", "random", "--racks", "2", "--no-progress"]) == 0
    assert "baselines" not in capsys.readouterr().err
