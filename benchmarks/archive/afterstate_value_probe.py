"""Does a position hold more about who wins the rack than the bots' closed-form value reads?

The bots value a position by the shooter's best closed-form pot chance
(``poolgym.agents.bot.position.shot_quality``). A learned afterstate value (TD-Gammon's
design) is worth building into their search only if a network over the whole layout
predicts the rack's winner better than that chance does. This script plays bot:normal
against itself under the NineBall-v1 protocol, keeps every shot's position (no break, no
pending decision) with whether its shooter went on to win the rack, splits the racks
70/15/15 into training, validation and test racks (positions of one rack stay together),
and fits four predictors of the win: a logistic regression and a two-layer MLP on the
closed-form features (the chance, the balls left, where the cue ball is in hand), and the
same two on those plus every ball's place on the table. Each is stopped at its best
validation epoch and scored on the test racks (log-loss and AUC).

    python benchmarks/archive/afterstate_value_probe.py --racks 6000 --seed 100000 \\
        --json benchmarks/archive/results/afterstate_value_probe.json
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from poolgym.rules import CueBallZone

from poolgym.agents.bot.position import shot_quality
from poolgym.agents.evaluation.evaluate import run_match
from poolgym.agents.evaluation.loading import make_agent
from poolgym.agents.evaluation.protocol import protocol
from poolgym.agents.tools.script_io import write_json

ZONES = (CueBallZone.NONE, CueBallZone.ANYWHERE, CueBallZone.KITCHEN)
# Columns of ``features``: the in-hand zone, the closed-form chance and the balls left.
CLOSED_FORM = [30, 31, 32, 42, 43]


def features(state, rules, sigma_deg: float) -> np.ndarray:
    """Every ball's (on the table, x / length, y / width), the cue ball's in-hand zone, the
    lowest ball on the table (one-hot), the shooter's closed-form chance and the share of
    object balls left."""
    table = rules.table
    f = np.zeros(44)
    positions = state.positions
    for ball, (x, y) in positions.items():
        f[3 * ball:3 * ball + 3] = 1.0, x / table.length, y / table.width
    f[30 + ZONES.index(state.cue_ball_in_hand)] = 1.0
    on = sorted(b for b in positions if b)
    if on:
        f[33 + on[0] - 1] = 1.0
    f[42] = shot_quality(state, rules, sigma_deg)
    f[43] = len(on) / 9
    return f


def positions(racks: int, seed: int):
    """(features, shooter won, rack number) of every shot position of ``racks`` racks of
    bot:normal self-play under the NineBall-v1 protocol."""
    p = protocol("poolgym/NineBall-v1")
    bots = [make_agent("bot:normal", p.rules, seed=seed + i, noise=p.noise, max_speed=p.max_speed) for i in range(2)]
    sigma = bots[0].search.sigma_deg
    rows, won, rack_of = [], [], []
    for k, rack in enumerate(run_match(p.rules, bots, ("a", "b"), racks, seed=seed, noise=p.noise).racks):
        if rack.winner is None:
            continue
        for move in rack.moves:
            s = move.state
            if s.pending is None and not s.awaiting_break and not s.is_over:
                rows.append(features(s, p.rules, sigma))
                won.append(float(rack.winner == s.shooter))
                rack_of.append(k)
    return np.array(rows), np.array(won), np.array(rack_of)


def auc(y: np.ndarray, p: np.ndarray) -> float:
    """The area under the ROC curve (the Mann-Whitney rank form; ties broken by order)."""
    ranks = np.empty(len(p))
    ranks[np.argsort(p, kind="stable")] = np.arange(1, len(p) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum()))


def log_loss(y: np.ndarray, p: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit(X, y, split, cols, hidden: int, epochs: int, seed: int) -> dict:
    """A logistic regression (``hidden`` 0) or a two-layer MLP on ``cols``, trained on the
    training racks, stopped at its best validation log-loss, scored on the test racks."""
    torch.manual_seed(seed)
    net = (torch.nn.Linear(len(cols), 1) if not hidden else
           torch.nn.Sequential(torch.nn.Linear(len(cols), hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)))
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    data = {name: (torch.tensor(X[rows][:, cols], dtype=torch.float32), y[rows]) for name, rows in split.items()}
    xt, yt = data["train"][0], torch.tensor(data["train"][1], dtype=torch.float32)
    best = None
    for epoch in range(epochs):
        for batch in torch.randperm(len(xt)).split(256):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(xt[batch]).squeeze(-1), yt[batch])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            p = {name: torch.sigmoid(net(x).squeeze(-1)).numpy() for name, (x, _) in data.items() if name != "train"}
        val = log_loss(data["validation"][1], p["validation"])
        if best is None or val < best["validation_log_loss"]:
            best = {"epoch": epoch, "validation_log_loss": val, "test_log_loss": log_loss(data["test"][1], p["test"]),
                    "test_auc": auc(data["test"][1], p["test"])}
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racks", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=100000)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    X, y, rack_of = positions(args.racks, args.seed)
    order = np.random.default_rng(args.seed).permutation(args.racks)
    part = np.empty(args.racks, dtype=object)
    part[order[:int(0.7 * args.racks)]] = "train"
    part[order[int(0.7 * args.racks):int(0.85 * args.racks)]] = "validation"
    part[order[int(0.85 * args.racks):]] = "test"
    split = {name: np.flatnonzero(part[rack_of] == name) for name in ("train", "validation", "test")}
    every = list(range(X.shape[1]))
    fits = {"closed form, logistic": fit(X, y, split, CLOSED_FORM, 0, args.epochs, args.seed),
            "closed form, MLP 64x64": fit(X, y, split, CLOSED_FORM, 64, args.epochs, args.seed),
            "layout, logistic": fit(X, y, split, every, 0, args.epochs, args.seed),
            "layout, MLP 256x256": fit(X, y, split, every, 256, args.epochs, args.seed)}
    base = float(y[split["train"]].mean())
    report = {"racks": args.racks, "seed": args.seed, "positions": {k: int(len(v)) for k, v in split.items()},
              "shooter_won_share": float(y.mean()),
              "constant_test_log_loss": log_loss(y[split["test"]], np.full(len(split["test"]), base)),
              "fits": fits}
    write_json(args.json, report)
    for name, r in fits.items():
        print(f"{name}: test log-loss {r['test_log_loss']:.4f}, AUC {r['test_auc']:.4f} (epoch {r['epoch']})")
    print(f"constant: test log-loss {report['constant_test_log_loss']:.4f}; positions {report['positions']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
