"""Diseases (RULES.md §4): exposure, incubation, symptoms, long-rest saves, cures.

The numbers live in content/diseases/; ``progression`` picks how a disease changes after a
long rest (cackle fever lowers its DCs, sewer plague moves exhaustion, sight rot worsens).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sidecar.content import LocalizedText, register_kind
from sidecar.engine import EventContext, RuleError, gm_action
from sidecar.models import Ability, Strict, Token
from sidecar.protocol import ExhaustionOp
from sidecar.rules.afflictions_core import (
    Affliction,
    AfflictionSet,
    DiceDuration,
    Session,
    last_save,
    localized_name,
    set_key,
    target_for_actor,
    target_for_token,
    world_now,
)
from sidecar.rules.afflictions_registry import Behaviour, register_behaviour
from sidecar.rules.effects import DamageEffect, Duration, Run, SaveEffect, Target, update_creature
from sidecar.rules.scene import get_scene, scene_tokens

Progression = Literal["cackle_fever", "sewer_plague", "sight_rot"]


class Contagion(Strict):
    radius_ft: float = Field(default=10, ge=0)
    dc: int = Field(default=10, ge=1, le=40)
    immunity_hours: float = Field(default=24, ge=0)


class DiseaseDef(Strict):
    id: str
    name: LocalizedText
    description: LocalizedText
    progression: Progression
    creature_types: list[str] = Field(default_factory=lambda: ["humanoid"])
    immune_races: list[str] = Field(default_factory=list)
    ability: Ability = "con"
    exposure_dc: int | None = Field(default=None, ge=1, le=40)
    incubation: DiceDuration
    onset_exhaustion: int = Field(default=0, ge=0, le=6)
    lock_exhaustion: bool = False
    rest_dc: int | None = Field(default=None, ge=1, le=40)
    stress_dc: int | None = Field(default=None, ge=1, le=40)
    laughter_damage: str | None = None
    laughter: DiceDuration | None = None
    dc_drop: str | None = None
    madness_after_failures: int | None = Field(default=None, ge=1, le=100)
    contagion: Contagion | None = None
    blind_at: int | None = Field(default=None, ge=1, le=20)
    eyebright_doses_to_cure: int | None = Field(default=None, ge=1, le=20)
    cured_by: list[str] = Field(default_factory=list)
    short_rest_note: LocalizedText | None = None
    long_rest_note: LocalizedText | None = None
    symptoms: LocalizedText


register_kind("disease", "diseases", DiseaseDef)


def get_disease(ctx: EventContext, disease_id: str) -> DiseaseDef:
    disease = ctx.content.get_as("disease", disease_id, DiseaseDef)
    if disease is None:
        known = ", ".join(ctx.content.all("disease"))
        raise RuleError(f"unknown disease {disease_id!r}; known: {known}")
    return disease


def _has(s: Session, actor_id: str, disease_id: str) -> Affliction | None:
    aset = s.get_set(actor_id)
    if aset is None:
        return None
    return next((a for a in aset.items if a.kind == "disease" and a.ref == disease_id), None)


def susceptible(disease: DiseaseDef, target: Target) -> str | None:
    """None if the disease can take this creature, else the catalog key saying why not."""
    creature = target.creature
    race = (creature.race or "").lower()
    if any(r in race for r in disease.immune_races):
        return "afflictions.disease.immune_race"
    kind = (creature.creature_type or "humanoid").lower()
    if kind not in disease.creature_types:
        return "afflictions.disease.immune_type"
    return None


def expose(
    s: Session,
    run: Run,
    target: Target,
    disease: DiseaseDef,
    *,
    dc: int | None = None,
    save: bool = True,
) -> Affliction | None:
    """Exposure: immunity, an existing case, the save to resist, then incubation."""
    name = localized_name(s.ctx, disease.name)
    why = susceptible(disease, target)
    if why is not None:
        run.resolution.say(
            run.t(
                why,
                name=target.name,
                disease=name,
                race=target.creature.race or "",
                type=target.creature.creature_type or "",
            )
        )
        return None
    if _has(s, target.creature.id, disease.id) is not None:
        run.resolution.say_gm(run.t("afflictions.disease.already", name=target.name, disease=name))
        return None
    exposure_dc = dc if dc is not None else disease.exposure_dc
    if save and exposure_dc is not None:
        start = len(run.resolution.facts)
        SaveEffect(ability=disease.ability, dc=exposure_dc).run(run, target)
        fact = last_save(run, target, start)
        if fact is None or fact["success"]:
            run.resolution.say(run.t("afflictions.disease.resisted", name=target.name))
            return None
    return infect(s, run, target, disease)


def infect(s: Session, run: Run, target: Target, disease: DiseaseDef) -> Affliction:
    aset = s.edit_set(target)
    amount, roll = disease.incubation.roll(s.ctx.dice)
    seconds = disease.incubation.seconds(amount)
    aff = s.new_affliction(
        aset,
        "disease",
        disease.id,
        stage="incubating",
        onset_at=s.now + seconds,
        dc=disease.rest_dc,
        aux_dc=disease.stress_dc,
    )
    shown = Duration(amount=amount, unit=disease.incubation.unit).describe(run)
    run.resolution.say_gm(
        run.t(
            "afflictions.disease.infected",
            name=target.name,
            disease=localized_name(s.ctx, disease.name),
            onset=shown,
        ),
        roll,
    )
    return aff


class DiseaseBehaviour(Behaviour):
    kind = "disease"

    def disease(self, s: Session, aff: Affliction) -> DiseaseDef:
        return get_disease(s.ctx, aff.ref)

    def name(self, s: Session, aff: Affliction) -> str:
        disease = s.ctx.content.get_as("disease", aff.ref, DiseaseDef)
        return localized_name(s.ctx, disease.name) if disease else aff.ref

    def _run(self, s: Session, aset: AfflictionSet, aff: Affliction) -> tuple[Run, Target]:
        return s.run_for(aset, aff, s.title_of(aset, aff)), s.target(aset)

    # -- world time
    def on_tick(self, s: Session, aset: AfflictionSet, aff: Affliction, what: str) -> None:
        disease = self.disease(s, aff)
        if what == "onset":
            aff.onset_at = None
            aff.stage = "active"
            run, target = self._run(s, aset, aff)
            run.resolution.say(
                run.t("afflictions.disease.onset", name=target.name, disease=self.name(s, aff))
            )
            run.resolution.say(localized_name(s.ctx, disease.symptoms))
            if disease.onset_exhaustion:
                s.exhaustion(run, target, aff, disease.onset_exhaustion)
            if disease.progression == "sight_rot":
                self._set_penalty(s, aset, aff, disease, 1)
        elif what == "laugh_end":
            self._stop_laughing(s, aset, aff, "afflictions.laughter.over")
        elif what == "expire":
            s.end(aset, aff, "afflictions.ended.expired")

    # -- laughter (cackle fever)
    def on_stress(self, s: Session, aset: AfflictionSet, aff: Affliction, reason: str) -> None:
        disease = self.disease(s, aff)
        if aff.stage != "active" or aff.laughing_until is not None or aff.aux_dc is None:
            return
        run, target = self._run(s, aset, aff)
        run.resolution.say(
            run.t(
                "afflictions.laughter.stress",
                name=target.name,
                reason=s.ctx.t(f"afflictions.stress.{reason}"),
            )
        )
        start = len(run.resolution.facts)
        SaveEffect(ability=disease.ability, dc=max(1, aff.aux_dc)).run(run, target)
        fact = last_save(run, target, start)
        if fact is None or fact["success"]:
            return
        if disease.laughter_damage:
            DamageEffect(formula=disease.laughter_damage, type="psychic").run(run, target)
        minutes = disease.laughter or DiceDuration(formula="1", unit="minutes")
        amount, _ = minutes.roll(s.ctx.dice)
        aff.laughing_until = s.now + minutes.seconds(amount)
        aff.turn_clock = True
        aff.turn_at = s.now
        run.resolution.say(run.t("afflictions.laughter.starts", name=target.name))
        s.hold(run, target, aff, "incapacitated", Duration(amount=amount, unit=minutes.unit))

    def _stop_laughing(self, s: Session, aset: AfflictionSet, aff: Affliction, key: str) -> None:
        if aff.laughing_until is None:
            return
        aff.laughing_until = None
        aff.turn_clock = False
        run, target = self._run(s, aset, aff)
        run.resolution.say(run.t(key, name=target.name))
        s.release(run, target, aff, "incapacitated")

    def on_turn(self, s: Session, aset: AfflictionSet, aff: Affliction, phase: str) -> None:
        if phase != "end" or aff.laughing_until is None or aff.aux_dc is None:
            return
        disease = self.disease(s, aff)
        run, target = self._run(s, aset, aff)
        start = len(run.resolution.facts)
        SaveEffect(ability=disease.ability, dc=max(1, aff.aux_dc)).run(run, target)
        fact = last_save(run, target, start)
        if fact is not None and fact["success"]:
            self._stop_laughing(s, aset, aff, "afflictions.laughter.stops")

    def on_damage(self, s: Session, aset: AfflictionSet, aff: Affliction, amount: int) -> None:
        if amount > 0:
            self.on_stress(s, aset, aff, "damage")

    # -- rests
    def on_rest(self, s: Session, aset: AfflictionSet, aff: Affliction, rest: str) -> None:
        disease = self.disease(s, aff)
        run, target = self._run(s, aset, aff)
        if rest == "short":
            if disease.short_rest_note and aff.stage == "active":
                run.resolution.say_gm(localized_name(s.ctx, disease.short_rest_note))
            return
        if aff.stage != "active":
            return
        if disease.lock_exhaustion and aff.exhaustion:
            self._keep_exhaustion(s, run, target, aff)
        if disease.long_rest_note:
            run.resolution.say_gm(localized_name(s.ctx, disease.long_rest_note))
        if disease.progression == "cackle_fever":
            self._rest_cackle(s, aset, aff, disease, run, target)
        elif disease.progression == "sewer_plague":
            self._rest_sewer(s, aset, aff, disease, run, target)
        else:
            self._rest_sight(s, aset, aff, disease, run)

    def _keep_exhaustion(self, s: Session, run: Run, target: Target, aff: Affliction) -> None:
        """The module's long rest just removed a level; a level the sickness holds stays."""
        level = target.creature.exhaustion
        if level > aff.exhaustion:

            def lower(c: Any) -> None:
                c.exhaustion = max(0, c.exhaustion - 1)

            update_creature(s.ctx, target, lower)
            return
        run.resolution.say_gm(
            run.t("afflictions.disease.exhaustion_kept", name=target.name, level=level)
        )
        run.resolution.ops.append(
            ExhaustionOp(token_id=target.token_id, actor_id=target.creature.id, level=level)
        )

    def _rest_save(
        self, s: Session, run: Run, target: Target, disease: DiseaseDef, dc: int
    ) -> bool:
        start = len(run.resolution.facts)
        SaveEffect(ability=disease.ability, dc=max(1, dc)).run(run, target)
        fact = last_save(run, target, start)
        return bool(fact and fact["success"])

    def _rest_cackle(
        self,
        s: Session,
        aset: AfflictionSet,
        aff: Affliction,
        disease: DiseaseDef,
        run: Run,
        target: Target,
    ) -> None:
        if aff.dc is None:
            return
        if self._rest_save(s, run, target, disease, aff.dc):
            roll = s.ctx.dice.roll(disease.dc_drop or "1d6", flavor="dc_drop")
            aff.dc -= roll.total
            if aff.aux_dc is not None:
                aff.aux_dc = max(0, aff.aux_dc - roll.total)
            run.resolution.say(
                run.t("afflictions.disease.easing", name=target.name, amount=roll.total), roll
            )
            run.resolution.say_gm(
                run.t(
                    "afflictions.disease.new_dcs",
                    dc=max(0, aff.dc),
                    aux=aff.aux_dc if aff.aux_dc is not None else "-",
                )
            )
            if aff.dc <= 0:
                aff.dc = 0
                self._stop_laughing(s, aset, aff, "afflictions.laughter.stops")
                s.end(aset, aff, "afflictions.ended.recovered")
            return
        aff.failures += 1
        run.resolution.say_gm(
            run.t("afflictions.disease.rest_failures", name=target.name, count=aff.failures)
        )
        if disease.madness_after_failures and aff.failures == disease.madness_after_failures:
            from sidecar.rules.madness import inflict

            run.resolution.say(
                run.t("afflictions.disease.madness", name=target.name, disease=self.name(s, aff))
            )
            inflict(s, run, target, "indefinite")

    def _rest_sewer(
        self,
        s: Session,
        aset: AfflictionSet,
        aff: Affliction,
        disease: DiseaseDef,
        run: Run,
        target: Target,
    ) -> None:
        if aff.dc is None:
            return
        if self._rest_save(s, run, target, disease, aff.dc):
            s.exhaustion(run, target, aff, -1)
            if aff.exhaustion <= 0:
                s.end(aset, aff, "afflictions.ended.recovered")
        else:
            s.exhaustion(run, target, aff, 1)

    def _rest_sight(
        self, s: Session, aset: AfflictionSet, aff: Affliction, disease: DiseaseDef, run: Run
    ) -> None:
        if aff.dose_pending:
            aff.dose_pending = False
            run.resolution.say(run.t("afflictions.sight.held_back", name=aset.creature.name))
            return
        self._set_penalty(s, aset, aff, disease, aff.penalty + 1)

    def _set_penalty(
        self, s: Session, aset: AfflictionSet, aff: Affliction, disease: DiseaseDef, value: int
    ) -> None:
        run, target = self._run(s, aset, aff)
        aff.penalty = min(value, disease.blind_at or value)
        run.resolution.say(
            run.t("afflictions.sight.penalty", name=target.name, penalty=aff.penalty)
        )
        if disease.blind_at and aff.penalty >= disease.blind_at and "blinded" not in aff.conditions:
            s.hold(run, target, aff, "blinded")

    # -- cures
    def cure(self, s: Session, aset: AfflictionSet, aff: Affliction, method: str) -> bool:
        disease = self.disease(s, aff)
        if method != "gm" and method not in disease.cured_by:
            return False
        self._stop_laughing(s, aset, aff, "afflictions.laughter.stops")
        s.end(aset, aff, "afflictions.ended.cured", method=s.ctx.t(f"afflictions.method.{method}"))
        return True

    def eyebright(self, s: Session, aset: AfflictionSet, aff: Affliction, doses: int) -> None:
        disease = self.disease(s, aff)
        run, target = self._run(s, aset, aff)
        aff.doses += doses
        aff.dose_pending = True
        needed = disease.eyebright_doses_to_cure or 0
        run.resolution.say(
            run.t("afflictions.sight.eyebright", name=target.name, count=aff.doses, needed=needed)
        )
        if needed and aff.doses >= needed:
            s.end(
                aset, aff, "afflictions.ended.cured", method=s.ctx.t("afflictions.method.eyebright")
            )

    def describe(self, s: Session, aff: Affliction) -> dict[str, Any]:
        return {
            "laughing": aff.laughing_until is not None,
            "laughter_dc": aff.aux_dc,
            "penalty": aff.penalty,
            "eyebright_doses": aff.doses,
            "next_long_rest_save": aff.stage == "active" and aff.dc is not None,
        }


DISEASES = DiseaseBehaviour()
register_behaviour(DISEASES)


# ---------------------------------------------------------------- contagion


def grid_distance_ft(a: Token, b: Token, size: float, distance: float) -> float:
    """Squares between two footprints (5-ft grid counting, diagonals as one)."""
    gap_x = max(0.0, b.x - (a.x + a.width * size), a.x - (b.x + b.width * size)) / size
    gap_y = max(0.0, b.y - (a.y + a.height * size), a.y - (b.y + b.height * size)) / size
    overlap_x = b.x < a.x + a.width * size and a.x < b.x + b.width * size
    overlap_y = b.y < a.y + a.height * size and a.y < b.y + b.height * size
    if overlap_x and overlap_y:
        return 0.0
    return (round(max(gap_x, gap_y)) + 1) * distance


def contagion(s: Session, scene_id: str, token_id: str) -> None:
    """A creature starts its turn: laughing carriers within reach may pass their disease."""
    ctx = s.ctx
    scene = get_scene(ctx.state, scene_id)
    tokens = {t.id: t for t in scene_tokens(ctx.state, scene_id)}
    me = tokens.get(token_id)
    if me is None or me.creature is None:
        return
    for disease_id, model in ctx.content.all("disease").items():
        if not isinstance(model, DiseaseDef) or model.contagion is None:
            continue
        for other in sorted(tokens.values(), key=lambda t: t.id):
            if other.creature is None or other.creature.id == me.creature.id:
                continue
            case = _has(s, other.creature.id, disease_id)
            if case is None or case.laughing_until is None:
                continue
            reach = grid_distance_ft(me, other, scene.grid.size, scene.grid.distance)
            if reach > model.contagion.radius_ft:
                continue
            _contagion_save(s, scene_id, token_id, model, other.creature.id, other.name)


def _contagion_save(
    s: Session,
    scene_id: str,
    token_id: str,
    disease: DiseaseDef,
    carrier_id: str,
    carrier_name: str,
) -> None:
    assert disease.contagion is not None
    target = target_for_token(s.ctx, scene_id, token_id)
    if susceptible(disease, target) is not None or _has(s, target.creature.id, disease.id):
        return
    key = f"{disease.id}:{carrier_id}"
    existing = s.get_set(target.creature.id)
    if existing is not None and existing.immune_until.get(key, -1e18) > s.now:
        return
    title = s.ctx.t(
        "afflictions.title", affliction=localized_name(s.ctx, disease.name), name=target.name
    )
    run = s.run_plain(f"contagion:{disease.id}", title, target.creature.id, token_id)
    run.resolution.say(
        run.t("afflictions.disease.near_carrier", name=target.name, carrier=carrier_name)
    )
    start = len(run.resolution.facts)
    SaveEffect(ability=disease.ability, dc=disease.contagion.dc).run(run, target)
    fact = last_save(run, target, start)
    if fact is not None and fact["success"]:
        aset = s.edit_set(target)
        aset.immune_until[key] = s.now + disease.contagion.immunity_hours * 3600
        run.resolution.say(
            run.t(
                "afflictions.disease.carrier_immunity",
                name=target.name,
                carrier=carrier_name,
                hours=disease.contagion.immunity_hours,
            )
        )
    else:
        infect(s, run, target, disease)


# ---------------------------------------------------------------- GM actions


class ExposeParams(Strict):
    disease: str
    token_ids: list[str] = Field(min_length=1, max_length=100)
    scene_id: str | None = None
    dc: int | None = Field(default=None, ge=1, le=40)
    save: bool = True


@gm_action("disease.expose", ExposeParams)
def expose_action(ctx: EventContext, params: ExposeParams) -> None:
    """Creatures meet a disease (a bite, filth, tainted water): save to resist or incubate."""
    disease = get_disease(ctx, params.disease)
    s = Session(ctx, world_now(ctx))
    title = ctx.t("afflictions.disease.exposure_title", disease=localized_name(ctx, disease.name))
    for token_id in params.token_ids:
        target = target_for_token(ctx, params.scene_id, token_id)
        run = s.run_plain(f"expose:{disease.id}", title, target.creature.id, token_id)
        expose(s, run, target, disease, dc=params.dc, save=params.save)
    s.finish()


class EyebrightParams(Strict):
    token_id: str | None = None
    scene_id: str | None = None
    actor_id: str | None = None
    doses: int = Field(default=1, ge=1, le=10)


def _target(
    ctx: EventContext, actor_id: str | None, token_id: str | None, scene_id: str | None
) -> Target:
    if token_id:
        return target_for_token(ctx, scene_id, token_id)
    if actor_id:
        return target_for_actor(ctx, actor_id)
    raise RuleError("give token_id or actor_id")


@gm_action("disease.eyebright", EyebrightParams)
def eyebright(ctx: EventContext, params: EyebrightParams) -> None:
    """A dose of eyebright ointment (an hour's work with a herbalism kit) on the eyes."""
    target = _target(ctx, params.actor_id, params.token_id, params.scene_id)
    s = Session(ctx, world_now(ctx))
    aset = s.get_set(target.creature.id)
    case = (
        None
        if aset is None
        else next(
            (
                a
                for a in aset.items
                if a.kind == "disease" and get_disease(ctx, a.ref).eyebright_doses_to_cure
            ),
            None,
        )
    )
    if aset is None or case is None:
        raise RuleError(f"{target.name} has no disease that eyebright treats")
    DISEASES.eyebright(
        s, s.edit_existing(aset.actor_id), _same(s, aset.actor_id, case), params.doses
    )
    s.finish()


def _same(s: Session, actor_id: str, aff: Affliction) -> Affliction:
    edited = s.ctx.state.get(set_key(actor_id), AfflictionSet)
    assert edited is not None
    found = edited.find(aff.iid)
    assert found is not None
    return found


class StressParams(Strict):
    token_id: str
    scene_id: str | None = None
    reason: Literal["fear", "nightmare", "combat", "damage"] = "fear"


@gm_action("disease.stress", StressParams)
def stress(ctx: EventContext, params: StressParams) -> None:
    """A strong stress the sidecar cannot see (a fright, a nightmare)."""
    target = target_for_token(ctx, params.scene_id, params.token_id)
    s = Session(ctx, world_now(ctx))
    aset = s.get_set(target.creature.id)
    if aset is not None:
        edited = s.edit_existing(aset.actor_id)
        for aff in list(edited.items):
            if aff.kind == "disease":
                DISEASES.on_stress(s, edited, aff, params.reason)
    s.finish()
