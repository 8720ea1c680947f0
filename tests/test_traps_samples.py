"""Every sample trap of RULES.md §1.4 over the real protocol: move, interaction or GM
action in; cards, ops and trap state out."""

from __future__ import annotations

from typing import Any

from sidecar.client import SidecarClient
from tests.test_traps_helpers import (
    SCENE,
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
    wire,
)

STRONG = {"abilities": {"str": 30, "dex": 30, "con": 0, "int": 30, "wis": 0, "cha": 0}}


def trap_state(server: Any, region_id: str) -> Any:
    from sidecar.rules.traps_state import TrapState

    world = server.sidecar.world(server.world_id)
    return world.state.get(f"trap:{SCENE}:{region_id}", TrapState)


async def test_fire_breathing_statue_burns_the_cone_and_dispel_destroys_it(
    server: Any, client: SidecarClient
) -> None:
    statue = region(
        "statue",
        "fire_breathing_statue",
        rect(3 * SQ, 3 * SQ),
        origin={"x": 3 * SQ, "y": 0},
        direction=90,
    )
    tokens = [
        hero("aria", 0, 3 * SQ),
        hero("borin", 3 * SQ, 4 * SQ),
        hero("cara", 10 * SQ, 10 * SQ, damage_resistances=["fire"]),
    ]
    await setup(client, [statue], tokens)
    result = await move(client, "aria", (0, 3 * SQ), (6 * SQ, 3 * SQ))
    gm = sprung(result, "gm")[0]
    saved = {f["target"] for f in facts(gm, "save")}
    assert saved == {"a-aria", "a-borin"}  # both in the 30-ft cone; Cara far away
    assert all(f["dc"] == 13 for f in facts(gm, "save"))
    assert {f["type"] for f in facts(gm, "damage")} == {"fire"}
    assert trap_state(server, "statue").status == "triggered"
    dispel = await action(
        client, "trap.bypass", region_id="statue", bypass="dispel", token_id="borin", ability="int"
    )
    assert dispel.ok
    assert trap_state(server, "statue").status in ("destroyed", "triggered")
    forced = await action(
        client, "trap.bypass", region_id="statue", bypass="dispel", automatic=True
    )
    assert forced.ok and trap_state(server, "statue").status == "destroyed"
    await client.send({"type": "time.advance", "world_time": 600, "delta": 600})
    assert sprung(await move(client, "aria", (6 * SQ, 3 * SQ), (0, 3 * SQ))) == []


async def test_statue_rearms_after_a_round_of_combat(server: Any, client: SidecarClient) -> None:
    await setup(
        client,
        [
            region(
                "statue",
                "fire_breathing_statue",
                rect(3 * SQ, 0),
                origin={"x": 0, "y": 0},
                direction=0,
            )
        ],
        [hero("aria", 0, 0)],
    )
    await client.send({"type": "combat.start", "combat_id": "c1", "scene_id": SCENE})
    await client.send(
        {"type": "combat.turn", "combat_id": "c1", "current": {"round": 1, "turn": 0}}
    )
    assert len(sprung(await move(client, "aria", (0, 0), (6 * SQ, 0)))) == 1
    assert sprung(await move(client, "aria", (6 * SQ, 0), (0, 0))) == []
    turn = await client.send(
        {"type": "combat.turn", "combat_id": "c1", "current": {"round": 2, "turn": 0}}
    )
    assert any(m["type"] == "state" and m["data"]["status"] == "armed" for m in turn.messages)
    assert len(sprung(await move(client, "aria", (0, 0), (6 * SQ, 0)))) == 1


async def test_falling_net_restrains_the_square_and_can_be_escaped_or_cut(
    server: Any, client: SidecarClient
) -> None:
    net = region(
        "net", "falling_net", wire(3 * SQ, 0, 3 * SQ, 2 * SQ), origin={"x": 3 * SQ, "y": SQ}
    )
    tokens = [hero("aria", 0, 0, **STRONG), hero("borin", 3 * SQ, SQ), hero("cara", 9 * SQ, 0)]
    await setup(client, [net], tokens)
    result = await move(client, "aria", (0, 0), (6 * SQ, 0))
    restrained = {
        op["token_id"]
        for op in ops(result, "status")
        if op["status"] == "restrained" and op["active"]
    }
    assert restrained == {"aria", "borin"}  # the net covers 10 x 10 ft around its centre
    assert (stored(server, "aria").x, stored(server, "aria").y) == (6 * SQ, 0)
    assert set(trap_state(server, "net").held) == {"aria", "borin"}
    escape = await action(client, "trap.escape", region_id="net", token_id="aria")
    assert escape.ok
    freed = [op for op in ops(escape, "status") if not op["active"]]
    assert [op["token_id"] for op in freed] == ["aria"]  # Str +30 against DC 10
    key = trap_state(server, "net").objects[0]
    weak = await client.send(
        {
            "type": "gm.action",
            "action": "object.attack",
            "params": {
                "key": key,
                "attack_total": 15,
                "damage": "3",
                "damage_type": "slashing",
                "token_id": "borin",
            },
        }
    )
    assert weak.ok and not [op for op in ops(weak, "status") if not op["active"]]
    cut = await client.send(
        {
            "type": "gm.action",
            "action": "object.attack",
            "params": {
                "key": key,
                "attack_total": 15,
                "damage": "6",
                "damage_type": "slashing",
                "token_id": "borin",
            },
        }
    )
    assert [op["token_id"] for op in ops(cut, "status") if not op["active"]] == ["borin"]
    assert trap_state(server, "net").held == []


async def test_breaking_the_net_frees_everyone_and_poison_does_not_hurt_it(
    server: Any, client: SidecarClient
) -> None:
    net = region(
        "net", "falling_net", wire(3 * SQ, 0, 3 * SQ, 2 * SQ), origin={"x": 3 * SQ, "y": SQ}
    )
    await setup(client, [net], [hero("aria", 0, 0), hero("borin", 3 * SQ, SQ)])
    await move(client, "aria", (0, 0), (6 * SQ, 0))
    key = trap_state(server, "net").objects[0]
    poison = await client.send(
        {
            "type": "gm.action",
            "action": "object.attack",
            "params": {"key": key, "attack_total": 15, "damage": "50", "damage_type": "poison"},
        }
    )
    assert poison.ok and "not harmed" in poison.cards[0]["html"]
    miss = await client.send(
        {
            "type": "gm.action",
            "action": "object.attack",
            "params": {"key": key, "attack_total": 9, "damage": "50", "damage_type": "fire"},
        }
    )
    assert miss.ok and trap_state(server, "net").held
    burn = await client.send(
        {
            "type": "gm.action",
            "action": "object.attack",
            "params": {"key": key, "attack_total": 10, "damage": "20", "damage_type": "fire"},
        }
    )
    assert {op["token_id"] for op in ops(burn, "status") if not op["active"]} == {"aria", "borin"}


async def test_hidden_pit_noticed_by_a_sharp_eye_and_jammed_with_a_spike(
    server: Any, client: SidecarClient
) -> None:
    await setup(
        client,
        [region("pit", "hidden_pit", rect(6 * SQ, 0))],
        [hero("aria", 0, 0, pp=15, owner="u1"), hero("borin", 0, SQ, pp=14, owner="u2")],
    )
    near = await move(client, "aria", (0, 0), (2 * SQ, 0))
    owners = [c for c in near.cards if c["visibility"] == "owners"]
    assert len(owners) == 1 and owners[0]["owners_of"] == ["aria"]
    assert "foot traffic" not in owners[0]["html"]  # our words, not the rulebook's
    assert sprung(near) == []
    dull = await move(client, "borin", (0, SQ), (2 * SQ, SQ))
    assert [c for c in dull.cards if c["visibility"] == "owners"] == []
    assert (await action(client, "trap.bypass", region_id="pit", bypass="spike")).ok
    crossed = await move(client, "aria", (2 * SQ, 0), (10 * SQ, 0))
    assert sprung(crossed) == [] and ops(crossed, "token.move") == []


async def test_locking_pit_shuts_its_victim_in_until_the_lid_breaks(
    server: Any, client: SidecarClient
) -> None:
    await setup(
        client,
        [region("pit", "locking_pit", rect(4 * SQ, 0))],
        [hero("aria", 0, 0), hero("borin", 0, SQ)],
    )
    fell = await move(client, "aria", (0, 0), (8 * SQ, 0))
    assert ops(fell, "token.move")[0]["x"] == 4 * SQ
    assert "snaps shut" in sprung(fell)[0]["html"]
    assert trap_state(server, "pit").locked_in == ["aria"]
    pry = await action(client, "trap.open_lid", region_id="pit", token_id="borin")
    assert pry.ok  # Str +1 against DC 20 almost always fails
    key = trap_state(server, "pit").objects[0]
    chip = await client.send(
        {
            "type": "gm.action",
            "action": "object.attack",
            "params": {"key": key, "attack_total": 20, "damage": "4", "damage_type": "bludgeoning"},
        }
    )
    assert "not strong enough" in chip.cards[0]["html"]  # below the damage threshold
    smash = await client.send(
        {
            "type": "gm.action",
            "action": "object.attack",
            "params": {
                "key": key,
                "attack_total": 20,
                "damage": "40",
                "damage_type": "bludgeoning",
            },
        }
    )
    assert smash.ok and "breaks" in smash.cards[0]["html"]
    assert trap_state(server, "pit").locked_in == []


async def test_locking_pit_lid_pried_open_by_a_strong_hand(
    server: Any, client: SidecarClient
) -> None:
    await setup(
        client,
        [region("pit", "locking_pit", rect(4 * SQ, 0))],
        [hero("aria", 0, 0), hero("borin", 0, SQ, **STRONG)],
    )
    await move(client, "aria", (0, 0), (8 * SQ, 0))
    pry = await action(client, "trap.open_lid", region_id="pit", token_id="borin")
    assert pry.ok and "swings open" in pry.cards[0]["html"]
    assert trap_state(server, "pit").locked_in == []


async def test_spiked_pits_add_piercing_and_the_poisoned_variant_a_poison_save(
    server: Any, client: SidecarClient
) -> None:
    regions = [
        region("spikes", "spiked_pit", rect(4 * SQ, 0)),
        region("venom", "spiked_pit_poisoned", rect(4 * SQ, 2 * SQ)),
    ]
    tokens = [
        hero("aria", 0, 0),
        hero("borin", 0, 2 * SQ),
        hero("golem", 0, 4 * SQ, damage_immunities=["piercing"]),
    ]
    regions.append(region("venom2", "spiked_pit_poisoned", rect(4 * SQ, 4 * SQ)))
    await setup(client, regions, tokens)
    plain = sprung(await move(client, "aria", (0, 0), (8 * SQ, 0)), "gm")[0]
    assert {f["type"] for f in facts(plain, "damage")} == {"bludgeoning", "piercing"}
    assert facts(plain, "save") == []
    venom = sprung(await move(client, "borin", (0, 2 * SQ), (8 * SQ, 2 * SQ)), "gm")[0]
    assert [(f["ability"], f["dc"]) for f in facts(venom, "save")] == [("con", 13)]
    immune = sprung(await move(client, "golem", (0, 4 * SQ), (8 * SQ, 4 * SQ)), "gm")[0]
    assert facts(immune, "save") == []  # no piercing damage taken: no poison either


async def test_poison_needle_pricks_whoever_opens_the_lock_and_can_be_removed(
    server: Any, client: SidecarClient
) -> None:
    chest = region("chest", "poison_needle", rect(5 * SQ, 5 * SQ))
    chest2 = region("chest2", "poison_needle", rect(9 * SQ, 5 * SQ))
    await setup(
        client,
        [chest, chest2],
        [hero("aria", 4 * SQ, 5 * SQ, **STRONG), hero("borin", 8 * SQ, 5 * SQ)],
    )
    walk = await move(client, "borin", (8 * SQ, 5 * SQ), (9 * SQ, 5 * SQ))
    assert sprung(walk) == []  # only interactions set it off
    opened = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "borin",
            "target_id": "chest2",
            "kind": "open",
        }
    )
    gm = sprung(opened, "gm")[0]
    assert [(f["type"], f["amount"] > 0) for f in facts(gm, "damage")][0] == ("piercing", True)
    assert [f["dc"] for f in facts(gm, "save")] == [15]
    touched = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "borin",
            "target_id": "chest2",
            "kind": "open",
        }
    )
    assert sprung(touched) == []  # spent
    disarm = await action(client, "trap.disarm", region_id="chest", token_id="aria")
    assert disarm.ok and trap_state(server, "chest").status == "disarmed"
    safe = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "aria",
            "target_id": "chest",
            "kind": "pick_lock_failed",
        }
    )
    assert sprung(safe) == []


async def test_poisoned_needle_condition_lasts_an_hour(server: Any, client: SidecarClient) -> None:
    await setup(
        client,
        [region("chest", "poison_needle", rect(5 * SQ, 5 * SQ))],
        [hero("aria", 4 * SQ, 5 * SQ, saves={"con": -20})],
    )
    opened = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "aria",
            "target_id": "chest",
            "kind": "pick_lock_failed",
        }
    )
    gm = sprung(opened, "gm")[0]
    poisoned = [f for f in facts(gm, "condition") if f["condition"] == "poisoned"]
    assert poisoned and poisoned[0]["duration"] == {"amount": 1, "unit": "hours"}


async def test_collapsing_roof_knocked_over_on_purpose_and_failed_disarm(
    server: Any, client: SidecarClient
) -> None:
    roof = region(
        "roof", "collapsing_roof", wire(3 * SQ, 0, 3 * SQ, 3 * SQ), rect(2 * SQ, 0, 3 * SQ, 3 * SQ)
    )
    await setup(client, [roof], [hero("aria", 2 * SQ, SQ), hero("borin", 0, 0)])
    knock = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "borin",
            "target_id": "roof",
            "kind": "knock_over",
        }
    )
    gm = sprung(knock, "gm")[0]
    assert {f["target"] for f in facts(gm, "save")} == {"a-aria"}  # Borin is outside
    assert trap_state(server, "roof").difficult_terrain


async def test_failed_disarm_with_an_edged_tool_sets_the_roof_off(
    server: Any, client: SidecarClient
) -> None:
    roof = region(
        "roof", "collapsing_roof", wire(3 * SQ, 0, 3 * SQ, 3 * SQ), rect(2 * SQ, 0, 3 * SQ, 3 * SQ)
    )
    clumsy = {"abilities": {"str": 0, "dex": -20, "con": 0, "int": 0, "wis": 0, "cha": 0}}
    await setup(client, [roof], [hero("aria", 2 * SQ, SQ, **clumsy)])
    refused = await action(client, "trap.disarm", region_id="roof", token_id="aria", tool="none")
    assert refused.reply["code"] == "rule_error"
    tried = await action(client, "trap.disarm", region_id="roof", token_id="aria", tool="edged")
    assert tried.ok
    assert "disadvantage" in tried.cards[0]["html"]
    assert len(sprung(tried)) == 1  # the failure brings the ceiling down


async def test_rolling_sphere_joins_combat_rolls_on_its_turn_and_can_be_slowed(
    server: Any, client: SidecarClient
) -> None:
    track = [{"x": 0, "y": 0}, {"x": 30 * SQ, "y": 0}]
    sphere = region("ball", "rolling_sphere", rect(2 * SQ, 4 * SQ), track=track)
    tokens = [
        hero("aria", 2 * SQ, 4 * SQ),
        hero("borin", 6 * SQ, 0),
        hero("cara", 20 * SQ, 0),
        hero("dan", 13 * SQ, SQ, **STRONG),
    ]
    await setup(client, [sphere], tokens)
    released = await move(client, "aria", (0, 4 * SQ), (4 * SQ, 4 * SQ))
    added = ops(released, "combatant.add")
    assert len(added) == 1 and added[0]["key"] == f"trap:{SCENE}:ball"
    init = added[0]["initiative"]
    assert 9 <= init <= 28
    await client.send({"type": "combat.start", "combat_id": "c1", "scene_id": SCENE})
    turn = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "current": {"round": 1, "turn": 0, "combatant_id": f"trap:{SCENE}:ball"},
        }
    )
    cards = [c for c in turn.cards if c["visibility"] == "gm"]
    saved = {f["target"] for f in facts(cards[0], "save")}
    assert saved == {"a-borin"}  # 60 ft: Borin at 30 ft is hit, Cara at 100 ft is not
    assert trap_state(server, "ball").sphere.position_ft == 60
    slow = await action(client, "trap.slow_sphere", region_id="ball", token_id="dan")
    assert slow.ok and trap_state(server, "ball").sphere.speed_ft == 45
    far = await action(client, "trap.slow_sphere", region_id="ball", token_id="cara")
    assert far.reply["code"] == "rule_error"
    for _ in range(3):
        await action(client, "trap.slow_sphere", region_id="ball", token_id="dan")
    assert not trap_state(server, "ball").sphere.rolling


async def test_rolling_sphere_stops_at_the_end_of_its_track(
    server: Any, client: SidecarClient
) -> None:
    track = [{"x": 0, "y": 0}, {"x": 6 * SQ, "y": 0}, {"x": 6 * SQ, "y": 4 * SQ}]
    await setup(
        client,
        [region("ball", "rolling_sphere", rect(2 * SQ, 6 * SQ), track=track)],
        [hero("aria", 0, 6 * SQ), hero("borin", 6 * SQ, 3 * SQ)],
    )
    await move(client, "aria", (0, 6 * SQ), (4 * SQ, 6 * SQ))
    turn = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "current": {"round": 1, "turn": 0, "combatant_id": f"trap:{SCENE}:ball"},
        }
    )
    assert ops(turn, "combatant.remove") == [
        {"op": "combatant.remove", "key": f"trap:{SCENE}:ball"}
    ]
    assert {f["target"] for f in facts(sprung_any(turn), "save")} == {"a-borin"}
    walked = await move(client, "aria", (4 * SQ, 6 * SQ), (8 * SQ, 6 * SQ))
    assert walked.cards == []


def sprung_any(result: Any) -> dict[str, Any]:
    return next(c for c in result.cards if c["visibility"] == "gm")


async def test_walking_into_the_rolling_sphere_means_a_save(
    server: Any, client: SidecarClient
) -> None:
    track = [{"x": 0, "y": 0}, {"x": 30 * SQ, "y": 0}]
    await setup(
        client,
        [region("ball", "rolling_sphere", rect(2 * SQ, 6 * SQ), track=track)],
        [hero("aria", 0, 6 * SQ), hero("borin", 0, 3 * SQ)],
    )
    await move(client, "aria", (0, 6 * SQ), (4 * SQ, 6 * SQ))
    into = await move(client, "borin", (0, 3 * SQ), (0, 0))
    gm = [c for c in into.cards if c["visibility"] == "gm"]
    assert {f["target"] for f in facts(gm[0], "save")} == {"a-borin"}


async def test_sphere_of_annihilation_unmakes_what_enters_and_dispel_ends_the_urge(
    server: Any, client: SidecarClient
) -> None:
    await setup(
        client,
        [region("mouth", "sphere_of_annihilation", rect(5 * SQ, 0, 40, 40))],
        [hero("aria", 4 * SQ, 0, hp=50)],
    )
    gone = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "aria",
            "target_id": "mouth",
            "kind": "enter",
        }
    )
    damage = ops(gone, "damage")
    assert damage and damage[0]["amount"] >= 100 and damage[0]["damage_type"] == "force"
    again = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "aria",
            "target_id": "mouth",
            "kind": "touch",
        }
    )
    assert ops(again, "damage")  # it never stops working
    assert (
        await action(client, "trap.bypass", region_id="mouth", bypass="dispel", automatic=True)
    ).ok
    assert trap_state(server, "mouth").compulsion is False
    identify = await action(client, "trap.arcana", region_id="mouth", token_id="aria")
    assert identify.ok


async def test_generic_trap_takes_its_numbers_from_the_severity_tables(
    server: Any, client: SidecarClient
) -> None:
    plate = region(
        "g",
        "generic",
        rect(3 * SQ, 0),
        overrides={"severity": "deadly", "level": 7, "ability": "con", "damage_type": "acid"},
    )
    await setup(client, [plate], [hero("aria", 0, 0)])
    gm = sprung(await move(client, "aria", (0, 0), (6 * SQ, 0)), "gm")[0]
    assert [(f["ability"], f["dc"]) for f in facts(gm, "save")] == [("con", 18)]
    assert "10d10" in gm["html"] and facts(gm, "damage")[0]["type"] == "acid"
    preview = await client.send(
        {
            "type": "gm.action",
            "action": "trap.build",
            "params": {"severity": "setback", "level": 12, "mode": "attack", "damage_type": "fire"},
        }
    )
    assert preview.cards[0]["data"]["derived"] == {"dc": 10, "attack_bonus": 4, "damage": "4d10"}
    assert preview.cards[0]["visibility"] == "gm"


async def test_search_investigate_and_detect_magic_report_to_the_searcher_only(
    server: Any, client: SidecarClient
) -> None:
    regions = [
        region("darts", "poison_darts", rect(3 * SQ, 0)),
        region("statue", "fire_breathing_statue", rect(3 * SQ, 3 * SQ)),
    ]
    sharp = {"skills": {"prc": 30, "inv": 30}}
    await setup(client, regions, [hero("aria", 0, 0, **sharp)])
    found = await action(client, "trap.search", token_id="aria")
    mine = [c for c in found.cards if c["visibility"] == "owners"][0]
    assert mine["owners_of"] == ["aria"] and "holes" in mine["html"]
    gm = [c for c in found.cards if c["visibility"] == "gm"][0]
    assert "DC 15" in gm["html"] and "DC" not in mine["html"]
    studied = await action(client, "trap.investigate", token_id="aria", region_id="darts")
    assert "spring" in [c for c in studied.cards if c["visibility"] == "owners"][0]["html"]
    magic = await action(client, "trap.detect_magic", token_id="aria")
    assert "evocation" in [c for c in magic.cards if c["visibility"] == "owners"][0]["html"]
    assert trap_state(server, "statue").aura_seen
