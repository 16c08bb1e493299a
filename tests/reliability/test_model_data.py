"""Models are data: loaded without unpickling anything, they act exactly as SB3's own load
makes them act; a pickle in a model runs only when the model is trusted; a model zip is read
within bounds."""

import base64
import json
import subprocess
import sys
import zipfile

import gymnasium as gym
import numpy as np
import pytest
import torch

import poolgym  # noqa: F401  (registers the ids)
from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.pretrained import pretrained_model
from poolgym.agents.tools.cli import main
from poolgym.agents.training.train import save_with_env
from poolgym.envs import model_data
from poolgym.envs.sb3_models import algorithm_class, env_record, load_model
from poolgym.rules import get_ruleset

SHIPPED = str(pretrained_model("nine_ball"))
# One env per algorithm the recipes train with: the pot-ball drill's continuous aim mode,
# and its masked choice mode for MaskablePPO.
AIM = ("poolgym/PotBall-v1", {"obs_mode": "flat", "action_mode": "aim", "n_balls": 1})
CHOICE = ("poolgym/PotBall-v1", {"obs_mode": "flat", "action_mode": "choice_discrete", "n_balls": 1})
TINY = {"PPO": (AIM, {"n_steps": 64, "batch_size": 32, "n_epochs": 1}),
        "MaskablePPO": (CHOICE, {"n_steps": 64, "batch_size": 32, "n_epochs": 1}),
        "SAC": (AIM, {"learning_starts": 16, "batch_size": 16}),
        "TD3": (AIM, {"learning_starts": 16, "batch_size": 16})}


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    """A model of each algorithm trained for 96 steps, saved as ``poolgym train`` saves it."""
    folder = tmp_path_factory.mktemp("tiny_models")
    paths = {}
    for algorithm, ((env_id, kwargs), hyperparameters) in TINY.items():
        env = gym.make(env_id, **kwargs)
        model = algorithm_class(algorithm)("MlpPolicy", env, seed=1, device="cpu",
                                           policy_kwargs={"net_arch": [16, 16]}, **hyperparameters)
        model.learn(96)
        paths[algorithm] = str(folder / f"{algorithm}.zip")
        save_with_env(model, paths[algorithm], {**env_record(env, env_id, kwargs), "algorithm": algorithm})
        env.close()
    return paths


def _observations(env_id, kwargs, n, seed=0):
    """``n`` observations (with their masks, for a masked mode) of random play in the env."""
    env = gym.make(env_id, **kwargs)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = []
    while len(seen) < n:
        masks = env.unwrapped.action_masks() if env.unwrapped.mapper.masked else None
        seen.append((obs, masks))
        action = env.action_space.sample(mask=_split(env.action_space, masks)) if masks is not None \
            else env.action_space.sample()
        obs, _, done, cut, _ = env.step(action)
        if done or cut:
            obs, _ = env.reset(seed=int(rng.integers(1 << 30)))
    env.close()
    return seen


def _split(space, masks):
    """A flat mask as ``space.sample`` takes it."""
    if isinstance(space, gym.spaces.Discrete):
        return masks.astype(np.int8)
    edges = np.cumsum(space.nvec)[:-1]
    return tuple(m.astype(np.int8) for m in np.split(masks, edges))


def _same_behaviour(path, algorithm, seen):
    """The model at ``path`` read as data predicts what SB3's own load predicts on ``seen``,
    from the same weights, and gives the same action distribution."""
    ours = load_model(path, algorithm)
    theirs = algorithm_class(algorithm).load(path, device="cpu")
    mine, reference = ours.policy.state_dict(), theirs.policy.state_dict()
    assert mine.keys() == reference.keys()
    assert all(torch.equal(mine[k], reference[k]) for k in mine)
    assert (ours.observation_space, ours.action_space) == (theirs.observation_space, theirs.action_space)
    for obs, masks in seen:
        extra = {"action_masks": masks} if masks is not None else {}
        a, _ = ours.predict(obs, deterministic=True, **extra)
        b, _ = theirs.predict(obs, deterministic=True, **extra)
        assert np.array_equal(a, b)
    batch = np.stack([obs for obs, _ in seen])
    for mine, reference in zip(_outputs(ours, batch), _outputs(theirs, batch)):
        assert torch.equal(mine, reference)


def _outputs(model, batch):
    """The policy's outputs on ``batch``: an actor-critic's log-probabilities of every
    action it takes, its entropies and values; an off-policy actor's action parameters."""
    policy = model.policy
    tensor = policy.obs_to_tensor(batch)[0]
    with torch.no_grad():
        if hasattr(policy, "get_distribution"):
            distribution = policy.get_distribution(tensor)
            actions = distribution.get_actions(deterministic=True)
            return [distribution.log_prob(actions), distribution.entropy(), policy.predict_values(tensor)]
        if hasattr(policy.actor, "get_action_dist_params"):  # SAC: the mean and log std
            return [t for t in policy.actor.get_action_dist_params(tensor)[:2]] + [policy.critic(tensor, policy.actor(tensor, deterministic=True))[0]]
        return [policy.actor(tensor), policy.critic(tensor, policy.actor(tensor))[0]]


@pytest.mark.parametrize("algorithm", sorted(TINY))
def test_a_fresh_model_read_as_data_acts_as_sb3_loads_it(tiny_models, algorithm):
    (env_id, kwargs), _ = TINY[algorithm]
    _same_behaviour(tiny_models[algorithm], algorithm, _observations(env_id, kwargs, 200))


def test_the_shipped_model_read_as_data_acts_as_sb3_loads_it():
    record = json.loads(zipfile.ZipFile(SHIPPED).read("poolgym_env.json"))
    seen = _observations(record["env_id"], record["env_kwargs"], 60)
    _same_behaviour(SHIPPED, "MaskablePPO", seen)


class _Plain(gym.Env):
    """A foreign env whose spaces a model's plain fields describe in full."""

    observation_space = gym.spaces.Box(-1.0, 1.0, (4,), np.float32)
    action_space = gym.spaces.Discrete(3)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 0.0, False, False, {}


def test_a_foreign_model_loads_from_its_plain_fields_or_is_refused(tmp_path):
    """A model of another env, without poolgym's record: spaces its plain fields describe in
    full are rebuilt from them; a space they do not (a Box with a bound per component) needs
    the trust flag."""
    from stable_baselines3 import PPO

    model = PPO("MlpPolicy", _Plain(), seed=0, n_steps=32, batch_size=32, n_epochs=1,
                policy_kwargs={"net_arch": [8]})
    model.learn(32)
    model.save(tmp_path / "plain.zip")
    path = str(tmp_path / "plain.zip")
    obs = np.stack([_Plain.observation_space.sample() for _ in range(100)])
    assert np.array_equal(load_model(path).predict(obs, deterministic=True)[0],
                          PPO.load(path, device="cpu").predict(obs, deterministic=True)[0])
    PPO("MlpPolicy", "Pendulum-v1", seed=0, n_steps=32, batch_size=32).save(tmp_path / "pendulum.zip")
    path = str(tmp_path / "pendulum.zip")
    with pytest.raises(ValueError, match=rf"^{path}: data entry 'observation_space' \(<class 'gymnasium.spaces.box.Box'>\) "
                                         r"can only be read by unpickling it"):
        load_model(path)
    assert load_model(path, trusted=True).observation_space.shape == (3,)


# ============================================================================ code in a model
class _Marker:
    """Unpickled, it creates the file ``path``: what any code a hostile pickle names could do."""

    def __init__(self, path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _members(path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _write_zip(path, members: dict) -> str:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, raw in members.items():
            archive.writestr(name, raw)
    return str(path)


def _with_entry(src, dst, key, value) -> str:
    """The model at ``src`` with its data entry ``key`` replaced by ``value`` as SB3 writes
    it (pickled, with its plain fields beside the pickle)."""
    from stable_baselines3.common.save_util import data_to_json

    members = _members(src)
    data = json.loads(members["data"])
    data[key] = json.loads(data_to_json({key: value}))[key]
    members["data"] = json.dumps(data).encode()
    return _write_zip(dst, members)


@pytest.fixture
def hostile(tmp_path):
    """The shipped model with a pickle in place of its observation space that, unpickled,
    creates a marker file; (model path, marker path)."""
    marker = tmp_path / "MARKER"
    return _with_entry(SHIPPED, tmp_path / "hostile.zip", "observation_space", _Marker(marker)), marker


def _one_line_refusal(err, path):
    text = str(err.value)
    assert "\n" not in text and len(text) < 400
    assert path in text and "data entry 'observation_space'" in text and "--trust-model" in text


def test_a_pickle_in_a_model_is_not_run_by_the_loading_functions(hostile):
    from poolgym.envs.opponents import SB3Policy

    path, marker = hostile
    for load in (lambda: load_model(path, "MaskablePPO"), lambda: SB3Policy(path, "MaskablePPO"),
                 lambda: make_agent(path, get_ruleset("nine_ball"))):
        with pytest.raises(ValueError) as err:
            load()
        _one_line_refusal(err, path)
        assert not marker.exists()
    # Trusted, SB3 unpickles it as before: the pickle runs (and the "space" it makes is refused).
    with pytest.raises(ValueError, match="is not a loadable MaskablePPO model"):
        load_model(path, "MaskablePPO", trusted=True)
    assert marker.exists()


@pytest.mark.parametrize("command", [
    ["eval", "-a", "{path}", "-b", "legal-random", "--games", "1", "--no-progress"],
    ["collect", "--agent", "{path}", "--episodes", "1", "--dataset-id", "trust/hostile-v0", "--no-progress"],
])
def test_a_pickle_in_a_model_is_not_run_by_the_commands(hostile, command, capsys, monkeypatch, tmp_path):
    path, marker = hostile
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "datasets"))
    argv = [path if word == "{path}" else word for word in command]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"poolgym {argv[0]}: error: " in err
    assert "data entry 'observation_space'" in err and "--trust-model" in err
    assert not marker.exists()
    assert not (tmp_path / "datasets").exists() or not any((tmp_path / "datasets").rglob("*.hdf5"))
    # With the flag the file is trusted: SB3 unpickles it, and the pickle runs.
    assert main(argv + ["--trust-model"]) == 2
    assert marker.exists()


def test_train_resume_refuses_a_pickle_before_the_run_folder_is_made(hostile, tmp_path, capsys):
    import yaml

    from tests.train.test_recipes import tiny

    path, marker = hostile
    config = tmp_path / "finetune.yaml"
    config.write_text(yaml.safe_dump(tiny("lookahead_finetune")))
    out = tmp_path / "run"
    argv = ["train", "--config", str(config), "--resume", path, "--out", str(out), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "data entry 'observation_space'" in err and "--trust-model" in err
    assert not marker.exists() and not out.exists()
    # Trusted, SB3 unpickles it: the pickle runs.
    main(argv + ["--trust-model"])
    assert marker.exists()


def test_a_swapped_pickle_beside_plain_fields_is_never_read(tmp_path):
    """A pickle swapped in beside the plain fields of the space it claims to be: the space is
    rebuilt from the model's env, the pickle ignored, and the model plays."""
    marker = tmp_path / "MARKER"
    members = _members(SHIPPED)
    data = json.loads(members["data"])
    import pickle

    data["observation_space"][":serialized:"] = base64.b64encode(pickle.dumps(_Marker(marker))).decode()
    members["data"] = json.dumps(data).encode()
    path = _write_zip(tmp_path / "swapped.zip", members)
    agent = make_agent(path, get_ruleset("nine_ball"))
    assert agent.env_record["algorithm"] == "MaskablePPO"
    assert not marker.exists()


def test_a_model_that_needs_unpickling_loads_only_when_trusted(tiny_models, tmp_path):
    """A real model whose action noise only a pickle holds: refused in one line, then loaded
    by SB3 with trusted=True, acting as the model it is."""
    from stable_baselines3.common.noise import NormalActionNoise

    noise = NormalActionNoise(np.zeros(3), np.full(3, 0.1))
    path = _with_entry(tiny_models["TD3"], tmp_path / "noisy.zip", "action_noise", noise)
    with pytest.raises(ValueError, match=rf"{path}: data entry 'action_noise' .*can only be read by unpickling "
                                         r"it, which runs code; pass --trust-model \(trusted=True\)"):
        load_model(path, "TD3")
    model = load_model(path, "TD3", trusted=True)
    assert isinstance(model.action_noise, NormalActionNoise)
    (env_id, kwargs), _ = TINY["TD3"]
    obs = np.stack([o for o, _ in _observations(env_id, kwargs, 20)])
    assert np.array_equal(model.predict(obs, deterministic=True)[0],
                          load_model(tiny_models["TD3"], "TD3").predict(obs, deterministic=True)[0])


def test_the_shipped_and_fresh_models_load_without_trust_or_warning(tiny_models):
    """In a fresh process, with every warning an error: what the quickstart does with the
    model it just wrote, and the shipped agent."""
    script = ("import sys\n"
              "from poolgym.agents.training.train import load_model\n"
              "from poolgym.agents.evaluation.loading import make_agent\n"
              "from poolgym.rules import get_ruleset\n"
              "make_agent('pretrained:nine_ball', get_ruleset('nine_ball'))\n"
              "for spec in sys.argv[1:]:\n"
              "    algorithm, path = spec.split('=')\n"
              "    load_model(path, algorithm)\n")
    done = subprocess.run([sys.executable, "-W", "error::UserWarning", "-c", script]
                          + [f"{a}={p}" for a, p in tiny_models.items()],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "Warning" not in done.stderr, done.stderr[-2000:]


# ============================================================================ bounds
def test_a_data_bomb_is_refused_before_it_is_read(tmp_path):
    """A model whose ``data`` expands to 300 MB (a few hundred KB on disk): refused in one line
    naming the file and the member, without decompressing it."""
    import tracemalloc

    members = _members(SHIPPED)
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("data", "w", force_zip64=True) as data:
            data.write(members["data"][:-1])
            for _ in range(300):
                data.write(b" " * (1 << 20))
            data.write(b"}")
        for name, raw in members.items():
            if name != "data":
                archive.writestr(name, raw)
    assert path.stat().st_size < 4 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as err:
            load_model(str(path), "MaskablePPO")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    text = str(err.value)
    assert text.startswith(f"{path}: member 'data' expands to ") and "\n" not in text
    assert f"at most {model_data.MAX_DATA_BYTES}" in text
    assert peak < 32 << 20  # the 300 MB were never decompressed


def test_a_member_over_its_limit_is_refused_naming_it(tmp_path, monkeypatch):
    path = _write_zip(tmp_path / "big.zip", _members(SHIPPED))
    monkeypatch.setattr(model_data, "MAX_MEMBER_BYTES", 1 << 20)  # the shipped policy.pth is 2.2 MB
    with pytest.raises(ValueError, match=rf"{path}: member 'policy.pth' expands to 2190506 bytes; a model's "
                                         r"member holds at most 1048576"):
        load_model(path, "MaskablePPO")


def test_a_member_that_expands_past_its_declared_size_is_refused(tmp_path):
    """A member whose header says fewer bytes than it holds: the read stops at the declared
    size and the zip is refused in one line naming the file."""
    path = tmp_path / "liar.zip"
    _write_zip(path, _members(SHIPPED))
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("data")
    # The sizes in the local header (offset 22) and in the central directory's entry.
    declared = info.file_size.to_bytes(4, "little")
    smaller = (info.file_size // 2).to_bytes(4, "little")
    raw[info.header_offset + 22:info.header_offset + 26] = smaller
    central = next(i for i in range(len(raw)) if raw[i:i + 4] == b"PK\x01\x02"
                   and raw[i + 46:i + 46 + len(b"data")] == b"data")
    assert raw[central + 24:central + 28] == declared
    raw[central + 24:central + 28] = smaller
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=rf"^{path}: not a readable model zip: BadZipFile"):
        load_model(str(path), "MaskablePPO")
