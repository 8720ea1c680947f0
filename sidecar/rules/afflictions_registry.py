"""Behaviours per affliction kind: what a poison, disease or madness does on each clock."""

from __future__ import annotations

from typing import Any

from sidecar.rules.afflictions_core import Affliction, AfflictionSet, Session


class Behaviour:
    """Default: nothing happens. Subclasses override the clocks they care about."""

    kind = ""

    def name(self, s: Session, aff: Affliction) -> str:
        return aff.label or aff.ref

    def on_tick(self, s: Session, aset: AfflictionSet, aff: Affliction, what: str) -> None:
        if what == "expire":
            s.end(aset, aff, "afflictions.ended.expired")

    def on_turn(self, s: Session, aset: AfflictionSet, aff: Affliction, phase: str) -> None:
        return None

    def on_damage(self, s: Session, aset: AfflictionSet, aff: Affliction, amount: int) -> None:
        return None

    def on_shake(self, s: Session, aset: AfflictionSet, aff: Affliction) -> None:
        return None

    def on_heal(self, s: Session, aset: AfflictionSet, aff: Affliction, amount: int) -> None:
        return None

    def on_rest(self, s: Session, aset: AfflictionSet, aff: Affliction, rest: str) -> None:
        return None

    def on_stress(self, s: Session, aset: AfflictionSet, aff: Affliction, reason: str) -> None:
        return None

    def cure(self, s: Session, aset: AfflictionSet, aff: Affliction, method: str) -> bool:
        """End (or suppress) the affliction with ``method``; False if it does not work."""
        if method == "gm":
            s.end(aset, aff, "afflictions.ended.cured", method=s.ctx.t("afflictions.method.gm"))
            return True
        return False

    def describe(self, s: Session, aff: Affliction) -> dict[str, Any]:
        """Extra facts for the GM's panel."""
        return {}


_BEHAVIOURS: dict[str, Behaviour] = {}


def register_behaviour(behaviour: Behaviour) -> Behaviour:
    _BEHAVIOURS[behaviour.kind] = behaviour
    return behaviour


def behaviour(kind: str) -> Behaviour:
    return _BEHAVIOURS.get(kind) or Behaviour()
