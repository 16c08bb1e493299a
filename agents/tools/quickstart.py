"""``poolgym quickstart``: the first thing to run on a fresh machine.

Trains the default agent (``configs/train/pot_ball_maskable_ppo.yaml``, shipped as
``poolgym.configs`` so an installed wheel has it: MaskablePPO on the pot-ball drill in the
``choice_discrete`` action mode) for the config's steps, evaluates it beside the untrained network,
the random agent and the ``fixed`` policy on the same seeded layouts, prints them with 95%
intervals, and saves a learning curve and a grid of the trained agent's shots drawn with
``poolgym.render.render_rgb``. Then the trained agent plays 9-ball under the
``NineBall-v1`` protocol against the ladder's ``legal-random`` agent, beside the pretrained
9-ball agent (``pretrained:nine_ball``) and the reference points on the same racks (the
``random`` and ``fixed`` agents and the untrained network, 95% intervals), and one rack
becomes a GIF.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gymnasium as gym

from poolgym.agents.tools.progress import progress_factory
from poolgym.agents.training.train import format_final, load_model, train
from poolgym.agents.training.train_config import load_config
from poolgym.agents.training.train_plots import plot_learning_curve, save_image_grid
from poolgym.configs import config_path

DEFAULT_CONFIG = "train/pot_ball_maskable_ppo.yaml"  # a name in poolgym.configs


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


def nine_ball_match(model_path: str | Path, cfg, out: Path, racks: int = 30, seed: int = 0) -> dict:
    """The trained agent at 9-ball under the ``NineBall-v1`` protocol (its rules, rack
    gaps, tournament noise and stroke cap): ``racks`` racks against ``NINE_BALL_OPPONENT``
    (alternating breaks), beside the pretrained 9-ball agent and the reference points on
    the same racks (``random``, ``fixed``, the untrained network), and one rack drawn into
    a GIF. The drill's observations and actions (candidate slots, binned strokes) are
    9-ball's too, so the drill-trained policy plays the whole game (with the mapping recorded
    in the model) and pots a legal ball where it can."""
    from poolgym.agents.evaluation.evaluate import format_references, reference_agents, reference_report, run_match, summarize
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol
    from poolgym.agents.tools.watch import watch
    from poolgym.physics import Simulator

    p = protocol("poolgym/NineBall-v1")
    rules, settings = p.rules, dict(noise=p.noise, max_speed=p.max_speed)
    spec = f"{cfg.algorithm}:{model_path}"
    trained = make_agent(spec, rules, seed=seed, **settings)
    opponent = make_agent(NINE_BALL_OPPONENT, rules, seed=seed + 1, **settings)
    stats = summarize(run_match(rules, [trained, opponent], ("trained", NINE_BALL_OPPONENT), racks, seed=seed,
                                noise=p.noise))
    references = {PRETRAINED: make_agent(PRETRAINED, rules, seed=seed, **settings),
                  **reference_agents(spec, trained, rules, seed=seed, **settings)}
    report = reference_report(rules, references, opponent, NINE_BALL_OPPONENT, racks, seed=seed, noise=p.noise)
    rows = {"trained": stats["agents"]["trained"], **report["agents"]}
    gif = out / "nine_ball_rack.gif"
    watch(rules, Simulator(rules.table, noise=p.noise), [trained, opponent], seed=seed, gif=str(gif),
          log=lambda _: None, names=("trained", NINE_BALL_OPPONENT))
    print(f"\nnine_ball under the {p.env_id} protocol, {racks} racks against {NINE_BALL_OPPONENT} "
          f"(alternating breaks, same seeds):")
    print(format_references({"opponent": NINE_BALL_OPPONENT, "agents": rows}))
    return {"racks": racks, "opponent": NINE_BALL_OPPONENT, "protocol": p.env_id, "agents": rows, "gif": str(gif)}


def run_quickstart(out: str | Path = "runs/quickstart", steps: int | None = None,
                   episodes: int | None = None, config: str | Path | None = None,
                   progress_bar: bool = True, racks: int = 30) -> dict:
    """Train, evaluate, print the comparison and save the pictures; returns the summary.
    ``steps``, ``episodes`` and ``racks`` (the 9-ball match) shrink the run for a smoke test."""
    out = Path(out)
    cfg = load_config(config or config_path(DEFAULT_CONFIG))
    if episodes is not None:
        cfg = dataclasses.replace(cfg, eval=dataclasses.replace(cfg.eval, final_episodes=episodes))
    print(f"training {cfg.algorithm} on {cfg.env_id} ({steps or cfg.total_steps} steps) into {out} ...")
    # The quickstart's folder is its own demo run: a second quickstart replaces the first.
    summary = train(cfg, out=out, steps=steps, progress_bar=progress_bar, progress=progress_factory(progress_bar),
                    replace=True)
    print(f"trained {summary['steps']} steps in {summary['train_time_s']:.0f} s "
          f"({summary['steps_per_s']:.0f} steps/s)\n")
    print(format_final(summary))
    curve = plot_learning_curve(summary, out / "learning_curve.png")
    model = load_model(summary["model"], cfg.algorithm)
    shots = render_shots(model, cfg, out / "shots.png", seed=cfg.seed + 2_000_000)
    summary["nine_ball"] = nine_ball_match(summary["model"], cfg, out, racks=racks, seed=cfg.seed)
    print(f"\nlearning curve: {curve}\nrendered shots: {shots}\n9-ball rack: {summary['nine_ball']['gif']}"
          f"\nmodel: {summary['model']}")
    return summary
