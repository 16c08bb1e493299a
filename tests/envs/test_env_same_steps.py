"""The choice_discrete envs step exactly as the recording commit's envs did
(``data/record_env_steps.py`` wrote ``data/env_steps.json``): the same seeded episodes give
the same observations (every float32 bit), action masks, candidate slots (every float),
rewards, infos and states, step by step."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"
_spec = importlib.util.spec_from_file_location("record_env_steps", DATA / "record_env_steps.py")
record_env_steps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record_env_steps)
RECORDED = json.loads((DATA / "env_steps.json").read_text())


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda c: c["env"].split("/")[1])
def test_env_steps_equal_the_recorded_ones(case):
    played = record_env_steps.play_case(case["env"], case["seed"], case["steps"])
    recorded = case["records"]
    assert len(played) == len(recorded)
    for k, (got, want) in enumerate(zip(played, recorded)):
        np.testing.assert_array_equal(record_env_steps.unpack_obs(got.pop("obs")),
                                      record_env_steps.unpack_obs(want["obs"]), err_msg=f"record {k}: obs")
        for key in want:
            if key != "obs":
                assert got[key] == want[key], f"record {k}: {key} differs from the recorded one"
        assert set(got) == set(want) - {"obs"}


def test_the_recorded_episodes_cover_the_cases_that_matter():
    records = [r for case in RECORDED["cases"] for r in case["records"] if not r.get("reset")]
    kinds = {s[0] for r in records for s in r["slots"] or () if s is not None}
    assert kinds >= {"pot", "safety"}
    assert any(r["state"]["cue_ball_in_hand"] != "none" for r in records)
    assert any(r["terminated"] for r in records)
    assert any(r["info"]["reward_terms"]["legal_pot"] > 0 for r in records)
    assert any(o["fouls"] for r in records for o in r["info"]["outcomes"])
