"""Table geometry shared by every layer: table presets, pockets with jaws, spots, strings, racks.

Frame (SI units): the origin is the head-left corner of the playing surface, measured at the
cushion noses; x runs along the long string towards the foot cushion, y across the table.
The "left" long rail is the line y = 0 and the "right" long rail is y = W. The head string is
x = L/4, the foot spot (3L/4, W/2).

A pocket is modelled as two jaws (cushion-nose segments angled into the rail), a back segment
closing the throat, and a circular hole: a ball whose centre enters the hole drops. The
playing region is the polygon bounded by the rail noses, the jaws and the back segments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from functools import cached_property

import numpy as np

from poolgym.numbers import quote, real

Point = tuple[float, float]

# Standard ball (WPA equipment specifications: 2 1/4 in, 5.5-6 oz).
BALL_RADIUS = 0.028575
BALL_MASS = 0.170

# Playing-surface sizes (length x width between cushion noses) of the WPA table presets.
TABLE_SIZES = {
    "9ft": (2.54, 1.27),
    "8ft": (2.34, 1.17),
    "7ft": (1.98, 0.99),
}

POCKET_IDS = ("head_left", "side_left", "foot_left", "foot_right", "side_right", "head_right")


@dataclass(frozen=True, slots=True)
class Segment:
    """A straight cushion-nose segment from ``a`` to ``b``; the playing region is on its left."""

    id: str
    a: Point
    b: Point


@dataclass(frozen=True, slots=True)
class Pocket:
    """One pocket: the jaw tips at the mouth, the jaw segments and the capture hole."""

    id: str
    kind: str  # "corner" or "side"
    mouth: tuple[Point, Point]
    jaws: tuple[Segment, Segment]
    back: Segment
    hole_centre: Point
    hole_radius: float

    @property
    def mouth_centre(self) -> Point:
        (ax, ay), (bx, by) = self.mouth
        return ((ax + bx) / 2.0, (ay + by) / 2.0)


@dataclass(frozen=True)
class Table:
    """A pool table: playing surface, balls and pocket geometry. All fields are overridable.

    Pocket defaults follow the WPA equipment specifications: corner mouth 4.5 in (114 mm)
    between the jaw tips with a 142 degree jaw angle, side mouth 5 1/16 in (129 mm) with 104
    degrees. The hole sits so that a ball drops once its centre is ``*_drop_depth`` behind the
    mouth line, about where the slate edge is.
    """

    name: str = "9ft"
    length: float = 2.54
    width: float = 1.27
    ball_radius: float = BALL_RADIUS
    ball_mass: float = BALL_MASS
    corner_mouth: float = 0.114
    side_mouth: float = 0.129
    corner_jaw_angle_deg: float = 142.0
    side_jaw_angle_deg: float = 104.0
    corner_jaw_length: float = 0.07
    side_jaw_length: float = 0.05
    corner_drop_depth: float = 0.02
    side_drop_depth: float = 0.005
    corner_hole_radius: float = 0.06
    side_hole_radius: float = 0.065
    # Height of the cushion nose above the bed, where it touches a ball: 63.5% of the ball's
    # diameter (WPA: 62.5-64.5%).
    cushion_height: float = 0.635 * 2 * BALL_RADIUS
    # Width of the rail top, from the cushion nose to the table's outer edge, at the cushion
    # height (WPA: the rail, cushion included, is 4-7.5 in wide). A ball landing on it can
    # roll back onto the bed, roll off its outer edge, or stop there (off the table, WPA 8.5).
    rail_width: float = 0.15

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "name":
                if not isinstance(value, str):
                    raise ValueError(f"Table.name must be a string, got {quote(value)}")
                continue
            try:
                value = real(value, f"Table.{f.name}")
            except ValueError:
                value = math.nan  # named with the range below
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"Table.{f.name} must be a positive finite number, got {quote(getattr(self, f.name))}")
            object.__setattr__(self, f.name, value)  # plain floats (see poolgym.numbers)
        _check_geometry(self)

    @classmethod
    def preset(cls, name: str = "9ft", **overrides) -> "Table":
        """A WPA preset table, ``"9ft"``, ``"8ft"`` or ``"7ft"``, with optional field overrides."""
        if name not in TABLE_SIZES:
            raise ValueError(f"unknown table preset {name!r}; choose one of {sorted(TABLE_SIZES)}")
        length, width = TABLE_SIZES[name]
        return replace(cls(name=name, length=length, width=width), **overrides)

    # ----------------------------------------------------------------- strings and spots
    @property
    def head_string_x(self) -> float:
        return self.length / 4.0

    @property
    def head_spot(self) -> Point:
        return (self.length / 4.0, self.width / 2.0)

    @property
    def centre_spot(self) -> Point:
        return (self.length / 2.0, self.width / 2.0)

    @property
    def foot_spot(self) -> Point:
        return (3.0 * self.length / 4.0, self.width / 2.0)

    def in_kitchen(self, x: float) -> bool:
        """Whether a ball centre at ``x`` lies behind the head string (the string excluded)."""
        return x < self.head_string_x

    # ----------------------------------------------------------------- pockets and cushions
    @cached_property
    def pockets(self) -> tuple[Pocket, ...]:
        """The six pockets in perimeter order, counter-clockwise from the head-left corner."""
        L, W = self.length, self.width
        return (
            self._corner("head_left", (0.0, 0.0), (1.0, 0.0), (0.0, 1.0)),
            self._side("side_left", (L / 2, 0.0), (0.0, -1.0)),
            self._corner("foot_left", (L, 0.0), (0.0, 1.0), (-1.0, 0.0)),
            self._corner("foot_right", (L, W), (-1.0, 0.0), (0.0, -1.0)),
            self._side("side_right", (L / 2, W), (0.0, 1.0)),
            self._corner("head_right", (0.0, W), (0.0, -1.0), (1.0, 0.0)),
        )

    @cached_property
    def pocket_aims(self) -> dict[str, tuple[Point, Point, float, bool]]:
        """Per pocket id, what aiming at it takes (``poolgym.aiming``): the mouth's centre,
        the unit vector from it into the pocket towards the hole's centre, the mouth's width
        and whether it is a side pocket; computed once, as a bot asks for them for every
        pot it considers in every position it judges."""
        aims = {}
        for p in self.pockets:
            mx, my = p.mouth_centre
            hx, hy = p.hole_centre
            d = math.hypot(hx - mx, hy - my) or 1.0
            aims[p.id] = ((mx, my), ((hx - mx) / d, (hy - my) / d),
                          self.side_mouth if p.kind == "side" else self.corner_mouth, p.kind == "side")
        return aims

    @cached_property
    def pocket_aim_rows(self) -> tuple[tuple[float, float, float, float, float, float], ...]:
        """``pocket_aims`` as plain rows in ``POCKET_IDS`` order, for the compiled pot
        geometry (``poolgym.physics.pot_geometry``): aim x, aim y, axis x, axis y, mouth
        width, 1.0 for a side pocket (else 0.0)."""
        aims = self.pocket_aims
        return tuple((*aims[p][0], *aims[p][1], aims[p][2], float(aims[p][3])) for p in POCKET_IDS)

    @cached_property
    def surface_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The table as read-only arrays for compiled kernels, made once
        (``poolgym.physics.pot_geometry``): ``pocket_aim_rows``; the
        ``boundary`` segments in order (a x, a y, b x, b y); the pockets' holes (x, y,
        radius); and the ball radius, length, width and head string's x."""
        arrays = (np.array(self.pocket_aim_rows),
                  np.array([(*s.a, *s.b) for s in self.boundary]),
                  np.array([(*p.hole_centre, p.hole_radius) for p in self.pockets]),
                  np.array([self.ball_radius, self.length, self.width, self.head_string_x]))
        for array in arrays:
            array.flags.writeable = False
        return arrays

    def pocket(self, pocket_id: str) -> Pocket:
        for p in self.pockets:
            if p.id == pocket_id:
                return p
        raise ValueError(f"unknown pocket {pocket_id!r}; pockets are {list(POCKET_IDS)}")

    def _corner(self, pid: str, corner: Point, leave: Point, arrive: Point) -> Pocket:
        """A corner pocket. Going counter-clockwise the outline arrives along the rail that
        points ``arrive`` out of the corner and leaves along the rail that points ``leave``."""
        d = self.corner_mouth / math.sqrt(2.0)
        cx, cy = corner
        # Unit vector from the table into the corner along the pocket axis.
        ox, oy = -(leave[0] + arrive[0]) / math.sqrt(2.0), -(leave[1] + arrive[1]) / math.sqrt(2.0)
        tip_arrive = (cx + d * arrive[0], cy + d * arrive[1])
        tip_leave = (cx + d * leave[0], cy + d * leave[1])
        end_arrive = self._jaw(tip_arrive, arrive, self.corner_jaw_angle_deg, self.corner_jaw_length, (ox, oy))
        end_leave = self._jaw(tip_leave, leave, self.corner_jaw_angle_deg, self.corner_jaw_length, (ox, oy))
        # The mouth line crosses the axis d/sqrt(2) in front of the corner point.
        depth = -d / math.sqrt(2.0) + self.corner_drop_depth + self.corner_hole_radius
        jaws = (Segment(f"{pid}_jaw_{_rail_name(arrive)}", tip_arrive, end_arrive),
                Segment(f"{pid}_jaw_{_rail_name(leave)}", end_leave, tip_leave))
        return Pocket(pid, "corner", (tip_arrive, tip_leave), jaws,
                      Segment(f"{pid}_back", end_arrive, end_leave),
                      (cx + depth * ox, cy + depth * oy), self.corner_hole_radius)

    def _side(self, pid: str, centre: Point, outward: Point) -> Pocket:
        cx, cy = centre
        half = self.side_mouth / 2.0
        # Going CCW, the rail direction at the left rail (outward -y) is +x; at the right rail -x.
        along = (-outward[1], outward[0])
        tip_in = (cx - half * along[0], cy - half * along[1])  # reached first going CCW
        tip_out = (cx + half * along[0], cy + half * along[1])
        back_dir = (-along[0], -along[1])
        jaw_in = self._jaw(tip_in, back_dir, self.side_jaw_angle_deg, self.side_jaw_length, outward)
        jaw_out = self._jaw(tip_out, along, self.side_jaw_angle_deg, self.side_jaw_length, outward)
        depth = self.side_drop_depth + self.side_hole_radius
        hole = (cx + depth * outward[0], cy + depth * outward[1])
        head_first = tip_in[0] < tip_out[0]
        seg_in = Segment(f"{pid}_jaw_{'head' if head_first else 'foot'}", tip_in, jaw_in)
        seg_out = Segment(f"{pid}_jaw_{'foot' if head_first else 'head'}", jaw_out, tip_out)
        back = Segment(f"{pid}_back", jaw_in, jaw_out)
        return Pocket(pid, "side", (tip_in, tip_out), (seg_in, seg_out), back, hole, self.side_hole_radius)

    @staticmethod
    def _jaw(tip: Point, rail_dir: Point, angle_deg: float, length: float, outward: Point) -> Point:
        """End point of a jaw leaving ``tip``: the jaw makes ``angle_deg`` with the cushion
        nose, which runs from the tip along ``rail_dir`` (away from the pocket)."""
        back = (-rail_dir[0], -rail_dir[1])  # from the tip towards the pocket, along the rail
        # Component of `outward` normal to the rail: the direction behind the cushion nose.
        dot = outward[0] * rail_dir[0] + outward[1] * rail_dir[1]
        nx, ny = outward[0] - dot * rail_dir[0], outward[1] - dot * rail_dir[1]
        norm = math.hypot(nx, ny)
        nx, ny = nx / norm, ny / norm
        turn = math.radians(180.0 - angle_deg)
        dx = back[0] * math.cos(turn) + nx * math.sin(turn)
        dy = back[1] * math.cos(turn) + ny * math.sin(turn)
        return (tip[0] + length * dx, tip[1] + length * dy)

    @cached_property
    def boundary(self) -> tuple[Segment, ...]:
        """Every cushion segment (rails, jaws, pocket backs) in counter-clockwise order."""
        segs: list[Segment] = []
        pockets = self.pockets
        rail_names = ("left_head", "left_foot", "foot", "right_foot", "right_head", "head")
        for i, p in enumerate(pockets):
            segs.extend((p.jaws[0], p.back, p.jaws[1]))
            nxt = pockets[(i + 1) % len(pockets)]
            segs.append(Segment(rail_names[i], p.jaws[1].b, nxt.jaws[0].a))
        return tuple(segs)

    @cached_property
    def rails(self) -> tuple[Segment, ...]:
        """The six straight rail cushions between the pocket mouths."""
        names = {"left_head", "left_foot", "foot", "right_foot", "right_head", "head"}
        return tuple(s for s in self.boundary if s.id in names)

    # ----------------------------------------------------------------- placement checks
    def contains(self, x: float, y: float, tolerance: float = 1e-9) -> bool:
        """Whether a ball centred at (x, y) lies on the playing surface: inside the cushion
        outline, clear of every cushion by a ball radius, and not over a pocket hole."""
        r = self.ball_radius - tolerance
        # Every cushion segment lies on or outside the rectangle of the rail noses (jaws turn
        # away from the table), so a centre a radius inside that rectangle is clear of them
        # all; only balls near a rail, in a pocket's mouth, need the outline itself.
        if not (r <= x <= self.length - r and r <= y <= self.width - r):
            if not _inside_polygon(x, y, [s.a for s in self.boundary]):
                return False
            if any(_distance_to_segment(x, y, s) < r for s in self.boundary):
                return False
        return not any(math.hypot(x - p.hole_centre[0], y - p.hole_centre[1]) < p.hole_radius
                       for p in self.pockets)

    def inside_outline(self, x: float, y: float) -> bool:
        """Whether a ball centre at (x, y) lies inside the cushion outline (rail noses, jaws
        and pocket backs), with no clearance asked: where every ball at rest must be."""
        return (0.0 <= x <= self.length and 0.0 <= y <= self.width) or \
            _inside_polygon(x, y, [s.a for s in self.boundary])

    # ----------------------------------------------------------------- racks
    def rack_positions(self, rows: tuple[int, ...], gap: float = 1e-5) -> list[Point]:
        """Ball-centre positions of a rack whose apex sits on the foot spot.

        ``rows`` lists the number of balls per row from the apex towards the foot cushion:
        (1, 2, 3, 2, 1) is the 9-ball diamond, (1, 2, 3, 4) the 10-ball and (1, 2, 3, 4, 5) the
        15-ball triangle. Adjacent balls are ``gap`` apart (a tight rack, free of overlap).
        Positions are returned row by row, each row from y small to y large.
        """
        pitch = 2.0 * self.ball_radius + gap
        fx, fy = self.foot_spot
        out: list[Point] = []
        for i, n in enumerate(rows):
            x = fx + i * pitch * math.sqrt(3.0) / 2.0
            for j in range(n):
                out.append((x, fy + (j - (n - 1) / 2.0) * pitch))
        return out


# ----------------------------------------------------------------- geometry checks
# Physical ranges of the fields (metres, kilograms, degrees). Pool balls are 2 1/4 in
# (57.15 mm), snooker 52.5 mm, carom 61.5 mm; the longest tables are 12-ft snooker tables
# (3.6 m); open test tables up to 100 m are allowed for free-rolling closed forms.
FIELD_RANGES = {
    "length": (0.0, 100.0), "width": (0.0, 100.0), "ball_radius": (0.02, 0.04),
    "ball_mass": (0.05, 0.5), "corner_jaw_angle_deg": (90.0, 175.0), "side_jaw_angle_deg": (90.0, 175.0),
    "corner_jaw_length": (0.005, 0.3), "side_jaw_length": (0.005, 0.3),
    "corner_drop_depth": (0.0, 0.2), "side_drop_depth": (0.0, 0.2),
    "corner_hole_radius": (0.02, 0.3), "side_hole_radius": (0.02, 0.3), "rail_width": (0.05, 0.5),
}
# The largest rack a built-in game uses: the 15-ball triangle, five rows of up to five.
LARGEST_RACK = (1, 2, 3, 4, 5)


def _check_geometry(t: "Table") -> None:
    """Refuse a table whose geometry is not a pool table, naming the field at fault: values
    outside their physical range, pocket mouths that leave no rail, jaws that cross, a
    capture hole a ball in the throat cannot reach before the pocket's back wall, a table
    the 15-ball rack does not fit."""
    for name, (low, high) in FIELD_RANGES.items():
        value = getattr(t, name)
        if not low < value <= high:
            raise ValueError(f"Table.{name} must be in ({low}, {high}], got {value!r}")
    if t.width >= t.length:
        raise ValueError("Table.width must be smaller than Table.length")
    R = t.ball_radius
    for name in ("corner_mouth", "side_mouth"):
        if getattr(t, name) <= 2 * R:
            raise ValueError(f"pocket mouths must be wider than a ball (2 * ball_radius = {2 * R:.4f} m), "
                             f"got Table.{name}={getattr(t, name)!r}")
    rows = len(LARGEST_RACK)
    depth = (rows - 1) * 2.0 * R * math.sqrt(3.0) / 2.0 + R  # apex on the foot spot to the last row's edge
    if depth > t.length / 4.0 or max(LARGEST_RACK) * 2.0 * R > t.width:
        raise ValueError(f"Table.length and Table.width are too small for the rack: {rows} rows of up to "
                         f"{max(LARGEST_RACK)} balls need {depth:.4f} m behind the foot spot (the table "
                         f"has {t.length / 4.0:.4f}) and {max(LARGEST_RACK) * 2.0 * R:.4f} m across "
                         f"(the table has {t.width:.4f})")
    # Each rail between two mouths must be long enough for a ball to lie frozen on it.
    corner_along = t.corner_mouth / math.sqrt(2.0)  # tip distance from the corner, along the rail
    long_rail = t.length / 2.0 - corner_along - t.side_mouth / 2.0
    short_rail = t.width - 2.0 * corner_along
    for name, rail, field in (("long", long_rail, "corner_mouth and Table.side_mouth are"),
                              ("short", short_rail, "corner_mouth is")):
        if rail < 2.0 * R:
            raise ValueError(f"Table.{field} too wide for the table: the {name} rails between the "
                             f"mouths would be {rail:.4f} m, at least a ball diameter ({2 * R:.4f} m) needed")
    for pocket in (t.pockets[0], t.pockets[1]):  # one corner and one side: the rest are mirror images
        _check_pocket(t, pocket)


def _check_pocket(t: "Table", pocket: Pocket) -> None:
    """The throat of ``pocket`` (mouth, jaws, back) must be a convex quadrilateral, and every
    deepest place a ball's centre can reach in it (touching the back, or wedged between the
    jaws) must lie in the capture hole: the hole is then reached before the back wall."""
    kind = pocket.kind
    tip_a, tip_b = pocket.mouth
    quad = [tip_a, pocket.jaws[0].b, pocket.jaws[1].a, tip_b]
    for i in range(4):
        (ax, ay), (bx, by), (cx, cy) = quad[i - 1], quad[i], quad[(i + 1) % 4]
        if (bx - ax) * (cy - by) - (by - ay) * (cx - bx) <= 1e-12:
            raise ValueError(f"Table.{kind}_jaw_length and Table.{kind}_jaw_angle_deg make the {kind} "
                             f"pocket jaws cross (or meet) behind the mouth; shorten the jaws or open "
                             f"the jaw angle")
    # Centres a radius clear of both jaws and the back: clip a square around the pocket by
    # the three half-planes. Its vertices where two of those walls are touched at once are
    # the deepest places a ball reaches (against the back at either jaw, or wedged between
    # the jaws); the hole must hold them all, wherever they lie (with short jaws they can be
    # in front of the mouth line).
    R = t.ball_radius
    span = 4.0 * (t.corner_jaw_length + t.side_jaw_length + t.corner_mouth + t.side_mouth)
    mx, my = pocket.mouth_centre
    region = [(mx - span, my - span), (mx + span, my - span), (mx + span, my + span), (mx - span, my + span)]
    walls = ((quad[0], quad[1]), (quad[1], quad[2]), (quad[2], quad[3]))
    for a, b in walls:
        region = _clip(region, a, b, R)
    hx, hy = pocket.hole_centre
    for x, y in region:
        touched = sum(abs(_side_of(a, b, x, y) - R) <= 1e-9 for a, b in walls)
        if touched >= 2 and math.hypot(x - hx, y - hy) >= pocket.hole_radius - 1e-9:
            raise ValueError(
                f"Table.{kind}_hole_radius and Table.{kind}_drop_depth leave the {kind} pocket's capture "
                f"hole out of reach: a ball in the throat stops against the back or the jaws with its "
                f"centre at ({x:.4f}, {y:.4f}), {math.hypot(x - hx, y - hy):.4f} m from the hole centre "
                f"(radius {pocket.hole_radius:.4f}); enlarge the hole, drop the ball sooner or "
                f"shorten the jaws ({kind}_jaw_length)")


def _side_of(a: Point, b: Point, x: float, y: float) -> float:
    """Signed distance of (x, y) from the line a -> b, positive on its left."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    return (dx * (y - a[1]) - dy * (x - a[0])) / math.hypot(dx, dy)


def _clip(polygon: list[Point], a: Point, b: Point, shift: float) -> list[Point]:
    """The part of a convex ``polygon`` at least ``shift`` to the left of the line a -> b."""
    out: list[Point] = []
    for i, p in enumerate(polygon):
        q = polygon[(i + 1) % len(polygon)]
        dp, dq = _side_of(a, b, *p) - shift, _side_of(a, b, *q) - shift
        if dp >= 0.0:
            out.append(p)
        if (dp >= 0.0) != (dq >= 0.0):
            s = dp / (dp - dq)
            out.append((p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1])))
    return out


def _rail_name(direction: Point) -> str:
    """Name of the rail a corner jaw belongs to, from the rail's direction out of the corner."""
    return "long" if abs(direction[0]) > 0.5 else "short"


def _inside_polygon(x: float, y: float, vertices: list[Point]) -> bool:
    inside = False
    n = len(vertices)
    for i in range(n):
        (ax, ay), (bx, by) = vertices[i], vertices[(i + 1) % n]
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            inside = not inside
    return inside


def _distance_to_segment(x: float, y: float, s: Segment) -> float:
    (ax, ay), (bx, by) = s.a, s.b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - ax - t * dx, y - ay - t * dy)
