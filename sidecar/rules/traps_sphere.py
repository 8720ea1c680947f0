"""Complex rolling traps (RULES.md §1.3, the rolling sphere): initiative, a turn that rolls
the sphere along its track hitting whoever is in the way, and being slowed by the party."""

from __future__ import annotations

import math

from pydantic import Field

from sidecar.engine import EventContext, RuleError, gm_action
from sidecar.geometry import Area, ConvexPrim, Footprint, Vec, feet_to_px, sweep
from sidecar.models import Strict, Token, Waypoint
from sidecar.protocol import AddCombatantOp, CombatTurn, RemoveCombatantOp
from sidecar.rules.checks import ability_check
from sidecar.rules.effects import Resolution, Target, resolve
from sidecar.rules.publish import publish
from sidecar.rules.scene import get_token, scene_tokens
from sidecar.rules.traps_index import PlacedTrap, SceneTraps, placed, scene_traps
from sidecar.rules.traps_model import TrapDef
from sidecar.rules.traps_state import (
    SphereState,
    TrapState,
    announce,
    edit,
    trap_key,
    trap_name,
)


def _track(item: PlacedTrap) -> list[Vec]:
    return [(p.x, p.y) for p in item.placement.track]


def track_length(points: list[Vec]) -> float:
    return sum(
        math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(points, points[1:], strict=False)
    )


def point_at(points: list[Vec], distance: float) -> Vec:
    """The point ``distance`` pixels along the track (clamped to its ends)."""
    if not points:
        return (0.0, 0.0)
    left = max(0.0, distance)
    for a, b in zip(points, points[1:], strict=False):
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        if left <= length and length > 0:
            t = left / length
            return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
        left -= length
    return points[-1]


def _body(center: Vec, size: float) -> list[Vec]:
    h = size / 2
    x, y = center
    return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]


def _rolled_over(points: list[Vec], start: float, end: float, size: float, step: float) -> Area:
    """The ground the sphere covers rolling from ``start`` to ``end`` along the track."""
    corners: list[ConvexPrim] = []
    samples = max(1, math.ceil((end - start) / max(step, 1.0)))
    prev = point_at(points, start)
    for k in range(1, samples + 1):
        here = point_at(points, start + (end - start) * k / samples)
        foot = Footprint(size, size)
        corners.append(
            ConvexPrim(
                sweep(
                    foot,
                    (prev[0] - size / 2, prev[1] - size / 2),
                    (here[0] - size / 2, here[1] - size / 2),
                )
            )
        )
        prev = here
    return Area(solids=list(corners))


def start(
    ctx: EventContext,
    traps: SceneTraps,
    item: PlacedTrap,
    trap: TrapDef,
    state: TrapState,
    res: Resolution,
) -> None:
    """The trap is released: it rolls initiative and joins the combat tracker."""
    assert trap.complex is not None
    roll = ctx.dice.d20(trap.complex.initiative_bonus, flavor="initiative")
    res.say(ctx.t("trap.sphere.initiative", total=roll.total), roll)
    res.say(ctx.t("trap.sphere.everyone_initiative"))
    state.sphere = SphereState(speed_ft=trap.complex.speed_ft, initiative=roll.total)
    if len(item.placement.track) < 2:
        res.say_gm(ctx.t("trap.sphere.no_track"))
    res.ops.append(
        AddCombatantOp(
            scene_id=traps.scene.id,
            name=trap_name(ctx, trap),
            initiative=roll.total,
            region_id=item.region_id,
            key=trap_key(traps.scene.id, item.region_id),
        )
    )


def _current_key(event: CombatTurn) -> str | None:
    for value in (event.current.combatant_id, event.current.token_id):
        if value and value.startswith("trap:"):
            return value
    return None


def sphere_turn(ctx: EventContext, event: CombatTurn) -> None:
    """On the sphere's own turn it rolls its speed along the track."""
    key = _current_key(event)
    if key is None:
        return
    state = ctx.state.get(key, TrapState)
    if state is None or state.sphere is None or not state.sphere.rolling:
        return
    roll_on(ctx, key, state)


def roll_on(ctx: EventContext, key: str, current: TrapState) -> None:
    item, trap = placed(ctx, current.scene_id, current.region_id)
    assert trap.complex is not None
    traps = scene_traps(ctx, current.scene_id)
    grid = traps.scene.grid
    points = _track(item)
    state = edit(ctx, current.scene_id, current.region_id, current.trap_id)
    sphere = state.sphere
    assert sphere is not None
    total_ft = track_length(points) * grid.distance / grid.size
    size = feet_to_px(trap.complex.size_ft, grid)
    begin_ft = sphere.position_ft
    end_ft = min(total_ft, begin_ft + sphere.speed_ft)
    px = grid.size / grid.distance
    covered = _rolled_over(points, begin_ft * px, end_ft * px, size, grid.size / 2)
    before = Area(solids=[ConvexPrim(_body(point_at(points, begin_ft * px), size))])
    hit: list[Target] = []
    for token in sorted(scene_tokens(ctx.state, current.scene_id), key=lambda t: t.id):
        if token.creature is None:
            continue
        corners = Footprint.of(token, grid).corners(token.x, token.y)
        if covered.overlaps(corners) and not before.overlaps(corners):
            hit.append(Target.of(token, current.scene_id))
    res = resolve(
        ctx,
        trap.complex.effects,
        hit,
        source_id=key,
        source_name=trap_name(ctx, trap),
        variables={"condition_source": key},
    )
    sphere.position_ft = end_ft
    intro = ctx.t("trap.sphere.rolls", distance=round(end_ft - begin_ft))
    if not hit:
        res.say(ctx.t("trap.sphere.hits_nobody"))
    if end_ft >= total_ft - 1e-6:
        _stop(ctx, state, res, ctx.t("trap.sphere.end_of_track"))
    publish(
        ctx,
        res,
        title=trap_name(ctx, trap),
        intro=intro,
        data={"sphere": {"position_ft": end_ft, "region_id": state.region_id}},
    )
    announce(ctx, state)


def _stop(ctx: EventContext, state: TrapState, res: Resolution, why: str) -> None:
    assert state.sphere is not None
    state.sphere.rolling = False
    res.say(why)
    res.ops.append(RemoveCombatantOp(key=trap_key(state.scene_id, state.region_id)))


def _sphere_area(ctx: EventContext, traps: SceneTraps, state: TrapState) -> Area | None:
    item = traps.traps.get(state.region_id)
    if item is None or state.sphere is None:
        return None
    trap = placed(ctx, state.scene_id, state.region_id)[1]
    assert trap.complex is not None
    grid = traps.scene.grid
    center = point_at(_track(item), state.sphere.position_ft * grid.size / grid.distance)
    return Area(solids=[ConvexPrim(_body(center, feet_to_px(trap.complex.size_ft, grid)))])


def rolling_spheres(ctx: EventContext, scene_id: str) -> list[tuple[str, TrapState]]:
    """The scene's rolling spheres; cached until a trap of the scene changes, so a plain
    move does not scan every trap state."""
    prefix = f"trap:{scene_id}:"
    name = f"rolling-spheres:{scene_id}"
    keys: list[str] | None = ctx.state.cached(name)
    if keys is None:
        keys = [
            key
            for key, st in ctx.state.items(prefix, TrapState)
            if st.sphere is not None and st.sphere.rolling
        ]
        ctx.state.set_cached(name, prefix, keys)
    found = []
    for key in keys:
        st = ctx.state.get(key, TrapState)
        if st is not None and st.sphere is not None and st.sphere.rolling:
            found.append((key, st))
    return found


def entering(ctx: EventContext, traps: SceneTraps, token: Token, path: list[Waypoint]) -> None:
    """A creature that moves into a rolling sphere's space must save too."""
    if token.creature is None:
        return
    rolling = rolling_spheres(ctx, traps.scene.id)
    if not rolling:
        return
    points = [(w.x, w.y) for w in path]
    foot = Footprint.of(token, traps.scene.grid)
    for key, st in rolling:
        area = _sphere_area(ctx, traps, st)
        if area is None or area.overlaps(foot.corners(*points[0])):
            continue
        segments = list(zip(points, points[1:], strict=False))
        if not any(area.overlaps(sweep(foot, a, b)) for a, b in segments):
            continue
        trap = placed(ctx, st.scene_id, st.region_id)[1]
        assert trap.complex is not None
        current = ctx.state.get(f"token:{traps.scene.id}:{token.id}", Token) or token
        res = resolve(
            ctx,
            trap.complex.effects,
            [Target.of(current, traps.scene.id)],
            source_id=key,
            source_name=trap_name(ctx, trap),
            variables={"condition_source": key},
        )
        publish(
            ctx,
            res,
            title=trap_name(ctx, trap),
            intro=ctx.t("trap.sphere.entered", name=token.name),
        )


class SlowSphere(Strict):
    scene_id: str
    region_id: str
    token_id: str = Field(description="the creature within 5 ft using its action")


@gm_action("trap.slow_sphere", SlowSphere)
def slow_sphere(ctx: EventContext, params: SlowSphere) -> None:
    """A creature within 5 ft braces against the sphere: Str check to slow it by 15 ft."""
    _item, trap = placed(ctx, params.scene_id, params.region_id)
    traps = scene_traps(ctx, params.scene_id)
    key = trap_key(params.scene_id, params.region_id)
    current = ctx.state.get(key, TrapState)
    if (
        trap.complex is None
        or current is None
        or current.sphere is None
        or not current.sphere.rolling
    ):
        raise RuleError("that trap is not rolling")
    token = get_token(ctx.state, params.scene_id, params.token_id)
    if token.creature is None:
        raise RuleError(f"token {token.name!r} has no creature snapshot")
    grid = traps.scene.grid
    area = _sphere_area(ctx, traps, current)
    foot = Footprint.of(token, grid)
    reach = feet_to_px(5, grid)
    if area is None or not area.overlaps(
        sweep(foot, (token.x, token.y), (token.x, token.y), grow=reach)
    ):
        raise RuleError(f"{token.name} is not within 5 ft of the sphere")
    result = ability_check(
        ctx.dice, token.creature, "str", trap.complex.slow_dc, ruleset=ctx.ruleset
    )
    res = Resolution()
    outcome = ctx.t("term.success") if result.success else ctx.t("term.failure")
    res.say(
        ctx.t(
            "card.check.line",
            name=token.name,
            label=ctx.t("ability.str"),
            total=result.total,
            result=outcome,
        ),
        result.roll,
    )
    res.say_gm(ctx.t("card.dc", dc=trap.complex.slow_dc))
    state = edit(ctx, params.scene_id, params.region_id, current.trap_id)
    assert state.sphere is not None
    if result.success:
        state.sphere.speed_ft = max(0.0, state.sphere.speed_ft - trap.complex.slow_by_ft)
        if state.sphere.speed_ft <= 0:
            _stop(ctx, state, res, ctx.t("trap.sphere.stopped"))
        else:
            res.say(ctx.t("trap.sphere.slowed", speed=round(state.sphere.speed_ft)))
    publish(ctx, res, title=trap_name(ctx, trap), intro=ctx.t("trap.sphere.brace", name=token.name))
    announce(ctx, state)
