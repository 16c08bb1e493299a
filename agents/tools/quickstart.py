"""``poolgym quickstart``: the first thing to run on a fresh machine.

Trains the default agent (``configs/train/pot_ball_maskable_ppo.yaml``, shipped as
``poolgym.configs`` so an installed wheel has it: MaskablePPO on the pot-ball drill in the
``choice_discrete`` action mode) for the config's steps, evaluating it from the untrained
network at step 0 on; evaluates it beside the untrained network, the random agent and the
``fixed`` policy on the same seeded layouts, prints them with 95% intervals, and saves a
learning curve and a grid of the trained agent's shots drawn with
``poolgym.render.render_rgb``. Then the drill-trained agent plays 9-ball, a game it never
trained on, under the ``NineBall-v1`` protocol against the ladder's ``legal-random`` agent,
beside the pretrained 9-ball agent (``pretrained:nine_ball``) and the reference points on
the same racks (the ``random`` and ``fixed`` agents and the untrained network, 95%
intervals), and one rack becomes a GIF. What the output says of one agent against another
is read off those intervals.

Each run takes a new folder (``runs/quickstart``, then ``runs/quickstart-2``, ...); a folder
named with ``--out`` that holds a run is refused unless ``replace``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gymnasium as gym

from poolgym.agents.tools.progress import progress_factory
from poolgym.agents.tools.script_io import write_json
from poolgym.agents.training import run_folder
from poolgym.agents.training.train import format_final, train
from poolgym.agents.training.train_config import load_config
from poolgym.agents.training.train_plots import plot_learning_curve, save_image_grid
from poolgym.configs import config_path
from poolgym.envs.sb3_models import load_model as load_sb3_model

DEFAULT_CONFIG = "train/pot_ball_maskable_ppo.yaml"  # a name in poolgym.configs
DEFAULT_OUT = Path("runs") / "quickstart"

#: Everything a quickstart run leaves in its folder, with what it is (printed at its end,
#: listed in docs/quickstart.md).
FILES = {
    "model.zip": "the trained agent (poolgym eval -a MaskablePPO:<this file>)",
    "best_model.zip": "the best of the periodic evaluations' networks",
    "summary.json": "the config, the training time and every evaluation with its intervals",
    "monitor": "one CSV per training env: each training episode's reward and length",
    "tb": "tensorboard logs (tensorboard --logdir <this folder>)",
    "learning_curve.png": "pot rate in evaluation from step 0, and training rewards' rolling mean",
    "shots.png": "six of the trained agent's shots drawn with their paths",
    "nine_ball.json": "the 9-ball table: racks won by each agent on the same racks, 95% intervals",
    "nine_ball_rack.gif": "one 9-ball rack of the trained agent against legal-random",
}


def render_shots(model, cfg, path: Path, shots: int = 6, seed: int = 0) -> Path:
    """The trained agent's shots on ``shots`` seeded layouts, each drawn after the shot with
    the balls' paths, as one PNG grid titled by what happened."""
    from poolgym.agents.evaluation.policy_eval import with_action_masks
    from poolgym.envs.opponents import SB3Policy

    policy = SB3Policy(model, deterministic=True)
    env = gym.make(cfg.env_id, **cfg.make_kwargs(), render_mode="rgb_array")
    frames, titles = [], []
    try:
        for i in range(shots):
            obs, info = env.reset(seed=seed + i)
            obs, reward, terminated, truncated, info = env.step(policy(obs, with_action_masks(env, info)))
            frames.append(env.render())
            what = "scratch" if info["scratched"] else "potted" if info["potted"] else "missed"
            pocket = env.unwrapped.last_shot.pocketed.get(info["target"])
            where = f" in {pocket}" if pocket else ""
            titles.append(f"layout {seed + i}: target {info.get('target')} {what}{where} (reward {reward:+.2f})")
    finally:
        env.close()
    return save_image_grid(frames, titles, path)


# The quickstart's 9-ball opponent: it aims every stroke at a legal ball, so racks are
# not won merely by its fouls.
NINE_BALL_OPPONENT = "legal-random"


# The pretrained 9-ball agent shipped with poolgym, played beside what was just trained.
PRETRAINED = "pretrained:nine_ball"


def nine_ball_match(model_path: str | Path, cfg, out: Path, racks: int = 100, seed: int = 0) -> dict:
    """The trained agent at 9-ball under the ``NineBall-v1`` protocol (its rules, rack
    gaps, tournament noise and stroke cap): ``racks`` racks against ``NINE_BALL_OPPONENT``
    (alternating breaks), beside the pretrained 9-ball agent and the reference points on
    the same racks (``random``, ``fixed``, the untrained network), and one rack drawn into
    a GIF. The drill's observations and actions (candidate slots, binned strokes) are
    9-ball's too, so the drill-trained policy plays the whole game (with the mapping recorded
    in the model) and pots a legal ball where it can."""
    from poolgym.agents.evaluation import EVAL_TABLES
    from poolgym.agents.evaluation.evaluate import format_references, reference_agents, reference_report, run_match, summarize
    from poolgym.agents.evaluation.loading import load_sb3, make_agent
    from poolgym.agents.evaluation.protocol import protocol
    from poolgym.agents.tools.watch import watch
    from poolgym.physics import Simulator

    p = protocol("poolgym/NineBall-v1")
    rules, settings = p.rules, dict(noise=p.noise, max_speed=p.max_speed)
    spec = f"{cfg.algorithm}:{model_path}"
    # The model this run has just written, read as data like any model file.
    trained = load_sb3(str(model_path), cfg.algorithm, rules, noise=p.noise)
    opponent = make_agent(NINE_BALL_OPPONENT, rules, seed=seed + 1, **settings)
    stats = summarize(run_match(rules, [trained, opponent], ("trained", NINE_BALL_OPPONENT), racks, seed=seed,
                                noise=p.noise, racks_at_once=EVAL_TABLES))
    references = {PRETRAINED: make_agent(PRETRAINED, rules, seed=seed, **settings),
                  **reference_agents(spec, trained, rules, seed=seed, **settings)}
    report = reference_report(rules, references, opponent, NINE_BALL_OPPONENT, racks, seed=seed, noise=p.noise,
                              racks_at_once=EVAL_TABLES)
    rows = {"trained": stats["agents"]["trained"], **report["agents"]}
    gif = out / "nine_ball_rack.gif"
    watch(rules, Simulator(rules.table, noise=p.noise), [trained, opponent], seed=seed, gif=str(gif),
          log=lambda _: None, names=("trained", NINE_BALL_OPPONENT))
    taught = ("learned the pot-ball drill only and plays 9-ball untaught" if _is_drill(cfg)
              else f"was trained on {cfg.env_id}")
    print(f"\n9-ball under the {p.env_id} protocol, {racks} racks against {NINE_BALL_OPPONENT} "
          f"(alternating breaks, same seeds). The agent trained above {taught}; {PRETRAINED} was trained at 9-ball.")
    print(format_references({"opponent": NINE_BALL_OPPONENT, "agents": rows}))
    print(nine_ball_reading(rows))
    result = {"racks": racks, "opponent": NINE_BALL_OPPONENT, "protocol": p.env_id, "seed": seed,
              "agents": rows, "gif": str(gif)}
    write_json(str(out / "nine_ball.json"), result)
    return result


def _is_drill(cfg) -> bool:
    """Whether ``cfg`` trains on the pot-ball drill (the quickstart's own config does)."""
    return cfg.env_id.startswith("poolgym/PotBall-")


def against(a: tuple, b: tuple) -> str:
    """How a rate with its interval, ``(rate, (low, high))``, stands against another: "clear
    above" or "clear below" it when the intervals are apart, else "level with"."""
    if a[1][0] > b[1][1]:
        return "clear above"
    if a[1][1] < b[1][0]:
        return "clear below"
    return "level with"


def _won(stats: dict) -> tuple:
    return stats["win_rate"], tuple(stats["win_rate_ci95"])


def nine_ball_reading(rows: dict) -> str:
    """What the 9-ball table shows, read off its intervals: the drill-trained agent against
    the untrained network, ``fixed`` and the pretrained 9-ball agent."""
    trained = _won(rows["trained"])
    parts = [f"{against(trained, _won(rows[name]))} {name}" for name in ("untrained", "fixed", PRETRAINED)
             if name in rows]
    return ("at 9-ball, in racks won, the trained agent is " + ", ".join(parts)
            + " (clear: the 95% intervals apart; level: they overlap)")


def pot_ball_reading(final: dict) -> str:
    """What the drill's table shows, read off its intervals: the trained agent's pot rate
    against the untrained network's and the baseline's."""
    def rate(s):
        return s["success_rate"], tuple(s["success_ci"])

    trained = rate(final["trained"])
    parts = [f"{against(trained, rate(final['untrained']))} the untrained network"] if final.get("untrained") else []
    parts.append(f"{against(trained, rate(final['baseline']))} {final['baseline_name']}")
    return f"in {final['trained']['success_name']}, the trained agent is " + " and ".join(parts) + \
        " (clear: the 95% intervals apart; level: they overlap)"


def list_files(out: Path) -> str:
    """The entries of the run folder ``out``, each with what it is (``FILES``)."""
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    width = max(len(n) for n in names) + 3
    return "\n".join([f"files in {out}:"] + [f"  {n + ('/' if (out / n).is_dir() else ''):<{width}}{FILES.get(n, '')}"
                                             for n in names])


def run_quickstart(out: str | Path | None = None, steps: int | None = None,
                   episodes: int | None = None, config: str | Path | None = None,
                   progress_bar: bool = True, racks: int = 100, replace: bool = False) -> dict:
    """Train, evaluate, print the comparison and save the pictures; returns the summary.
    ``out`` None takes a new folder (``runs/quickstart``, ``runs/quickstart-2``, ...); a
    folder given that holds a run is refused (``ValueError``, before any work) unless
    ``replace``. ``steps``, ``episodes`` (every evaluation's) and ``racks`` (the 9-ball
    match) shrink the run for a smoke test."""
    cfg = load_config(config or config_path(DEFAULT_CONFIG))
    if episodes is not None:
        cfg = dataclasses.replace(cfg, eval=dataclasses.replace(cfg.eval, episodes=episodes, final_episodes=episodes))
    if out is None:
        out = run_folder.new_folder(DEFAULT_OUT)
    else:
        out = Path(out)
        held = [n for n in (*run_folder.RUN_ENTRIES, *FILES) if (out / n).exists()] if out.is_dir() else []
        if held and not replace:
            raise ValueError(f"run folder {out} already holds a run ({', '.join(dict.fromkeys(held))}); run folders "
                             f"are never overwritten: replace it with --replace, or leave out --out for a new folder")
    drill = " (the pot-ball drill: one shot at the 1-ball from a random layout)" if _is_drill(cfg) else ""
    print(f"training {cfg.algorithm} on {cfg.env_id}{drill}, {steps or cfg.total_steps} steps, into {out} ...")
    summary = train(cfg, out=out, steps=steps, progress_bar=progress_bar, progress=progress_factory(progress_bar),
                    replace=replace)
    print(f"trained {summary['steps']} steps in {summary['train_time_s']:.0f} s "
          f"({summary['steps_per_s']:.0f} steps/s)\n")
    print(format_final(summary))
    print(pot_ball_reading(summary["final"][0]))
    plot_learning_curve(summary, out / "learning_curve.png")
    model = load_sb3_model(summary["model"], cfg.algorithm)
    render_shots(model, cfg, out / "shots.png", seed=cfg.seed + 2_000_000)
    summary["nine_ball"] = nine_ball_match(summary["model"], cfg, out, racks=racks, seed=cfg.seed)
    print("\n" + list_files(out))
    return summary
