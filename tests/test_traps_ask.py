"""Players roll their own trap saves (world setting save_mode 'ask') over the protocol."""

from __future__ import annotations

from typing import Any

from sidecar.client import SidecarClient
from tests.test_traps_helpers import SQ, hero, rect, region, setup, sprung, stored

STATUE = region(
    "statue", "fire_breathing_statue", rect(3 * SQ, 0), origin={"x": 0, "y": 0}, direction=0
)


async def ask(client: SidecarClient, timeout: float) -> None:
    result = await client.send(
        {"type": "settings.update", "settings": {"save_mode": "ask", "save_timeout_s": timeout}}
    )
    assert result.ok


async def test_the_card_uses_the_players_own_total(server: Any, client: SidecarClient) -> None:
    await setup(client, [STATUE], [hero("aria", 0, 0, owner="u1"), hero("orc", SQ, SQ)])
    await ask(client, 30)
    paused = await client.send(
        {
            "type": "token.move",
            "scene_id": "trap-scene",
            "token_id": "aria",
            "id": "move-1",
            "path": [{"x": 0, "y": 0}, {"x": 6 * SQ, "y": 0}],
        }
    )
    assert paused.reply.get("pending") is True
    requests = paused.of_type("save.request")
    assert [(r["token_id"], r["ability"]) for r in requests] == [("aria", "dex")]
    assert "dc" not in requests[0] and "Fire" not in requests[0]["reason"]  # still unknown
    assert sprung(paused) == []
    assert stored(server, "aria").x == 0  # nothing is applied while the event waits
    done = await client.send(
        {
            "type": "save.result",
            "request_id": requests[0]["request_id"],
            "token_id": "aria",
            "total": 27,
            "natural": 19,
        }
    )
    public = sprung(done)[0]
    assert "Aria: Dexterity saving throw 27: success" in public["html"]
    gm = sprung(done, "gm")[0]
    aria = [f for f in gm["data"]["facts"] if f["fact"] == "save" and f["target"] == "a-aria"]
    assert aria[0]["total"] == 27 and aria[0]["success"]
    assert stored(server, "aria").x == 6 * SQ


async def test_nobody_answers_and_the_sidecar_rolls_after_the_timeout(
    server: Any, client: SidecarClient
) -> None:
    await setup(client, [STATUE], [hero("aria", 0, 0, owner="u1")])
    await ask(client, 1)
    paused = await client.send(
        {
            "type": "token.move",
            "scene_id": "trap-scene",
            "token_id": "aria",
            "id": "move-2",
            "path": [{"x": 0, "y": 0}, {"x": 6 * SQ, "y": 0}],
        }
    )
    assert paused.reply.get("pending") is True
    late = await client.collect(timeout=3)
    cards = [m["card"] for m in late if m["type"] == "card" and "trap" in m["card"]["data"]]
    assert cards, "the timeout should resolve the move"
    assert "Aria: Dexterity saving throw" in cards[0]["html"]
    assert cards[0]["rolls"], "the sidecar's own roll is shown"
    assert all(m["event_id"] == "move-2" for m in late)
    assert stored(server, "aria").x == 6 * SQ


async def test_a_move_in_ask_mode_keeps_path_order_and_the_pit_stop(
    server: Any, client: SidecarClient
) -> None:
    regions = [STATUE, region("pit", "hidden_pit", rect(8 * SQ, 0))]
    await setup(client, regions, [hero("aria", 0, 0, owner="u1")])
    await ask(client, 30)
    paused = await move_pending(client)
    request = paused.of_type("save.request")[0]
    done = await client.send(
        {"type": "save.result", "request_id": request["request_id"], "token_id": "aria", "total": 3}
    )
    assert [c["data"]["trap"]["region_id"] for c in sprung(done)] == ["statue", "pit"]
    assert [(op["x"], op["y"]) for op in done.ops if op["op"] == "token.move"] == [(8 * SQ, 0)]


async def move_pending(client: SidecarClient) -> Any:
    result = await client.send(
        {
            "type": "token.move",
            "scene_id": "trap-scene",
            "token_id": "aria",
            "path": [{"x": 0, "y": 0}, {"x": 12 * SQ, "y": 0}],
        }
    )
    assert result.reply.get("pending") is True
    return result
