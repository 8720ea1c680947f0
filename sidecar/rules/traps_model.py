"""What a trap is, as content: trigger, detection, disarm, bypasses, area, effects, reset.

Every sample trap of RULES.md §1.4 is a YAML entry of this model under ``content/traps/``.
A GM's placement (``TrapPlacement.overrides``) is merged over the entry before use, so a
deeper pit or a harder DC is data, not code. ``generic`` entries are built from the §1.2
severity tables (see :mod:`sidecar.rules.traps_builder`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sidecar.content import LocalizedText, register_kind
from sidecar.models import Ability, Strict
from sidecar.rules.effects import EffectList

TriggerType = Literal["pressure_plate", "trip_wire", "cover", "area", "interaction"]
InteractionKind = Literal["open", "pick_lock_failed", "touch", "knock_over", "enter"]
Severity = Literal["setback", "dangerous", "deadly"]


class Trigger(Strict):
    type: TriggerType
    weight: Literal["more_than_20lb", "20lb_or_more"] | None = None
    tiny_triggers: bool = Field(default=False, description="Tiny creatures press the plate")
    ignores_flying: bool = True
    stops_movement: bool = False
    interactions: list[InteractionKind] = Field(default_factory=list)
    description: LocalizedText | None = None


class Detection(Strict):
    dc: int | None = Field(default=None, ge=0, le=40)
    skill: Literal["prc", "inv", "arc"] = "prc"
    passive: bool = True
    investigate_dc: int | None = Field(default=None, ge=0, le=40)
    arcana_dc: int | None = Field(default=None, ge=0, le=40)
    aura: str | None = Field(default=None, description="school detect magic reveals")
    notice: LocalizedText | None = Field(default=None, description="what a noticer perceives")
    mechanism: LocalizedText | None = Field(default=None, description="what investigation shows")
    obvious: LocalizedText | None = Field(default=None, description="seen without any check")


class DisarmOption(Strict):
    id: str
    ability: Ability = "dex"
    skill: str | None = None
    tool: Literal["thieves_tools", "none"] | None = "thieves_tools"
    dc: int = Field(ge=0, le=40)
    edged_tool_disadvantage: bool = False
    failure_triggers: bool = False
    result: Literal["disarmed", "destroyed"] = "disarmed"


class Bypass(Strict):
    id: Literal["spike", "plug", "dispel", "arcane_lock", "cover"]
    dc: int | None = Field(default=None, ge=0, le=40, description="dispel magic check DC")
    result: Literal["jammed", "disarmed", "destroyed", "compulsion_ended"] = "jammed"


class EffectArea(Strict):
    shape: Literal["trigger", "radius", "cone", "square", "within", "self"] = "trigger"
    size_ft: float = Field(default=0, ge=0, le=10_000)
    picks: int = Field(default=0, ge=0, le=100, description="random targets (darts); 0: all")


class Reset(Strict):
    policy: Literal["once", "rearm", "manual"] = "once"
    rounds: int = Field(default=1, ge=0, le=10_000)


class Aftermath(Strict):
    difficult_terrain: bool = False
    object: str | None = Field(default=None, description="object left behind (net, lid)")
    locks_victims: bool = False
    lid_dc: int = Field(default=20, ge=0, le=40)
    lid_inside_dc: int = Field(default=15, ge=0, le=40)
    escape_dc: int | None = Field(default=None, ge=0, le=40, description="net: Str check")
    escape_condition: str | None = None


class Complex(Strict):
    initiative_bonus: int = Field(default=0, ge=-10, le=30)
    speed_ft: float = Field(default=60, ge=0, le=1000)
    size_ft: float = Field(default=10, gt=0, le=100)
    slow_dc: int = Field(default=20, ge=0, le=40)
    slow_by_ft: float = Field(default=15, ge=0, le=1000)
    effects: EffectList = Field(default_factory=list)


class Generic(Strict):
    """Inputs of a generic trap: the numbers come from the §1.2 tables."""

    severity: Severity
    level: int = Field(ge=1, le=20)
    mode: Literal["save", "attack"] = "save"
    ability: Ability = "dex"
    damage_type: str = "bludgeoning"
    half_on_success: bool = True
    dc: int | None = Field(default=None, ge=0, le=40)
    attack_bonus: int | None = Field(default=None, ge=-10, le=30)
    damage: str | None = None


class TrapDef(Strict):
    id: str
    name: LocalizedText
    summary: LocalizedText | None = None
    sprung: LocalizedText = Field(description="what everyone sees when it goes off")
    kind: Literal["mechanical", "magic"] = "mechanical"
    trigger: Trigger
    detection: Detection = Field(default_factory=Detection)
    disarm: list[DisarmOption] = Field(default_factory=list)
    bypasses: list[Bypass] = Field(default_factory=list)
    area: EffectArea = Field(default_factory=EffectArea)
    effects: EffectList = Field(default_factory=list)
    depth_ft: int = Field(default=0, ge=0, le=1000)
    reset: Reset = Field(default_factory=Reset)
    aftermath: Aftermath = Field(default_factory=Aftermath)
    complex: Complex | None = None
    generic: Generic | None = None
    tags: list[str] = Field(default_factory=list)


register_kind("trap", "traps", TrapDef)


def merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Deep merge; dotted keys (``detection.dc``) address nested fields."""
    out = dict(base)
    for key, value in overrides.items():
        if "." in key:
            head, rest = key.split(".", 1)
            out[head] = merge(dict(out.get(head) or {}), {rest: value})
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out
