"""Fresh hostile-input probes (files from elsewhere, interrupts, bad env arguments, non-finite
numbers, masks). Each probe prints one row: id | kind | input | result | verdict.

Run from the repository root:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/results/reliability/fresh_probes.py [ID ...]
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

import numpy as np

import poolgym  # noqa: F401 (registers the ids)

ROOT = Path(__file__).resolve().parents[3]
PY = str(ROOT / ".venv" / "bin" / "python")
POOLGYM = str(ROOT / ".venv" / "bin" / "poolgym")
TMP = Path(tempfile.mkdtemp(prefix="fresh_probes_"))
MODEL = ROOT / "agents" / "pretrained" / "nine_ball" / "model.zip"
PROBES = {}


def probe(pid, kind, what):
    def deco(fn):
        PROBES[pid] = (kind, what, fn)
        return fn
    return deco


def one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())[:300]


def expect_refusal(fn, must_name=None):
    """'held' when fn raises a ValueError (or subclass) whose message is one line naming
    ``must_name``; otherwise 'BROKE'."""
    try:
        out = fn()
    except ValueError as exc:
        msg = one_line(exc)
        ok = "\n" not in str(exc) and (must_name is None or must_name in str(exc))
        return msg, "held" if ok else "BROKE"
    except Exception as exc:  # noqa: BLE001
        return one_line(exc), "BROKE"
    return f"accepted: {str(out)[:200]}", "BROKE"


def cli(args, env=None, timeout=300):
    e = dict(os.environ, OMP_NUM_THREADS="1", **(env or {}))
    p = subprocess.run([POOLGYM, *args], capture_output=True, text=True, timeout=timeout, env=e, cwd=TMP)
    return p.returncode, p.stderr.strip(), p.stdout.strip()


def cli_verdict(rc, err, want_rc=2, must_name=None):
    """'held' when the exit status is ``want_rc`` and stderr holds one line besides progress
    displays and Python's warnings (and names ``must_name``)."""
    lines = [l.rsplit("\r", 1)[-1] for l in err.splitlines()]
    lines = [l for l in lines if l.strip() and "%|" not in l and "warning" not in l.lower()
             and not l.startswith("  ") and "it/s]" not in l]
    ok = rc == want_rc and len(lines) == 1 and "Traceback" not in err and (must_name is None or must_name in err)
    return f"exit {rc}: {' | '.join(lines)[:300]}", "held" if ok else "BROKE"


def yaml_file(name, text):
    p = TMP / name
    p.write_text(text)
    return p


# ----------------------------------------------------------------------------- YAML
VARIANT = "id: probe/V{n}-v0\ngame: nine_ball\n"


@probe("Y1", "yaml", "variant `race_to: .nan` (YAML NaN where an int goes)")
def _():
    from poolgym.registration import register_from_yaml
    return expect_refusal(lambda: register_from_yaml(yaml_file("y1.yaml", VARIANT.format(n=1) + "race_to: .nan\n")), "race_to")


@probe("Y2", "yaml", "variant `max_speed: .inf`")
def _():
    from poolgym.registration import register_from_yaml
    return expect_refusal(lambda: register_from_yaml(yaml_file("y2.yaml", VARIANT.format(n=2) + "max_speed: .inf\n")), "y2.yaml")


@probe("Y3", "yaml", "variant `reward: {legal_pot: -.inf}`")
def _():
    from poolgym.registration import register_from_yaml
    return expect_refusal(lambda: register_from_yaml(yaml_file("y3.yaml", VARIANT.format(n=3) + "reward: {legal_pot: -.inf}\n")), "legal_pot")


@probe("Y4", "yaml", "variant `table: {length: 1.0e+400}` (YAML float overflowing to inf)")
def _():
    from poolgym.registration import register_from_yaml
    return expect_refusal(lambda: register_from_yaml(yaml_file("y4.yaml", VARIANT.format(n=4) + "table: {length: 1.0e+400}\n")), "length")


@probe("Y5", "yaml", "variant with two YAML documents (`---` twice)")
def _():
    from poolgym.registration import register_from_yaml
    return expect_refusal(lambda: register_from_yaml(yaml_file("y5.yaml", "---\n" + VARIANT.format(n=5) + "---\nid: probe/Other-v0\n")), "y5.yaml")


@probe("Y6", "yaml", "variant whose key is not a string (`1: 2`, `null: x`)")
def _():
    from poolgym.registration import register_from_yaml
    return expect_refusal(lambda: register_from_yaml(yaml_file("y6.yaml", VARIANT.format(n=6) + "1: 2\nnull: x\n")), "y6.yaml")


@probe("Y7", "yaml", "variant id with a trailing space `'poolgym/NineBall-v1 '` (another spelling of a built-in)")
def _():
    import gymnasium as gym
    from poolgym.registration import register_from_yaml
    msg, verdict = expect_refusal(lambda: register_from_yaml(yaml_file("y7.yaml", "id: 'poolgym/NineBall-v1 '\ngame: ten_ball\n")), "y7.yaml")
    game = gym.spec("poolgym/NineBall-v1").kwargs.get("game", "nine_ball")
    return msg + f"; NineBall-v1 game afterwards: {game}", verdict if game == "nine_ball" else "BROKE"


@probe("Y8", "yaml", "training config `learning_rate: .inf`, `total_steps: 1.0e+400`, `seed: .nan`")
def _():
    from poolgym.agents.training.train_config import load_config
    out = []
    verdict = "held"
    for i, line in enumerate(["learning_rate: .inf", "total_steps: 1.0e+400", "seed: .nan"]):
        import yaml
        base = yaml.safe_load((ROOT / "configs/train/pot_ball_maskable_ppo.yaml").read_text())
        key, value = line.split(": ")
        if key == "learning_rate":
            base.setdefault("hyperparameters", {})["learning_rate"] = float("inf")
        else:
            base[key] = float(value.replace(".nan", "nan").replace("1.0e+400", "inf"))
        p = TMP / f"y8_{i}.yaml"
        p.write_text(yaml.safe_dump(base))
        msg, v = expect_refusal(lambda: load_config(p), key)
        out.append(msg)
        verdict = "BROKE" if v == "BROKE" else verdict
    return " / ".join(out), verdict


@probe("Y9", "yaml", "training config `env.kwargs.noise: {speed: .nan}`")
def _():
    import yaml
    from poolgym.agents.training.train_config import load_config
    base = yaml.safe_load((ROOT / "configs/train/nine_ball_ppo.yaml").read_text())
    base.setdefault("env", {}).setdefault("kwargs", {})["noise"] = {"speed": float("nan")}
    p = TMP / "y9.yaml"
    p.write_text(yaml.safe_dump(base))
    rc, err, _ = cli(["train", "--config", str(p), "--out", str(TMP / "y9out")])
    msg, v = cli_verdict(rc, err, 2, "y9.yaml")
    if (TMP / "y9out").exists():
        msg, v = msg + "; --out made", "BROKE"
    return msg, v


# ----------------------------------------------------------------------------- saved games
def recorded_game():
    import gymnasium as gym
    from poolgym.saved_game import RecordGame
    env = RecordGame(gym.make("poolgym/NineBall-v1"))
    env.reset(seed=3)
    for _ in range(2):
        _, _, term, trunc, _ = env.step(env.action_space.sample())
        if term or trunc:
            break
    path = TMP / "game.json"
    env.save(path)
    return json.loads(path.read_text())


def saved_variant(name, change):
    from poolgym.saved_game import load
    data = recorded_game()
    change(data)
    p = TMP / name
    p.write_text(json.dumps(data))
    return expect_refusal(lambda: load(p), name)


@probe("S1", "saved game", "`seed: 3.0` (a float where a whole number goes)")
def _():
    return saved_variant("s1.json", lambda d: d.update(seed=3.0))


@probe("S2", "saved game", "`moves[0].player: true`")
def _():
    return saved_variant("s2.json", lambda d: d["moves"][0].update(player=True))


@probe("S3", "saved game", "`NaN` in `config.noise.speed` (JSON's NaN constant)")
def _():
    from poolgym.saved_game import load
    data = recorded_game()
    data["config"]["noise"] = {"speed": 0.01, "angle_deg": 0.1, "side": 0.0, "vertical": 0.0}
    p = TMP / "s3.json"
    p.write_text(json.dumps(data).replace('"speed": 0.01', '"speed": NaN'))
    return expect_refusal(lambda: load(p), "s3.json")


@probe("S4", "saved game", "`Infinity` in `moves[0].action[0]`")
def _():
    from poolgym.saved_game import load
    data = recorded_game()
    data["moves"][0]["action"][0] = 12345.5
    p = TMP / "s4.json"
    p.write_text(json.dumps(data).replace("12345.5", "Infinity"))
    return expect_refusal(lambda: load(p), "s4.json")


@probe("S5", "saved game", "a folder given as the saved game")
def _():
    from poolgym.saved_game import load
    (TMP / "s5dir.json").mkdir(exist_ok=True)
    return expect_refusal(lambda: load(TMP / "s5dir.json"), "s5dir.json")


@probe("S6", "saved game", "`config.race_to: 1e9` (a float) and `config.game: 'examples.six_ball:SixBall'` (import path)")
def _():
    a = saved_variant("s6a.json", lambda d: d["config"].update(race_to=1e9))
    b = saved_variant("s6b.json", lambda d: d["config"].update(game="examples.six_ball:SixBall"))
    return a[0] + " / " + b[0], "held" if a[1] == b[1] == "held" else "BROKE"


# ----------------------------------------------------------------------------- model zips
def model_with(name, change_members):
    src = zipfile.ZipFile(MODEL)
    members = {n: src.read(n) for n in src.namelist()}
    change_members(members)
    p = TMP / name
    with zipfile.ZipFile(p, "w") as z:
        for n, b in members.items():
            z.writestr(n, b)
    return p


def load_refusal(p, must_name=None):
    from poolgym.envs.sb3_models import load_model
    return expect_refusal(lambda: load_model(str(p), "MaskablePPO"), must_name or p.name)


def evil_module():
    """A module on PYTHONPATH that leaves a marker when imported."""
    (TMP / "poolgym_probe_evil.py").write_text(f"open({str(TMP / 'EVIL_MARKER')!r}, 'w').close()\n"
                                               "def Evil(**kw):\n    raise SystemExit(9)\n")
    return {"PYTHONPATH": str(TMP)}


def eval_marker(p):
    rc, err, _ = cli(["eval", "-a", str(p), "--games", "1", "--no-progress"], env=evil_module())
    ran = (TMP / "EVIL_MARKER").exists()
    lines = [l for l in err.splitlines() if l.strip()]
    result = f"exit {rc}: {' / '.join(lines)[:200] or 'played'}; " + ("MARKER CREATED" if ran else "no import, no marker")
    return result, "BROKE" if ran or "Traceback" in err else "held"


@probe("M1", "model", "record `env_id: 'poolgym_probe_evil:Evil'` (an import path) in poolgym_env.json, `eval -a`")
def _():
    def change(m):
        rec = json.loads(m["poolgym_env.json"])
        rec["env_id"] = "poolgym_probe_evil:Evil"
        m["poolgym_env.json"] = json.dumps(rec).encode()
    return eval_marker(model_with("m1.zip", change))


@probe("M2", "model", "`policy.pth` replaced by a pickle whose reduce calls os.system")
def _():
    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {TMP}/M2_MARKER",))
    p = model_with("m2.zip", lambda m: m.update({"policy.pth": pickle.dumps(Evil())}))
    msg, v = load_refusal(p)
    ran = (TMP / "M2_MARKER").exists()
    return msg + ("; MARKER CREATED" if ran else "; no marker"), "BROKE" if ran else v


@probe("M3", "model", "`pytorch_variables.pth` a pickle that calls os.system")
def _():
    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {TMP}/M3_MARKER",))
    p = model_with("m3.zip", lambda m: m.update({"pytorch_variables.pth": pickle.dumps(Evil())}))
    msg, v = load_refusal(p)
    ran = (TMP / "M3_MARKER").exists()
    return msg + ("; MARKER CREATED" if ran else "; no marker"), "BROKE" if ran else v


@probe("M4", "model", "`data` with `learning_rate: NaN` and `n_envs: 1e999`")
def _():
    def change(m):
        d = json.loads(m["data"])
        d["learning_rate"] = 12345.5
        m["data"] = json.dumps(d).replace("12345.5", "NaN").encode()
    p = model_with("m4.zip", change)
    return load_refusal(p)


@probe("M5", "model", "a link named model.zip pointing to /dev/zero")
def _():
    p = TMP / "m5.zip"
    if not p.exists():
        p.symlink_to("/dev/zero")
    rc, err, _ = cli(["eval", "-a", str(p), "--games", "1", "--no-progress"])
    return cli_verdict(rc, err, 2, "m5.zip")


@probe("M6", "model", "record `env_kwargs.opponent: 'poolgym_probe_evil:Evil'`, `eval -a`")
def _():
    def change(m):
        rec = json.loads(m["poolgym_env.json"])
        rec.setdefault("env_kwargs", {})["opponent"] = "poolgym_probe_evil:Evil"
        m["poolgym_env.json"] = json.dumps(rec).encode()
    return eval_marker(model_with("m6.zip", change))


# ----------------------------------------------------------------------------- datasets
def dataset_copy():
    from poolgym.agents.datasets.collect import SHIPPED_DATASETS_PATH, SHIPPED_DATASET_ID
    root = TMP / f"minari_{time.monotonic_ns()}"
    shutil.copytree(SHIPPED_DATASETS_PATH, root)
    os.environ["MINARI_DATASETS_PATH"] = str(root)
    return SHIPPED_DATASET_ID, root / SHIPPED_DATASET_ID / "data"


def dataset_refusal(change_h5=None, change_meta=None):
    import h5py
    from poolgym.agents.datasets.checks import load_dataset
    did, data = dataset_copy()
    if change_meta:
        meta = json.loads((data / "metadata.json").read_text())
        text = change_meta(meta)
        (data / "metadata.json").write_text(text if isinstance(text, str) else json.dumps(meta))
    if change_h5:
        with h5py.File(data / "main_data.hdf5", "a") as f:
            change_h5(f)
    return expect_refusal(lambda: load_dataset(did), did)


@probe("D1", "dataset", "`infos/action_masks` stored as int8 0/1 (not booleans) and as 2s")
def _():
    def change(f):
        m = f["episode_0/infos/action_masks"][()]
        del f["episode_0/infos/action_masks"]
        f["episode_0/infos/action_masks"] = m.astype(np.int8) * 2
    return dataset_refusal(change)


@probe("D2", "dataset", "`episode_1/actions` as a float array holding 2.5")
def _():
    def change(f):
        a = f["episode_1/actions"][()].astype(np.float64)
        a[0, 0] = 2.5
        del f["episode_1/actions"]
        f["episode_1/actions"] = a
    return dataset_refusal(change)


@probe("D3", "dataset", "an episode whose observations are declared 100000 x 100000 rows (sparse chunked, 0 bytes on disk)")
def _():
    def change(f):
        n = f["episode_2/actions"].shape[0]
        del f["episode_2/observations"]
        f.create_dataset("episode_2/observations", shape=(n + 1, 100_000_000), dtype="f8", chunks=(1, 1024))
    return dataset_refusal(change)


@probe("D4", "dataset", "`metadata.json` a link to /dev/zero")
def _():
    from poolgym.agents.datasets.checks import load_dataset
    did, data = dataset_copy()
    (data / "metadata.json").unlink()
    (data / "metadata.json").symlink_to("/dev/zero")
    return expect_refusal(lambda: load_dataset(did), did)


@probe("D5", "dataset", "`metadata.json` nested 50,000 deep")
def _():
    return dataset_refusal(change_meta=lambda m: "[" * 50000 + "]" * 50000)


@probe("D6", "dataset", "`total_steps: 1e3` (a float) in metadata")
def _():
    return dataset_refusal(change_meta=lambda m: m.update(total_steps=1e3))


@probe("D7", "dataset", "`action_space` MultiDiscrete with `nvec` [-3, 0]")
def _():
    def change(m):
        s = json.loads(m["action_space"])
        s["nvec"] = [-3, 0]
        m["action_space"] = json.dumps(s)
    return dataset_refusal(change_meta=change)


@probe("D8", "dataset", "`observation_space` Box with `low` > `high` and a shape of 10**12")
def _():
    def change(m):
        s = json.loads(m["observation_space"])
        s["shape"] = [10 ** 12]
        m["observation_space"] = json.dumps(s)
    return dataset_refusal(change_meta=change)


# ----------------------------------------------------------------------------- run folders
def run_folder_from_shipped(name):
    out = TMP / name
    shutil.copytree(ROOT / "agents/pretrained/nine_ball", out)
    return out


@probe("R1", "run folder", "`summary.json` with `\"segments\": [{\"steps_to\": NaN}]`, read as a continued run's summary")
def _():
    from poolgym.agents.training import run_folder
    out = run_folder_from_shipped("r1")
    s = json.loads((out / "summary.json").read_text())
    s["segments"] = [{"steps_to": 12345.5}]
    (out / "summary.json").write_text(json.dumps(s).replace("12345.5", "NaN"))
    return expect_refusal(lambda: run_folder.prepare(out, out / "model.zip", False), "summary.json")


@probe("R2", "run folder", "`curve.json` of a continued run that is not JSON")
def _():
    from poolgym.agents.training.train import _previous_curve
    out = run_folder_from_shipped("r2")
    (out / "curve.json").write_text("{'points': ")
    return expect_refusal(lambda: _previous_curve(out), "curve.json")


@probe("R3", "run folder", "`curve.json` of a continued run with `\"points\": \"abc\"` and NaN win rates")
def _():
    from poolgym.agents.training.train import _previous_curve
    out = run_folder_from_shipped("r3")
    c = json.loads((out / "curve.json").read_text())
    c["points"] = "abc"
    (out / "curve.json").write_text(json.dumps(c))
    return expect_refusal(lambda: _previous_curve(out), "curve.json")


@probe("R4", "run folder", "shipping a run whose `summary.json` holds `\"train_time_s\": Infinity`")
def _():
    from poolgym.agents.training.shipping import ship_run as ship
    out = run_folder_from_shipped("r4")
    s = (out / "summary.json").read_text()
    s = json.loads(s)
    s["train_time_s"] = 12345.5
    (out / "summary.json").write_text(json.dumps(s).replace("12345.5", "Infinity"))
    dest = TMP / "r4_dest"
    msg, v = expect_refusal(lambda: ship(out, dest, "nine_ball", "probe"), "summary.json")
    if v == "BROKE" and (dest / "card.json").exists() and "Infinity" in (dest / "card.json").read_text():
        msg += "; card.json holds Infinity"
    return msg, v


@probe("R5", "run folder", "`eval --json OUT` where the data holds NaN (the --json writer, write_json)")
def _():
    from poolgym.agents.tools.script_io import write_json
    p = TMP / "r5.json"
    msg, v = expect_refusal(lambda: write_json(str(p), {"win_rate": float("nan")}), "r5.json")
    if p.exists():
        msg += f"; wrote {p.read_text()[:40]!r}"
    return msg, v


# ----------------------------------------------------------------------------- compile cache
def package_copy():
    dst = TMP / f"pkg_{time.monotonic_ns()}"
    shutil.copytree(ROOT / "poolgym", dst / "poolgym", ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copytree(ROOT / "poolgym/physics/__pycache__", dst / "poolgym/physics/__pycache__", dirs_exist_ok=True)
    return dst


def import_in(dst, env=None):
    code = ("import poolgym\nfrom poolgym.physics import Simulator, Shot\nfrom poolgym.table import Table\n"
            "print('ok', poolgym.__file__)")
    e = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(dst), **(env or {}))
    p = subprocess.run([PY, "-c", code], capture_output=True, text=True, cwd=dst, env=e, timeout=600)
    return p


@probe("C1", "compile cache", "an `.nbi` index holding a valid pickle of the wrong thing (an int)")
def _():
    dst = package_copy()
    nbi = sorted((dst / "poolgym/physics/__pycache__").glob("*.nbi"))[0]
    nbi.write_bytes(pickle.dumps(7))
    p = import_in(dst)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    ok = p.returncode == 0 and "ok" in p.stdout and len(lines) <= 2 and "Traceback" not in p.stderr
    return f"exit {p.returncode}: {' | '.join(lines)[:300]}", "held" if ok else "BROKE"


@probe("C2", "compile cache", "`NUMBA_CACHE_DIR` naming a regular file")
def _():
    f = TMP / "c2_file"
    f.write_text("x")
    dst = package_copy()
    for x in (dst / "poolgym/physics/__pycache__").glob("*.nb*"):
        x.unlink()
    p = import_in(dst, {"NUMBA_CACHE_DIR": str(f)})
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    ok = p.returncode == 0 and "ok" in p.stdout and "Traceback" not in p.stderr and len(lines) <= 2
    return f"exit {p.returncode}: {' | '.join(lines)[:300]}", "held" if ok else "BROKE"


@probe("C3", "compile cache", "an `.nbc` entry replaced by a folder of the same name")
def _():
    dst = package_copy()
    nbc = sorted((dst / "poolgym/physics/__pycache__").glob("*.nbc"))[0]
    nbc.unlink()
    nbc.mkdir()
    p = import_in(dst)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    ok = p.returncode == 0 and "ok" in p.stdout and "Traceback" not in p.stderr
    return f"exit {p.returncode}: {' | '.join(lines)[:300]}", "held" if ok else "BROKE"


# ----------------------------------------------------------------------------- interrupts / concurrency
def signal_during(args, sig, after, started="%"):
    """Run ``poolgym args``, wait until its stderr shows ``started`` (its progress display),
    then ``after`` seconds more, and send ``sig``; the exit status and stderr."""
    import threading
    e = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.Popen([POOLGYM, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e, cwd=TMP)
    err = []
    reader = threading.Thread(target=lambda: err.extend(iter(lambda: p.stderr.read(1), "")), daemon=True)
    reader.start()
    deadline = time.monotonic() + 300
    while started not in "".join(err) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(after)
    if p.poll() is None:
        p.send_signal(sig)
    p.wait(timeout=300)
    reader.join(timeout=10)
    return p.returncode, "".join(err)


@probe("I1", "interrupt", "SIGTERM during `poolgym soak` (a long command)")
def _():
    rc, err = signal_during(["soak", "--games", "0", "--shots", "100000000"], signal.SIGTERM, 2)
    return cli_verdict(rc, err, 130)


@probe("I2", "interrupt", "SIGINT during `poolgym baselines --json OUT` (the report half made)")
def _():
    out = TMP / "i2.json"
    out.write_text('{"previous": 1}')
    rc, err = signal_during(["baselines", "--racks", "5000", "--json", str(out)], signal.SIGINT, 2)
    msg, v = cli_verdict(rc, err, 130)
    if out.read_text() != '{"previous": 1}':
        msg += "; --json file changed"
        v = "BROKE"
    return msg, v


@probe("I3", "interrupt", "SIGTERM during `poolgym bench-bot`")
def _():
    rc, err = signal_during(["bench-bot", "--budget", "fast"], signal.SIGTERM, 2)
    return cli_verdict(rc, err, 130)


@probe("I4", "concurrent", "two `RecordGame.save` of different games to one path at once (threads)")
def _():
    import threading
    import gymnasium as gym
    from poolgym.saved_game import RecordGame, load
    path = TMP / "i4.json"
    games = []
    for seed in (1, 2):
        env = RecordGame(gym.make("poolgym/NineBall-v1"))
        env.reset(seed=seed)
        env.step(env.action_space.sample())
        games.append(env)
    errors = []
    def save(env):
        try:
            for _ in range(30):
                env.save(path)
        except Exception as exc:  # noqa: BLE001
            errors.append(one_line(exc))
    ts = [threading.Thread(target=save, args=(g,)) for g in games]
    [t.start() for t in ts]
    [t.join() for t in ts]
    leftovers = [p.name for p in TMP.iterdir() if p.name.startswith(".i4") or p.name.startswith("i4.json.")]
    try:
        load(path)
        ok = not errors and not leftovers
        return f"loads; errors {errors[:1]}; temporaries left {leftovers}", "held" if ok else "BROKE"
    except Exception as exc:  # noqa: BLE001
        return one_line(exc), "BROKE"


# ----------------------------------------------------------------------------- envs
@probe("E1", "env", "`gym.make_vec(id, num_envs=N)` with N = 0, 2.5, True, '2', np.int64(2)")
def _():
    import gymnasium as gym
    res = []
    verdict = "held"
    for n in (0, 2.5, True, "2"):
        msg, v = expect_refusal(lambda: gym.make_vec("poolgym/NineBall-v1", num_envs=n), "num_envs")
        res.append(msg[:90])
        verdict = "BROKE" if v == "BROKE" else verdict
    try:
        env = gym.make_vec("poolgym/NineBall-v1", num_envs=np.int64(2))
        res.append(f"np.int64(2): {env.num_envs} tables")
    except Exception as exc:  # noqa: BLE001
        res.append("np.int64(2): " + one_line(exc))
        verdict = "BROKE"
    return " / ".join(res), verdict


@probe("E2", "env", "batched `reset(seed=[1, 2, -1])`, `seed=[1.5, 2, 3]`, `seed=np.array([1,2,3])`")
def _():
    import gymnasium as gym
    env = gym.make_vec("poolgym/NineBall-v1", num_envs=3)
    env.reset(seed=10)
    before = [t.state.to_json() for t in env.unwrapped.tables] if hasattr(env, "unwrapped") else None
    res, verdict = [], "held"
    for s in ([1, 2, -1], [1.5, 2, 3]):
        msg, v = expect_refusal(lambda: env.reset(seed=s), "seed")
        res.append(msg[:100])
        verdict = "BROKE" if v == "BROKE" else verdict
    after = [t.state.to_json() for t in env.unwrapped.tables] if before else None
    if before != after:
        res.append("tables changed by a refused reset")
        verdict = "BROKE"
    try:
        env.reset(seed=np.array([1, 2, 3]))
        res.append("np.array seeds: taken")
    except Exception as exc:  # noqa: BLE001
        res.append("np.array seeds: " + one_line(exc)[:100])
    return " / ".join(res), verdict


@probe("E3", "env", "batched `step` where table 2 of 3 gets a NaN action (all-or-nothing?)")
def _():
    import gymnasium as gym
    env = gym.make_vec("poolgym/NineBall-v1", num_envs=3)
    env.reset(seed=4)
    before = [t.state.to_json() for t in env.unwrapped.tables]
    a = np.zeros((3, env.single_action_space.shape[0]), np.float32)
    a[2, 0] = np.nan
    msg, v = expect_refusal(lambda: env.step(a), "not finite")
    after = [t.state.to_json() for t in env.unwrapped.tables]
    if before != after:
        return msg + "; tables 0-1 played although table 2 was refused", "BROKE"
    obs, r, *_ = env.step(np.zeros_like(a))
    return msg + "; the tables unchanged; next step plays", v


@probe("E4", "env", "batched `step` with 2 rows for 3 tables, and a (3, 8) int-typed string array")
def _():
    import gymnasium as gym
    env = gym.make_vec("poolgym/NineBall-v1", num_envs=3)
    env.reset(seed=4)
    m1, v1 = expect_refusal(lambda: env.step(np.zeros((2, 8), np.float32)), "per table")
    m2, v2 = expect_refusal(lambda: env.step(np.full((3, 8), "a")))
    return m1[:140] + " / " + m2[:140], "held" if v1 == v2 == "held" else "BROKE"


@probe("E5", "mask", "batched choice_discrete: table 1 given a slot its mask does not offer")
def _():
    import gymnasium as gym
    env = gym.make_vec("poolgym/NineBall-v1", num_envs=2, action_mode="choice_discrete")
    env.reset(seed=7)
    masks = env.unwrapped.action_masks()
    n0 = env.single_action_space.nvec[0]
    offered = np.flatnonzero(masks[1][:n0])
    unoffered = np.flatnonzero(~masks[1][:n0].astype(bool))
    if len(unoffered) == 0:
        return "every slot offered at this state", "n/a"
    a = np.zeros((2, len(env.single_action_space.nvec)), np.int64)
    a[0, 0] = np.flatnonzero(masks[0][:n0])[0]
    a[1, 0] = unoffered[0]
    before = [t.state.to_json() for t in env.unwrapped.tables]
    msg, v = expect_refusal(lambda: env.step(a), "not offered")
    after = [t.state.to_json() for t in env.unwrapped.tables]
    if before != after:
        return msg + "; table 0 played although table 1 was refused", "BROKE"
    return msg, v


@probe("E6", "env", "batched `table_action_masks(-1)` / `(5)` of 2 tables; `reset(options={'breaker': 3})`")
def _():
    import gymnasium as gym
    env = gym.make_vec("poolgym/NineBall-v1", num_envs=2, action_mode="choice_discrete")
    env.reset(seed=1)
    a = expect_refusal(lambda: env.unwrapped.table_action_masks(-1), "table")
    b = expect_refusal(lambda: env.unwrapped.table_action_masks(5), "table")
    c = expect_refusal(lambda: env.reset(options={"breaker": 3}), "breaker")
    return f"{a[0][:100]} / {b[0][:100]} / {c[0][:100]}", "held" if a[1] == b[1] == c[1] == "held" else "BROKE"


@probe("E7", "env", "PettingZoo raw_env aim mode: `step` with NaN / a string action / shape (9,)")
def _():
    from poolgym.envs.aec import PoolAECEnv
    env = PoolAECEnv()
    env.reset(seed=2)
    before = env.state.to_json() if hasattr(env, "state") else None
    res, verdict = [], "held"
    for a in (np.full(8, np.nan, np.float32), "shoot", np.zeros(9, np.float32)):
        m, v = expect_refusal(lambda: env.step(a))
        res.append(m[:90])
        verdict = "BROKE" if v == "BROKE" else verdict
    if before is not None and env.state.to_json() != before:
        verdict = "BROKE"
        res.append("state changed")
    return " / ".join(res), verdict


@probe("E8", "mask", "PettingZoo raw_env choice_discrete: a slot its mask does not offer")
def _():
    from poolgym.envs.aec import PoolAECEnv
    env = PoolAECEnv(action_mode="choice_discrete")
    env.reset(seed=5)
    agent = env.agent_selection
    masks = env.action_masks(agent)
    n0 = env.action_space(agent).nvec[0]
    unoffered = np.flatnonzero(~np.asarray(masks[:n0]).astype(bool))
    if not len(unoffered):
        return "all slots offered", "n/a"
    a = np.zeros(len(env.action_space(agent).nvec), np.int64)
    a[0] = unoffered[0]
    return expect_refusal(lambda: env.step(a), "not offered")


@probe("E9", "env", "PettingZoo env `race_to=np.int64(2)`, `max_turns=np.int64(50)`, `table=np.str_('9ft')`")
def _():
    from poolgym.envs.aec import PoolAECEnv
    try:
        env = PoolAECEnv(race_to=np.int64(2), max_turns=np.int64(50), table=np.str_("9ft"))
        env.reset(seed=1)
        return "accepted as Python numbers", "held"
    except Exception as exc:  # noqa: BLE001
        return one_line(exc), "BROKE"


@probe("E10", "non-finite", "`PotBallEnv(pot_reward=1e308, scratch_penalty=-1e308)`, 60 steps")
def _():
    from poolgym.envs.practice import PotBallEnv
    try:
        env = PotBallEnv(pot_reward=1e308, scratch_penalty=-1e308)
    except ValueError as exc:
        return one_line(exc), "held"
    rs = []
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    for _ in range(60):
        _, r, term, trunc, _ = env.step(rng.uniform(-1, 1, env.action_space.shape).astype(np.float32))
        rs.append(r)
        if not math.isfinite(r):
            return f"accepted; step returned reward {r}", "BROKE"
        if term or trunc:
            env.reset()
    return f"accepted; rewards finite over 60 steps (max {max(rs):.3g}): one term per step", "held"


@probe("E11", "non-finite", "`gym.make(id, reward_weights=<all 14 terms at 1e6>)`, rewards of a few racks")
def _():
    import gymnasium as gym
    import dataclasses
    from poolgym.envs.rewards import RewardWeights
    terms = [f.name for f in dataclasses.fields(RewardWeights)]
    if not terms:
        return "no reward_weights attribute", "n/a"
    env = gym.make("poolgym/NineBall-v1", reward_weights={t: 1e6 for t in terms})
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(40):
        _, r, term, trunc, _ = env.step(rng.uniform(-1, 1, 8).astype(np.float32))
        if not math.isfinite(r):
            return f"reward {r}", "BROKE"
        if term or trunc:
            env.reset()
    return f"{len(terms)} terms at 1e6: every reward finite", "held"


@probe("E12", "mask", "choice_canonical: every option the mask refuses is refused by step (PotBall? NineBall, 20 states)")
def _():
    import gymnasium as gym
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_canonical", lookahead=True, obs_mode="flat")
    env.reset(seed=11)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(6):
        masks = env.unwrapped.action_masks()
        for o in np.flatnonzero(~masks)[:5]:
            st = env.unwrapped.state.to_json()
            m, v = expect_refusal(lambda: env.step(int(o)), "not offered")
            if v == "BROKE" or env.unwrapped.state.to_json() != st:
                return f"option {o}: {m}", "BROKE"
            checked += 1
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(masks))))
        if term or trunc:
            env.reset()
    return f"{checked} unoffered options refused, state unchanged", "held"


@probe("N1", "non-finite", "a model zip whose return statistics hold `\"mean\": NaN`, read to resume a run")
def _():
    from poolgym.agents.training import return_norm
    p = TMP / "n1.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr(return_norm.RETURN_NORM, '{"gamma": 0.99, "clip_reward": 10.0, "epsilon": 1e-8, '
                                            '"mean": NaN, "var": 2.0, "count": 5.0}')
    return expect_refusal(lambda: return_norm.read(str(p)), "n1.zip")


@probe("I5", "interrupt", "SIGTERM during `poolgym train` (PotBall, MaskablePPO, 20000 steps)")
def _():
    out = TMP / "i5run"
    rc, err = signal_during(["train", "--config", str(ROOT / "configs/train/pot_ball_maskable_ppo.yaml"),
                             "--out", str(out), "--steps", "20000"], signal.SIGTERM, 30, started="")
    msg, v = cli_verdict(rc, err, 130)
    saved = (out / "model.zip").exists() and (out / "summary.json").exists()
    return msg + ("; model.zip and summary.json saved" if saved else "; nothing saved"), v if saved else "BROKE"


@probe("E13", "env", "PettingZoo raw_env: `step(None)` for an agent still playing")
def _():
    from poolgym.envs.aec import PoolAECEnv
    env = PoolAECEnv()
    env.reset(seed=2)
    return expect_refusal(lambda: env.step(None))


@probe("E14", "mask", "batched choice_canonical: option 86 in table 0 and -1 in table 1")
def _():
    import gymnasium as gym
    env = gym.make_vec("poolgym/NineBall-v1", num_envs=2, action_mode="choice_canonical")
    env.reset(seed=3)
    before = [t.state.to_json() for t in env.unwrapped.tables]
    m, v = expect_refusal(lambda: env.step(np.array([86, -1])), "0..85")
    if [t.state.to_json() for t in env.unwrapped.tables] != before:
        return m + "; a table changed", "BROKE"
    return m, v


@probe("D9", "dataset", "a BC config whose `imitation.dataset` is `../../../etc/passwd-v0`")
def _():
    import yaml
    from poolgym.agents.training.train_config import load_config
    base = yaml.safe_load((ROOT / "configs/train/nine_ball_bc_bot_fast.yaml").read_text())
    base["imitation"]["dataset"] = "../../../etc/passwd-v0"
    p = TMP / "d9.yaml"
    p.write_text(yaml.safe_dump(base))
    return expect_refusal(lambda: load_config(p), "imitation.dataset")


@probe("S7", "saved game", "`moves[0].mapping: 'os:system'` (an unknown action mapping)")
def _():
    return saved_variant("s7.json", lambda d: d["moves"][0].update(mapping="os:system"))


def main(ids):
    rows = []
    for pid, (kind, what, fn) in PROBES.items():
        if ids and pid not in ids:
            continue
        t = time.perf_counter()
        try:
            result, verdict = fn()
        except Exception as exc:  # noqa: BLE001
            result, verdict = "probe error: " + one_line(exc) + " @ " + traceback.format_exc().splitlines()[-3].strip(), "ERR"
        row = f"| {pid} | {kind} | {what} | {result.replace('|', '/')} | {verdict} | {time.perf_counter() - t:.0f}s |"
        print(row, flush=True)
        rows.append(row)
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main(set(sys.argv[1:]))
