"""Helpers for the affliction tests (no tests here): a scene, creatures, readers of results."""

from __future__ import annotations

from typing import Any

from sidecar.client import Result, SidecarClient, creature, token

SCENE = "aff-scene"
FAIL = {"str": -30, "dex": -30, "con": -30, "int": -30, "wis": -30, "cha": -30}
SAVE = {"str": 30, "dex": 30, "con": 30, "int": 30, "wis": 30, "cha": 30}
HOUR = 3600
DAY = 86400


def hero(cid: str, name: str, saves: dict[str, int] | None = None, **extra: Any) -> dict[str, Any]:
    extra.setdefault("creature_type", "humanoid")
    return creature(cid, name, hp=60, saves=saves or FAIL, **extra)


def tok(tid: str, x: float, y: float, data: dict[str, Any]) -> dict[str, Any]:
    return token(tid, data["name"], x, y, data)


def party(**overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """Aria, Borin (adjacent) and a goblin far away; saves fail unless overridden."""
    aria = hero("act-aria", "Aria", **overrides.get("aria", {}))
    borin = hero("act-borin", "Borin", race="dwarf", **overrides.get("borin", {}))
    goblin = hero("act-gob", "Goblin", saves=SAVE, **overrides.get("gob", {}))
    return [
        tok("tok-aria", 200, 200, aria),
        tok("tok-borin", 300, 200, borin),
        tok("tok-gob", 1200, 1200, goblin),
    ]


async def setup(
    client: SidecarClient, tokens: list[dict[str, Any]] | None = None, world_time: float = 0
) -> None:
    result = await client.send(
        {
            "type": "scene.sync",
            "scene": {
                "id": SCENE,
                "name": "Test",
                "width": 3000,
                "height": 3000,
                "grid": {"size": 100, "distance": 5, "units": "ft"},
                "tokens": tokens if tokens is not None else party(),
                "regions": [],
            },
        }
    )
    assert result.ok, result.reply
    result = await client.send({"type": "time.advance", "world_time": world_time, "delta": 0})
    assert result.ok, result.reply


async def gm(client: SidecarClient, action: str, **params: Any) -> Result:
    result = await client.send({"type": "gm.action", "action": action, "params": params})
    assert result.ok, result.reply
    return result


async def advance(client: SidecarClient, to: float, delta: float) -> Result:
    result = await client.send({"type": "time.advance", "world_time": to, "delta": delta})
    assert result.ok, result.reply
    return result


async def set_saves(
    client: SidecarClient,
    tid: str,
    x: float,
    y: float,
    data: dict[str, Any],
    saves: dict[str, int],
    **extra: Any,
) -> None:
    """Replace a token's snapshot with new save bonuses (statuses kept by the sidecar)."""
    changed = dict(data, saves=saves, **extra)
    result = await client.send(
        {"type": "token.update", "scene_id": SCENE, "token": tok(tid, x, y, changed)}
    )
    assert result.ok, result.reply


def statuses(result: Result, actor: str | None = None) -> list[tuple[str, bool]]:
    return [
        (op["status"], op["active"])
        for op in result.ops
        if op["op"] == "status" and (actor is None or op["actor_id"] == actor)
    ]


def damage(result: Result, actor: str | None = None, kind: str | None = None) -> list[int]:
    return [
        op["amount"]
        for op in result.ops
        if op["op"] == "damage"
        and (actor is None or op["actor_id"] == actor)
        and (kind is None or op["damage_type"] == kind)
    ]


def exhaustion(result: Result, actor: str) -> list[int]:
    return [
        op["level"] for op in result.ops if op["op"] == "exhaustion" and op["actor_id"] == actor
    ]


def facts(result: Result, kind: str | None = None) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    for card in result.cards:
        for fact in card["data"].get("facts", []):
            if (kind is None or fact.get("fact") == kind) and fact not in seen:
                seen.append(fact)
    return seen


def saves_of(result: Result, actor: str) -> list[dict[str, Any]]:
    """Save facts for one creature (GM cards carry every save)."""
    out: list[dict[str, Any]] = []
    for card in result.cards:
        if card["visibility"] != "gm":
            continue
        out += [
            f
            for f in card["data"].get("facts", [])
            if f.get("fact") == "save" and f.get("target") == actor
        ]
    return out


def text(result: Result, visibility: str | None = None) -> str:
    from sidecar.cards import card_text
    from sidecar.protocol import Card

    return "\n".join(
        card_text(Card.model_validate(c))
        for c in result.cards
        if visibility is None or c["visibility"] == visibility
    )


def state(result: Result, actor: str) -> dict[str, Any] | None:
    found = [
        m
        for m in result.messages
        if m["type"] == "state" and m["kind"] == "afflictions" and m["key"] == actor
    ]
    return found[-1]["data"] if found else None


def refs(result: Result, actor: str) -> list[str]:
    data = state(result, actor)
    assert data is not None, f"no afflictions state for {actor}"
    return [a["ref"] for a in data["afflictions"]]
