"""Scale-out on Ray, on a three-node cluster on this machine (``ray.cluster_utils.Cluster``:
a head and two worker nodes, each its own raylet with one CPU): distributed evaluation and
baselines equal to the local run rack for rack and spread over the nodes, a worker node
removed in the middle of an evaluation and of an RLlib training run, RLlib PPO in
``choice_discrete`` with action masks, and env stepping in Ray actors. Needs the
``distributed`` extra, which CI installs."""

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

ENV = "poolgym/NineBall-v1"


class ThreeNodes:
    """The test cluster: ``cluster`` (Ray's), ``workers`` (its worker nodes, replaced when a
    test removes one)."""

    def __init__(self):
        from ray.cluster_utils import Cluster

        self.cluster = Cluster(initialize_head=True, connect=True,
                               head_node_args={"num_cpus": 1, "include_dashboard": False})
        self.workers = [self.cluster.add_node(num_cpus=1) for _ in range(2)]
        self.cluster.wait_for_nodes()

    def remove(self, node_id: str) -> None:
        """Remove the worker node ``node_id`` (its raylet and workers die) and add a fresh one."""
        (node,) = [w for w in self.workers if w.node_id == node_id]
        self.cluster.remove_node(node)
        self.workers.remove(node)
        self.workers.append(self.cluster.add_node(num_cpus=1))

    def shutdown(self):
        ray.shutdown()
        self.cluster.shutdown()


@pytest.fixture(scope="module")
def cluster():
    nodes = ThreeNodes()
    yield nodes
    nodes.shutdown()


def _without_timing(summary):
    for stats in summary["agents"].values():
        for key in ("moves_per_s_thinking", "think_s"):  # wall-clock time differs between runs
            stats.pop(key, None)
    return summary


def _local_match(specs, racks, seed, noise=None):
    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol

    played_under = protocol(ENV, noise=noise)
    agents = [make_agent(spec, played_under.rules, seed=seed + i, noise=played_under.noise,
                         max_speed=played_under.max_speed) for i, spec in enumerate(specs)]
    return run_match(played_under.rules, agents, specs, racks, seed=seed, noise=played_under.noise)


def _assert_same(remote, local):
    from poolgym.agents.evaluation.evaluate import summarize

    assert [r.winner for r in remote.racks] == [r.winner for r in local.racks]
    assert [[m.outcome for m in r.moves] for r in remote.racks] == [[m.outcome for m in r.moves] for r in local.racks]
    assert _without_timing(summarize(remote)) == _without_timing(summarize(local))


def test_evaluation_on_three_nodes_matches_the_local_run(cluster):
    """A match and a reference agent's match in one batch (as ``poolgym eval --ray``
    plays them), spread over the nodes, each equal to the local run rack for rack."""
    from poolgym.agents.evaluation.distributed import run_matches_ray

    pairs = [("fixed", "legal-random"), ("random", "legal-random")]
    racks_done = []
    spread = run_matches_ray(ENV, pairs, 6, seed=7, chunks=3, progress=racks_done.append)
    for pair, remote in zip(pairs, spread.matches):
        _assert_same(remote, _local_match(pair, 6, 7))
    assert sum(racks_done) == 12 and len(spread.nodes[0]) == 3
    assert spread.node_count() >= 2, spread.nodes


def test_eval_command_on_ray_reports_what_the_local_run_does(cluster, tmp_path, capsys):
    """``poolgym eval --ray`` (here in the cluster's session): the match and the reference
    agents' matches in one batch, the same JSON report as without Ray."""
    from poolgym.agents.tools.cli import main

    reports = []
    for extra in ([], ["--ray"]):
        path = tmp_path / f"eval{len(reports)}.json"
        assert main(["eval", "-a", "fixed", "-b", "legal-random", "--games", "4", "--seed", "2",
                     "--no-progress", "--json", str(path)] + extra) == 0
        report = json.loads(path.read_text())
        _without_timing(report)
        _without_timing(report["references"])
        reports.append(report)
    assert reports[1] == reports[0] and set(reports[0]["references"]["agents"]) == {"random", "fixed"}
    assert "played on Ray: " in capsys.readouterr().err


def test_baselines_on_ray_equal_the_local_table(cluster):
    from poolgym.agents.evaluation.baselines import baseline_table

    players = ("random", "legal-random", "fixed")
    local = baseline_table(ENV, players, racks=4, seed=3)
    remote = baseline_table(ENV, players, racks=4, seed=3, on_ray=True)
    for table in (local, remote):
        for pairing in table["pairings"]:
            _without_timing(pairing["summary"]).pop("seconds")
    assert remote == local


def test_a_chunk_is_a_pure_function_of_its_seeds():
    """What a retried task relies on: racks 2-4 played twice, in any process, are the
    local match's racks 2-4."""
    from poolgym.agents.evaluation.distributed import _play_chunk

    local = _local_match(("legal-random", "random"), 5, 11).racks[2:5]
    for _ in range(2):
        _, _, racks = _play_chunk((ENV, None, None), ("legal-random", "random"), range(2, 5), 11, {})
        assert [[m.outcome for m in r.moves] for r in racks] == [[m.outcome for m in r.moves] for r in local]


def test_evaluation_survives_a_worker_node_removed_mid_run(cluster):
    """A worker node removed when the first chunk comes back (the others are running, one
    per node): its chunk is played again elsewhere and the report is the local one."""
    from poolgym.agents.evaluation.distributed import run_matches_ray

    doomed = cluster.workers[0].node_id
    removed = []

    def remove_once(_racks):
        if not removed:
            cluster.remove(doomed)
            removed.append(doomed)

    spread = run_matches_ray(ENV, [("bot:fast", "random")], 6, seed=5, chunks=6, progress=remove_once)
    assert removed == [doomed]
    assert doomed not in {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    _assert_same(spread.matches[0], _local_match(("bot:fast", "random"), 6, 5))


def test_masked_choice_observation_counts_masked_actions():
    """The check the RLlib test relies on can fail: a masked slot given is counted (and
    refused by the env: the masks are the contract)."""
    import gymnasium

    import poolgym  # noqa: F401
    from poolgym.agents.training.rllib_train import MaskedChoiceObservation

    env = MaskedChoiceObservation(gymnasium.make(ENV, obs_mode="flat", action_mode="choice_discrete"))
    obs, _ = env.reset(seed=0)
    mask = obs["action_mask"].astype(bool)
    n_slots = int(env.action_space.nvec[0])
    assert not mask[:n_slots].all() and obs["observations"].shape == env.observation_space["observations"].shape
    action = np.zeros(len(env.action_space.nvec), dtype=np.int64)
    action[0] = int(np.flatnonzero(~mask[:n_slots])[0])
    with pytest.raises(ValueError, match=rf"^action slot {action[0]} is not offered in this state"):
        env.step(action)
    assert env.masked_actions == 1


def test_rllib_choice_discrete_with_masks_survives_a_node_and_ctrl_c_and_resumes(cluster, tmp_path):
    """RLlib PPO in choice_discrete on the cluster: env runners on two nodes, never a masked
    action sampled; a worker node holding an env runner removed after iteration 1, and
    iteration 2 goes on; Ctrl-C after it leaves a whole summary and the last checkpoint;
    the run resumes from it; the checkpoint plays as ``rllib:RUN_DIR``."""
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.match import play_rack
    from poolgym.agents.evaluation.protocol import protocol
    from poolgym.agents.training.rllib_train import train_rllib
    from poolgym.physics import Simulator

    config = {"env": {"id": ENV, "kwargs": {"action_mode": "choice_discrete", "shaping_gamma": 0.99}},
              "iterations": 2, "num_env_runners": 2, "train_batch_size": 64, "minibatch_size": 32,
              "num_epochs": 1, "checkpoint_every": 1, "hiddens": [32]}
    runner_nodes = []

    def after(algo, row):
        if row["iteration"] == 1:
            runner_nodes.extend(algo.env_runner_group.foreach_env_runner(
                lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False))
            cluster.remove(next(n for n in runner_nodes if n in {w.node_id for w in cluster.workers}))
        else:
            raise KeyboardInterrupt  # as Ctrl-C would, between iterations

    with pytest.raises(KeyboardInterrupt):
        train_rllib(config, tmp_path, on_iteration=after)
    assert len(set(runner_nodes)) == 2  # one CPU per node: each env runner has a node of its own
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [row["iteration"] for row in summary["history"]] == [1, 2]
    assert all(row["masked_actions"] == 0 and row["env_steps"] >= 64 * row["iteration"] for row in summary["history"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint-000002", "summary.json"]

    # Resumed in the driver alone (no env runner processes to start: seconds, not a minute).
    resumed = train_rllib({**config, "iterations": 3, "num_env_runners": 0}, tmp_path, resume=True)
    assert resumed["history"][:2] == summary["history"] and resumed["history"][2]["iteration"] == 3
    assert resumed["history"][2]["masked_actions"] == 0
    assert resumed["history"][2]["env_steps"] >= summary["history"][1]["env_steps"] + 64
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint-000003", "summary.json"]

    played_under = protocol(ENV)
    agent = make_agent(f"rllib:{tmp_path}", played_under.rules, max_speed=played_under.max_speed)
    assert agent.env_record["action_mode"] == "choice_discrete"
    opponent = make_agent("random", played_under.rules, seed=1)
    rack = play_rack(played_under.rules, Simulator(played_under.rules.table, noise=played_under.noise),
                     [agent, opponent], np.random.default_rng(0), breaker=0)
    assert rack.moves


def test_env_steps_in_ray_actors(cluster):
    from poolgym.agents.tools.scale_bench import ray_rate

    row = ray_rate("poolgym/NineBall-v0", workers=2, steps_per_worker=20)
    assert row["steps"] == 40 and row["steps_per_s"] > 0


@pytest.mark.parametrize("text, message", [
    ("backend: rllib\n", "missing key 'env'"),
    ("env: {id: poolgym/PotBall-v0}\niterations: two\n", "key 'iterations' must be int"),
    ("env: {id: poolgym/PotBall-v0}\nworkers: 2\n", "unknown key 'workers'"),
    ("env: {id: poolgym/PotBall-v0}\nbackend: sb3\n", "key 'backend' must be 'rllib'"),
    ("env: {id: poolgym/PotBall-v0}\ncheckpoint_every: 0\n", "key 'checkpoint_every' must be positive"),
    ("env: {id: poolgym/PotBall-v0}\nhiddens: [64, 0]\n", "key 'hiddens' must be a list of positive"),
    ("env: {id: poolgym/PotBall-v0}\ntrain_batch_size: 64\nminibatch_size: 128\n",
     "key 'minibatch_size' must be at most train_batch_size"),
    ("env: {id: poolgym/PotBall-v0, kwargs: {opponent: 'os:system'}}\n", "key 'env.kwargs.opponent'"),
    ("env: {id: poolgym/NineBall-v1, kwargs: {action_mode: choice_canonical}}\n",
     "key 'env.kwargs.action_mode': the RLlib backend masks choice_discrete's actions only"),
])
def test_rllib_config_errors_name_the_key_and_the_file(tmp_path, text, message):
    from poolgym.agents.training.rllib_train import load_rllib_config

    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        load_rllib_config(path)
    assert str(path) in str(err.value)


def test_resume_without_a_checkpoint_is_refused(tmp_path):
    from poolgym.agents.training.rllib_train import train_rllib

    with pytest.raises(ValueError, match="no checkpoint to resume from"):
        train_rllib({"env": {"id": ENV}}, tmp_path, resume=True)


@pytest.mark.parametrize("name, mode", [("rllib_ppo.yaml", "aim"), ("rllib_ppo_choice.yaml", "choice_discrete")])
def test_shipped_rllib_configs_are_valid(name, mode):
    from pathlib import Path

    from poolgym.agents.training.rllib_train import load_rllib_config

    config = load_rllib_config(Path(__file__).resolve().parents[2] / "configs" / "train" / name)
    assert config["env"]["id"] == ENV and config["env"]["kwargs"]["action_mode"] == mode


def test_shipped_cluster_yaml_passes_rays_schema():
    from pathlib import Path

    import yaml
    from ray.autoscaler._private.util import prepare_config, validate_config

    path = Path(__file__).resolve().parents[2] / "configs" / "ray" / "cluster.yaml"
    config = prepare_config(yaml.safe_load(path.read_text()))
    validate_config(config)
    assert config["available_node_types"]["cpu_worker"]["min_workers"] == 2


def test_an_rllib_agent_spec_that_is_no_run_is_one_line(tmp_path):
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol

    with pytest.raises(ValueError, match="not an RLlib checkpoint of poolgym train"):
        make_agent(f"rllib:{tmp_path}", protocol(ENV).rules)


@pytest.mark.parametrize("argv, message", [
    (["train", "--config", "configs/train/default.yaml", "--resume-run"], "--resume-run goes on from an RLlib run"),
    (["baselines", "--agents", "random", "--ray"], "--ray / --address play the ladder's pairings"),
])
def test_ray_options_out_of_place_are_one_line(capsys, argv, message):
    from pathlib import Path

    from poolgym.agents.tools.cli import main

    root = Path(__file__).resolve().parents[2]
    argv = [str(root / a) if a.startswith("configs/") else a for a in argv]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_masked_choice_observation_leaves_an_action_out_of_range_to_the_env():
    import gymnasium

    import poolgym  # noqa: F401
    from poolgym.agents.training.rllib_train import MaskedChoiceObservation

    env = MaskedChoiceObservation(gymnasium.make(ENV, obs_mode="flat", action_mode="choice_discrete"))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.full(len(env.action_space.nvec), 99))
    assert env.masked_actions == 0
