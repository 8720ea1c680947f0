"""The trap engine (RULES.md §1): moves, interactions and turns in; cards and ops out.

A move is checked against the scene's trap index: every armed trap whose trigger the
token's path crosses goes off in path order, a pit ends the move where the token fell in,
and traps within sight of the path may be noticed passively on the way. Interactions
(opening a trapped chest, knocking a beam over) fire traps on objects. Complex traps and
GM actions live in :mod:`traps_sphere` and :mod:`traps_actions`.
"""

from __future__ import annotations

from typing import Any

from sidecar.engine import EventContext, on
from sidecar.geometry import Vec
from sidecar.models import Token
from sidecar.protocol import CombatTurn, Interaction, MoveTokenOp, TimeAdvance, TokenMove
from sidecar.rules import objects, traps_effects  # noqa: F401  (registers effect kinds)
from sidecar.rules.checks import passive_score
from sidecar.rules.effects import Line, Resolution, Target, release_condition, resolve
from sidecar.rules.publish import publish
from sidecar.rules.scene import SceneDoc, clock, get_scene, get_token, scene_key, token_key
from sidecar.rules.traps_builder import effective
from sidecar.rules.traps_index import (
    Hit,
    PlacedTrap,
    SceneTraps,
    crossings,
    in_area,
    near_path,
    presses,
    scene_traps,
    stop_point,
)
from sidecar.rules.traps_model import TrapDef
from sidecar.rules.traps_sphere import entering, sphere_turn, start
from sidecar.rules.traps_state import (
    TrapState,
    announce,
    edit,
    is_armed,
    load,
    public_name,
    rearm_due,
    text,
    trap_key,
    trap_name,
)

# ---------------------------------------------------------------- firing


def _targets(
    ctx: EventContext,
    traps: SceneTraps,
    item: PlacedTrap,
    trap: TrapDef,
    positions: dict[str, Vec],
    trigger_token: Token | None,
    res_lines: list[str],
) -> list[Target]:
    scene_id = traps.scene.id
    tokens = in_area(ctx, traps, item, trap, positions, trigger_token.id if trigger_token else None)
    if trigger_token is not None and trap.area.shape == "self" and not tokens:
        tokens = [trigger_token] if trigger_token.creature is not None else []
    tokens.sort(key=lambda t: t.id)
    targets = [Target.of(t, scene_id) for t in tokens]
    if trap.area.picks <= 0:
        return targets
    picked: list[Target] = []
    for _ in range(trap.area.picks):
        if not targets:
            res_lines.append(ctx.t("trap.card.no_target"))
            continue
        picked.append(ctx.dice.choice(targets))
    return picked


def fire(
    ctx: EventContext,
    traps: SceneTraps,
    item: PlacedTrap,
    trap: TrapDef,
    *,
    trigger_token: Token | None,
    positions: dict[str, Vec] | None = None,
    cause: str = "",
) -> bool:
    """Set the trap off if it is armed; True if it went off."""
    scene_id = traps.scene.id
    region_id = item.region_id
    key = trap_key(scene_id, region_id)
    state = load(ctx, scene_id, region_id, trap.id)
    if not is_armed(ctx, state):
        if state.status == "jammed" and trigger_token is not None:
            ctx.render(
                "text.html.j2",
                title=trap_name(ctx, trap),
                visibility="gm",
                text=ctx.t("trap.card.jammed_held", name=trigger_token.name),
            )
        return False
    shown = public_name(ctx, trap, state)
    missing: list[str] = []
    targets = _targets(ctx, traps, item, trap, positions or {}, trigger_token, missing)
    variables: dict[str, Any] = {"condition_source": key}
    if trap.depth_ft:
        variables["depth_ft"] = trap.depth_ft
    res = resolve(ctx, trap.effects, targets, source_id=key, source_name=shown, variables=variables)
    for line in missing:
        res.say(line)
    state = edit(ctx, scene_id, region_id, trap.id)
    _aftermath(ctx, trap, state, targets, res)
    _spend(ctx, trap, state)
    state.fired += 1
    state.revealed = True
    if trap.complex is not None:
        start(ctx, traps, item, trap, state, res)
    who = trigger_token.name if trigger_token else ctx.t("trap.card.nobody")
    intro = text(ctx, trap.sprung)
    gm_intro = ctx.t(
        "trap.card.gm_fired",
        trap=trap_name(ctx, trap),
        region=item.region.name or region_id,
        who=who,
        cause=cause or "-",
    )
    publish(
        ctx,
        res,
        title=ctx.t("trap.card.sprung_title", name=shown),
        gm_title=ctx.t("trap.card.sprung_title", name=trap_name(ctx, trap)),
        intro=intro,
        gm_intro=gm_intro,
        data={
            "trap": {"scene_id": scene_id, "region_id": region_id, "name": trap_name(ctx, trap)},
            "gm_trap": {"trap_id": trap.id, "status": state.status},
        },
    )
    announce(ctx, state)
    return True


def _spend(ctx: EventContext, trap: TrapDef, state: TrapState) -> None:
    """After going off: once-only traps stay triggered; others re-arm on a clock or by hand."""
    reset = trap.reset
    if reset.policy == "rearm" and reset.rounds == 0:
        state.status = "armed"
        return
    state.status = "triggered"
    state.rearm_round = state.rearm_combat = state.rearm_time = None
    if reset.policy != "rearm":
        return
    now = clock(ctx.state)
    combat = next((c for c in now.combats.values() if c.scene_id in (state.scene_id, None)), None)
    if combat is not None:
        state.rearm_combat = combat.combat_id
        state.rearm_round = combat.round + reset.rounds
    elif now.world_time is not None:
        state.rearm_time = now.world_time + 6 * reset.rounds
    else:
        state.rearm_time = 6.0 * reset.rounds  # armed again once world time is known


def _aftermath(
    ctx: EventContext, trap: TrapDef, state: TrapState, targets: list[Target], res: Resolution
) -> None:
    after = trap.aftermath
    if after.difficult_terrain:
        state.difficult_terrain = True
        res.say(ctx.t("trap.after.difficult_terrain"))
    victims = list(dict.fromkeys(t.token_id for t in targets if t.token_id))
    if after.escape_condition:
        held_actors = {
            f["target"]
            for f in res.facts
            if f.get("fact") == "condition" and f.get("condition") == after.escape_condition
        }
        state.held = [t.token_id for t in targets if t.token_id and t.creature.id in held_actors]
        state.held = list(dict.fromkeys(state.held))
    if after.object:
        object_key = f"{state.scene_id}:{state.region_id}:{after.object}:{state.fired + 1}"
        hook = "trap.lid" if after.locks_victims else "trap.net"
        objects.create(
            ctx,
            after.object,
            object_key,
            scene_id=state.scene_id,
            region_id=state.region_id,
            hook=hook,
            hook_ref=trap_key(state.scene_id, state.region_id),
        )
        state.objects.append(object_key)
    if after.locks_victims and victims:
        state.locked_in = victims
        res.say(ctx.t("trap.after.lid_shut"))


# ---------------------------------------------------------------- noticing


def passive_notice(ctx: EventContext, traps: SceneTraps, token: Token, path: list[Any]) -> None:
    creature = token.creature
    if creature is None:
        return
    radius = ctx.settings.notice_radius_ft

    def could_notice(region_id: str) -> bool:
        trap = effective(ctx.content, traps.traps[region_id].placement)
        detection = trap.detection
        if detection.dc is None or not detection.passive:
            return False
        if passive_score(creature, detection.skill) < detection.dc:
            return False
        state = load(ctx, traps.scene.id, region_id, trap.id)
        return creature.id not in state.noticed_by and state.status != "destroyed"

    for region_id, _seen_from in sorted(near_path(traps, token, path, radius, could_notice)):
        item = traps.traps[region_id]
        trap = effective(ctx.content, item.placement)
        score = passive_score(creature, trap.detection.skill)
        how = ctx.t("trap.notice.passive", score=score, dc=trap.detection.dc)
        notice(ctx, traps, item, trap, token, how=how)


def notice(
    ctx: EventContext, traps: SceneTraps, item: PlacedTrap, trap: TrapDef, token: Token, how: str
) -> None:
    """A creature has spotted the trap: whisper the GM, tell the token's owners what they see."""
    creature = token.creature
    assert creature is not None
    state = edit(ctx, traps.scene.id, item.region_id, trap.id)
    if creature.id not in state.noticed_by:
        state.noticed_by.append(creature.id)
    ctx.render(
        "text.html.j2",
        title=ctx.t("trap.notice.gm_title", trap=trap_name(ctx, trap)),
        visibility="gm",
        data={"noticed": {"region_id": item.region_id, "trap_id": trap.id}},
        text=ctx.t("trap.notice.gm", name=creature.name, trap=trap_name(ctx, trap), how=how),
    )
    seen = text(ctx, trap.detection.notice)
    ctx.render(
        "text.html.j2",
        title=ctx.t("trap.notice.title", name=creature.name),
        visibility="owners",
        owners_of=[token.id],
        data={"notice": {"scene_id": traps.scene.id, "region_id": item.region_id}},
        text=seen or ctx.t("trap.notice.generic"),
    )
    announce(ctx, state)


# ---------------------------------------------------------------- handlers


@on("token.move")
def on_move(ctx: EventContext, event: TokenMove) -> None:
    if ctx.state.get(scene_key(event.scene_id), SceneDoc) is None:
        return
    token = ctx.state.get(token_key(event.scene_id, event.token_id), Token)
    if token is None:
        return
    traps = scene_traps(ctx, event.scene_id)
    path = list(event.path)
    end = path[-1]
    hits = crossings(ctx, traps, token, path, event.method) if traps.traps else []
    live: list[tuple[Hit, PlacedTrap, TrapDef]] = []
    stop: Vec | None = None
    for hit in hits:
        item = traps.traps[hit.region_id]
        trap = effective(ctx.content, item.placement)
        state = load(ctx, event.scene_id, hit.region_id, trap.id)
        armed = is_armed(ctx, state)
        if not armed and state.status != "jammed":
            continue
        live.append((hit, item, trap))
        if armed and trap.trigger.stops_movement:
            stop = stop_point(traps, hit, path, token)
            break
    seen_path = path
    if stop is not None and live:
        last = live[-1][0]
        seen_path = path[: last.segment + 1] + [end.model_copy(update={"x": stop[0], "y": stop[1]})]
    if traps.traps and event.method not in ("drop", "teleport", "paste", "undo", "config"):
        passive_notice(ctx, traps, token, seen_path)
    final = stop if stop is not None else (end.x, end.y)
    stored = ctx.state.edit(token_key(event.scene_id, token.id), Token)
    stored.x, stored.y = final
    stored.elevation = end.elevation
    if end.width is not None:
        stored.width = end.width
    if end.height is not None:
        stored.height = end.height
    if stop is not None:
        ctx.out.ops(
            [
                MoveTokenOp(
                    scene_id=event.scene_id,
                    token_id=token.id,
                    x=final[0],
                    y=final[1],
                    reason="trap",
                )
            ]
        )
    for hit, item, trap in live:
        mover = ctx.state.get(token_key(event.scene_id, token.id), Token) or token
        where = stop if (stop is not None and hit is live[-1][0]) else hit.position
        fire(
            ctx,
            traps,
            item,
            trap,
            trigger_token=mover,
            positions={token.id: where},
            cause=ctx.t("trap.cause.move"),
        )
    entering(ctx, traps, token, seen_path)


@on("interaction")
def on_interaction(ctx: EventContext, event: Interaction) -> None:
    if ctx.state.get(scene_key(event.scene_id), SceneDoc) is None:
        return
    traps = scene_traps(ctx, event.scene_id)
    item = traps.traps.get(event.target_id)
    if item is None:
        return
    trap = effective(ctx.content, item.placement)
    if event.kind not in trap.trigger.interactions:
        return
    token = get_token(ctx.state, event.scene_id, event.token_id)
    fire(ctx, traps, item, trap, trigger_token=token, cause=ctx.t(f"trap.cause.{event.kind}"))


@on("combat.turn")
def on_turn(ctx: EventContext, event: CombatTurn) -> None:
    _rearm_all(ctx)
    sphere_turn(ctx, event)


@on("time.advance")
def on_time(ctx: EventContext, event: TimeAdvance) -> None:
    _rearm_all(ctx)


def _rearm_all(ctx: EventContext) -> None:
    now = clock(ctx.state)
    for key, state in list(ctx.state.items("trap:", TrapState)):
        if rearm_due(state, now):
            edited = ctx.state.edit(key, TrapState)
            edited.status = "armed"
            edited.rearm_round = edited.rearm_combat = edited.rearm_time = None
            announce(ctx, edited)


# ---------------------------------------------------------------- objects a trap leaves


def _release(
    ctx: EventContext, state: TrapState, token_id: str, res: Resolution, condition: str | None
) -> None:
    token = ctx.state.get(token_key(state.scene_id, token_id), Token)
    if token is None or token.creature is None:
        return
    if condition:
        op = release_condition(
            ctx, token.creature, condition, trap_key(state.scene_id, state.region_id)
        )
        if op is not None:
            op.token_id = token_id
            res.ops.append(op)
    res.say(ctx.t("trap.after.freed", name=token.name))


def release_held(ctx: EventContext, key: str, token_id: str | None, res: Resolution) -> None:
    """Free one held creature (``token_id``) or all of them from a net or a closed lid."""
    state = ctx.state.get(key, TrapState)
    if state is None:
        return
    state = ctx.state.edit(key, TrapState)
    condition: str | None = None
    region = get_scene(ctx.state, state.scene_id).regions.get(state.region_id)
    if region is not None and region.trap is not None:
        condition = effective(ctx.content, region.trap).aftermath.escape_condition
    for group in ("held", "locked_in"):
        members: list[str] = getattr(state, group)
        for tid in list(members):
            if token_id is None or tid == token_id:
                members.remove(tid)
                _release(ctx, state, tid, res, condition if group == "held" else None)
    announce(ctx, state)


def _object_hook(
    ctx: EventContext, obj: objects.ObjectState, token_id: str | None, res: Resolution
) -> None:
    if obj.hook_ref:
        release_held(ctx, obj.hook_ref, token_id, res)


objects.register_hook("trap.net", _object_hook)
objects.register_hook("trap.lid", _object_hook)

__all__ = ["Line", "fire", "notice", "presses", "public_name", "trap_name"]
