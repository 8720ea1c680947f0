"""The affliction clock: world-time jumps, midnight, turns, rests, restarts, two sources."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from sidecar.app import Config, Sidecar
from sidecar.client import SidecarClient
from tests.conftest import RunningSidecar, free_port, make_world
from tests.test_afflictions_support import (
    DAY,
    HOUR,
    SAVE,
    SCENE,
    advance,
    damage,
    gm,
    hero,
    party,
    refs,
    saves_of,
    set_saves,
    setup,
    state,
    statuses,
    text,
)


async def test_eight_hour_jump_processes_ticks_in_time_order(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "poison.cloud", scene_id=SCENE, x=350, y=250, poison="malice")  # Borin
    await gm(client, "poison.cloud", scene_id=SCENE, x=250, y=250, poison="essence_of_ether")
    await advance(client, 1800, 1800)
    await gm(client, "poison.coat", actor_id="act-gob", item_id="knife", poison="drow_poison")
    await client.send(
        {
            "type": "weapon.hit",
            "scene_id": SCENE,
            "attacker_token_id": "tok-gob",
            "target_token_id": "tok-aria",
            "item_id": "knife",
            "damage_types": ["slashing"],
        }
    )
    r = await advance(client, 1800 + 8 * HOUR, 8 * HOUR)
    titles = [c["title"] for c in r.cards if c["visibility"] == "public"]
    # Borin's malice (t=1 h), Aria's drow poison (1.5 h), Aria's ether (8 h): by time, not name
    assert titles == ["Malice: Borin", "Drow poison: Aria", "Essence of ether: Aria"]
    assert refs(r, "act-aria") == [] and refs(r, "act-borin") == []
    # Aria was poisoned by two sources: the status goes only when the second one ends
    assert statuses(r, "act-aria").count(("poisoned", False)) == 1
    drow, ether = [c for c in r.cards if c["visibility"] == "public"][1:]
    assert "no longer poisoned" not in drow["html"] and "no longer poisoned" in ether["html"]


async def test_long_jump_runs_every_daily_save(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "poison.administer", token_id="tok-aria", poison="pale_tincture")
    r = await advance(client, 5 * DAY + 3 * HOUR, 5 * DAY + 3 * HOUR)
    assert len(saves_of(r, "act-aria")) == 5 and len(damage(r, "act-aria")) == 5
    info = state(r, "act-aria")
    assert info is not None and info["afflictions"][0]["next"]["at"] == 6 * DAY


async def test_midnight_found_across_day_boundaries(client: SidecarClient) -> None:
    await setup(client, world_time=2 * DAY + 20 * HOUR)
    await gm(client, "poison.administer", token_id="tok-aria", poison="midnight_tears")
    await gm(client, "poison.administer", token_id="tok-borin", poison="midnight_tears")
    info = state(await gm(client, "afflictions.list", actor_id="act-aria"), "act-aria")
    assert info is not None and info["afflictions"][0]["next"]["at"] == 3 * DAY
    r = await advance(client, 2 * DAY + 23 * HOUR, 3 * HOUR)
    assert damage(r) == []
    # one jump over two midnights: the poison strikes once, at the first
    r = await advance(client, 4 * DAY + 2 * HOUR, DAY + 3 * HOUR)
    assert len(damage(r, "act-aria")) == 1 and len(damage(r, "act-borin")) == 1


async def test_midnight_exactly_now_waits_for_the_next_one(client: SidecarClient) -> None:
    await setup(client, world_time=5 * DAY)
    await gm(client, "poison.administer", token_id="tok-aria", poison="midnight_tears")
    r = await advance(client, 5 * DAY + 23 * HOUR, 23 * HOUR)
    assert damage(r) == []
    r = await advance(client, 6 * DAY, HOUR)
    assert len(damage(r, "act-aria")) == 1


async def test_turn_saves_happen_on_the_right_creatures_turn(client: SidecarClient) -> None:
    await setup(client)
    # Aria: crawler mucus (end of her turn); Borin: burnt othur fumes (start of his turn)
    await gm(client, "poison.smear", target_id="lever", poison="crawler_mucus")
    await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "tok-aria",
            "target_id": "lever",
            "kind": "touch",
        }
    )
    await gm(client, "poison.cloud", scene_id=SCENE, x=350, y=250, poison="burnt_othur_fumes")
    await client.send(
        {
            "type": "combat.start",
            "combat_id": "c1",
            "scene_id": SCENE,
            "combatants": [
                {"combatant_id": "a", "token_id": "tok-aria"},
                {"combatant_id": "b", "token_id": "tok-borin"},
            ],
        }
    )
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "current": {"round": 1, "turn": 0, "token_id": "tok-aria"},
        }
    )
    assert saves_of(r, "act-aria") == [] and saves_of(r, "act-borin") == []
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "prior": {"round": 1, "turn": 0, "token_id": "tok-aria"},
            "current": {"round": 1, "turn": 1, "token_id": "tok-borin"},
        }
    )
    assert len(saves_of(r, "act-aria")) == 1 and len(saves_of(r, "act-borin")) == 1
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "prior": {"round": 1, "turn": 1, "token_id": "tok-borin"},
            "current": {"round": 2, "turn": 0, "token_id": "tok-aria"},
        }
    )
    assert saves_of(r, "act-aria") == [] and saves_of(r, "act-borin") == []
    # world time passing during the fight does not add turns of its own
    r = await advance(client, 6, 6)
    assert saves_of(r, "act-aria") == [] and saves_of(r, "act-borin") == []


async def test_durations_from_other_engines_expire_on_their_clock(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(
        client,
        "save.force",
        scene_id=SCENE,
        token_ids=["tok-aria", "tok-borin"],
        ability="dex",
        dc=10,
        on_fail=[
            {
                "kind": "condition",
                "condition": "restrained",
                "duration": {"amount": 10, "unit": "minutes"},
            },
            {
                "kind": "condition",
                "condition": "prone",
                "duration": {"amount": 1, "unit": "rounds"},
            },
        ],
    )
    assert ("restrained", True) in statuses(r, "act-aria")
    r = await advance(client, 9 * 60, 9 * 60)
    assert set(statuses(r)) == {("prone", False)}  # one 6-s turn out of combat
    r = await advance(client, 10 * 60, 60)
    assert sorted(statuses(r)) == [("restrained", False), ("restrained", False)]


async def test_round_durations_count_the_creatures_own_turns(client: SidecarClient) -> None:
    await setup(client)
    await client.send(
        {
            "type": "combat.start",
            "combat_id": "c1",
            "scene_id": SCENE,
            "combatants": [
                {"combatant_id": "a", "token_id": "tok-aria"},
                {"combatant_id": "b", "token_id": "tok-borin"},
            ],
        }
    )
    await gm(
        client,
        "save.force",
        scene_id=SCENE,
        token_ids=["tok-aria"],
        ability="dex",
        dc=10,
        on_fail=[
            {
                "kind": "condition",
                "condition": "restrained",
                "duration": {"amount": 1, "unit": "rounds"},
            }
        ],
    )
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "current": {"round": 1, "turn": 1, "token_id": "tok-borin"},
        }
    )
    assert statuses(r) == []
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "prior": {"round": 1, "turn": 1, "token_id": "tok-borin"},
            "current": {"round": 2, "turn": 0, "token_id": "tok-aria"},
        }
    )
    assert statuses(r) == []
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "prior": {"round": 2, "turn": 0, "token_id": "tok-aria"},
            "current": {"round": 2, "turn": 1, "token_id": "tok-borin"},
        }
    )
    assert statuses(r) == [("restrained", False)]


async def test_two_sources_keep_poisoned_until_both_end(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(client, "poison.cloud", scene_id=SCENE, x=250, y=250, poison="malice")
    assert set(statuses(r)) == {("poisoned", True), ("blinded", True)}
    await advance(client, 1800, 1800)
    r = await gm(client, "poison.administer", token_id="tok-aria", poison="truth_serum")
    assert statuses(r) == []  # already poisoned: no second status, but a second holder
    r = await advance(client, HOUR, 1800)
    assert statuses(r) == [("blinded", False)]
    assert refs(r, "act-aria") == ["truth_serum"]
    r = await advance(client, HOUR + 1800, 1800)
    assert statuses(r) == [("poisoned", False)]


async def test_cure_removes_only_its_own_conditions(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "poison.cloud", scene_id=SCENE, x=250, y=250, poison="malice")
    await gm(client, "poison.administer", token_id="tok-aria", poison="torpor")
    r = await gm(
        client,
        "affliction.cure",
        token_id="tok-aria",
        method="lesser_restoration",
        affliction="torpor",
    )
    assert statuses(r) == [("incapacitated", False)]
    assert refs(r, "act-aria") == ["malice"]


async def test_gm_panel_lists_what_comes_next(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "poison.administer", token_id="tok-aria", poison="pale_tincture")
    await gm(client, "poison.cloud", scene_id=SCENE, x=250, y=250, poison="burnt_othur_fumes")
    r = await gm(client, "afflictions.list")
    info = state(r, "act-aria")
    assert info is not None
    by_ref = {a["ref"]: a for a in info["afflictions"]}
    assert by_ref["pale_tincture"]["next"] == {"what": "save", "at": DAY, "in_s": DAY}
    assert by_ref["pale_tincture"]["successes_needed"] == 7
    assert by_ref["burnt_othur_fumes"]["repeat"] == "turn_start"
    assert r.of_type("card") == []


async def _start(db: Path) -> tuple[web.AppRunner, RunningSidecar]:
    port = free_port()
    sidecar = Sidecar(Config(host="127.0.0.1", port=port, db=db))
    runner = web.AppRunner(sidecar.make_app())
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, RunningSidecar(
        f"ws://127.0.0.1:{port}/ws", f"http://127.0.0.1:{port}", db, "", "test-world", sidecar
    )


async def test_afflictions_survive_a_restart_with_timers(tmp_path: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    token = make_world(db)
    runner, running = await _start(db)
    running.token = token
    client = await running.connected()
    await setup(client, party(borin={"saves": SAVE}), world_time=20 * HOUR)
    await gm(client, "poison.administer", token_id="tok-aria", poison="pale_tincture")
    await gm(client, "poison.administer", token_id="tok-borin", poison="midnight_tears")
    before = state(await gm(client, "afflictions.list", actor_id="act-aria"), "act-aria")
    await client.close()
    await runner.cleanup()

    runner, running = await _start(db)
    running.token = token
    client = await running.connected()
    client.prefix = "after-restart"  # new event ids: the old ones are remembered
    try:
        after = state(await gm(client, "afflictions.list", actor_id="act-aria"), "act-aria")
        assert before is not None and after is not None
        assert after["afflictions"] == before["afflictions"]
        r = await advance(client, DAY + 20 * HOUR, DAY)
        assert len(saves_of(r, "act-aria")) == 1  # the daily save, exactly 24 h after the dose
        assert len(damage(r, "act-borin")) == 1  # midnight came for Borin
        assert "Midnight" in text(r)
        await set_saves(client, "tok-aria", 200, 200, hero("act-aria", "Aria"), SAVE)
        r = await advance(client, 2 * DAY + 20 * HOUR, DAY)
        info = state(r, "act-aria")
        assert info is not None and info["afflictions"][0]["successes"] == 1
    finally:
        await client.close()
        await runner.cleanup()


async def test_first_world_time_rebases_instead_of_replaying(client: SidecarClient) -> None:
    """Doses given before the module ever sent the time are timed from that first report."""
    await client.send({"type": "scene.sync", "scene": {"id": SCENE, "tokens": party()}})
    await gm(client, "poison.administer", token_id="tok-aria", poison="pale_tincture")
    await gm(client, "poison.administer", token_id="tok-borin", poison="midnight_tears")
    start = 1000 * DAY + 5 * HOUR
    r = await advance(client, start + 60, 60)
    assert saves_of(r, "act-aria") == [] and damage(r) == []
    info = state(r, "act-aria")
    assert info is not None and info["afflictions"][0]["next"]["at"] == start + DAY
    borin = state(r, "act-borin")
    assert borin is not None and borin["afflictions"][0]["next"]["at"] == 1001 * DAY
