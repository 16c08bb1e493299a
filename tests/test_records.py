"""``poolgym.records.stored``: the instance ``__init__`` would build, whatever the keyword order."""

import pickle

import pytest

from poolgym.envs.candidates import Slot
from poolgym.records import stored
from poolgym.rules import ShotCall


def test_stored_is_the_instance_init_builds_in_any_keyword_order():
    values = dict(kind="pot", call=ShotCall(), ball=3, pocket="foot_left", contact=(0.5, 0.25), cue=(1.0, 0.5),
                  cut_deg=12.5, cue_to_contact=0.4, ball_to_pocket=0.8, cue_blocked=False, ball_blocked=True,
                  visible_angle=0.1, make_probability=0.75)
    built = Slot(**values)
    shuffled = stored(Slot, **dict(reversed(list(values.items()))))
    in_order = stored(Slot, **values)  # the fields in field order: the callers' own path
    for made in (shuffled, in_order):
        assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
        assert pickle.dumps(made) == pickle.dumps(built) and list(vars(made)) == list(vars(built))


def test_stored_refuses_a_missing_or_an_unknown_field():
    values = dict(kind="push_out", call=ShotCall.push(), ball=None, pocket=None, contact=None, cue=None,
                  cut_deg=0.0, cue_to_contact=0.0, ball_to_pocket=0.0, cue_blocked=False, ball_blocked=False,
                  visible_angle=0.0)
    with pytest.raises(TypeError, match="make_probability"):
        stored(Slot, **values)
    with pytest.raises(KeyError, match="make_probability"):
        stored(Slot, **values, colour="red")
