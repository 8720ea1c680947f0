"""Severity tables (RULES.md §1.2), generic traps, and a placement's effective definition."""

from __future__ import annotations

import json
from typing import Any

from sidecar.content import ContentStore
from sidecar.engine import RuleError
from sidecar.models import TrapPlacement
from sidecar.rules.traps_model import Generic, Severity, TrapDef, merge

#: (lowest, highest) save DC and attack bonus per severity; the default is the middle.
SAVE_DC: dict[Severity, tuple[int, int]] = {
    "setback": (10, 11),
    "dangerous": (12, 15),
    "deadly": (16, 20),
}
ATTACK_BONUS: dict[Severity, tuple[int, int]] = {
    "setback": (3, 5),
    "dangerous": (6, 8),
    "deadly": (9, 12),
}
#: damage dice by character level band (upper bound of the band) and severity
DAMAGE: list[tuple[int, dict[Severity, str]]] = [
    (4, {"setback": "1d10", "dangerous": "2d10", "deadly": "4d10"}),
    (10, {"setback": "2d10", "dangerous": "4d10", "deadly": "10d10"}),
    (16, {"setback": "4d10", "dangerous": "10d10", "deadly": "18d10"}),
    (20, {"setback": "10d10", "dangerous": "18d10", "deadly": "24d10"}),
]


def default_dc(severity: Severity) -> int:
    low, high = SAVE_DC[severity]
    return (low + high) // 2


def default_attack(severity: Severity) -> int:
    low, high = ATTACK_BONUS[severity]
    return (low + high) // 2


def damage_dice(severity: Severity, level: int) -> str:
    for upper, row in DAMAGE:
        if level <= upper:
            return row[severity]
    return DAMAGE[-1][1][severity]


def derived(generic: Generic) -> dict[str, Any]:
    """DC, attack bonus and dice for a generic trap; the GM's own numbers win."""
    return {
        "dc": generic.dc if generic.dc is not None else default_dc(generic.severity),
        "attack_bonus": (
            generic.attack_bonus
            if generic.attack_bonus is not None
            else default_attack(generic.severity)
        ),
        "damage": generic.damage or damage_dice(generic.severity, generic.level),
    }


def generic_effects(generic: Generic) -> list[dict[str, Any]]:
    numbers = derived(generic)
    damage = [{"formula": numbers["damage"], "type": generic.damage_type}]
    if generic.mode == "attack":
        return [{"kind": "attack", "bonus": numbers["attack_bonus"], "damage": damage}]
    return [
        {
            "kind": "save",
            "ability": generic.ability,
            "dc": numbers["dc"],
            "damage": damage,
            "half_on_success": generic.half_on_success,
        }
    ]


def _set_numbers(node: Any, key: str, field: str, value: Any) -> Any:
    """Set ``field`` on every effect of kind ``key`` in a nested effect tree."""
    if isinstance(node, list):
        return [_set_numbers(n, key, field, value) for n in node]
    if isinstance(node, dict):
        out = {k: _set_numbers(v, key, field, value) for k, v in node.items()}
        if out.get("kind") == key:
            out[field] = value
        return out
    return node


SHORTCUTS = {"save_dc": ("save", "dc"), "attack_bonus": ("attack", "bonus")}

_CACHE: dict[tuple[int, str, str], TrapDef] = {}


def effective(content: ContentStore, placement: TrapPlacement) -> TrapDef:
    """The catalog entry with the placement's overrides applied (memoized)."""
    overrides = dict(placement.overrides)
    cache_key = (id(content), placement.trap_id, json.dumps(overrides, sort_keys=True, default=str))
    hit = _CACHE.get(cache_key)
    if hit is not None:
        return hit
    base = content.get_as("trap", placement.trap_id, TrapDef)
    if base is None:
        raise RuleError(f"unknown trap {placement.trap_id!r}")
    raw = base.model_dump(mode="json", exclude_none=True)
    shortcuts = {k: overrides.pop(k) for k in list(overrides) if k in SHORTCUTS}
    generic_keys = set(Generic.model_fields)
    if base.generic is not None:
        moved = {k: overrides.pop(k) for k in list(overrides) if k in generic_keys}
        raw["generic"] = merge(raw["generic"], moved)
    raw = merge(raw, overrides)
    try:
        if "generic" in raw:
            generic = Generic.model_validate(raw["generic"])
            raw["effects"] = generic_effects(generic)
        for name, value in shortcuts.items():
            kind, field = SHORTCUTS[name]
            raw["effects"] = _set_numbers(raw.get("effects", []), kind, field, value)
        trap = TrapDef.model_validate(raw)
    except ValueError as exc:
        raise RuleError(f"trap {placement.trap_id!r}: overrides do not fit: {exc}") from None
    if len(_CACHE) > 512:
        _CACHE.clear()
    _CACHE[cache_key] = trap
    return trap
