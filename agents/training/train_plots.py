"""Pictures of a training run: the learning curve and a grid of rendered shots."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from poolgym.files import atomic_writer


def read_monitor(monitor_dir: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Training episodes from SB3 Monitor CSVs: (cumulative timesteps, episode rewards),
    in wall-clock order across the vectorized envs."""
    rows = []
    for path in sorted(Path(monitor_dir).glob("*.monitor.csv")):
        with open(path) as f:
            next(f)  # the JSON header line Monitor writes before the CSV
            rows += [(float(r["t"]), float(r["r"]), int(r["l"])) for r in csv.DictReader(f)]
    rows.sort()
    rewards = np.array([r[1] for r in rows])
    steps = np.cumsum([r[2] for r in rows])
    return steps, rewards


def rolling_mean_interval(values: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mean of each ``window`` consecutive values and its 95% interval (the normal
    approximation: mean +- 1.96 standard errors of the window's values)."""
    window = max(2, min(window, len(values)))
    kernel = np.ones(window) / window
    mean = np.convolve(values, kernel, mode="valid")
    square = np.convolve(np.asarray(values, dtype=float) ** 2, kernel, mode="valid")
    sd = np.sqrt(np.maximum(square - mean ** 2, 0.0) * window / (window - 1))
    half = 1.96 * sd / np.sqrt(window)
    return mean, mean - half, mean + half


def plot_learning_curve(summary: dict, path: str | Path) -> Path:
    """Two panels: the periodic evaluations' success rate (95% band; the first at step 0,
    the untrained network) beside the baseline agent's, and the rolling mean of training
    episode rewards with its 95% interval. Written to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    history = summary["eval_history"]
    final = summary["final"]
    name = final[0]["trained"]["success_name"] if final else "success rate"
    for opponent in dict.fromkeys(h["opponent"] for h in history):
        rows = [h for h in history if h["opponent"] == opponent]
        x = [h["timesteps"] for h in rows]
        label = "trained (deterministic)" + (f" vs {opponent}" if opponent else "")
        left.plot(x, [h["success_rate"] for h in rows], marker="o", label=label)
        left.fill_between(x, [h["success_ci"][0] for h in rows], [h["success_ci"][1] for h in rows], alpha=0.2)
    steps = summary["steps"]
    for row in final:
        b = row["baseline"]
        left.axhline(b["success_rate"], color="grey", linestyle="--",
                     label=f"{row['baseline_name']} agent" + (f" vs {row['opponent']}" if row["opponent"] else ""))
        left.axhspan(b["success_ci"][0], b["success_ci"][1], color="grey", alpha=0.15)
        t = row["trained"]
        left.errorbar([steps], [t["success_rate"]], yerr=[[t["success_rate"] - t["success_ci"][0]],
                                                          [t["success_ci"][1] - t["success_rate"]]],
                      fmt="s", color="black", capsize=4, label=f"final ({t['episodes']} episodes)")
    left.set_xlabel("training steps")
    left.set_ylabel(name)
    left.set_ylim(0, 1)
    left.set_title(f"{name} in evaluation (95% Wilson intervals)")
    left.legend(fontsize=8, loc="upper left")

    x, rewards = read_monitor(summary["monitor_dir"])
    if len(rewards) >= 2:
        # Rewards take a few values only (a pot, a miss, a foul): their rolling mean, not the
        # raw points, which would draw one flat line per value.
        window = max(2, len(rewards) // 20)
        mean, low, high = rolling_mean_interval(rewards, window)
        right.plot(x[window - 1:], mean, color="tab:blue", label=f"rolling mean of {window} episodes")
        right.fill_between(x[window - 1:], low, high, color="tab:blue", alpha=0.2, label="95% interval")
        right.legend(fontsize=8, loc="lower right")
    right.set_xlabel("training steps")
    right.set_ylabel("episode reward")
    right.set_title("training episodes (stochastic policy)")
    fig.suptitle(f"{summary['config']['algorithm']} on {summary['config']['env']['id']}: "
                 f"{steps} steps in {summary['train_time_s']:.0f} s")
    fig.tight_layout()
    path = Path(path)
    with atomic_writer(path, "wb") as f:
        fig.savefig(f, format=path.suffix.lstrip(".") or "png", dpi=110)
    plt.close(fig)
    return path


def save_image_grid(frames: list[np.ndarray], titles: list[str], path: str | Path, columns: int = 3) -> Path:
    """Frames (RGB arrays) side by side in a grid with a title over each, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = -(-len(frames) // columns)
    height, width = frames[0].shape[:2]
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 4.2 * rows * height / width + 0.5 * rows),
                             squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, frame, title in zip(axes.flat, frames, titles):
        ax.imshow(frame)
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    path = Path(path)
    with atomic_writer(path, "wb") as f:
        fig.savefig(f, format=path.suffix.lstrip(".") or "png", dpi=110)
    plt.close(fig)
    return path
