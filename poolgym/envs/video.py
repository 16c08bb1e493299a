"""Recording whole shots to video.

Gymnasium's ``RecordVideo`` takes one frame per ``step`` (``env.render()``; of an
``rgb_array_list`` env's list, the last frame, Gymnasium 1.0 to 1.2). A poolgym step is a
whole shot or more, so that video shows each shot at rest only: a rack of 18 steps is
0.6 s of video. ``RecordEveryFrame`` is ``RecordVideo`` (same arguments, a drop-in
replacement where a training script makes one, as CleanRL's ``capture_video`` does)
recording every frame of every shot, the agent's and the opponent's, in real time at the
environment's ``render_fps``:

- on an ``rgb_array`` env (what CleanRL and SB3 make) it asks the env to keep each move's
  frames while a video is being recorded (``record_shots``), and only then;
  ``render()`` still returns one frame;
- on an ``rgb_array_list`` env it records the lists ``render()`` would return;
- frames are drawn one at a time and streamed to the video file as they are drawn
  (moviepy's ffmpeg writer), so memory stays at a few frames however long the rack; the
  file is written under a temporary name and renamed into place when the video ends;
- ``frame_stride=k`` keeps every k-th frame, played at ``render_fps / k`` so the video
  stays real time (k times fewer frames to draw and encode).

Writing the file needs moviepy: ``pip install "poolgym[video]"``.
"""

from __future__ import annotations

import gc
import itertools
import os
from numbers import Integral

import numpy as np
from gymnasium import logger
from gymnasium.wrappers import RecordVideo


class RecordEveryFrame(RecordVideo):
    """``gymnasium.wrappers.RecordVideo`` (same arguments, plus ``frame_stride``) that
    records every frame of every shot a poolgym env in "rgb_array" or "rgb_array_list"
    mode plays, streaming them to the file (the module docstring).
    ``video_length`` counts frames written, as ``RecordVideo``'s counts frames kept;
    ``frames_written`` is the current video's count. Another env's frames are recorded as
    ``render()`` gives them."""

    def __init__(self, env, video_folder: str, *args, frame_stride: int = 1, **kwargs) -> None:
        if isinstance(frame_stride, bool) or not isinstance(frame_stride, Integral) or frame_stride < 1:
            raise ValueError(f"frame_stride must be a whole number >= 1, got {frame_stride!r}")
        super().__init__(env, video_folder, *args, **kwargs)
        self.frame_stride = int(frame_stride)
        # Every k-th frame, played k times slower: the video keeps the shots' real time.
        self.frames_per_sec = self.frames_per_sec / self.frame_stride
        self.frames_written = 0
        self._frames_seen = 0
        self._writer = None
        self._partial = None
        unwrapped = self.env.unwrapped
        self._keeps_shots = hasattr(unwrapped, "record_shots") and unwrapped.render_mode == "rgb_array"

    def start_recording(self, video_name: str) -> None:
        super().start_recording(video_name)
        if self._keeps_shots:
            self.env.unwrapped.record_shots(True)

    def _new_frames(self):
        """The frames since the last capture: a poolgym env's, one at a time
        (``shot_frames``); another env's ``render()``."""
        if hasattr(self.env.unwrapped, "shot_frames"):
            return self.env.unwrapped.shot_frames()
        frames = self.env.render()
        return frames if isinstance(frames, list) else [frames]

    def _capture_frame(self) -> None:
        assert self.recording, "Cannot capture a frame, recording wasn't started."
        frames = self._new_frames()
        if self._keeps_shots and self._frames_seen == 0:
            # The video starts on the table as it is (its reset came before the recording).
            frames = itertools.chain([self.env.render()], frames)
        for frame in frames:
            if not isinstance(frame, np.ndarray):
                self.stop_recording()
                logger.warn("Recording stopped: render() returned something other than numpy arrays")
                return
            if self._frames_seen % self.frame_stride == 0:
                self._write(frame)
            self._frames_seen += 1

    def _write(self, frame: np.ndarray) -> None:
        if self._writer is None:
            try:
                from moviepy.video.io.ffmpeg_writer import FFMPEG_VideoWriter
            except ImportError as exc:
                raise ImportError('RecordEveryFrame writes videos with moviepy: pip install "poolgym[video]"') \
                    from exc
            # A temporary name in the same folder, renamed into place when the video ends.
            self._partial = os.path.join(self.video_folder, f".{self._video_name}.partial.mp4")
            height, width = frame.shape[:2]
            self._writer = FFMPEG_VideoWriter(self._partial, (width, height), self.frames_per_sec)
        self._writer.write_frame(frame)
        self.frames_written += 1

    def step(self, action):
        result = super().step(action)
        if self.recording and self.frames_written > self.video_length:
            self.stop_recording()
        return result

    def stop_recording(self) -> None:
        """End the current video: close the stream and move the file into place."""
        assert self.recording, "stop_recording was called, but no recording was started"
        if self._keeps_shots:
            self.env.unwrapped.record_shots(False)
        if self._writer is None:
            logger.warn("Ignored saving a video as there were zero frames to save.")
        else:
            self._writer.close()
            os.replace(self._partial, os.path.join(self.video_folder, f"{self._video_name}.mp4"))
        self._writer = self._partial = None
        self.frames_written = self._frames_seen = 0
        self.recorded_frames = []
        self.recording = False
        self._video_name = None
        if self.gc_trigger and self.gc_trigger(self.episode_id):
            gc.collect()
