"""A placed trap's runtime state (``trap:<scene>:<region>``) and how the GM is told of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field

from sidecar.engine import EventContext
from sidecar.i18n import localized
from sidecar.models import Language, Strict
from sidecar.protocol import RegionFlagOp
from sidecar.rules.scene import Clock, clock
from sidecar.rules.traps_model import TrapDef
from sidecar.state import register_document

Status = Literal["armed", "triggered", "disarmed", "jammed", "destroyed"]


class SphereState(Strict):
    """A rolling complex trap: where it is along its track and how fast it still goes."""

    position_ft: float = 0
    speed_ft: float = 60
    rolling: bool = True
    combat_id: str | None = None
    initiative: float = 0


class TrapState(Strict):
    scene_id: str
    region_id: str
    trap_id: str
    status: Status = "armed"
    noticed_by: list[str] = Field(default_factory=list, description="actor ids")
    revealed: bool = Field(default=False, description="players know it is there")
    identified_by: list[str] = Field(default_factory=list)
    aura_seen: bool = False
    fired: int = 0
    rearm_round: int | None = None
    rearm_combat: str | None = None
    rearm_time: float | None = None
    plugged: bool = False
    difficult_terrain: bool = False
    locked_in: list[str] = Field(default_factory=list, description="token ids under the lid")
    held: list[str] = Field(default_factory=list, description="token ids the trap holds (net)")
    objects: list[str] = Field(default_factory=list, description="object keys it left")
    compulsion: bool = True
    sphere: SphereState | None = None


register_document("trap", TrapState)


def trap_key(scene_id: str, region_id: str) -> str:
    return f"trap:{scene_id}:{region_id}"


def load(ctx: EventContext, scene_id: str, region_id: str, trap_id: str) -> TrapState:
    """The trap's state (a fresh armed one if it never changed)."""
    found = ctx.state.get(trap_key(scene_id, region_id), TrapState)
    if found is not None and found.trap_id == trap_id:
        return found
    return TrapState(scene_id=scene_id, region_id=region_id, trap_id=trap_id)


def edit(ctx: EventContext, scene_id: str, region_id: str, trap_id: str) -> TrapState:
    key = trap_key(scene_id, region_id)
    found = ctx.state.get(key, TrapState)
    if found is None or found.trap_id != trap_id:
        ctx.state.put(key, TrapState(scene_id=scene_id, region_id=region_id, trap_id=trap_id))
    return ctx.state.edit(key, TrapState)


def rearm_due(state: TrapState, now: Clock) -> bool:
    if state.status != "triggered":
        return False
    if state.rearm_round is not None and state.rearm_combat is not None:
        combat = now.combats.get(state.rearm_combat)
        if combat is None or combat.round >= state.rearm_round:
            return True
    if state.rearm_time is not None and now.world_time is not None:
        return now.world_time >= state.rearm_time
    return False


def is_armed(ctx: EventContext, state: TrapState) -> bool:
    return state.status == "armed" or rearm_due(state, clock(ctx.state))


def snapshot(state: TrapState) -> dict[str, object]:
    """What the GM's region sheet shows (never sent to players)."""
    return {
        "trap_id": state.trap_id,
        "status": state.status,
        "revealed": state.revealed,
        "noticed_by": list(state.noticed_by),
        "fired": state.fired,
        "plugged": state.plugged,
        "difficult_terrain": state.difficult_terrain,
        "locked_in": list(state.locked_in),
        "held": list(state.held),
        "sphere": state.sphere.model_dump() if state.sphere else None,
    }


def announce(ctx: EventContext, state: TrapState) -> None:
    """Mirror the state on the region (op) and on the GM's trap panel (state message)."""
    data = snapshot(state)
    ctx.out.ops([RegionFlagOp(scene_id=state.scene_id, region_id=state.region_id, state=data)])
    ctx.out.state("trap", trap_key(state.scene_id, state.region_id), data)


def text(ctx: EventContext, value: Mapping[Language, str] | None) -> str:
    """An inline content text in the event's language ('' when absent)."""
    if not value:
        return ""
    return localized({str(k): v for k, v in value.items()}, ctx.language)


def trap_name(ctx: EventContext, trap: TrapDef) -> str:
    return text(ctx, trap.name)


def public_name(ctx: EventContext, trap: TrapDef, state: TrapState) -> str:
    """What players may call it: its name once revealed, otherwise just 'a trap'."""
    return trap_name(ctx, trap) if state.revealed else ctx.t("trap.card.unknown")
