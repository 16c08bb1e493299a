"""The bot's search chooses exactly the moves recorded from the reference commit's search
(``data/record_bot_moves.py`` wrote ``data/bot_moves.json``): the same seeded racks, the
same moves to the last bit of every stroke parameter."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
_spec = importlib.util.spec_from_file_location("record_bot_moves", DATA / "record_bot_moves.py")
record_bot_moves = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record_bot_moves)
RECORDED = json.loads((DATA / "bot_moves.json").read_text())


@pytest.mark.parametrize("case", RECORDED["cases"],
                         ids=lambda c: f"{c['game']}-{c['level']}-{c['noise']}-{c['seed']}")
def test_bot_plays_the_recorded_moves(case):
    played = record_bot_moves.play_case(case["game"], case["level"], case["noise"], case["seed"], case["racks"])
    recorded = case["moves"]
    for k, (got, want) in enumerate(zip(played, recorded)):
        assert got == want, f"move {k} differs from the recorded one"
    assert len(played) == len(recorded)
