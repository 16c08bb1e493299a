"""Recording whole shots to video.

Gymnasium's ``RecordVideo`` takes one frame per ``step``: given an ``rgb_array_list``
environment's list, it keeps only the list's last frame (``RecordVideo._capture_frame``,
Gymnasium 1.0 to 1.2). A poolgym step is a whole shot or more, so that video would show
each shot at rest only. ``RecordEveryFrame`` is ``RecordVideo`` keeping every frame of the
list instead: the video replays each shot, the agent's and the opponent's, in real time
at the environment's ``render_fps``.

Writing the file needs moviepy: ``pip install "poolgym[video]"``.
"""

from __future__ import annotations

import numpy as np
from gymnasium import logger
from gymnasium.wrappers import RecordVideo


class RecordEveryFrame(RecordVideo):
    """``gymnasium.wrappers.RecordVideo`` (same arguments) that records every frame an
    ``rgb_array_list`` environment draws, e.g. ``gym.make("poolgym/NineBall-v1",
    render_mode="rgb_array_list")``; with an ``rgb_array`` environment it records as
    ``RecordVideo`` does, one frame per step."""

    def _capture_frame(self):
        assert self.recording, "Cannot capture a frame, recording wasn't started."
        frames = self.env.render()
        frames = frames if isinstance(frames, list) else [frames]
        if not all(isinstance(frame, np.ndarray) for frame in frames):
            self.stop_recording()
            logger.warn("Recording stopped: render() returned something other than numpy arrays")
            return
        self.recorded_frames.extend(frames)
