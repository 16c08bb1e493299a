"""``poolgym quickstart``: the first thing to run on a fresh machine.

Trains the default agent (``configs/train/default.yaml``: PPO on the aim-assisted pot-ball
drill) for a few minutes, evaluates it and the random agent on the same seeded layouts,
prints both with 95% intervals, and saves a learning curve and a grid of the trained agent's
shots drawn with ``poolgym.render.render_rgb``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gymnasium as gym

from agents.train import format_final, load_model, train
from agents.train_config import load_config
from agents.train_plots import plot_learning_curve, save_image_grid

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "configs" / "train" / "default.yaml"


def render_shots(model, cfg, path: Path, shots: int = 6, seed: int = 0) -> Path:
    """The trained agent's shots on ``shots`` seeded layouts, each drawn after the shot with
    the balls' paths, as one PNG grid titled by what happened."""
    from poolgym.envs.opponents import SB3Policy

    policy = SB3Policy(model, deterministic=True)
    env = gym.make(cfg.env_id, **cfg.make_kwargs(), render_mode="rgb_array")
    frames, titles = [], []
    try:
        for i in range(shots):
            obs, info = env.reset(seed=seed + i)
            obs, reward, terminated, truncated, info = env.step(policy(obs, info))
            frames.append(env.render())
            what = "scratch" if info.get("scratched") else "potted" if info.get("potted") else "missed"
            where = f" in {info['pocket']}" if info.get("pocket") else ""
            titles.append(f"layout {seed + i}: target {info.get('target')} {what}{where} (reward {reward:+.2f})")
    finally:
        env.close()
    return save_image_grid(frames, titles, path)


def run_quickstart(out: str | Path = "runs/quickstart", steps: int | None = None,
                   episodes: int | None = None, config: str | Path | None = None,
                   progress_bar: bool = True) -> dict:
    """Train, evaluate, print the comparison and save the pictures; returns the summary."""
    out = Path(out)
    cfg = load_config(config or DEFAULT_CONFIG)
    if episodes is not None:
        cfg = dataclasses.replace(cfg, eval=dataclasses.replace(cfg.eval, final_episodes=episodes))
    print(f"training {cfg.algorithm} on {cfg.env_id} ({steps or cfg.total_steps} steps) into {out} ...")
    summary = train(cfg, out=out, steps=steps, progress_bar=progress_bar)
    print(f"trained {summary['steps']} steps in {summary['train_time_s']:.0f} s "
          f"({summary['steps_per_s']:.0f} steps/s)\n")
    print(format_final(summary))
    curve = plot_learning_curve(summary, out / "learning_curve.png")
    model = load_model(summary["model"], cfg.algorithm)
    shots = render_shots(model, cfg, out / "shots.png", seed=cfg.seed + 2_000_000)
    print(f"\nlearning curve: {curve}\nrendered shots: {shots}\nmodel: {summary['model']}")
    return summary
