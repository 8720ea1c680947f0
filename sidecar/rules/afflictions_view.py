"""The GM's panel: a ``state`` message (kind "afflictions") per creature."""

from __future__ import annotations

from typing import Any

from sidecar.rules.afflictions_core import Affliction, AfflictionSet, Session, set_key, timers
from sidecar.rules.afflictions_registry import behaviour


def summary(s: Session, aset: AfflictionSet, aff: Affliction) -> dict[str, Any]:
    upcoming = [{"what": what, "at": at, "in_s": max(0.0, at - s.now)} for at, what in timers(aff)]
    if aff.turn_clock:
        upcoming.append({"what": "turn", "at": None, "in_s": None})
    if aff.rests_left is not None:
        upcoming.append({"what": "long_rest", "at": None, "in_s": None})
    info: dict[str, Any] = {
        "iid": aff.iid,
        "kind": aff.kind,
        "ref": aff.ref,
        "name": behaviour(aff.kind).name(s, aff),
        "stage": aff.stage,
        "conditions": list(aff.conditions),
        "exhaustion": aff.exhaustion,
        "dc": aff.dc,
        "successes": aff.successes,
        "failures": aff.failures,
        "started_at": aff.started_at,
        "time_left_s": None if aff.expires_at is None else max(0.0, aff.expires_at - s.now),
        "turns_left": aff.turns_left,
        "next": upcoming[0] if upcoming else None,
        "upcoming": upcoming,
        "secret": aff.secret,
    }
    info.update(behaviour(aff.kind).describe(s, aff))
    return info


def send_state(s: Session, actor_id: str) -> None:
    aset = s.ctx.state.get(set_key(actor_id), AfflictionSet)
    items = [] if aset is None else [summary(s, aset, a) for a in aset.items]
    s.ctx.out.state(
        "afflictions",
        actor_id,
        {
            "actor_id": actor_id,
            "name": aset.creature.name if aset else actor_id,
            "world_time": s.now,
            "afflictions": items,
        },
    )
