"""Undo: revert exactly what a result did, once, and leave alone what changed since."""

from __future__ import annotations

from sidecar.client import SidecarClient, creature, token
from tests.test_e2e_foundation import SCENE, forced_save, scene_sync


async def hp_of(client: SidecarClient, server: object, token_id: str) -> int:
    world = server.sidecar.world(server.world_id)  # type: ignore[attr-defined]
    from sidecar.models import Token

    doc = world.state.get(f"token:{SCENE}:{token_id}", Token)
    assert doc is not None and doc.creature is not None
    return doc.creature.hp.value


async def test_undo_restores_hp_and_statuses_once(server: object, client: SidecarClient) -> None:
    await client.send(scene_sync())
    hit = await client.send(
        forced_save("fire-1")
        | {
            "params": forced_save()["params"]
            | {"on_fail": [{"kind": "condition", "condition": "prone"}]}
        }  # type: ignore[operator]
    )
    assert hit.ok
    assert any(c["undoable"] for c in hit.cards)
    damaged = {op["token_id"]: op["amount"] for op in hit.ops if op["op"] == "damage"}
    assert damaged and await hp_of(client, server, "t1") == max(0, 30 - damaged.get("t1", 0))
    prone = {op["token_id"] for op in hit.ops if op["op"] == "status" and op["active"]}

    undo = await client.send(
        {"type": "gm.action", "action": "event.undo", "params": {"event_id": "fire-1"}}
    )
    assert undo.ok
    hp_ops = {op["token_id"]: op for op in undo.ops if op["op"] == "hp.set"}
    assert set(hp_ops) == set(damaged)
    assert all(op["value"] == 30 and op["temp"] == 0 for op in hp_ops.values())
    removed = {op["token_id"] for op in undo.ops if op["op"] == "status" and not op["active"]}
    assert removed == prone
    assert await hp_of(client, server, "t1") == 30
    assert all(c["visibility"] == "gm" for c in undo.cards)

    again = await client.send(
        {"type": "gm.action", "action": "event.undo", "params": {"event_id": "fire-1"}}
    )
    assert again.ok and again.ops == []
    assert "already" in again.cards[0]["html"]


async def test_undo_leaves_alone_what_changed_since(server: object, client: SidecarClient) -> None:
    await client.send(scene_sync())
    hit = await client.send(forced_save("fire-2"))
    assert hit.ok
    # Aria is healed since (the module reports her new HP) and moves
    healed = token("t1", "Aria", 300, 0, creature("a1", "Aria", owners=["u1"], hp=30))
    healed["creature"]["hp"]["value"] = 29
    await client.send({"type": "token.update", "scene_id": SCENE, "token": healed})
    undo = await client.send(
        {"type": "gm.action", "action": "event.undo", "params": {"event_id": "fire-2"}}
    )
    assert undo.ok
    targets = {op["token_id"] for op in undo.ops if op["op"] == "hp.set"}
    assert "t1" not in targets  # healed since: left alone, and the card says so
    assert "changed since" in undo.cards[0]["html"]
    assert await hp_of(client, server, "t1") == 29


async def test_undo_of_unknown_event_is_a_rule_error(client: SidecarClient) -> None:
    result = await client.send(
        {"type": "gm.action", "action": "event.undo", "params": {"event_id": "nope"}}
    )
    assert result.reply["code"] == "rule_error"
