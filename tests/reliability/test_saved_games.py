"""Saved games: record, save, load and replay bit for bit, in every game, with noise on."""

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import asdict, replace
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from poolgym.envs.actions import ActionMapper, ShotMove
from poolgym.physics import Noise
from poolgym.saved_game import VERSION, RecordGame, ReplayMismatch, SavedGameError, load, replay

from .helpers import env_ids, random_actions

GAME_IDS = env_ids(games_only=True)
DATA = Path(__file__).resolve().parent / "data"
MAX_STEPS = 30


def play(env, seed=None, steps=MAX_STEPS, action_seed=0):
    """Random moves for up to ``steps`` steps; the last state."""
    env.reset(seed=seed)
    actions = random_actions(env.action_space, action_seed)
    for _ in range(steps):
        *_, terminated, truncated, _ = env.step(next(actions))
        if terminated or truncated:
            break
    return env.unwrapped.state


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A noisy nine-ball game saved to a file: (path, the recorder)."""
    env = RecordGame(gym.make("poolgym/NineBall-v0", noise="tournament", race_to=2))
    play(env, seed=4, steps=12)
    path = tmp_path_factory.mktemp("games") / "nine_ball.json"
    env.save(path)
    return path, env


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_save_load_replay_is_bit_identical_with_tournament_noise(env_id, tmp_path):
    env = RecordGame(gym.make(env_id, noise="tournament"))
    last = play(env, seed=21)
    saved = env.saved_game
    assert saved.moves and saved.config["noise"]["speed"] == 0.075
    assert saved.moves[-1].state == last
    path = tmp_path / "game.json"
    env.save(path)
    loaded = load(path)
    assert loaded == saved  # exact floats survive the JSON round trip
    steps = replay(path)
    assert [s.state for s in steps] == [m.state for m in saved.moves]
    assert [s.outcome for s in steps] == [m.outcome for m in saved.moves]
    assert [s.shot for s in steps] == [m.shot for m in saved.moves]
    # the noise is in the executed shots: the same actions without noise strike differently
    quiet = replace(saved, config={**saved.config, "noise": asdict(Noise())})
    assert replay(quiet, check=False)[0].shot != saved.moves[0].shot


def test_a_game_reset_without_a_seed_replays_from_the_generator_state(tmp_path):
    env = RecordGame(gym.make("poolgym/TenBall-v0", noise="tournament"))
    play(env, seed=1, steps=2)
    play(env, seed=None, steps=4, action_seed=1)  # continues the generator, no new seed
    saved = env.saved_game
    assert saved.seed is None and saved.rng_state["bit_generator"] == "PCG64"
    env.save(tmp_path / "g.json")
    assert [s.state for s in replay(tmp_path / "g.json")] == [m.state for m in saved.moves]


def test_a_policy_opponent_is_recorded_move_by_move(tmp_path):
    policy_rng = np.random.default_rng(3)

    def opponent(obs, info):
        return policy_rng.uniform(-1, 1, 8).astype(np.float32)

    env = RecordGame(gym.make("poolgym/EightBall-v0", opponent=opponent))
    play(env, seed=2, steps=10)
    assert env.saved_game.config["opponent"] == "policy"
    assert {m.player for m in env.saved_game.moves} == {0, 1}
    env.save(tmp_path / "g.json")
    assert len(replay(tmp_path / "g.json")) == len(env.saved_game.moves)


def test_the_replay_also_gives_the_decisions(recorded):
    _, env = recorded
    kinds = {("shot" if m.outcome else "decision") for m in env.saved_game.moves}
    assert "shot" in kinds
    assert all((m.decision is None) == (m.outcome is not None) for m in env.saved_game.moves)


def test_a_tampered_outcome_or_state_is_caught_by_the_replay(recorded, tmp_path):
    path, _ = recorded
    data = json.loads(path.read_text())
    data["moves"][1]["outcome"]["fouls"] = []
    data["moves"][1]["outcome"]["legal"] = not data["moves"][1]["outcome"]["legal"]
    (tmp_path / "a.json").write_text(json.dumps(data))
    with pytest.raises(ReplayMismatch, match=r"move 1 \(player \d\): the outcome differs"):
        replay(tmp_path / "a.json")
    data = json.loads(path.read_text())
    ball = data["moves"][0]["state"]["balls"][-1]
    ball[1] += 1e-12  # a last-digit change in one coordinate
    (tmp_path / "b.json").write_text(json.dumps(data))
    with pytest.raises(ReplayMismatch, match="move 0 .* the state differs"):
        replay(tmp_path / "b.json")
    assert len(replay(tmp_path / "b.json", check=False)) == len(data["moves"])


def _corrupt(data, edit):
    edit(data)
    return data


def _set(path, value):
    def edit(data):
        *keys, last = path
        for k in keys:
            data = data[k]
        if value is KeyError:
            del data[last]
        else:
            data[last] = value
    return edit


CORRUPTIONS = [
    (_set(["format"], "chess.pgn"), "not a saved game"),
    (_set(["version"], 99), "unsupported saved-game version 99"),
    (_set(["moves"], KeyError), r"missing keys \['moves'\]"),
    (_set(["colour"], "red"), r"unknown keys \['colour'\]"),
    (_set(["config", "game"], "snooker"), "config: unknown ruleset 'snooker'"),
    (_set(["config", "volume"], 11), r"config has unknown keys \['volume'\]"),
    (_set(["config", "race_to"], KeyError), r"config is missing keys \['race_to'\]"),
    (_set(["config", "table", "length"], "long"), "Table.length must be a positive finite number"),
    (_set(["config", "noise", "speed"], -1), "Noise.speed must be a finite standard deviation"),
    (_set(["config", "rule_options", "alternate_breaks"], "yes"), "alternate_breaks must be a bool"),
    (_set(["config", "opponent"], "shark"), "config.opponent must be one of"),
    (_set(["seed"], -3), "seed must be a whole number"),
    (_set(["seed"], None), "needs rng_state"),
    (_set(["initial_state", "balls"], "racked"), "initial_state: GameState field 'balls'"),
    (_set(["initial_state", "balls", 1, 0], 42), "initial_state: not a possible nine_ball position"),
    (lambda d: d["initial_state"]["balls"][1].__setitem__(slice(1, 3), d["initial_state"]["balls"][0][1:]),
     "initial_state: not a possible nine_ball position: balls 1 and 2 overlap"),
    (_set(["initial_state", "game"], KeyError), "initial_state: GameState field 'game' is missing"),
    (_set(["moves"], {}), "moves must be a list"),
    (_set(["moves", 0, "player"], 2), r"moves\[0\].player must be 0 or 1"),
    (_set(["moves", 0, "action"], [0.0, 0.0]), r"moves\[0\].action must be a list of 8 numbers"),
    (_set(["moves", 0, "action", 0], float("nan")), r"moves\[0\].action must be a list"),
    (_set(["moves", 0, "action", 0], 1.5), r"moves\[0\].action: action components must lie in \[-1, 1\]; "
                                           r"out of range: \{'aim': 1.5\}"),
    (_set(["moves", 0, "shot"], {"speed": 1.0}), r"moves\[0\].shot must be null or an object"),
    (_set(["moves", 0, "shot", "elevation_deg"], KeyError), r"moves\[0\].shot must be null or an object of the "
                                                            r"numbers \[.*'elevation_deg'\]"),
    (_set(["moves", 0, "shot", "elevation_deg"], 95.0),
     r"moves\[0\].shot: Shot.elevation_deg must be in \[0, 80.0\] degrees .*got 95.0"),
    (_set(["moves", 0, "shot", "elevation_deg"], -1e-9), r"moves\[0\].shot: Shot.elevation_deg must be in \[0, 80.0\]"),
    (_set(["moves", 0, "shot", "elevation_deg"], "high"), r"moves\[0\].shot must be null or an object"),
    (_set(["moves", 0, "shot", "elevation_deg"], float("inf")), r"moves\[0\].shot must be null or an object"),
    (_set(["moves", 0, "shot", "speed"], 99.0), r"moves\[0\].shot: Shot.speed must be in \(0, 15.0\] m/s"),
    (lambda d: d["moves"][0]["shot"].update(side=0.8, vertical=0.8),
     r"moves\[0\].shot: Shot.side and Shot.vertical must satisfy"),
    (_set(["moves", 0, "state", "shooter"], 7), r"moves\[0\].state: shooter must be player 0 or 1"),
    (_set(["moves", 1, "outcome"], "foul"), r"moves\[1\].outcome must be an object"),
    # hostile values: integers past the float range, degenerate tables, broken generator states
    (_set(["config", "table", "corner_jaw_length"], 1e-300), r"config: Table.corner_jaw_length must be in \(0.005"),
    (_set(["config", "table", "length"], 10 ** 400), "config: Table.length must be a positive finite number, "
                                                     "got an integer of about 401 digits"),
    (_set(["config", "noise", "speed"], 1e308), "config: Noise.speed must be a finite standard deviation"),
    (_set(["moves", 0, "action", 0], 10 ** 400), r"moves\[0\].action must be a list of 8 numbers"),
    (_set(["moves", 0, "shot", "speed"], -10 ** 400), r"moves\[0\].shot must be null or an object"),
    (_set(["initial_state", "balls", 1, 1], 10 ** 400), "initial_state: GameState field 'balls' must be"),
    (_set(["seed"], 2 ** 4096), r"seed must be a whole number in \[0, 2\*\*4096\) or null"),
    (lambda d: d.update(seed=None, rng_state={"bit_generator": "PCG64", "state": {"state": 1, "inc": 1}}),
     r"rng_state is not a PCG64 state \(KeyError: has_uint32\)"),
    (lambda d: d.update(seed=None, rng_state={"bit_generator": "MT19937", "state": {}}), "needs rng_state"),
    (lambda d: d["moves"][0]["state"].update(winner=0, stalemate=True),
     r"moves\[0\].state: a rack is won \(winner 0\) or a stalemate, not both"),
    (_set(["moves", 0, "state", "inning"], -1), r"moves\[0\].state: inning must be at least 1"),
]


@pytest.mark.parametrize("edit, message", CORRUPTIONS)
def test_corrupt_saved_games_are_rejected_naming_the_entry(recorded, tmp_path, edit, message):
    path, _ = recorded
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_corrupt(json.loads(path.read_text()), edit)))
    with pytest.raises(SavedGameError, match=message) as err:
        load(bad)
    assert str(bad) in str(err.value)


@pytest.mark.parametrize("text, message", [
    ("", "not valid JSON"), ('{"format": "poolgym.saved_game", "moves": [', "not valid JSON"),
    ("[1, 2, 3]", "not a saved game"), ("\xff\xfe", "not valid JSON"),
])
def test_unreadable_files_are_rejected(tmp_path, text, message):
    bad = tmp_path / "bad.json"
    bad.write_bytes(text.encode("latin-1"))
    with pytest.raises(SavedGameError, match=message):
        load(bad)


@pytest.mark.parametrize("text, message", [
    ("[" * 100_000 + "]" * 100_000, r"not a saved game \(its JSON is nested too deeply\)"),
    ('{"format": "poolgym.saved_game", "version": ' + "9" * 5000 + "}", "not valid JSON: Exceeds the limit"),
])
def test_hostile_json_is_a_saved_game_error(tmp_path, text, message):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(SavedGameError, match=message) as err:
        load(bad)
    assert str(bad) in str(err.value) and len(str(err.value)) < 600


def test_a_file_past_the_size_limit_is_refused_unread(tmp_path, monkeypatch):
    import poolgym.saved_game

    monkeypatch.setattr(poolgym.saved_game, "MAX_BYTES", 100)
    bad = tmp_path / "big.json"
    bad.write_text(" " * 101)
    with pytest.raises(SavedGameError, match=r"big.json: cannot read the saved game: larger than 100 bytes \(at most 100 are read\)"):
        load(bad)


def test_a_validated_rng_state_replays(recorded, tmp_path):
    """A game recorded from an unseeded reset keeps the generator state, which load checks
    by building the generator; the replay then runs."""
    env = RecordGame(gym.make("poolgym/NineBall-v0"))
    env.unwrapped.np_random = np.random.default_rng(12)
    play(env, seed=None, steps=3)
    path = tmp_path / "unseeded.json"
    env.save(path)
    assert load(path).rng_state["bit_generator"] == "PCG64"
    assert len(replay(path)) == len(env.saved_game.moves)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(SavedGameError, match="no-such.json: cannot read"):
        load(tmp_path / "no-such.json")


def test_recording_needs_a_game_env_and_a_reset():
    with pytest.raises(ValueError, match="RecordGame records PoolEnv games, not PotBallEnv"):
        RecordGame(gym.make("poolgym/PotBall-v0"))
    with pytest.raises(ValueError, match="call reset"):
        RecordGame(gym.make("poolgym/NineBall-v0")).saved_game


_REPLAY = """
import hashlib, sys
from poolgym.saved_game import replay
steps = replay(sys.argv[1])
print(hashlib.sha256("".join(s.state.to_json() for s in steps).encode()).hexdigest(), len(steps))
"""


def test_a_saved_game_replays_identically_in_new_processes(recorded):
    path, env = recorded
    here = hashlib.sha256("".join(m.state.to_json() for m in env.saved_game.moves).encode()).hexdigest()
    runs = [subprocess.run([sys.executable, "-c", _REPLAY, str(path)], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
            for seed in (1, 2)]
    assert runs[0] == runs[1] == f"{here} {len(env.saved_game.moves)}\n"


# ---------------------------------------------------------------- the cue's elevation
def test_shots_are_saved_with_their_elevation(recorded):
    path, env = recorded
    data = json.loads(path.read_text())
    assert data["version"] == VERSION == 4
    shots = [m["shot"] for m in data["moves"] if m["shot"] is not None]
    assert shots and all(shot["elevation_deg"] == 0.0 for shot in shots)
    assert load(path) == env.saved_game


def test_a_version_2_game_loads_level_and_replays_exactly(tmp_path):
    """A game saved before the cue could be raised: its shots have no elevation, load
    level, and the replay reproduces every shot, outcome and state."""
    path = DATA / "nine_ball_v2.json"
    data = json.loads(path.read_text())
    assert data["version"] == 2 and all("elevation_deg" not in m["shot"] for m in data["moves"] if m["shot"])
    saved = load(path)
    assert all(m.shot["elevation_deg"] == 0.0 for m in saved.moves if m.shot is not None)
    steps = replay(saved)
    assert [s.state for s in steps] == [m.state for m in saved.moves]
    # A version-2 shot holds the four numbers of a level stroke, no more.
    data["moves"][0]["shot"]["elevation_deg"] = 30.0
    (tmp_path / "v2.json").write_text(json.dumps(data))
    with pytest.raises(SavedGameError, match=r"moves\[0\].shot must be null or an object of the numbers "
                                             r"\['speed', 'angle_deg', 'side', 'vertical'\]"):
        load(tmp_path / "v2.json")


ELEVATION_DEG = 55.0


@pytest.fixture
def raised_cue(monkeypatch):
    """Every stroke the envs decode is played with the cue raised ``ELEVATION_DEG``: the
    action spaces have no elevation, so the test raises it where actions become shots."""
    decode = ActionMapper.decode

    def raised(self, action, state, rules):
        move = decode(self, action, state, rules)
        if isinstance(move, ShotMove):
            move = replace(move, shot=replace(move.shot, elevation_deg=ELEVATION_DEG))
        return move

    monkeypatch.setattr(ActionMapper, "decode", raised)


def test_a_game_of_elevated_shots_saves_and_replays_exactly(raised_cue, monkeypatch, tmp_path):
    env = RecordGame(gym.make("poolgym/NineBall-v1", noise="tournament"))
    play(env, seed=11, steps=6)
    saved = env.saved_game
    shots = [m.shot for m in saved.moves if m.shot is not None]
    assert shots and all(shot["elevation_deg"] == ELEVATION_DEG for shot in shots)
    env.save(tmp_path / "raised.json")
    assert load(tmp_path / "raised.json") == saved
    steps = replay(tmp_path / "raised.json")  # raises ReplayMismatch on any difference
    assert [s.shot for s in steps] == [m.shot for m in saved.moves]
    assert [s.state for s in steps] == [m.state for m in saved.moves]
    # The elevation is played, not only recorded: the same actions struck level end elsewhere.
    monkeypatch.undo()
    level = replay(tmp_path / "raised.json", check=False)
    assert level[0].shot == {**saved.moves[0].shot, "elevation_deg": 0.0}
    assert level[0].state != saved.moves[0].state
