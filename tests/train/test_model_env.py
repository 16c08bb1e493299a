"""A saved model carries its env: the record written by training, the mapping rebuilt by
``poolgym eval``, mismatches refused naming both sides, older files inferred with a
warning, and one-line errors for bad agent specs."""

import json
import time
import zipfile

import pytest
import yaml

import poolgym  # noqa: F401
from poolgym.agents.tools.cli import main
from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.evaluation.policy_eval import evaluate
from poolgym.agents.training.train import train
from poolgym.envs import sb3_models
from poolgym.rules import get_ruleset
from tests.train.test_train import tiny_config

SPEED, CUT = 6.0, 3.0


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    """A tiny PPO model trained with a non-default speed and cut range."""
    out = tmp_path_factory.mktemp("model_env")
    cfg = tiny_config(checkpoint_every=0, total_steps=128)
    cfg["env"]["kwargs"].update(max_speed=SPEED, max_cut_deg=CUT)
    cfg["eval"].update(every_steps=0, final_episodes=4)
    cfg["hyperparameters"].update(n_steps=64, batch_size=64)
    summary = train(cfg, out=out)
    return summary["model"]


def test_training_records_the_env_in_the_model(model_path):
    with zipfile.ZipFile(model_path) as archive:
        record = json.loads(archive.read(sb3_models.ENV_RECORD))
    assert record["env_id"] == tiny_config()["env"]["id"]
    assert (record["action_mode"], record["obs_mode"]) == ("aim", "flat")
    assert (record["max_speed"], record["max_cut_deg"]) == (SPEED, CUT)
    assert record["env_kwargs"]["max_speed"] == SPEED and record["env_kwargs"]["n_balls"] == 1


def test_eval_plays_a_model_with_its_own_mapping(model_path, tmp_path):
    rules = get_ruleset("nine_ball")
    agent = make_agent(f"PPO:{model_path}", rules)
    assert (agent.mapper.mode, agent.mapper.max_speed, agent.mapper.max_cut_deg) == ("aim", SPEED, CUT)
    assert agent.obs_mode == "flat"
    out = tmp_path / "s.json"
    assert main(["eval", "-a", model_path, "-b", "legal-random", "--games", "2", "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["agents"][model_path]["shots"] > 0
    # Reference points on the same racks against the same opponent.
    refs = summary["references"]
    assert refs["opponent"] == "legal-random" and set(refs["agents"]) == {"random", "fixed", "untrained"}
    for stats in refs["agents"].values():
        low, high = stats["win_rate_ci95"]
        assert low <= stats["win_rate"] <= high


def test_a_mismatched_model_is_refused_naming_both_sides(model_path, capsys):
    assert main(["eval", "-a", model_path, "--action-mode", "raw", "--games", "1"]) == 2
    assert "action_mode 'aim', not the 'raw' asked for" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"max_speed: model 6.0, env 8.0.*max_cut_deg: model 3.0, env 5.0"):
        evaluate(model_path, "poolgym/PotBall-v0", {"obs_mode": "flat", "n_balls": 1}, episodes=1)
    with pytest.raises(ValueError, match=r"action_mode: model 'aim', env 'raw'"):
        evaluate(model_path, "poolgym/PotBall-v0", {"obs_mode": "flat", "action_mode": "raw",
                                                    "max_speed": SPEED, "max_cut_deg": CUT}, episodes=1)
    # Its own env is accepted.
    score = evaluate(model_path, "poolgym/PotBall-v0", {"obs_mode": "flat", "action_mode": "aim", "n_balls": 1,
                                                        "max_speed": SPEED, "max_cut_deg": CUT}, episodes=2)
    assert score.episodes == 2


def test_another_observation_size_is_refused_naming_both_sides(model_path):
    model = sb3_models.load_model(model_path)
    record = sb3_models.read_env_record(model_path)
    sb3_models.check_spaces(model, record, model_path)  # as trained: fine
    with pytest.raises(ValueError, match=r"takes flat observations of size \d+; this poolgym's 'dict' "
                                         r"observations have size \d+"):
        sb3_models.check_spaces(model, {**record, "obs_mode": "dict"}, model_path)


def test_an_older_model_without_a_record_is_inferred_with_a_warning(model_path, tmp_path):
    old = tmp_path / "old.zip"
    with zipfile.ZipFile(model_path) as src, zipfile.ZipFile(old, "w") as dst:
        for item in src.infolist():
            if item.filename != sb3_models.ENV_RECORD:
                dst.writestr(item, src.read(item.filename))
    with pytest.warns(UserWarning, match="does not record the env"):
        agent = make_agent(str(old), get_ruleset("nine_ball"))
    assert (agent.mapper.mode, agent.mapper.max_speed, agent.mapper.max_cut_deg) == ("aim", 10.0, 5.0)


def test_a_model_this_poolgym_trained_loads_as_data_without_a_warning(model_path):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = sb3_models.load_model(model_path)
    assert model.num_timesteps >= 128


def test_agent_spec_errors_are_one_line_and_name_the_value(tmp_path):
    rules = get_ruleset("nine_ball")
    started = time.perf_counter()
    with pytest.raises(ValueError) as err:
        make_agent(str(tmp_path / "missing.zip"), rules)
    assert time.perf_counter() - started < 2.0
    assert "missing.zip'" in str(err.value) and "missing.zip.zip" not in str(err.value)
    cases = {"nonsense": ["unknown agent 'nonsense'", "legal-random", "bot:weak"],
             "bot:quick": ["unknown agent 'bot:quick'", "weak"],
             "no_such_module_xyz:agent": ["no_such_module_xyz", "does not import"],
             "poolgym.agents.bot.player:NoSuchThing": ["has no 'NoSuchThing'"],
             "XYZ:model.zip": ["model file 'XYZ:model.zip' does not exist"]}
    for spec, parts in cases.items():
        with pytest.raises(ValueError) as err:
            make_agent(spec, rules)
        message = str(err.value)
        assert "\n" not in message and all(p in message for p in parts), message


def test_a_model_is_an_env_opponent_with_its_own_mapping(model_path):
    from poolgym.envs.pool_env import PoolEnv

    env = PoolEnv("nine_ball", opponent=f"PPO:{model_path}", action_mode="raw", obs_mode="dict")
    assert env.opponent.mapper.max_speed == SPEED and env.opponent.obs_mode == "flat"
    records = []
    env.move_listeners.append(records.append)
    env.reset(seed=0)
    for _ in range(3):
        *_, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated:
            break
    assert any(r.player == 1 and r.mapping == "raw" for r in records)


def test_train_report_shows_the_reference_points(tmp_path, capsys):
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(tiny_config(eval={"final_episodes": 4}, checkpoint_every=0)))
    assert main(["train", "--config", str(config), "--steps", "64", "--out", str(tmp_path / "run"),
                 "--no-progress"]) == 0
    printed = capsys.readouterr().out
    for name in ("trained", "untrained", "random", "fixed"):
        assert f"\n  {name} " in printed
    final = json.loads((tmp_path / "run" / "summary.json").read_text())["final"][0]
    assert set(final["references"]) == {"random", "fixed", "untrained"}


@pytest.mark.parametrize("action_mode", ["aim", "choice"])
def test_a_model_trained_on_a_v1_game_env_plays_in_eval_with_its_match_score_and_slots(action_mode, tmp_path):
    cfg = tiny_config(checkpoint_every=0, total_steps=64)
    cfg["env"] = {"id": "poolgym/NineBall-v1", "kwargs": {"obs_mode": "flat", "action_mode": action_mode}}
    cfg["eval"].update(every_steps=0, episodes=1, final_episodes=1)
    cfg["hyperparameters"].update(n_steps=32, batch_size=32)
    model = train(cfg, out=tmp_path)["model"]
    record = sb3_models.read_env_record(model)
    assert record["observe_match"] is True and record["action_mode"] == action_mode
    agent = make_agent(model, get_ruleset("nine_ball"))
    assert agent.observe_match and agent.mapper.mode == action_mode
    assert main(["eval", "-a", model, "-b", "legal-random", "--games", "2"]) == 0
