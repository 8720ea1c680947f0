"""Poisons (RULES.md §3): the catalog, the four delivery types and what a dose does over time.

Each poison is data (content/poisons/): a save, damage, the conditions it holds, how long,
how it repeats and what wakes its sleepers. Deliveries are GM actions (coat a weapon, smear
an object, administer a drink, release a cloud) plus the events that complete them
(``weapon.hit`` with a piercing or slashing wound, ``interaction`` touching the object).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sidecar.content import LocalizedText, register_kind
from sidecar.engine import EventContext, RuleError, gm_action, on
from sidecar.models import Ability, Condition, Strict
from sidecar.protocol import Interaction, WeaponHit
from sidecar.rules.afflictions_core import (
    DAY,
    Affliction,
    AfflictionSet,
    DiceDuration,
    Session,
    damage_taken,
    last_save,
    localized_name,
    next_midnight,
    target_for_actor,
    target_for_token,
    world_now,
)
from sidecar.rules.afflictions_registry import Behaviour, register_behaviour
from sidecar.rules.effects import DamageSpec, Duration, Run, SaveEffect, Target, on_wound
from sidecar.rules.scene import find_token_anywhere, get_scene, scene_tokens
from sidecar.state import register_document

Delivery = Literal["contact", "ingested", "inhaled", "injury"]
Partial = Literal["none", "advantage", "half_damage"]


class RepeatSave(Strict):
    when: Literal["turn_start", "turn_end", "every_24h"]
    damage: str | None = None
    successes_to_end: int = Field(default=1, ge=1, le=100)


class FailByConditions(Strict):
    margin: int = Field(ge=1, le=50)
    conditions: list[Condition] = Field(default_factory=list)


class PoisonDef(Strict):
    id: str
    name: LocalizedText
    description: LocalizedText
    delivery: Delivery
    price_gp: int = Field(ge=0)
    ability: Ability = "con"
    dc: int = Field(ge=1, le=40)
    damage: str | None = None
    on_success: Literal["half", "none"] = "half"
    conditions: list[Condition] = Field(
        default_factory=list, description="on a failure; the first one carries the others"
    )
    fail_by: FailByConditions | None = None
    duration: DiceDuration | None = None
    repeat: RepeatSave | None = None
    wake_on: list[Literal["damage", "shake"]] = Field(default_factory=list)
    delayed: Literal["midnight"] | None = None
    unhealable: bool = False
    note: LocalizedText | None = None
    cured_by: list[str] = Field(
        default_factory=lambda: [
            "lesser_restoration",
            "greater_restoration",
            "protection_from_poison",
            "heal",
        ]
    )


register_kind("poison", "poisons", PoisonDef)


class Coat(Strict):
    poison: str
    doses: int = Field(ge=1, le=100)
    actor_id: str
    item_id: str


class Smear(Strict):
    poison: str
    scene_id: str | None = None


class PoisonSurfaces(Strict):
    """Poison waiting on weapons (``<actor>:<item>``) and on objects (by target id)."""

    coats: dict[str, Coat] = Field(default_factory=dict)
    smears: dict[str, Smear] = Field(default_factory=dict)


register_document("poison_surfaces", PoisonSurfaces)
SURFACES = "poison_surfaces"


def get_poison(ctx: EventContext, poison_id: str) -> PoisonDef:
    poison = ctx.content.get_as("poison", poison_id, PoisonDef)
    if poison is None:
        known = ", ".join(ctx.content.all("poison"))
        raise RuleError(f"unknown poison {poison_id!r}; known: {known}")
    return poison


def _surfaces(ctx: EventContext) -> PoisonSurfaces:
    if ctx.state.get(SURFACES, PoisonSurfaces) is None:
        ctx.state.put(SURFACES, PoisonSurfaces())
    return ctx.state.edit(SURFACES, PoisonSurfaces)


# ---------------------------------------------------------------- a dose takes hold


def immune_to_poison(target: Target) -> bool:
    c = target.creature
    return "poison" in c.damage_immunities and "poisoned" in c.condition_immunities


def deliver(
    s: Session,
    run: Run,
    target: Target,
    poison: PoisonDef,
    *,
    partial: Partial = "none",
    secret: bool = False,
) -> Affliction | None:
    """One dose reaches the target: the save, damage and conditions; a record if it lasts."""
    name = localized_name(s.ctx, poison.name)
    if immune_to_poison(target):
        run.resolution.say(run.t("afflictions.poison.immune", name=target.name, poison=name))
        run.resolution.facts.append(
            {"fact": "poison_immune", "target": target.creature.id, "poison": poison.id}
        )
        return None
    if poison.delayed == "midnight":
        aset = s.edit_set(target)
        aff = s.new_affliction(
            aset,
            "poison",
            poison.id,
            dc=poison.dc,
            secret=True,
            stage="waiting",
            onset_at=next_midnight(s.now),
            advantage=partial == "advantage",
            half_damage=partial == "half_damage",
        )
        run.resolution.say_gm(run.t("afflictions.poison.waiting", name=target.name, poison=name))
        return aff
    start = len(run.resolution.facts)
    _save(
        run,
        target,
        poison,
        poison.damage,
        half_on_success=poison.on_success == "half",
        partial=partial,
    )
    fact = last_save(run, target, start)
    if fact is None or fact["success"]:
        return None
    margin = int(fact["total"]) - int(fact["dc"])
    if not (poison.conditions or poison.repeat or poison.fail_by):
        return None
    aset = s.edit_set(target)
    aff = s.new_affliction(aset, "poison", poison.id, dc=poison.dc, secret=secret)
    shown: Duration | None = None
    if poison.duration is not None:
        amount, roll = poison.duration.roll(s.ctx.dice)
        aff.expires_at = s.now + poison.duration.seconds(amount)
        shown = Duration(amount=amount, unit=poison.duration.unit)
        if roll is not None:
            run.resolution.say_gm(run.t("afflictions.duration_roll", total=roll.total), roll)
    carrier_held = True
    for index, condition in enumerate(poison.conditions):
        if index > 0 and not carrier_held:
            run.resolution.say(
                run.t(
                    "afflictions.poison.rider_skipped",
                    name=target.name,
                    condition=run.t(f"condition.{condition}"),
                )
            )
            continue
        held = s.hold(run, target, aff, condition, shown)
        if index == 0:
            carrier_held = held
    if poison.fail_by and margin <= -poison.fail_by.margin and carrier_held:
        for condition in poison.fail_by.conditions:
            s.hold(run, target, aff, condition, shown)
    if poison.repeat is not None:
        if poison.repeat.when == "every_24h":
            aff.next_save_at = s.now + DAY
        else:
            aff.turn_clock = True
            aff.turn_at = s.now
    if poison.unhealable:
        aff.unhealable += damage_taken(run, target, start, "poison")
    if poison.note:
        run.resolution.say(localized_name(s.ctx, poison.note).format(name=target.name))
    if not aff.conditions and poison.repeat is None:
        aset.items.remove(aff)
        return None
    return aff


def _save(
    run: Run,
    target: Target,
    poison: PoisonDef,
    damage: str | None,
    *,
    half_on_success: bool,
    partial: Partial = "none",
) -> None:
    effect = SaveEffect(
        ability=poison.ability,
        dc=poison.dc,
        damage=[DamageSpec(formula=damage, type="poison")] if damage else [],
        half_on_success=half_on_success,
    )
    variables = dict(run.variables)
    if partial == "advantage":
        variables["save_advantage"] = True
    effect.run(
        run.nested(half_damage=partial == "half_damage" or run.half_damage, variables=variables),
        target,
    )


class PoisonBehaviour(Behaviour):
    kind = "poison"

    def poison(self, s: Session, aff: Affliction) -> PoisonDef:
        return get_poison(s.ctx, aff.ref)

    def name(self, s: Session, aff: Affliction) -> str:
        poison = s.ctx.content.get_as("poison", aff.ref, PoisonDef)
        return localized_name(s.ctx, poison.name) if poison else aff.ref

    def on_tick(self, s: Session, aset: AfflictionSet, aff: Affliction, what: str) -> None:
        poison = self.poison(s, aff)
        if what == "onset":
            self._midnight(s, aset, aff, poison)
        elif what == "save":
            aff.next_save_at = (aff.next_save_at or s.now) + DAY
            self._repeat(s, aset, aff, poison)
        elif what == "expire":
            s.end(aset, aff, "afflictions.ended.expired")

    def _midnight(
        self, s: Session, aset: AfflictionSet, aff: Affliction, poison: PoisonDef
    ) -> None:
        aff.onset_at = None
        aff.secret = False
        target = s.target(aset)
        run = s.run_for(aset, aff, s.title_of(aset, aff))
        run.resolution.say(run.t("afflictions.poison.midnight", name=target.name))
        partial: Partial = (
            "advantage" if aff.advantage else ("half_damage" if aff.half_damage else "none")
        )
        _save(run, target, poison, poison.damage, half_on_success=True, partial=partial)
        s.end(aset, aff, "afflictions.ended.spent")

    def _repeat(self, s: Session, aset: AfflictionSet, aff: Affliction, poison: PoisonDef) -> None:
        repeat = poison.repeat
        if repeat is None:
            return
        target = s.target(aset)
        run = s.run_for(aset, aff, s.title_of(aset, aff))
        start = len(run.resolution.facts)
        _save(run, target, poison, repeat.damage, half_on_success=False)
        fact = last_save(run, target, start)
        if poison.unhealable:
            aff.unhealable += damage_taken(run, target, start, "poison")
        if fact is not None and fact["success"]:
            aff.successes += 1
            if repeat.successes_to_end > 1:
                run.resolution.say(
                    run.t(
                        "afflictions.successes",
                        name=target.name,
                        count=aff.successes,
                        needed=repeat.successes_to_end,
                    )
                )
            if aff.successes >= repeat.successes_to_end:
                s.end(aset, aff, "afflictions.ended.saved")
        else:
            aff.failures += 1

    def on_turn(self, s: Session, aset: AfflictionSet, aff: Affliction, phase: str) -> None:
        poison = self.poison(s, aff)
        if poison.repeat is not None and poison.repeat.when == f"turn_{phase}":
            self._repeat(s, aset, aff, poison)

    def _wake(self, s: Session, aset: AfflictionSet, aff: Affliction, key: str) -> None:
        target = s.target(aset)
        run = s.run_for(aset, aff, s.title_of(aset, aff))
        run.resolution.say(run.t(key, name=target.name))
        s.release(run, target, aff, "unconscious")

    def on_damage(self, s: Session, aset: AfflictionSet, aff: Affliction, amount: int) -> None:
        poison = self.poison(s, aff)
        if amount > 0 and "unconscious" in aff.conditions and "damage" in poison.wake_on:
            self._wake(s, aset, aff, "afflictions.wake.damage")

    def on_shake(self, s: Session, aset: AfflictionSet, aff: Affliction) -> None:
        poison = self.poison(s, aff)
        if "unconscious" not in aff.conditions:
            return
        if "shake" in poison.wake_on:
            self._wake(s, aset, aff, "afflictions.wake.shaken")
        else:
            run = s.run_for(aset, aff, s.title_of(aset, aff))
            run.resolution.say(
                run.t(
                    "afflictions.wake.not_by_shaking",
                    name=aset.creature.name,
                    poison=self.name(s, aff),
                )
            )

    def on_heal(self, s: Session, aset: AfflictionSet, aff: Affliction, amount: int) -> None:
        if aff.unhealable <= 0:
            return
        target = s.target(aset)
        cap = max(0, target.creature.hp.max - aff.unhealable)
        run = s.run_plain(
            f"heal:{aff.iid}", s.title_of(aset, aff), aset.actor_id, aset.token_id, secret=True
        )
        run.resolution.say_gm(
            run.t(
                "afflictions.poison.unhealable",
                name=target.name,
                amount=amount,
                unhealable=aff.unhealable,
                cap=cap,
                poison=self.name(s, aff),
            )
        )

    def cure(self, s: Session, aset: AfflictionSet, aff: Affliction, method: str) -> bool:
        poison = self.poison(s, aff)
        if method != "gm" and method not in poison.cured_by:
            return False
        key = (
            "afflictions.ended.neutralized" if aff.stage == "waiting" else "afflictions.ended.cured"
        )
        s.end(aset, aff, key, method=s.ctx.t(f"afflictions.method.{method}"))
        if aff.unhealable:
            run = s.run_for(aset, aff, s.title_of(aset, aff))
            run.resolution.say_gm(
                run.t(
                    "afflictions.poison.healable_again",
                    name=aset.creature.name,
                    amount=aff.unhealable,
                )
            )
        return True

    def describe(self, s: Session, aff: Affliction) -> dict[str, Any]:
        poison = s.ctx.content.get_as("poison", aff.ref, PoisonDef)
        info: dict[str, Any] = {"unhealable": aff.unhealable}
        if poison is not None and poison.repeat is not None:
            info["repeat"] = poison.repeat.when
            info["successes_needed"] = poison.repeat.successes_to_end
        return info


register_behaviour(PoisonBehaviour())


# ---------------------------------------------------------------- deliveries


def _require(poison: PoisonDef, delivery: Delivery) -> None:
    if poison.delivery != delivery:
        raise RuleError(f"{poison.id} is a {poison.delivery} poison, not {delivery}")


def _title(ctx: EventContext, poison: PoisonDef) -> str:
    return ctx.t("afflictions.poison.title", poison=localized_name(ctx, poison.name))


def _deliver_to(
    ctx: EventContext,
    targets: list[Target],
    poison: PoisonDef,
    intro_key: str,
    *,
    partial: Partial = "none",
    secret: bool = False,
    wound: bool = False,
    **params: Any,
) -> None:
    s = Session(ctx, world_now(ctx))
    title = _title(ctx, poison)
    for target in targets:
        run = s.run_plain(
            f"dose:{poison.id}", title, target.creature.id, target.token_id, secret=secret
        )
        run.resolution.say(
            run.t(intro_key, name=target.name, poison=localized_name(ctx, poison.name), **params)
        )
        aff = deliver(s, run, target, poison, partial=partial, secret=secret)
        if aff is not None and wound:
            aff.wound_pending = True
    s.finish()


class CoatParams(Strict):
    """A weapon or ammunition (``item_id`` of ``actor_id``/``token_id``), or a trap's part
    (``region_id`` on ``scene_id``: spikes, a needle, darts)."""

    poison: str
    item_id: str | None = None
    region_id: str | None = None
    actor_id: str | None = None
    token_id: str | None = None
    scene_id: str | None = None
    doses: int = Field(default=1, ge=1, le=100)


def trap_part_key(scene_id: str, region_id: str) -> str:
    return f"trap:{scene_id}:{region_id}"


def _actor_of(
    ctx: EventContext, actor_id: str | None, token_id: str | None, scene_id: str | None
) -> str:
    if actor_id:
        return actor_id
    if token_id:
        return target_for_token(ctx, scene_id, token_id).creature.id
    raise RuleError("give actor_id or token_id")


@gm_action("poison.coat", CoatParams)
def coat(ctx: EventContext, params: CoatParams) -> None:
    """Coat a weapon or ammunition (an item of an actor) with an injury poison."""
    poison = get_poison(ctx, params.poison)
    _require(poison, "injury")
    if params.region_id is not None:
        if not params.scene_id:
            raise RuleError("coating a trap needs scene_id with region_id")
        key = trap_part_key(params.scene_id, params.region_id)
        actor_id, item_id = "", params.region_id
    elif params.item_id is not None:
        actor_id = _actor_of(ctx, params.actor_id, params.token_id, params.scene_id)
        key, item_id = f"{actor_id}:{params.item_id}", params.item_id
    else:
        raise RuleError("give item_id (a weapon) or region_id (a trap's part)")
    _surfaces(ctx).coats[key] = Coat(
        poison=poison.id, doses=params.doses, actor_id=actor_id, item_id=item_id
    )
    ctx.render(
        "text.html.j2",
        title=_title(ctx, poison),
        visibility="gm",
        text=ctx.t(
            "afflictions.poison.coated",
            item=item_id,
            poison=localized_name(ctx, poison.name),
            doses=params.doses,
        ),
        data={
            "coat": {
                "actor_id": actor_id,
                "item_id": item_id,
                "poison": poison.id,
                "doses": params.doses,
            }
        },
    )


@on("weapon.hit")
def _weapon_hit(ctx: EventContext, event: WeaponHit) -> None:
    where = find_token_anywhere(ctx.state, event.attacker_token_id)
    if where is None or where[1].creature is None:
        return
    key = f"{where[1].creature.id}:{event.item_id}"
    surfaces = ctx.state.get(SURFACES, PoisonSurfaces)
    if surfaces is None or key not in surfaces.coats:
        return
    if not {"piercing", "slashing"} & set(event.damage_types):
        return
    edited = _surfaces(ctx)
    coating = edited.coats[key]
    coating.doses -= 1
    if coating.doses <= 0:
        del edited.coats[key]
    poison = get_poison(ctx, coating.poison)
    target = target_for_token(ctx, event.scene_id, event.target_token_id)
    _deliver_to(ctx, [target], poison, "afflictions.poison.wound", wound=True)


@on_wound
def _coated_trap_part(run: Run, target: Target, damage_type: str) -> None:
    """A trap's coated part (spikes, needle, darts) that wounds delivers one dose."""
    key = run.source_id
    surfaces = run.ctx.state.get(SURFACES, PoisonSurfaces)
    if not key.startswith("trap:") or surfaces is None or key not in surfaces.coats:
        return
    edited = _surfaces(run.ctx)
    coating = edited.coats[key]
    coating.doses -= 1
    if coating.doses <= 0:
        del edited.coats[key]
    poison = get_poison(run.ctx, coating.poison)
    s = Session(run.ctx, world_now(run.ctx))
    run.resolution.say(
        run.t(
            "afflictions.poison.wound",
            name=target.name,
            poison=localized_name(run.ctx, poison.name),
        )
    )
    aff = deliver(s, run, target, poison)
    if aff is not None:
        aff.wound_pending = True
    s.finish()


class SmearParams(Strict):
    target_id: str
    poison: str
    scene_id: str | None = None


@gm_action("poison.smear", SmearParams)
def smear(ctx: EventContext, params: SmearParams) -> None:
    """Put a contact poison on an object (a door, a chest, a region) until touched."""
    poison = get_poison(ctx, params.poison)
    _require(poison, "contact")
    _surfaces(ctx).smears[params.target_id] = Smear(poison=poison.id, scene_id=params.scene_id)
    ctx.render(
        "text.html.j2",
        title=_title(ctx, poison),
        visibility="gm",
        text=ctx.t(
            "afflictions.poison.smeared",
            target=params.target_id,
            poison=localized_name(ctx, poison.name),
        ),
        data={"smear": {"target_id": params.target_id, "poison": poison.id}},
    )


@on("interaction")
def _interaction(ctx: EventContext, event: Interaction) -> None:
    if event.kind not in ("touch", "open"):
        return
    surfaces = ctx.state.get(SURFACES, PoisonSurfaces)
    if surfaces is None or event.target_id not in surfaces.smears:
        return
    poison = get_poison(ctx, surfaces.smears[event.target_id].poison)
    del _surfaces(ctx).smears[event.target_id]
    target = target_for_token(ctx, event.scene_id, event.token_id)
    _deliver_to(ctx, [target], poison, "afflictions.poison.touched")


class WashParams(Strict):
    target_id: str | None = None
    item_id: str | None = None
    actor_id: str | None = None


@gm_action("poison.wash", WashParams)
def wash(ctx: EventContext, params: WashParams) -> None:
    """Wash poison off an object (``target_id``) or a weapon (``actor_id`` + ``item_id``)."""
    surfaces = _surfaces(ctx)
    removed: str | None = None
    if params.target_id and params.target_id in surfaces.smears:
        removed = surfaces.smears.pop(params.target_id).poison
        what = params.target_id
    elif params.item_id and params.actor_id:
        found = surfaces.coats.pop(f"{params.actor_id}:{params.item_id}", None)
        removed = found.poison if found else None
        what = params.item_id
    if removed is None:
        raise RuleError("nothing poisoned there to wash off")
    poison = get_poison(ctx, removed)
    ctx.render(
        "text.html.j2",
        title=_title(ctx, poison),
        visibility="gm",
        text=ctx.t(
            "afflictions.poison.washed", target=what, poison=localized_name(ctx, poison.name)
        ),
    )


class AdministerParams(Strict):
    token_id: str
    poison: str
    scene_id: str | None = None
    partial: Partial = "none"
    secret: bool = True


@gm_action("poison.administer", AdministerParams)
def administer(ctx: EventContext, params: AdministerParams) -> None:
    """A creature swallows an ingested poison (a partial dose: advantage or half damage)."""
    poison = get_poison(ctx, params.poison)
    _require(poison, "ingested")
    target = target_for_token(ctx, params.scene_id, params.token_id)
    _deliver_to(
        ctx,
        [target],
        poison,
        "afflictions.poison.swallowed",
        partial=params.partial,
        secret=params.secret,
    )


class CloudParams(Strict):
    scene_id: str
    x: float
    y: float
    poison: str


def cube_targets(ctx: EventContext, scene_id: str, x: float, y: float) -> list[Target]:
    """Creatures whose token footprint overlaps the 5-ft cube centred on (x, y)."""
    scene = get_scene(ctx.state, scene_id)
    half = scene.grid.size * 5 / scene.grid.distance / 2
    left, right, top, bottom = x - half, x + half, y - half, y + half
    found: list[Target] = []
    for tok in sorted(scene_tokens(ctx.state, scene_id), key=lambda t: t.id):
        if tok.creature is None:
            continue
        t_right = tok.x + tok.width * scene.grid.size
        t_bottom = tok.y + tok.height * scene.grid.size
        if tok.x < right and t_right > left and tok.y < bottom and t_bottom > top:
            found.append(target_for_token(ctx, scene_id, tok.id))
    return found


@gm_action("poison.cloud", CloudParams)
def cloud(ctx: EventContext, params: CloudParams) -> None:
    """An inhaled poison fills a 5-ft cube at a point, reaches everyone in it, disperses."""
    poison = get_poison(ctx, params.poison)
    _require(poison, "inhaled")
    targets = cube_targets(ctx, params.scene_id, params.x, params.y)
    if not targets:
        ctx.render(
            "text.html.j2",
            title=_title(ctx, poison),
            visibility="gm",
            text=ctx.t("afflictions.poison.cloud_empty"),
        )
        return
    _deliver_to(ctx, targets, poison, "afflictions.poison.breathed")


def apply_poison(run: Run, target: Target, poison_id: str, partial: Partial = "none") -> None:
    """For other engines' content (a trap's needle): one dose into the running card."""
    poison = get_poison(run.ctx, poison_id)
    s = Session(run.ctx, world_now(run.ctx))
    deliver(s, run, target, poison, partial=partial)
    s.finish()


def actor_target(ctx: EventContext, actor_id: str) -> Target:
    return target_for_actor(ctx, actor_id)
