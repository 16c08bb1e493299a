"""Offline RL from Minari datasets: discrete CQL (``algorithm: CQL``,
``poolgym.agents.training.offline``, TorchRL's loss)."""

import importlib.util
import multiprocessing
from pathlib import Path

import numpy as np
import pytest

minari = pytest.importorskip("minari")
# Found, not imported: importing TorchRL changes the process's multiprocessing start method,
# which poolgym's own import of it (``require_torchrl``) puts back.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("torchrl") is None,
                                reason="the offline extra is not installed (pip install 'poolgym[offline]')")

from poolgym.agents.datasets.collect import SHIPPED_DATASET_ID, SHIPPED_DATASETS_PATH, collect

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def data_path(tmp_path, monkeypatch):
    path = tmp_path / "minari"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(path))
    return path


def _recipe(name: str) -> dict:
    import yaml

    return yaml.safe_load((ROOT / "configs" / "train" / f"{name}.yaml").read_text())


def test_cql_from_a_recorded_lookahead_dataset_end_to_end(tmp_path, data_path):
    """nine_ball_cql_lookahead.yaml on a few racks of lookahead-greedy in choice_canonical: the
    loss falls, the conservative term runs over the offered options only, the saved model
    plays only offered options (its argmax of Q under the mask) and a legal rack."""
    import torch

    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol
    from poolgym.agents.training import offline
    from poolgym.agents.training.train import load_model, train

    collect("lookahead-greedy", "poolgym/NineBall-v1", 3, "test/nine-ball/lookahead-v0", opponent="legal-random",
            action_mode="choice_canonical", obs_mode="flat", lookahead_samples=8)
    config = _recipe("nine_ball_cql_lookahead")
    assert config["algorithm"] == "CQL" and config["policy"] == "CanonicalPolicy"
    config["imitation"].update(dataset="test/nine-ball/lookahead-v0", validation_share=0.34, batch_size=32)
    config.pop("curve")
    config.update(total_steps=3200, eval={"final_episodes": 1, "opponents": ["legal-random"], "baseline": "fixed"})
    summary = train(config, out=tmp_path / "cql")
    fit = summary["imitation"]
    losses = fit["losses"]
    assert summary["steps"] == 3200 and fit["rows"] > 0 and fit["held_out_rows"] > 0
    assert losses[-1]["total"] < 0.7 * losses[0]["total"] and losses[-1]["td"] < losses[0]["td"]

    model = load_model(tmp_path / "cql" / "model.zip", "MaskablePPO")
    env_space = model.observation_space
    data = offline.load_transitions("test/nine-ball/lookahead-v0", env_space, model.action_space)
    q = offline.q_network(model.policy)
    with torch.no_grad():
        values = q(torch.as_tensor(data.observations, dtype=torch.float32)).numpy()
    chosen, _ = model.predict(data.observations, deterministic=True, action_masks=data.masks)
    assert all(data.masks[i, a] for i, a in enumerate(chosen))
    assert np.array_equal(chosen, np.where(data.masks, values, -np.inf).argmax(axis=1))

    # The conservative term: logsumexp of Q over the offered options less Q of the recorded one.
    learner = offline.CQL(model.policy, gamma=0.99, alpha=1.0, learning_rate=1e-4, target_update=0.005)
    with torch.no_grad():
        terms = learner.loss(data)
    masked = np.where(data.masks, values, -np.inf)
    peak = masked.max(axis=1, keepdims=True)
    logsumexp = (peak + np.log(np.exp(masked - peak).sum(axis=1, keepdims=True)))[:, 0]
    expected = np.mean(logsumexp - values[np.arange(len(data)), data.actions])
    assert float(terms["cql"]) == pytest.approx(expected, rel=1e-4)
    # Unmasked, the term would differ: the recorded states do not offer every option.
    assert not data.masks.all()

    p = protocol("poolgym/NineBall-v1")
    agent = make_agent(str(tmp_path / "cql" / "model.zip"), p.rules, noise=p.noise, max_speed=p.max_speed)
    match = run_match(p.rules, [agent, make_agent("legal-random", p.rules, seed=1)], ("cql", "legal-random"), 1,
                      seed=0, noise=p.noise)
    assert len(match.racks) == 1 and not any(m.illegal for m in match.racks[0].moves)


def test_transitions_keep_episodes_rewards_and_terminations(data_path):
    """The transitions of a recorded dataset follow its episodes: each next observation is
    the following row's observation within an episode, and only an episode's last step ends
    the game (a rack played out is terminated, not truncated)."""
    from gymnasium import spaces

    from poolgym.agents.datasets.checks import read_dataset
    from poolgym.agents.training import offline

    collect("fixed", "poolgym/NineBall-v1", 3, "test/nine-ball/fixed-v0", opponent="legal-random",
            action_mode="choice_canonical", obs_mode="flat")
    dataset = read_dataset("test/nine-ball/fixed-v0")
    data = offline.load_transitions("test/nine-ball/fixed-v0", dataset.observation_space, spaces.Discrete(
        dataset.action_space.n))
    episodes = list(dataset.episodes())
    assert len(data) == sum(len(e.actions) for e in episodes) and np.unique(data.episodes).size == 3
    start = 0
    for episode in episodes:
        n = len(episode.actions)
        rows = slice(start, start + n)
        assert np.array_equal(data.next_observations[rows][:-1], data.observations[rows][1:])
        assert np.array_equal(data.rewards[rows], episode.rewards)
        assert not data.terminated[rows][:-1].any() and data.terminated[rows][-1]
        start += n


def test_cql_refuses_what_it_cannot_learn_from(tmp_path, monkeypatch):
    """The shipped tiny dataset is choice_discrete (MultiDiscrete): CQL takes one Discrete choice a
    state, so the config is refused in that mode and the dataset is refused for a Discrete
    network, each in one line; the CQL keys are checked and go with CQL only."""
    from gymnasium import spaces

    from poolgym.agents.datasets.checks import read_dataset
    from poolgym.agents.training import offline
    from poolgym.agents.training.train_config import parse_config

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(SHIPPED_DATASETS_PATH))
    shipped = read_dataset(SHIPPED_DATASET_ID)
    with pytest.raises(ValueError, match="needs Discrete actions"):
        offline.load_transitions(SHIPPED_DATASET_ID, shipped.observation_space, shipped.action_space)
    with pytest.raises(ValueError, match="its action space .* is not the network's"):
        offline.load_transitions(SHIPPED_DATASET_ID, shipped.observation_space, spaces.Discrete(86))

    base = _recipe("nine_ball_cql_lookahead")
    wrong_mode = {**base, "env": {**base["env"], "kwargs": {"obs_mode": "flat", "action_mode": "choice_discrete"}},
                  "policy": "MlpPolicy"}
    with pytest.raises(ValueError, match="CQL needs key 'env.kwargs.action_mode' to be 'choice_canonical'"):
        parse_config(wrong_mode, "cql.yaml")
    for key, value, message in (("cql_alpha", -1.0, "imitation.cql_alpha' must be a finite number >= 0"),
                                ("target_update", 0.0, r"imitation.target_update' must be within \(0, 1\]")):
        with pytest.raises(ValueError, match=message):
            parse_config({**base, "imitation": {**base["imitation"], key: value}}, "cql.yaml")
    bc = _recipe("nine_ball_bc_lookahead_vs_legal_random")
    with pytest.raises(ValueError, match="go with algorithm CQL, not BC"):
        parse_config({**bc, "imitation": {**bc["imitation"], "cql_alpha": 1.0}}, "bc.yaml")
    parsed = parse_config(base, "cql.yaml")
    assert parsed.to_dict()["imitation"]["cql_alpha"] == 1.0
    same = parse_config(bc, "bc.yaml")
    assert same.imitation.dataset == parsed.imitation.dataset and "cql_alpha" not in same.to_dict()["imitation"]
    assert same.total_steps == parsed.total_steps and same.hyperparameters == parsed.hyperparameters


def test_importing_torchrl_leaves_the_multiprocessing_start_method_as_it_was():
    """TorchRL's import sets "spawn"; a spawned worker could not make a registered id."""
    import subprocess
    import sys

    script = ("import multiprocessing as mp; from poolgym.agents.training import offline; "
              "before = mp.get_start_method(allow_none=True); offline.require_torchrl(); "
              "import torchrl; print(before, mp.get_start_method(allow_none=True))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["None", "None"]
    assert multiprocessing.get_start_method(allow_none=True) in (None, "fork", "forkserver")


def test_without_torchrl_cql_names_the_extra(monkeypatch):
    """Without TorchRL, a CQL run stops in one line naming the extra, before anything is made."""
    import sys

    from poolgym.agents.training import offline

    monkeypatch.setitem(sys.modules, "torchrl", None)  # an import of it raises ImportError
    with pytest.raises(ValueError, match=r"algorithm CQL needs TorchRL: pip install 'poolgym\[offline\]'"):
        offline.require_torchrl()
