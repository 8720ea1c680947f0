"""The affliction clock: every lasting effect ticks on the clock its rule names.

- world time (``time.advance``): every timer inside the jump, in time order, each processed
  at its own moment (an 8-hour jump runs an hour-by-hour story, not one lump);
- combat turns (``combat.turn``): the end of the prior creature's turn, then the start of
  the current one; a creature out of combat takes one "turn" per 6 s of world time, so
  repeat saves do not freeze when a fight ends;
- rests (``rest.completed``), and events: damage, healing, entering combat, shaking.

Conditions with a duration from other engines (the interpreter's ``LastingConditions``
document, or the ``affliction_clock`` hook) become afflictions of kind ``lasting``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sidecar.engine import EventContext, RuleError, gm_action, on
from sidecar.models import Strict
from sidecar.protocol import (
    CombatStart,
    CombatTurn,
    DamageTaken,
    HealingApplied,
    RestCompleted,
    TimeAdvance,
)
from sidecar.rules import diseases, madness, poisons
from sidecar.rules.afflictions_core import (
    MAX_TICKS_PER_EVENT,
    TIMER_ORDER,
    TURN_SECONDS,
    UNIT_SECONDS,
    Affliction,
    AfflictionSet,
    Session,
    in_combat,
    next_midnight,
    target_for_actor,
    target_for_token,
    timers,
    world_now,
)
from sidecar.rules.afflictions_registry import Behaviour, behaviour, register_behaviour
from sidecar.rules.afflictions_view import send_state
from sidecar.rules.effects import (
    ConditionLedger,
    Duration,
    Effect,
    LastingConditions,
    Run,
    Target,
    effect,
    ledger_key,
)
from sidecar.rules.scene import Clock, find_token_anywhere, scene_tokens

# ---------------------------------------------------------------- lasting conditions


class LastingBehaviour(Behaviour):
    """A condition another engine gave a duration: it only has to end on time."""

    kind = "lasting"

    def name(self, s: Session, aff: Affliction) -> str:
        condition = s.ctx.t(f"condition.{aff.ref}")
        return f"{condition} ({aff.label})" if aff.label else condition

    def on_turn(self, s: Session, aset: AfflictionSet, aff: Affliction, phase: str) -> None:
        if phase != "end" or aff.turns_left is None:
            return
        aff.turns_left -= 1
        if aff.turns_left <= 0:
            s.end(aset, aff, "afflictions.ended.expired")

    def on_rest(self, s: Session, aset: AfflictionSet, aff: Affliction, rest: str) -> None:
        if rest != "long" or aff.rests_left is None:
            return
        aff.rests_left -= 1
        if aff.rests_left <= 0:
            s.end(aset, aff, "afflictions.ended.expired")


register_behaviour(LastingBehaviour())


def add_lasting(
    s: Session,
    target: Target,
    condition: str,
    source: str,
    source_name: str,
    duration: Duration,
    applied_at: float | None,
) -> Affliction | None:
    ledger = s.ctx.state.get(ledger_key(target.creature.id), ConditionLedger)
    if ledger is None or source not in ledger.holders.get(condition, []):
        return None  # its engine already ended it
    start = s.now if applied_at is None else applied_at
    aset = s.edit_set(target)
    aff = s.new_affliction(
        aset, "lasting", condition, label=source_name, holder=source, conditions=[condition]
    )
    aff.started_at = start
    aff.turn_at = start
    if duration.unit in ("minutes", "hours", "days"):
        aff.expires_at = start + duration.amount * UNIT_SECONDS[duration.unit]
    elif duration.unit in ("rounds", "turns"):
        aff.turn_clock = True
        aff.turns_left = max(1, duration.amount)
    else:
        aff.rests_left = max(1, duration.amount)
    return aff


def affliction_clock_hook(
    run: Run, target: Target, condition: str, source: str, duration: Duration
) -> None:
    """The interpreter's ``affliction_clock`` hook: engines may pass it in ``hooks``."""
    s = Session(run.ctx, world_now(run.ctx))
    add_lasting(s, target, condition, source, run.source_name, duration, s.now)
    s.finish()


def absorb_lasting(s: Session) -> None:
    doc = s.ctx.state.get("lasting", LastingConditions)
    if doc is None:
        return
    for entry in doc.entries:
        if entry.duration is None:
            continue
        target = target_for_actor(s.ctx, entry.actor_id)
        add_lasting(
            s,
            target,
            entry.condition,
            entry.source,
            entry.source_name,
            entry.duration,
            entry.applied_at,
        )
    s.ctx.state.delete("lasting")


# ---------------------------------------------------------------- world time


def _next_due(
    s: Session, aset: AfflictionSet, aff: Affliction, t0: float, t1: float, fighting: bool
) -> tuple[float, str] | None:
    found = [(at, what) for at, what in timers(aff) if at <= t1]
    if aff.turn_clock and not fighting:
        at = max(aff.turn_at, t0) + TURN_SECONDS
        if at <= t1:
            found.append((at, "turn"))
    if not found:
        return None
    return min(found, key=lambda item: (item[0], TIMER_ORDER[item[1]]))


def _timer_value(aff: Affliction, what: str) -> float | None:
    return {
        "onset": aff.onset_at,
        "unsuppress": aff.suppressed_until,
        "save": aff.next_save_at,
        "laugh_end": aff.laughing_until,
        "expire": aff.expires_at,
    }.get(what)


def _clear_timer(aff: Affliction, what: str) -> None:
    if what == "onset":
        aff.onset_at = None
    elif what == "unsuppress":
        aff.suppressed_until = None
    elif what == "save":
        aff.next_save_at = None
    elif what == "laugh_end":
        aff.laughing_until = None
    elif what == "expire":
        aff.expires_at = None


def run_world_time(s: Session, t0: float, t1: float) -> int:
    """Process every timer due up to ``t1`` in time order; returns how many ran."""
    ctx = s.ctx
    count = 0
    while count < MAX_TICKS_PER_EVENT:
        best: tuple[float, int, str, str, str] | None = None
        for _, aset in ctx.state.items("afflictions:", AfflictionSet):
            fighting = any(a.turn_clock for a in aset.items) and in_combat(ctx, aset)
            for aff in aset.items:
                due = _next_due(s, aset, aff, t0, t1, fighting)
                if due is None:
                    continue
                key = (due[0], TIMER_ORDER[due[1]], aset.actor_id, aff.iid, due[1])
                if best is None or key < best:
                    best = key
        if best is None:
            break
        at, _, actor_id, iid, what = best
        count += 1
        s.now = max(at, s.now)
        aset = s.edit_existing(actor_id)
        found = aset.find(iid)
        if found is None:
            continue
        aff = found
        handler = behaviour(aff.kind)
        if what == "turn":
            aff.turn_at = at
            handler.on_turn(s, aset, aff, "start")
            if aff in aset.items:
                handler.on_turn(s, aset, aff, "end")
            continue
        before = _timer_value(aff, what)
        handler.on_tick(s, aset, aff, what)
        if aff in aset.items and _timer_value(aff, what) == before:
            _clear_timer(aff, what)  # a behaviour that ignored its timer must not loop
    return count


def _rebase(s: Session, start: float) -> None:
    """Afflictions begun before the module first told us the time were timed from 0:
    move them to the first time we hear, instead of replaying years of ticks."""
    for key, _ in list(s.ctx.state.items("afflictions:", AfflictionSet)):
        aset = s.edit_existing(key.split(":", 1)[1])
        for aff in aset.items:
            aff.started_at += start
            aff.turn_at += start
            for name in (
                "expires_at",
                "onset_at",
                "next_save_at",
                "laughing_until",
                "suppressed_until",
            ):
                value = getattr(aff, name)
                if value is not None:
                    setattr(aff, name, value + start)
            if aff.kind == "poison" and aff.stage == "waiting":
                aff.onset_at = next_midnight(aff.started_at)
        for carrier, until in list(aset.immune_until.items()):
            aset.immune_until[carrier] = until + start


def _settle_wounds(s: Session) -> None:
    """Time moved on: a wound report that has not come by now never will."""
    for key, aset in list(s.ctx.state.items("afflictions:", AfflictionSet)):
        if any(a.wound_pending for a in aset.items):
            for aff in s.edit_existing(key.split(":", 1)[1]).items:
                aff.wound_pending = False


@on("time.advance")
def _time_advance(ctx: EventContext, event: TimeAdvance) -> None:
    t1 = event.world_time
    t0 = t1 - max(0.0, event.delta)
    s = Session(ctx, t0)
    before = ctx.state.committed("clock")
    if isinstance(before, Clock) and before.world_time is None:
        _rebase(s, t0)
    absorb_lasting(s)
    if event.delta > 0:
        _settle_wounds(s)
        run_world_time(s, t0, t1)
    s.now = t1
    s.finish()


# ---------------------------------------------------------------- combat turns


def _actor_of_token(ctx: EventContext, token_id: str) -> tuple[str, str] | None:
    where = find_token_anywhere(ctx.state, token_id)
    if where is None or where[1].creature is None:
        return None
    return where[0], where[1].creature.id


def _each(s: Session, actor_id: str) -> tuple[AfflictionSet, list[Affliction]] | None:
    if s.get_set(actor_id) is None:
        return None
    aset = s.edit_existing(actor_id)
    return aset, list(aset.items)


def turn_phase(s: Session, token_id: str, phase: Literal["start", "end"]) -> None:
    found = _actor_of_token(s.ctx, token_id)
    if found is None:
        return
    both = _each(s, found[1])
    if both is None:
        return
    aset, items = both
    for aff in items:
        if aff in aset.items:
            behaviour(aff.kind).on_turn(s, aset, aff, phase)


@on("combat.turn")
def _combat_turn(ctx: EventContext, event: CombatTurn) -> None:
    s = Session(ctx, world_now(ctx))
    absorb_lasting(s)
    _settle_wounds(s)
    if event.prior is not None and event.prior.token_id:
        turn_phase(s, event.prior.token_id, "end")
    if event.current.token_id:
        turn_phase(s, event.current.token_id, "start")
        found = _actor_of_token(ctx, event.current.token_id)
        if found is not None:
            diseases.contagion(s, found[0], event.current.token_id)
    s.finish()


@on("combat.start")
def _combat_start(ctx: EventContext, event: CombatStart) -> None:
    s = Session(ctx, world_now(ctx))
    token_ids = [c.token_id for c in event.combatants if c.token_id]
    if not token_ids and event.scene_id:
        token_ids = [t.id for t in scene_tokens(ctx.state, event.scene_id)]
    seen: set[str] = set()
    for token_id in token_ids:
        found = _actor_of_token(ctx, token_id)
        if found is None or found[1] in seen:
            continue
        seen.add(found[1])
        both = _each(s, found[1])
        if both is None:
            continue
        aset, items = both
        for aff in items:
            if aff in aset.items:
                behaviour(aff.kind).on_stress(s, aset, aff, "combat")
    s.finish()


# ---------------------------------------------------------------- rests and events


@on("rest.completed")
def _rest(ctx: EventContext, event: RestCompleted) -> None:
    s = Session(ctx, world_now(ctx))
    absorb_lasting(s)
    both = _each(s, event.actor_id)
    if both is not None:
        aset, items = both
        for aff in items:
            if aff in aset.items:
                behaviour(aff.kind).on_rest(s, aset, aff, event.rest)
    s.finish()


@on("damage.taken")
def _damage(ctx: EventContext, event: DamageTaken) -> None:
    if event.amount <= 0:
        return
    s = Session(ctx, world_now(ctx))
    both = _each(s, event.actor_id)
    if both is not None:
        aset, items = both
        wound = bool({"piercing", "slashing"} & set(event.damage_types))
        for aff in items:
            if aff.wound_pending and wound:
                # the hit that delivered the poison, reported after weapon.hit: no wake-up
                aff.wound_pending = False
                continue
            if aff in aset.items:
                behaviour(aff.kind).on_damage(s, aset, aff, event.amount)
    s.finish()


@on("healing.applied")
def _healing(ctx: EventContext, event: HealingApplied) -> None:
    s = Session(ctx, world_now(ctx))
    aset = s.get_set(event.actor_id)
    if aset is not None:
        for aff in aset.items:
            behaviour(aff.kind).on_heal(s, aset, aff, event.amount)
    s.changed.clear()  # nothing changed: only the GM's note
    s.finish()


# ---------------------------------------------------------------- GM actions


class WhoParams(Strict):
    token_id: str | None = None
    scene_id: str | None = None
    actor_id: str | None = None

    def target(self, ctx: EventContext) -> Target:
        if self.token_id:
            return target_for_token(ctx, self.scene_id, self.token_id)
        if self.actor_id:
            return target_for_actor(ctx, self.actor_id)
        raise RuleError("give token_id or actor_id")


@gm_action("affliction.shake", WhoParams)
def shake(ctx: EventContext, params: WhoParams) -> None:
    """Someone spends an action shaking a sleeper awake."""
    target = params.target(ctx)
    s = Session(ctx, world_now(ctx))
    both = _each(s, target.creature.id)
    if both is not None:
        aset, items = both
        for aff in items:
            if aff in aset.items:
                behaviour(aff.kind).on_shake(s, aset, aff)
    s.finish()


class CureParams(WhoParams):
    method: str = Field(min_length=1, max_length=64)
    affliction: str | None = Field(default=None, description="an iid or a content id")


@gm_action("affliction.cure", CureParams)
def cure(ctx: EventContext, params: CureParams) -> None:
    """A spell, an antidote or the GM's word: ends (or suppresses) what it can."""
    target = params.target(ctx)
    s = Session(ctx, world_now(ctx))
    both = _each(s, target.creature.id)
    worked = False
    if both is not None:
        aset, items = both
        for aff in items:
            if params.affliction and params.affliction not in (aff.iid, aff.ref):
                continue
            if aff.kind == "lasting" and params.method != "gm":
                continue
            if aff in aset.items and behaviour(aff.kind).cure(s, aset, aff, params.method):
                worked = True
    if not worked:
        run = s.run_plain(
            "cure",
            ctx.t("afflictions.cure.title", name=target.name),
            target.creature.id,
            target.token_id,
            secret=True,
        )
        run.resolution.say_gm(
            run.t(
                "afflictions.cure.no_effect",
                name=target.name,
                method=ctx.t(f"afflictions.method.{params.method}"),
            )
        )
    s.finish()


class ListParams(Strict):
    actor_id: str | None = None


@gm_action("afflictions.list", ListParams)
def list_afflictions(ctx: EventContext, params: ListParams) -> None:
    """The GM's panel: one ``state`` message per afflicted creature."""
    s = Session(ctx, world_now(ctx))
    if params.actor_id:
        send_state(s, params.actor_id)
        return
    for _, aset in ctx.state.items("afflictions:", AfflictionSet):
        send_state(s, aset.actor_id)


# ---------------------------------------------------------------- for other engines


@effect("apply_affliction")
class ApplyAfflictionEffect(Effect):
    """Start a poison dose, a disease exposure or a madness from any content (a trap)."""

    kind: Literal["apply_affliction"] = "apply_affliction"
    affliction: str = Field(min_length=1, max_length=128)
    partial: poisons.Partial = "none"
    save: bool = True

    def run(self, run: Run, target: Target) -> None:
        ctx = run.ctx
        s = Session(ctx, world_now(ctx))
        if ctx.content.get("poison", self.affliction) is not None:
            poisons.deliver(
                s, run, target, poisons.get_poison(ctx, self.affliction), partial=self.partial
            )
        elif ctx.content.get("disease", self.affliction) is not None:
            diseases.expose(
                s, run, target, diseases.get_disease(ctx, self.affliction), save=self.save
            )
        elif self.affliction in madness.KINDS:
            kind: Any = self.affliction
            madness.inflict(s, run, target, kind)
        else:
            raise RuleError(f"unknown affliction {self.affliction!r}")
        s.finish()


__all__ = ["ApplyAfflictionEffect", "affliction_clock_hook", "run_world_time"]
