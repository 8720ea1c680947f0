"""An injury poison coated on a trap's part (needle, spikes, darts) is delivered by the wound
it causes, one dose per wound, and then used up."""

from __future__ import annotations

from typing import Any

from sidecar.client import SidecarClient
from tests.test_traps_helpers import SCENE, SQ, action, facts, hero, rect, region, setup, sprung


async def open_chest(client: SidecarClient, token_id: str) -> Any:
    return await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": token_id,
            "target_id": "chest",
            "kind": "open",
        }
    )


async def test_coated_needle_delivers_the_poison_once(client: SidecarClient) -> None:
    await setup(
        client,
        [
            region(
                "chest",
                "poison_needle",
                rect(5 * SQ, 5 * SQ),
                overrides={"reset": {"policy": "manual"}},
            )
        ],
        [hero("aria", 4 * SQ, 5 * SQ, saves={"con": -20})],
    )
    coated = await action(client, "poison.coat", region_id="chest", poison="wyvern_poison")
    assert coated.ok, coated.reply
    assert all(c["visibility"] == "gm" for c in coated.cards)

    first = await open_chest(client, "aria")
    gm = sprung(first, "gm")[0]
    saves = [f["dc"] for f in facts(gm, "save")]
    assert saves == [15, 15]  # the needle's own poison, then the wyvern poison on it
    poison_damage = [f["amount"] for f in facts(gm, "damage") if f["type"] == "poison"]
    assert len(poison_damage) == 2 and all(a > 0 for a in poison_damage)
    assert "wyvern" in gm["html"].lower()

    rearm = await action(client, "trap.arm", region_id="chest")
    assert rearm.ok, rearm.reply
    second = await open_chest(client, "aria")
    gm = sprung(second, "gm")[0]
    assert [f["dc"] for f in facts(gm, "save")] == [15]  # the single dose is used up


async def test_coating_needs_an_injury_poison_and_a_target(client: SidecarClient) -> None:
    await setup(client, [region("chest", "poison_needle", rect(5 * SQ, 5 * SQ))], [])
    wrong = await action(client, "poison.coat", region_id="chest", poison="truth_serum")
    assert wrong.reply["code"] == "rule_error"
    nothing = await action(client, "poison.coat", poison="wyvern_poison")
    assert nothing.reply["code"] == "rule_error"
