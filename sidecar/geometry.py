"""Plane geometry for traps: region shapes, token footprints, swept paths, a spatial index.

Coordinates are scene pixels (y grows downwards, as in Foundry). A token's footprint is
its rectangle of ``width x height`` squares with its top-left corner at the token's
position. Moving it along one path segment sweeps a convex hexagon (the hull of the
rectangle at both ends), which is what we test against trap shapes: a token that brushes
a plate anywhere along a segment counts, not only where it stops.

Everything here is pure and allocation-light, because a move on a scene with thousands of
traps must cost about the same as on a scene with ten: the :class:`SpatialIndex` (a uniform
grid hash of bounding boxes) hands the engine only the traps near the path.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sidecar.models import (
    CircleShape,
    EllipseShape,
    Grid,
    LineShape,
    PolygonShape,
    RectangleShape,
    Region,
    Shape,
    Token,
    Wall,
)

Vec = tuple[float, float]
EPS = 1e-9

# ---------------------------------------------------------------- boxes


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    @staticmethod
    def of_points(points: Iterable[Vec]) -> Box:
        xs, ys = zip(*points, strict=True)
        return Box(min(xs), min(ys), max(xs), max(ys))

    def overlaps(self, other: Box) -> bool:
        return not (
            other.x0 > self.x1 or other.x1 < self.x0 or other.y0 > self.y1 or other.y1 < self.y0
        )

    def expand(self, by: float) -> Box:
        return Box(self.x0 - by, self.y0 - by, self.x1 + by, self.y1 + by)

    def union(self, other: Box) -> Box:
        return Box(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )

    @property
    def center(self) -> Vec:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)


# ---------------------------------------------------------------- primitive tests


def _cross(o: Vec, a: Vec, b: Vec) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex_hull(points: Sequence[Vec]) -> list[Vec]:
    """Andrew's monotone chain; counter-clockwise in a y-up frame, no repeated points."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return list(pts)
    lower: list[Vec] = []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[Vec] = []
    for p in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _edges(poly: Sequence[Vec]) -> Iterable[tuple[Vec, Vec]]:
    n = len(poly)
    for i in range(n):
        yield poly[i], poly[(i + 1) % n]


def point_in_convex(p: Vec, hull: Sequence[Vec]) -> bool:
    """Inside or on the edge of a convex polygon given in hull order."""
    if len(hull) == 1:
        return abs(p[0] - hull[0][0]) < EPS and abs(p[1] - hull[0][1]) < EPS
    if len(hull) == 2:
        return _dist_point_segment(p, hull[0], hull[1]) < EPS
    sign = 0
    for a, b in _edges(hull):
        c = _cross(a, b, p)
        if abs(c) < EPS:
            continue
        s = 1 if c > 0 else -1
        if sign == 0:
            sign = s
        elif s != sign:
            return False
    return True


def point_in_polygon(p: Vec, poly: Sequence[Vec]) -> bool:
    """Even-odd rule, for any simple polygon."""
    x, y = p
    inside = False
    n = len(poly)
    j = n - 1
    for i in range(n):
        xi, yi = poly[i]
        xj, yj = poly[j]
        if (yi > y) != (yj > y):
            xcross = (xj - xi) * (y - yi) / (yj - yi) + xi
            if x < xcross:
                inside = not inside
        j = i
    return inside


def segments_intersect(a: Vec, b: Vec, c: Vec, d: Vec) -> bool:
    d1 = _cross(c, d, a)
    d2 = _cross(c, d, b)
    d3 = _cross(a, b, c)
    d4 = _cross(a, b, d)
    if ((d1 > EPS and d2 < -EPS) or (d1 < -EPS and d2 > EPS)) and (
        (d3 > EPS and d4 < -EPS) or (d3 < -EPS and d4 > EPS)
    ):
        return True

    def on(p: Vec, q: Vec, r: Vec, cr: float) -> bool:
        return (
            abs(cr) <= EPS
            and min(p[0], q[0]) - EPS <= r[0] <= max(p[0], q[0]) + EPS
            and (min(p[1], q[1]) - EPS <= r[1] <= max(p[1], q[1]) + EPS)
        )

    return on(c, d, a, d1) or on(c, d, b, d2) or on(a, b, c, d3) or on(a, b, d, d4)


def _dist_point_segment(p: Vec, a: Vec, b: Vec) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    if length2 < EPS:
        return math.hypot(p[0] - a[0], p[1] - a[1])
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy))


def convex_overlaps_convex(a: Sequence[Vec], b: Sequence[Vec]) -> bool:
    """Separating axis test for two convex polygons (touching counts)."""
    for poly in (a, b):
        n = len(poly)
        if n < 2:
            continue
        for i in range(n):
            p, q = poly[i], poly[(i + 1) % n]
            ax, ay = q[1] - p[1], p[0] - q[0]
            amin = amax = ax * a[0][0] + ay * a[0][1]
            for v in a:
                d = ax * v[0] + ay * v[1]
                amin, amax = min(amin, d), max(amax, d)
            bmin = bmax = ax * b[0][0] + ay * b[0][1]
            for v in b:
                d = ax * v[0] + ay * v[1]
                bmin, bmax = min(bmin, d), max(bmax, d)
            if amax < bmin - EPS or bmax < amin - EPS:
                return False
    return True


def convex_distance_to_point(hull: Sequence[Vec], p: Vec) -> float:
    if point_in_convex(p, hull):
        return 0.0
    if len(hull) == 1:
        return math.hypot(p[0] - hull[0][0], p[1] - hull[0][1])
    return min(_dist_point_segment(p, a, b) for a, b in _edges(hull))


# ---------------------------------------------------------------- compiled shapes


class Prim:
    """One compiled shape. ``overlaps`` and ``contains`` take a convex hull."""

    box: Box

    def overlaps(self, hull: Sequence[Vec]) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def contains(self, hull: Sequence[Vec]) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def contains_point(self, p: Vec) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError


class ConvexPrim(Prim):
    def __init__(self, points: Sequence[Vec]) -> None:
        self.hull = convex_hull(points)
        self.box = Box.of_points(self.hull)

    def overlaps(self, hull: Sequence[Vec]) -> bool:
        return convex_overlaps_convex(self.hull, hull)

    def contains(self, hull: Sequence[Vec]) -> bool:
        return all(point_in_convex(p, self.hull) for p in hull)

    def contains_point(self, p: Vec) -> bool:
        return point_in_convex(p, self.hull)


class CirclePrim(Prim):
    def __init__(self, cx: float, cy: float, r: float) -> None:
        self.c = (cx, cy)
        self.r = r
        self.box = Box(cx - r, cy - r, cx + r, cy + r)

    def overlaps(self, hull: Sequence[Vec]) -> bool:
        return convex_distance_to_point(hull, self.c) <= self.r + EPS

    def contains(self, hull: Sequence[Vec]) -> bool:
        return all(math.hypot(p[0] - self.c[0], p[1] - self.c[1]) <= self.r for p in hull)

    def contains_point(self, p: Vec) -> bool:
        return math.hypot(p[0] - self.c[0], p[1] - self.c[1]) <= self.r


class EllipsePrim(Prim):
    """Tested in the ellipse's own frame, where it is the unit circle."""

    def __init__(self, cx: float, cy: float, rx: float, ry: float, rotation: float) -> None:
        self.c = (cx, cy)
        self.rx = max(rx, EPS)
        self.ry = max(ry, EPS)
        a = math.radians(rotation)
        self.cos, self.sin = math.cos(a), math.sin(a)
        ex = math.hypot(self.rx * self.cos, self.ry * self.sin)
        ey = math.hypot(self.rx * self.sin, self.ry * self.cos)
        self.box = Box(cx - ex, cy - ey, cx + ex, cy + ey)

    def _local(self, p: Vec) -> Vec:
        dx, dy = p[0] - self.c[0], p[1] - self.c[1]
        x = dx * self.cos + dy * self.sin
        y = -dx * self.sin + dy * self.cos
        return (x / self.rx, y / self.ry)

    def overlaps(self, hull: Sequence[Vec]) -> bool:
        local = [self._local(p) for p in hull]
        return convex_distance_to_point(local, (0.0, 0.0)) <= 1 + EPS

    def contains(self, hull: Sequence[Vec]) -> bool:
        return all(self.contains_point(p) for p in hull)

    def contains_point(self, p: Vec) -> bool:
        x, y = self._local(p)
        return x * x + y * y <= 1 + EPS


class PolygonPrim(Prim):
    """Any simple polygon, convex or not."""

    def __init__(self, points: Sequence[Vec]) -> None:
        self.points = list(points)
        self.box = Box.of_points(self.points)

    def overlaps(self, hull: Sequence[Vec]) -> bool:
        if any(point_in_polygon(p, self.points) for p in hull[:1]):
            return True
        if any(point_in_convex(p, hull) for p in self.points[:1]):
            return True
        return any(
            segments_intersect(a, b, c, d) for a, b in _edges(self.points) for c, d in _edges(hull)
        )

    def contains(self, hull: Sequence[Vec]) -> bool:
        if not all(point_in_polygon(p, self.points) for p in hull):
            return False
        return not any(
            segments_intersect(a, b, c, d) for a, b in _edges(self.points) for c, d in _edges(hull)
        )

    def contains_point(self, p: Vec) -> bool:
        return point_in_polygon(p, self.points)


class WirePrim(Prim):
    """A trip wire: an open polyline. Nothing is ever inside it."""

    def __init__(self, points: Sequence[Vec]) -> None:
        self.points = list(points)
        self.box = Box.of_points(self.points)

    def overlaps(self, hull: Sequence[Vec]) -> bool:
        if len(hull) == 1:
            return any(_dist_point_segment(hull[0], a, b) < EPS for a, b in self._segments())
        for a, b in self._segments():
            if point_in_convex(a, hull) or point_in_convex(b, hull):
                return True
            if any(segments_intersect(a, b, c, d) for c, d in _edges(hull)):
                return True
        return False

    def _segments(self) -> Iterable[tuple[Vec, Vec]]:
        return zip(self.points, self.points[1:], strict=False)

    def contains(self, hull: Sequence[Vec]) -> bool:
        return False

    def contains_point(self, p: Vec) -> bool:
        return False


def _pairs(flat: Sequence[float]) -> list[Vec]:
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2)]


def compile_shape(shape: Shape) -> Prim:
    if isinstance(shape, RectangleShape):
        x, y, w, h = shape.x, shape.y, shape.width, shape.height
        corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        if shape.rotation:
            # Foundry rotates a rectangle about its centre, clockwise on screen
            cx, cy = x + w / 2, y + h / 2
            a = math.radians(shape.rotation)
            cos, sin = math.cos(a), math.sin(a)
            corners = [
                (cx + (px - cx) * cos - (py - cy) * sin, cy + (px - cx) * sin + (py - cy) * cos)
                for px, py in corners
            ]
        return ConvexPrim(corners)
    if isinstance(shape, CircleShape):
        return CirclePrim(shape.x, shape.y, shape.radius)
    if isinstance(shape, EllipseShape):
        return EllipsePrim(shape.x, shape.y, shape.radiusX, shape.radiusY, shape.rotation)
    if isinstance(shape, PolygonShape):
        points = _pairs(shape.points)
        hull = convex_hull(points)
        if len(hull) == len(set(points)):
            return ConvexPrim(points)
        return PolygonPrim(points)
    if isinstance(shape, LineShape):
        return WirePrim(_pairs(shape.points))
    raise TypeError(f"unknown shape {type(shape).__name__}")


@dataclass
class Area:
    """A region's shapes: the union of its solid shapes minus the union of its holes.

    A convex test area counts as inside when it touches a solid shape and is not wholly
    inside a hole (an area straddling a hole's edge counts).
    """

    solids: list[Prim] = field(default_factory=list)
    holes: list[Prim] = field(default_factory=list)
    bottom: float | None = None
    top: float | None = None

    @property
    def box(self) -> Box:
        boxes = [p.box for p in self.solids]
        box = boxes[0]
        for other in boxes[1:]:
            box = box.union(other)
        return box

    @property
    def is_wire(self) -> bool:
        return bool(self.solids) and all(isinstance(p, WirePrim) for p in self.solids)

    def overlaps(self, hull: Sequence[Vec]) -> bool:
        hbox = Box.of_points(hull)
        hit = any(p.box.overlaps(hbox) and p.overlaps(hull) for p in self.solids)
        if not hit:
            return False
        return not any(h.box.overlaps(hbox) and h.contains(hull) for h in self.holes)

    def contains_point(self, p: Vec) -> bool:
        if not any(s.contains_point(p) for s in self.solids):
            return False
        return not any(h.contains_point(p) for h in self.holes)

    def center(self) -> Vec:
        return self.box.center


def compile_region(region: Region) -> Area | None:
    area = Area(bottom=region.elevation.bottom, top=region.elevation.top)
    for shape in region.shapes:
        prim = compile_shape(shape)
        (area.holes if shape.hole else area.solids).append(prim)
    return area if area.solids else None


# ---------------------------------------------------------------- footprints and paths


def feet_to_px(feet: float, grid: Grid) -> float:
    return feet * grid.size / grid.distance


def px_to_feet(px: float, grid: Grid) -> float:
    return px * grid.distance / grid.size


@dataclass(frozen=True)
class Footprint:
    """A token's rectangle in pixels, shrunk by ``inset`` so sharing an edge is no overlap."""

    width: float
    height: float
    inset: float = 0.0

    @staticmethod
    def of(token: Token, grid: Grid, inset_fraction: float = 0.02) -> Footprint:
        return Footprint(
            token.width * grid.size, token.height * grid.size, grid.size * inset_fraction
        )

    def corners(self, x: float, y: float) -> list[Vec]:
        i = self.inset
        x0, y0, x1, y1 = x + i, y + i, x + self.width - i, y + self.height - i
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]

    def grown(self, by: float) -> Footprint:
        return Footprint(self.width + 2 * by, self.height + 2 * by, self.inset)

    def center(self, x: float, y: float) -> Vec:
        return (x + self.width / 2, y + self.height / 2)


def sweep(foot: Footprint, a: Vec, b: Vec, grow: float = 0.0) -> list[Vec]:
    """The convex area the footprint covers moving from top-left ``a`` to ``b``."""
    f = foot.grown(grow) if grow else foot
    ax, ay = a[0] - grow, a[1] - grow
    bx, by = b[0] - grow, b[1] - grow
    if abs(ax - bx) < EPS and abs(ay - by) < EPS:
        return f.corners(ax, ay)
    return convex_hull(f.corners(ax, ay) + f.corners(bx, by))


def lerp(a: Vec, b: Vec, t: float) -> Vec:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def first_contact(
    area: Area, foot: Footprint, a: Vec, b: Vec, iterations: int = 16
) -> float | None:
    """The smallest t in [0, 1] where the footprint moving a->b first overlaps ``area``.

    ``sweep(a, lerp(a, b, t))`` only grows with t, so overlap is monotone and bisection
    finds the first contact to within 2**-iterations of the segment (a fraction of a
    pixel for any segment shorter than 65,536 px).
    """
    if not area.overlaps(sweep(foot, a, b)):
        return None
    if area.overlaps(foot.corners(*a)):
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(iterations):
        mid = (lo + hi) / 2
        if area.overlaps(sweep(foot, a, lerp(a, b, mid))):
            hi = mid
        else:
            lo = mid
    return hi


# ---------------------------------------------------------------- spatial index


class SpatialIndex:
    """A uniform grid hash of bounding boxes: queries touch only nearby cells."""

    def __init__(self, cell: float) -> None:
        self.cell = max(cell, 1.0)
        self.cells: dict[tuple[int, int], list[str]] = {}
        self.boxes: dict[str, Box] = {}
        self.big: list[str] = []  # boxes too large to hash usefully: always candidates
        self.max_cells = 4096

    def _range(self, box: Box) -> tuple[int, int, int, int]:
        c = self.cell
        return (
            math.floor(box.x0 / c),
            math.floor(box.y0 / c),
            math.floor(box.x1 / c),
            math.floor(box.y1 / c),
        )

    def insert(self, key: str, box: Box) -> None:
        self.boxes[key] = box
        i0, j0, i1, j1 = self._range(box)
        if (i1 - i0 + 1) * (j1 - j0 + 1) > self.max_cells:
            self.big.append(key)
            return
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                self.cells.setdefault((i, j), []).append(key)

    def query(self, box: Box) -> set[str]:
        found: set[str] = {k for k in self.big if self.boxes[k].overlaps(box)}
        i0, j0, i1, j1 = self._range(box)
        if (i1 - i0 + 1) * (j1 - j0 + 1) > self.max_cells:
            return found | {k for k, b in self.boxes.items() if b.overlaps(box)}
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                for key in self.cells.get((i, j), ()):
                    if key not in found and self.boxes[key].overlaps(box):
                        found.add(key)
        return found

    def query_segment(self, a: Vec, b: Vec, pad: float) -> set[str]:
        """Keys near the segment a->b (padded): long segments are cut into cell-sized pieces
        so a diagonal across the map does not query its whole bounding box."""
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        pieces = max(1, math.ceil(length / self.cell))
        found: set[str] = set()
        for k in range(pieces):
            p = lerp(a, b, k / pieces)
            q = lerp(a, b, (k + 1) / pieces)
            found |= self.query(Box.of_points([p, q]).expand(pad))
        return found


# ---------------------------------------------------------------- effect areas


def cone(origin: Vec, direction_deg: float, length: float) -> list[Vec]:
    """A cone as a triangle whose width at any distance equals that distance."""
    a = math.radians(direction_deg)
    half = math.atan(0.5)
    left = (
        origin[0] + length / math.cos(half) * math.cos(a - half),
        origin[1] + length / math.cos(half) * math.sin(a - half),
    )
    right = (
        origin[0] + length / math.cos(half) * math.cos(a + half),
        origin[1] + length / math.cos(half) * math.sin(a + half),
    )
    return convex_hull([origin, left, right])


def square(center: Vec, side: float) -> list[Vec]:
    h = side / 2
    cx, cy = center
    return [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]


def footprint_within(foot: Footprint, pos: Vec, area: Area, distance: float) -> bool:
    """The footprint grown by ``distance`` on every side overlaps the area (grid reach)."""
    return area.overlaps(sweep(foot, pos, pos, grow=distance))


def blocked(a: Vec, b: Vec, walls: Sequence[Wall] | None) -> bool:
    """Whether a sight-blocking wall crosses the segment a-b (None: walls not synced)."""
    if not walls:
        return False
    return any(
        w.blocks_sight and segments_intersect(a, b, (w.c[0], w.c[1]), (w.c[2], w.c[3]))
        for w in walls
    )


def snap(value: float, size: float) -> float:
    return math.floor(value / size + 0.5) * size
