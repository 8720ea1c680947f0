"""Where traps are: each scene's compiled trap regions in a spatial index, the traps a
move's path crosses (in path order), and who stands in a trap's effect area."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from sidecar.engine import EventContext, RuleError
from sidecar.geometry import (
    Area,
    Box,
    CirclePrim,
    ConvexPrim,
    Footprint,
    SpatialIndex,
    Vec,
    blocked,
    compile_shape,
    cone,
    feet_to_px,
    first_contact,
    lerp,
    snap,
    square,
    sweep,
)
from sidecar.models import Creature, Region, Token, TrapPlacement, Waypoint
from sidecar.rules.scene import SceneDoc, get_scene, scene_key, scene_tokens
from sidecar.rules.traps_builder import effective
from sidecar.rules.traps_model import TrapDef

GROUND_TRIGGERS = ("pressure_plate", "trip_wire", "cover")
JUMP_ACTIONS = ("displace", "teleport", "blink", "jump")
AIR_ACTIONS = ("fly",)
#: move methods that put a token down without walking (only the end position counts)
PLACED_METHODS = ("drop", "teleport", "paste", "undo", "config")


@dataclass
class PlacedTrap:
    region: Region
    placement: TrapPlacement
    trigger: Area
    effect: Area | None

    @property
    def region_id(self) -> str:
        return self.region.id


@dataclass
class SceneTraps:
    scene: SceneDoc
    traps: dict[str, PlacedTrap]
    index: SpatialIndex


def _areas(region: Region, trip_wire: bool) -> tuple[Area | None, Area | None]:
    trigger = Area(bottom=region.elevation.bottom, top=region.elevation.top)
    effect = Area(bottom=region.elevation.bottom, top=region.elevation.top)
    for shape in region.shapes:
        prim = compile_shape(shape)
        is_line = shape.type == "line"
        if shape.hole:
            trigger.holes.append(prim)
            effect.holes.append(prim)
            continue
        if not trip_wire or is_line:
            trigger.solids.append(prim)
        if not is_line:
            effect.solids.append(prim)
    return (trigger if trigger.solids else None), (effect if effect.solids else None)


def build(ctx: EventContext, scene: SceneDoc) -> SceneTraps:
    cell = scene.grid.size * 4
    index = SpatialIndex(cell)
    traps: dict[str, PlacedTrap] = {}
    for region in scene.regions.values():
        if region.trap is None:
            continue
        try:
            trip_wire = effective(ctx.content, region.trap).trigger.type == "trip_wire"
        except RuleError:
            continue  # an unknown trap id: the GM sees it when acting on it
        trigger, effect_area = _areas(region, trip_wire)
        if trigger is None:
            continue
        traps[region.id] = PlacedTrap(region, region.trap, trigger, effect_area)
        index.insert(region.id, trigger.box)
    return SceneTraps(scene, traps, index)


def scene_traps(ctx: EventContext, scene_id: str) -> SceneTraps:
    """The scene's traps and index, cached until the scene document changes."""
    scene = get_scene(ctx.state, scene_id)
    name = f"traps.index:{scene_id}"
    cached = ctx.state.cached(name)
    if isinstance(cached, SceneTraps) and cached.scene is scene:
        return cached
    built = build(ctx, scene)
    ctx.state.set_cached(name, scene_key(scene_id), built)
    return built


def placed(ctx: EventContext, scene_id: str, region_id: str) -> tuple[PlacedTrap, TrapDef]:
    traps = scene_traps(ctx, scene_id)
    found = traps.traps.get(region_id)
    if found is None:
        raise RuleError(f"region {region_id!r} on scene {scene_id!r} holds no trap")
    return found, effective(ctx.content, found.placement)


# ---------------------------------------------------------------- who presses what


def presses(trap: TrapDef, creature: Creature | None, airborne: bool) -> bool:
    """Whether this creature, moving this way, sets off the trap's trigger."""
    trigger = trap.trigger
    if trigger.type == "interaction":
        return False
    if trigger.type in GROUND_TRIGGERS:
        if airborne and trigger.ignores_flying:
            return False
        if creature is not None and creature.flying and trigger.ignores_flying:
            return False
        if trigger.weight and creature is not None and creature.size == "tiny":
            return trigger.tiny_triggers
    return True


def _in_height(area: Area, elevation: float) -> bool:
    if area.bottom is not None and elevation < area.bottom:
        return False
    return not (area.top is not None and elevation > area.top)


def _floor(area: Area) -> float:
    return area.bottom if area.bottom is not None else 0.0


@dataclass
class Hit:
    region_id: str
    distance: float
    segment: int
    position: Vec


def _points(path: list[Waypoint]) -> list[Vec]:
    return [(w.x, w.y) for w in path]


def crossings(
    ctx: EventContext,
    traps: SceneTraps,
    token: Token,
    path: list[Waypoint],
    method: str,
) -> list[Hit]:
    """Every armed-or-not trap whose trigger the token's path crosses, in path order.

    A trap the token already stood on at the start does not count; each trap counts once.
    """
    grid = traps.scene.grid
    foot = Footprint.of(token, grid)
    creature = token.creature
    points = _points(path)
    pad = max(foot.width, foot.height)
    hits: dict[str, Hit] = {}

    def consider(
        key: str,
        a: Vec,
        b: Vec,
        seg: int,
        travelled: float,
        length: float,
        elevation: float,
        airborne: bool,
    ) -> None:
        if key in hits:
            return
        item = traps.traps[key]
        trap = effective(ctx.content, item.placement)
        ground = trap.trigger.type in GROUND_TRIGGERS
        up = airborne or (ground and elevation > _floor(item.trigger) + 1e-6)
        if not presses(trap, creature, up):
            return
        if not ground and not _in_height(item.trigger, elevation):
            return
        t = first_contact(item.trigger, foot, a, b)
        if t is None:
            return
        hits[key] = Hit(key, travelled + t * length, seg, lerp(a, b, t))

    if method in PLACED_METHODS or len(points) == 1:
        if method in PLACED_METHODS and not ctx.settings.drop_triggers:
            return []
        end = points[-1]
        for key in traps.index.query(Box.of_points([end]).expand(pad)):
            consider(
                key,
                end,
                end,
                len(points) - 1,
                0.0,
                0.0,
                path[-1].elevation,
                path[-1].action in AIR_ACTIONS,
            )
        return sorted(hits.values(), key=lambda h: h.distance)

    start = points[0]
    started_on = {
        key
        for key in traps.index.query(Box.of_points([start]).expand(pad))
        if traps.traps[key].trigger.overlaps(foot.corners(*start))
    }
    travelled = 0.0
    for seg in range(len(points) - 1):
        a, b = points[seg], points[seg + 1]
        wa, wb = path[seg], path[seg + 1]
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        airborne = wb.action in AIR_ACTIONS
        elevation = max(wa.elevation, wb.elevation)
        if wb.action in JUMP_ACTIONS:
            # a jump or teleport touches the floor only where it lands
            for key in traps.index.query(Box.of_points([b]).expand(pad)):
                if key not in started_on:
                    consider(key, b, b, seg, travelled + length, 0.0, wb.elevation, False)
        else:
            for key in traps.index.query_segment(a, b, pad):
                if key not in started_on:
                    consider(key, a, b, seg, travelled, length, elevation, airborne)
        travelled += length
    return sorted(hits.values(), key=lambda h: h.distance)


def stop_point(traps: SceneTraps, hit: Hit, path: list[Waypoint], token: Token) -> Vec:
    """Where a token that steps onto a pit ends up: half a square past first contact, on the
    grid, as long as that spot is still over the pit."""
    grid = traps.scene.grid
    foot = Footprint.of(token, grid)
    points = _points(path)
    a = points[min(hit.segment, len(points) - 1)]
    b = points[min(hit.segment + 1, len(points) - 1)]
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    c = hit.position
    if length > 0:
        remaining = math.hypot(b[0] - c[0], b[1] - c[1])
        step = min(grid.size / 2, remaining)
        c = (c[0] + dx / length * step, c[1] + dy / length * step)
    snapped = (snap(c[0], grid.size), snap(c[1], grid.size))
    area = traps.traps[hit.region_id].trigger
    if area.overlaps(foot.corners(*snapped)):
        return snapped
    return c


# ---------------------------------------------------------------- effect areas


def _origin(item: PlacedTrap) -> Vec:
    if item.placement.origin is not None:
        return (item.placement.origin.x, item.placement.origin.y)
    return (item.effect or item.trigger).center()


def in_area(
    ctx: EventContext,
    traps: SceneTraps,
    item: PlacedTrap,
    trap: TrapDef,
    positions: dict[str, Vec] | None = None,
    trigger_token: str | None = None,
) -> list[Token]:
    """Tokens with a creature inside the trap's effect area (``positions`` overrides where
    a token stands, e.g. the mover at the point it reached)."""
    grid = traps.scene.grid
    spec = trap.area
    tokens = [t for t in scene_tokens(ctx.state, traps.scene.id) if t.creature is not None]
    moved = positions or {}
    if spec.shape == "self":
        return [t for t in tokens if t.id == trigger_token]
    size = feet_to_px(spec.size_ft, grid)
    origin = _origin(item)
    trigger_area = item.effect or item.trigger
    if spec.shape == "radius":
        shape: Area | None = Area(solids=[CirclePrim(origin[0], origin[1], size)])
    elif spec.shape == "cone":
        direction = item.placement.direction or 0.0
        shape = Area(solids=[ConvexPrim(cone(origin, direction, size))])
    elif spec.shape == "square":
        shape = Area(solids=[ConvexPrim(square(origin, size))])
    else:
        shape = None
    # a cheap box test first, so a scene of many tokens costs little
    reach = size if spec.shape == "within" else 0.0
    bounds = (shape or trigger_area).box
    result: list[Token] = []
    for token in tokens:
        pos = moved.get(token.id, (token.x, token.y))
        foot = Footprint.of(token, grid)
        token_box = Box(
            pos[0] - reach,
            pos[1] - reach,
            pos[0] + foot.width + reach,
            pos[1] + foot.height + reach,
        )
        if not bounds.overlaps(token_box):
            continue
        if shape is not None:
            inside = shape.overlaps(foot.corners(*pos))
        elif spec.shape == "trigger":
            inside = trigger_area.overlaps(foot.corners(*pos))
        else:  # within: grid reach around the trigger
            inside = trigger_area.overlaps(sweep(foot, pos, pos, grow=size))
        if inside:
            result.append(token)
    return result


# ---------------------------------------------------------------- noticing


def near_path(
    traps: SceneTraps,
    token: Token,
    path: list[Waypoint],
    radius_ft: float,
    wanted: Callable[[str], bool] | None = None,
) -> list[tuple[str, Vec]]:
    """Traps within ``radius_ft`` of the path and in sight from somewhere on it: pairs of
    (region id, the point of the path the token saw it from). ``wanted`` filters the
    candidates before any geometry (e.g. traps this creature could notice at all)."""
    grid = traps.scene.grid
    foot = Footprint.of(token, grid)
    radius = feet_to_px(radius_ft, grid)
    points = _points(path)
    walls = traps.scene.walls
    pad = radius + max(foot.width, foot.height)
    segments = list(zip(points, points[1:], strict=False)) or [(points[0], points[0])]
    found: dict[str, Vec] = {}
    skipped: set[str] = set()
    for a, b in segments:
        for key in traps.index.query_segment(a, b, pad):
            if key in found or key in skipped:
                continue
            if wanted is not None and not wanted(key):
                skipped.add(key)
                continue
            area = traps.traps[key].trigger
            if not area.overlaps(sweep(foot, a, b, grow=radius)):
                continue
            if not walls:
                found[key] = b
                continue
            for p in (a, b):
                near = area.overlaps(sweep(foot, p, p, grow=radius))
                if near and not blocked(foot.center(*p), area.center(), walls):
                    found[key] = p
                    break
    return list(found.items())
