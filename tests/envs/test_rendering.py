"""Rendering through the environments, in Gymnasium's conventions: human mode draws in
``step``, ``rgb_array_list`` returns every frame of every shot (both players'), videos hold
whole shots, frames carry the status, and their size is the one asked for."""

import time

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("pygame")

import poolgym  # noqa: E402,F401
from poolgym.envs import PoolEnv, PotBallEnv, RecordEveryFrame  # noqa: E402
from poolgym.render import colors, shot_frame_count, table_to_pixel  # noqa: E402
from poolgym.render.geometry import in_hand_spot  # noqa: E402

from .helpers import Recorder, raw_action, straight_in  # noqa: E402
from .test_games_through_env import _set  # noqa: E402

SMALL = 160  # pixels wide: enough to check, quick to draw and encode


def _frames_of(records, fps: float) -> int:
    """The frames the moves ``records`` draw: each shot as it rolls plus a frame at rest;
    one frame for a decision or a shot from a placement that could not be struck."""
    return sum(shot_frame_count(r.result.duration, fps) if r.result is not None else 1 for r in records)


def _scratch_then_soft_reply(**kwargs):
    """A game env where the agent's next shot scratches in the foot-left corner and the
    opponent then plays a soft stroke from hand: two short shots in one step."""
    env = PoolEnv(opponent=Recorder(raw_action(PoolEnv().mapper, 90.0, 0.5)), **kwargs)
    env.reset(seed=0)
    t = env.table
    _set(env, {0: (t.length - 0.5, t.ball_radius + 0.001), 1: (0.6, 0.9), 9: (0.4, 0.9)})
    records = []
    env.move_listeners.append(records.append)
    return env, raw_action(env.mapper, 0.0, 2.0), records


def test_human_mode_draws_every_shot_of_the_step_inside_step_paced_by_render_fps(monkeypatch):
    import pygame

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    fps = 20
    env, scratch, records = _scratch_then_soft_reply(render_mode="human", width=SMALL, render_fps=fps)
    try:
        window = env._window
        assert window is not None and window.frames_shown == 1  # reset drew the rack
        assert window.fps == env.metadata["render_fps"] == fps
        before = pygame.surfarray.array3d(pygame.display.get_surface()).copy()
        start = time.perf_counter()
        env.step(scratch)
        elapsed = time.perf_counter() - start
        assert [r.player for r in records] == [0, 1]  # the agent's shot and the opponent's reply
        drawn = window.frames_shown - 1
        assert drawn == _frames_of(records, fps) > 2
        after = pygame.surfarray.array3d(pygame.display.get_surface())
        assert not np.array_equal(before, after)
        # Paced by the clock: at most render_fps frames a second (a lower bound only).
        assert elapsed >= 0.8 * (drawn - 1) / fps
        assert env.render() is None
    finally:
        env.close()


def test_rgb_array_list_returns_the_frames_since_the_last_render_or_reset():
    fps = 15
    env = gym.make("poolgym/NineBall-v0", render_mode="rgb_array_list", width=SMALL, render_fps=fps)
    records = []
    env.unwrapped.move_listeners.append(records.append)
    env.reset(seed=1)
    first = env.render()
    assert isinstance(first, list) and len(first) == 1  # the rack, the agent to break
    assert env.render() == []
    env.step(env.action_space.sample())
    frames = env.render()
    assert {r.player for r in records} == {0, 1}  # the opponent replied within the step
    assert len(frames) == _frames_of(records, fps)
    assert all(f.dtype == np.uint8 and f.shape == first[0].shape for f in frames)
    assert first[0].shape[1] == SMALL
    env.close()


def test_a_video_of_a_whole_nine_ball_episode_holds_every_frame_of_every_shot(tmp_path):
    """``RecordEveryFrame`` writes each shot in full, the agent's and the opponent's, where
    Gymnasium's ``RecordVideo`` keeps one frame a step."""
    moviepy = pytest.importorskip("moviepy")

    def play(wrapper, folder):
        env = gym.make("poolgym/NineBall-v1", render_mode="rgb_array_list", width=SMALL)
        records = []
        env.unwrapped.move_listeners.append(records.append)
        env = wrapper(env, str(folder), episode_trigger=lambda episode: episode == 0)
        env.reset(seed=3)
        env.action_space.seed(3)
        steps, over = 0, False
        while not over:
            *_, terminated, truncated, _ = env.step(env.action_space.sample())
            steps += 1
            over = terminated or truncated
        recorded = env.frames_written if isinstance(env, RecordEveryFrame) else len(env.recorded_frames)
        env.close()
        (video,) = folder.glob("*.mp4")
        clip = moviepy.VideoFileClip(str(video))
        try:
            count = sum(1 for _ in clip.iter_frames())
            return records, steps, recorded, count, clip.fps
        finally:
            clip.close()

    records, steps, recorded, count, video_fps = play(RecordEveryFrame, tmp_path / "every")
    fps = gym.make("poolgym/NineBall-v1").unwrapped.metadata["render_fps"]
    assert video_fps == fps
    assert {r.player for r in records} == {0, 1} and records[-1].outcome.rack_over
    # The rack as it starts, then every shot frame by frame: real time at render_fps.
    assert count == recorded == 1 + _frames_of(records, fps)
    assert count >= sum(r.result.duration for r in records if r.result is not None) * fps
    _, plain_steps, plain_recorded, _, _ = play(gym.wrappers.RecordVideo, tmp_path / "plain")
    assert plain_steps == steps and plain_recorded == steps + 1 < count


def test_recording_an_rgb_array_env_streams_every_frame_and_a_stride_keeps_every_kth(tmp_path):
    """CleanRL's path (RecordVideo's arguments on an ``rgb_array`` env): the frames of an
    ``rgb_array_list`` env, streamed to the file as drawn, so memory stays at a few frames."""
    import tracemalloc

    pytest.importorskip("moviepy")

    def record(render_mode, stride=1, steps=3):
        env = RecordEveryFrame(gym.make("poolgym/NineBall-v1", render_mode=render_mode, width=320),
                               str(tmp_path / f"{render_mode}{stride}"), frame_stride=stride)
        env.reset(seed=3)
        env.action_space.seed(3)
        tracemalloc.start()
        written = 0
        for _ in range(steps):
            env.step(env.action_space.sample())
            written = max(written, env.frames_written)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        width, height = env.unwrapped._frame_painter().size
        frame_bytes, fps = width * height * 3, env.frames_per_sec
        env.close()
        assert len(list((tmp_path / f"{render_mode}{stride}").glob("*.mp4"))) == 1
        assert not list((tmp_path / f"{render_mode}{stride}").glob(".*"))  # no temporary file left
        return written, peak, frame_bytes, fps

    written, peak, frame_bytes, fps = record("rgb_array")
    assert written == record("rgb_array_list")[0] > 60  # every frame of the shots, not one a step
    assert peak < 30 * frame_bytes  # frames are not held in memory (RecordVideo keeps them all)
    strided, _, _, strided_fps = record("rgb_array", stride=5)
    assert abs(strided - written / 5) <= 3 and strided_fps == fps / 5  # still real time
    with pytest.raises(ValueError, match="frame_stride must be a whole number >= 1"):
        RecordEveryFrame(gym.make("poolgym/PotBall-v1", render_mode="rgb_array"), str(tmp_path), frame_stride=0)


def test_the_status_names_the_shooter_the_score_and_the_verdict_and_a_ball_in_hand_is_drawn():
    env, scratch, _ = _scratch_then_soft_reply(render_mode="rgb_array", race_to=3)
    env.play_move(scratch)  # the agent's shot alone
    game, verdict = env.render_status()
    assert game == "opponent to shoot | racks 0-0 (race to 3) | fouls in a row 1-0 | ball in hand (anywhere)"
    assert verdict.startswith("last: agent shot | FOUL 6.1")
    frame = env.render()
    spot = in_hand_spot(env.table, env.state.positions)
    col, row = table_to_pixel(env.table, spot, frame.shape[1])
    assert tuple(int(v) for v in frame[row, col]) not in (colors.CLOTH, colors.HEAD_STRING, colors.CUE_BALL)
    assert 0 not in env.state.positions

    # The agent pots the 9, the last ball: it wins the rack, the next one is racked.
    cb, ob, angle = straight_in(env.table)
    _set(env, {0: cb, 9: ob}, shooter=0)
    env.play_move(raw_action(env.mapper, angle, 2.0, vertical=-0.3))
    game, verdict = env.render_status()
    assert verdict == "last: agent shot | pocketed 9 | agent wins the rack"
    assert "to break | racks 1-0 (race to 3) | fouls in a row 0-0 | ball in hand (kitchen)" in game


@pytest.mark.parametrize("factory", [PoolEnv, PotBallEnv])
def test_width_and_height_size_the_frames_and_bad_sizes_are_refused(factory):
    env = factory(render_mode="rgb_array", width=320, height=240)
    env.reset(seed=0)
    assert env.render().shape == (240, 320, 3)
    wide = factory(render_mode="rgb_array", width=400)
    wide.reset(seed=0)
    frame = wide.render()
    assert frame.shape[1] == 400 and 0.5 < frame.shape[0] / 400 < 0.8  # the table's proportions and the bar
    for kwargs, message in ((dict(width=100), "width must be a whole number from 160 to 3840, got 100"),
                            (dict(width=320.5), "width must be"), (dict(width=True), "width must be"),
                            (dict(height=5000), "height must be None or a whole number from 120 to 2160"),
                            (dict(render_fps=0), "render_fps must be a whole number from 1 to 240"),
                            (dict(render_mode="rgb_arrays"), "render_mode must be one of")):
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            factory(**{"render_mode": "rgb_array", **kwargs})


def test_gym_make_takes_the_frame_size_and_frame_rate():
    env = gym.make("poolgym/NineBall-v1", render_mode="rgb_array", width=240, height=200, render_fps=12)
    env.reset(seed=0)
    assert env.render().shape == (200, 240, 3)
    assert env.metadata["render_fps"] == 12
    assert gym.make("poolgym/NineBall-v1").metadata["render_fps"] == PoolEnv.metadata["render_fps"]


def test_the_pot_ball_drill_animates_its_shot_with_the_target_ringed():
    fps = 10
    env = PotBallEnv(render_mode="rgb_array_list", width=SMALL, render_fps=fps, n_balls=1)
    env.reset(seed=2)
    assert len(env.render()) == 1
    *_, info = env.step(env.action_space.sample())
    frames = env.render()
    assert len(frames) == shot_frame_count(env.last_shot.duration, fps)
    game, verdict = env.render_status()
    assert game == f"pot ball {env.target} in any pocket"
    assert verdict in (f"potted the {env.target}", "missed", "scratch: the cue ball dropped")
    assert verdict == ("scratch: the cue ball dropped" if info["scratched"]
                       else f"potted the {env.target}" if info["potted"] else "missed")


def test_the_pettingzoo_env_draws_each_players_shots():
    pytest.importorskip("pettingzoo")
    from poolgym.envs.aec import raw_env

    fps = 10
    env = raw_env(render_mode="rgb_array_list", width=SMALL, render_fps=fps)
    env.reset(seed=0)
    assert len(env.render()) == 1
    expected = 0
    for _ in range(4):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        env.step(env.action_space(agent).sample())
        shot = "outcome" in env.infos[agent] and env._last_result is not None
        expected += shot_frame_count(env._last_result.duration, fps) if shot else 1
    assert len(env.render()) == expected > 4  # the shots are animated
    assert "player_" in env.render_status()[0]
    still = raw_env(render_mode="rgb_array", width=SMALL)
    still.reset(seed=0)
    assert still.render().shape[1] == SMALL
    with pytest.raises(ValueError, match="width must be a whole number from 160 to 3840, got 10"):
        raw_env(width=10)


@pytest.mark.parametrize("env_id", ["poolgym/PotBall-v1", "poolgym/NineBallSolo-v1"])
def test_gymnasium_check_env_passes_its_render_checks_in_every_mode(env_id, monkeypatch):
    """``check_env`` renders a fresh env in each declared mode (human included, headless)."""
    import warnings

    from gymnasium.utils.env_checker import check_env

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gym.make(env_id, width=SMALL, render_fps=240).unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)
