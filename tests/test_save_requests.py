"""Players roll their own saves: the event waits without blocking anything else."""

from __future__ import annotations

from sidecar.client import SidecarClient
from tests.test_e2e_foundation import forced_save, scene_sync


async def ask_mode(client: SidecarClient, timeout: float = 30) -> None:
    result = await client.send(
        {"type": "settings.update", "settings": {"save_mode": "ask", "save_timeout_s": timeout}}
    )
    assert result.ok


async def test_player_answers_and_the_card_uses_their_total(client: SidecarClient) -> None:
    await client.send(scene_sync())
    await ask_mode(client)
    paused = await client.send(forced_save("trap-1"))
    assert paused.reply["pending"] is True
    requests = paused.of_type("save.request")
    # only Aria has an owning player; Borin (GM's) is rolled by the sidecar
    assert [r["token_id"] for r in requests] == ["t1"]
    assert requests[0]["ability"] == "dex"
    assert "dc" not in requests[0]
    assert paused.cards == []

    # other events go on while the save is pending
    other = await client.send(scene_sync())
    assert other.ok

    done = await client.send(
        {
            "type": "save.result",
            "request_id": requests[0]["request_id"],
            "token_id": "t1",
            "total": 23,
            "natural": 18,
        }
    )
    assert done.ok
    public = [c for c in done.cards if c["visibility"] == "public"][0]
    assert "Aria: Dexterity saving throw 23: success" in public["html"]
    assert all(m["event_id"] == "trap-1" for m in done.messages)

    # answering twice changes nothing
    again = await client.send(
        {
            "type": "save.result",
            "request_id": requests[0]["request_id"],
            "token_id": "t1",
            "total": 2,
        }
    )
    assert again.ok and again.messages == []


async def test_unanswered_save_falls_back_to_a_sidecar_roll(client: SidecarClient) -> None:
    await client.send(scene_sync())
    await ask_mode(client, timeout=1)
    paused = await client.send(forced_save("trap-2"))
    assert paused.reply["pending"] is True
    late = await client.collect(timeout=3)
    cards = [m["card"] for m in late if m["type"] == "card"]
    assert cards, "the timeout should resolve the event"
    assert "Aria: Dexterity saving throw" in cards[0]["html"]
    assert all(m["event_id"] == "trap-2" for m in late)
