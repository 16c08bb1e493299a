"""Training from configs: a tiny run of the default config, the CLI, config validation."""

import json
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

import poolgym  # noqa: F401
from poolgym.agents.tools.cli import main
from poolgym.agents.evaluation.policy_eval import evaluate, resolve_opponent, wilson_interval
from poolgym.agents.training.train import load_model, train
from poolgym.agents.training.train_config import load_config

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "configs" / "train" / "default.yaml"
TINY = dict(steps=256)


def tiny_config(**changes) -> dict:
    """The default config with a budget small enough for a test."""
    data = yaml.safe_load(DEFAULT.read_text())
    data["hyperparameters"].update(n_steps=128, batch_size=64, n_epochs=1)
    data["total_steps"] = 256
    data["checkpoint_every"] = 128
    data["eval"].update(every_steps=128, episodes=5, final_episodes=10)
    data.update(changes)
    return data


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    return out, train(tiny_config(), out=out)


def test_tiny_run_writes_model_summary_checkpoints(tiny_run):
    out, summary = tiny_run
    assert summary["steps"] >= 256
    assert (out / "model.zip").exists() and (out / "best_model.zip").exists()
    assert list((out / "checkpoints").glob("*.zip"))
    assert list((out / "tb").rglob("events.out.tfevents*"))
    on_disk = json.loads((out / "summary.json").read_text())
    assert on_disk["steps"] == summary["steps"]
    assert [h["timesteps"] for h in summary["eval_history"]] == [0, 128, 256]  # step 0: untrained
    final = summary["final"][0]
    for side in ("trained", "baseline"):
        s = final[side]
        assert s["episodes"] == 10 and s["success_name"] == "pot rate"
        assert s["success_ci"][0] <= s["success_rate"] <= s["success_ci"][1]


def test_saved_model_loads_and_plays_legal_games(tiny_run):
    out, summary = tiny_run
    model = load_model(out / "model.zip", "PPO")
    for env_id in ("poolgym/PotBall-v0", "poolgym/NineBallSolo-v0"):
        env = gym.make(env_id, obs_mode="flat", action_mode="aim", max_episode_steps=30)
        obs, info = env.reset(seed=3)
        for _ in range(30):
            action, _ = model.predict(obs, deterministic=True)
            assert env.action_space.contains(np.asarray(action, dtype=np.float32))
            obs, reward, terminated, truncated, info = env.step(action)
            assert np.isfinite(reward) and env.observation_space.contains(obs)
            if terminated or truncated:
                break
        env.close()


def test_train_cli_tiny_budget(tmp_path, capsys):
    import yaml

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(tiny_config(eval={"final_episodes": 5}, checkpoint_every=0)))
    assert main(["train", "--config", str(config), "--steps", "128", "--out", str(tmp_path / "run"),
                 "--seed", "3", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "pot rate" in printed and "random" in printed
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["config"]["seed"] == 3 and summary["steps"] >= 128


@pytest.mark.parametrize("change, key", [
    ({"learnin_rate": 1}, "'learnin_rate'"),
    ({"total_steps": "many"}, "'total_steps'"),
    ({"total_steps": True}, "'total_steps'"),
    ({"n_envs": 0}, "'n_envs'"),
    ({"vec_env": "threads"}, "'vec_env'"),
    ({"algorithm": "DQN"}, "'algorithm'"),
    ({"env": {"kwargs": {}}}, "'env.id'"),
    ({"env": {"id": "poolgym/PotBall-v0", "kwarg": {}}}, "'env.kwarg'"),
    ({"eval": {"episodes": "ten"}}, "'eval.episodes'"),
    ({"eval": {"opponents": [3]}}, "'eval.opponents[0]'"),
    ({"hyperparameters": {"n_step": 64}}, "'hyperparameters.n_step'"),
    ({"hyperparameters": {"learning_rate": "3e-4"}}, "'hyperparameters.learning_rate'"),
    ({"hyperparameters": {"seed": 1}}, "'hyperparameters.seed'"),
])
def test_config_errors_name_the_key_and_the_file(tmp_path, change, key):
    import yaml

    data = tiny_config()
    data.update(change)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError) as err:
        load_config(path)
    assert key in str(err.value) and str(path) in str(err.value)


def test_missing_key_and_unreadable_file(tmp_path):
    path = tmp_path / "short.yaml"
    path.write_text("algorithm: PPO\nenv: {id: poolgym/PotBall-v0}\n")
    with pytest.raises(ValueError, match=r"short.yaml: missing key 'total_steps'"):
        load_config(path)
    path.write_text("algorithm: [PPO\n")
    with pytest.raises(ValueError, match="short.yaml"):
        load_config(path)


def test_shipped_configs_are_valid():
    from poolgym.agents.training.rllib_train import load_rllib_config

    for path in sorted((ROOT / "configs" / "train").glob("*.yaml")):
        if yaml.safe_load(path.read_text()).get("backend") == "rllib":
            cfg = load_rllib_config(path)
            gym.make(cfg["env"]["id"], **cfg["env"]["kwargs"]).close()
            continue
        cfg = load_config(path)
        gym.make(cfg.env_id, **cfg.make_kwargs()).close()


def test_wilson_interval():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 20)[0] == 0.0 and wilson_interval(20, 20)[1] == 1.0


def test_opponents_by_name_and_import_path():
    assert resolve_opponent("random") == "random"
    policy = resolve_opponent("tests.train.test_train:SoftStroke")
    assert isinstance(policy, SoftStroke)
    assert resolve_opponent("bot:fast") == "bot:fast" and resolve_opponent("uniform-action") == "uniform-action"
    with pytest.raises(ValueError, match="bot:nonsense"):
        resolve_opponent("bot:nonsense")
    score = evaluate("random", "poolgym/NineBall-v0",
                     {"obs_mode": "flat", "action_mode": "aim", "opponent": policy,
                      "max_episode_steps": 20}, episodes=1, seed=0)
    assert score.success_name == "win rate" and score.episodes == 1


class SoftStroke:
    """A stand-in bot: aims at the first candidate at low speed, decides the first choice."""

    def __call__(self, obs, info):
        return np.array([-1.0, 0.0, -0.6, 0, 0, 0, 0, -1.0, -1.0, -1.0], dtype=np.float32)


def test_quickstart_tiny_budget_writes_its_files_each_run_in_a_new_folder(tmp_path, monkeypatch, capsys):
    """The quickstart at a tiny budget, run three times from one directory: each run in a
    new folder (runs/quickstart, runs/quickstart-2), every file listed at the end and in
    docs/quickstart.md, no warning about its own model file; a folder given with --out that
    holds a run is refused in one line and left as it was, and replaced with --replace."""
    import warnings

    from poolgym.agents.tools.quickstart import FILES, run_quickstart

    monkeypatch.chdir(tmp_path)
    config = tiny_config(checkpoint_every=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = run_quickstart(steps=128, episodes=5, racks=1, config=config, progress_bar=False)
    assert not [w for w in caught if "model file" in str(w.message)]
    out = tmp_path / "runs" / "quickstart"
    assert Path(first["model"]).parent.resolve() == out.resolve()
    printed = capsys.readouterr().out
    assert "trained" in printed and "random" in printed and "95%" in printed
    assert "9-ball under the poolgym/NineBall-v1 protocol, 1 racks against legal-random" in printed
    assert "learned the pot-ball drill only" in printed
    side = "(clear above|clear below|level with)"
    assert re.search(f"at 9-ball, in racks won, the trained agent is {side} untrained, {side} fixed, "
                     f"{side} pretrained:nine_ball", printed)
    for reference in ("pretrained:nine_ball", "random", "fixed", "untrained"):
        assert f"\n  {reference} " in printed
    for name in ("learning_curve.png", "shots.png", "nine_ball_rack.gif"):
        assert (out / name).stat().st_size > 10_000
    assert json.loads((out / "nine_ball.json").read_text())["agents"].keys() >= {"trained", "fixed"}
    assert [h["timesteps"] for h in first["eval_history"]][0] == 0  # the curve starts untrained

    # Every entry of the folder is one the output and the docs describe.
    entries = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert set(entries) <= set(FILES) and {"model.zip", "summary.json", "nine_ball.json"} <= set(entries)
    listing = printed[printed.index(f"files in {Path('runs') / 'quickstart'}:"):].splitlines()[1:]
    assert [line.split()[0].rstrip("/") for line in listing] == entries
    docs = (ROOT / "docs" / "quickstart.md").read_text()
    assert all(f"`{name}" in docs for name in FILES), [name for name in FILES if f"`{name}" not in docs]

    # A second run: a new folder, the first left as it was.
    model = (out / "model.zip").read_bytes()
    second = run_quickstart(steps=128, episodes=5, racks=1, config=config, progress_bar=False)
    assert Path(second["model"]).parent.resolve() == (tmp_path / "runs" / "quickstart-2").resolve()
    assert (out / "model.zip").read_bytes() == model

    # --out naming a folder that holds a run: one line naming it, nothing touched.
    with pytest.raises(ValueError, match=r"run folder runs/quickstart already holds a run .*--replace") as refused:
        run_quickstart(out="runs/quickstart", steps=128, episodes=5, racks=1, config=config, progress_bar=False)
    assert "\n" not in str(refused.value)
    assert (out / "model.zip").read_bytes() == model
    replaced = run_quickstart(out="runs/quickstart", steps=2 * first["steps"], episodes=5, racks=1, config=config,
                              progress_bar=False, replace=True)
    assert json.loads((out / "summary.json").read_text())["steps"] == replaced["steps"] == 2 * first["steps"]


def test_the_quickstart_reads_where_an_agent_stands_off_the_intervals():
    from poolgym.agents.tools.quickstart import against

    assert against((0.76, (0.668, 0.833)), (0.24, (0.167, 0.332))) == "clear above"
    assert against((0.76, (0.668, 0.833)), (0.80, (0.711, 0.867))) == "level with"
    assert against((0.76, (0.668, 0.833)), (0.95, (0.888, 0.978))) == "clear below"


def test_checkpoints_carry_the_env_record_and_play(tiny_run):
    """A checkpoint is saved like the final model: it names its env and plays through the
    agent loader on its own."""
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.envs.sb3_models import read_env_record
    from poolgym.rules import get_ruleset

    out, summary = tiny_run
    checkpoints = sorted((out / "checkpoints").glob("*.zip"))
    assert [p.name for p in checkpoints] == ["ppo_128_steps.zip", "ppo_256_steps.zip"]
    record = read_env_record(str(checkpoints[0]))
    assert record == read_env_record(str(out / "model.zip"))
    rules = get_ruleset("nine_ball")
    agent = make_agent(str(checkpoints[0]), rules)
    state = rules.new_game(rng=1, breaker=0)
    assert agent.choose(state) is not None


def test_train_resume_from_the_command_line(tiny_run, tmp_path, capsys):
    out, summary = tiny_run
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(tiny_config(eval={"final_episodes": 4}, checkpoint_every=0)))
    checkpoint = out / "checkpoints" / "ppo_128_steps.zip"
    assert main(["train", "--config", str(config), "--out", str(tmp_path / "r"), "--steps", "128",
                 "--resume", str(checkpoint), "--no-progress"]) == 0
    resumed = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert resumed["steps"] == 128 + 128


def test_train_resume_takes_a_model_recorded_before_the_elevated_cue(tiny_run, tmp_path):
    """A model saved before env records named ``elevation`` (the shipped agent's) was
    trained level: resuming it under a config without the elevated cue is the same mapping."""
    import zipfile

    from poolgym.envs.sb3_models import ENV_RECORD, read_env_record

    out, _ = tiny_run
    source = out / "checkpoints" / "ppo_128_steps.zip"
    older = tmp_path / "older.zip"
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(older, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == ENV_RECORD:
                record = json.loads(data)
                del record["elevation"], record["observe_match"]
                data = json.dumps(record).encode()
            dst.writestr(item, data)
    assert "elevation" not in read_env_record(str(older))
    config = tiny_config(total_steps=128, checkpoint_every=64, eval={"every_steps": 0, "final_episodes": 2})
    config["hyperparameters"]["learning_rate"] = 1e-5
    resumed = train(config, out=tmp_path / "r", resume=older)
    assert resumed["steps"] == 128 + 128
    # It went on with the config's hyperparameters, not the ones saved in the model.
    from stable_baselines3 import PPO

    assert PPO.load(tmp_path / "r" / "model.zip").learning_rate == 1e-5
    # Periodic work goes on at the multiples past the resumed count, not at every step.
    assert sorted(p.name for p in (tmp_path / "r" / "checkpoints").glob("*.zip")) == [
        "ppo_192_steps.zip", "ppo_256_steps.zip"]


def test_train_resume_refuses_a_model_of_another_mapping(tmp_path, capsys):
    other = tmp_path / "other"
    train(tiny_config(env={**tiny_config()["env"], "kwargs": {"obs_mode": "flat", "action_mode": "raw"}},
                      total_steps=64, checkpoint_every=0, eval={"every_steps": 0, "final_episodes": 2}),
          out=other)
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(tiny_config(checkpoint_every=0)))
    assert main(["train", "--config", str(config), "--out", str(tmp_path / "r"), "--steps", "64",
                 "--resume", str(other / "model.zip"), "--no-progress"]) == 2
    assert not (tmp_path / "r" / "model.zip").exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "action_mode: model 'raw', config 'aim'" in err[0]
    with pytest.raises(SystemExit):
        main(["train", "--config", str(config), "--resume", str(tmp_path / "missing.zip")])
    assert "missing.zip" in capsys.readouterr().err


def _tiny_recipe(tmp_path) -> Path:
    """The MaskablePPO recipe with one small update (its curve and evaluations as shipped)."""
    data = yaml.safe_load((ROOT / "configs" / "train" / "nine_ball_maskable_ppo.yaml").read_text())
    data["hyperparameters"].update(n_steps=64, batch_size=32, n_epochs=1)
    data.update(n_envs=1, checkpoint_every=0)
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_train_no_eval_only_trains_and_eval_racks_sets_every_budget(tmp_path, capsys):
    config = _tiny_recipe(tmp_path)
    assert main(["train", "--config", str(config), "--steps", "64", "--out", str(tmp_path / "bare"),
                 "--no-eval", "--no-progress"]) == 0
    assert "not evaluated (--no-eval)" in capsys.readouterr().out
    summary = json.loads((tmp_path / "bare" / "summary.json").read_text())
    assert summary["final"] == [] and summary["curve_final"] is None and summary["config"]["curve"] is None
    assert (tmp_path / "bare" / "model.zip").exists() and not (tmp_path / "bare" / "curve.json").exists()

    assert main(["train", "--config", str(config), "--steps", "64", "--out", str(tmp_path / "short"),
                 "--eval-racks", "2"]) == 0
    err = capsys.readouterr().err  # the bars say what each phase plays
    assert "curve point at 0 steps (legal-random, bot:weak)" in err
    assert "curve's final racks (legal-random, bot:weak, bot:fast, bot:pro-deep)" in err
    assert "final evaluation (2 episodes of poolgym/NineBall-v1" in err
    summary = json.loads((tmp_path / "short" / "summary.json").read_text())
    assert {s["episodes"] for row in summary["final"] for s in (row["trained"], *row["references"].values())} == {2}
    curve = json.loads((tmp_path / "short" / "curve.json").read_text())
    assert {r["racks"] for r in curve["points"] + curve["references"]} == {2}
    assert [(f["opponent"], f["trained"]["racks"]) for f in curve["final"]] == [
        ("legal-random", 2), ("bot:weak", 2), ("bot:fast", 2), ("bot:pro-deep", 2)]
    # The curve's points are tensorboard scalars, at the step each was measured.
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(next((tmp_path / "short" / "tb").iterdir()))).Reload()
    tags = events.Tags()["scalars"]
    assert {"curve/legal-random/racks_won", "curve/bot:weak/racks_won",
            "curve_final/bot:fast/trained", "curve_final/bot:fast/fixed", "curve_final/bot:pro-deep/trained"} <= set(tags)
    point = events.Scalars("curve/legal-random/racks_won")
    assert [(p.step, p.value) for p in point] == [(0, curve["points"][0]["win_rate"])]
    assert events.Scalars("curve_final/bot:fast/trained")[0].step == summary["steps"]


def test_eval_racks_must_be_positive(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--config", str(DEFAULT), "--eval-racks", "0"])
    assert "--eval-racks" in capsys.readouterr().err


def test_envs_stepped_in_the_training_process_train_and_leave_torch_as_it_was(tmp_path):
    """``vec_env: dummy`` with two envs trains (both envs' episodes in the monitor), and the
    distribution argument checks switched off for training are switched back on after."""
    import torch

    before = torch.distributions.Distribution._validate_args
    summary = train(tiny_config(n_envs=2, vec_env="dummy", checkpoint_every=0,
                                eval={"every_steps": 0, "final_episodes": 2}), out=tmp_path)
    assert summary["steps"] >= 256 and summary["config"]["vec_env"] == "dummy"
    assert sorted(p.name for p in (tmp_path / "monitor").iterdir()) == ["0.monitor.csv", "1.monitor.csv"]
    assert torch.distributions.Distribution._validate_args == before


def test_train_cli_passes_the_update_threads(monkeypatch, capsys):
    """``--update-threads N`` reaches ``train`` (default 2); 0 is refused by name."""
    import poolgym.agents.training.train as training

    class Called(Exception):
        pass

    def called(config, **kwargs):
        raise Called(kwargs)

    monkeypatch.setattr(training, "train", called)
    for extra, threads in (([], 2), (["--update-threads", "1"], 1)):
        with pytest.raises(Called) as info:
            main(["train", "--config", str(DEFAULT), "--no-progress", *extra])
        assert info.value.args[0]["update_threads"] == threads
    with pytest.raises(SystemExit):
        main(["train", "--config", str(DEFAULT), "--update-threads", "0"])
    assert "--update-threads: must be at least 1" in capsys.readouterr().err


def test_fused_updates_follow_the_loop_and_keep_a_chosen_setting():
    """``_fused_updates``: the MaskablePPO recipe's network takes the same Adam steps with
    the fused update as with torch's CPU default (a loop over tensors), to float rounding,
    and they move it; an optimizer whose ``foreach`` or ``fused`` the config set is left as
    it is."""
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    from poolgym.agents.training.train import _fused_updates

    env = gym.make("poolgym/NineBall-v1", obs_mode="flat", action_mode="choice_discrete")
    models = [MaskablePPO("MlpPolicy", env, seed=3, policy_kwargs={"net_arch": [256, 256]}) for _ in range(2)]
    start = [p.detach().clone() for p in models[0].policy.parameters()]
    _fused_updates(models[1].policy)
    assert [g["fused"] for g in models[0].policy.optimizer.param_groups] == [None]
    assert [g["fused"] for g in models[1].policy.optimizer.param_groups] == [True]
    obs = torch.as_tensor(np.random.default_rng(0).random((64, env.observation_space.shape[0]), dtype=np.float32))
    for model in models:
        for _ in range(5):
            values, _, entropy = model.policy.evaluate_actions(obs, torch.zeros((64, 8), dtype=torch.long))
            loss = values.square().mean() - entropy.mean()
            model.policy.optimizer.zero_grad()
            loss.backward()
            model.policy.optimizer.step()
    moved = 0.0
    for a, b, first in zip(models[0].policy.parameters(), models[1].policy.parameters(), start):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6)
        moved = max(moved, float((a.detach() - first).abs().max()))
    assert moved > 1e-4  # five steps at SB3's learning rate moved the weights
    for chosen_kwargs in ({"foreach": False}, {"foreach": True}, {"fused": False}):
        chosen = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8], "optimizer_kwargs": chosen_kwargs})
        _fused_updates(chosen.policy)
        group = chosen.policy.optimizer.param_groups[0]
        assert {k: group[k] for k in chosen_kwargs} == chosen_kwargs and not group["fused"]
