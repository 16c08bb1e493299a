"""Scale-out on Ray: one RLlib training iteration on a poolgym env, and env stepping in Ray
actors. Needs the ``distributed`` extra, which CI installs."""

import json

import pytest

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_one_rllib_training_iteration_on_a_poolgym_env(local_ray, tmp_path):
    from poolgym.agents.training.rllib_train import train_rllib

    summary = train_rllib({"env": {"id": "poolgym/PotBall-v0", "kwargs": {"action_mode": "aim"}},
                           "iterations": 1, "num_env_runners": 2, "train_batch_size": 128,
                           "minibatch_size": 64, "num_epochs": 1}, tmp_path)
    (row,) = summary["history"]
    assert row["env_steps"] >= 128 and row["episodes"] >= 1
    assert json.loads((tmp_path / "summary.json").read_text())["iterations"] == 1
    assert (tmp_path / "checkpoint").is_dir()


def test_env_steps_in_ray_actors(local_ray):
    from poolgym.agents.tools.scale_bench import ray_rate

    row = ray_rate("poolgym/NineBall-v0", workers=2, steps_per_worker=20)
    assert row["steps"] == 40 and row["steps_per_s"] > 0


@pytest.mark.parametrize("text, message", [
    ("backend: rllib\n", "missing key 'env'"),
    ("env: {id: poolgym/PotBall-v0}\niterations: two\n", "key 'iterations' must be int"),
    ("env: {id: poolgym/PotBall-v0}\nworkers: 2\n", "unknown key 'workers'"),
    ("env: {id: poolgym/PotBall-v0}\nbackend: sb3\n", "key 'backend' must be 'rllib'"),
])
def test_rllib_config_errors_name_the_key_and_the_file(tmp_path, text, message):
    from poolgym.agents.training.rllib_train import load_rllib_config

    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        load_rllib_config(path)
    assert str(path) in str(err.value)


def test_shipped_rllib_config_is_valid():
    from pathlib import Path

    from poolgym.agents.training.rllib_train import load_rllib_config

    config = load_rllib_config(Path(__file__).resolve().parents[2] / "configs" / "train" / "rllib_ppo.yaml")
    assert config["env"]["id"] == "poolgym/NineBall-v1" and config["num_env_runners"] == 2


def _without_timing(summary):
    for stats in summary["agents"].values():
        stats.pop("moves_per_s_thinking", None)  # wall-clock speed differs between runs
    return summary


@pytest.mark.parametrize("specs, noise", [(("bot:fast", "random"), "none"), (("random", "random"), "tournament")])
def test_distributed_evaluation_matches_the_local_run(local_ray, specs, noise):
    from poolgym.agents.evaluation.distributed import run_match_ray
    from poolgym.agents.evaluation.evaluate import run_match, summarize
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol

    played_under = protocol("poolgym/NineBall-v1", noise=noise)
    rules = played_under.rules
    agents = [make_agent(spec, rules, seed=7 + i, noise=noise, max_speed=played_under.max_speed)
              for i, spec in enumerate(specs)]
    local = run_match(rules, agents, specs, 6, seed=7, noise=noise)
    remote = run_match_ray("poolgym/NineBall-v1", specs, 6, seed=7, noise=noise, chunks=3)
    assert [r.winner for r in remote.racks] == [r.winner for r in local.racks]
    assert [[m.outcome for m in r.moves] for r in remote.racks] == [[m.outcome for m in r.moves] for r in local.racks]
    assert _without_timing(summarize(remote)) == _without_timing(summarize(local))
