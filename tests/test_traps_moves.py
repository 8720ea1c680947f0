"""Traps set off by movement, over the real protocol: path crossing, order, pits that stop
a move, flying and Tiny creatures, once-only traps, drops and teleports."""

from __future__ import annotations

from typing import Any

from sidecar.client import SidecarClient
from tests.test_traps_helpers import (
    SQ,
    action,
    facts,
    hero,
    move,
    ops,
    rect,
    region,
    setup,
    sprung,
    stored,
)


async def test_darts_fire_when_the_path_crosses_the_plate_and_the_move_goes_on(
    server: Any, client: SidecarClient
) -> None:
    await setup(client, [region("darts", "poison_darts", rect(5 * SQ, 0))], [hero("aria", 0, 0)])
    result = await move(client, "aria", (0, 0), (10 * SQ, 0))
    cards = sprung(result)
    assert len(cards) == 1
    assert len(facts(cards[0], "attack")) == 4  # four darts, all at the only creature in reach
    assert ops(result, "token.move") == []  # darts do not stop anyone
    assert (stored(server, "aria").x, stored(server, "aria").y) == (10 * SQ, 0)
    states = [m for m in result.messages if m["type"] == "state" and m["kind"] == "trap"]
    assert states and states[-1]["data"]["status"] == "triggered"
    assert ops(result, "region.trap_state")


async def test_a_move_that_does_not_touch_the_plate_sets_nothing_off(
    server: Any, client: SidecarClient
) -> None:
    await setup(client, [region("darts", "poison_darts", rect(5 * SQ, 0))], [hero("aria", 0, SQ)])
    result = await move(client, "aria", (0, SQ), (10 * SQ, SQ))  # one row below, edge to edge
    assert sprung(result) == []


async def test_a_pit_stops_the_move_where_the_token_fell_in(
    server: Any, client: SidecarClient
) -> None:
    await setup(client, [region("pit", "simple_pit", rect(5 * SQ, 0))], [hero("aria", 0, 0)])
    result = await move(client, "aria", (0, 0), (10 * SQ, 0))
    moved = ops(result, "token.move")
    assert [(m["x"], m["y"]) for m in moved] == [(5 * SQ, 0)]
    assert (stored(server, "aria").x, stored(server, "aria").y) == (5 * SQ, 0)
    card = sprung(result)[0]
    assert facts(card, "damage") and facts(card, "damage")[0]["type"] == "bludgeoning"
    assert any(op["status"] == "prone" for op in ops(result, "status"))


async def test_two_traps_on_one_path_fire_in_path_order(server: Any, client: SidecarClient) -> None:
    regions = [
        region("pit", "simple_pit", rect(8 * SQ, 0)),
        region("darts", "poison_darts", rect(3 * SQ, 0)),
    ]
    await setup(client, regions, [hero("aria", 0, 0)])
    result = await move(client, "aria", (0, 0), (12 * SQ, 0))
    order = [c["data"]["trap"]["region_id"] for c in sprung(result)]
    assert order == ["darts", "pit"]
    assert (stored(server, "aria").x, stored(server, "aria").y) == (8 * SQ, 0)
    # walking back the other way meets them in the other order (both are spent now)
    assert sprung(await move(client, "aria", (8 * SQ, 0), (0, 0))) == []


async def test_a_pit_ends_the_move_before_a_later_trap(server: Any, client: SidecarClient) -> None:
    regions = [
        region("pit", "simple_pit", rect(3 * SQ, 0)),
        region("darts", "poison_darts", rect(8 * SQ, 0)),
    ]
    await setup(client, regions, [hero("aria", 0, 0)])
    result = await move(client, "aria", (0, 0), (12 * SQ, 0))
    assert [c["data"]["trap"]["region_id"] for c in sprung(result)] == ["pit"]


async def test_a_flying_token_passes_over_plates_and_pits(
    server: Any, client: SidecarClient
) -> None:
    regions = [
        region("darts", "poison_darts", rect(3 * SQ, 0)),
        region("pit", "hidden_pit", rect(6 * SQ, 0)),
    ]
    await setup(client, regions, [hero("aria", 0, 0), hero("bat", 0, 2 * SQ, flying=True)])
    high = await move(client, "aria", (0, 0), (10 * SQ, 0), elevation=10)
    assert sprung(high) == [] and ops(high, "token.move") == []
    bat = await move(client, "bat", (0, 2 * SQ), (3 * SQ, 0), (10 * SQ, 0))
    assert sprung(bat) == []
    walked = await move(client, "aria", (10 * SQ, 0), (2 * SQ, 0))
    assert [c["data"]["trap"]["region_id"] for c in sprung(walked)] == ["pit"]


async def test_a_tiny_creature_does_not_press_a_20_lb_plate_unless_the_trap_says_so(
    server: Any, client: SidecarClient
) -> None:
    regions = [
        region("darts", "poison_darts", rect(3 * SQ, 0)),
        region(
            "heavy", "poison_darts", rect(3 * SQ, 3 * SQ), overrides={"trigger.tiny_triggers": True}
        ),
    ]
    await setup(
        client, regions, [hero("mouse", 0, 0, size="tiny"), hero("rat", 0, 3 * SQ, size="tiny")]
    )
    assert sprung(await move(client, "mouse", (0, 0), (6 * SQ, 0))) == []
    result = await move(client, "rat", (0, 3 * SQ), (6 * SQ, 3 * SQ))
    assert [c["data"]["trap"]["region_id"] for c in sprung(result)] == ["heavy"]


async def test_a_once_only_trap_does_not_fire_again(server: Any, client: SidecarClient) -> None:
    await setup(
        client,
        [
            region(
                "roof",
                "collapsing_roof",
                {"type": "line", "points": [300, 0, 300, 300]},
                rect(200, 0, 300, 300),
            )
        ],
        [hero("aria", 0, 0), hero("borin", 300, 200)],
    )
    first = await move(client, "aria", (0, 0), (600, 0))
    card = sprung(first)[0]
    saved = {f["target"] for f in facts(sprung(first, "gm")[0], "save")}
    assert saved == {"a-aria", "a-borin"}  # everyone under the ceiling, not just the walker
    assert "difficult" in card["html"]
    second = await move(client, "aria", (600, 0), (0, 0))
    assert sprung(second) == []


async def test_drops_and_teleports_trigger_only_with_the_world_setting(
    server: Any, client: SidecarClient
) -> None:
    await setup(client, [region("pit", "simple_pit", rect(5 * SQ, 0))], [hero("aria", 0, 0)])
    dropped = await move(client, "aria", (0, 0), (5 * SQ, 0), method="teleport")
    assert sprung(dropped) == []
    assert (stored(server, "aria").x, stored(server, "aria").y) == (5 * SQ, 0)
    await move(client, "aria", (5 * SQ, 0), (0, 0), method="drop")
    assert (await client.send({"type": "settings.update", "settings": {"drop_triggers": True}})).ok
    walked_over = await move(client, "aria", (0, 0), (9 * SQ, 0), method="teleport")
    assert sprung(walked_over) == []  # a teleport does not cross what lies between
    onto = await move(client, "aria", (9 * SQ, 0), (5 * SQ, 0), method="drop")
    assert [c["data"]["trap"]["region_id"] for c in sprung(onto)] == ["pit"]


async def test_jammed_plate_holds_and_rearm_brings_it_back(
    server: Any, client: SidecarClient
) -> None:
    await setup(client, [region("darts", "poison_darts", rect(3 * SQ, 0))], [hero("aria", 0, 0)])
    jam = await action(client, "trap.bypass", region_id="darts", bypass="spike")
    assert jam.ok
    assert sprung(await move(client, "aria", (0, 0), (6 * SQ, 0))) == []
    assert (await action(client, "trap.arm", region_id="darts")).ok
    assert len(sprung(await move(client, "aria", (6 * SQ, 0), (0, 0)))) == 1
