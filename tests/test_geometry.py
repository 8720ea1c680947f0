"""Geometry: shapes (rotated rectangles, circles, ellipses, polygons, holes, wires), swept
footprints, first contact along a segment, the spatial index and effect areas."""

from __future__ import annotations

import math

from sidecar.geometry import (
    Area,
    Box,
    ConvexPrim,
    Footprint,
    SpatialIndex,
    blocked,
    compile_shape,
    cone,
    first_contact,
    snap,
    sweep,
)
from sidecar.models import (
    CircleShape,
    EllipseShape,
    LineShape,
    PolygonShape,
    RectangleShape,
    Region,
    Wall,
)
from sidecar.rules.traps_index import _areas

FOOT = Footprint(100, 100, 2)


def area(*shapes: object) -> Area:
    region = Region.model_validate({"id": "r", "shapes": [s.model_dump() for s in shapes]})  # type: ignore[attr-defined]
    trigger, _ = _areas(region, trip_wire=False)
    assert trigger is not None
    return trigger


def test_sharing_an_edge_is_not_overlapping_but_crossing_is() -> None:
    plate = area(RectangleShape(x=500, y=0, width=100, height=100))
    assert not plate.overlaps(FOOT.corners(400, 0))
    assert plate.overlaps(FOOT.corners(450, 0))
    assert first_contact(plate, FOOT, (0, 100), (1000, 100)) is None  # the row below
    t = first_contact(plate, FOOT, (0, 0), (1000, 0))
    assert t is not None and abs(t * 1000 - 402) < 0.01


def test_a_fast_diagonal_move_through_a_corner_is_caught() -> None:
    plate = area(RectangleShape(x=500, y=500, width=100, height=100))
    assert first_contact(plate, FOOT, (0, 0), (1000, 1000)) is not None
    assert first_contact(plate, FOOT, (0, 600), (600, 0)) is None  # passes beside it


def test_rotated_rectangle_circle_and_ellipse() -> None:
    diamond = area(RectangleShape(x=500, y=500, width=100, height=100, rotation=45))
    # the unrotated square's corner at (500, 500) is cut away by the rotation
    assert not diamond.overlaps(Footprint(10, 10).corners(501, 501))
    assert diamond.overlaps(FOOT.corners(500, 500))
    circle = area(CircleShape(x=0, y=0, radius=100))
    assert circle.overlaps(Footprint(10, 10).corners(60, 60))
    assert not circle.overlaps(Footprint(10, 10).corners(75, 75))  # corner beyond the arc
    ellipse = area(EllipseShape(x=0, y=0, radiusX=300, radiusY=50))
    assert ellipse.overlaps(Footprint(10, 10).corners(280, -5))
    assert not ellipse.overlaps(Footprint(10, 10).corners(0, 60))
    turned = area(EllipseShape(x=0, y=0, radiusX=300, radiusY=50, rotation=90))
    assert turned.overlaps(Footprint(10, 10).corners(-5, 280))


def test_concave_polygon_and_holes() -> None:
    ell = area(PolygonShape(points=[0, 0, 300, 0, 300, 100, 100, 100, 100, 300, 0, 300]))
    assert ell.overlaps(Footprint(50, 50).corners(200, 20))
    assert not ell.overlaps(Footprint(50, 50).corners(200, 200))  # in the notch
    donut = area(
        RectangleShape(x=0, y=0, width=500, height=500),
        RectangleShape(x=100, y=100, width=300, height=300, hole=True),
    )
    assert not donut.overlaps(FOOT.corners(200, 200))
    assert donut.overlaps(FOOT.corners(20, 200))
    assert donut.overlaps(FOOT.corners(50, 200))  # straddles the hole's edge


def test_trip_wire_is_crossed_only_by_a_footprint_that_reaches_it() -> None:
    wire = compile_shape(LineShape(points=[500, 0, 500, 300]))
    line = Area(solids=[wire])
    assert line.is_wire
    assert line.overlaps(sweep(FOOT, (0, 100), (1000, 100)))
    assert not line.overlaps(sweep(FOOT, (0, 400), (1000, 400)))
    assert not line.overlaps(sweep(FOOT, (0, 100), (390, 100)))


def test_spatial_index_returns_only_nearby_boxes() -> None:
    index = SpatialIndex(400)
    for i in range(100):
        for j in range(100):
            index.insert(f"{i}:{j}", Box(i * 1000, j * 1000, i * 1000 + 100, j * 1000 + 100))
    index.insert("huge", Box(-1e6, -1e6, 1e6, 1e6))
    near = index.query(Box(0, 0, 1500, 200))
    assert near == {"0:0", "1:0", "huge"}
    along = index.query_segment((0, 0), (99_000, 0), pad=50)
    assert len(along) == 101 and all(k == "huge" or k.endswith(":0") for k in along)


def test_cone_width_equals_distance_and_walls_block_sight() -> None:
    tri = cone((0, 0), 0, 600)
    prim = ConvexPrim(tri)
    assert prim.contains_point((590, 290)) and not prim.contains_point((590, 320))
    assert not prim.contains_point((-10, 0))
    assert math.isclose(max(p[0] for p in tri), 600)
    wall = [Wall(c=(5, -10, 5, 10))]
    assert blocked((0, 0), (10, 0), wall) and not blocked((0, 20), (10, 20), wall)
    assert not blocked((0, 0), (10, 0), None)
    assert snap(449, 100) == 400 and snap(450, 100) == 500
