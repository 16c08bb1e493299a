"""Minari datasets of recorded play (``poolgym collect``) and behaviour cloning from them."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces

minari = pytest.importorskip("minari")

from poolgym.agents.datasets.collect import (SHIPPED_DATASET_ID, SHIPPED_DATASETS_PATH, check_dataset_id,
                                             collect, describe)
from poolgym.agents.tools.cli import main

NINE = {"env_id": "poolgym/NineBall-v1", "action_mode": "choice_discrete", "obs_mode": "flat"}


@pytest.fixture
def data_path(tmp_path, monkeypatch):
    """A fresh Minari data path for the test (Minari reads it from the environment)."""
    path = tmp_path / "minari"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(path))
    return path


def _seed(dataset, episode) -> int:
    return next(iter(dataset.storage.get_episode_metadata([episode.id])))["seed"]


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return np.array_equal(a, b)


def _at(observations, t):
    return {k: v[t] for k, v in observations.items()} if isinstance(observations, dict) else observations[t]


def _replays_exactly(dataset) -> int:
    """Replays every episode from its recorded seed in the recovered env; returns the steps."""
    env = dataset.recover_environment()
    steps = 0
    try:
        for episode in dataset.iterate_episodes():
            obs, _ = env.reset(seed=_seed(dataset, episode))
            assert _same(obs, _at(episode.observations, 0))
            for t, action in enumerate(episode.actions):
                obs, reward, terminated, truncated, _ = env.step(action)
                assert _same(obs, _at(episode.observations, t + 1)), (episode.id, t)
                assert reward == episode.rewards[t] and terminated == episode.terminations[t]
                assert truncated == episode.truncations[t]
                steps += 1
            assert terminated or truncated
    finally:
        env.close()
    return steps


def test_a_bot_dataset_loads_and_replays_exactly_from_its_seeds(data_path, capsys):
    # Through the command line: the bot acts through the env's choice_discrete mapping.
    assert main(["collect", "--agent", "bot:fast", "--opponent", "legal-random", "--env", NINE["env_id"],
                 "--action-mode", "choice_discrete", "--observation-mode", "flat", "--episodes", "2",
                 "--seed", "5", "--dataset-id", "test/nine-ball/bot-fast-v0", "--no-progress"]) == 0
    assert "recorded 2 episodes" in capsys.readouterr().out
    dataset = minari.load_dataset("test/nine-ball/bot-fast-v0")
    assert dataset.total_episodes == 2
    assert [_seed(dataset, e) for e in dataset.iterate_episodes()] == [5, 6]
    assert _replays_exactly(dataset) == dataset.total_steps
    env = dataset.recover_environment()
    assert env.spec.kwargs["opponent"] == "legal-random" and env.unwrapped.mapper.mode == "choice_discrete"
    meta = dataset.storage.metadata
    assert (meta["agent"], meta["algorithm_name"], meta["opponent"]) == ("bot:fast", "bot:fast", "legal-random")
    assert meta["poolgym_version"] and meta["collections"][0]["first_seed"] == 5
    episode = dataset[0]
    n = len(episode.actions)
    masks = episode.infos["action_masks"]
    assert masks.shape == (n + 1, int(np.sum(env.action_space.nvec)))
    # Every recorded slot is one the masks allowed.
    assert all(masks[t][episode.actions[t][0]] for t in range(n))
    assert set(episode.infos) >= {"legal", "fouls", "potted", "verdict", "racks_won"}
    assert set(episode.infos["legal"][1:].tolist()) <= {-1, 0, 1}


def test_dict_observations_and_sample_episodes_have_the_env_spaces(data_path):
    result = collect("legal-random", "poolgym/NineBall-v1", 2, "test/nine-ball/legal-random-v0")
    assert (result.episodes, result.total_episodes) == (2, 2) and result.size_bytes > 0
    dataset = minari.load_dataset("test/nine-ball/legal-random-v0")
    env = dataset.recover_environment()
    assert dataset.observation_space == env.observation_space and dataset.action_space == env.action_space
    dataset.set_seed(0)
    for episode in dataset.sample_episodes(2):
        for t in range(len(episode.actions) + 1):
            assert env.observation_space.contains(_at(episode.observations, t))
        assert all(env.action_space.contains(a) for a in episode.actions)
    assert _replays_exactly(dataset) == dataset.total_steps


def test_the_pot_ball_drill_replays_and_minari_show_lists_the_metadata(data_path):
    collect("fixed", "poolgym/PotBall-v1", 5, "test/pot-ball/fixed-v0", action_mode="choice_discrete")
    dataset = minari.load_dataset("test/pot-ball/fixed-v0")
    assert _replays_exactly(dataset) == 5
    assert set(dataset[0].infos) == {"action_masks", "target", "potted", "scratched"}
    figures = describe("test/pot-ball/fixed-v0")
    pots = sum(int(e.rewards[-1] > 0) for e in dataset.iterate_episodes())
    assert (figures["episodes"], figures["steps"], figures["pots"]["count"]) == (5, 5, pots)
    assert figures["size_bytes"] > 0 and figures["agent"] == "fixed"
    shown = subprocess.run([sys.executable, "-c", "from minari.cli import app; app()", "show",
                            "test/pot-ball/fixed-v0"], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "fixed in poolgym/PotBall-v1" in text and "recorded by poolgym" in text
    assert "Total Episodes" in text and "poolgym.envs.practice:PotBallEnv" in text


def test_appending_checks_the_env_spec_and_continues_the_seeds(data_path):
    collect("legal-random", "poolgym/PotBall-v1", 2, "test/pot-ball/random-v0")
    collect("legal-random", "poolgym/PotBall-v1", 3, "test/pot-ball/random-v0")
    dataset = minari.load_dataset("test/pot-ball/random-v0")
    assert [_seed(dataset, e) for e in dataset.iterate_episodes()] == [0, 1, 2, 3, 4]
    assert [c["episodes"] for c in dataset.storage.metadata["collections"]] == [2, 3]
    with pytest.raises(ValueError, match="kwargs"):
        collect("legal-random", "poolgym/PotBall-v1", 1, "test/pot-ball/random-v0", action_mode="raw")
    with pytest.raises(ValueError, match="agent: dataset 'legal-random', this run 'fixed'"):
        collect("fixed", "poolgym/PotBall-v1", 1, "test/pot-ball/random-v0")
    assert minari.load_dataset("test/pot-ball/random-v0").total_episodes == 5


def test_solo_play_counts_every_shot_as_the_agents(data_path):
    collect("fixed", "poolgym/NineBallSolo-v1", 1, "test/nine-ball-solo/fixed-v0")
    episode = minari.load_dataset("test/nine-ball-solo/fixed-v0")[0]
    assert (episode.infos["legal"][1:] >= 0).all()  # a shot every step, all of them the agent's
    assert episode.infos["opponent_potted"].sum() == 0 and episode.infos["opponent_fouls"].sum() == 0
    assert episode.infos["potted"].sum() > 0


def test_an_opponent_that_wins_before_the_agents_first_move_is_an_episode_of_one_step(data_path):
    # Seed 7: bot:fast breaks and runs out the rack inside reset; the first step ends it.
    collect("bot:fast", "poolgym/NineBall-v1", 1, "test/nine-ball/run-out-v0", opponent="bot:fast",
            action_mode="choice_discrete", obs_mode="flat", seed=7)
    dataset = minari.load_dataset("test/nine-ball/run-out-v0")
    episode = dataset[0]
    assert len(episode.actions) == 1 and episode.terminations[0] and episode.rewards[0] < 0
    assert episode.infos["legal"][1] == -1 and _replays_exactly(dataset) == 1


def test_an_interrupted_collection_keeps_the_finished_episodes(data_path):
    with pytest.raises(KeyboardInterrupt) as stop:
        collect("legal-random", "poolgym/PotBall-v1", 10, "test/pot-ball/cut-v0", flush_every=100, stop_after=4)
    result = stop.value.result
    assert result.interrupted and result.episodes == 3  # the fourth step's episode was finished too late
    dataset = minari.load_dataset("test/pot-ball/cut-v0")
    assert dataset.total_episodes == 3 and _replays_exactly(dataset) == 3


def _episodes(dataset_id: str) -> list:
    dataset = minari.load_dataset(dataset_id)
    return [(_seed(dataset, e), e.observations, e.actions, e.rewards, e.terminations, e.truncations, e.infos)
            for e in dataset.iterate_episodes()]


def _same_episodes(a: list, b: list) -> bool:
    def same(x, y) -> bool:
        if isinstance(x, dict):
            return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        if isinstance(x, (list, tuple)):
            return len(x) == len(y) and all(same(u, v) for u, v in zip(x, y))
        return np.array_equal(x, y)
    return same(a, b)


@pytest.mark.parametrize("agent, env_kwargs, episodes", [
    ("legal-random", NINE, 7),
    ("bot:fast", NINE, 3),
    ("fixed", {"env_id": "poolgym/PotBall-v1", "action_mode": "choice_discrete", "obs_mode": "dict"}, 9),
    ("random", {"env_id": "poolgym/NineBallSolo-v1", "action_mode": "aim", "obs_mode": "dict"}, 4),
])
def test_episodes_played_on_the_batched_tables_are_those_one_env_records(data_path, agent, env_kwargs, episodes):
    one = collect(agent, episodes=episodes, dataset_id="test/one-v0", seed=40, **env_kwargs)
    tables = collect(agent, episodes=episodes, dataset_id="test/tables-v0", seed=40, num_envs=3, **env_kwargs)
    assert (tables.episodes, tables.steps) == (one.episodes, one.steps) == (episodes, one.steps)
    recorded = _episodes("test/tables-v0")
    assert [r[0] for r in recorded] == list(range(40, 40 + episodes))
    assert _same_episodes(recorded, _episodes("test/one-v0"))


def _network_zip(folder: Path, action_mode: str, seed: int) -> str:
    """An untrained MaskablePPO network saved with the record of its NineBall-v1 env."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from poolgym.agents.training.train import save_with_env
    from poolgym.envs.sb3_models import env_record

    kwargs = {"action_mode": action_mode, "obs_mode": "flat"}
    env = gym.make("poolgym/NineBall-v1", **kwargs)
    model = MaskablePPO("MlpPolicy", env, seed=seed, policy_kwargs={"net_arch": [32, 32]})
    path = str(folder / f"{action_mode}.zip")
    save_with_env(model, path, env_record(env, "poolgym/NineBall-v1", kwargs))
    env.close()
    return path


@pytest.mark.parametrize("spec, env_kwargs", [
    ("choice_discrete", NINE),
    ("pretrained:nine_ball", {**NINE, "action_mode": "choice_canonical", "lookahead_samples": 8}),
])
def test_a_network_chooses_for_all_the_tables_at_once_and_records_what_one_env_records(
        data_path, tmp_path, monkeypatch, spec, env_kwargs):
    from poolgym.envs.opponents import SB3Policy

    agent = spec if spec.startswith("pretrained:") else f"MaskablePPO:{_network_zip(tmp_path, spec, 5)}"
    calls = []
    batch = SB3Policy.act_batch
    monkeypatch.setattr(SB3Policy, "act_batch", lambda self, *a: calls.append(len(a[0])) or batch(self, *a))
    one = collect(agent, episodes=5, dataset_id="test/one-v0", seed=60, **env_kwargs)
    assert calls == []
    collect(agent, episodes=5, dataset_id="test/tables-v0", seed=60, num_envs=4, **env_kwargs)
    assert _same_episodes(_episodes("test/tables-v0"), _episodes("test/one-v0"))
    assert max(calls) == 4 and sum(calls) <= one.steps


def test_an_id_without_a_batched_env_plays_its_episodes_one_at_a_time(data_path):
    import gymnasium as gym

    nine = gym.registry["poolgym/NineBall-v1"]
    gym.register("test/NoTables-v0", entry_point=nine.entry_point, kwargs=nine.kwargs,
                 max_episode_steps=nine.max_episode_steps)
    try:
        collect("legal-random", "test/NoTables-v0", 3, "test/no-tables-v0", num_envs=3)
        collect("legal-random", "poolgym/NineBall-v1", 3, "test/nine-ball/tables-v0", num_envs=3)
    finally:
        del gym.registry["test/NoTables-v0"]
    assert _same_episodes(_episodes("test/no-tables-v0"), _episodes("test/nine-ball/tables-v0"))


def test_appending_and_interrupting_on_the_batched_tables_keep_the_seeds_in_order(data_path):
    collect("legal-random", "poolgym/PotBall-v1", 2, "test/pot-ball/tables-v0", num_envs=4)
    with pytest.raises(KeyboardInterrupt) as stop:  # one step an episode: the fifth step stops the run
        collect("legal-random", "poolgym/PotBall-v1", 10, "test/pot-ball/tables-v0", num_envs=4, flush_every=100,
                stop_after=5)
    assert stop.value.result.interrupted and stop.value.result.episodes == 4
    dataset = minari.load_dataset("test/pot-ball/tables-v0")
    assert [_seed(dataset, e) for e in dataset.iterate_episodes()] == list(range(6))
    assert _replays_exactly(dataset) == 6


@pytest.mark.parametrize("kwargs, message", [
    ({"dataset_id": "no-namespace-v0"}, "namespace/name-vN"),
    ({"dataset_id": "test/x"}, "namespace/name-vN"),
    ({"dataset_id": "t/x-v0"}, "namespace/name-vN"),  # Minari's namespaces take two characters
    ({"episodes": 0}, "episodes must be a whole number >= 1"),
    ({"seed": -1}, "seed must be a whole number >= 0"),
    ({"agent": "bot:huge"}, "the bot rungs are"),
    ({"env_id": "poolgym/Nope-v1"}, "registered id"),
    ({"opponent": "bot:fast"}, "does not take"),
    ({"num_envs": 0}, "num_envs must be a whole number >= 1"),
])
def test_bad_input_is_refused_naming_the_field(data_path, kwargs, message):
    args = {"agent": "fixed", "env_id": "poolgym/PotBall-v1", "episodes": 1, "dataset_id": "test/pot-ball/bad-v0",
            **kwargs}
    with pytest.raises(ValueError, match=message):
        collect(args.pop("agent"), args.pop("env_id"), args.pop("episodes"), args.pop("dataset_id"), **args)
    assert not (data_path / "test" / "pot-ball" / "bad-v0").exists()


def test_dataset_ids_take_minaris_form():
    assert check_dataset_id("poolgym/nine-ball/bot-fast-v0") == "poolgym/nine-ball/bot-fast-v0"
    with pytest.raises(ValueError):
        check_dataset_id("poolgym/nine-ball/bot-fast")


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("recipe, datasets", [
    ("nine_ball_bc_bot_fast", "poolgym/nine-ball/bot-fast-v0"),
    ("nine_ball_bc_bot_pro", ["poolgym/nine-ball/bot-pro-v0", "poolgym/nine-ball/bot-pro-vs-bot-fast-v0"]),
])
def test_behaviour_cloning_from_the_shipped_dataset_end_to_end(tmp_path, monkeypatch, recipe, datasets):
    import yaml

    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol
    from poolgym.agents.training.train import _check_resumable, train, training_env_record
    from poolgym.agents.training.train_config import load_config

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(SHIPPED_DATASETS_PATH))
    config = yaml.safe_load((ROOT / "configs" / "train" / f"{recipe}.yaml").read_text())
    assert config["imitation"]["dataset"] == datasets
    # The recipe's data replaced by the shipped set, in the recipe's form (an id or a list).
    shipped = SHIPPED_DATASET_ID if isinstance(datasets, str) else [SHIPPED_DATASET_ID]
    config["imitation"].update(dataset=shipped, validation_share=0.34)
    config.update(total_steps=600, eval={"final_episodes": 1, "opponents": ["legal-random"], "baseline": "fixed"},
                  curve={"every_steps": 300, "racks": 1, "opponents": ["legal-random"], "final_racks": 1,
                         "final_opponents": ["legal-random"]})
    summary = train(config, out=tmp_path / "bc")
    fit = summary["imitation"]
    assert summary["steps"] == 600 and fit["rows"] + fit["held_out_rows"] == 62 and fit["held_out_rows"] > 0
    # Fitting moved the network towards the bot's actions (on the rows it was fitted to: 41
    # rows are too few to generalise from).
    assert fit["fit"]["nll"] < 0.8 * fit["untrained_fit"]["nll"]
    curve = json.loads((tmp_path / "bc" / "curve.json").read_text())
    assert [p["timesteps"] for p in curve["points"]] == [0, 300, 600]
    model = str(tmp_path / "bc" / "model.zip")
    # It loads as a MaskablePPO model and plays a whole rack under the protocol.
    p = protocol("poolgym/NineBall-v1")
    agent = make_agent(model, p.rules, noise=p.noise, max_speed=p.max_speed)
    match = run_match(p.rules, [agent, make_agent("legal-random", p.rules, seed=1)], ("bc", "legal-random"), 1,
                      seed=0, noise=p.noise)
    assert len(match.racks) == 1 and match.racks[0].winner in (0, 1)
    # The MaskablePPO recipe can fine-tune it (--resume): same algorithm, mapping and format.
    maskable = load_config(ROOT / "configs" / "train" / "nine_ball_maskable_ppo.yaml")
    _check_resumable(model, training_env_record(maskable))


def test_behaviour_cloning_in_the_continuous_choice_mode_end_to_end(tmp_path, data_path):
    """The choice-mode recipe (a PPO network, Gaussian likelihood) on a dataset recorded in
    that mode: it fits, loads, plays a legal rack and is resumable by its fine-tuning recipe;
    a dataset recorded with another mapping is refused."""
    import yaml

    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol
    from poolgym.agents.training.train import _check_resumable, train, training_env_record
    from poolgym.agents.training.train_config import load_config

    recipe = "nine_ball_bc_bot_pro_choice"
    config = yaml.safe_load((ROOT / "configs" / "train" / f"{recipe}.yaml").read_text())
    assert config["env"]["kwargs"]["action_mode"] == "choice"
    collect("bot:fast", "poolgym/NineBall-v1", 3, "test/nine-ball/choice-v0", action_mode="choice", obs_mode="flat",
            pot_residual="object_ball")
    config["imitation"].update(dataset=["test/nine-ball/choice-v0"], validation_share=0.34)
    config.pop("curve")
    config.update(total_steps=2000, eval={"final_episodes": 1, "opponents": ["legal-random"], "baseline": "fixed"})
    # Equal spaces, other strokes: a dataset whose pot residual turned the stroke is refused.
    collect("bot:fast", "poolgym/NineBall-v1", 1, "test/nine-ball/stroke-v0", action_mode="choice", obs_mode="flat")
    stroke = {**config, "imitation": {**config["imitation"], "dataset": ["test/nine-ball/stroke-v0"]}}
    with pytest.raises(ValueError, match="pot_residual: dataset 'stroke', config 'object_ball'"):
        train(stroke, out=tmp_path / "stroke")
    summary = train(config, out=tmp_path / "bc")
    fit = summary["imitation"]
    assert summary["steps"] == 2000 and fit["held_out_rows"] > 0 and fit["rows"] > 0
    # The Gaussian's mean moved towards the bot's strokes on the rows it was fitted to.
    assert fit["fit"]["nll"] < fit["untrained_fit"]["nll"] - 1.0
    assert fit["fit"]["action_mae"] < 0.8 * fit["untrained_fit"]["action_mae"]
    model = str(tmp_path / "bc" / "model.zip")
    p = protocol("poolgym/NineBall-v1")
    agent = make_agent(model, p.rules, noise=p.noise, max_speed=p.max_speed)
    match = run_match(p.rules, [agent, make_agent("legal-random", p.rules, seed=1)], ("bc", "legal-random"), 1,
                      seed=0, noise=p.noise)
    assert len(match.racks) == 1 and match.racks[0].winner in (0, 1) and not match.racks[0].moves[0].illegal
    recipes = ROOT / "configs" / "train"
    _check_resumable(model, training_env_record(load_config(recipes / "nine_ball_bc_choice_finetune.yaml")))
    for other in ("nine_ball_maskable_ppo.yaml", "nine_ball_ppo_choice.yaml"):  # another network or residual
        with pytest.raises(ValueError, match="not trained with this config's algorithm"):
            _check_resumable(model, training_env_record(load_config(recipes / other)))


def test_behaviour_cloning_of_the_lookahead_reader_in_the_canonical_mode_end_to_end(tmp_path, data_path):
    """nine_ball_bc_lookahead.yaml on a few racks of lookahead-greedy recorded in
    choice_canonical with the lookahead entry: the CanonicalPolicy network fits the greedy's
    moves, loads, plays a legal rack under the protocol seeing what the env would show it,
    and its fine-tuning recipe can go on from it."""
    import yaml

    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol
    from poolgym.agents.training.canonical_policy import CanonicalPolicy
    from poolgym.agents.training.train import _check_resumable, train, training_env_record
    from poolgym.agents.training.train_config import load_config

    recipe = "nine_ball_bc_lookahead"
    config = yaml.safe_load((ROOT / "configs" / "train" / f"{recipe}.yaml").read_text())
    kwargs = config["env"]["kwargs"]
    assert kwargs["action_mode"] == "choice_canonical" and kwargs["lookahead_samples"] == 8
    result = collect("lookahead-greedy", "poolgym/NineBall-v1", 3, "test/nine-ball/lookahead-v0",
                     opponent="legal-random", action_mode="choice_canonical", obs_mode="flat", lookahead_samples=8)
    recorded = minari.load_dataset("test/nine-ball/lookahead-v0")
    assert result.steps > 0 and recorded.action_space == spaces.Discrete(86)
    config["imitation"].update(dataset=["test/nine-ball/lookahead-v0"], validation_share=0.34)
    config.pop("curve")
    config.update(total_steps=3000, eval={"final_episodes": 1, "opponents": ["legal-random"], "baseline": "fixed"})
    summary = train(config, out=tmp_path / "bc")
    fit = summary["imitation"]
    assert summary["steps"] == 3000 and fit["held_out_rows"] > 0 and fit["rows"] > 0
    assert fit["fit"]["nll"] < 0.8 * fit["untrained_fit"]["nll"]
    assert fit["fit"]["action_agreement"] > fit["untrained_fit"]["action_agreement"]
    model = str(tmp_path / "bc" / "model.zip")
    p = protocol("poolgym/NineBall-v1")
    agent = make_agent(model, p.rules, noise=p.noise, max_speed=p.max_speed)
    assert isinstance(agent.policy.model.policy, CanonicalPolicy) and agent.lookahead_samples == 8
    match = run_match(p.rules, [agent, make_agent("legal-random", p.rules, seed=1)], ("bc", "legal-random"), 1,
                      seed=0, noise=p.noise)
    assert len(match.racks) == 1 and match.racks[0].winner in (0, 1)
    assert not any(m.illegal for m in match.racks[0].moves)
    recipes = ROOT / "configs" / "train"
    _check_resumable(model, training_env_record(load_config(recipes / "nine_ball_lookahead_finetune.yaml")))


def test_the_bc_config_section_is_checked():
    from poolgym.agents.training.train_config import parse_config

    base = {"env": {"id": "poolgym/NineBall-v1", "kwargs": {"action_mode": "choice_discrete"}}, "total_steps": 10}
    with pytest.raises(ValueError, match="'imitation' goes with algorithm BC"):
        parse_config({**base, "algorithm": "BC"})
    with pytest.raises(ValueError, match="'imitation' goes with algorithm BC"):
        parse_config({**base, "algorithm": "MaskablePPO", "imitation": {"dataset": "ns/name-v0"}})
    with pytest.raises(ValueError, match="imitation.dataset"):
        parse_config({**base, "algorithm": "BC", "imitation": {"dataset": "nothing"}})
    with pytest.raises(ValueError, match="imitation.validation_share"):
        parse_config({**base, "algorithm": "BC", "imitation": {"dataset": "ns/name-v0", "validation_share": 1.0}})
    # The network is the fine-tuning algorithm's: PPO's in a Box mode (it takes use_sde),
    # MaskablePPO's in choice_discrete (it does not).
    choice = {"id": "poolgym/NineBall-v1", "kwargs": {"action_mode": "choice"}}
    parse_config({**base, "env": choice, "algorithm": "BC", "imitation": {"dataset": "ns/name-v0"},
                  "hyperparameters": {"use_sde": True}})
    with pytest.raises(ValueError, match="unknown key 'hyperparameters.use_sde'"):
        parse_config({**base, "algorithm": "BC", "imitation": {"dataset": "ns/name-v0"},
                      "hyperparameters": {"use_sde": True}})
    cfg = parse_config({**base, "algorithm": "BC", "imitation": {"dataset": "ns/name-v0"},
                        "hyperparameters": {"n_steps": 64}})
    assert cfg.imitation.batch_size == 256 and cfg.to_dict()["imitation"]["dataset"] == "ns/name-v0"
    with pytest.raises(ValueError, match=r"imitation.dataset\[1\]"):
        parse_config({**base, "algorithm": "BC", "imitation": {"dataset": ["ns/name-v0", "nothing"]}})
    for bad in ([], ["ns/name-v0", "ns/name-v0"], [f"ns/name{i}-v0" for i in range(9)]):
        with pytest.raises(ValueError, match="a list of 1 to 8 different ones"):
            parse_config({**base, "algorithm": "BC", "imitation": {"dataset": bad}})
    both = parse_config({**base, "algorithm": "BC", "imitation": {"dataset": ["ns/a-v0", "ns/b-v0"]}})
    assert both.imitation.dataset == ("ns/a-v0", "ns/b-v0")
    assert both.to_dict()["imitation"]["dataset"] == ["ns/a-v0", "ns/b-v0"]


def test_imitation_reads_several_datasets_with_their_episodes_kept_apart(data_path):
    import gymnasium as gym

    from poolgym.agents.datasets import bc

    collect("fixed", episodes=2, dataset_id="test/fixed-v0", seed=0, **NINE)
    collect("bot:weak", episodes=3, dataset_id="test/weak-v0", seed=10, **NINE)
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_discrete", obs_mode="flat")
    spaces = (env.observation_space, env.action_space)
    env.close()
    one = bc.load_imitation_data("test/fixed-v0", *spaces)
    other = bc.load_imitation_data("test/weak-v0", *spaces)
    both = bc.load_imitation_data(["test/fixed-v0", "test/weak-v0"], *spaces)
    assert len(both) == len(one) + len(other)
    assert np.array_equal(both.actions, np.concatenate([one.actions, other.actions]))
    assert np.array_equal(both.observations, np.concatenate([one.observations, other.observations]))
    # Five episodes, numbered apart: a held-out share takes whole racks of either set.
    assert sorted(np.unique(both.episodes)) == [0, 1, 2, 3, 4]
    assert np.array_equal(both.episodes[len(one):], other.episodes + 2)


HOSTILE_CALLS = []


def _hostile_entry_point(**kwargs):
    HOSTILE_CALLS.append(kwargs)
    raise AssertionError("a dataset's recorded entry point was called")


def test_the_mapping_check_never_runs_what_a_dataset_names():
    """The recorded env is rebuilt from its registered id: the entry point and the opponent a
    dataset file names are not imported or called."""
    from gymnasium.envs.registration import EnvSpec

    from poolgym.agents.datasets.bc import _check_mapping

    def dataset(env_id, **kwargs):
        return EnvSpec(id=env_id, entry_point=f"{__name__}:_hostile_entry_point", kwargs=kwargs)

    ours = {"action_mode": "choice", "pot_residual": "object_ball"}
    _check_mapping(dataset("poolgym/NineBall-v1", opponent=f"{__name__}:_hostile_entry_point", **ours), "d", ours)
    with pytest.raises(ValueError, match="pot_residual: dataset 'stroke', config 'object_ball'"):
        _check_mapping(dataset("poolgym/NineBall-v1", action_mode="choice"), "d", ours)
    with pytest.raises(ValueError, match="names no registered env"):
        _check_mapping(dataset("elsewhere/Hostile-v0", **ours), "d", ours)
    assert HOSTILE_CALLS == []
