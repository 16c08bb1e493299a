"""Six-ball: a rotation game written outside poolgym's own games, as a researcher would.

Balls 1-6 racked in a triangle (rows 1-2-3) with the 1 on the foot spot and the 6 in the
middle of the back row; played like nine-ball (lowest ball first, push out after the break,
the 6 on a legal shot wins). A legal break pockets a ball or drives three balls to a cushion.

Register it as an environment with ``configs/variants/six_ball.yaml`` or::

    poolgym.register_variant("examples/SixBall-v0", game=SixBall, table="7ft")
"""

from __future__ import annotations

from poolgym.rules import NineBall
from poolgym.rules.outcome import Foul
from poolgym.rules.shot import ShotEvents


class SixBall(NineBall):
    """Nine-ball's rules on six balls (a bar-room favourite)."""

    name = "six_ball"
    object_balls = tuple(range(1, 7))
    money_ball = 6
    rack_rows = (1, 2, 3)
    money_ball_slot = 4  # the middle of the back row

    def break_fouls(self, events: ShotEvents) -> list[Foul]:
        """Three balls to a cushion make a legal break with only six on the table."""
        if events.object_balls_pocketed or len(events.distinct_object_balls_to_cushion) >= 3:
            return []
        return [Foul(self.break_section, "illegal break: no ball pocketed and fewer than three "
                                         "object balls driven to a cushion")]
