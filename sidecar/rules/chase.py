"""Chase GM actions and event handlers (RULES.md §6).

GM actions: ``chase.start``, ``chase.next_turn``, ``chase.dash_choice``, ``chase.catch``,
``chase.give_up``, ``chase.end``, ``chase.split``, ``chase.join``, ``chase.reverse``,
``chase.sight``, ``chase.factors``, ``chase.route``, ``chase.odds``, ``chase.state``.
Events: ``combat.turn`` of a chase's combat drives its turns; ``rest.completed`` removes
the exhaustion a creature gained in chases (and only that).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sidecar.engine import EventContext, RuleError, gm_action, on
from sidecar.models import Creature, Identifier, Strict
from sidecar.protocol import CombatTurn, RestCompleted
from sidecar.rules import chase_effects  # noqa: F401  (registers the chase effect kinds)
from sidecar.rules.chase_content import EscapeFactorDef, text_in
from sidecar.rules.chase_engine import (
    check_end,
    child_chase,
    creature_view,
    end_round,
    finish,
    fresh_chase_id,
    initiative_of,
    lines_card,
    load_chase,
    map_of,
    new_participant,
    participant,
    publish_changed,
    state_data,
    store_new_chase,
    table_of,
    take_turn,
    update_tracking,
)
from sidecar.rules.chase_models import ChaseDoc, EscapeFactor, Participant, Role
from sidecar.rules.chase_odds import odds_lines, simulate_chase
from sidecar.rules.effects import (
    ConditionLedger,
    ExhaustionEffect,
    Line,
    Resolution,
    Run,
    Target,
    ledger_key,
)
from sidecar.rules.publish import publish
from sidecar.rules.scene import clock, creature_of, get_token, tokens_of_actor

ENVIRONMENTS = {"urban": "urban", "wilderness": "wilderness"}


class FactorSpec(Strict):
    id: str = Field(min_length=1, max_length=64)
    mode: Literal["advantage", "disadvantage"]
    note: str = Field(default="", max_length=200)


FactorRef = str | FactorSpec


class ParticipantSpec(Strict):
    token_id: Identifier
    scene_id: Identifier | None = None
    initiative: float | None = None
    distance_ft: int | None = Field(default=None, ge=0, le=100_000)
    position_ft: int | None = Field(default=None, ge=-100_000, le=100_000)
    in_sight: bool | None = None
    factors: list[FactorRef] = Field(default_factory=list, max_length=32)
    avoid_with_movement: bool | None = None


class JoinSpec(ParticipantSpec):
    role: Role


class ChaseStart(Strict):
    chase_id: Identifier | None = None
    scene_id: Identifier | None = None
    quarries: list[ParticipantSpec] = Field(min_length=1, max_length=50)
    pursuers: list[ParticipantSpec] = Field(min_length=1, max_length=50)
    distance_ft: int = Field(default=60, ge=0, le=100_000)
    environment: str = Field(default="urban", min_length=1, max_length=128)
    map_id: str | None = None
    combat_id: Identifier | None = None
    sight_range_ft: int | None = Field(default=None, ge=0, le=100_000)
    in_sight: bool = True


class ChaseRef(Strict):
    chase_id: Identifier


class NextTurn(ChaseRef):
    complication_roll: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="GM override: the GM rolled physical dice for the complication",
    )
    dash: bool | None = None


class DashChoice(ChaseRef):
    token_id: Identifier
    dash: bool


class Catch(ChaseRef):
    pursuer: Identifier
    quarry: Identifier
    force: bool = False


class GiveUp(ChaseRef):
    side: Literal["quarries", "pursuers"]
    token_ids: list[Identifier] = Field(default_factory=list, max_length=50)


class SplitGroup(Strict):
    chase_id: Identifier | None = None
    quarries: list[Identifier] = Field(min_length=1, max_length=50)
    pursuers: list[Identifier] = Field(default_factory=list, max_length=50)


class Split(ChaseRef):
    groups: list[SplitGroup] = Field(min_length=2, max_length=20)


class Join(ChaseRef):
    participants: list[JoinSpec] = Field(min_length=1, max_length=50)


class Reverse(ChaseRef):
    new_chase_id: Identifier | None = None
    quarries: list[Identifier] = Field(min_length=1, max_length=50)
    pursuers: list[ParticipantSpec] = Field(min_length=1, max_length=50)
    distance_ft: int = Field(default=30, ge=0, le=100_000)
    in_sight: bool = True
    end_original: bool = False


class Sight(ChaseRef):
    token_id: Identifier
    in_sight: bool


class Factors(ChaseRef):
    token_id: Identifier
    factors: list[FactorRef] = Field(default_factory=list, max_length=32)


class Route(ChaseRef):
    token_id: Identifier
    segment: str = Field(min_length=1, max_length=64)


class Odds(ChaseRef):
    trials: int = Field(default=10_000, ge=100, le=200_000)
    rounds: int = Field(default=10, ge=1, le=50)


# ---------------------------------------------------------------- helpers


def _factors(ctx: EventContext, refs: list[FactorRef]) -> list[EscapeFactor]:
    found: list[EscapeFactor] = []
    for ref in refs:
        if isinstance(ref, FactorSpec):
            mode: Literal[1, -1] = 1 if ref.mode == "advantage" else -1
            found.append(EscapeFactor(id=ref.id, mode=mode, note=ref.note))
            continue
        known = ctx.content.get_as("chase_factor", ref, EscapeFactorDef)
        if known is None:
            names = ", ".join(ctx.content.all("chase_factor"))
            raise RuleError(f"unknown escape factor {ref!r} (known: {names})")
        found.append(
            EscapeFactor(
                id=ref,
                mode=1 if known.mode == "advantage" else -1,
                note=text_in(known.name, ctx.language),
            )
        )
    return found


def _scene_of(ctx: EventContext, scene_id: str | None) -> str:
    scene = scene_id or clock(ctx.state).active_scene
    if scene is None:
        raise RuleError("no scene_id given and no active scene: send scene.sync first")
    return scene


def _build(
    ctx: EventContext,
    spec: ParticipantSpec,
    *,
    role: Role,
    scene_id: str,
    combat_id: str | None,
    position: int,
    in_sight: bool,
    start_segment: str | None,
    res: Resolution,
) -> Participant:
    scene = spec.scene_id or scene_id
    token = get_token(ctx.state, scene, spec.token_id)
    creature = creature_of(token)
    if creature.hp.value <= 0:
        raise RuleError(f"{token.name} is down (0 hit points) and cannot take part in a chase")
    initiative = initiative_of(ctx, combat_id, token.id, spec.initiative, creature, res)
    made = new_participant(
        pid=token.id,
        role=role,
        creature=creature,
        initiative=initiative,
        position=spec.position_ft if spec.position_ft is not None else position,
        token_id=token.id,
        scene_id=scene,
        in_sight=spec.in_sight if spec.in_sight is not None else in_sight,
        start_segment=start_segment,
    )
    made.name = token.name or creature.name
    made.factors = _factors(ctx, spec.factors)
    made.avoid_with_movement = spec.avoid_with_movement
    return made


def _names(people: list[Participant]) -> str:
    return ", ".join(p.name for p in people)


# ---------------------------------------------------------------- starting and driving


@gm_action("chase.start", ChaseStart)
def chase_start(ctx: EventContext, params: ChaseStart) -> None:
    table_id = ENVIRONMENTS.get(params.environment, params.environment)
    table = table_of(ctx, table_id)
    route = map_of(ctx, params.map_id) if params.map_id else None
    start_segment = route.start if route else None
    scene_id = _scene_of(ctx, params.scene_id)
    count = sum(1 for _ in ctx.state.keys("chase:"))
    chase_id = params.chase_id or fresh_chase_id(ctx, f"chase-{count + 1}")
    res = Resolution()
    people: dict[str, Participant] = {}
    sides: tuple[tuple[Role, list[ParticipantSpec]], ...] = (
        ("pursuer", params.pursuers),
        ("quarry", params.quarries),
    )
    for role, specs in sides:
        for spec in specs:
            if spec.token_id in people:
                raise RuleError(f"token {spec.token_id!r} appears twice in the chase")
            position = (
                0
                if role == "pursuer"
                else (spec.distance_ft if spec.distance_ft is not None else params.distance_ft)
            )
            people[spec.token_id] = _build(
                ctx,
                spec,
                role=role,
                scene_id=scene_id,
                combat_id=params.combat_id,
                position=position,
                in_sight=params.in_sight,
                start_segment=start_segment,
                res=res,
            )
    chase = store_new_chase(
        ctx,
        ChaseDoc(
            id=chase_id,
            scene_id=scene_id,
            combat_id=params.combat_id,
            table_id=table.id,
            map_id=params.map_id,
            sight_range_ft=params.sight_range_ft,
            participants=people,
        ),
    )
    quarries = chase.active("quarry")
    intro = ctx.t(
        "chase.line.started",
        quarries=_names(quarries),
        pursuers=_names(chase.active("pursuer")),
        distance=params.distance_ft,
        table=text_in(table.name, ctx.language),
    )
    res.public.insert(0, Line(intro))
    res.gm.insert(0, Line(intro))
    order = ", ".join(f"{p.name} ({p.initiative:g})" for p in chase.order())
    res.say(ctx.t("chase.line.order", order=order))
    for p in chase.order():
        res.say(ctx.t("chase.line.dashes", name=p.name, free=p.free_dashes))
    for q in quarries:
        if q.factors:
            res.say(
                ctx.t(
                    "chase.line.factors",
                    name=q.name,
                    factors=", ".join(f.note or f.id for f in q.factors),
                )
            )
    publish(ctx, res, title=ctx.t("chase.title.start"), data={"chase_id": chase.id})
    publish_changed(ctx)


@gm_action("chase.next_turn", NextTurn)
def chase_next_turn(ctx: EventContext, params: NextTurn) -> None:
    """Run the next participant's turn (for a chase that runs without a combat)."""
    chase = load_chase(ctx, params.chase_id)
    pending = [p for p in chase.active() if p.acted_round < chase.round]
    if not pending:
        end_round(ctx, chase)
        pending = [p for p in chase.active() if p.acted_round < chase.round]
    if chase.status == "running" and pending:
        take_turn(ctx, chase, pending[0], forced_roll=params.complication_roll, dash=params.dash)
    publish_changed(ctx)


@on("combat.turn")
def _combat_turn(ctx: EventContext, event: CombatTurn) -> None:
    for key, doc in list(ctx.state.items("chase:", ChaseDoc)):
        if doc.status != "running" or doc.combat_id != event.combat_id:
            continue
        chase = ctx.state.edit(key, ChaseDoc)
        by_token = {c.token_id: c.initiative for c in event.combatants if c.token_id}
        for p in chase.participants.values():
            value = by_token.get(p.token_id) if p.token_id else None
            if value is not None:
                p.initiative = value
        acted = any(p.acted_round >= chase.round for p in chase.active())
        if event.current.round > chase.combat_round > 0 and acted:
            end_round(ctx, chase)
        chase.combat_round = max(chase.combat_round, event.current.round)
        current = next(
            (
                p
                for p in chase.active()
                if (p.token_id and p.token_id == event.current.token_id)
                or p.id == event.current.combatant_id
            ),
            None,
        )
        if chase.status != "running" or current is None:
            continue
        if current.acted_round >= chase.round:
            end_round(ctx, chase)
            if chase.status != "running":
                continue
        take_turn(ctx, chase, current)
    publish_changed(ctx)


@gm_action("chase.dash_choice", DashChoice)
def chase_dash_choice(ctx: EventContext, params: DashChoice) -> None:
    """Dash or not on the participant's next turn (not dashing: e.g. to attack or cast)."""
    chase = load_chase(ctx, params.chase_id)
    participant(chase, params.token_id).dash_next = params.dash
    publish_changed(ctx)


# ---------------------------------------------------------------- endings


@gm_action("chase.catch", Catch)
def chase_catch(ctx: EventContext, params: Catch) -> None:
    chase = load_chase(ctx, params.chase_id)
    pursuer = participant(chase, params.pursuer)
    quarry = participant(chase, params.quarry)
    if pursuer.role != "pursuer" or quarry.role != "quarry" or not quarry.active:
        raise RuleError("a catch needs an active quarry and one of its pursuers")
    offered = any(o.pursuer == pursuer.id and o.quarry == quarry.id for o in chase.offers)
    if not offered and not params.force:
        raise RuleError(
            f"{pursuer.name} is not within reach of {quarry.name}; pass force to override"
        )
    quarry.status = "caught"
    chase.offers = [o for o in chase.offers if o.quarry != quarry.id]
    update_tracking(chase)
    lines_card(
        ctx,
        ctx.t("chase.title.catch"),
        [ctx.t("chase.line.caught", pursuer=pursuer.name, quarry=quarry.name)],
        data={"chase_id": chase.id},
    )
    check_end(ctx, chase)
    publish_changed(ctx)


@gm_action("chase.give_up", GiveUp)
def chase_give_up(ctx: EventContext, params: GiveUp) -> None:
    chase = load_chase(ctx, params.chase_id)
    role: Role = "quarry" if params.side == "quarries" else "pursuer"
    side = chase.active(role)
    chosen = [p for p in side if not params.token_ids or p.id in params.token_ids]
    unknown = set(params.token_ids) - {p.id for p in side}
    if unknown:
        raise RuleError(f"not active {role}s of this chase: {', '.join(sorted(unknown))}")
    for p in chosen:
        p.status = "gave_up"
    lines_card(
        ctx,
        ctx.t("chase.title.give_up"),
        [ctx.t("chase.line.gave_up", name=p.name) for p in chosen],
        data={"chase_id": chase.id},
    )
    if not chase.active(role):
        if role == "pursuer":
            for q in chase.active("quarry"):
                q.status = "escaped"
            finish(ctx, chase, "pursuers_gave_up")
        else:
            finish(ctx, chase, "quarries_gave_up")
    update_tracking(chase)
    publish_changed(ctx)


@gm_action("chase.end", ChaseRef)
def chase_end(ctx: EventContext, params: ChaseRef) -> None:
    chase = load_chase(ctx, params.chase_id)
    finish(ctx, chase, "gm_ended")
    publish_changed(ctx)


# ---------------------------------------------------------------- splitting, joining, reversal


@gm_action("chase.split", Split)
def chase_split(ctx: EventContext, params: Split) -> None:
    """The quarries split up: each group becomes its own chase (initiative kept)."""
    chase = load_chase(ctx, params.chase_id)
    placed: dict[str, str] = {}
    for index, group in enumerate(params.groups):
        for pid in group.quarries + group.pursuers:
            p = participant(chase, pid)
            if pid in placed:
                raise RuleError(f"{p.name} is in two groups")
            expected: Role = "quarry" if pid in group.quarries else "pursuer"
            if p.role != expected or not p.active:
                raise RuleError(f"{p.name} is not an active {expected} of this chase")
            placed[pid] = str(index)
    missing = [q.name for q in chase.active("quarry") if q.id not in placed]
    if missing:
        raise RuleError(f"every quarry must be in a group; missing: {', '.join(missing)}")
    lines: list[str] = []
    for index, group in enumerate(params.groups):
        child_id = group.chase_id or fresh_chase_id(ctx, f"{chase.id}-{chr(97 + index)}")
        people = [
            chase.participants[pid].model_copy(deep=True) for pid in group.quarries + group.pursuers
        ]
        child = store_new_chase(ctx, child_chase(chase, child_id, people))
        chase.children.append(child_id)
        lines.append(
            ctx.t(
                "chase.line.split_group",
                chase=child_id,
                quarries=_names(child.active("quarry")),
                pursuers=_names(child.active("pursuer")) or "-",
            )
        )
        if not group.pursuers:
            for q in child.active("quarry"):
                q.status = "escaped"
        check_end(ctx, child)
    chase.status = "ended"
    chase.end_reason = "split"
    chase.offers = []
    lines_card(ctx, ctx.t("chase.title.split"), lines, data={"chase_id": chase.id})
    publish_changed(ctx)


def _arrival_waits(chase: ChaseDoc, initiative: float) -> bool:
    """A newcomer whose initiative count has already passed this round acts next round."""
    return any(p.acted_round >= chase.round and p.initiative <= initiative for p in chase.active())


@gm_action("chase.join", Join)
def chase_join(ctx: EventContext, params: Join) -> None:
    chase = load_chase(ctx, params.chase_id)
    res = Resolution()
    leader = chase.participants.get(chase.leader) if chase.leader else None
    base = leader.position_ft if leader else 0
    route = map_of(ctx, chase.map_id) if chase.map_id else None
    for spec in params.participants:
        if spec.token_id in chase.participants:
            raise RuleError(f"{spec.token_id!r} is already in the chase")
        distance = spec.distance_ft if spec.distance_ft is not None else 30
        position = base - distance if spec.role == "pursuer" else base + distance
        p = _build(
            ctx,
            spec,
            role=spec.role,
            scene_id=_scene_of(ctx, chase.scene_id),
            combat_id=chase.combat_id,
            position=position,
            in_sight=True,
            start_segment=route.start if route else None,
            res=res,
        )
        if _arrival_waits(chase, p.initiative):
            p.acted_round = chase.round
        chase.participants[p.id] = p
        res.say(ctx.t("chase.line.joined", name=p.name, role=ctx.t(f"chase.role.{p.role}")))
    update_tracking(chase)
    publish(ctx, res, title=ctx.t("chase.title.join"), data={"chase_id": chase.id})
    publish_changed(ctx)


@gm_action("chase.reverse", Reverse)
def chase_reverse(ctx: EventContext, params: Reverse) -> None:
    """Role reversal: some participants become the quarry of a new chase."""
    chase = load_chase(ctx, params.chase_id)
    res = Resolution()
    people: dict[str, Participant] = {}
    for pid in params.quarries:
        source = participant(chase, pid)
        if not source.active:
            raise RuleError(f"{source.name} is no longer in the chase")
        copy = source.model_copy(deep=True)
        copy.role = "quarry"
        copy.position_ft = params.distance_ft
        copy.in_sight = params.in_sight
        copy.seen_all_round = params.in_sight
        copy.path = copy.path[:1]
        people[pid] = copy
    route = map_of(ctx, chase.map_id) if chase.map_id else None
    for spec in params.pursuers:
        if spec.token_id in people:
            raise RuleError(f"{spec.token_id!r} cannot hunt itself")
        existing = chase.participants.get(spec.token_id)
        if existing is not None:
            copy = existing.model_copy(deep=True)
            copy.role = "pursuer"
            copy.position_ft = spec.position_ft or 0
            copy.path = copy.path[:1]
            copy.factors = []
            people[copy.id] = copy
            continue
        p = _build(
            ctx,
            spec,
            role="pursuer",
            scene_id=_scene_of(ctx, chase.scene_id),
            combat_id=chase.combat_id,
            position=0,
            in_sight=True,
            start_segment=route.start if route else None,
            res=res,
        )
        if _arrival_waits(chase, p.initiative):
            p.acted_round = chase.round
        people[p.id] = p
    child_id = params.new_chase_id or fresh_chase_id(ctx, f"{chase.id}-r")
    child = store_new_chase(ctx, child_chase(chase, child_id, list(people.values())))
    chase.children.append(child_id)
    res.say(
        ctx.t(
            "chase.line.reverse",
            chase=child_id,
            quarries=_names(child.active("quarry")),
            pursuers=_names(child.active("pursuer")),
        )
    )
    if params.end_original:
        finish(ctx, chase, "gm_ended")
    publish(ctx, res, title=ctx.t("chase.title.reverse"), data={"chase_id": child_id})
    publish_changed(ctx)


# ---------------------------------------------------------------- GM adjustments


@gm_action("chase.sight", Sight)
def chase_sight(ctx: EventContext, params: Sight) -> None:
    chase = load_chase(ctx, params.chase_id)
    quarry = participant(chase, params.token_id)
    if quarry.role != "quarry":
        raise RuleError(f"{quarry.name} is not a quarry")
    quarry.in_sight = params.in_sight
    if not params.in_sight:
        quarry.seen_all_round = False
    publish_changed(ctx)


@gm_action("chase.factors", Factors)
def chase_factors(ctx: EventContext, params: Factors) -> None:
    chase = load_chase(ctx, params.chase_id)
    participant(chase, params.token_id).factors = _factors(ctx, params.factors)
    publish_changed(ctx)


@gm_action("chase.route", Route)
def chase_route(ctx: EventContext, params: Route) -> None:
    """Which branch a participant takes at the next fork of the chase map."""
    chase = load_chase(ctx, params.chase_id)
    if chase.map_id is None:
        raise RuleError("this chase has no map")
    route = map_of(ctx, chase.map_id)
    if params.segment not in {s.id for s in route.segments}:
        raise RuleError(f"no segment {params.segment!r} on map {route.id!r}")
    participant(chase, params.token_id).branch_choice = params.segment
    publish_changed(ctx)


@gm_action("chase.state", ChaseRef)
def chase_state(ctx: EventContext, params: ChaseRef) -> None:
    chase = load_chase(ctx, params.chase_id, running=False)
    ctx.out.state("chase", chase.id, state_data(ctx, chase))


@gm_action("chase.odds", Odds)
def chase_odds(ctx: EventContext, params: Odds) -> None:
    """Simulate the chase from here many times: each quarry's odds of getting away."""
    chase = load_chase(ctx, params.chase_id)
    seed = ctx.dice.randbelow(1 << 62)
    result = simulate_chase(ctx, chase, trials=params.trials, rounds=params.rounds, seed=seed)
    data = {"chase_id": chase.id, "odds": result}
    ctx.out.state("chase", chase.id, state_data(ctx, chase) | {"odds": result})
    lines_card(
        ctx,
        ctx.t("chase.title.odds"),
        odds_lines(ctx, chase, result, params.trials),
        gm=True,
        data=data,
    )


# ---------------------------------------------------------------- rests


def _rest_target(ctx: EventContext, actor_id: str, token_id: str | None) -> Target | None:
    tokens = tokens_of_actor(ctx.state, actor_id)
    tokens.sort(key=lambda st: st[1].id != token_id)
    for scene_id, token in tokens:
        if token.creature is not None:
            return Target(token.creature.model_copy(deep=True), token.id, scene_id)
    for _, chase in ctx.state.items("chase:", ChaseDoc):
        for p in chase.participants.values():
            if p.creature is not None and p.creature.id == actor_id:
                creature: Creature = p.creature.model_copy(deep=True)
                return Target(creature)
    return None


@on("rest.completed")
def _rest(ctx: EventContext, event: RestCompleted) -> None:
    """A short or long rest removes the exhaustion gained in chases, and no more."""
    ledger = ctx.state.get(ledger_key(event.actor_id), ConditionLedger)
    if ledger is None:
        return
    gained = {s: n for s, n in ledger.exhaustion_from.items() if s.startswith("chase:") and n > 0}
    if not gained:
        return
    target = _rest_target(ctx, event.actor_id, event.token_id)
    if target is None:
        return
    res = Resolution()
    run = Run(ctx, "chase", ctx.t("chase.source.rest"), resolution=res)
    for source, levels in gained.items():
        run.variables["condition_source"] = source
        ExhaustionEffect(levels=-levels).run(run, target)
    edited = ctx.state.edit(ledger_key(event.actor_id), ConditionLedger)
    for source in gained:
        edited.exhaustion_from.pop(source, None)
    for key, doc in list(ctx.state.items("chase:", ChaseDoc)):
        if any(
            _is_actor(ctx, p, event.actor_id) and p.exhaustion_gained
            for p in doc.participants.values()
        ):
            chase = ctx.state.edit(key, ChaseDoc)
            for p in chase.participants.values():
                if _is_actor(ctx, p, event.actor_id):
                    p.exhaustion_gained = 0
    res.public.insert(
        0, Line(ctx.t("chase.line.rest", name=target.name, levels=sum(gained.values())))
    )
    publish(ctx, res, title=ctx.t("chase.title.rest"))
    publish_changed(ctx)


def _is_actor(ctx: EventContext, p: Participant, actor_id: str) -> bool:
    try:
        return creature_view(ctx, p).id == actor_id
    except RuleError:
        return False
