"""The human window stops at once: its close button (a QUIT event) ends the drawing, and
SIGTERM ends a process that renders, as it does one that does not."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

pygame = pytest.importorskip("pygame")

from poolgym.envs.pool_env import PoolEnv  # noqa: E402
from poolgym.render import HumanWindow  # noqa: E402

FRAME = np.zeros((120, 160, 3), np.uint8)


@pytest.fixture
def headless(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def _close_button():
    pygame.event.post(pygame.event.Event(pygame.QUIT))


def test_a_quit_event_closes_the_window_and_stops_its_frames(headless):
    window = HumanWindow(fps=None)
    try:
        assert window.show(FRAME) and window.is_open
        _close_button()
        assert window.show(FRAME) is False
        assert not window.is_open and window.closed_by_user and window.frames_shown == 1
        assert window.show(FRAME) is False and window.frames_shown == 1  # stays closed
        window.reopen()
        assert window.show(FRAME) and window.is_open and window.frames_shown == 2
    finally:
        window.close()


def test_closing_the_window_ends_the_episodes_drawing_at_once(headless):
    env = PoolEnv(game="nine_ball", opponent="legal-random", render_mode="human", width=160, render_fps=240)
    try:
        env.reset(seed=0)
        window = env._window
        shown = window.frames_shown
        assert shown >= 1
        _close_button()
        # The break rolls for seconds: at 240 fps, hundreds of frames; none is drawn now.
        start = time.perf_counter()
        env.step(np.array([0.0, 1.0, 0, 0, -0.5, 0, 0, 0], np.float32))
        assert window.frames_shown == shown and not window.is_open
        assert time.perf_counter() - start < 5.0
        env.reset(seed=1)  # a new episode opens a new window
        assert window.is_open and window.frames_shown > shown
    finally:
        env.close()


def test_sigterm_ends_a_process_that_renders_in_a_loop(tmp_path):
    script = tmp_path / "render_loop.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy as np
        from poolgym.envs.pool_env import PoolEnv

        env = PoolEnv(game="nine_ball", opponent="legal-random", render_mode="human", width=160, render_fps=30)
        env.reset(seed=0)
        print("rendering", flush=True)
        rng = np.random.default_rng(0)
        while True:
            *_, terminated, truncated, _ = env.step(rng.uniform(-1, 1, 8).astype(np.float32))
            if terminated or truncated:
                env.reset()
    """))
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy"}
    env.pop("SDL_NO_SIGNAL_HANDLERS", None)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, text=True)
    try:
        assert proc.stdout.readline().strip() == "rendering"
        time.sleep(0.5)  # inside the loop, drawing
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)  # the loop never ends by itself
        assert proc.returncode == -signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_closing_the_play_window_stops_the_rack(headless, monkeypatch):
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.tools import watch
    from poolgym.physics import Simulator
    from poolgym.rules import get_ruleset

    windows = []

    class ClosedAfterThreeFrames(HumanWindow):
        """The user closes the window once three frames are shown."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            windows.append(self)

        def show(self, frame):
            if self.frames_shown == 3:
                _close_button()
            return super().show(frame)

    monkeypatch.setattr(watch, "HumanWindow", ClosedAfterThreeFrames)
    rules = get_ruleset("nine_ball")
    agents = [make_agent("legal-random", rules, seed=i) for i in range(2)]
    lines = []
    assert watch.watch(rules, Simulator(rules.table), agents, fps=240, log=lines.append) is None
    assert lines[-1] == "the window was closed: the rack stops here"
    assert windows[0].frames_shown == 3 and not windows[0].is_open
