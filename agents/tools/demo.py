"""``poolgym demo``: a 9-ball break and a few shots at the lowest ball, with their event logs."""

from __future__ import annotations

import math
from typing import Callable

from poolgym.events import (BallBall, BallCushion, Event, HeadStringCrossing, OffTable, Pocketed,
                            Rest, Strike)
from poolgym.physics import Shot, Simulator
from poolgym.table import Point, Table

from poolgym.agents.tools.bench import aim_deg, rack_start

BREAK_SPEED = 8.0
SHOT_SPEED = 2.5


def _xy(p: Point) -> str:
    return f"({p[0]:.3f}, {p[1]:.3f})"


def describe(event: Event) -> str:
    """One readable line for an event of the shot's log."""
    match event:
        case Strike():
            text = (f"strike       ball {event.ball} at {_xy(event.position)}, "
                    f"{event.speed:.2f} m/s, aim {event.angle_deg:.1f} deg, side {event.side:+.2f}, "
                    f"vertical {event.vertical:+.2f}")
            if event.elevation_deg:
                text += f", cue raised {event.elevation_deg:.0f} deg"
            return text + (", miscue" if event.miscue else "")
        case BallBall():
            return f"ball-ball    {event.a} hits {event.b} at {_xy(event.position_a)}"
        case BallCushion():
            frozen = " (frozen there at the strike)" if event.was_frozen else ""
            return (f"cushion      ball {event.ball} hits {event.cushion} at "
                    f"{_xy(event.position)}{frozen}")
        case Pocketed():
            return f"pocketed     ball {event.ball} in {event.pocket}"
        case OffTable():
            return (f"off table    ball {event.ball} leaves at {_xy(event.position)}, "
                    f"{event.height * 100:.1f} cm above the bed")
        case HeadStringCrossing():
            way = "foot" if event.towards_foot else "head"
            return f"head string  ball {event.ball} crosses towards the {way}"
        case Rest():
            return "rest         every ball has stopped"
    return repr(event)  # an event type newer than this formatter still prints


def place_cue_ball(table: Table, layout: dict[int, Point]) -> Point:
    """Ball in hand: the break position, or the nearest free spot across the kitchen."""
    x, y0 = rack_start(table)[0]
    step = 2.0 * table.ball_radius
    for k in range(int(table.width / step)):
        y = y0 + (k + 1) // 2 * step * (1 if k % 2 else -1)  # y0, y0+s, y0-s, y0+2s, ...
        clear = all(math.dist((x, y), p) > 2.0 * table.ball_radius for p in layout.values())
        if clear and table.contains(x, y):
            return (x, y)
    raise RuntimeError("no free spot for the cue ball in the kitchen")


def run_demo(shots: int = 4, table_name: str = "7ft", write: Callable[[str], None] = print) -> None:
    """Break, then shoot centre-ball at the lowest object ball ``shots`` times, printing
    each shot's event log. The layout carries over; a pocketed cue ball is put back in
    the kitchen."""
    table = Table.preset(table_name)
    sim = Simulator(table)
    layout = rack_start(table)
    for n in range(shots + 1):
        if 0 not in layout:
            layout[0] = place_cue_ball(table, layout)
        targets = sorted(b for b in layout if b != 0)
        if not targets:
            write("the table is clear")
            return
        speed = BREAK_SPEED if n == 0 else SHOT_SPEED
        shot = Shot(speed=speed, angle_deg=aim_deg(layout[0], layout[targets[0]]), side=0.0,
                    vertical=0.0)
        write(f"shot {n}: {'break' if n == 0 else 'centre ball'} at the {targets[0]}-ball, "
              f"{speed:g} m/s")
        result = sim.simulate(layout, shot)
        for event in result.events:
            write(f"  {event.time:7.3f} s  {describe(event)}")
        write(f"  first contact {result.first_contact}, pocketed "
              f"{dict(result.pocketed) or 'none'}, at rest after {result.duration:.2f} s")
        layout = {b: p for b, p in result.positions.items() if b not in result.pocketed}
