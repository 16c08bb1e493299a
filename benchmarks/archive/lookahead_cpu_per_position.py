"""CPU milliseconds of the choice modes' lookahead features per 9-ball position (the
NineBall-v1 env's simulator and mapper, tournament noise), on positions of seeded play
(masked random moves against bot:fast), and a digest of the features: two trees that print
the same digest computed the same features.

    python benchmarks/archive/lookahead_cpu_per_position.py [PLAYS] [POSITIONS] [SEED]   # one JSON line

It uses only what every commit since the lookahead (ae3a13e) has, so the same file runs in
an older checkout (``cd OLD && PYTHONPATH=. python /path/to/lookahead_cpu_per_position.py``).
"""

import hashlib
import json
import sys
import time

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401  (registers the ids)
from poolgym.envs.lookahead import lookahead_features


def positions(count: int, seed: int) -> list:
    """``count`` states of seeded play in NineBall-v1's choice_canonical mode."""
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_canonical", opponent="bot:fast")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    states = []
    for i in range(count):
        states.append(env.unwrapped.state)
        _, _, over, cut, _ = env.step(np.int64(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
        if over or cut:
            env.reset(seed=seed + 1 + i)
    return states


def main() -> None:
    plays, count, seed = (int(a) for a in (sys.argv[1:] + ["8", "300", "11"][len(sys.argv) - 1:]))
    states = positions(count, seed)
    env = gym.make("poolgym/NineBall-v1", action_mode="choice_canonical", lookahead=True, lookahead_samples=plays)
    u = env.unwrapped
    lookahead_features(states[0], u.rules, u.simulator, u.mapper, plays, state_checked=True)  # compile, load
    started = time.process_time()
    features = [lookahead_features(s, u.rules, u.simulator, u.mapper, plays, state_checked=True) for s in states]
    spent = time.process_time() - started
    print(json.dumps({"plays": plays, "positions": count, "seed": seed,
                      "cpu_ms_per_position": round(spent / count * 1e3, 3),
                      "digest": hashlib.sha256(np.concatenate(features).tobytes()).hexdigest()[:16]}))


if __name__ == "__main__":
    main()
