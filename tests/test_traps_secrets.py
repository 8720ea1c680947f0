"""Secrets stay secret: passive notice happens once per creature and trap, and nothing a
player can see (public and owners' cards: html, data, rolls; save requests) carries a
hidden DC or where an unnoticed trap is."""

from __future__ import annotations

import json
import re
from typing import Any

from sidecar.client import SidecarClient
from tests.test_traps_helpers import SQ, action, hero, move, rect, region, setup, wire

DC_WORDS = re.compile(r"\bDC\b|СЛ|\bdc\b", re.IGNORECASE)


def player_visible(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen = []
    for m in messages:
        if m["type"] == "card" and m["card"]["visibility"] in ("public", "owners"):
            seen.append(m["card"])
        elif m["type"] == "save.request":
            seen.append(m)
    return seen


async def test_passive_notice_fires_once_per_creature_and_trap(
    server: Any, client: SidecarClient
) -> None:
    regions = [region("darts", "poison_darts", rect(8 * SQ, 0))]
    tokens = [hero("aria", 0, 0, pp=16, owner="u1"), hero("borin", 0, SQ, pp=16, owner="u2")]
    await setup(client, regions, tokens)
    first = await move(client, "aria", (0, 0), (3 * SQ, 0))  # 25 ft away: within 30 ft
    owners = [c for c in first.cards if c["visibility"] == "owners"]
    gm = [c for c in first.cards if c["visibility"] == "gm"]
    assert len(owners) == 1 and owners[0]["owners_of"] == ["aria"] and len(gm) == 1
    assert "passive 16 against DC 15" in gm[0]["html"]
    again = await move(client, "aria", (3 * SQ, 0), (2 * SQ, 0))
    assert again.cards == []  # once per creature and trap
    other = await move(client, "borin", (0, SQ), (3 * SQ, SQ))
    assert [c["owners_of"] for c in other.cards if c["visibility"] == "owners"] == [["borin"]]


async def test_notice_radius_and_walls_limit_what_is_seen(
    server: Any, client: SidecarClient
) -> None:
    regions = [region("darts", "poison_darts", rect(12 * SQ, 0))]
    wall = [{"c": [10 * SQ, -5 * SQ, 10 * SQ, 5 * SQ], "blocks_sight": True}]
    await setup(client, regions, [hero("aria", 0, 0, pp=20, owner="u1")], walls=wall)
    far = await move(client, "aria", (0, 0), (4 * SQ, 0))  # 35 ft away: too far
    assert far.cards == []
    behind = await move(client, "aria", (4 * SQ, 0), (8 * SQ, 0))  # close, but behind a wall
    assert behind.cards == []
    await client.send({"type": "settings.update", "settings": {"notice_radius_ft": 60}})


async def test_no_player_ever_sees_a_hidden_dc_or_an_unnoticed_trap(
    server: Any, client: SidecarClient
) -> None:
    hidden = [
        region("h-darts", "poison_darts", rect(20 * SQ, 10 * SQ)),
        region("h-pit", "hidden_pit", rect(25 * SQ, 0)),
        region("h-net", "falling_net", wire(5 * SQ, 5 * SQ, 5 * SQ, 7 * SQ)),
    ]
    sprung_here = [
        region(
            "s-statue",
            "fire_breathing_statue",
            rect(3 * SQ, 0),
            origin={"x": 0, "y": 0},
            direction=0,
        ),
        region("s-darts", "poison_darts", rect(6 * SQ, 0)),
        region("s-pit", "spiked_pit_poisoned", rect(10 * SQ, 0)),
    ]
    tokens = [hero("aria", 0, 0, pp=8, owner="u1"), hero("borin", 0, SQ, pp=8, owner="u2")]
    await setup(client, hidden + sprung_here, tokens)
    messages: list[dict[str, Any]] = []
    for result in [
        await move(client, "aria", (0, 0), (14 * SQ, 0)),
        await action(client, "trap.search", token_id="borin"),
        await action(client, "trap.investigate", token_id="borin"),
        await action(client, "trap.detect_magic", token_id="borin"),
        await action(client, "trap.bypass", region_id="s-darts", bypass="plug"),
    ]:
        assert result.ok, result.reply
        messages += result.messages
    assert (await action(client, "trap.arm", region_id="s-statue")).ok
    await client.send({"type": "settings.update", "settings": {"save_mode": "ask"}})
    paused = await client.send(
        {
            "type": "token.move",
            "scene_id": "trap-scene",
            "token_id": "borin",
            "path": [{"x": 0, "y": SQ}, {"x": 4 * SQ, "y": 0}],
        }
    )
    messages += paused.messages
    visible = player_visible(messages)
    assert any(c.get("visibility") == "public" for c in visible)
    assert any(m.get("type") == "save.request" for m in visible)
    coordinates = {
        str(v) for r in hidden for s in r["shapes"] for k, v in s.items() if k in ("x", "y")
    }
    for item in visible:
        blob = json.dumps(item, ensure_ascii=False)
        assert not DC_WORDS.search(blob), blob[:400]
        for r in hidden:
            assert r["id"] not in blob
        text = item.get("html", "") + json.dumps(item.get("data", {}))
        for value in coordinates:
            assert f'"x": {value}' not in text and f'"y": {value}' not in text
    gm = [m["card"] for m in messages if m["type"] == "card" and m["card"]["visibility"] == "gm"]
    assert any(DC_WORDS.search(c["html"]) for c in gm)  # the GM does see them
