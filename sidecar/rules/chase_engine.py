"""The chase's rules (RULES.md §6): turns, dashes, complications, escape checks, endings.

Everything here works on an edited ``ChaseDoc`` inside the event's transaction and writes
cards, ops and tracker state into ``ctx.out``. The GM actions and event handlers that call
it live in :mod:`sidecar.rules.chase`.
"""

from __future__ import annotations

from typing import Any

from sidecar.engine import EventContext, RuleError
from sidecar.models import Creature, Token
from sidecar.protocol import AddCombatantOp, SetInitiativeOp, Speaker, StatusOp
from sidecar.rules.chase_content import ChaseMap, ChaseTable, text_in
from sidecar.rules.chase_effects import NativeCreature, blind_source
from sidecar.rules.chase_models import (
    MAX_LOG,
    CatchOffer,
    ChaseDoc,
    EndReason,
    LogEntry,
    Participant,
    Role,
    chase_key,
)
from sidecar.rules.checks import ability_check, exhaustion_speed
from sidecar.rules.effects import (
    ConditionLedger,
    Effect,
    ExhaustionEffect,
    Resolution,
    Run,
    SaveEffect,
    Target,
    ledger_key,
    release_condition,
    update_creature,
)
from sidecar.rules.publish import publish
from sidecar.rules.scene import clock, token_key

REACH_FT = 5
EXTRA_DASH_DC = 10
DROP_OUT_LEVEL = 5


# ---------------------------------------------------------------- lookups


def load_chase(ctx: EventContext, chase_id: str, *, running: bool = True) -> ChaseDoc:
    key = chase_key(chase_id)
    if ctx.state.get(key, ChaseDoc) is None:
        raise RuleError(f"unknown chase {chase_id!r}")
    chase = ctx.state.edit(key, ChaseDoc)
    if running and chase.status != "running":
        raise RuleError(f"chase {chase_id!r} has ended ({chase.end_reason})")
    return chase


def table_of(ctx: EventContext, table_id: str) -> ChaseTable:
    table = ctx.content.get_as("chase_table", table_id, ChaseTable)
    if table is None:
        known = ", ".join(ctx.content.all("chase_table")) or "none"
        raise RuleError(f"unknown chase table {table_id!r} (known: {known})")
    return table


def map_of(ctx: EventContext, map_id: str) -> ChaseMap:
    found = ctx.content.get_as("chase_map", map_id, ChaseMap)
    if found is None:
        raise RuleError(f"unknown chase map {map_id!r}")
    return found


def participant(chase: ChaseDoc, pid: str) -> Participant:
    found = chase.participants.get(pid)
    if found is None:
        raise RuleError(f"{pid!r} is not in chase {chase.id!r}")
    return found


def creature_for(ctx: EventContext, p: Participant) -> Creature:
    """The participant's creature: a private copy of its token's snapshot, or its own."""
    if p.token_id and p.scene_id:
        token = ctx.state.get(token_key(p.scene_id, p.token_id), Token)
        if token is not None and token.creature is not None:
            return token.creature.model_copy(deep=True)
    if p.creature is not None:
        return p.creature
    raise RuleError(f"{p.name!r} has no creature snapshot")


def creature_view(ctx: EventContext, p: Participant) -> Creature:
    """The participant's creature for reading only (no copy: never change it)."""
    if p.token_id and p.scene_id:
        token = ctx.state.get(token_key(p.scene_id, p.token_id), Token)
        if token is not None and token.creature is not None:
            return token.creature
    if p.creature is not None:
        return p.creature
    raise RuleError(f"{p.name!r} has no creature snapshot")


def target_for(ctx: EventContext, p: Participant) -> Target:
    return Target(creature_for(ctx, p), p.token_id, p.scene_id)


def free_dashes(creature: Creature) -> int:
    return max(1, 3 + creature.ability_mod("con"))


def base_speed(ctx: EventContext, creature: Creature) -> int:
    return exhaustion_speed(creature.speed, creature.exhaustion, ctx.ruleset)


# ---------------------------------------------------------------- building


def initiative_of(
    ctx: EventContext,
    combat_id: str | None,
    token_id: str | None,
    given: float | None,
    creature: Creature,
    res: Resolution,
) -> float:
    """A given or known initiative; otherwise roll d20 + Dex and tell the module."""
    if given is not None:
        return given
    if combat_id and token_id:
        info = clock(ctx.state).combats.get(combat_id)
        for combatant in info.combatants if info else []:
            if combatant.token_id == token_id and combatant.initiative is not None:
                return combatant.initiative
    roll = ctx.dice.d20(creature.ability_mod("dex"), flavor="initiative")
    res.say(ctx.t("chase.line.initiative", name=creature.name, total=roll.total), roll)
    if token_id:
        res.ops.append(SetInitiativeOp(token_id=token_id, initiative=roll.total))
    return float(roll.total)


def new_participant(
    *,
    pid: str,
    role: Role,
    creature: Creature,
    initiative: float,
    position: int,
    token_id: str | None = None,
    scene_id: str | None = None,
    keep_creature: bool = False,
    in_sight: bool = True,
    start_segment: str | None = None,
) -> Participant:
    return Participant(
        id=pid,
        name=creature.name,
        role=role,
        token_id=token_id,
        scene_id=scene_id,
        creature=creature if keep_creature else None,
        initiative=initiative,
        position_ft=position,
        free_dashes=free_dashes(creature),
        prone="prone" in creature.statuses,
        in_sight=in_sight,
        seen_all_round=in_sight,
        path=[start_segment] if start_segment else [],
    )


def store_new_chase(ctx: EventContext, chase: ChaseDoc) -> ChaseDoc:
    key = chase_key(chase.id)
    existing = ctx.state.get(key, ChaseDoc)
    if existing is not None and existing.status == "running":
        raise RuleError(f"chase {chase.id!r} is already running")
    ctx.state.put(key, chase)
    update_tracking(chase)
    return ctx.state.edit(key, ChaseDoc)


def child_chase(chase: ChaseDoc, chase_id: str, people: list[Participant]) -> ChaseDoc:
    """A chase split off ``chase``: same scene, combat, table, map and round."""
    return ChaseDoc(
        id=chase_id,
        scene_id=chase.scene_id,
        combat_id=chase.combat_id,
        table_id=chase.table_id,
        map_id=chase.map_id,
        sight_range_ft=chase.sight_range_ft,
        round=chase.round,
        combat_round=chase.combat_round,
        parent=chase.id,
        participants={p.id: p for p in people},
    )


def fresh_chase_id(ctx: EventContext, base: str) -> str:
    taken = {key.split(":", 1)[1] for key in ctx.state.keys("chase:")}
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


# ---------------------------------------------------------------- tracking


def update_tracking(chase: ChaseDoc) -> None:
    """Leader (the pursuer nearest the quarries), distances, and sight by range."""
    pursuers = chase.active("pursuer")
    leader = max(pursuers, key=lambda p: p.position_ft, default=None)
    chase.leader = leader.id if leader else None
    chase.distances = {}
    for quarry in chase.active("quarry"):
        if leader is None:
            continue
        gap = quarry.position_ft - leader.position_ft
        chase.distances[quarry.id] = gap
        if chase.sight_range_ft is not None:
            quarry.in_sight = abs(gap) <= chase.sight_range_ft
            if not quarry.in_sight:
                quarry.seen_all_round = False


def state_data(ctx: EventContext, chase: ChaseDoc) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for p in chase.order():
        try:
            creature: Creature | None = creature_view(ctx, p)
        except RuleError:
            creature = None
        rows.append(
            {
                "id": p.id,
                "name": p.name,
                "role": p.role,
                "token_id": p.token_id,
                "initiative": p.initiative,
                "position_ft": p.position_ft,
                "speed": creature.speed if creature else None,
                "free_dashes": p.free_dashes,
                "dashes_used": p.dashes_used,
                "dashes_left": max(0, p.free_dashes - p.dashes_used),
                "dash_next": p.dash_next,
                "exhaustion": creature.exhaustion if creature else None,
                "exhaustion_gained": p.exhaustion_gained,
                "prone": p.prone or bool(creature and "prone" in creature.statuses),
                "blinded_this_turn": p.blinded_this_turn,
                "difficult_ft": p.difficult_ft,
                "lose_ft": p.lose_ft,
                "status": p.status,
                "out": p.status == "out",
                "acted": p.acted_round >= chase.round,
                "in_sight": p.in_sight if p.role == "quarry" else None,
                "factors": [f.model_dump() for f in p.factors],
                "segment": p.path[-1] if p.path else None,
            }
        )
    upcoming = next((p.id for p in chase.active() if p.acted_round < chase.round), None)
    return {
        "id": chase.id,
        "status": chase.status,
        "end_reason": chase.end_reason,
        "round": chase.round,
        "table": chase.table_id,
        "map": chase.map_id,
        "combat_id": chase.combat_id,
        "scene_id": chase.scene_id,
        "leader": chase.leader,
        "distances": dict(chase.distances),
        "next": upcoming if chase.status == "running" else None,
        "participants": rows,
        "offers": [o.model_dump() for o in chase.offers],
        "log": [e.model_dump() for e in chase.log[-50:]],
        "parent": chase.parent,
        "children": list(chase.children),
    }


def publish_changed(ctx: EventContext) -> None:
    """Send the tracker state of every chase this event changed."""
    for key, value in ctx.state.pending_changes().items():
        if key.startswith("chase:") and isinstance(value, ChaseDoc):
            ctx.out.state("chase", value.id, state_data(ctx, value))


def card(
    ctx: EventContext,
    res: Resolution,
    title: str,
    *,
    speaker: Participant | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    if not (res.public or res.gm or res.ops):
        return
    who = Speaker(alias=speaker.name, token_id=speaker.token_id) if speaker is not None else None
    publish(ctx, res, title=title, speaker=who, data=data)


# ---------------------------------------------------------------- effects on participants


def chase_run(
    ctx: EventContext, chase: ChaseDoc, p: Participant, res: Resolution, source_name: str
) -> Run:
    """An interpreter run whose chase effects land on participant ``p`` of ``chase``."""
    return Run(
        ctx,
        f"chase:{chase.id}",
        source_name,
        resolution=res,
        variables={
            "chase_id": chase.id,
            "chase_participant": p.id,
            "condition_source": f"chase:{chase.id}",
        },
        hooks={"chase_join": join_hook},
    )


def join_hook(run: Run, target: Target, native: NativeCreature, distance: int) -> None:
    """A native creature joins as a pursuer of the target (a new chase if the target hunts)."""
    ctx = run.ctx
    chase = load_chase(ctx, str(run.variables["chase_id"]))
    hunted = participant(chase, str(run.variables["chase_participant"]))
    chase.joined_counter += 1
    pid = f"{chase.id}-native-{chase.joined_counter}"
    creature = native.creature(pid, ctx.language)
    initiative = initiative_of(ctx, None, None, None, creature, run.resolution)
    joiner = new_participant(
        pid=pid,
        role="pursuer",
        creature=creature,
        initiative=initiative,
        position=hunted.position_ft - distance,
        keep_creature=True,
    )
    joiner.acted_round = chase.round  # it starts acting next round
    if chase.combat_id:
        run.resolution.ops.append(
            AddCombatantOp(
                scene_id=chase.scene_id, name=creature.name, initiative=initiative, key=pid
            )
        )
    if hunted.role == "quarry":
        chase.participants[pid] = joiner
        update_tracking(chase)
        return
    # the hunter becomes the hunted: a second chase runs beside this one
    child_id = fresh_chase_id(ctx, f"{chase.id}-r{chase.joined_counter}")
    quarry = hunted.model_copy(deep=True)
    quarry.role = "quarry"
    quarry.in_sight = True
    quarry.seen_all_round = True
    child = child_chase(chase, child_id, [quarry, joiner])
    store_new_chase(ctx, child)
    chase.children.append(child_id)
    run.resolution.say(ctx.t("chase.line.reversed", name=hunted.name, chase=child_id))


def stand_up(ctx: EventContext, target: Target) -> StatusOp | None:
    """Standing ends prone whoever put it there."""
    ledger = ctx.state.get(ledger_key(target.creature.id), ConditionLedger)
    op: StatusOp | None = None
    for source in list(ledger.holders.get("prone", [])) if ledger else []:
        op = release_condition(ctx, target.creature, "prone", source) or op
    if "prone" in target.creature.statuses:
        update_creature(
            ctx, target, lambda c: c.statuses.remove("prone") if "prone" in c.statuses else None
        )
        op = StatusOp(actor_id=target.creature.id, status="prone", active=False)
    if op is not None:
        op.token_id = target.token_id
    return op


# ---------------------------------------------------------------- a turn


def _movement(
    ctx: EventContext, chase: ChaseDoc, p: Participant, target: Target, dash: bool, res: Resolution
) -> tuple[int, bool]:
    """Feet this participant can cover this turn, and whether the dash is an extra one."""
    creature = target.creature
    speed = base_speed(ctx, creature)
    if p.blinded_this_turn:
        speed //= 2
        res.say(ctx.t("chase.line.blind_half", name=p.name))
    movement = speed * (2 if dash else 1)
    extra = False
    if dash:
        p.dashes_used += 1
        extra = p.dashes_used > p.free_dashes
        left = max(0, p.free_dashes - p.dashes_used)
        key = "chase.line.dash_extra" if extra else "chase.line.dash"
        res.say(ctx.t(key, name=p.name, feet=movement, left=left, used=p.dashes_used))
    else:
        res.say(ctx.t("chase.line.no_dash", name=p.name, feet=movement))
    if p.prone or "prone" in creature.statuses:
        movement -= speed // 2
        p.prone = False
        op = stand_up(ctx, target)
        if op is not None:
            res.ops.append(op)
        res.say(ctx.t("chase.line.stand", name=p.name, feet=speed // 2))
    if p.lose_ft:
        movement -= p.lose_ft
        res.say(ctx.t("chase.line.lost", name=p.name, feet=p.lose_ft))
        p.lose_ft = 0
    movement = max(0, movement)
    if p.difficult_ft:
        rough = p.difficult_ft
        if movement >= 2 * rough:
            movement -= rough
            p.difficult_ft = 0
        else:
            crossed = movement // 2
            p.difficult_ft = rough - crossed
            movement = crossed
        res.say(ctx.t("chase.line.difficult", name=p.name, feet=rough))
    return movement, extra


def _limit_for(chase: ChaseDoc, p: Participant) -> int | None:
    """A pursuer stops beside the nearest quarry ahead of it (it cannot run through)."""
    if p.role != "pursuer":
        return None
    ahead = [q.position_ft for q in chase.active("quarry") if q.position_ft >= p.position_ft]
    return min(ahead) - REACH_FT if ahead else None


def _advance(
    ctx: EventContext,
    chase: ChaseDoc,
    p: Participant,
    target: Target,
    movement: int,
    res: Resolution,
) -> None:
    start = p.position_ft
    goal = start + movement
    limit = _limit_for(chase, p)
    if limit is not None:
        goal = max(start, min(goal, limit))
    if chase.map_id is None:
        p.position_ft = goal
        return
    route = map_of(ctx, chase.map_id)
    if not p.path:
        p.path = [route.start]
    p.stopped = False
    position = start
    while position < goal:
        segment = route.segment(p.path[-1])
        seg_start = sum(route.segment(s).length_ft for s in p.path[:-1])
        seg_end = seg_start + segment.length_ft
        for obstacle in sorted(segment.obstacles, key=lambda o: o.at_ft):
            at = seg_start + obstacle.at_ft
            if not position < at <= goal:
                continue
            res.say(text_in(obstacle.text, ctx.language))
            before = p.lose_ft
            chase_run(ctx, chase, p, res, text_in(obstacle.text, ctx.language)).run_all(
                obstacle.effects, target
            )
            if p.stopped:
                goal = at
                break
            if p.lose_ft > before:
                goal = max(at, goal - (p.lose_ft - before))
                p.lose_ft = before
        if p.stopped or goal <= seg_end:
            position = goal
            break
        choices = segment.next
        if not choices:
            goal = max(start, seg_end)
            position = goal
            res.say(ctx.t("chase.line.route_end", name=p.name))
            break
        nxt = p.branch_choice if p.branch_choice in choices else choices[0]
        p.path.append(nxt)
        position = max(position, seg_end)  # a runner may start beyond the first segment
    p.stopped = False
    p.position_ft = position


def _next_in_order(chase: ChaseDoc, p: Participant) -> Participant:
    order = chase.order()
    index = next(i for i, q in enumerate(order) if q.id == p.id)
    for step in range(1, len(order) + 1):
        candidate = order[(index + step) % len(order)]
        if candidate.active:
            return candidate
    return p


def roll_complication(
    ctx: EventContext, chase: ChaseDoc, roller: Participant, forced: int | None, res: Resolution
) -> None:
    table = table_of(ctx, chase.table_id)
    table_name = text_in(table.name, ctx.language)
    if forced is not None:
        if not 1 <= forced <= table.faces:
            raise RuleError(f"complication_roll must be 1-{table.faces} for {table.die}")
        value = forced
        res.say(ctx.t("chase.line.roll", name=roller.name, roll=value, table=table_name))
        res.say_gm(ctx.t("chase.line.forced"))
    else:
        roll = ctx.dice.roll(f"1{table.die}", flavor="chase.complication")
        value = roll.total
        res.say(ctx.t("chase.line.roll", name=roller.name, roll=value, table=table_name), roll)
    entry = table.lookup(value)
    text = text_in(entry.text, ctx.language)
    if not entry.complication:
        res.say(ctx.t("chase.line.no_complication"))
        _log(
            chase,
            LogEntry(
                round=chase.round,
                roller=roller.id,
                roll=value,
                entry=entry.id,
                text=text,
                forced=forced is not None,
            ),
        )
        return
    victim = _next_in_order(chase, roller)
    res.say(ctx.t("chase.line.complication", target=victim.name, text=text), css="complication")
    _log(
        chase,
        LogEntry(
            round=chase.round,
            roller=roller.id,
            target=victim.id,
            roll=value,
            entry=entry.id,
            text=text,
            forced=forced is not None,
        ),
    )
    target = target_for(ctx, victim)
    hp_before = target.creature.hp.value
    chase_run(ctx, chase, victim, res, text).run_all(entry.effects, target)
    _check_down(ctx, victim, target, hp_before, res)


def _log(chase: ChaseDoc, entry: LogEntry) -> None:
    chase.log.append(entry)
    if len(chase.log) > MAX_LOG:
        del chase.log[: len(chase.log) - MAX_LOG]


def _check_down(
    ctx: EventContext, p: Participant, target: Target, hp_before: int, res: Resolution
) -> None:
    """Dropping to 0 hit points on the way takes a participant out of the chase."""
    if p.active and hp_before > 0 and target.creature.hp.value <= 0:
        p.status = "out"
        res.say(ctx.t("chase.line.down", name=p.name))


def _extra_dash_save(
    ctx: EventContext, chase: ChaseDoc, p: Participant, target: Target, res: Resolution
) -> None:
    before = target.creature.exhaustion
    save: list[Effect] = [
        SaveEffect(ability="con", dc=EXTRA_DASH_DC, on_fail=[ExhaustionEffect(levels=1)])
    ]
    res.say(ctx.t("chase.line.extra_save", name=p.name))
    chase_run(ctx, chase, p, res, ctx.t("chase.source.extra_dash")).run_all(save, target)
    gained = target.creature.exhaustion - before
    if gained > 0:
        p.exhaustion_gained += gained
    if target.creature.exhaustion >= DROP_OUT_LEVEL and p.active:
        p.status = "out"
        res.say(ctx.t("chase.line.drop_out", name=p.name, level=target.creature.exhaustion))


def take_turn(
    ctx: EventContext,
    chase: ChaseDoc,
    p: Participant,
    *,
    forced_roll: int | None = None,
    dash: bool | None = None,
) -> None:
    """One participant's turn: move (dashing unless told not to), roll a complication for
    the next participant, then the end-of-turn save for a dash beyond the free ones."""
    res = Resolution()
    target = target_for(ctx, p)
    wants_dash = p.dash_next if dash is None else dash
    movement, extra = _movement(ctx, chase, p, target, wants_dash, res)
    before = p.position_ft
    hp_before = target.creature.hp.value
    _advance(ctx, chase, p, target, movement, res)
    res.say(
        ctx.t(
            "chase.line.position", name=p.name, moved=p.position_ft - before, position=p.position_ft
        )
    )
    p.dash_next = True
    p.acted_round = chase.round
    if p.role == "quarry":
        chase.offers = [o for o in chase.offers if o.quarry != p.id]
    _check_down(ctx, p, target, hp_before, res)
    roll_complication(ctx, chase, p, forced_roll, res)
    if extra and p.active:
        _extra_dash_save(ctx, chase, p, target, res)
    if p.blinded_this_turn:
        p.blinded_this_turn = False
        op = release_condition(ctx, target.creature, "blinded", blind_source(chase.id, p.id))
        if op is not None:
            op.token_id = p.token_id
            res.ops.append(op)
    update_tracking(chase)
    title = ctx.t("chase.title.turn", round=chase.round, name=p.name)
    card(ctx, res, title, speaker=p, data={"chase_id": chase.id, "participant": p.id})
    if p.role == "pursuer" and p.active:
        _offer_catches(ctx, chase, p)
    if not check_end(ctx, chase) and all(q.acted_round >= chase.round for q in chase.active()):
        end_round(ctx, chase)


def _offer_catches(ctx: EventContext, chase: ChaseDoc, pursuer: Participant) -> None:
    for quarry in chase.active("quarry"):
        if 0 <= quarry.position_ft - pursuer.position_ft <= REACH_FT:
            chase.offers = [
                o for o in chase.offers if not (o.pursuer == pursuer.id and o.quarry == quarry.id)
            ]
            chase.offers.append(CatchOffer(pursuer=pursuer.id, quarry=quarry.id, round=chase.round))
            res = Resolution()
            res.say_gm(ctx.t("chase.line.catch_offer", pursuer=pursuer.name, quarry=quarry.name))
            ctx.render(
                "generic.html.j2",
                title=ctx.t("chase.title.catch"),
                visibility="gm",
                data={
                    "chase_id": chase.id,
                    "actions": [
                        {
                            "action": "chase.catch",
                            "label": ctx.t("chase.button.catch"),
                            "params": {
                                "chase_id": chase.id,
                                "pursuer": pursuer.id,
                                "quarry": quarry.id,
                            },
                        }
                    ],
                },
                lines=[{"text": ln.text, "roll": None, "css": ""} for ln in res.gm],
            )


# ---------------------------------------------------------------- end of round and endings


def escape_threshold(ctx: EventContext, chase: ChaseDoc) -> int | None:
    scores = [creature_view(ctx, p).passive_perception for p in chase.active("pursuer")]
    return max(scores) if scores else None


def end_round(ctx: EventContext, chase: ChaseDoc) -> None:
    """Each quarry still chased tries to slip away: Dex (Stealth) strictly above the best
    passive Perception among its pursuers; automatic failure if seen all round."""
    res = Resolution()
    threshold = escape_threshold(ctx, chase)
    finished_round = chase.round
    within_reach = {o.quarry for o in chase.offers}
    if threshold is not None:
        for quarry in chase.active("quarry"):
            creature = creature_view(ctx, quarry)
            if quarry.id in within_reach:
                # a pursuer stands beside it waiting for the GM's word: no slipping away
                res.say(ctx.t("chase.line.within_reach", name=quarry.name))
                continue
            if quarry.in_sight and quarry.seen_all_round:
                res.say(ctx.t("chase.line.in_sight", name=quarry.name))
                continue
            advantage = any(f.mode > 0 for f in quarry.factors)
            disadvantage = any(f.mode < 0 for f in quarry.factors)
            result = ability_check(
                ctx.dice,
                creature,
                "dex",
                None,
                skill="ste",
                ruleset=ctx.ruleset,
                advantage=advantage,
                disadvantage=disadvantage,
            )
            escaped = result.total > threshold
            key = "chase.line.escaped" if escaped else "chase.line.not_escaped"
            res.say(ctx.t(key, name=quarry.name, total=result.total), result.roll)
            res.say_gm(ctx.t("chase.line.threshold", threshold=threshold))
            res.facts.append(
                {
                    "fact": "escape_check",
                    "quarry": quarry.id,
                    "total": result.total,
                    "threshold": threshold,
                    "escaped": escaped,
                    "mode": result.mode,
                }
            )
            if escaped:
                quarry.status = "escaped"
                chase.offers = [o for o in chase.offers if o.quarry != quarry.id]
    chase.round += 1
    for quarry in chase.active("quarry"):
        quarry.seen_all_round = quarry.in_sight
    update_tracking(chase)
    card(
        ctx, res, ctx.t("chase.title.round_end", round=finished_round), data={"chase_id": chase.id}
    )
    check_end(ctx, chase)


def check_end(ctx: EventContext, chase: ChaseDoc) -> bool:
    if chase.status != "running":
        return True
    quarries = [p for p in chase.participants.values() if p.role == "quarry"]
    if not any(q.active for q in quarries):
        statuses = {q.status for q in quarries}
        reason: EndReason = (
            "all_escaped"
            if statuses == {"escaped"}
            else "all_caught"
            if statuses == {"caught"}
            else "quarries_gone"
        )
        finish(ctx, chase, reason)
        return True
    if not chase.active("pursuer"):
        finish(ctx, chase, "pursuers_out")
        return True
    return False


def finish(ctx: EventContext, chase: ChaseDoc, reason: EndReason) -> None:
    chase.status = "ended"
    chase.end_reason = reason
    chase.offers = []
    res = Resolution()
    res.say(ctx.t(f"chase.end.{reason}"))
    for p in chase.order():
        if p.role == "quarry":
            res.say(ctx.t(f"chase.status.{p.status}", name=p.name))
    ctx.render(
        "generic.html.j2",
        title=ctx.t("chase.title.end", chase=chase.id),
        data={"chase_id": chase.id, "end_reason": reason},
        lines=[{"text": ln.text, "roll": None, "css": ""} for ln in res.public],
    )


def lines_card(
    ctx: EventContext,
    title: str,
    lines: list[str],
    *,
    gm: bool = False,
    data: dict[str, Any] | None = None,
) -> None:
    ctx.render(
        "generic.html.j2",
        title=title,
        visibility="gm" if gm else "public",
        data=data or {},
        lines=[{"text": text, "roll": None, "css": ""} for text in lines],
    )
