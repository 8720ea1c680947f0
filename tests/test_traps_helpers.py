"""Shared builders for the trap tests: a 100 px / 5 ft grid, regions, tokens and moves."""

from __future__ import annotations

from typing import Any

from sidecar.client import Result, SidecarClient, creature, token
from sidecar.models import Token

SCENE = "trap-scene"
SQ = 100  # pixels per 5-ft square


def rect(x: float, y: float, w: float = SQ, h: float = SQ, **extra: Any) -> dict[str, Any]:
    return {"type": "rectangle", "x": x, "y": y, "width": w, "height": h, **extra}


def wire(*points: float) -> dict[str, Any]:
    return {"type": "line", "points": list(points)}


def region(rid: str, trap_id: str, *shapes: dict[str, Any], **placement: Any) -> dict[str, Any]:
    return {
        "id": rid,
        "name": rid,
        "shapes": list(shapes),
        "trap": {"trap_id": trap_id, **placement},
    }


def hero(
    tid: str,
    x: float,
    y: float,
    *,
    pp: int = 10,
    hp: int = 60,
    ac: int = 14,
    owner: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    data = creature(
        f"a-{tid}",
        tid.capitalize(),
        hp=hp,
        ac=ac,
        passive_perception=pp,
        owners=[owner] if owner else [],
        **extra,
    )
    return token(tid, tid.capitalize(), x, y, data)


def scene(
    regions: list[dict[str, Any]],
    tokens: list[dict[str, Any]],
    walls: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": SCENE,
        "name": "Corridor",
        "width": 4000,
        "height": 2000,
        "grid": {"size": SQ, "distance": 5, "units": "ft"},
        "tokens": tokens,
        "regions": regions,
    }
    if walls is not None:
        body["walls"] = walls
    return {"type": "scene.sync", "scene": body}


async def setup(
    client: SidecarClient, regions: list[dict[str, Any]], tokens: list[dict[str, Any]], **kw: Any
) -> None:
    result = await client.send(scene(regions, tokens, **kw))
    assert result.ok, result.reply


async def move(
    client: SidecarClient,
    token_id: str,
    *points: tuple[float, float],
    method: str = "dragging",
    elevation: float = 0,
    **wp: Any,
) -> Result:
    path = [{"x": x, "y": y, "elevation": elevation, **wp} for x, y in points]
    result = await client.send(
        {
            "type": "token.move",
            "scene_id": SCENE,
            "token_id": token_id,
            "method": method,
            "path": path,
        }
    )
    assert result.ok, result.reply
    return result


async def action(client: SidecarClient, name: str, **params: Any) -> Result:
    return await client.send(
        {"type": "gm.action", "action": name, "params": {"scene_id": SCENE, **params}}
    )


def stored(server: Any, token_id: str) -> Token:
    world = server.sidecar.world(server.world_id)
    doc = world.state.get(f"token:{SCENE}:{token_id}", Token)
    assert doc is not None
    return doc


def sprung(result: Result, visibility: str = "public") -> list[dict[str, Any]]:
    """Trap result cards of one visibility (those carrying a ``trap`` in their data)."""
    return [c for c in result.cards if c["visibility"] == visibility and "trap" in c["data"]]


def facts(card: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [f for f in card["data"].get("facts", []) if f.get("fact") == kind]


def ops(result: Result, kind: str) -> list[dict[str, Any]]:
    return [op for op in result.ops if op["op"] == kind]
