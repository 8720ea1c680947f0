"""Madness (RULES.md §5): three d100 tables, durations by world time, cures and suppression."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from sidecar.content import LocalizedText, register_kind
from sidecar.engine import EventContext, RuleError, gm_action
from sidecar.models import Condition, Strict
from sidecar.rules.afflictions_core import (
    Affliction,
    AfflictionSet,
    DiceDuration,
    Session,
    last_save,
    localized_name,
    target_for_token,
    world_now,
)
from sidecar.rules.afflictions_registry import Behaviour, register_behaviour
from sidecar.rules.effects import Duration, Run, SaveEffect, Target

MadnessKind = Literal["short", "long", "indefinite"]
KINDS: tuple[MadnessKind, ...] = ("short", "long", "indefinite")
SUPPRESS_SECONDS = 60.0


class MadnessVariant(Strict):
    weight: int = Field(ge=1, le=100)
    conditions: list[Condition] = Field(default_factory=list)
    text: LocalizedText


class MadnessEntry(Strict):
    low: int = Field(ge=1, le=100)
    high: int = Field(ge=1, le=100)
    text: LocalizedText
    conditions: list[Condition] = Field(default_factory=list)
    ends_on_damage: bool = False
    damage_save_dc: int | None = Field(default=None, ge=1, le=40)
    variants: list[MadnessVariant] = Field(default_factory=list)


class MadnessTable(Strict):
    id: MadnessKind
    name: LocalizedText
    duration: DiceDuration | None = None
    cured_by: list[str] = Field(default_factory=list)
    suppressed_by: list[str] = Field(default_factory=lambda: ["calm_emotions"])
    entries: list[MadnessEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _covers_d100(self) -> MadnessTable:
        seen = [0] * 101
        for entry in self.entries:
            if entry.low > entry.high:
                raise ValueError(f"range {entry.low}-{entry.high} is reversed")
            for n in range(entry.low, entry.high + 1):
                seen[n] += 1
        gaps = [n for n in range(1, 101) if seen[n] != 1]
        if gaps:
            raise ValueError(f"d100 results covered zero or several times: {gaps[:10]}")
        return self

    def entry_for(self, roll: int) -> tuple[int, MadnessEntry]:
        for index, entry in enumerate(self.entries):
            if entry.low <= roll <= entry.high:
                return index, entry
        raise RuleError(f"no entry for {roll}")


register_kind("madness", "madness", MadnessTable)


def get_table(ctx: EventContext, kind: str) -> MadnessTable:
    table = ctx.content.get_as("madness", kind, MadnessTable)
    if table is None:
        raise RuleError(f"unknown madness table {kind!r}")
    return table


def _pick(s: Session, aff: Affliction) -> tuple[MadnessTable, MadnessEntry, MadnessVariant | None]:
    table = get_table(s.ctx, aff.ref)
    index, _, variant = (aff.entry or "0").partition(":")
    entry = table.entries[int(index)]
    chosen = entry.variants[int(variant)] if variant and entry.variants else None
    return table, entry, chosen


def _conditions(entry: MadnessEntry, variant: MadnessVariant | None) -> list[str]:
    found: list[str] = list(entry.conditions)
    return found + (list(variant.conditions) if variant else [])


def inflict(
    s: Session, run: Run, target: Target, kind: MadnessKind, roll: int | None = None
) -> Affliction:
    """Roll (or take) a d100 result on the table and start that madness."""
    table = get_table(s.ctx, kind)
    if roll is None:
        d100 = s.ctx.dice.roll("1d100", flavor="madness")
        roll = d100.total
        run.resolution.say(run.t("afflictions.madness.roll", total=roll), d100)
    index, entry = table.entry_for(roll)
    code = str(index)
    variant: MadnessVariant | None = None
    if entry.variants:
        pick = s.ctx.dice.roll("1d100", flavor="madness.variant").total
        total = sum(v.weight for v in entry.variants)
        threshold = 0
        for v_index, candidate in enumerate(entry.variants):
            threshold += candidate.weight
            if pick * total <= threshold * 100:
                variant, code = candidate, f"{index}:{v_index}"
                break
    aset = s.edit_set(target)
    aff = s.new_affliction(aset, "madness", kind, entry=code)
    shown: Duration | None = None
    if table.duration is not None:
        amount, duration_roll = table.duration.roll(s.ctx.dice)
        aff.expires_at = s.now + table.duration.seconds(amount)
        shown = Duration(amount=amount, unit=table.duration.unit)
        run.resolution.say(
            run.t("afflictions.madness.lasts", duration=shown.describe(run)), duration_roll
        )
    run.resolution.say(
        run.t(
            "afflictions.madness.takes", name=target.name, table=localized_name(s.ctx, table.name)
        )
    )
    run.resolution.say(localized_name(s.ctx, entry.text).format(name=target.name))
    if variant is not None:
        run.resolution.say(localized_name(s.ctx, variant.text).format(name=target.name))
    for condition in _conditions(entry, variant):
        s.hold(run, target, aff, condition, shown)
    return aff


class MadnessBehaviour(Behaviour):
    kind = "madness"

    def name(self, s: Session, aff: Affliction) -> str:
        table = s.ctx.content.get_as("madness", aff.ref, MadnessTable)
        return localized_name(s.ctx, table.name) if table else aff.ref

    def on_tick(self, s: Session, aset: AfflictionSet, aff: Affliction, what: str) -> None:
        if what == "unsuppress":
            aff.suppressed_until = None
            _, entry, variant = _pick(s, aff)
            run = s.run_for(aset, aff, s.title_of(aset, aff))
            target = s.target(aset)
            run.resolution.say(run.t("afflictions.madness.returns", name=target.name))
            for condition in _conditions(entry, variant):
                s.hold(run, target, aff, condition)
        elif what == "expire":
            s.end(aset, aff, "afflictions.ended.expired")

    def on_damage(self, s: Session, aset: AfflictionSet, aff: Affliction, amount: int) -> None:
        if amount <= 0 or aff.suppressed_until is not None:
            return
        _, entry, _ = _pick(s, aff)
        if entry.ends_on_damage:
            s.end(aset, aff, "afflictions.madness.damage_ends")
        elif entry.damage_save_dc is not None:
            run = s.run_for(aset, aff, s.title_of(aset, aff))
            target = s.target(aset)
            start = len(run.resolution.facts)
            SaveEffect(ability="wis", dc=entry.damage_save_dc).run(run, target)
            fact = last_save(run, target, start)
            if fact is not None and not fact["success"]:
                run.resolution.say(run.t("afflictions.madness.confused", name=target.name))

    def cure(self, s: Session, aset: AfflictionSet, aff: Affliction, method: str) -> bool:
        table, _, _ = _pick(s, aff)
        if method in table.suppressed_by:
            run = s.run_for(aset, aff, s.title_of(aset, aff))
            target = s.target(aset)
            aff.suppressed_until = s.now + SUPPRESS_SECONDS
            run.resolution.say(run.t("afflictions.madness.suppressed", name=target.name))
            for condition in list(aff.conditions):
                s.release(run, target, aff, condition)
            return True
        if method == "gm" or method in table.cured_by:
            s.end(
                aset, aff, "afflictions.ended.cured", method=s.ctx.t(f"afflictions.method.{method}")
            )
            return True
        return False

    def describe(self, s: Session, aff: Affliction) -> dict[str, Any]:
        table = s.ctx.content.get_as("madness", aff.ref, MadnessTable)
        if table is None:
            return {}
        _, entry, variant = _pick(s, aff)
        text = localized_name(s.ctx, entry.text)
        if variant is not None:
            text += " " + localized_name(s.ctx, variant.text)
        return {
            "effect": text,
            "range": f"{entry.low}-{entry.high}",
            "suppressed": aff.suppressed_until is not None,
        }


register_behaviour(MadnessBehaviour())


class MadnessSave(Strict):
    ability: Literal["wis", "cha"] = "wis"
    dc: int = Field(ge=1, le=40)


class InflictParams(Strict):
    token_id: str
    scene_id: str | None = None
    kind: MadnessKind | None = None
    roll: int | None = Field(default=None, ge=1, le=100)
    save: MadnessSave | None = None


@gm_action("madness.inflict", InflictParams)
def inflict_action(ctx: EventContext, params: InflictParams) -> None:
    """Madness from a spell, a plane or an artifact: an optional save, then the table."""
    target = target_for_token(ctx, params.scene_id, params.token_id)
    s = Session(ctx, world_now(ctx))
    run = s.run_plain(
        "madness",
        ctx.t("afflictions.madness.title", name=target.name),
        target.creature.id,
        params.token_id,
    )
    if params.save is not None:
        start = len(run.resolution.facts)
        SaveEffect(ability=params.save.ability, dc=params.save.dc).run(run, target)
        fact = last_save(run, target, start)
        if fact is not None and fact["success"]:
            run.resolution.say(run.t("afflictions.madness.resisted", name=target.name))
            s.finish()
            return
    kind = params.kind
    if kind is None:
        kind_roll = ctx.dice.roll("1d3", flavor="madness.kind")
        kind = KINDS[kind_roll.total - 1]
        run.resolution.say(
            run.t(
                "afflictions.madness.kind_roll", kind=localized_name(ctx, get_table(ctx, kind).name)
            ),
            kind_roll,
        )
    inflict(s, run, target, kind, params.roll)
    s.finish()
