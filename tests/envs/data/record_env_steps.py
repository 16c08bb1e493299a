"""Records seeded episodes of the choice_discrete envs into ``env_steps.json``.

``tests/envs/test_env_same_steps.py`` plays the same episodes and compares, step by step,
the observation, the action masks, the candidate slots, the reward, the info and the state
with the recorded ones, so that a faster env is shown to give exactly what the recording
commit's env gave. The envs are made as the MaskablePPO recipe makes them (9-ball) and as
the v1 ids with the same action mode (8-ball, 14.1); the actions are seeded random draws
within each dimension's ``action_masks()``. Run from the repository root, on the commit
whose values are the reference: ``python tests/envs/data/record_env_steps.py``.
"""

from __future__ import annotations

import base64
import json
import subprocess
import zlib
from pathlib import Path

import gymnasium as gym
import numpy as np

import poolgym  # noqa: F401  (registers the ids)
from poolgym.files import atomic_write_text

OUT = Path(__file__).with_name("env_steps.json")
KWARGS = {"obs_mode": "flat", "action_mode": "choice_discrete", "shaping_gamma": 0.99,
          "reward_weights": {"shaping": 1.0}}
# (env id, seed, steps): the recipe's 9-ball env over several racks (breaks, pots, safeties,
# ball in hand, push outs), 8-ball (groups, the 8 on call) and 14.1 (re-racks, scores).
CASES = (
    ("poolgym/NineBall-v1", 3, 64),
    ("poolgym/EightBall-v1", 5, 26),
    ("poolgym/StraightPool-v1", 7, 26),
)
# The slots (the largest part of a record) are kept on every SLOTS_EVERY-th step; the
# observation, which holds their features, on every step.
SLOTS_EVERY = 2


def slot_record(slot) -> list | None:
    """A candidate slot as plain JSON values (the fields ``test_candidate_values`` compares)."""
    if slot is None:
        return None
    return [slot.kind, slot.ball, slot.pocket, slot.contact, slot.cue, slot.cut_deg, slot.cue_to_contact,
            slot.ball_to_pocket, slot.cue_blocked, slot.ball_blocked, slot.visible_angle,
            slot.make_probability, repr(slot.call)]


def info_record(info: dict) -> dict:
    """A step's info as plain JSON values (``Outcome`` records by ``to_dict``), in the
    recording's form: the keys that do not apply to the step (an ``outcome`` of None, a
    ``winner`` or ``to_act`` of -1) left out and ``decision`` (added after the recording;
    ``test_readme_loop`` checks it) not kept, as the recording commit's env gave them."""
    out = {}
    for key, value in info.items():
        if key == "decision" or (key == "outcome" and value is None) or (key in ("winner", "to_act") and value == -1):
            continue
        if key == "outcomes":
            value = [o.to_dict() for o in value]
        elif key == "outcome":
            value = value.to_dict()
        out[key] = value
    return out


def pack_obs(obs: np.ndarray) -> str:
    """A flat observation, exactly and compactly: its little-endian float32 bytes, deflated,
    in base64 (``unpack_obs`` reads it back)."""
    return base64.b64encode(zlib.compress(np.asarray(obs, dtype="<f4").tobytes(), 9)).decode()


def unpack_obs(text: str) -> np.ndarray:
    """The observation ``pack_obs`` wrote."""
    return np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype="<f4")


def as_json(value):
    """``value`` as JSON reads it back (tuples as lists); floats are written exactly."""
    return json.loads(json.dumps(value))


def play_case(env_id: str, seed: int, steps: int) -> list[dict]:
    """Every step of ``steps`` masked random moves of ``env_id`` from ``reset(seed=seed)``
    (reset again at episode ends): what the env gave, as plain JSON values."""
    env = gym.make(env_id, **KWARGS)
    game = env.unwrapped
    rng = np.random.default_rng(seed)
    sizes = np.cumsum(env.action_space.nvec)[:-1]
    obs, info = env.reset(seed=seed)
    records = [{"reset": True, "obs": pack_obs(obs), "info": info_record(info)}]
    for step in range(steps):
        masks = game.action_masks()
        slots = ([slot_record(s) for s in game.mapper.slots(game.state, game.rules)]
                 if step % SLOTS_EVERY == 0 else None)
        action = [int(rng.choice(np.flatnonzero(m))) for m in np.split(masks, sizes)]
        obs, reward, terminated, truncated, info = env.step(np.array(action, dtype=np.int64))
        records.append({"masks": np.flatnonzero(masks).tolist(), "slots": slots, "action": action,
                        "obs": pack_obs(obs), "reward": float(reward), "terminated": terminated,
                        "truncated": truncated, "info": info_record(info), "state": game.state.to_dict()})
        if terminated or truncated:
            obs, info = env.reset()
            records.append({"reset": True, "obs": pack_obs(obs), "info": info_record(info)})
    env.close()
    return as_json(records)


def main() -> None:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    cases = [{"env": e, "seed": s, "steps": n, "records": play_case(e, s, n)} for e, s, n in CASES]
    atomic_write_text(OUT, json.dumps({"commit": commit, "kwargs": KWARGS, "cases": cases},
                                      separators=(",", ":")) + "\n")
    print(f"{OUT}: {sum(c['steps'] for c in cases)} steps from {commit}")


if __name__ == "__main__":
    main()
