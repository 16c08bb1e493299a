"""``poolgym play``: watch two agents play a rack, in a pygame window or as a GIF.

Each shot is drawn as the balls roll (frames every ``1 / fps`` simulated seconds, the
last position held briefly between shots), with the envs' status bar under the table
(``poolgym.render.overlay``: who acts, fouls in a row, a cue ball in hand, the last
verdict). GIFs are written with Pillow.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from poolgym.envs.actions import ShotMove
from poolgym.envs.observations import actor
from poolgym.envs.play import simulate_move
from poolgym.envs.rendering import STATUS_ROWS
from poolgym.numbers import quote, real
from poolgym.physics import ShotResult, Simulator
from poolgym.render import HumanWindow
from poolgym.render.animation import heights_at, positions_at
from poolgym.render.overlay import PLAYER_NAMES, decision_verdict, game_status, shot_verdict, shooting
from poolgym.render.rgb import FramePainter
from poolgym.rules import GameState, Ruleset

# Frames that hold the table still between two shots.
PAUSE_FRAMES = 3
# A shot's animation stops after this many simulated seconds (balls creep for long).
MAX_SHOT_SECONDS = 8.0
# The slowest GIF frame rate: a GIF frame's delay is 16 bits of hundredths of a second (at
# most 655 s), so a slower rate cannot be written; 0.01 fps (100 s a frame) keeps clear of it.
MIN_GIF_FPS = 0.01


def shot_frames(result: ShotResult, painter: FramePainter, fps: float,
                status: tuple[str, ...] = ()) -> list[np.ndarray]:
    """Frames of one shot's motion, every ``1 / fps`` seconds of simulated time (the balls
    where ``poolgym.render.animation.positions_at`` puts them, as high as ``heights_at``
    says), the first ``MAX_SHOT_SECONDS`` of it, ``status`` in the bar under the table."""
    end = min(result.duration, MAX_SHOT_SECONDS)
    return [painter.paint(positions_at(result, t), heights=heights_at(result, t), status=status)
            for t in np.arange(0.0, end + 1.0 / fps, 1.0 / fps)]


def play_and_draw(rules: Ruleset, simulator: Simulator, agents, seed: int,
                  show: Callable[[np.ndarray], None], fps: float = 15.0, width_px: int = 480,
                  max_moves: int = 200, log: Callable[[str], None] = print,
                  names: tuple[str, str] = PLAYER_NAMES) -> GameState:
    """Play one rack, passing every frame to ``show`` (the status bar names the players
    ``names``); returns the final state."""
    rng = np.random.default_rng(seed)
    state = rules.new_game(rng=rng)
    table = rules.table
    painter = FramePainter(table, width_px, status_rows=STATUS_ROWS)
    verdict = f"new game: {names[state.breaker]} breaks"
    for _ in range(max_moves):
        if state.is_over:
            break
        player = actor(state)
        move = agents[player].choose(state)
        if not isinstance(move, ShotMove):
            log(f"player {player} decides: {move.choice.value}")
            state = rules.apply_decision(state, move)
            verdict = decision_verdict(player, move, names)
            show(painter.paint(state.positions, status=(game_status(state, names), verdict)))
            continue
        rolling = (game_status(state, names, in_hand=False), shooting(state, names))
        if move.placement is not None:
            show(painter.paint({**state.positions, 0: move.placement}, status=rolling))
        events, result = simulate_move(simulator, rules, state, move, rng, True)
        state, outcome = rules.apply_shot(state, move.call, events)
        if result is not None:
            for frame in shot_frames(result, painter, fps, rolling):
                show(frame)
        verdict = shot_verdict(outcome, names)
        rest = painter.paint(state.positions, status=(game_status(state, names), verdict))
        for _ in range(PAUSE_FRAMES):
            show(rest)
        pots = ", ".join(f"{b} in {p}" for b, p in outcome.pocketed) or "nothing"
        fouls = f", foul {' '.join(outcome.foul_sections)}" if outcome.fouls else ""
        log(f"player {player}: {pots}{fouls}")
    if state.winner is not None:
        log(f"player {state.winner} wins the rack")
    return state


def check_gif(path: str, fps: float, path_field: str = "gif", fps_field: str = "fps") -> None:
    """``ValueError`` naming the field unless ``path`` names a ``.gif`` file and ``fps`` is a
    frame rate a GIF can hold (at least ``MIN_GIF_FPS``): checked before a rack is played,
    not when its frames are written."""
    if not str(path).lower().endswith(".gif"):
        raise ValueError(f"{path_field} must name a .gif file, got {quote(str(path))}")
    rate = real(fps, fps_field)
    if not (math.isfinite(rate) and rate >= MIN_GIF_FPS):
        raise ValueError(f"{fps_field} must be at least {MIN_GIF_FPS:g} frames per second for a GIF (a GIF "
                         f"frame lasts at most 655 s), got {quote(fps)}")


def gif_frame(frame: np.ndarray):
    """``frame`` as the paletted picture a GIF stores (Pillow's adaptive palette, as its GIF
    writer would convert it): a byte per pixel, a third of the RGB array, so a rack's
    frames can be held until the GIF is written."""
    from PIL import Image

    return Image.fromarray(frame).convert("P", palette=Image.Palette.ADAPTIVE, colors=256)


def write_gif(path: str, frames: list, fps: float) -> None:
    """Save ``frames`` (RGB arrays, or ``gif_frame`` pictures) as a looping GIF (Pillow, from
    the ``render`` extra), written to a temporary file renamed into place."""
    from PIL import Image

    from poolgym.files import atomic_writer

    images = [f if isinstance(f, Image.Image) else gif_frame(f) for f in frames]
    with atomic_writer(path, "wb") as f:
        images[0].save(f, format="GIF", save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)


def watch(rules: Ruleset, simulator: Simulator, agents, seed: int = 0, gif: str | None = None,
          fps: float = 15.0, width_px: int = 480, log: Callable[[str], None] = print,
          names: tuple[str, str] = PLAYER_NAMES) -> GameState | None:
    """Play one rack in a window, or into the GIF at ``gif`` without opening one; the
    status bar names the players ``names``. The last state, or None when the window was
    closed before the rack ended (it stops there)."""
    if gif is not None:
        check_gif(gif, fps)
        frames = []  # paletted as they are drawn: a long rack's RGB frames took gigabytes
        state = play_and_draw(rules, simulator, agents, seed, lambda frame: frames.append(gif_frame(frame)),
                              fps, width_px, log=log, names=names)
        write_gif(gif, frames, fps)
        log(f"wrote {len(frames)} frames to {gif}")
        return state
    window = HumanWindow(title=f"poolgym {rules.name}", fps=fps)

    def show(frame: np.ndarray) -> None:
        if not window.show(frame):
            raise _WindowClosed

    try:
        return play_and_draw(rules, simulator, agents, seed, show, fps, width_px * 2, log=log, names=names)
    except _WindowClosed:
        log("the window was closed: the rack stops here")
        return None
    finally:
        window.close()


class _WindowClosed(Exception):
    """The user closed the window: the rack being watched stops."""
