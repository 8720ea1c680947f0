"""One scenario per poison (RULES.md §3) over the real protocol, each through its delivery."""

from __future__ import annotations

from sidecar.client import SidecarClient
from tests.test_afflictions_support import (
    DAY,
    HOUR,
    SAVE,
    SCENE,
    advance,
    damage,
    facts,
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


async def coat_and_hit(
    client: SidecarClient, poison: str, kinds: list[str] | None = None, target: str = "tok-aria"
) -> object:
    await gm(client, "poison.coat", actor_id="act-gob", item_id="dagger", poison=poison)
    return await client.send(
        {
            "type": "weapon.hit",
            "scene_id": SCENE,
            "attacker_token_id": "tok-gob",
            "target_token_id": target,
            "item_id": "dagger",
            "damage_types": kinds or ["piercing"],
        }
    )


# ---------------------------------------------------------------- ingested


async def test_assassins_blood_fail_poisons_a_day(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(
        client, "poison.administer", token_id="tok-aria", poison="assassins_blood", secret=False
    )
    assert 1 <= sum(damage(r, "act-aria", "poison")) <= 12
    assert ("poisoned", True) in statuses(r, "act-aria")
    r = await advance(client, 23 * HOUR, 23 * HOUR)
    assert statuses(r, "act-aria") == []
    r = await advance(client, 24 * HOUR, HOUR)
    assert statuses(r, "act-aria") == [("poisoned", False)]
    assert refs(r, "act-aria") == []


async def test_assassins_blood_success_half_damage_not_poisoned(client: SidecarClient) -> None:
    await setup(client, party(aria={"saves": SAVE}))
    r = await gm(client, "poison.administer", token_id="tok-aria", poison="assassins_blood")
    assert sum(damage(r, "act-aria")) <= 6
    assert statuses(r) == []
    assert all(c["visibility"] == "gm" for c in r.cards)  # a secret dose by default


async def test_midnight_tears_wait_then_strike(client: SidecarClient) -> None:
    await setup(client, world_time=20 * HOUR)
    r = await gm(client, "poison.administer", token_id="tok-aria", poison="midnight_tears")
    assert damage(r) == [] and statuses(r) == []
    assert "midnight" in text(r, "gm")
    r = await advance(client, 23 * HOUR + 59 * 60, 3 * HOUR + 59 * 60)
    assert damage(r) == []
    r = await advance(client, DAY + 60, 60)
    hits = damage(r, "act-aria", "poison")
    assert len(hits) == 1 and 9 <= hits[0] <= 54
    assert refs(r, "act-aria") == []


async def test_midnight_tears_neutralized_before_midnight(client: SidecarClient) -> None:
    await setup(client, world_time=20 * HOUR)
    await gm(client, "poison.administer", token_id="tok-aria", poison="midnight_tears")
    r = await gm(client, "affliction.cure", token_id="tok-aria", method="protection_from_poison")
    assert "neutralized" in text(r)
    r = await advance(client, DAY + HOUR, 5 * HOUR)
    assert damage(r) == []


async def test_pale_tincture_seven_successes_and_unhealable(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(client, "poison.administer", token_id="tok-aria", poison="pale_tincture")
    first = sum(damage(r, "act-aria", "poison"))
    assert 1 <= first <= 6 and ("poisoned", True) in statuses(r)
    r = await client.send({"type": "healing.applied", "actor_id": "act-aria", "amount": 5})
    gm_text = text(r, "gm")
    assert "cannot be healed" in gm_text and f"{first} damage" in gm_text
    assert all(c["visibility"] == "gm" for c in r.cards)
    aria = hero("act-aria", "Aria")
    await set_saves(client, "tok-aria", 200, 200, aria, SAVE)
    r = await advance(client, 6 * DAY, 6 * DAY)
    assert len(saves_of(r, "act-aria")) == 6
    info = state(r, "act-aria")
    assert info is not None and info["afflictions"][0]["successes"] == 6
    r = await advance(client, 7 * DAY, DAY)
    assert statuses(r, "act-aria") == [("poisoned", False)]
    assert refs(r, "act-aria") == []


async def test_pale_tincture_failures_deal_damage_each_day(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "poison.administer", token_id="tok-aria", poison="pale_tincture")
    r = await advance(client, 3 * DAY, 3 * DAY)
    hits = damage(r, "act-aria", "poison")
    assert len(hits) == 3 and all(1 <= h <= 6 for h in hits)
    info = state(r, "act-aria")
    assert info is not None and info["afflictions"][0]["failures"] == 3


async def test_torpor_rolls_hours_and_incapacitates(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(client, "poison.administer", token_id="tok-aria", poison="torpor")
    assert set(statuses(r)) == {("poisoned", True), ("incapacitated", True)}
    info = state(r, "act-aria")
    assert info is not None
    left = info["afflictions"][0]["time_left_s"]
    assert 4 * HOUR <= left <= 24 * HOUR and left % HOUR == 0
    r = await advance(client, left - 1, left - 1)
    assert statuses(r) == []
    r = await advance(client, left, 1)
    assert set(statuses(r)) == {("poisoned", False), ("incapacitated", False)}


async def test_truth_serum_note_and_hour(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(
        client, "poison.administer", token_id="tok-aria", poison="truth_serum", secret=False
    )
    assert "cannot knowingly speak a lie" in text(r, "public")
    r = await advance(client, HOUR, HOUR)
    assert statuses(r) == [("poisoned", False)]


async def test_partial_dose_advantage_and_half_damage(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(
        client,
        "poison.administer",
        token_id="tok-aria",
        poison="assassins_blood",
        partial="advantage",
    )
    assert any("2d20kh1" in roll.get("formula", "") for c in r.cards for roll in c["rolls"])
    r = await gm(
        client,
        "poison.administer",
        token_id="tok-borin",
        poison="assassins_blood",
        partial="half_damage",
    )
    assert 0 <= sum(damage(r, "act-borin")) <= 6


# ---------------------------------------------------------------- injury


async def test_serpent_venom_from_other_engine_content(client: SidecarClient) -> None:
    """A trap-like effect list uses the apply_affliction kind."""
    await setup(client)
    r = await gm(
        client,
        "save.force",
        scene_id=SCENE,
        token_ids=["tok-aria"],
        ability="dex",
        dc=10,
        on_fail=[{"kind": "apply_affliction", "affliction": "serpent_venom"}],
    )
    hits = damage(r, "act-aria", "poison")
    assert len(hits) == 1 and 3 <= hits[0] <= 18


async def test_drow_poison_fail_by_five_sleeps_until_damage(client: SidecarClient) -> None:
    await setup(client)
    r = await coat_and_hit(client, "drow_poison")
    assert set(statuses(r, "act-aria")) == {("poisoned", True), ("unconscious", True)}
    r = await client.send({"type": "damage.taken", "actor_id": "act-aria", "amount": 3})
    assert statuses(r) == [("unconscious", False)]
    r = await advance(client, HOUR, HOUR)
    assert statuses(r) == [("poisoned", False)]


async def test_drow_poison_shaken_awake_and_coat_used_up(client: SidecarClient) -> None:
    await setup(client)
    await coat_and_hit(client, "drow_poison")
    r = await gm(client, "affliction.shake", token_id="tok-aria")
    assert statuses(r) == [("unconscious", False)]
    r = await client.send(
        {
            "type": "weapon.hit",
            "scene_id": SCENE,
            "attacker_token_id": "tok-gob",
            "target_token_id": "tok-borin",
            "item_id": "dagger",
            "damage_types": ["piercing"],
        }
    )
    assert r.cards == [] and statuses(r) == []


async def test_drow_poison_fail_by_less_than_five_only_poisoned(client: SidecarClient) -> None:
    await setup(client)
    await client.send({"type": "settings.update", "settings": {"save_mode": "ask"}})
    aria = hero("act-aria", "Aria", owners=["player-1"])
    await set_saves(client, "tok-aria", 200, 200, aria, aria["saves"])
    r = await coat_and_hit(client, "drow_poison")
    requests = r.of_type("save.request")  # type: ignore[attr-defined]
    assert len(requests) == 1
    r = await client.send(
        {
            "type": "save.result",
            "request_id": requests[0]["request_id"],
            "token_id": "tok-aria",
            "total": 10,
        }
    )
    assert statuses(r, "act-aria") == [("poisoned", True)]


async def test_purple_worm_and_wyvern_poison_damage(client: SidecarClient) -> None:
    await setup(client)
    r = await coat_and_hit(client, "purple_worm_poison", ["slashing"])
    hits = damage(r, "act-aria", "poison")
    assert len(hits) == 1 and 12 <= hits[0] <= 72
    r = await coat_and_hit(client, "wyvern_poison", ["piercing", "fire"], target="tok-borin")
    hits = damage(r, "act-borin", "poison")
    assert len(hits) == 1 and 7 <= hits[0] <= 42


async def test_bludgeoning_hit_does_not_deliver(client: SidecarClient) -> None:
    await setup(client)
    r = await coat_and_hit(client, "wyvern_poison", ["bludgeoning"])
    assert damage(r) == []
    r = await client.send(
        {
            "type": "weapon.hit",
            "scene_id": SCENE,
            "attacker_token_id": "tok-gob",
            "target_token_id": "tok-aria",
            "item_id": "dagger",
            "damage_types": ["piercing"],
        }
    )
    assert len(damage(r, "act-aria", "poison")) == 1  # the coat waited for a real wound


async def test_coat_with_doses_and_wrong_delivery_refused(client: SidecarClient) -> None:
    await setup(client)
    bad = await client.send(
        {
            "type": "gm.action",
            "action": "poison.coat",
            "params": {"actor_id": "act-gob", "item_id": "dagger", "poison": "malice"},
        }
    )
    assert bad.reply["code"] == "rule_error"
    await gm(
        client, "poison.coat", actor_id="act-gob", item_id="arrows", poison="serpent_venom", doses=2
    )
    for expected in (1, 1, 0):
        r = await client.send(
            {
                "type": "weapon.hit",
                "scene_id": SCENE,
                "attacker_token_id": "tok-gob",
                "target_token_id": "tok-aria",
                "item_id": "arrows",
                "damage_types": ["piercing"],
            }
        )
        assert len(damage(r)) == expected


# ---------------------------------------------------------------- contact


async def test_crawler_mucus_paralyzes_until_an_end_of_turn_save(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "poison.smear", target_id="chest-1", poison="crawler_mucus")
    r = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "tok-aria",
            "target_id": "chest-1",
            "kind": "open",
        }
    )
    assert set(statuses(r)) == {("poisoned", True), ("paralyzed", True)}
    await set_saves(client, "tok-aria", 200, 200, hero("act-aria", "Aria"), SAVE)
    await client.send(
        {
            "type": "combat.start",
            "combat_id": "c1",
            "scene_id": SCENE,
            "combatants": [{"combatant_id": "a", "token_id": "tok-aria"}],
        }
    )
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "current": {"round": 1, "turn": 0, "token_id": "tok-aria"},
        }
    )
    assert statuses(r) == []
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "prior": {"round": 1, "turn": 0, "token_id": "tok-aria"},
            "current": {"round": 2, "turn": 0, "token_id": "tok-aria"},
        }
    )
    assert set(statuses(r)) == {("poisoned", False), ("paralyzed", False)}


async def test_crawler_mucus_wears_off_after_a_minute(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "poison.smear", target_id="door-1", poison="crawler_mucus")
    await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "tok-aria",
            "target_id": "door-1",
            "kind": "touch",
        }
    )
    r = await advance(client, 60, 60)
    assert len(saves_of(r, "act-aria")) == 9  # a save per 6-s turn out of combat, then it ends
    assert set(statuses(r)) == {("poisoned", False), ("paralyzed", False)}


async def test_oil_of_taggit_wakes_only_on_damage(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "poison.smear", target_id="cup", poison="oil_of_taggit")
    r = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "tok-borin",
            "target_id": "cup",
            "kind": "touch",
        }
    )
    assert set(statuses(r)) == {("poisoned", True), ("unconscious", True)}
    r = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "tok-aria",
            "target_id": "cup",
            "kind": "touch",
        }
    )
    assert statuses(r) == []  # the smear was used up
    r = await gm(client, "affliction.shake", token_id="tok-borin")
    assert statuses(r) == [] and "only pain" in text(r)
    r = await client.send({"type": "damage.taken", "actor_id": "act-borin", "amount": 1})
    assert statuses(r) == [("unconscious", False)]
    r = await advance(client, DAY, DAY)
    assert statuses(r) == [("poisoned", False)]


async def test_wash_removes_smear(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "poison.smear", target_id="cup", poison="oil_of_taggit")
    await gm(client, "poison.wash", target_id="cup")
    r = await client.send(
        {
            "type": "interaction",
            "scene_id": SCENE,
            "token_id": "tok-aria",
            "target_id": "cup",
            "kind": "touch",
        }
    )
    assert statuses(r) == [] and r.cards == []


# ---------------------------------------------------------------- inhaled


async def test_burnt_othur_three_start_of_turn_successes(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(client, "poison.cloud", scene_id=SCENE, x=250, y=250, poison="burnt_othur_fumes")
    assert 3 <= sum(damage(r, "act-aria")) <= 18
    assert statuses(r) == []
    await set_saves(client, "tok-aria", 200, 200, hero("act-aria", "Aria"), SAVE)
    await client.send(
        {
            "type": "combat.start",
            "combat_id": "c1",
            "scene_id": SCENE,
            "combatants": [{"combatant_id": "a", "token_id": "tok-aria"}],
        }
    )
    for turn in range(1, 4):
        r = await client.send(
            {
                "type": "combat.turn",
                "combat_id": "c1",
                "current": {"round": turn, "turn": 0, "token_id": "tok-aria"},
            }
        )
        assert len(saves_of(r, "act-aria")) == 1
        assert ("burnt_othur_fumes" in refs(r, "act-aria")) == (turn < 3)


async def test_cloud_reaches_only_the_cube(client: SidecarClient) -> None:
    await setup(client)
    # (300, 250): the cube spans x 250-350, overlapping Aria (200-300) and Borin (300-400)
    r = await gm(client, "poison.cloud", scene_id=SCENE, x=300, y=250, poison="malice")
    actors = {f["target"] for f in facts(r, "condition")}
    assert actors == {"act-aria", "act-borin"}
    r = await gm(client, "poison.cloud", scene_id=SCENE, x=2500, y=2500, poison="malice")
    assert "disperses" in text(r)


async def test_essence_of_ether_sleep_shaken_then_eight_hours(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(client, "poison.cloud", scene_id=SCENE, x=250, y=250, poison="essence_of_ether")
    assert set(statuses(r)) == {("poisoned", True), ("unconscious", True)}
    r = await gm(client, "affliction.shake", token_id="tok-aria")
    assert statuses(r) == [("unconscious", False)]
    r = await advance(client, 8 * HOUR, 8 * HOUR)
    assert statuses(r) == [("poisoned", False)]


async def test_malice_blinds_for_an_hour(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(client, "poison.cloud", scene_id=SCENE, x=250, y=250, poison="malice")
    assert set(statuses(r)) == {("poisoned", True), ("blinded", True)}
    r = await advance(client, HOUR, HOUR)
    assert set(statuses(r)) == {("poisoned", False), ("blinded", False)}


async def test_the_delivering_wound_does_not_wake_the_sleeper(client: SidecarClient) -> None:
    """The module reports the dagger's own damage after weapon.hit: that is not a new wound."""
    await setup(client)
    await coat_and_hit(client, "drow_poison")
    report = {"type": "damage.taken", "actor_id": "act-aria", "amount": 3}
    r = await client.send({**report, "damage_types": ["piercing"]})
    assert statuses(r) == []
    r = await client.send({**report, "damage_types": ["piercing"]})
    assert statuses(r) == [("unconscious", False)]


async def test_a_later_stab_wakes_after_the_turn_moves_on(client: SidecarClient) -> None:
    await setup(client)
    await coat_and_hit(client, "drow_poison")
    await client.send(
        {"type": "combat.turn", "combat_id": "c1", "current": {"round": 1, "token_id": "tok-gob"}}
    )
    r = await client.send(
        {"type": "damage.taken", "actor_id": "act-aria", "amount": 3, "damage_types": ["slashing"]}
    )
    assert statuses(r) == [("unconscious", False)]
