"""Shared helpers for the chase tests: tokens with controllable numbers, and shortcuts."""

from __future__ import annotations

from typing import Any

from sidecar.client import Result, SidecarClient

SCENE = "chase-scene"
ALL = ("str", "dex", "con", "int", "wis", "cha")


def runner(
    tid: str,
    *,
    speed: int = 30,
    con: int = 0,
    dex: int = 0,
    save: int = 0,
    saves: dict[str, int] | None = None,
    stealth: int = 0,
    passive: int = 10,
    exhaustion: int = 0,
    hp: int = 40,
    ac: int = 12,
    skills: dict[str, int] | None = None,
    mods: dict[str, int] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A token whose every save is ``save`` unless ``saves`` says otherwise."""
    all_saves = {a: save for a in ALL} | (saves or {})
    creature = {
        "id": f"act-{tid}",
        "name": tid.capitalize(),
        "hp": {"value": hp, "max": hp},
        "ac": ac,
        "speed": speed,
        "abilities": {"str": 0, "dex": dex, "con": con, "int": 0, "wis": 0, "cha": 0}
        | (mods or {}),
        "saves": all_saves,
        "skills": {"ste": stealth, **(skills or {})},
        "passive_perception": passive,
        "exhaustion": exhaustion,
        **extra,
    }
    return {"id": tid, "name": tid.capitalize(), "x": 0, "y": 0, "creature": creature}


async def scene(client: SidecarClient, *tokens: dict[str, Any]) -> None:
    result = await client.send(
        {
            "type": "scene.sync",
            "scene": {"id": SCENE, "name": "Streets", "tokens": list(tokens), "regions": []},
        }
    )
    assert result.ok, result.reply


async def gm(client: SidecarClient, action: str, **params: Any) -> Result:
    return await client.send({"type": "gm.action", "action": action, "params": params})


async def start(
    client: SidecarClient,
    quarries: list[dict[str, Any] | str],
    pursuers: list[dict[str, Any] | str],
    **params: Any,
) -> Result:
    def spec(item: dict[str, Any] | str, default_init: float) -> dict[str, Any]:
        if isinstance(item, str):
            return {"token_id": item, "initiative": default_init}
        return item

    params.setdefault("chase_id", "c1")
    params.setdefault("scene_id", SCENE)
    result = await gm(
        client,
        "chase.start",
        quarries=[spec(q, 20 - i) for i, q in enumerate(quarries)],
        pursuers=[spec(p, 10 - i) for i, p in enumerate(pursuers)],
        **params,
    )
    assert result.ok, result.reply
    return result


def chase_state(result: Result, chase_id: str = "c1") -> dict[str, Any]:
    states = [m["data"] for m in result.of_type("state") if m["key"] == chase_id]
    assert states, f"no state for {chase_id} in {[m['type'] for m in result.messages]}"
    data: dict[str, Any] = states[-1]
    return data


def person(state: dict[str, Any], pid: str) -> dict[str, Any]:
    for row in state["participants"]:
        if row["id"] == pid:
            found: dict[str, Any] = row
            return found
    raise KeyError(pid)


def facts(result: Result, kind: str) -> list[dict[str, Any]]:
    """Facts of one kind; where a card has a GM twin, the twin's (it keeps the saves)."""
    gm_titles = {c["title"] for c in result.cards if c["visibility"] == "gm"}
    found: list[dict[str, Any]] = []
    for card in result.cards:
        if card["visibility"] != "gm" and card["title"] in gm_titles:
            continue
        found += [f for f in card["data"].get("facts", []) if f.get("fact") == kind]
    return found


def ops(result: Result, kind: str) -> list[dict[str, Any]]:
    return [op for op in result.ops if op["op"] == kind]


def texts(result: Result, visibility: str = "public") -> str:
    return "\n".join(c["html"] for c in result.cards if c["visibility"] == visibility)


async def turn(client: SidecarClient, chase_id: str = "c1", **params: Any) -> Result:
    result = await gm(client, "chase.next_turn", chase_id=chase_id, **params)
    assert result.ok, result.reply
    return result
