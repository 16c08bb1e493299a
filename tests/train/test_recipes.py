"""The training recipes (configs/train/nine_ball_*.yaml) at a tiny budget: each trains end
to end, writes its racks-won curve, saves a model that loads and plays a legal game; the
return statistics travel with the model; a MaskablePPO model never plays a masked value."""

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

import poolgym  # noqa: F401
from poolgym.agents.training import return_norm
from poolgym.agents.training.curriculum import WithMatchScore
from poolgym.agents.evaluation.evaluate import run_match, summarize
from poolgym.agents.evaluation.loading import PolicyAgent, make_agent
from poolgym.agents.evaluation.policy_eval import evaluate
from poolgym.agents.evaluation.protocol import protocol
from poolgym.agents.training.self_play import LeagueOpponents
from poolgym.agents.training.train import train, with_budget
from poolgym.agents.training.train_config import load_config
from poolgym.envs.opponents import SB3Policy
from poolgym.envs.sb3_models import action_mapper, load_model, read_env_record

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ("curriculum", "self_play", "maskable_ppo", "ppo_choice", "sac_choice", "finetune_bot_fast")
STEPS = 64  # per stage


def recipe(name: str) -> Path:
    return ROOT / "configs" / "train" / f"nine_ball_{name}.yaml"


def tiny(name: str) -> dict:
    """The recipe with a budget a test can afford: one PPO update or a few SAC updates per
    stage, the curve at step 0 and at the end, 2 racks per measurement."""
    data = yaml.safe_load(recipe(name).read_text())
    if data["algorithm"] == "SAC":
        data["hyperparameters"].update(learning_starts=16, buffer_size=1000, batch_size=16)
    else:
        data["hyperparameters"].update(n_steps=STEPS, batch_size=32, n_epochs=1)
    data.update(n_envs=1, checkpoint_every=0)
    data["eval"].update(every_steps=0, final_episodes=2)
    data["curve"].update(every_steps=10**9, racks=2, final_racks=2, final_opponents=["legal-random", "bot:weak"])
    for stage in data.get("stages", []):
        stage["steps"] = STEPS
    data["total_steps"] = STEPS * max(1, len(data.get("stages", [])))
    if "self_play" in data:
        data["self_play"]["snapshot_every"] = STEPS // 2
    return data


_RUNS: dict[str, tuple[Path, dict]] = {}


def trained(name: str, tmp_path_factory) -> tuple[Path, dict]:
    """The tiny run of a recipe, trained once per test session."""
    if name not in _RUNS:
        out = tmp_path_factory.mktemp(name)
        _RUNS[name] = out, train(tiny(name), out=out)
    return _RUNS[name]


@pytest.fixture(params=RECIPES)
def run(request, tmp_path_factory):
    return (request.param, *trained(request.param, tmp_path_factory))


@pytest.fixture
def maskable_run(tmp_path_factory):
    return trained("maskable_ppo", tmp_path_factory)


def test_shipped_recipes_parse_with_real_budgets():
    for name in RECIPES:
        cfg = load_config(recipe(name))
        assert cfg.total_steps >= 300_000 and cfg.curve is not None and cfg.normalize_reward
        assert set(cfg.curve.final_opponents) >= {"legal-random", "bot:weak", "bot:fast", "bot:pro-deep"}
    assert [s.env_id for s in load_config(recipe("curriculum")).stages] == [
        "poolgym/PotBall-v1", "poolgym/NineBallSolo-v1", "poolgym/NineBall-v1", "poolgym/NineBall-v1"]


def test_recipe_trains_writes_curve_and_model_plays_legal_game(run):
    name, out, summary = run
    cfg = load_config(tiny(name))
    assert summary["steps"] >= cfg.total_steps
    curve = json.loads((out / "curve.json").read_text())
    assert (out / "curve.png").stat().st_size > 0
    assert "NineBall-v1" in curve["protocol"]
    assert {p["timesteps"] for p in curve["points"]} == {0}  # the untrained network's point
    for row in curve["points"] + curve["references"] + [f["trained"] for f in curve["final"]]:
        low, high = row["ci95"]
        assert row["racks"] == 2 and low <= row["win_rate"] <= high and high - low > 0
    assert {r["agent"] for r in curve["references"]} == {"untrained", "fixed"}
    assert [f["opponent"] for f in curve["final"]] == ["legal-random", "bot:weak"]

    record = read_env_record(str(out / "model.zip"))
    assert record["algorithm"] == cfg.algorithm and record["env_id"] == "poolgym/NineBall-v1"
    p = protocol("poolgym/NineBall-v1")
    agent = make_agent(str(out / "model.zip"), p.rules, noise=p.noise, max_speed=p.max_speed)
    opponent = make_agent("legal-random", p.rules, seed=1)
    stats = summarize(run_match(p.rules, [agent, opponent], ("model", "legal-random"), 1, seed=5, noise=p.noise))
    assert stats["agents"]["model"]["illegal_moves"] == 0 and stats["agents"]["model"]["shots"] > 0
    if name == "self_play":
        snapshots = sorted((out / "league").glob("snapshot_*.zip"))
        assert len(snapshots) == 2 and read_env_record(str(snapshots[0]))["algorithm"] == "MaskablePPO"
    if name == "curriculum":
        assert len(list((out / "monitor").glob("stage*"))) == 4
        # The training log runs on across the stages' monitor folders.
        from poolgym.agents.training.shipping import training_log

        episodes = sum(len(f.read_text().splitlines()) - 2 for f in (out / "monitor").glob("stage*/*.monitor.csv"))
        assert sum(row["episodes"] for row in training_log(out / "monitor")) == episodes > 0


def test_return_statistics_saved_in_model_and_resumed(maskable_run, tmp_path):
    out, summary = maskable_run
    stats = return_norm.read(str(out / "model.zip"))
    assert stats["gamma"] == 0.99 and stats["count"] > STEPS / 2 and stats["var"] > 0
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: gym.make("poolgym/PotBall-v1")])
    restored = return_norm.wrap(venv, 0.99, stats)
    assert return_norm.statistics(restored) == stats
    assert not restored.norm_obs  # observations reach the policy as the env gives them
    with pytest.raises(ValueError, match="gamma"):
        return_norm.wrap(venv, 0.9, stats)

    resumed = train(tiny("maskable_ppo"), out=tmp_path / "resumed", resume=out / "model.zip")
    assert resumed["steps"] == summary["steps"] + STEPS
    after = return_norm.read(str(tmp_path / "resumed" / "model.zip"))
    assert after["count"] > stats["count"]  # it went on from the saved statistics


class MaskChecked:
    """A policy wrapper that records, for every action, whether each component lies in
    what the masks allowed."""

    def __init__(self, policy, nvec) -> None:
        self.policy, self.offsets = policy, np.concatenate([[0], np.cumsum(nvec)[:-1]])
        self.allowed: list[bool] = []
        self.slots_offered: list[int] = []

    def __call__(self, obs, info):
        action = np.asarray(self.policy(obs, info))
        masks = np.asarray(info["action_masks"], dtype=bool)
        self.allowed.append(bool(masks[self.offsets + action].all()))
        self.slots_offered.append(int(masks[:self.offsets[1]].sum()))
        return action


def test_maskable_model_never_plays_a_masked_value(maskable_run):
    out, _ = maskable_run
    model = load_model(str(out / "model.zip"), "MaskablePPO")
    nvec = model.action_space.nvec
    checked = MaskChecked(SB3Policy(model), nvec)
    evaluate(checked, "poolgym/NineBall-v1", {"obs_mode": "flat", "action_mode": "choice_discrete"}, 3, seed=11)
    record = read_env_record(str(out / "model.zip"))
    p = protocol("poolgym/NineBall-v1")
    agent = PolicyAgent(checked, p.rules, obs_mode="flat", mapper=action_mapper(record, p.rules.table),
                        observe_match=True)
    run_match(p.rules, [agent, make_agent("legal-random", p.rules, seed=2)], ("m", "lr"), 2, seed=3, noise=p.noise)
    assert len(checked.allowed) > 20 and all(checked.allowed)
    assert min(checked.slots_offered) < nvec[0]  # some slots were masked: the check could fail
    with pytest.raises(ValueError, match="action_masks"):
        SB3Policy(model)(np.zeros(model.observation_space.shape, np.float32), {})


def test_curriculum_adapter_gives_the_drill_the_game_observation():
    game = gym.make("poolgym/NineBall-v1", obs_mode="flat", action_mode="choice_discrete")
    for obs_mode in ("flat", "dict"):
        drill = gym.make("poolgym/PotBall-v1", obs_mode=obs_mode, action_mode="choice_discrete", max_speed=12.0)
        adapted = WithMatchScore(drill)
        obs, _ = adapted.reset(seed=4)
        plain, _ = drill.reset(seed=4)
        assert adapted.observation_space.contains(obs)
        if obs_mode == "flat":
            assert adapted.observation_space == game.observation_space
            assert obs.size == plain.size + 2 and np.isclose(obs.sum(), plain.sum())
        else:
            assert np.array_equal(obs["match"], [0, 0]) and np.array_equal(obs["balls"], plain["balls"])
    assert drill.action_space == game.action_space


def test_league_draws_ladder_then_snapshots_from_seeded_generator(maskable_run):
    out, _ = maskable_run

    def draws(seed):
        env = LeagueOpponents(gym.make("poolgym/NineBall-v1", obs_mode="flat", action_mode="choice_discrete"),
                              ladder=("legal-random", "bot:weak"), league_size=1, ladder_share=0.5)
        env.reset(seed=seed)
        before = env.current
        env.add_snapshot(str(out / "model.zip"))
        seen = []
        for _ in range(12):
            _, info = env.reset()
            seen.append(info["opponent"])
        return before, seen

    before, seen = draws(7)
    assert before in ("legal-random", "bot:weak")
    assert str(out / "model.zip") in seen and set(seen) - {str(out / "model.zip")}
    assert draws(7) == (before, seen)


def test_recipe_config_errors_name_the_key():
    data = tiny("maskable_ppo")
    data["env"]["kwargs"]["action_mode"] = "choice"
    with pytest.raises(ValueError, match="choice_discrete"):
        load_config(data)
    data = tiny("curriculum")
    data["total_steps"] += 1
    with pytest.raises(ValueError, match="total_steps"):
        load_config(data)
    data["total_steps"] -= 1
    data["stages"][-1]["id"] = "poolgym/NineBallSolo-v1"
    with pytest.raises(ValueError, match="last stage"):
        load_config(data)
    data = tiny("self_play")
    data["self_play"]["ladder_share"] = 1.5
    with pytest.raises(ValueError, match="ladder_share"):
        load_config(data)
    data["self_play"]["ladder_share"] = 0.5
    data["curve"]["opponents"] = ["bot:wek"]
    with pytest.raises(ValueError, match=r"curve.opponents\[0\]"):
        load_config(data)


def test_budget_override_keeps_stage_shares():
    cfg = with_budget(load_config(recipe("curriculum")), 800)
    assert [s.steps for s in cfg.stages] == [150, 250, 250, 150] and cfg.total_steps == 800
    with pytest.raises(ValueError, match="at least 4"):
        with_budget(cfg, 3)


def test_ladder_agent_answers_a_rack_already_lost_on_the_break():
    """The opponent may win on its break in reset; the env then takes one step that only
    checks the action, and the ladder agent (fixed as the evaluated side) must give one."""
    import dataclasses

    from poolgym.agents.evaluation.policy_eval import resolve_agent

    env = gym.make("poolgym/NineBall-v1", obs_mode="flat", action_mode="choice_discrete")
    obs, info = env.reset(seed=0)
    game = env.unwrapped
    game.state = dataclasses.replace(game.state, balls=(), winner=1)
    action = resolve_agent("fixed", env)(obs, info)
    assert env.action_space.contains(action)


def test_a_finished_run_ships_as_a_pretrained_agent_folder(maskable_run, tmp_path):
    from poolgym.agents.training.shipping import ship_run, training_log

    out, summary = maskable_run
    with pytest.raises(ValueError, match="not a finished run: no model.zip"):
        ship_run(tmp_path / "empty", tmp_path / "dest", "nine_ball", "x")
    card = ship_run(out, tmp_path / "dest", "nine_ball", "a tiny run")
    assert card["steps"] == summary["steps"] and card["algorithm"] == "MaskablePPO"
    assert card["env_id"] == "poolgym/NineBall-v1" and card["seed"] == summary["config"]["seed"]
    shipped = tmp_path / "dest"
    assert json.loads((shipped / "card.json").read_text()) == card
    assert read_env_record(str(shipped / "model.zip")) == read_env_record(str(out / "model.zip"))
    log = training_log(out / "monitor")
    episodes = sum(len((out / "monitor" / f).read_text().splitlines()) - 2
                   for f in ("0.monitor.csv",) if (out / "monitor" / f).exists())
    assert sum(row["episodes"] for row in log) >= episodes > 0
    rules = protocol("poolgym/NineBall-v1").rules
    agent = make_agent(str(shipped / "model.zip"), rules)
    assert agent.choose(rules.new_game(rng=2, breaker=0)) is not None


def test_a_model_beside_its_run_summary_reports_its_training_run(maskable_run):
    from poolgym.agents.evaluation.baselines import training_run

    out, summary = maskable_run
    assert training_run(str(out / "model.zip")) == {"steps": summary["steps"], "unit": "steps",
                                                    "train_time_s": summary["train_time_s"]}
    assert training_run(f"MaskablePPO:{out / 'model.zip'}")["steps"] == summary["steps"]


def test_the_fine_tuning_recipe_goes_on_from_the_shipped_agent(tmp_path):
    """What its description says to run: the shipped network (the behaviour clone of
    lookahead-greedy), resumed against bot:fast with the recipe's learning rate."""
    from sb3_contrib import MaskablePPO

    from poolgym.agents.training.canonical_policy import CanonicalPolicy

    shipped = ROOT / "agents" / "pretrained" / "nine_ball" / "model.zip"
    summary = train(tiny("lookahead_finetune"), out=tmp_path, resume=shipped)
    start = MaskablePPO.load(shipped).num_timesteps
    assert summary["steps"] == start + STEPS
    model = MaskablePPO.load(tmp_path / "model.zip")
    assert model.learning_rate == 0.00003 and isinstance(model.policy, CanonicalPolicy)


def test_continuing_a_run_keeps_its_curve_points(tmp_path_factory, tmp_path):
    import shutil

    source, summary = trained("maskable_ppo", tmp_path_factory)
    out = tmp_path / "run"
    shutil.copytree(source, out)
    before = json.loads((out / "curve.json").read_text())["points"]
    resumed = train(tiny("maskable_ppo"), out=out, resume=out / "model.zip")
    points = json.loads((out / "curve.json").read_text())["points"]
    assert points[:len(before)] == before
    assert {p["timesteps"] for p in points[len(before):]} == {summary["steps"]}  # the resumed start
    assert [(s["steps_from"], s["steps_to"]) for s in resumed["segments"]] == [
        (0, summary["steps"]), (summary["steps"], resumed["steps"])]


def test_the_long_run_from_the_shipped_network_goes_on_from_it_on_two_processes(tmp_path):
    """``nine_ball_lookahead_long.yaml``, as its description says to run it: twenty times the
    recipe's budget, from the shipped network, its tables in two processes."""
    from sb3_contrib import MaskablePPO

    from poolgym.agents.training.canonical_policy import CanonicalPolicy

    cfg = load_config(recipe("lookahead_long"))
    assert cfg.total_steps == 20 * load_config(recipe("maskable_ppo")).total_steps
    assert cfg.vec_env == "batched_split" and cfg.opponent == "legal-random"
    data = tiny("lookahead_long")
    data.update(n_envs=4)
    data["hyperparameters"].update(n_steps=STEPS // 4)
    shipped = ROOT / "agents" / "pretrained" / "nine_ball" / "model.zip"
    summary = train(data, out=tmp_path, resume=shipped)
    assert summary["steps"] == MaskablePPO.load(shipped).num_timesteps + STEPS
    model = MaskablePPO.load(tmp_path / "model.zip")
    assert model.learning_rate == 0.00003 and isinstance(model.policy, CanonicalPolicy)
