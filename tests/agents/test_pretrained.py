"""The pretrained 9-ball agent shipped inside the package (``pretrained:nine_ball``)."""

import json

import gymnasium as gym
import numpy as np
import pytest

import poolgym  # noqa: F401  (registers the envs)
from poolgym.agents.evaluation.evaluate import run_match, summarize, wilson_interval
from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.evaluation.protocol import protocol
from poolgym.agents.pretrained import PRETRAINED, pretrained_card, pretrained_dir, pretrained_model
from poolgym.agents.tools.cli import main
from poolgym.envs.sb3_models import read_env_record
from poolgym.rules import get_ruleset

SPEC = "pretrained:nine_ball"


def test_the_shipped_files_describe_one_run():
    folder = pretrained_dir("nine_ball")
    for name in ("model.zip", "card.json", "config.json", "summary.json", "curve.json", "curve.png",
                 "training_log.json"):
        assert (folder / name).is_file(), name
    card, record = pretrained_card("nine_ball"), read_env_record(pretrained_model("nine_ball"))
    summary = json.loads((folder / "summary.json").read_text())
    assert card["game"] == PRETRAINED["nine_ball"] == "nine_ball"
    assert card["env_id"] == record["env_id"] == "poolgym/NineBall-v1"
    assert card["algorithm"] == record["algorithm"] and card["steps"] == summary["steps"] > 0
    assert card["seed"] == summary["config"]["seed"]
    log = json.loads((folder / "training_log.json").read_text())
    if card.get("steps_are") == "imitation samples":  # behaviour cloning: what it was fitted to
        assert log == summary["imitation"] and log["rows"] > 0 and summary["config"]["algorithm"] == "BC"
    else:
        assert sum(row["episodes"] for row in log) > 0


def test_unknown_or_misplaced_pretrained_agents_are_refused_by_name():
    with pytest.raises(ValueError, match="unknown pretrained agent 'ten_ball'.*pretrained:nine_ball"):
        make_agent("pretrained:ten_ball", get_ruleset("nine_ball"))
    with pytest.raises(ValueError, match="pretrained:nine_ball plays nine_ball, not eight_ball"):
        make_agent(SPEC, get_ruleset("eight_ball"))


def test_the_pretrained_agent_beats_random_in_a_short_seeded_match():
    p = protocol("poolgym/NineBall-v1")
    agent = make_agent(SPEC, p.rules, seed=0, noise=p.noise, max_speed=p.max_speed)
    random = make_agent("random", p.rules, seed=0, noise=p.noise, max_speed=p.max_speed)
    summary = summarize(run_match(p.rules, (agent, random), (SPEC, "random"), 20, seed=11, noise=p.noise))
    wins = summary["agents"][SPEC]["wins"]
    assert wilson_interval(wins, 20)[0] > 0.5, summary["agents"][SPEC]


def test_the_agent_acts_on_one_torch_thread_and_leaves_torch_as_it_was():
    """Its policy runs on one thread (a second only spins on products this small), and
    torch's thread count is restored after every move."""
    import torch

    p = protocol("poolgym/NineBall-v1")
    agent = make_agent(SPEC, p.rules, seed=0, noise=p.noise, max_speed=p.max_speed)
    states = [move.state for rack in run_match(p.rules, (agent, agent), ("a", "b"), 2, seed=3, noise=p.noise).racks
              for move in rack.moves if not move.state.awaiting_break][:12]
    seen = []
    predict = agent.policy.model.predict

    def spy(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return predict(*args, **kwargs)

    before = torch.get_num_threads()
    agent.policy.model.predict = spy
    torch.set_num_threads(2)
    try:
        for state in states:
            agent.choose(state)
            assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert len(seen) == len(states) and set(seen) == {1}


def test_the_pretrained_agent_is_an_env_opponent():
    env = gym.make("poolgym/NineBall-v1", opponent=SPEC)
    env.reset(seed=4)
    env.action_space.seed(4)
    shots_by_opponent = 0
    for _ in range(12):
        _, _, terminated, truncated, info = env.step(env.action_space.sample())
        shots_by_opponent += sum(1 for o in info["outcomes"] if o.shooter == 1)
        if terminated or truncated:
            env.reset()
    env.close()
    assert shots_by_opponent > 0


def test_eval_and_play_take_the_pretrained_agent(tmp_path, capsys):
    assert main(["eval", "-a", SPEC, "-b", "legal-random", "--games", "2", "--no-progress"]) == 0
    assert SPEC in capsys.readouterr().out
    gif = tmp_path / "rack.gif"
    assert main(["play", "-a", SPEC, "-b", "random", "--gif", str(gif), "--seed", "3"]) == 0
    assert gif.stat().st_size > 0


def test_the_package_s_own_agent_loads_as_data_from_anywhere_without_a_warning(tmp_path):
    import shutil
    import warnings

    from poolgym.envs import model_data

    rules = get_ruleset("nine_ball")
    copy = tmp_path / "model.zip"
    shutil.copy(pretrained_model("nine_ball"), copy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_agent(SPEC, rules)
        # The same file from elsewhere is read the same way: as data, nothing unpickled.
        make_agent(f"MaskablePPO:{copy}", rules)
    assert model_data.pickled_entries(model_data.read_data(str(copy), model_data.read_model_zip(str(copy))[1]))
