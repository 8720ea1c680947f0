"""Effect primitives traps add to the interpreter: a pit's fall, a wound that carries
poison, and annihilation."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sidecar.protocol import DamageOp
from sidecar.rules.effects import (
    DamageEffect,
    Effect,
    EffectList,
    FallEffect,
    Run,
    Target,
    effect,
    notify_wound,
)


@effect("pit_fall")
class PitFallEffect(Effect):
    """Fall to the bottom of the pit: the trap's ``depth_ft`` (a GM override changes it)."""

    kind: Literal["pit_fall"] = "pit_fall"
    default_ft: int = Field(default=10, ge=0, le=10_000)

    def run(self, run: Run, target: Target) -> None:
        depth = int(run.variables.get("depth_ft") or self.default_ft)
        FallEffect(distance_ft=depth).run(run, target)


@effect("wound")
class WoundEffect(Effect):
    """Typed damage; ``then`` runs only if the creature actually took some (poisoned spikes,
    darts). ``then`` is not part of a critical hit: its dice are never doubled."""

    kind: Literal["wound"] = "wound"
    formula: str
    type: str
    then: EffectList = Field(default_factory=list)
    always: bool = Field(default=False, description="run ``then`` even if no damage got through")

    def run(self, run: Run, target: Target) -> None:
        before = len(run.resolution.facts)
        DamageEffect(formula=self.formula, type=self.type).run(run, target)
        taken = sum(
            int(f.get("amount", 0))
            for f in run.resolution.facts[before:]
            if f.get("fact") == "damage" and f.get("target") == target.creature.id
        )
        if taken > 0 or self.always:
            run.nested(critical=False, half_damage=False).run_all(self.then, target)
        if taken > 0:
            notify_wound(run, target, self.type)


@effect("annihilate")
class AnnihilateEffect(Effect):
    """Matter that enters is gone: damage equal to all the creature's hit points and more,
    untouched by resistances (nothing resists being unmade)."""

    kind: Literal["annihilate"] = "annihilate"

    def run(self, run: Run, target: Target) -> None:
        hp = target.creature.hp
        amount = max(1, hp.value + hp.temp + hp.max)
        run.resolution.say(run.t("trap.effect.annihilated", name=target.name))
        run.resolution.facts.append(
            {"fact": "annihilated", "target": target.creature.id, "amount": amount}
        )
        run.resolution.ops.append(
            DamageOp(
                token_id=target.token_id,
                actor_id=target.creature.id,
                amount=amount,
                damage_type="force",
                raw=amount,
            )
        )
