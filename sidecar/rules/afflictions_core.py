"""The affliction clock's shared parts: documents, timers and the per-event session.

Every lasting effect on a creature (a poison, a disease, a madness, a condition with a
duration from any engine) is one ``Affliction`` in the document ``afflictions:<actor_id>``.
Its timers are absolute world times (seconds) or turn counters, so a restarted sidecar picks
them up exactly where they were. Behaviours (poisons.py, diseases.py, madness.py) register
per ``kind`` and are driven by the clock in afflictions.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field

from sidecar import dice as dice_mod
from sidecar.dice import Dice
from sidecar.engine import EventContext, RuleError
from sidecar.i18n import localized
from sidecar.models import Creature, HitPoints, Strict, Token
from sidecar.protocol import Speaker
from sidecar.rules.effects import (
    ConditionEffect,
    Duration,
    ExhaustionEffect,
    Resolution,
    Run,
    Target,
    release_condition,
)
from sidecar.rules.publish import publish
from sidecar.rules.scene import clock, find_token_anywhere, token_key, tokens_of_actor
from sidecar.state import register_document

DAY = 86400.0
TURN_SECONDS = 6.0
UNIT_SECONDS = {"rounds": 6, "turns": 6, "minutes": 60, "hours": 3600, "days": 86400}
MAX_TICKS_PER_EVENT = 20_000

Kind = Literal["poison", "disease", "madness", "lasting"]


class DiceDuration(Strict):
    """A duration that may be rolled: ``formula`` dice (or a number) of ``unit``."""

    formula: str = "1"
    unit: Literal["rounds", "minutes", "hours", "days"]
    multiplier: int = Field(default=1, ge=1, le=1000)

    def model_post_init(self, __context: Any) -> None:
        dice_mod.validate(self.formula)

    def roll(self, dice: Dice) -> tuple[int, dice_mod.Roll | None]:
        """(amount in ``unit``, the roll if dice were thrown)."""
        if self.formula.strip().isdigit():
            return int(self.formula) * self.multiplier, None
        roll = dice.roll(self.formula, flavor="duration")
        return max(1, roll.total) * self.multiplier, roll

    def seconds(self, amount: int) -> float:
        return float(amount * UNIT_SECONDS[self.unit])


# ---------------------------------------------------------------- documents


class Affliction(Strict):
    """One lasting effect on one creature, with every timer it needs."""

    iid: str
    kind: Kind
    ref: str = Field(description="content id (poison, disease, madness table) or condition")
    label: str = ""
    holder: str | None = Field(default=None, description="ledger source, if not our own")
    stage: str = "active"
    started_at: float = 0
    secret: bool = False
    dc: int | None = None
    aux_dc: int | None = None
    expires_at: float | None = None
    onset_at: float | None = None
    next_save_at: float | None = None
    turn_clock: bool = False
    turn_at: float = 0
    turns_left: int | None = None
    rests_left: int | None = None
    successes: int = 0
    failures: int = 0
    conditions: list[str] = Field(default_factory=list)
    exhaustion: int = 0
    unhealable: int = 0
    penalty: int = 0
    doses: int = 0
    dose_pending: bool = False
    laughing_until: float | None = None
    entry: str | None = None
    suppressed_until: float | None = None
    advantage: bool = False
    half_damage: bool = False
    wound_pending: bool = Field(
        default=False, description="the module's report of the delivering wound is still due"
    )

    def source(self) -> str:
        return self.holder or f"affl:{self.iid}"


class AfflictionSet(Strict):
    actor_id: str
    creature: Creature
    token_id: str | None = None
    scene_id: str | None = None
    items: list[Affliction] = Field(default_factory=list)
    counter: int = 0
    immune_until: dict[str, float] = Field(
        default_factory=dict, description="e.g. 'cackle_fever:<carrier>' -> world time"
    )

    def find(self, iid: str) -> Affliction | None:
        return next((a for a in self.items if a.iid == iid), None)


register_document("afflictions", AfflictionSet)


def set_key(actor_id: str) -> str:
    return f"afflictions:{actor_id}"


def world_now(ctx: EventContext) -> float:
    return clock(ctx.state).world_time or 0.0


def next_midnight(t: float) -> float:
    """The first midnight strictly after ``t`` (world time 0 is a midnight)."""
    return (math.floor(t / DAY) + 1) * DAY


def in_combat(ctx: EventContext, aset: AfflictionSet) -> bool:
    """Whether one of the actor's tokens takes turns in a running combat."""
    tokens = {tok.id for _, tok in tokens_of_actor(ctx.state, aset.actor_id)}
    if aset.token_id:
        tokens.add(aset.token_id)
    for combat in clock(ctx.state).combats.values():
        ids = {c.token_id for c in combat.combatants if c.token_id}
        if combat.current is not None and combat.current.token_id:
            ids.add(combat.current.token_id)
        if tokens & ids:
            return True
    return False


def localized_name(ctx: EventContext, value: dict[Any, str] | str) -> str:
    return localized(value, ctx.language)


# ---------------------------------------------------------------- session


@dataclass
class Report:
    title: str
    run: Run
    secret: bool
    actor_id: str
    token_id: str | None


@dataclass
class Session:
    """One event's work on afflictions: runs per (creature, affliction), cards at the end."""

    ctx: EventContext
    now: float
    reports: dict[tuple[str, str], Report] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)

    # -- documents
    def get_set(self, actor_id: str) -> AfflictionSet | None:
        return self.ctx.state.get(set_key(actor_id), AfflictionSet)

    def edit_set(self, target: Target) -> AfflictionSet:
        """The creature's affliction document (created if needed), snapshot refreshed."""
        key = set_key(target.creature.id)
        if self.ctx.state.get(key, AfflictionSet) is None:
            self.ctx.state.put(
                key, AfflictionSet(actor_id=target.creature.id, creature=target.creature)
            )
        aset = self.ctx.state.edit(key, AfflictionSet)
        aset.creature = target.creature.model_copy(deep=True)
        if target.token_id:
            aset.token_id = target.token_id
            aset.scene_id = target.scene_id
        self.changed.add(aset.actor_id)
        return aset

    def edit_existing(self, actor_id: str) -> AfflictionSet:
        self.changed.add(actor_id)
        return self.ctx.state.edit(set_key(actor_id), AfflictionSet)

    def new_affliction(
        self, aset: AfflictionSet, kind: Kind, ref: str, **fields: Any
    ) -> Affliction:
        aset.counter += 1
        aff = Affliction(
            iid=f"{aset.actor_id}#{aset.counter}",
            kind=kind,
            ref=ref,
            started_at=self.now,
            turn_at=self.now,
            **fields,
        )
        aset.items.append(aff)
        self.changed.add(aset.actor_id)
        return aff

    # -- targets and runs
    def target(self, aset: AfflictionSet) -> Target:
        """The creature as a target, from its token on record when there is one."""
        return target_for_actor(
            self.ctx, aset.actor_id, aset.token_id, aset.scene_id, fallback=aset.creature
        )

    def run_for(self, aset: AfflictionSet, aff: Affliction, title: str) -> Run:
        key = (aset.actor_id, aff.iid)
        report = self.reports.get(key)
        if report is None:
            run = Run(
                self.ctx,
                aff.source(),
                title,
                variables={"condition_source": aff.source()},
                hooks={"affliction_clock": _no_clock},
            )
            report = Report(title, run, aff.secret, aset.actor_id, aset.token_id)
            self.reports[key] = report
        return report.run

    def run_plain(
        self, key: str, title: str, actor_id: str, token_id: str | None, secret: bool = False
    ) -> Run:
        """A run not tied to one affliction (e.g. a contagion save)."""
        report = self.reports.get((actor_id, key))
        if report is None:
            run = Run(self.ctx, key, title, hooks={"affliction_clock": _no_clock})
            report = Report(title, run, secret, actor_id, token_id)
            self.reports[(actor_id, key)] = report
        return report.run

    # -- conditions
    def hold(
        self,
        run: Run,
        target: Target,
        aff: Affliction,
        condition: str,
        duration: Duration | None = None,
    ) -> bool:
        """Put ``condition`` on the target for this affliction; False if it is immune."""
        if condition in target.creature.condition_immunities:
            ConditionEffect(condition=condition).run(run, target)
            return False
        child = run.nested(variables={**run.variables, "condition_source": aff.source()})
        ConditionEffect(condition=condition, duration=duration).run(child, target)
        if condition not in aff.conditions:
            aff.conditions.append(condition)
        return True

    def release(self, run: Run, target: Target, aff: Affliction, condition: str) -> None:
        if condition not in aff.conditions:
            return
        aff.conditions.remove(condition)
        op = release_condition(self.ctx, target.creature, condition, aff.source())
        if op is not None:
            op.token_id = target.token_id
            run.resolution.ops.append(op)
            run.resolution.say(
                run.t(
                    "card.condition.removed",
                    name=target.name,
                    condition=run.t(f"condition.{condition}"),
                )
            )

    def exhaustion(self, run: Run, target: Target, aff: Affliction, levels: int) -> None:
        if levels < 0:
            levels = -min(-levels, aff.exhaustion)
        if levels == 0:
            return
        before = target.creature.exhaustion
        child = run.nested(variables={**run.variables, "condition_source": aff.source()})
        ExhaustionEffect(levels=levels).run(child, target)
        aff.exhaustion = max(0, aff.exhaustion + (target.creature.exhaustion - before))

    def end(self, aset: AfflictionSet, aff: Affliction, reason_key: str, **params: Any) -> None:
        """Remove exactly what this affliction applied and drop it from the creature."""
        target = self.target(aset)
        run = self.run_for(aset, aff, self.title_of(aset, aff))
        for condition in list(aff.conditions):
            self.release(run, target, aff, condition)
        if aff.exhaustion:
            self.exhaustion(run, target, aff, -aff.exhaustion)
        run.resolution.say(
            run.t(reason_key, name=target.name, affliction=self.name_of(aff), **params)
        )
        if aff in aset.items:
            aset.items.remove(aff)
        self.changed.add(aset.actor_id)

    # -- names
    def name_of(self, aff: Affliction) -> str:
        from sidecar.rules.afflictions_registry import behaviour

        return behaviour(aff.kind).name(self, aff)

    def title_of(self, aset: AfflictionSet, aff: Affliction) -> str:
        return self.ctx.t(
            "afflictions.title", affliction=self.name_of(aff), name=aset.creature.name
        )

    # -- output
    def finish(self) -> None:
        from sidecar.rules.afflictions_view import send_state

        for report in self.reports.values():
            resolution: Resolution = report.run.resolution
            if not resolution.public and not resolution.gm and not resolution.ops:
                continue
            publish(
                self.ctx,
                resolution,
                title=report.title,
                public=not report.secret,
                speaker=Speaker(
                    alias=report.title, token_id=report.token_id, actor_id=report.actor_id
                ),
            )
        for actor_id in sorted(self.changed):
            key = set_key(actor_id)
            before = self.ctx.state.committed(key)
            after = self.ctx.state.get(key, AfflictionSet)
            if before is None or after is None or before.model_dump() != after.model_dump():
                send_state(self, actor_id)


def _no_clock(*_args: Any) -> None:
    """Durations of conditions the clock applies are tracked on the affliction itself."""


def target_for_actor(
    ctx: EventContext,
    actor_id: str,
    token_id: str | None = None,
    scene_id: str | None = None,
    fallback: Creature | None = None,
) -> Target:
    """A target whose creature is this event's private copy of the token's snapshot."""
    found: tuple[str, Token] | None = None
    if token_id and scene_id:
        tok = ctx.state.get(token_key(scene_id, token_id), Token)
        if tok is not None and tok.creature is not None and tok.creature.id == actor_id:
            found = (scene_id, tok)
    if found is None:
        tokens = tokens_of_actor(ctx.state, actor_id)
        if tokens:
            found = tokens[0]
    if found is not None:
        sid, tok = found
        edited = ctx.state.edit(token_key(sid, tok.id), Token)
        assert edited.creature is not None
        return Target(edited.creature, tok.id, sid)
    if fallback is not None:
        return Target(fallback.model_copy(deep=True))
    return Target(Creature(id=actor_id, name=actor_id, hp=HitPoints(value=0, max=0)))


def target_for_token(ctx: EventContext, scene_id: str | None, token_id: str) -> Target:
    if scene_id is None:
        where = find_token_anywhere(ctx.state, token_id)
        if where is None:
            raise RuleError(f"unknown token {token_id!r}")
        scene_id = where[0]
    tok = ctx.state.get(token_key(scene_id, token_id), Token)
    if tok is None:
        raise RuleError(f"unknown token {token_id!r} on scene {scene_id!r}")
    if tok.creature is None:
        raise RuleError(f"token {tok.name!r} has no creature snapshot")
    edited = ctx.state.edit(token_key(scene_id, token_id), Token)
    assert edited.creature is not None
    return Target(edited.creature, token_id, scene_id)


def last_save(run: Run, target: Target, start: int) -> dict[str, Any] | None:
    """The save fact the run recorded for ``target`` after fact index ``start``."""
    for fact in reversed(run.resolution.facts[start:]):
        if fact.get("fact") == "save" and fact.get("target") == target.creature.id:
            found: dict[str, Any] = fact
            return found
    return None


def damage_taken(run: Run, target: Target, start: int, damage_type: str) -> int:
    return sum(
        int(f.get("amount", 0))
        for f in run.resolution.facts[start:]
        if f.get("fact") == "damage"
        and f.get("target") == target.creature.id
        and f.get("type") == damage_type
    )


#: Order of simultaneous timers of one affliction: onset before saves before the end.
TIMER_ORDER = {"onset": 0, "unsuppress": 1, "save": 2, "laugh_end": 3, "expire": 4, "turn": 5}


def timers(aff: Affliction) -> list[tuple[float, str]]:
    """The affliction's world-time timers (not counting turns), soonest first."""
    found = [
        (aff.onset_at, "onset"),
        (aff.suppressed_until, "unsuppress"),
        (aff.next_save_at, "save"),
        (aff.laughing_until, "laugh_end"),
        (aff.expires_at, "expire"),
    ]
    out = [(t, what) for t, what in found if t is not None]
    return sorted(out, key=lambda item: (item[0], TIMER_ORDER[item[1]]))
