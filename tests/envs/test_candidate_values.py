"""The choice modes' candidate slots keep their values: every field of every slot, on states
of seeded 9-ball, 8-ball and 14.1 episodes, equals what the code at commit dc398ea computed
(recorded in ``data/candidate_slots_dc398ea.json`` by playing masked random moves, every
third state kept)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from poolgym.envs import candidates as cand
from poolgym.rules import GameState, get_ruleset

DATA = json.loads((Path(__file__).parent / "data" / "candidate_slots_dc398ea.json").read_text())


def _record(slot):
    """A slot as the data file holds it (JSON: tuples as lists)."""
    if slot is None:
        return None
    fields = [slot.kind, slot.ball, slot.pocket, slot.contact, slot.cue, slot.cut_deg, slot.cue_to_contact,
              slot.ball_to_pocket, slot.cue_blocked, slot.ball_blocked, slot.visible_angle,
              slot.make_probability, repr(slot.call)]
    return json.loads(json.dumps(fields))


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["game"])
def test_candidate_slots_equal_the_recorded_ones(case):
    state = GameState.from_dict(case["state"])
    slots = cand.candidate_slots(state, get_ruleset(case["game"]), case["sigma_deg"])
    assert [_record(s) for s in slots] == case["slots"]


def test_the_recorded_states_cover_pots_safeties_and_ball_in_hand():
    kinds = {s[0] for case in DATA["cases"] for s in case["slots"] if s is not None}
    assert kinds >= {"pot", "safety"}
    assert any(case["state"]["cue_ball_in_hand"] != "none" for case in DATA["cases"])
    assert {case["game"] for case in DATA["cases"]} == {"nine_ball", "eight_ball", "straight_pool"}
