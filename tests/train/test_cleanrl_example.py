"""The docs' CleanRL-style loop (``examples/cleanrl_masked_ppo.py``) runs on the batched env:
every action it plays is one the masks offer (the masked modes refuse any other), episodes
end and reset (NEXT_STEP), and its updates move the policy off its initial weights."""

import math

import torch

from poolgym.examples import cleanrl_masked_ppo as example


def test_the_cleanrl_style_loop_trains_on_the_batched_env():
    args = example.parse_args(["--total-steps", "512", "--num-envs", "8", "--num-steps", "32", "--epochs", "2",
                               "--seed", "3"])
    result = example.train(args)
    curve = result["curve"]
    assert [row["steps"] for row in curve] == [256, 512]
    assert curve[-1]["episodes"] > 0 and math.isfinite(curve[-1]["mean_return"])
    assert all(math.isfinite(row["loss"]) for row in curve)
    assert result["steps_per_s"] > 0
    trained = result["agent"]
    torch.manual_seed(3)  # what train() seeds before building its agent: the initial weights
    initial = example.Agent(trained.actor[0].in_features, trained.nvec)
    moved = [not torch.equal(a, b) for a, b in zip(trained.state_dict().values(), initial.state_dict().values())]
    assert all(moved)


def test_the_loop_on_two_processes_trains_the_same_weights():
    """``--num-workers 2``: the tables step in two processes with the same outputs, so the
    same seed trains the same network, to the last bit."""
    argv = ["--total-steps", "256", "--num-envs", "6", "--num-steps", "16", "--epochs", "1", "--seed", "4"]
    one = example.train(example.parse_args(argv))
    two = example.train(example.parse_args([*argv, "--num-workers", "2"]))
    assert [row["mean_return"] for row in one["curve"]] == [row["mean_return"] for row in two["curve"]]
    assert all(torch.equal(a, b) for a, b in zip(one["agent"].state_dict().values(),
                                                   two["agent"].state_dict().values()))
