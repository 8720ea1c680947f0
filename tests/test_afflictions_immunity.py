"""Immunities: poison damage, the poisoned condition, and what the card says about them."""

from __future__ import annotations

from sidecar.client import SidecarClient
from tests.test_afflictions_support import (
    DAY,
    SCENE,
    advance,
    damage,
    gm,
    party,
    refs,
    setup,
    state,
    statuses,
    text,
)

IMMUNE = {"damage_immunities": ["poison"], "condition_immunities": ["poisoned"]}


async def test_fully_immune_creature_takes_nothing_and_card_says_why(client: SidecarClient) -> None:
    await setup(client, party(aria=IMMUNE))
    for poison in ("serpent_venom", "drow_poison"):
        await gm(client, "poison.coat", actor_id="act-gob", item_id="blade", poison=poison)
        r = await client.send(
            {
                "type": "weapon.hit",
                "scene_id": SCENE,
                "attacker_token_id": "tok-gob",
                "target_token_id": "tok-aria",
                "item_id": "blade",
                "damage_types": ["slashing"],
            }
        )
        assert damage(r) == [] and statuses(r) == []
        assert "immune to poison" in text(r, "public")
        assert state(r, "act-aria") is None
    r = await gm(client, "poison.administer", token_id="tok-aria", poison="midnight_tears")
    assert "immune to poison" in text(r)
    r = await advance(client, 2 * DAY, 2 * DAY)
    assert damage(r) == []


async def test_immune_to_poison_damage_only(client: SidecarClient) -> None:
    await setup(client, party(aria={"damage_immunities": ["poison"]}))
    r = await gm(
        client, "poison.administer", token_id="tok-aria", poison="assassins_blood", secret=False
    )
    assert damage(r) == [] and "immune to poison damage" in text(r, "public")
    assert statuses(r) == [("poisoned", True)]


async def test_immune_to_the_poisoned_condition_only(client: SidecarClient) -> None:
    await setup(client, party(aria={"condition_immunities": ["poisoned"]}))
    r = await gm(client, "poison.cloud", scene_id=SCENE, x=250, y=250, poison="malice")
    assert statuses(r) == []
    public = text(r, "public")
    assert "immune to the poisoned condition" in public
    assert "cannot be poisoned" in public  # and so the blindness that rides on it is spared
    r = await gm(
        client, "poison.administer", token_id="tok-aria", poison="assassins_blood", secret=False
    )
    assert len(damage(r, "act-aria")) == 1 and statuses(r) == []


async def test_condition_immunity_to_a_rider(client: SidecarClient) -> None:
    await setup(client, party(aria={"condition_immunities": ["unconscious"]}))
    r = await gm(client, "poison.cloud", scene_id=SCENE, x=250, y=250, poison="essence_of_ether")
    assert statuses(r) == [("poisoned", True)]
    assert "immune to the unconscious condition" in text(r, "public")
    r = await gm(client, "afflictions.list", actor_id="act-aria")
    assert refs(r, "act-aria") == ["essence_of_ether"]
