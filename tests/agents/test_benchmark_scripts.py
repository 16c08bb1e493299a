"""The diagnostic scripts under benchmarks/ and benchmarks/archive/: their counts add up on real racks."""

import hashlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str):
    """The script ``benchmarks/<name>.py``, or ``benchmarks/archive/<name>.py`` for a finished
    investigation's."""
    path = ROOT / "benchmarks" / f"{name}.py"
    if not path.exists():
        path = ROOT / "benchmarks" / "archive" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rack_losses():
    return _script("rack_losses")


def test_rack_losses_account_for_every_lost_rack(rack_losses):
    result = rack_losses.rack_losses("legal-random", "fixed", racks=6, seed=2)
    assert result["wins"] + result["lost"] == 6 and result["lost"] > 0
    assert sum(result["ended_by"].values()) == result["lost"]
    assert set(result["ended_by"]) <= {"2.5", "6.14"}
    assert sum(result["agent_shot_before"].values()) == result["lost"]
    assert sum(result["balls_left_at_opponents_nine"].values()) <= result["ended_by"].get("2.5", 0)
    assert 0 <= result["lone_nine"]["made"] <= result["lone_nine"]["shots"]
    row = rack_losses.markdown([result]).splitlines()[-1]
    assert row.startswith("| legal-random | as chosen |") and row.count("|") == 9


def test_rack_losses_speed_cap_clips_the_strokes_after_the_break(rack_losses):
    free = rack_losses.rack_losses("legal-random", "legal-random", racks=4, seed=1)
    capped = rack_losses.rack_losses("legal-random", "legal-random", racks=4, seed=1, max_speed=2.0)
    assert free["fastest_stroke"] > 2.0
    assert 0 < capped["fastest_stroke"] <= 2.0


def test_rack_losses_reads_the_section_an_end_reason_cites(rack_losses):
    assert rack_losses._section("the 9-ball was pocketed on a legal shot (WPA 2.5)") == "2.5"
    assert rack_losses._section("player 0 lost the rack: third consecutive foul (WPA 6.14)") == "6.14"
    assert rack_losses._section("stalemate") == "stalemate"


def test_stroke_fouls_counts_each_shot_in_one_speed_band():
    stroke_fouls = _script("stroke_fouls")
    result = stroke_fouls.stroke_fouls("legal-random", "fixed", racks=3, seed=0)
    bands = result["bands"].values()
    assert sum(b["shots"] for b in bands) > 0
    assert all(b["6.1"] <= b["shots"] and b["6.2"] <= b["shots"] for b in bands)
    assert "| legal-random |" in stroke_fouls.markdown([result])


def test_break_open_screen_counts_add_up_and_names_the_break_the_rung_plays():
    screen = _script("break_open_screen")
    from poolgym.agents.bot.breaks import best_break, load_break_table
    from poolgym.physics import Simulator
    from poolgym.rules import get_ruleset

    rules = get_ruleset("nine_ball")
    simulator = Simulator(rules.table, noise="tournament")
    shipped = screen.shipped_stroke()
    move = best_break(load_break_table(), rules, rules.new_game(rng=0), screen.MAX_SPEED)
    assert move.placement == shipped[:2] and move.shot.speed == shipped[3] <= screen.MAX_SPEED
    row = screen.measure(rules, simulator, shipped, racks=12, seed=3, stage=1, sigma=0.5)
    assert 0 <= row["won"] <= row["made_and_open"] <= row["made"] <= row["racks"] == 12
    assert row["made"] > 0  # a dozen breaks of the rung's own stroke make a ball
    low, high = row["made_ci95"]
    assert low <= row["made"] / 12 <= high
    # The same racks and noise for every stroke of a stage: the same figures again.
    assert screen.measure(rules, simulator, shipped, racks=12, seed=3, stage=1, sigma=0.5) == row


def test_inning_ends_replays_measure_the_pots_without_changing_the_innings(tmp_path):
    import json

    ends = _script("bot_pro_inning_ends")
    plain, measured = tmp_path / "plain.json", tmp_path / "measured.json"
    assert ends.main(["--racks", "4", "--seed", "6", "--json", str(plain)]) == 0
    assert ends.main(["--racks", "4", "--seed", "6", "--replays", "5", "--json", str(measured)]) == 0
    a, b = json.loads(plain.read_text()), json.loads(measured.read_text())
    strip = [[{k: v for k, v in s.items() if k not in ("own_chance", "make_rate")} for s in i["shots"]]
             for i in b["innings"]]
    assert strip == [i["shots"] for i in a["innings"]]  # the replays draw no noise of the innings
    pots = [s for i in b["innings"] for s in i["shots"] if "own_chance" in s]
    assert pots and all(0.0 <= s["own_chance"] <= 1.0 and s["make_rate"] * 5 == round(s["make_rate"] * 5)
                        for s in pots)
    bands = b["summary"]["pots_by_own_chance"]
    assert sum(band["pots"] for band in bands) == len(pots)
    with pytest.raises(SystemExit):
        ends.main(["--racks", "1", "--replays", "-1"])


def test_agent_cpu_per_move_times_each_of_the_agents_own_moves_after_the_break():
    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol

    script = _script("agent_cpu_per_move")
    row = script.measure("lookahead-greedy", "legal-random", 2, 3)
    p = protocol("poolgym/NineBall-v1")
    agents = [make_agent(spec, p.rules, seed=3 + i, noise=p.noise, max_speed=p.max_speed)
              for i, spec in enumerate(("lookahead-greedy", "legal-random"))]
    match = run_match(p.rules, agents, ("a", "b"), 2, seed=3, noise=p.noise)
    own = sum(1 for r in match.racks for m in r.moves if m.player == 0 and not m.state.awaiting_break)
    assert row["moves"] == own > 0 and row["cpu_s_per_move"] > 0


def test_lookahead_cpu_per_position_reports_the_features_of_seeded_play(capsys, monkeypatch):
    from poolgym.envs.lookahead import lookahead_features

    script = _script("lookahead_cpu_per_position")
    monkeypatch.setattr("sys.argv", ["lookahead_cpu_per_position.py", "2", "6", "4"])
    script.main()
    row = json.loads(capsys.readouterr().out)
    assert row["plays"] == 2 and row["positions"] == 6 and row["cpu_ms_per_position"] > 0
    states = script.positions(6, 4)
    assert len(states) == 6 and states == script.positions(6, 4)
    u = gym.make("poolgym/NineBall-v1", action_mode="choice_canonical", lookahead=True, lookahead_samples=2).unwrapped
    digest = hashlib.sha256(np.concatenate([lookahead_features(s, u.rules, u.simulator, u.mapper, 2) for s in states])
                            .tobytes()).hexdigest()[:16]
    assert row["digest"] == digest


def test_lookahead_variants_play_their_plays_and_strokes(monkeypatch):
    from poolgym.envs import lookahead

    variants = _script("lookahead_variants")
    assert variants.clone_2.lookahead_samples == 2 and variants.greedy_16.samples == 16
    shown = lookahead.STROKES
    seen = []
    monkeypatch.setattr(variants.greedy_30_strokes.agent, "_chosen",
                        lambda state: seen.append(len(lookahead.STROKES)))
    state = variants._P.rules.new_game(rng=1)
    variants.greedy_30_strokes.choose(state)
    assert seen == [30] and lookahead.STROKES == shown


def test_lookahead_variants_two_shots_and_throw_correction_on_played_positions():
    """The two-shot greedy plays one of the greedy's three best strokes; the corrected
    aim pots, without noise, at least every pot the plain aim does on played positions."""
    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.envs import lookahead as la
    from poolgym.envs.lookahead_agent import stroke_value
    from poolgym.physics import Simulator

    variants = _script("lookahead_variants")
    p = variants._P
    agents = [variants._greedy(8), variants._greedy(8)]
    states = [m.state for r in run_match(p.rules, agents, ("a", "b"), 2, seed=9, noise=p.noise).racks
              for m in r.moves if not m.state.awaiting_break and m.state.pending is None][:8]
    two, plain = variants.greedy_two_shots, variants._greedy(8)
    corrected = variants.greedy_throw_corrected.mapper
    simulator = Simulator(p.rules.table)
    pots = {"plain": 0, "corrected": 0}
    for state in states:
        slots = plain.mapper.slots(state, p.rules)
        shown = [i for i, s in enumerate(slots[:la.LOOKAHEAD_SLOTS]) if s is not None and s.kind == "pot"]
        if not shown:
            continue
        values = stroke_value(la.lookahead_features(state, p.rules, plain.simulator, plain.mapper, 8).reshape(
            la.LOOKAHEAD_SLOTS, len(la.STROKES), la.N_FEATURES))
        top = sorted(((values[i, j], i, j) for i in shown for j in range(len(la.STROKES))), reverse=True)[:3]
        assert two.choose(state) in [plain.mapper.play(slots[i], la.stroke_parameters(plain.mapper, la.STROKES[j]),
                                                       state) for _, i, j in top]
        for name, mapper in (("plain", plain.mapper), ("corrected", corrected)):
            move = mapper.play(slots[shown[0]], la.stroke_parameters(mapper, (2, 2)), state)
            layout = state.positions if move.placement is None else {**state.positions, 0: move.placement}
            pots[name] += slots[shown[0]].ball in simulator.simulate(layout, move.shot).pocketed
    assert pots["corrected"] >= pots["plain"] and pots["plain"] > 0


def test_rollout_values_play_the_inning_on_and_the_innings_count_up(tmp_path):
    """``bot_pro_rollouts``: a rollout from a finished rack is its result, from a position
    where the opponent is at the table the position's value for the shooter, and one that
    plays on ends in one of those or at its depth; the innings script's counts with it."""
    from poolgym.agents.bot.position import WIN, state_value
    from poolgym.rules import get_ruleset

    rollouts = _script("bot_pro_rollouts")
    rules = get_ruleset("nine_ball")
    bot = rollouts.RolloutProBot(rules, noise="tournament", seed=3, rollouts=2, depth=3)
    state = rules.new_game(rng=np.random.default_rng(3), breaker=0)
    passed = state.evolve(shooter=1, awaiting_break=False)
    assert bot.rollout(passed, 0) == pytest.approx(state_value(passed, rules, 0, bot.search.sigma_deg))
    won = passed.evolve(winner=0)
    assert bot.rollout(won, 0) == WIN and bot.rollout(won, 1) == -WIN
    out = tmp_path / "rollouts.json"
    assert rollouts.main(["--rows", "[[0.5493, 0.8775, 0.0, 8.0, 0.0]]", "--racks", "3", "--seed", "6",
                          "--bot", '{"rollouts": 2, "depth": 3}', "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["results"]
    assert row["bot"] == {"rollouts": 2, "depth": 3} and 0 <= row["break_and_runs"] <= row["made"] <= 3


def test_self_play_on_the_protocols_racks_matches_bench_bot(tmp_path):
    """The script that measures an older commit on the benchmark racks gives this tree's
    ``bench-bot --rack-model benchmark --max-speed 12`` figures on the same racks."""
    from poolgym.agents.tools import bench_bot

    out = tmp_path / "weak.json"
    assert _script("bot_self_play_protocol_racks").main(["weak", "3", "11", str(out)]) == 0
    ours = json.loads(out.read_text())["tournament"]
    bench = bench_bot.run(racks=3, budget="weak", seed=11, noises=("tournament",), rack_model="benchmark",
                          max_speed=12.0)["settings"]["tournament"]
    keys = ("pot_attempts", "pots_made", "break_and_runs", "breaker_wins", "fouls_per_rack", "shots_per_rack")
    assert {k: ours[k] for k in keys} == {k: bench[k] for k in keys}


def test_protocol_racks_script_plays_the_top_rung_with_given_arguments(tmp_path):
    """``bot_self_play_protocol_racks.py pro``: without arguments it plays bench-bot's bot:pro
    (the same racks, the same figures); with a JSON of ``ProBot`` arguments it plays that
    search and names it in the report."""
    from poolgym.agents.tools import bench_bot

    default = tmp_path / "pro.json"
    assert _script("bot_self_play_protocol_racks").main(["pro", "1", "11", str(default)]) == 0
    ours = json.loads(default.read_text())
    bench = bench_bot.run(racks=1, budget="pro", seed=11, noises=("tournament",), rack_model="benchmark",
                          max_speed=12.0)["settings"]["tournament"]
    keys = ("pot_attempts", "pots_made", "break_and_runs", "breaker_wins", "fouls_per_rack", "shots_per_rack")
    assert {k: ours["tournament"][k] for k in keys} == {k: bench[k] for k in keys}
    assert ours["pro_kwargs"] == {}
    small = tmp_path / "small.json"
    kwargs = {"top_k": 2, "noise_samples": 3, "lookahead": 1, "clusters": 2}
    assert _script("bot_self_play_protocol_racks").main(["pro", "1", "11", str(small), json.dumps(kwargs)]) == 0
    report = json.loads(small.read_text())
    assert report["pro_kwargs"] == kwargs and report["tournament"]["shots_per_rack"] > 0


def test_break_anatomy_splits_bench_bots_break_and_runs(tmp_path):
    """``bot_break_anatomy.py`` plays bench-bot's racks: its break-and-runs are bench-bot's on
    the same racks, and every rack's break is counted once."""
    from poolgym.agents.tools import bench_bot

    out = tmp_path / "anatomy.json"
    assert _script("bot_break_anatomy").main(["--budgets", "fast", "--racks", "6", "--seeds", "13",
                                              "--json", str(out)]) == 0
    pooled = json.loads(out.read_text())["rungs"]["fast"]["pooled"]
    bench = bench_bot.run(racks=6, budget="fast", seed=13, noises=("tournament",), rack_model="benchmark",
                          max_speed=12.0)["settings"]["tournament"]
    assert pooled["break_and_runs"]["count"] == bench["break_and_runs"]
    assert sum(b["count"] for b in pooled["breaks"].values()) == 6
    assert sum(pooled["break_and_runs_by_break"].values()) == bench["break_and_runs"]


def test_afterstate_value_probe_keeps_each_racks_positions_together_and_scores_four_fits(tmp_path):
    """``afterstate_value_probe.py``: its positions' features read the layout and the
    closed-form chance of the state they come from; the racks are split whole, and each of
    the four predictors is scored on the test racks."""
    probe = _script("afterstate_value_probe")
    from poolgym.agents.bot.position import shot_quality
    from poolgym.agents.evaluation.protocol import protocol

    p = protocol("poolgym/NineBall-v1")
    state = p.rules.new_game(rng=np.random.default_rng(3)).evolve(awaiting_break=False, cue_ball_in_hand="none")
    f = probe.features(state, p.rules, 0.2)
    assert f[3 * 9] == 1.0 and f[3 * 9 + 1] == state.position(9)[0] / p.rules.table.length
    assert f[42] == shot_quality(state, p.rules, 0.2) and f[33] == 1.0 and f[43] == 1.0
    out = tmp_path / "probe.json"
    assert probe.main(["--racks", "20", "--seed", "5", "--epochs", "2", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert sum(report["positions"].values()) > 20 and min(report["positions"].values()) > 0
    assert len(report["fits"]) == 4
    for fit in report["fits"].values():
        assert 0.0 < fit["test_log_loss"] < 2.0 and 0.0 <= fit["test_auc"] <= 1.0


def test_budget_parts_put_one_group_of_the_strong_fields_into_the_normal_budget(tmp_path):
    """``bot_budget_parts.py``: each part is bot:normal's budget with that group of
    bot:strong's fields and no other; the parts cover every field in which the two differ;
    a part plays a rack against bot:normal and reports both sides' time."""
    from dataclasses import fields

    from poolgym.agents.bot.shot_search import SearchBudget

    parts = _script("bot_budget_parts")
    normal, strong = SearchBudget.preset("normal"), SearchBudget.preset("strong")
    differ = {f.name for f in fields(SearchBudget) if getattr(normal, f.name) != getattr(strong, f.name)}
    assert differ == {name for group in parts.PARTS.values() for name in group}
    for part, group in parts.PARTS.items():
        budget = parts.budget(part)
        for f in fields(SearchBudget):
            want = strong if f.name in group else normal
            assert getattr(budget, f.name) == getattr(want, f.name), (part, f.name)
    assert parts.budget("strong") == strong and parts.budget("normal") == normal
    with pytest.raises(ValueError, match="unknown part 'huge'"):
        parts.budget("huge")
    out = tmp_path / "parts.json"
    assert parts.main(["--parts", "breaks", "--racks", "1", "--seed", "3", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert row["part"] == "breaks" and row["racks"] == 1 and row["cpu_s_per_move"] > 0 < row["normal_cpu_s_per_move"]


def test_break_rechecks_replay_each_sizes_chosen_break(tmp_path):
    """``bot_break_rechecks.py``: every re-check size chooses a break on the same racks, each
    replayed the same number of times; the shares are shares of those plays."""
    out = tmp_path / "breaks.json"
    assert _script("bot_break_rechecks").main(["--sizes", "10x16,3x2", "--racks", "2", "--seed", "3",
                                                "--replays", "3", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["break_top_k"], r["break_noise_samples"]) for r in rows] == [(10, 16), (3, 2)]
    for r in rows:
        assert r["plays"] == 6 and 0.0 <= r["made"] + r["fouled"] <= 1.0 and r["cpu_s_per_break"] > 0.0
        assert r["made_ci95"][0] <= r["made"] <= r["made_ci95"][1]


def test_pro_search_sizes_search_bot_normal_strokes_with_their_sizes():
    """The variants are bot:pro's search with bot:normal's strokes and break re-check: their
    pots from a played position are bot:normal's speeds and tips, and they play it."""
    from poolgym.agents.bot.shot_search import SearchBudget
    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.envs.actions import ShotMove

    sizes = _script("pro_search_sizes")
    normal = SearchBudget.preset("normal")
    bot = sizes.normal_strokes_4_12
    assert (bot.top_k, bot.noise_samples, bot.lookahead, bot.clusters) == (4, 12, 2, 2)
    assert (bot.break_top_k, bot.break_noise_samples) == (normal.top_k, normal.noise_samples)
    p = sizes._P
    states = [m.state for r in run_match(p.rules, [bot, sizes.normal_strokes_6_8], ("a", "b"), 1, seed=3,
                                         noise=p.noise).racks
              for m in r.moves if not m.state.awaiting_break and m.state.pending is None
              and m.state.cue_ball_in_hand.name == "NONE"]
    assert states
    state = states[0]
    pots = bot.search.pot_candidates(state, state.positions[0], None)
    assert pots and {c.move.shot.speed for c in pots} <= set(normal.speeds)
    assert {(c.move.shot.side, c.move.shot.vertical) for c in pots} <= set(normal.spins)
    assert isinstance(bot.choose(state), ShotMove)


def test_learned_search_plays_one_of_the_networks_likeliest_shots():
    """The network's K likeliest shots (its distribution within the masks, the first of them
    its own deterministic choice) are what the variant re-plays and chooses among."""
    from poolgym.agents.evaluation.evaluate import run_match
    from poolgym.envs.actions import ShotMove

    variants = _script("learned_search")
    agent = variants.top_4x8
    p = variants._P
    states = [m.state for r in run_match(p.rules, [agent, variants.top_8x8], ("a", "b"), 1, seed=5,
                                         noise=p.noise).racks
              for m in r.moves if not m.state.awaiting_break and m.state.pending is None]
    assert states
    for state in states[:3]:
        shots = agent.shots(state)
        assert 1 <= len(shots) <= 4 and all(isinstance(m, ShotMove) for m in shots)
        own = agent.network.choose(state)
        if isinstance(own, ShotMove):
            assert shots[0] == own
        agent.reseed(1)
        assert agent.choose(state) in shots


def _run_script(path: Path, *args: str) -> str:
    """The standard output of the script ``path`` run with ``args`` in a fresh process, which
    must succeed."""
    run = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def test_stacking_ab_steps_both_stackings_and_finds_their_outputs_equal():
    out = _run_script(ROOT / "benchmarks" / "archive" / "batched_stacking_ab.py", "2", "5", "1")
    assert "N=2: 4 batched steps (8 table steps) per env, outputs equal at every step" in out
    assert "poolgym / generic:" in out


def test_rules_judging_times_the_moves_a_batched_env_judged():
    line = _run_script(ROOT / "benchmarks" / "rules_judging.py", "2", "3", "1").strip().splitlines()[-1]
    assert line.startswith(f"{ROOT}: apply_shot ") and "us CPU per move (best of 1 rounds over" in line
    assert int(line.rsplit("over ", 1)[1].split()[0]) >= 6  # two tables, three steps: a move each at least


def test_event_loop_shots_replays_the_shots_a_batched_env_played_to_the_same_digest():
    first, second = (_run_script(ROOT / "benchmarks" / "event_loop_shots.py", "2", "3", "2").strip().splitlines()[-1]
                     for _ in range(2))
    assert first.startswith(f"{ROOT}: ") and "us CPU per shot (best of 2 rounds over" in first
    assert int(first.split("over ", 1)[1].split()[0]) >= 6  # two tables, three steps: a shot each at least
    assert first.rsplit("digest ", 1)[1] == second.rsplit("digest ", 1)[1]  # the same shots, the same bits


def test_event_loop_shots_times_the_lookahead_env_to_the_same_digest():
    first, second = (_run_script(ROOT / "benchmarks" / "event_loop_shots.py", "2", "2", "1",
                                 "--lookahead").strip().splitlines()[-1] for _ in range(2))
    assert first.startswith(f"{ROOT}: lookahead env ") and "table steps per CPU second (2 tables, 2 steps)" in first
    assert first.rsplit("digest ", 1)[1] == second.rsplit("digest ", 1)[1]


def test_recipe_training_split_times_the_rollouts_and_the_updates():
    # One rollout of the recipe's 32 tables x 64 steps, then its update.
    out = _run_script(ROOT / "benchmarks" / "recipe_training_split.py", "2048")
    rows = {line.split(" | ")[0].strip("| "): float(line.split(" | ")[1]) for line in out.splitlines()
            if line.startswith("| ") and "seconds" not in line}
    assert set(rows) == {"rollouts (collect_rollouts)", "of which the envs' steps (BatchedSB3VecEnv.step_wait)",
                         "of which the policy's calls (forward)", "gradient updates (MaskablePPO.train)"}
    assert 0 < rows["of which the envs' steps (BatchedSB3VecEnv.step_wait)"] < rows["rollouts (collect_rollouts)"]
    assert rows["gradient updates (MaskablePPO.train)"] > 0
    assert "2048 steps" in out and "update threads [" in out


def test_sharded_env_trace_follows_both_processes_through_each_shown_step():
    out = _run_script(ROOT / "benchmarks" / "sharded_env_trace.py", "4", "12", "2")
    assert out.startswith("N=4: mean step ") and "over 2 steps" in out.splitlines()[0]
    phases = dict(part.rsplit(" ", 1) for part in out.splitlines()[1].removeprefix("mean ms: ").split(", "))
    assert set(phases) == {"this play", "this end", "worker play", "worker end", "between steps"}
    assert all(float(ms) > 0 for ms in phases.values())
    free = dict(part.rsplit(" ", 1) for part in out.splitlines()[2].split("mean ms: ")[1].split(", "))
    assert float(free["two waits"]) >= float(free["one wait"]) >= float(free["even"]) > 0
    steps = out.split("----\n")[1:]
    assert len(steps) == 2
    for step in steps:
        events = [line.split()[:2] for line in step.strip().splitlines()]
        assert events[0] == ["this", "step"] and events[-1] == ["this", "step"]  # "step", "step done"
        for side in ("this", "worker"):  # each process played and ended its tables
            assert [side, "play"] in events and [side, "end"] in events


def test_lookahead_env_workers_times_one_and_two_processes_and_two_threads(tmp_path):
    out = _run_script(ROOT / "benchmarks" / "lookahead_env_workers.py", "2", "2", "2", "--threads",
                      "--json", str(tmp_path / "f.json"))
    assert out.count("num_workers=1:") == 2 and out.count("num_workers=2:") == 2 and "ratio" in out
    assert out.count("num_threads=2:") == 2
    data = json.loads((tmp_path / "f.json").read_text())
    assert len(data["table_steps_per_s"]["1"]) == 2 and len(data["table_steps_per_s"]["threads2"]) == 2
    assert data["ratio_best"] > 0 and data["threads_ratio_best"] > 0 and data["command"].endswith("--threads")


def test_batched_equality_checks_the_same_step_autoreset(tmp_path):
    out = _run_script(ROOT / "benchmarks" / "batched_equality.py", "--seed", "950000", "--table-steps", "10",
                      "--same-step", "--json", str(tmp_path / "eq.json"))
    cases = json.loads((tmp_path / "eq.json").read_text())["cases"]
    assert len(cases) == 4 and all(c["same_step"] and c["equal"] and c["table_steps"] >= 10 for c in cases)
    assert "--same-step" in json.loads((tmp_path / "eq.json").read_text())["command"] and "'same_step': True" in out


def test_compiled_share_times_the_compiled_call_inside_the_batched_step(tmp_path):
    _run_script(ROOT / "benchmarks" / "compiled_share.py", "2", "8", "2", "--json", str(tmp_path / "c.json"))
    data = json.loads((tmp_path / "c.json").read_text())
    assert sorted(data["modes"]) == ["aim", "choice_discrete"]
    for mode in data["modes"].values():
        assert len(mode["rounds"]) == 2
        for r in mode["rounds"]:  # the call was timed, and is a part of the step it was timed in
            assert 0 < r["compiled_us_per_table_step"] < r["batched_us_per_table_step"]
        med = mode["medians"]
        assert med["ceiling"] == round(med["single_us_per_step"] / med["compiled_us_per_table_step"], 2)


def test_generator_draws_match_numpy_from_every_tables_generator(tmp_path):
    _run_script(ROOT / "benchmarks" / "generator_draws.py", "8", "300", "--json", str(tmp_path / "g.json"))
    figures = json.loads((tmp_path / "g.json").read_text())
    assert figures["draws_equal"] and figures["states_equal"] and figures["tables"] == 8
    assert figures["us_a_table_in_one_call"] > 0


def test_compiled_exactness_finds_the_hypot_port_and_the_other_functions_equal_to_cpython(tmp_path):
    _run_script(ROOT / "benchmarks" / "compiled_exactness.py", "20000", "--json", str(tmp_path / "e.json"))
    data = json.loads((tmp_path / "e.json").read_text())
    assert data["inputs"] == 20000 and data["draws_equal"] and data["states_equal"]
    # What a compiled step relies on: every function but numba's own hypot gives CPython's values.
    assert {name: count for name, count in data["differ"].items() if name != "hypot"} == dict.fromkeys(
        ["cpython_hypot", "atan2", "asin", "degrees", "radians", "cos", "sin", "sqrt"], 0)


def test_collect_tables_times_one_env_and_the_tables_alternating(tmp_path):
    out = _run_script(ROOT / "benchmarks" / "collect_tables.py", "fixed", "3", "2", "2", "--json",
                      str(tmp_path / "c.json"))
    data = json.loads((tmp_path / "c.json").read_text())
    assert len(data["steps_per_s"]["1"]) == len(data["steps_per_s"]["2"]) == len(data["ratios"]) == 2
    assert all(r > 0 for r in data["ratios"]) and "num_envs=2 over 1: median" in out


@pytest.mark.parametrize("racks", [False, True])
def test_evaluate_tables_times_one_at_a_time_and_side_by_side_and_checks_the_results(tmp_path, racks):
    out = _run_script(ROOT / "benchmarks" / "evaluate_tables.py", "long", "4", "3", "2", "--json",
                      str(tmp_path / "e.json"), *(["--racks"] if racks else []))
    data = json.loads((tmp_path / "e.json").read_text())
    what = "racks" if racks else "episodes"
    assert len(data[f"{what}_per_s"]["1"]) == len(data[f"{what}_per_s"]["3"]) == len(data["ratios"]) == 2
    assert data["equal"] and all(0 <= w <= 1 for w in data["win_rates"])
    assert f"3 at once over 1: median" in out and f"the {what} equal in every round" in out


def test_step_kinds_counts_every_table_step_and_every_move(tmp_path):
    _run_script(ROOT / "benchmarks" / "step_kinds.py", "4", "30", "--seed", "5", "--json", str(tmp_path / "k.json"))
    data = json.loads((tmp_path / "k.json").read_text())
    assert data["table_steps"] == 120 == sum(data["moves_per_step"].values())
    assert data["moves"] == sum(int(n) * c for n, c in data["moves_per_step"].items())
    shares = list(data["covered"].values())
    assert shares == sorted(shares) and shares[-1] == 1.0 and shares[0] > 0  # every kind is in the last set
    assert data["steps_with_kind"]["ball in hand"] > 0 and data["fouls_by_section"]


def test_batched_equality_checks_the_lookahead_env_on_threads(tmp_path):
    _run_script(ROOT / "benchmarks" / "batched_equality.py", "--seed", "970000", "--table-steps", "10",
                "--threads", "2", "--lookahead", "--json", str(tmp_path / "eq.json"))
    data = json.loads((tmp_path / "eq.json").read_text())
    (case,) = data["cases"]
    assert case["lookahead"] and case["num_threads"] == 2 and case["equal"] and case["table_steps"] >= 10
    assert data["command"].endswith("--threads 2 --lookahead")
