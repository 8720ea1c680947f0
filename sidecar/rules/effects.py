"""The effect interpreter: one small vocabulary for traps, afflictions and chases.

Content describes what happens as a tree of primitives (``save``, ``attack``, ``damage``,
``condition``, ...). Each primitive is a pydantic model with ``run(run, target)``. Engines
register further primitives with ``@effect("name")`` instead of writing new engines.

A ``Resolution`` collects what happened to whom: lines for the public card, lines for the
GM's card, Foundry rolls, and the operations the module applies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field

from sidecar import dice as dice_mod
from sidecar.engine import EventContext
from sidecar.models import Ability, Creature, Strict, Token
from sidecar.protocol import DamageOp, ExhaustionOp, HealOp, Op, StatusOp
from sidecar.rules.checks import (
    SKILL_ABILITY,
    ability_check,
    apply_damage_traits,
    attack_roll,
)
from sidecar.state import register_document

# ---------------------------------------------------------------- registry

_EFFECTS: dict[str, type[Effect]] = {}


def effect(kind: str) -> Callable[[type[Effect]], type[Effect]]:
    """Register a primitive under ``kind`` (the YAML ``kind:`` value)."""

    def decorator(cls: type[Effect]) -> type[Effect]:
        if kind in _EFFECTS and _EFFECTS[kind] is not cls:
            raise ValueError(f"effect kind {kind!r} registered twice")
        _EFFECTS[kind] = cls
        return cls

    return decorator


def effect_kinds() -> list[str]:
    return sorted(_EFFECTS)


def parse_effect(value: Any) -> Effect:
    if isinstance(value, Effect):
        return value
    if not isinstance(value, dict):
        raise ValueError("an effect must be a mapping with a 'kind'")
    kind = value.get("kind")
    cls = _EFFECTS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown effect kind {kind!r}; known: {', '.join(effect_kinds())}")
    return cls.model_validate(value)


def _parse_list(value: Any) -> list[Effect]:
    if value is None:
        return []
    if not isinstance(value, list):
        value = [value]
    return [parse_effect(v) for v in value]


EffectList = Annotated[list[Any], BeforeValidator(_parse_list)]
"""A list of effects in content models (validated through the registry)."""


# ---------------------------------------------------------------- running


@dataclass
class Target:
    """Who an effect applies to: a token on a scene (or an off-scene creature)."""

    creature: Creature
    token_id: str | None = None
    scene_id: str | None = None

    @property
    def name(self) -> str:
        return self.creature.name

    @classmethod
    def of(cls, token: Token, scene_id: str | None) -> Target:
        if token.creature is None:
            raise ValueError(f"token {token.id} has no creature snapshot")
        return cls(token.creature, token.id, scene_id)


@dataclass
class Line:
    text: str
    roll: dict[str, Any] | None = None
    css: str = ""


@dataclass
class Resolution:
    """What a run produced: card lines (public and GM), rolls, ops and facts."""

    public: list[Line] = field(default_factory=list)
    gm: list[Line] = field(default_factory=list)
    rolls: list[dice_mod.Roll] = field(default_factory=list)
    gm_rolls: list[dice_mod.Roll] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)

    def say(self, text: str, roll: dice_mod.Roll | None = None, css: str = "") -> None:
        self.public.append(Line(text, _roll_line(roll), css))
        self.gm.append(Line(text, _roll_line(roll), css))
        if roll is not None:
            self.rolls.append(roll)

    def say_gm(self, text: str, roll: dice_mod.Roll | None = None, css: str = "") -> None:
        self.gm.append(Line(text, _roll_line(roll), css))
        if roll is not None:
            self.gm_rolls.append(roll)


def _roll_line(roll: dice_mod.Roll | None) -> dict[str, Any] | None:
    if roll is None:
        return None
    return {"formula": roll.formula, "total": roll.total, "breakdown": roll.describe()}


@dataclass
class Run:
    """One interpretation pass: the event context plus what this source is and reveals."""

    ctx: EventContext
    source_id: str
    source_name: str
    resolution: Resolution = field(default_factory=Resolution)
    show_dc: bool = False
    critical: bool = False
    half_damage: bool = False
    scale: float = 1.0
    variables: dict[str, Any] = field(default_factory=dict)
    hooks: dict[str, Callable[..., Any]] = field(default_factory=dict)

    def t(self, key: str, **params: Any) -> str:
        return self.ctx.t(key, **params)

    def run_all(self, effects: list[Effect], target: Target) -> None:
        for item in effects:
            item.run(self, target)

    def nested(self, **changes: Any) -> Run:
        """The same run with some flags changed (critical, half damage) for a branch."""
        child = Run(
            self.ctx,
            self.source_id,
            self.source_name,
            self.resolution,
            self.show_dc,
            self.critical,
            self.half_damage,
            self.scale,
            self.variables,
            self.hooks,
        )
        for key, value in changes.items():
            setattr(child, key, value)
        return child


class Effect(Strict):
    kind: str
    trigger_note: ClassVar[str] = ""

    def run(self, run: Run, target: Target) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


# ---------------------------------------------------------------- creature state


class ConditionLedger(Strict):
    """Which sources hold each condition on a creature, so ending one source removes
    the condition only when no other source still holds it."""

    holders: dict[str, list[str]] = Field(default_factory=dict)
    exhaustion_from: dict[str, int] = Field(default_factory=dict)


register_document("conditions", ConditionLedger)


def ledger_key(actor_id: str) -> str:
    return f"conditions:{actor_id}"


def _edit_ledger(ctx: EventContext, actor_id: str) -> ConditionLedger:
    key = ledger_key(actor_id)
    if ctx.state.get(key, ConditionLedger) is None:
        ctx.state.put(key, ConditionLedger())
    return ctx.state.edit(key, ConditionLedger)


def update_creature(ctx: EventContext, target: Target, change: Callable[[Creature], None]) -> None:
    """Apply a change to the creature snapshot of every token of that actor on record.

    Token documents are edited copy-on-write, and the target is re-pointed at the edited
    copy, so the committed state is never changed in place.
    """
    from sidecar.rules.scene import token_key, tokens_of_actor

    tokens = tokens_of_actor(ctx.state, target.creature.id)
    if not tokens:
        change(target.creature)
        return
    for scene_id, token in tokens:
        edited = ctx.state.edit(token_key(scene_id, token.id), Token)
        if edited.creature is None:
            continue
        change(edited.creature)
        if token.id == target.token_id or target.token_id is None:
            target.creature = edited.creature
    if all(token.id != target.token_id for _, token in tokens) and target.token_id is not None:
        change(target.creature)


def add_condition(ctx: EventContext, target: Target, condition: str, source: str) -> bool:
    """Hold ``condition`` on the target for ``source``; True if the status was newly set."""
    ledger = _edit_ledger(ctx, target.creature.id)
    holders = ledger.holders.setdefault(condition, [])
    if source not in holders:
        holders.append(source)
    if condition in target.creature.statuses:
        return False
    update_creature(
        ctx, target, lambda c: c.statuses.append(condition) if condition not in c.statuses else None
    )
    return True


def release_condition(
    ctx: EventContext, creature: Creature, condition: str, source: str
) -> StatusOp | None:
    """Drop ``source``'s hold; return the op removing the status if nobody holds it now."""
    key = ledger_key(creature.id)
    if ctx.state.get(key, ConditionLedger) is None:
        return None
    ledger = ctx.state.edit(key, ConditionLedger)
    holders = ledger.holders.get(condition, [])
    if source not in holders:
        return None
    holders.remove(source)
    if holders:
        return None
    ledger.holders.pop(condition, None)
    target = Target(creature)
    update_creature(
        ctx, target, lambda c: c.statuses.remove(condition) if condition in c.statuses else None
    )
    return StatusOp(actor_id=creature.id, status=condition, active=False)


WoundListener = Callable[["Run", Target, str], None]
_WOUND_LISTENERS: list[WoundListener] = []


def on_wound(listener: WoundListener) -> WoundListener:
    """Register a listener told whenever a creature takes piercing or slashing damage from a
    source's part (a trap's spikes, needle or darts): a poison coated on that part uses it."""
    _WOUND_LISTENERS.append(listener)
    return listener


def notify_wound(run: Run, target: Target, damage_type: str) -> None:
    if damage_type in ("piercing", "slashing"):
        for listener in _WOUND_LISTENERS:
            listener(run, target, damage_type)


def deal_damage(run: Run, target: Target, amount: int, damage_type: str) -> int:
    """Apply traits, record the op and the card line; return the damage actually taken."""
    final, note = apply_damage_traits(target.creature, amount, damage_type)
    kind = run.t(f"damage_type.{damage_type}")
    if note == "immune":
        run.resolution.say(run.t("card.damage.immune", name=target.name, type=kind))
    else:
        if note == "resistant":
            text = run.t(
                "card.damage.resisted", name=target.name, type=kind, amount=final, raw=amount
            )
        elif note == "vulnerable":
            text = run.t(
                "card.damage.vulnerable", name=target.name, type=kind, amount=final, raw=amount
            )
        else:
            text = run.t("card.damage.line", name=target.name, amount=final, type=kind)
        run.resolution.say(text)
    run.resolution.facts.append(
        {"fact": "damage", "target": target.creature.id, "amount": final, "type": damage_type}
    )
    if final > 0:
        run.resolution.ops.append(
            DamageOp(
                token_id=target.token_id,
                actor_id=target.creature.id,
                amount=final,
                damage_type=damage_type,
                raw=amount,
            )
        )

        def lower_hp(c: Creature) -> None:
            absorbed = min(c.hp.temp, final)
            c.hp.temp -= absorbed
            c.hp.value = max(0, c.hp.value - (final - absorbed))

        update_creature(run.ctx, target, lower_hp)
    return final


# ---------------------------------------------------------------- primitives


class DamageSpec(Strict):
    formula: str
    type: str

    def model_post_init(self, __context: Any) -> None:
        dice_mod.validate(self.formula)


@effect("damage")
class DamageEffect(Effect):
    """Roll typed damage (dice doubled on a critical, halved when a save halves it)."""

    kind: Literal["damage"] = "damage"
    formula: str
    type: str

    def model_post_init(self, __context: Any) -> None:
        dice_mod.validate(self.formula)

    def run(self, run: Run, target: Target) -> None:
        formula = dice_mod.scale_dice(self.formula, 2) if run.critical else self.formula
        roll = run.ctx.dice.roll(formula, flavor=f"damage.{self.type}")
        amount = max(0, roll.total)
        if run.half_damage:
            amount //= 2
        if run.scale != 1.0:
            amount = int(amount * run.scale)
        run.resolution.say(
            run.t("card.damage.roll", type=run.t(f"damage_type.{self.type}"), total=roll.total),
            roll,
        )
        deal_damage(run, target, amount, self.type)


class Duration(Strict):
    amount: int = Field(ge=0, le=1_000_000)
    unit: Literal["turns", "rounds", "minutes", "hours", "days", "long_rests"]

    def seconds(self) -> int | None:
        per = {"rounds": 6, "turns": 6, "minutes": 60, "hours": 3600, "days": 86400}
        return self.amount * per[self.unit] if self.unit in per else None

    def describe(self, run: Run) -> str:
        singular = {
            "turns": "turn",
            "rounds": "round",
            "minutes": "minute",
            "hours": "hour",
            "days": "day",
            "long_rests": "long_rest",
        }[self.unit]
        catalog = run.ctx.content.catalog
        return catalog.tn(run.ctx.language, f"duration.{singular}", self.amount)


class LastingCondition(Strict):
    """A condition with a duration, recorded until the affliction clock expires it."""

    actor_id: str
    condition: str
    source: str
    source_name: str
    duration: Duration | None
    applied_at: float | None = None
    event_id: str


class LastingConditions(Strict):
    entries: list[LastingCondition] = Field(default_factory=list)


register_document("lasting", LastingConditions)


@effect("condition")
class ConditionEffect(Effect):
    """Put a condition on the target (refused by a condition immunity)."""

    kind: Literal["condition"] = "condition"
    condition: str
    duration: Duration | None = None

    def run(self, run: Run, target: Target) -> None:
        name = run.t(f"condition.{self.condition}")
        if self.condition in target.creature.condition_immunities:
            run.resolution.say(run.t("card.condition.immune", name=target.name, condition=name))
            run.resolution.facts.append(
                {
                    "fact": "condition_immune",
                    "target": target.creature.id,
                    "condition": self.condition,
                }
            )
            return
        source = run.variables.get("condition_source", run.source_id)
        newly = add_condition(run.ctx, target, self.condition, source)
        if newly:
            run.resolution.ops.append(
                StatusOp(
                    token_id=target.token_id,
                    actor_id=target.creature.id,
                    status=self.condition,
                    active=True,
                )
            )
        duration = self.duration.describe(run) if self.duration else run.t("duration.until_removed")
        run.resolution.say(
            run.t("card.condition.applied", name=target.name, condition=name, duration=duration)
        )
        run.resolution.facts.append(
            {
                "fact": "condition",
                "target": target.creature.id,
                "condition": self.condition,
                "source": source,
                "duration": self.duration.model_dump() if self.duration else None,
            }
        )
        if self.duration is not None and "affliction_clock" not in run.hooks:
            key = "lasting"
            if run.ctx.state.get(key, LastingConditions) is None:
                run.ctx.state.put(key, LastingConditions())
            from sidecar.rules.scene import clock

            run.ctx.state.edit(key, LastingConditions).entries.append(
                LastingCondition(
                    actor_id=target.creature.id,
                    condition=self.condition,
                    source=source,
                    source_name=run.source_name,
                    duration=self.duration,
                    applied_at=clock(run.ctx.state).world_time,
                    event_id=run.ctx.event_id,
                )
            )
        elif self.duration is not None:
            run.hooks["affliction_clock"](run, target, self.condition, source, self.duration)


@effect("remove_condition")
class RemoveConditionEffect(Effect):
    kind: Literal["remove_condition"] = "remove_condition"
    condition: str

    def run(self, run: Run, target: Target) -> None:
        source = run.variables.get("condition_source", run.source_id)
        op = release_condition(run.ctx, target.creature, self.condition, source)
        if op is not None:
            op.token_id = target.token_id
            run.resolution.ops.append(op)
            run.resolution.say(
                run.t(
                    "card.condition.removed",
                    name=target.name,
                    condition=run.t(f"condition.{self.condition}"),
                )
            )


@effect("exhaustion")
class ExhaustionEffect(Effect):
    kind: Literal["exhaustion"] = "exhaustion"
    levels: int = Field(ge=-6, le=6)

    def run(self, run: Run, target: Target) -> None:
        if "exhaustion" in target.creature.condition_immunities and self.levels > 0:
            run.resolution.say(
                run.t(
                    "card.condition.immune",
                    name=target.name,
                    condition=run.t("condition.exhaustion"),
                )
            )
            return
        before = target.creature.exhaustion
        after = max(0, min(6, before + self.levels))
        if after == before:
            return
        source = run.variables.get("condition_source", run.source_id)
        ledger = _edit_ledger(run.ctx, target.creature.id)
        ledger.exhaustion_from[source] = ledger.exhaustion_from.get(source, 0) + (after - before)

        def set_level(c: Creature) -> None:
            c.exhaustion = after

        update_creature(run.ctx, target, set_level)
        run.resolution.ops.append(
            ExhaustionOp(token_id=target.token_id, actor_id=target.creature.id, level=after)
        )
        run.resolution.say(run.t("card.exhaustion.changed", name=target.name, level=after))
        run.resolution.facts.append(
            {"fact": "exhaustion", "target": target.creature.id, "level": after, "source": source}
        )


@effect("heal")
class HealEffect(Effect):
    kind: Literal["heal"] = "heal"
    formula: str

    def run(self, run: Run, target: Target) -> None:
        roll = run.ctx.dice.roll(self.formula, flavor="healing")
        amount = max(0, roll.total)
        run.resolution.say(run.t("card.heal.line", name=target.name, amount=amount), roll)
        run.resolution.ops.append(
            HealOp(token_id=target.token_id, actor_id=target.creature.id, amount=amount)
        )

        def raise_hp(c: Creature) -> None:
            c.hp.value = min(c.hp.max, c.hp.value + amount)

        update_creature(run.ctx, target, raise_hp)


@effect("text")
class TextEffect(Effect):
    """A line of card text from the catalogs; ``gm_only`` lines go to the GM's card."""

    kind: Literal["text"] = "text"
    key: str
    params: dict[str, Any] = Field(default_factory=dict)
    gm_only: bool = False

    def run(self, run: Run, target: Target) -> None:
        text = run.t(self.key, name=target.name, source=run.source_name, **self.params)
        if self.gm_only:
            run.resolution.say_gm(text)
        else:
            run.resolution.say(text)


class FailBy(Strict):
    margin: int = Field(ge=1, le=50)
    effects: EffectList = Field(default_factory=list)


@effect("save")
class SaveEffect(Effect):
    """A saving throw; ``damage`` is halved on success when ``half_on_success``."""

    kind: Literal["save"] = "save"
    ability: Ability
    dc: int = Field(ge=0, le=40)
    damage: list[DamageSpec] = Field(default_factory=list)
    half_on_success: bool = True
    on_fail: EffectList = Field(default_factory=list)
    on_success: EffectList = Field(default_factory=list)
    fail_by: FailBy | None = None
    advantage: bool = False
    disadvantage: bool = False

    def run(self, run: Run, target: Target) -> None:
        advantage = self.advantage or bool(run.variables.get("save_advantage"))
        result = run.ctx.saving_throw(
            target.creature,
            target.token_id,
            self.ability,
            self.dc,
            advantage=advantage,
            disadvantage=self.disadvantage,
            reason=run.source_name,
        )
        ability = run.t(f"ability.{self.ability}")
        outcome = run.t("term.success") if result.success else run.t("term.failure")
        public = run.t(
            "card.save.line_hidden_dc",
            name=target.name,
            ability=ability,
            total=result.total,
            result=outcome,
        )
        gm = run.t(
            "card.save.line",
            name=target.name,
            ability=ability,
            total=result.total,
            dc=self.dc,
            result=outcome,
        )
        shown = gm if run.show_dc else public
        run.resolution.public.append(Line(shown, _roll_line(result.roll)))
        run.resolution.gm.append(Line(gm, _roll_line(result.roll)))
        if result.roll.flavor != "player":
            run.resolution.rolls.append(result.roll)
        run.resolution.facts.append(
            {
                "fact": "save",
                "target": target.creature.id,
                "ability": self.ability,
                "dc": self.dc,
                "total": result.total,
                "success": result.success,
            }
        )
        for spec in self.damage:
            if result.success and not self.half_on_success:
                continue
            half = result.success and self.half_on_success
            DamageEffect(formula=spec.formula, type=spec.type).run(
                run.nested(half_damage=half or run.half_damage), target
            )
        branch = self.on_success if result.success else self.on_fail
        run.run_all(branch, target)
        if (
            self.fail_by is not None
            and not result.success
            and result.roll.flavor != "pending"
            and result.margin <= -self.fail_by.margin
        ):
            run.run_all(self.fail_by.effects, target)


@effect("attack")
class AttackEffect(Effect):
    """An attack roll against the target's AC; ``on_hit`` runs with dice doubled on a 20."""

    kind: Literal["attack"] = "attack"
    bonus: int = Field(ge=-10, le=30)
    damage: list[DamageSpec] = Field(default_factory=list)
    on_hit: EffectList = Field(default_factory=list)
    on_miss: EffectList = Field(default_factory=list)

    def run(self, run: Run, target: Target) -> None:
        result = attack_roll(run.ctx.dice, self.bonus, target.creature.ac)
        key = (
            "card.attack.crit"
            if result.critical
            else ("card.attack.hit" if result.hit else "card.attack.miss")
        )
        run.resolution.say(run.t(key, name=target.name, total=result.roll.total), result.roll)
        run.resolution.say_gm(run.t("card.attack.vs_ac", bonus=self.bonus, ac=target.creature.ac))
        run.resolution.facts.append(
            {
                "fact": "attack",
                "target": target.creature.id,
                "hit": result.hit,
                "critical": result.critical,
                "total": result.roll.total,
            }
        )
        if result.hit:
            branch = run.nested(critical=result.critical)
            for spec in self.damage:
                DamageEffect(formula=spec.formula, type=spec.type).run(branch, target)
            branch.run_all(self.on_hit, target)
        else:
            run.run_all(self.on_miss, target)


@effect("check")
class CheckEffect(Effect):
    """An ability check (optionally with a skill) by the target."""

    kind: Literal["check"] = "check"
    ability: Ability | None = None
    skill: str | None = None
    dc: int = Field(ge=0, le=40)
    on_fail: EffectList = Field(default_factory=list)
    on_success: EffectList = Field(default_factory=list)

    def run(self, run: Run, target: Target) -> None:
        ability = self.ability or SKILL_ABILITY.get(self.skill or "", "str")
        result = ability_check(
            run.ctx.dice,
            target.creature,
            ability,
            self.dc,
            skill=self.skill,
            ruleset=run.ctx.ruleset,
        )
        label = run.t(f"skill.{self.skill}") if self.skill else run.t(f"ability.{ability}")
        outcome = run.t("term.success") if result.success else run.t("term.failure")
        run.resolution.say(
            run.t(
                "card.check.line", name=target.name, label=label, total=result.total, result=outcome
            ),
            result.roll,
        )
        run.resolution.say_gm(run.t("card.dc", dc=self.dc))
        run.resolution.facts.append(
            {"fact": "check", "target": target.creature.id, "success": result.success}
        )
        run.run_all(self.on_success if result.success else self.on_fail, target)


@effect("fall")
class FallEffect(Effect):
    """Falling: 1d6 bludgeoning per 10 ft (max 20d6), prone if any damage was taken."""

    kind: Literal["fall"] = "fall"
    distance_ft: int = Field(ge=0, le=10_000)

    def run(self, run: Run, target: Target) -> None:
        dice_count = min(20, self.distance_ft // 10)
        run.resolution.say(run.t("card.fall.line", name=target.name, distance=self.distance_ft))
        if dice_count <= 0:
            return
        roll = run.ctx.dice.roll(f"{dice_count}d6", flavor="damage.bludgeoning")
        run.resolution.say(
            run.t("card.damage.roll", type=run.t("damage_type.bludgeoning"), total=roll.total), roll
        )
        taken = deal_damage(run, target, roll.total, "bludgeoning")
        if taken > 0:
            ConditionEffect(condition="prone").run(run, target)


def resolve(
    ctx: EventContext,
    effects: list[Effect],
    targets: list[Target],
    *,
    source_id: str,
    source_name: str,
    show_dc: bool = False,
    hooks: dict[str, Callable[..., Any]] | None = None,
    variables: dict[str, Any] | None = None,
) -> Resolution:
    """Run ``effects`` against each target in turn and return what happened."""
    run = Run(
        ctx,
        source_id,
        source_name,
        show_dc=show_dc,
        hooks=dict(hooks or {}),
        variables=dict(variables or {}),
    )
    for target in targets:
        run.run_all(effects, target)
    return run.resolution
