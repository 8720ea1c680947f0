"""Undo a result: restore what an event changed, unless it has changed again since.

Each applied event stores the before and after images of the state documents it changed.
Undo restores a document when it still equals its after image. Tokens are restored part by
part (hit points, statuses, exhaustion, position), so a token that only moved since a trap
hit it still gets its hit points back; a part that changed since (the creature was healed)
is left alone and reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sidecar.models import Token
from sidecar.protocol import ExhaustionOp, MoveTokenOp, Op, SetHitPointsOp, StatusOp
from sidecar.state import WorldState, load_document


@dataclass
class UndoPlan:
    ops: list[Op] = field(default_factory=list)
    reverted: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    states: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)


def _token_parts(token: Token | None) -> dict[str, Any]:
    if token is None:
        return {}
    creature = token.creature
    return {
        "hp": (creature.hp.value, creature.hp.temp) if creature else None,
        "statuses": sorted(creature.statuses) if creature else None,
        "exhaustion": creature.exhaustion if creature else None,
        "position": (token.x, token.y, token.elevation),
    }


def _undo_token(state: WorldState, key: str, before: Token, after: Token, plan: UndoPlan) -> None:
    current = state.get(key, Token)
    if current is None:
        plan.conflicts.append(f"{before.name}: token removed since")
        return
    now, was, then = _token_parts(current), _token_parts(after), _token_parts(before)
    edited = state.edit(key, Token)
    scene_id = key.split(":")[1]
    for part in ("hp", "statuses", "exhaustion", "position"):
        if then[part] == was[part]:
            continue
        if now[part] != was[part]:
            plan.conflicts.append(f"{before.name}: {part}")
            continue
        plan.reverted.append(f"{before.name}: {part}")
        creature, old = edited.creature, before.creature
        if part == "hp" and creature and old:
            creature.hp.value, creature.hp.temp = old.hp.value, old.hp.temp
            plan.ops.append(
                SetHitPointsOp(
                    token_id=edited.id, actor_id=creature.id, value=old.hp.value, temp=old.hp.temp
                )
            )
        elif part == "statuses" and creature and old:
            for status in sorted(set(creature.statuses) - set(old.statuses)):
                plan.ops.append(
                    StatusOp(token_id=edited.id, actor_id=creature.id, status=status, active=False)
                )
            for status in sorted(set(old.statuses) - set(creature.statuses)):
                plan.ops.append(
                    StatusOp(token_id=edited.id, actor_id=creature.id, status=status, active=True)
                )
            creature.statuses = list(old.statuses)
        elif part == "exhaustion" and creature and old:
            creature.exhaustion = old.exhaustion
            plan.ops.append(
                ExhaustionOp(token_id=edited.id, actor_id=creature.id, level=old.exhaustion)
            )
        elif part == "position":
            edited.x, edited.y, edited.elevation = before.x, before.y, before.elevation
            plan.ops.append(
                MoveTokenOp(
                    scene_id=scene_id,
                    token_id=edited.id,
                    x=before.x,
                    y=before.y,
                    elevation=before.elevation,
                    reason="undo",
                )
            )


def plan_undo(state: WorldState, images: dict[str, list[str | None]]) -> UndoPlan:
    """Change ``state`` back where it is safe and return the ops that do the same in Foundry."""
    plan = UndoPlan()
    for key, (before_json, after_json) in sorted(images.items()):
        before = load_document(key, before_json) if before_json else None
        after = load_document(key, after_json) if after_json else None
        if key.startswith("token:") and isinstance(before, Token) and isinstance(after, Token):
            _undo_token(state, key, before, after, plan)
            continue
        reference = after if after is not None else before
        if reference is None:
            continue
        current = state.get(key, type(reference))
        current_json = current.model_dump_json() if current is not None else None
        if current_json != after_json:
            plan.conflicts.append(key)
            continue
        if before is None:
            state.delete(key)
        else:
            state.put(key, before)
        plan.reverted.append(key)
        if key.startswith("trap:") and before is not None:
            parts = key.split(":", 2)
            plan.states.append(("trap", ":".join(parts[1:]), before.model_dump(mode="json")))
    return plan
