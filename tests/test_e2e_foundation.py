"""End to end over real sockets and a real SQLite file: handshake, errors, idempotency."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest

from sidecar.client import ClosedError, SidecarClient, creature, token
from tests.conftest import RunningSidecar, http_get_json

SCENE = "s1"


def scene_sync() -> dict[str, object]:
    return {
        "type": "scene.sync",
        "scene": {
            "id": SCENE,
            "grid": {"size": 100, "distance": 5},
            "tokens": [
                token("t1", "Aria", 0, 0, creature("a1", "Aria", owners=["u1"])),
                token("t2", "Borin", 100, 0, creature("a2", "Borin")),
            ],
        },
    }


def forced_save(event_id: str | None = None) -> dict[str, object]:
    event: dict[str, object] = {
        "type": "gm.action",
        "action": "save.force",
        "params": {
            "scene_id": SCENE,
            "token_ids": ["t1", "t2"],
            "ability": "dex",
            "dc": 15,
            "damage": [{"formula": "4d10", "type": "fire"}],
        },
    }
    if event_id:
        event["id"] = event_id
    return event


async def expect_close(client: SidecarClient, code: int, within: float = 1.0) -> dict[str, object]:
    """Read until the server closes; return the last error it sent first."""
    started = time.monotonic()
    last: dict[str, object] = {}
    with pytest.raises(ClosedError) as info:
        while True:
            last = await client.receive(timeout=within)
    assert info.value.code == code
    assert time.monotonic() - started < within + 0.5
    return last


async def test_healthz_reports_version_protocol_uptime(server: RunningSidecar) -> None:
    data = await http_get_json(server.http + "/healthz")
    assert data["status"] == "ok"
    assert data["protocol"] == 1
    assert data["worlds_connected"] == 0
    assert isinstance(data["uptime_s"], float)
    client = await server.connected()
    data = await http_get_json(server.http + "/healthz")
    assert data["worlds_connected"] == 1
    await client.close()


async def test_wrong_token_is_refused_with_4401_within_one_second(server: RunningSidecar) -> None:
    async with server.client() as client:
        await client.send_json(
            {
                "type": "hello",
                "protocol": 1,
                "world_id": server.world_id,
                "token": "nope",
                "module_version": "t",
            }
        )
        error = await expect_close(client, 4401)
        assert error["type"] == "error" and error["code"] == "unauthorized"


async def test_unknown_world_is_refused(server: RunningSidecar) -> None:
    async with server.client() as client:
        reply = await client.hello("no-such-world", server.token)
        assert reply["code"] == "unauthorized"
        await expect_close(client, 4401)


async def test_message_before_hello_is_refused_with_4401(server: RunningSidecar) -> None:
    async with server.client() as client:
        await client.send_json(scene_sync() | {"id": "early"})
        error = await expect_close(client, 4401)
        assert "hello" in str(error["message"])
        assert error["ref"] == "early"


async def test_garbage_before_hello_is_refused_with_4401(server: RunningSidecar) -> None:
    async with server.client() as client:
        await client.send_raw("{not json")
        await expect_close(client, 4401)


async def test_unsupported_protocol_names_the_supported_range(server: RunningSidecar) -> None:
    async with server.client() as client:
        reply = await client.hello(server.world_id, server.token, protocol=99)
        assert reply["code"] == "unsupported_protocol"
        assert "1..1" in reply["message"]


async def test_invalid_messages_get_typed_errors_and_the_connection_stays_up(
    client: SidecarClient,
) -> None:
    await client.send_raw("this is not json")
    reply = await client.receive()
    assert reply["code"] == "bad_json"

    await client.send_json({"type": "no.such.thing", "id": "u1"})
    reply = await client.receive()
    assert reply["code"] == "unknown_type" and reply["ref"] == "u1"

    await client.send_json({"type": "token.move", "id": "m1", "scene_id": "s"})
    reply = await client.receive()
    assert reply["code"] == "invalid" and reply["ref"] == "m1"
    locs = {d["loc"] for d in reply["details"]}
    assert {"token_id", "path"} <= locs
    assert "token_id" in reply["message"]

    await client.send_json([1, 2, 3])
    reply = await client.receive()
    assert reply["code"] == "invalid"

    await client.send_raw("[" * 5000 + "]" * 5000)
    reply = await client.receive()
    assert reply["type"] == "error"

    result = await client.send(scene_sync())
    assert result.ok


async def test_rule_errors_are_typed_and_do_not_change_state(client: SidecarClient) -> None:
    result = await client.send(forced_save())  # no scene yet
    assert result.reply["code"] == "rule_error"
    assert "scene" in result.reply["message"]
    result = await client.send({"type": "gm.action", "action": "no.such", "params": {}})
    assert result.reply["code"] == "rule_error" and "save.force" in result.reply["message"]
    result = await client.send({"type": "gm.action", "action": "save.force", "params": {"dc": "x"}})
    assert result.reply["code"] == "invalid"
    assert (await client.send(scene_sync())).ok


async def test_frame_over_one_mib_closes_with_1009(client: SidecarClient) -> None:
    big = json.dumps({"type": "ping", "id": "big", "pad": "x" * (2 * 1024 * 1024)})
    await client.send_raw(big)
    with pytest.raises(ClosedError) as info:
        while True:
            await client.receive(timeout=5)
    assert info.value.code == 1009


async def test_resent_event_returns_the_stored_outcome_without_rolling(
    server: RunningSidecar, client: SidecarClient
) -> None:
    assert (await client.send(scene_sync())).ok
    first = await client.send(forced_save("save-1"))
    assert first.ok and first.reply["seqs"]
    world = server.sidecar.world(server.world_id)  # type: ignore[union-attr]
    streams_before = world.next_stream

    # a resend after the client acked: same reply, marked duplicate, nothing new rolled
    again = await client.send(forced_save("save-1"))
    assert again.reply["duplicate"] is True
    assert again.reply["seqs"] == first.reply["seqs"]
    assert again.messages == []
    assert world.next_stream == streams_before

    # a resend from a client that had not applied them gets the very same messages again
    fresh = SidecarClient(server.url)
    await fresh.connect()
    await fresh.hello(server.world_id, server.token)
    world.acked_seq = 0  # as if the acks had been lost
    again = await fresh.send(forced_save("save-1"))
    assert [m["card"]["html"] for m in again.messages if m["type"] == "card"] == [
        c["html"] for c in first.cards
    ]
    assert again.ops == first.ops
    await fresh.close()


async def test_ping_gets_pong(client: SidecarClient) -> None:
    await client.send_json({"type": "ping", "id": "p1"})
    assert await client.receive() == {"type": "pong", "id": "p1"}


async def test_a_second_connection_replaces_the_first(server: RunningSidecar) -> None:
    first = await server.connected()
    second = await server.connected()
    with pytest.raises(ClosedError) as info:
        while True:
            await first.receive(timeout=2)
    assert info.value.code == 4409
    assert (await second.send(scene_sync())).ok
    await first.close()
    await second.close()


async def test_unacked_messages_are_resent_on_reconnect(server: RunningSidecar) -> None:
    quiet = SidecarClient(server.url, auto_ack=False)
    await quiet.connect()
    await quiet.hello(server.world_id, server.token)
    await quiet.send(scene_sync())
    result = await quiet.send(forced_save())
    seqs = result.reply["seqs"]
    await quiet.close()

    again = SidecarClient(server.url)
    await again.connect()
    welcome = await again.hello(server.world_id, server.token)
    assert welcome["resending"] == len(seqs)
    assert [m["seq"] for m in again.inbox] == seqs
    await again.close()

    # acked now: a third connection gets nothing again
    third = SidecarClient(server.url)
    await third.connect()
    third.last_seq = seqs[-1]
    welcome = await third.hello(server.world_id, server.token)
    assert welcome["resending"] == 0
    await third.close()


async def test_origin_allowlist(server: RunningSidecar) -> None:
    server.sidecar.config.origins = ["https://foundry.example"]  # type: ignore[union-attr]
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as info:
            await session.ws_connect(server.url, headers={"Origin": "https://evil.example"})
        assert info.value.status == 403
    ok = SidecarClient(server.url, origin="https://foundry.example")
    await ok.connect()
    assert (await ok.hello(server.world_id, server.token))["type"] == "welcome"
    await ok.close()


async def test_module_manifest_points_at_the_zip(server: RunningSidecar) -> None:
    manifest = await http_get_json(server.http + "/module/module.json")
    assert manifest["id"] == "vtt-sidecar"
    assert manifest["download"] == server.http + "/module/vtt-sidecar.zip"
    async with aiohttp.ClientSession() as session, session.get(str(manifest["download"])) as r:
        assert r.status == 200
        body = await r.read()
    import io
    import zipfile

    names = zipfile.ZipFile(io.BytesIO(body)).namelist()
    assert "vtt-sidecar/module.json" in names
    assert any(n.startswith("vtt-sidecar/scripts/") for n in names)
    assert not any("/test/" in n for n in names)


async def test_worlds_run_concurrently_and_in_order(server: RunningSidecar) -> None:
    from tests.conftest import make_world

    other_token = make_world(server.db, "other-world", seed=5)
    a = await server.connected()
    b = SidecarClient(server.url)
    await b.connect()
    await b.hello("other-world", other_token)
    await asyncio.gather(a.send(scene_sync()), b.send(scene_sync()))
    results = await asyncio.gather(
        *(a.send(forced_save()) for _ in range(1)), b.send(forced_save())
    )
    assert all(r.ok for r in results)
    # each world numbers its own messages from 1
    assert results[0].reply["seqs"][0] == 1 and results[1].reply["seqs"][0] == 1
    await a.close()
    await b.close()


async def test_catalog_lists_content_in_the_world_language(server: RunningSidecar) -> None:
    client = await server.connected(language="ru")
    result = await client.send({"type": "gm.action", "action": "catalog.get", "params": {}})
    assert result.ok
    states = {m["key"]: m["data"]["entries"] for m in result.of_type("state")}
    assert {"traps", "poisons", "diseases", "chase_tables"} <= set(states)
    traps = {e["id"]: e["name"] for e in states["traps"]}
    assert traps["poison_darts"] and traps["poison_darts"] != "Poison darts"  # Russian name
    assert len(states["poisons"]) == 14
    await client.close()
