"""Effect kinds the chase tables need, registered with the one interpreter.

They find the chase and the participant they hit through ``run.variables`` (``chase_id``
and ``chase_participant``), set by the chase engine; run anywhere else (say, by a trap) they
only write their card line.

- ``difficult_terrain`` {feet}: that much difficult terrain on the target's next move.
- ``lose_movement`` {feet}: the target's next move is that much shorter.
- ``chase_blind``: blinded until the end of the target's next turn, speed halved meanwhile.
- ``chase_stop``: the target's current move ends here (a map obstacle that stops it).
- ``pick_save`` / ``pick_check``: a save or check whose ability someone picks: the GM (the
  world setting ``gm_picks_ability``: the creature's best or worst) or the creature (best).
- ``avoid_or_spend`` {feet, ability, dc, damage, on_fail}: the creature either spends movement
  or risks the save (razorvine); the participant's ``avoid_with_movement`` decides, else the
  likelier outcome (save when it succeeds at least half the time).
- ``join_as_pursuer``: a creature joins the chase hunting the target (through a hook the
  chase engine provides, so a pursuer hit by it starts a new chase as a quarry).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sidecar.content import LocalizedText
from sidecar.models import Ability, Creature, Strict
from sidecar.protocol import StatusOp
from sidecar.rules.chase_content import text_in
from sidecar.rules.chase_math import p_test
from sidecar.rules.chase_models import ChaseDoc, Participant, chase_key
from sidecar.rules.effects import (
    CheckEffect,
    DamageSpec,
    Effect,
    EffectList,
    Run,
    SaveEffect,
    Target,
    add_condition,
    effect,
)

Chooser = Literal["gm", "creature"]


def chase_participant(run: Run) -> tuple[ChaseDoc, Participant] | None:
    chase_id = run.variables.get("chase_id")
    pid = run.variables.get("chase_participant")
    if not isinstance(chase_id, str) or not isinstance(pid, str):
        return None
    key = chase_key(chase_id)
    if run.ctx.state.get(key, ChaseDoc) is None:
        return None
    chase = run.ctx.state.edit(key, ChaseDoc)
    participant = chase.participants.get(pid)
    return (chase, participant) if participant is not None else None


def blind_source(chase_id: str, pid: str) -> str:
    return f"chase:{chase_id}:blind:{pid}"


@effect("difficult_terrain")
class DifficultTerrainEffect(Effect):
    kind: Literal["difficult_terrain"] = "difficult_terrain"
    feet: int = Field(default=10, ge=5, le=1000)

    def run(self, run: Run, target: Target) -> None:
        found = chase_participant(run)
        if found is not None:
            found[1].difficult_ft += self.feet
        run.resolution.say(run.t("chase.effect.difficult", name=target.name, feet=self.feet))
        run.resolution.facts.append(
            {"fact": "difficult_terrain", "target": target.creature.id, "feet": self.feet}
        )


@effect("lose_movement")
class LoseMovementEffect(Effect):
    kind: Literal["lose_movement"] = "lose_movement"
    feet: int = Field(default=10, ge=5, le=1000)

    def run(self, run: Run, target: Target) -> None:
        found = chase_participant(run)
        if found is not None:
            found[1].lose_ft += self.feet
        run.resolution.say(run.t("chase.effect.lose", name=target.name, feet=self.feet))
        run.resolution.facts.append(
            {"fact": "lose_movement", "target": target.creature.id, "feet": self.feet}
        )


@effect("chase_stop")
class StopEffect(Effect):
    kind: Literal["chase_stop"] = "chase_stop"

    def run(self, run: Run, target: Target) -> None:
        found = chase_participant(run)
        if found is not None:
            found[1].stopped = True
        run.resolution.say(run.t("chase.effect.stopped", name=target.name))
        run.resolution.facts.append({"fact": "stopped", "target": target.creature.id})


@effect("chase_blind")
class BlindEffect(Effect):
    kind: Literal["chase_blind"] = "chase_blind"

    def run(self, run: Run, target: Target) -> None:
        if "blinded" in target.creature.condition_immunities:
            run.resolution.say(
                run.t(
                    "card.condition.immune", name=target.name, condition=run.t("condition.blinded")
                )
            )
            return
        found = chase_participant(run)
        source = blind_source(found[0].id, found[1].id) if found else run.source_id
        if found is not None:
            found[1].blinded_this_turn = True
        if add_condition(run.ctx, target, "blinded", source):
            run.resolution.ops.append(
                StatusOp(
                    token_id=target.token_id,
                    actor_id=target.creature.id,
                    status="blinded",
                    active=True,
                )
            )
        run.resolution.say(run.t("chase.effect.blinded", name=target.name))
        run.resolution.facts.append({"fact": "chase_blind", "target": target.creature.id})


def _pick(values: list[tuple[int, Any]], policy: Literal["best", "worst"]) -> Any:
    """The option with the best (or worst) modifier; the first listed wins a tie."""
    chosen = values[0]
    for value in values[1:]:
        if (policy == "best" and value[0] > chosen[0]) or (
            policy == "worst" and value[0] < chosen[0]
        ):
            chosen = value
    return chosen[1]


def policy_of(run: Run, chooser: Chooser) -> Literal["best", "worst"]:
    return run.ctx.settings.gm_picks_ability if chooser == "gm" else "best"


def pick_ability(
    creature: Creature, abilities: list[Ability], policy: Literal["best", "worst"]
) -> Ability:
    picked: Ability = _pick([(creature.save_bonus(a), a) for a in abilities], policy)
    return picked


@effect("pick_save")
class PickSaveEffect(Effect):
    """A save of one of several abilities, picked by the GM's policy or by the creature."""

    kind: Literal["pick_save"] = "pick_save"
    abilities: list[Ability] = Field(min_length=1, max_length=6)
    chooser: Chooser = "gm"
    dc: int = Field(ge=0, le=40)
    damage: list[DamageSpec] = Field(default_factory=list)
    half_on_success: bool = False
    on_fail: EffectList = Field(default_factory=list)
    on_success: EffectList = Field(default_factory=list)

    def run(self, run: Run, target: Target) -> None:
        policy = policy_of(run, self.chooser)
        ability = pick_ability(target.creature, self.abilities, policy)
        if len(self.abilities) > 1:
            run.resolution.say(
                run.t(
                    f"chase.pick.{self.chooser}_{policy}",
                    name=target.name,
                    ability=run.t(f"ability.{ability}"),
                )
            )
        SaveEffect(
            ability=ability,
            dc=self.dc,
            damage=self.damage,
            half_on_success=self.half_on_success,
            on_fail=self.on_fail,
            on_success=self.on_success,
        ).run(run, target)


class CheckOption(Strict):
    ability: Ability
    skill: str | None = Field(default=None, max_length=32)

    def modifier(self, creature: Creature) -> int:
        if self.skill:
            return creature.skill_total(self.skill, self.ability)
        return creature.ability_mod(self.ability)


@effect("pick_check")
class PickCheckEffect(Effect):
    """An ability check (with or without a skill) of one of several options."""

    kind: Literal["pick_check"] = "pick_check"
    options: list[CheckOption] = Field(min_length=1, max_length=10)
    chooser: Chooser = "creature"
    dc: int = Field(ge=0, le=40)
    on_fail: EffectList = Field(default_factory=list)
    on_success: EffectList = Field(default_factory=list)

    def choose(self, creature: Creature, policy: Literal["best", "worst"]) -> CheckOption:
        option: CheckOption = _pick([(o.modifier(creature), o) for o in self.options], policy)
        return option

    def run(self, run: Run, target: Target) -> None:
        policy = policy_of(run, self.chooser)
        option = self.choose(target.creature, policy)
        if len(self.options) > 1:
            label = (
                run.t(f"skill.{option.skill}")
                if option.skill
                else run.t(f"ability.{option.ability}")
            )
            run.resolution.say(
                run.t(f"chase.pick.{self.chooser}_{policy}", name=target.name, ability=label)
            )
        CheckEffect(
            ability=option.ability,
            skill=option.skill,
            dc=self.dc,
            on_fail=self.on_fail,
            on_success=self.on_success,
        ).run(run, target)


@effect("avoid_or_spend")
class AvoidOrSpendEffect(Effect):
    """Spend movement to go around, or risk a save (the creature's choice)."""

    kind: Literal["avoid_or_spend"] = "avoid_or_spend"
    feet: int = Field(default=10, ge=5, le=1000)
    ability: Ability = "dex"
    dc: int = Field(ge=0, le=40)
    damage: list[DamageSpec] = Field(default_factory=list)
    on_fail: EffectList = Field(default_factory=list)

    def spends(self, creature: Creature, preference: bool | None, ruleset: Any) -> bool:
        if preference is not None:
            return preference
        chance = p_test(
            creature.save_bonus(self.ability),
            self.dc,
            creature=creature,
            kind="save",
            ruleset=ruleset,
        )
        return chance < 0.5

    def run(self, run: Run, target: Target) -> None:
        found = chase_participant(run)
        preference = found[1].avoid_with_movement if found else None
        if self.spends(target.creature, preference, run.ctx.ruleset):
            run.resolution.say(run.t("chase.effect.spends", name=target.name, feet=self.feet))
            LoseMovementEffect(feet=self.feet).run(run, target)
            return
        run.resolution.say(run.t("chase.effect.risks", name=target.name))
        SaveEffect(
            ability=self.ability,
            dc=self.dc,
            damage=self.damage,
            half_on_success=False,
            on_fail=self.on_fail,
        ).run(run, target)


class NativeCreature(Strict):
    name: LocalizedText
    speed: int = Field(default=30, ge=0, le=1000)
    passive_perception: int = Field(default=10, ge=-50, le=100)
    hp: int = Field(default=10, ge=1, le=10_000)
    ac: int = Field(default=12, ge=0, le=50)
    abilities: dict[Ability, int] = Field(default_factory=dict)
    skills: dict[str, int] = Field(default_factory=dict)

    def creature(self, creature_id: str, language: str) -> Creature:
        return Creature.model_validate(
            {
                "id": creature_id,
                "name": text_in(self.name, language),
                "hp": {"value": self.hp, "max": self.hp},
                "ac": self.ac,
                "abilities": self.abilities,
                "skills": self.skills,
                "passive_perception": self.passive_perception,
                "speed": self.speed,
            }
        )


@effect("join_as_pursuer")
class JoinAsPursuerEffect(Effect):
    """A creature joins the chase with the target as its quarry."""

    kind: Literal["join_as_pursuer"] = "join_as_pursuer"
    creature: NativeCreature
    distance_ft: int = Field(default=30, ge=5, le=10_000)

    def run(self, run: Run, target: Target) -> None:
        hook = run.hooks.get("chase_join")
        name = text_in(self.creature.name, run.ctx.language)
        run.resolution.say(run.t("chase.effect.joins", name=target.name, creature=name))
        if hook is not None:
            hook(run, target, self.creature, self.distance_ft)
        run.resolution.facts.append(
            {"fact": "join_as_pursuer", "target": target.creature.id, "creature": name}
        )
