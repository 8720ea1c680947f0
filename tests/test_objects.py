"""Objects (RULES.md §2): AC by substance, HP by size, immunities, threshold, breaking."""

from __future__ import annotations

from typing import Any

from sidecar.client import SidecarClient
from sidecar.rules.objects import object_ac, object_hp


def test_tables() -> None:
    assert [
        object_ac(m) for m in ("cloth", "glass", "wood", "stone", "iron", "mithral", "adamantine")
    ] == [11, 13, 15, 17, 19, 21, 23]
    assert object_hp("tiny", False) == (2, "1d4") and object_hp("tiny", True) == (5, "2d4")
    assert object_hp("med", True) == (18, "4d8") and object_hp("lg", True) == (27, "5d10")
    assert object_hp("huge", True) == (27, "5d10")  # tracked as Large sections


async def attack(client: SidecarClient, **params: Any) -> Any:
    return await client.send(
        {"type": "gm.action", "action": "object.attack", "params": {"key": "door", **params}}
    )


async def test_a_door_takes_hits_until_it_breaks(server: Any, client: SidecarClient) -> None:
    placed = await client.send(
        {
            "type": "gm.action",
            "action": "object.place",
            "params": {"object_id": "iron_door", "key": "door"},
        }
    )
    assert placed.ok and "AC 19" in placed.cards[0]["html"]
    assert placed.cards[0]["visibility"] == "gm"
    missed = await attack(client, attack_total=18, damage="30", damage_type="slashing")
    assert "fails to harm" in missed.cards[0]["html"]
    psychic = await attack(client, attack_total=19, damage="30", damage_type="psychic")
    assert "not harmed" in psychic.cards[0]["html"]
    weak = await attack(client, attack_total=19, damage="9", damage_type="bludgeoning")
    assert "not strong enough" in weak.cards[0]["html"]  # threshold 10
    hit = await attack(client, attack_total=19, damage="10", damage_type="bludgeoning")
    gm = [c for c in hit.cards if c["visibility"] == "gm"][0]
    assert "17 of 27" in gm["html"]
    assert "17 of 27" not in [c for c in hit.cards if c["visibility"] == "public"][0]["html"]
    rolled = await attack(client, attack_bonus=50, damage="20", damage_type="bludgeoning")
    assert "breaks" in rolled.cards[0]["html"]
    again = await attack(client, attack_total=30, damage="1", damage_type="fire")
    assert again.reply["code"] == "rule_error"


async def test_unknown_objects_are_refused(client: SidecarClient) -> None:
    bad = await client.send(
        {"type": "gm.action", "action": "object.place", "params": {"object_id": "nope", "key": "k"}}
    )
    assert bad.reply["code"] == "rule_error"
    missing = await client.send(
        {
            "type": "gm.action",
            "action": "object.attack",
            "params": {"key": "ghost", "damage": "1", "damage_type": "fire"},
        }
    )
    assert missing.reply["code"] == "rule_error"
