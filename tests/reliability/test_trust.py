"""Untrusted variant files name no code and replace no id they did not register."""

import sys

import gymnasium as gym
import pytest

import poolgym


def _write(folder, text, name="variant.yaml"):
    path = folder / name
    path.write_text(text)
    return path


@pytest.fixture
def evil_module(tmp_path, monkeypatch):
    """A module that leaves a marker file when it is imported."""
    marker = tmp_path / "imported"
    (tmp_path / "evilmod_trust.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\ndef policy(obs, info):\n    return None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield marker
    sys.modules.pop("evilmod_trust", None)


@pytest.mark.parametrize("opponent", ["evilmod_trust:policy", "this:s", "x.zip", "PPO:model.zip"])
def test_an_untrusted_file_names_no_opponent_code(tmp_path, evil_module, opponent):
    path = _write(tmp_path, f"id: trust/Opp-v0\ngame: nine_ball\nopponent: '{opponent}'\n")
    with pytest.raises(ValueError, match=rf"{path}: key 'opponent' is .*{opponent}.*untrusted.*trusted=True"):
        poolgym.register_from_yaml(path)
    assert not evil_module.exists()
    assert "trust/Opp-v0" not in gym.registry


def test_the_import_of_an_untrusted_opponent_never_runs(tmp_path, evil_module):
    path = _write(tmp_path, "id: trust/Evil-v0\ngame: nine_ball\nopponent: evilmod_trust:policy\n")
    with pytest.raises(ValueError):
        poolgym.register_directory(tmp_path)
    assert not evil_module.exists()
    # Trusted, the same file runs the module: the import path is code, as it says.
    assert poolgym.register_from_yaml(path, trusted=True) == "trust/Evil-v0"
    assert evil_module.exists()


@pytest.mark.parametrize("key, value, named", [
    ("table", "{preset: 'pkg.mod:Table'}", "table.preset"),
    ("noise", "'pkg.mod:noise'", "noise"),
    ("rules_options", "{spot: ['a', 'evil.py']}", r"rules_options.spot\[1\]"),
    ("action_mode", "'model.pkl'", "action_mode"),
])
def test_an_untrusted_file_names_no_code_in_any_value(tmp_path, key, value, named):
    path = _write(tmp_path, f"id: trust/Value-v0\ngame: nine_ball\n{key}: {value}\n")
    with pytest.raises(ValueError, match=rf"{path}: key '{named}' is .*names code.*trusted=True"):
        poolgym.register_from_yaml(path)


@pytest.mark.parametrize("opponent", ["bot:fast", "legal-random", "solo", "uniform-action"])
def test_ladder_opponents_stay_allowed(tmp_path, opponent):
    env_id = f"trust/Ladder{opponent.replace(':', '').replace('-', '')}-v0"
    path = _write(tmp_path, f"id: {env_id}\ngame: nine_ball\nopponent: {opponent}\n")
    assert poolgym.register_from_yaml(path) == env_id
    assert gym.make(env_id).unwrapped.opponent_name == opponent


def test_an_untrusted_file_does_not_replace_a_built_in_id(tmp_path):
    path = _write(tmp_path, "id: poolgym/NineBall-v1\ngame: nine_ball\nnoise: none\nopponent: random\n")
    before = gym.registry["poolgym/NineBall-v1"]
    with pytest.raises(ValueError, match=rf"{path}: key 'id' 'poolgym/NineBall-v1' is registered already "
                                         r"\(by poolgym or from Python\).*replace=True"):
        poolgym.register_from_yaml(path)
    assert gym.registry["poolgym/NineBall-v1"] is before
    try:
        assert poolgym.register_from_yaml(path, replace=True) == "poolgym/NineBall-v1"
        assert gym.registry["poolgym/NineBall-v1"].kwargs["opponent"] == "random"
    finally:
        gym.registry["poolgym/NineBall-v1"] = before
        poolgym.registration._REGISTERED_FROM.pop("poolgym/NineBall-v1", None)


def test_an_untrusted_file_does_not_replace_another_files_id(tmp_path):
    first = _write(tmp_path, "id: trust/Shared-v0\ngame: nine_ball\n", "first.yaml")
    second = _write(tmp_path, "id: trust/Shared-v0\ngame: ten_ball\n", "second.yaml")
    assert poolgym.register_from_yaml(first) == "trust/Shared-v0"
    assert poolgym.register_from_yaml(first) == "trust/Shared-v0"  # its own id, again
    with pytest.raises(ValueError, match=rf"{second}: key 'id' 'trust/Shared-v0' is registered already "
                                         rf"\(from {first}\)"):
        poolgym.register_from_yaml(second)
    assert gym.registry["trust/Shared-v0"].kwargs["game"] == "nine_ball"
    assert poolgym.register_from_yaml(second, replace=True) == "trust/Shared-v0"
    assert gym.registry["trust/Shared-v0"].kwargs["game"] == "ten_ball"


@pytest.mark.parametrize("given, resolved", [("poolgym/NineBall-v01", "poolgym/NineBall-v1"),
                                             ("poolgym/PotBall-v00", "poolgym/PotBall-v0")])
def test_an_untrusted_file_does_not_replace_a_built_in_id_under_another_spelling(tmp_path, given, resolved):
    # Gymnasium reads 'v01' as version 1: the file would otherwise replace the built-in id.
    path = _write(tmp_path, f"id: {given}\ngame: ten_ball\n")
    before = gym.registry[resolved]
    with pytest.raises(ValueError, match=rf"{path}: key 'id' '{given}' \(to Gymnasium '{resolved}'\) is "
                                         r"registered already \(by poolgym or from Python\)"):
        poolgym.register_from_yaml(path)
    assert gym.registry[resolved] is before
    assert given not in poolgym.registration._REGISTERED_FROM


def test_a_file_registers_its_own_id_again_under_another_spelling(tmp_path):
    path = _write(tmp_path, "id: trust/Spelled-v01\ngame: nine_ball\n")
    assert poolgym.register_from_yaml(path) == "trust/Spelled-v1"
    assert poolgym.register_from_yaml(path) == "trust/Spelled-v1"
    other = _write(tmp_path, "id: trust/Spelled-v1\ngame: ten_ball\n", "other.yaml")
    with pytest.raises(ValueError, match=rf"{other}: key 'id' 'trust/Spelled-v1' is registered already "
                                         rf"\(from {path}\)"):
        poolgym.register_from_yaml(other)
    assert gym.make("trust/Spelled-v1").unwrapped.rules.name == "nine_ball"
