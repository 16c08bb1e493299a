"""``poolgym play``: watch two agents play a rack, in a pygame window or as a GIF.

Each shot is drawn as the balls roll (frames every ``1 / fps`` simulated seconds, the
last position held briefly between shots). GIFs are written with Pillow.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from poolgym.envs.actions import ShotMove
from poolgym.envs.observations import actor
from poolgym.envs.play import simulate_move
from poolgym.files import atomic_writer
from poolgym.physics import ShotResult, Simulator
from poolgym.render import HumanWindow, render_rgb
from poolgym.render.animation import heights_at, positions_at
from poolgym.render.rgb import FramePainter
from poolgym.rules import GameState, Ruleset

# Frames that hold the table still between two shots.
PAUSE_FRAMES = 3
# A shot's animation stops after this many simulated seconds (balls creep for long).
MAX_SHOT_SECONDS = 8.0


def shot_frames(result: ShotResult, table, fps: float, width_px: int) -> list[np.ndarray]:
    """Frames of one shot's motion, every ``1 / fps`` seconds of simulated time (the balls
    where ``poolgym.render.animation.positions_at`` puts them, as high as ``heights_at``
    says), the first ``MAX_SHOT_SECONDS`` of it."""
    painter = FramePainter(table, width_px)
    end = min(result.duration, MAX_SHOT_SECONDS)
    return [painter.paint(positions_at(result, t), heights=heights_at(result, t))
            for t in np.arange(0.0, end + 1.0 / fps, 1.0 / fps)]


def play_and_draw(rules: Ruleset, simulator: Simulator, agents, seed: int,
                  show: Callable[[np.ndarray], None], fps: float = 15.0, width_px: int = 480,
                  max_moves: int = 200, log: Callable[[str], None] = print) -> GameState:
    """Play one rack, passing every frame to ``show``; returns the final state."""
    rng = np.random.default_rng(seed)
    state = rules.new_game(rng=rng)
    table = rules.table
    for _ in range(max_moves):
        if state.is_over:
            break
        player = actor(state)
        move = agents[player].choose(state)
        if not isinstance(move, ShotMove):
            log(f"player {player} decides: {move.choice.value}")
            state = rules.apply_decision(state, move)
            continue
        if move.placement is not None:
            show(render_rgb(table, {**state.positions, 0: move.placement}, width_px=width_px))
        events, result = simulate_move(simulator, rules, state, move, rng, True)
        state, outcome = rules.apply_shot(state, move.call, events)
        if result is not None:
            for frame in shot_frames(result, table, fps, width_px):
                show(frame)
        for _ in range(PAUSE_FRAMES):
            show(render_rgb(table, state.positions, width_px=width_px))
        pots = ", ".join(f"{b} in {p}" for b, p in outcome.pocketed) or "nothing"
        fouls = f", foul {' '.join(outcome.foul_sections)}" if outcome.fouls else ""
        log(f"player {player}: {pots}{fouls}")
    if state.winner is not None:
        log(f"player {state.winner} wins the rack")
    return state


def write_gif(path: str, frames: list[np.ndarray], fps: float) -> None:
    """Save ``frames`` as a looping GIF (Pillow, from the ``render`` extra), atomically: a
    failed write leaves the previous file at ``path`` intact."""
    from PIL import Image

    images = [Image.fromarray(f) for f in frames]
    with atomic_writer(path, "wb") as f:
        images[0].save(f, format="GIF", save_all=True, append_images=images[1:],
                       duration=int(1000 / fps), loop=0)


def watch(rules: Ruleset, simulator: Simulator, agents, seed: int = 0, gif: str | None = None,
          fps: float = 15.0, width_px: int = 480, log: Callable[[str], None] = print) -> GameState | None:
    """Play one rack in a window, or into the GIF at ``gif`` without opening one; the last
    state, or None when the window was closed before the rack ended (it stops there)."""
    if gif is not None:
        frames: list[np.ndarray] = []
        state = play_and_draw(rules, simulator, agents, seed, frames.append, fps, width_px, log=log)
        write_gif(gif, frames, fps)
        log(f"wrote {len(frames)} frames to {gif}")
        return state
    window = HumanWindow(title=f"poolgym {rules.name}", fps=fps)

    def show(frame: np.ndarray) -> None:
        if not window.show(frame):
            raise _WindowClosed

    try:
        return play_and_draw(rules, simulator, agents, seed, show, fps, width_px * 2, log=log)
    except _WindowClosed:
        log("the window was closed: the rack stops here")
        return None
    finally:
        window.close()


class _WindowClosed(Exception):
    """The user closed the window: the rack being watched stops."""
