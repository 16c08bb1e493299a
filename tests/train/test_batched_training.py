"""``vec_env: batched`` (and ``batched_split``, its tables in two processes) trains
on ``gym.make_vec``'s batched env: the same model, to the last bit, and the same monitor
files as ``vec_env: dummy`` from the same config (the tables give what the single envs give,
seeded alike), and it refuses what it cannot batch."""

from pathlib import Path

import pytest
import torch
import yaml

from poolgym.agents.training.train import load_model, train

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "configs" / "train" / "nine_ball_maskable_ppo.yaml"


def _recipe(vec_env: str, **changes) -> dict:
    """The shipped MaskablePPO recipe at a test's budget: 4 tables, two rollouts of 32 steps."""
    data = yaml.safe_load(RECIPE.read_text())
    data["hyperparameters"].update(n_steps=32, batch_size=64, n_epochs=2)
    data.pop("curve")
    data.update(total_steps=256, n_envs=4, vec_env=vec_env, checkpoint_every=0)
    data.update(changes)
    return data


def _rows(monitor: Path) -> dict[str, list[tuple[str, str]]]:
    """Each monitor file's episodes (return, length), its header and times left out."""
    return {f.name: [tuple(line.split(",")[:2]) for line in f.read_text().splitlines()[2:]]
            for f in sorted(monitor.glob("*.monitor.csv"))}


def test_batched_training_is_dummy_training_to_the_last_bit(tmp_path):
    runs = {kind: tmp_path / kind for kind in ("dummy", "batched", "batched_split")}
    for kind, out in runs.items():
        train(_recipe(kind), out=out, evaluate=False)
    dummy, *batched = (load_model(str(out / "model.zip"), "MaskablePPO") for out in runs.values())
    want = dummy.policy.state_dict()
    for model in batched:
        got = model.policy.state_dict()
        assert want.keys() == got.keys() and all(torch.equal(want[k], got[k]) for k in want)
    rows = _rows(runs["dummy"] / "monitor")
    assert len(rows) == 4 and sum(len(r) for r in rows.values()) > 0
    assert _rows(runs["batched"] / "monitor") == rows and _rows(runs["batched_split"] / "monitor") == rows


def test_batched_refuses_a_league_or_a_curriculum_in_one_line_before_a_folder_is_made(tmp_path):
    league = {"snapshot_every": 64, "league_size": 2, "ladder": ["legal-random"], "ladder_share": 0.5}
    for changes in ({"self_play": league}, {"stages": [{**_recipe("dummy")["env"], "steps": 256}]}):
        for kind in ("batched", "batched_split"):
            with pytest.raises(ValueError, match=f"vec_env '{kind}' steps the env of key 'env' alone"):
                train(_recipe(kind, **changes), out=tmp_path / "run", evaluate=False)
        assert not (tmp_path / "run").exists()


def test_split_halves_play_on_one_thread_each_and_one_batched_env_on_the_cores(tmp_path):
    """Both kinds play their calls on the env's default of one thread: ``batched_split``'s
    two processes keep the cores busy, and a second thread gains little on idle ones."""
    from poolgym.agents.training.train import _batched_vec_env, _worker_pids
    from poolgym.agents.training.train_config import parse_config
    from poolgym.envs.sharded import ShardedTables
    for kind in ("batched", "batched_split"):
        cfg = parse_config(_recipe(kind))
        venv = _batched_vec_env(cfg, cfg.stage_list()[0], 0, tmp_path / kind, False)
        try:
            assert venv.batched.num_threads == 1
            if kind == "batched":
                assert _worker_pids(venv) == []
            else:
                # The worker's shard is made by the same function, with the same arguments.
                assert isinstance(venv.batched, ShardedTables) and venv.batched.num_workers == 2
                assert _worker_pids(venv) == [p.pid for p in venv.batched.processes] != []
        finally:
            venv.close()
