"""Speed of this tree beside another commit's, measured in the same run.

``poolgym bench --compare REV`` (the simulator's shots/s on the bench's cases), ``poolgym
bench-envs`` (env steps/s per id and action mode), ``poolgym bench-bot --compare REV``
(the bot's moves/s per budget), ``poolgym bench-train`` (a training recipe's steps/s,
its env alone under masked random actions, the bot) and ``poolgym bench-import`` (the first
import's compile time, ``bench_import``) run each measurement in a fresh process: once
with this working tree on ``PYTHONPATH`` and once with a ``git archive`` export of ``REV``,
alternating, ``reps`` times each; the best of the repetitions is reported (the machine is
shared, and the best is the least disturbed run). Both sides run the same probe, this file
executed as a script, which only uses the public API every commit has: ``gymnasium.make``
for environments, ``poolgym.agents.tools.bench_bot.run`` for the bot, the bench's cases
and ``Simulator`` for the simulator, and ``poolgym.agents.training.train.train`` for a
recipe (each tree's own copy of the recipe file, so each side trains as its recipe says).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CURRENT = "working tree"


def env_rate(env_id: str, action_mode: str, noise: str, opponent: str, steps: int,
             seed: int = 0) -> dict[str, Any]:
    """Steps/s of one env, made with ``action_mode``, execution ``noise`` (a preset name) and
    ``opponent`` (its shots count in the step), stepped with seeded uniform random actions
    and reset at episode ends."""
    import gymnasium as gym

    import poolgym  # noqa: F401  (registers the ids)

    env = gym.make(env_id, action_mode=action_mode, noise=noise, opponent=opponent)
    return _stepped(env, steps, seed, env.action_space.sample)


class _Stopwatch:
    """Wall-clock and CPU seconds summed over the ``with`` blocks it times."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0

    def __enter__(self) -> None:
        self._wall, self._cpu = time.perf_counter(), time.process_time()

    def __exit__(self, *exc) -> None:
        self.wall += time.perf_counter() - self._wall
        self.cpu += time.process_time() - self._cpu


def random_actions(space, masks, rng, nvec=None):
    """Random actions for a batch (``space``, batched): masked-random per table when
    ``masks`` is given (``nvec``: one table's ``MultiDiscrete`` sizes), else uniform."""
    import numpy as np

    if masks is None:
        return rng.uniform(space.low, space.high).astype(space.dtype)
    cuts = np.cumsum(nvec)[:-1]
    return np.array([[rng.choice(np.flatnonzero(p)) for p in np.split(m, cuts)] for m in masks], space.dtype)


def masked_random_steps(num_envs: int, steps: int, seed: int = 0) -> None:
    """Step ``gym.make_vec("poolgym/NineBall-v1", num_envs, action_mode="choice_discrete")``,
    reset with ``seed``, ``steps`` times with masked random actions from ``default_rng(seed)``:
    the play the benchmarks record a step's parts from."""
    import gymnasium as gym
    import numpy as np

    env = gym.make_vec("poolgym/NineBall-v1", num_envs=num_envs, action_mode="choice_discrete")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(random_actions(env.action_space, env.action_masks(), rng, env.single_action_space.nvec))
    env.close()


def time_kind(kind: str, env_id: str, mode: str, num_envs: int, steps: int, seed: int = 0,
              num_threads: int | None = None, num_workers: int | None = None) -> tuple[float, float]:
    """Table steps per second of ``kind`` ("single": one ``gym.make`` env stepped
    ``num_envs * steps`` times; "sync" / "batched": ``make_vec`` with ``num_envs`` tables
    stepped ``steps`` times; the batched env on ``num_threads`` threads and ``num_workers``
    processes, None for its defaults, and on one of each where the tree's batched env has
    no such argument), by wall clock and by CPU time: this process's (every thread's) and
    its env's worker processes' (their whole lives, from ``/proc``). Only the envs' own calls are timed
    (``reset``, ``step``, ``action_masks``), not the actions' drawing: masked-random in the
    masked modes (``choice_discrete``), uniform otherwise."""
    import gymnasium as gym
    import numpy as np

    import poolgym  # noqa: F401  (registers the ids)

    rng = np.random.default_rng(seed)
    masked = mode == "choice_discrete"
    watch = _Stopwatch()
    worker_cpu = 0.0
    if kind == "single":
        env = gym.make(env_id, action_mode=mode)
        space, nvec = gym.vector.utils.batch_space(env.action_space, 1), getattr(env.action_space, "nvec", None)
        with watch:
            env.reset(seed=seed)
        done = False
        for _ in range(num_envs * steps):
            with watch:
                if done:
                    env.reset()
                masks = env.unwrapped.action_masks()[None] if masked else None
            action = random_actions(space, masks, rng, nvec)[0]
            with watch:
                _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        env.close()
    else:
        vectorization = {"sync": "sync", "batched": None}[kind]
        threads = {"num_threads": num_threads} if kind == "batched" and num_threads is not None \
            and _takes(env_id, "num_threads") else {}
        if kind == "batched" and num_workers is not None and num_workers > 1 and _takes(env_id, "num_workers"):
            threads["num_workers"] = num_workers
        envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=vectorization, action_mode=mode, **threads)
        nvec = getattr(envs.single_action_space, "nvec", None)
        with watch:
            envs.reset(seed=seed)
        for _ in range(steps):
            with watch:
                # A commit without the id's batched form gives make_vec's wrapping: its masks by call.
                masks = None if not masked else envs.action_masks() if kind == "batched" and hasattr(
                    envs, "action_masks") else np.stack(envs.call("action_masks"))
            actions = random_actions(envs.action_space, masks, rng, nvec)
            with watch:
                envs.step(actions)
        workers = [process.pid for process in getattr(envs, "processes", [])]
        if workers:  # imported here only: a compared commit from before the workers has none
            from poolgym.agents.training.idle_cores import cpu_seconds

            worker_cpu = cpu_seconds(workers) or 0.0
        envs.close()
    return num_envs * steps / watch.wall, num_envs * steps / (watch.cpu + worker_cpu)


def _takes(env_id: str, argument: str) -> bool:
    """Whether the id's batched env takes ``argument`` (``num_threads``, ``num_workers``: a
    commit from before it does not)."""
    import inspect

    import gymnasium as gym
    from gymnasium.envs.registration import load_env_creator

    entry = gym.spec(env_id).vector_entry_point
    creator = load_env_creator(entry) if isinstance(entry, str) else entry
    return creator is not None and argument in inspect.signature(creator).parameters


def kind_rate(kind: str, env_id: str, action_mode: str, num_envs: int, steps: int, seed: int = 0,
              num_threads: int | None = None, num_workers: int | None = None) -> dict[str, Any]:
    """``time_kind`` in a fresh process, after a short warm-up of the same kind (the
    batched kernel's first load): table steps/s by wall clock and by CPU time."""
    time_kind(kind, env_id, action_mode, min(num_envs, 2), 2, seed, num_threads)
    wall, cpu = time_kind(kind, env_id, action_mode, num_envs, steps, seed, num_threads, num_workers)
    return {"steps_per_s": wall, "cpu_steps_per_s": cpu}


def bot_rate(budget: str, noise: str, racks: int, seed: int = 0) -> dict[str, Any]:
    """The bot's thinking speed (moves decided per second) in ``racks`` self-play 9-ball racks."""
    try:
        from poolgym.agents.tools.bench_bot import run
    except ModuleNotFoundError:  # a commit from before agents/ moved under poolgym.agents
        from agents.bench_bot import run

    _as_the_command_does()
    report = run(racks=racks, budget=budget, seed=seed, noises=(noise,))
    return {"moves_per_s": report["settings"][noise]["moves_per_s_thinking"]}


def sim_rate(case: str, reps: int = 3) -> dict[str, Any]:
    """Shots/s of ``poolgym bench``'s case ``case`` (break, straight_in, random): the median
    of ``reps`` passes after a warm-up, as the bench reports it."""
    from poolgym.agents.tools import bench
    from poolgym.physics import Simulator
    from poolgym.table import Table

    table = Table.preset(bench.TABLE)
    chosen = next(c for c in bench.build_cases(table) if c.name == case)
    sim = Simulator(table)
    bench.time_case(sim, chosen, 1)  # warm-up (and the compiled kernels' first load)
    return {"shots_per_s": bench.summarize(bench.time_case(sim, chosen, reps))["shots_per_s"]}


def train_rate(config: str, steps: int, seed: int = 0) -> dict[str, Any]:
    """A recipe's training speed: env steps/s of ``poolgym train`` on ``config`` (a path,
    read from the measured tree) cut to ``steps`` steps, as its ``summary.json`` reports it
    (vec env start-up and learning; the final evaluation is not timed). Curve points,
    periodic evaluations and checkpoints are left out, and the final evaluation is skipped,
    so that the figure is the training loop's alone."""
    from poolgym.agents.training import train as training
    from poolgym.agents.training.train_config import load_config

    # An absent key is written as None; the config's reader takes absent keys only.
    data = {k: v for k, v in load_config(config).to_dict().items() if v is not None and k != "curve"}
    data["env"] = {k: v for k, v in data["env"].items() if v is not None}
    data.update(checkpoint_every=0, total_steps=steps)
    data["eval"]["every_steps"] = 0
    training.final_evaluation = lambda *args, **kwargs: []
    _as_the_command_does()
    with tempfile.TemporaryDirectory(prefix="poolgym-bench-train-") as out:
        summary = training.train(data, out=out, steps=steps, seed=seed)
    return {"steps_per_s": summary["steps_per_s"]}


def masked_env_rate(config: str, steps: int, seed: int = 0) -> dict[str, Any]:
    """Steps/s of a recipe's env alone, in one process: made as ``config`` makes it,
    stepped with seeded random actions drawn uniformly within each dimension's
    ``action_masks()`` in the masked action modes (uniform over the space otherwise)."""
    import gymnasium as gym
    import numpy as np

    import poolgym  # noqa: F401  (registers the ids)
    from poolgym.agents.evaluation.policy_eval import resolve_opponent
    from poolgym.agents.training.train_config import load_config

    cfg = load_config(config)
    kwargs = cfg.make_kwargs()
    if "opponent" in kwargs:
        kwargs["opponent"] = resolve_opponent(kwargs["opponent"])
    env = gym.make(cfg.env_id, **kwargs)
    rng = np.random.default_rng(seed)
    mapper = env.unwrapped.mapper
    # ``masked`` is newer than the probe's oldest trees, whose one masked mode is choice_discrete.
    masked = getattr(mapper, "masked", getattr(mapper, "mode", None) == "choice_discrete")
    one_index = isinstance(env.action_space, gym.spaces.Discrete)  # choice_canonical
    bounds = [] if one_index or not masked else np.cumsum(np.concatenate([[0], env.action_space.nvec])).tolist()
    spans = list(zip(bounds[:-1], bounds[1:]))

    # ``allowed[rng.integers(len(allowed))]`` is the draw ``rng.choice(allowed)`` makes, bit for
    # bit, without its argument handling (a sixth of the probe's time at today's speeds):
    # the probe times the env, not the sampler.
    def action():
        if not masked:
            return env.action_space.sample()
        mask = env.unwrapped.action_masks()
        if one_index:
            allowed = np.flatnonzero(mask)
            return np.int64(allowed[rng.integers(len(allowed))])
        picks = []
        for lo, hi in spans:
            allowed = np.flatnonzero(mask[lo:hi])
            picks.append(allowed[rng.integers(len(allowed))])
        return np.array(picks, dtype=np.int64)

    return _stepped(env, steps, seed, action)


def first_import() -> dict[str, Any]:
    """Seconds to ``import poolgym`` and play one 9-ball break (the bench's break shot) in
    this process, which must not have imported poolgym before: on a fresh compile cache
    (``NUMBA_CACHE_DIR``) that is a first install's compilation, kernels compiled on first
    use included. The break's set-up (the rack, from the bench) is not timed."""
    start = time.perf_counter()
    import poolgym  # noqa: F401
    from poolgym.physics import Shot, Simulator
    from poolgym.table import Table

    imported = time.perf_counter()
    _use_tree_agents()
    from poolgym.agents.tools import bench

    table = Table.preset(bench.TABLE)
    rack = bench.rack_start(table)
    shot = Shot(speed=bench.BREAK_SPEED, angle_deg=bench.aim_deg(rack[0], rack[1]))
    before = time.perf_counter()
    Simulator(table).simulate(dict(rack), shot)
    done = time.perf_counter()
    return {"seconds": (imported - start) + (done - before), "import_s": imported - start, "shot_s": done - before}


def _stepped(env, steps: int, seed: int, action) -> dict[str, Any]:
    """Steps/s of ``env`` over ``steps`` steps of ``action()`` from a reset with ``seed``
    (its action space seeded too), reset at episode ends; the env is closed after.
    ``steps_per_s`` is per wall-clock second, ``cpu_steps_per_s`` per second of the
    process's CPU time (less moved by other jobs on a shared machine)."""
    try:
        env.reset(seed=seed)
        env.action_space.seed(seed)
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(action())
            if terminated or truncated:
                env.reset()
        elapsed, cpu_elapsed = time.perf_counter() - start, time.process_time() - cpu
    finally:
        env.close()
    return {"steps_per_s": steps / elapsed, "cpu_steps_per_s": steps / cpu_elapsed}


PROBES = {"env": env_rate, "bot": bot_rate, "sim": sim_rate, "train": train_rate, "env_masked": masked_env_rate,
          "first_import": first_import, "kind": kind_rate}
# Probes that import poolgym themselves (they time it).
SELF_IMPORTING = {"first_import"}


def tree_config(path: str | Path) -> Path:
    """A config file as the probes name it: relative to the repository when it lies inside
    (each measured tree then reads its own copy, as its recipe was at that commit), else
    absolute (every tree reads the same file). ``ValueError`` when there is no such file."""
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_file():
        raise ValueError(f"config {str(path)!r} is not a file")
    try:
        return resolved.relative_to(ROOT)
    except ValueError:
        return resolved


def export(rev: str, dest: Path) -> str:
    """Write the files of commit ``rev`` under ``dest``; returns its short hash."""
    try:
        short = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", f"{rev}^{{commit}}"],
                               check=True, capture_output=True, text=True).stdout.strip()
    except subprocess.CalledProcessError as exc:
        raise ValueError(f"--compare: {rev!r} is not a commit of this repository "
                         f"({exc.stderr.strip()})") from None
    archive = dest / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", short], check=True, stdout=out)
    with tarfile.open(archive) as tar:
        tar.extractall(dest / "tree", filter="data")
    archive.unlink()
    _link_packaged_folders(dest / "tree")
    return short


def _link_packaged_folders(tree: Path) -> None:
    """Make an exported tree's folders that an install maps into ``poolgym`` (its
    pyproject's ``[tool.setuptools.package-dir]``: ``agents/`` as ``poolgym.agents``, and so
    on) importable so from the tree on PYTHONPATH.

    Without the links, any process started from a probe (a training recipe's env workers)
    would find them through the installed mapping, in this checkout, mixed with the
    other commit's ``poolgym``. A commit whose pyproject maps none (``agents`` imported as
    a top-level package then) is left as it is (``_use_tree_agents``)."""
    with (tree / "pyproject.toml").open("rb") as f:
        folders = tomllib.load(f).get("tool", {}).get("setuptools", {}).get("package-dir", {})
    for package, folder in folders.items():
        link = tree / package.replace(".", "/")
        if package.startswith("poolgym.") and (tree / folder).is_dir() and not link.exists():
            link.symlink_to(Path(*[".."] * package.count(".")) / folder, target_is_directory=True)


def measure(tree: Path, probe: str, params: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``probe`` with ``params`` in a fresh process that imports poolgym from ``tree``
    (with the environment variables ``env`` set besides this process's)."""
    env = dict(os.environ, **(env or {}), PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), probe, json.dumps(params)],
                          cwd=tree, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{probe} probe failed in {tree}:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(probe: str, cases: list[dict[str, Any]], key: str, rev: str | None, reps: int = 3) -> list[dict]:
    """For each case (the probe's parameters): the best ``key`` over ``reps`` fresh processes
    of this tree and, with ``rev``, of that commit, alternating. One row per case."""
    return [dict(params, **row[key]) for params, row in zip(cases, compare_keys(probe, cases, (key,), rev, reps))]


def compare_keys(probe: str, cases: list[dict[str, Any]], keys: tuple[str, ...], rev: str | None,
                 reps: int = 3) -> list[dict[str, dict]]:
    """``compare`` for several figures of each measurement: per case, per key, each tree's
    best over the same ``reps`` fresh processes (and, with ``rev``, this tree's ``ratio``)."""
    if probe not in PROBES:
        raise ValueError(f"probe must be one of {sorted(PROBES)}, got {probe!r}")
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise ValueError(f"reps must be a whole number >= 1, got {reps!r}")
    with tempfile.TemporaryDirectory(prefix="poolgym-compare-") as tmp:
        trees = {CURRENT: ROOT}
        if rev is not None:
            trees[export(rev, Path(tmp))] = Path(tmp) / "tree"
        rows = []
        for params in cases:
            best = {key: dict.fromkeys(trees, 0.0) for key in keys}
            for _ in range(reps):
                for name, tree in trees.items():
                    figures = measure(tree, probe, params)
                    for key in keys:
                        best[key][name] = max(best[key][name], figures[key] or 0.0)
            row = {}
            for key in keys:
                row[key] = {name: round(value, 2) for name, value in best[key].items()}
                if rev is not None:
                    old = best[key][next(name for name in trees if name != CURRENT)]
                    row[key]["ratio"] = round(best[key][CURRENT] / old, 2) if old else None
            rows.append(row)
    return rows


def format_rows(rows: list[dict], columns: list[str], unit: str) -> str:
    """A plain table: the case columns, then each tree's best figure in ``unit`` (and the ratio)."""
    if not rows:
        return "(no cases)"
    figures = [k for k in rows[0] if k not in columns]
    titles = columns + [f if f == "ratio" else f"{f} {unit}" for f in figures]
    cells = [[str(r[c]) for c in columns] + ["-" if r[f] is None else str(r[f]) for f in figures]
             for r in rows]
    widths = [max(len(t), *(len(c[i]) for c in cells)) for i, t in enumerate(titles)]
    align = lambda i, text: text.ljust(widths[i]) if i < len(columns) else text.rjust(widths[i])  # noqa: E731
    return "\n".join("  ".join(align(i, text) for i, text in enumerate(line)) for line in [titles, *cells])


def _as_the_command_does() -> None:
    """Set the process up as the measured tree's ``poolgym`` command does before it runs a
    subcommand (``cli.freeze_imports``, where the tree has it), so that each tree's bot is
    timed as its command runs it."""
    try:
        from poolgym.agents.tools.cli import freeze_imports
    except ImportError:  # a commit whose command sets nothing up
        return
    freeze_imports()


def _use_tree_agents() -> None:
    """Import ``poolgym.agents`` from the measured tree's ``agents/`` folder.

    An installed poolgym maps ``poolgym.agents`` to the installed checkout's folder; a tree
    measured from PYTHONPATH must use its own. (Commits from before the folder moved under
    ``poolgym.agents`` import it as ``agents`` from PYTHONPATH; there the installed mapping
    is blocked so nothing from this checkout is mixed in.)"""
    import importlib.util

    import poolgym

    folder = Path(poolgym.__file__).resolve().parents[1] / "agents"
    if not (folder / "tools").is_dir():
        sys.modules["poolgym.agents"] = None  # type: ignore[assignment]
        return
    spec = importlib.util.spec_from_file_location("poolgym.agents", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["poolgym.agents"] = module
    spec.loader.exec_module(module)
    poolgym.agents = module


if __name__ == "__main__":
    # Run as a script, this file's folder heads sys.path: drop it, so that ``poolgym`` comes
    # from the tree on PYTHONPATH alone.
    sys.path.pop(0)
    name, raw = sys.argv[1], sys.argv[2]
    if name not in SELF_IMPORTING:
        _use_tree_agents()
    print(json.dumps(PROBES[name](**json.loads(raw))))
