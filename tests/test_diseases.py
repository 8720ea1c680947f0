"""Each disease (RULES.md §4) from exposure to cure or to its worst, over the protocol."""

from __future__ import annotations

from typing import Any

from sidecar.client import SidecarClient
from tests.test_afflictions_support import (
    DAY,
    HOUR,
    SAVE,
    SCENE,
    advance,
    damage,
    exhaustion,
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
    tok,
)


async def long_rest(client: SidecarClient, actor: str = "act-aria", tid: str = "tok-aria") -> Any:
    r = await client.send(
        {"type": "rest.completed", "token_id": tid, "actor_id": actor, "rest": "long"}
    )
    assert r.ok, r.reply
    return r


async def expose(client: SidecarClient, disease: str, *tokens: str, **extra: Any) -> Any:
    return await gm(
        client, "disease.expose", disease=disease, token_ids=list(tokens), scene_id=SCENE, **extra
    )


# ---------------------------------------------------------------- sewer plague


async def test_sewer_plague_resisted_by_a_good_save(client: SidecarClient) -> None:
    await setup(client, party(aria={"saves": SAVE}))
    r = await expose(client, "sewer_plague", "tok-aria")
    assert "fights off" in text(r) and state(r, "act-aria") is None


async def test_sewer_plague_worsens_then_is_beaten(client: SidecarClient) -> None:
    await setup(client)
    r = await expose(client, "sewer_plague", "tok-aria")
    assert "infected" in text(r, "gm") and "infected" not in text(r, "public")
    info = state(r, "act-aria")
    assert info is not None and info["afflictions"][0]["stage"] == "incubating"
    onset = info["afflictions"][0]["next"]["in_s"]
    assert onset in (DAY, 2 * DAY, 3 * DAY, 4 * DAY)
    r = await long_rest(client)  # incubating: a rest changes nothing yet
    assert exhaustion(r, "act-aria") == []
    r = await advance(client, onset, onset)
    assert exhaustion(r, "act-aria") == [1]
    r = await long_rest(client)  # failed save: worse; the rest may not take the level away
    assert exhaustion(r, "act-aria") == [1, 2]
    assert "sickness keeps it" in text(r, "gm") and "restores no hit points" in text(r, "gm")
    r = await client.send({"type": "rest.completed", "actor_id": "act-aria", "rest": "short"})
    assert "half" in text(r, "gm")
    await set_saves(client, "tok-aria", 200, 200, hero("act-aria", "Aria"), SAVE, exhaustion=2)
    r = await long_rest(client)
    assert exhaustion(r, "act-aria")[-1] == 1 and "sewer_plague" in refs(r, "act-aria")
    r = await long_rest(client)
    assert exhaustion(r, "act-aria")[-1] == 0 and refs(r, "act-aria") == []
    assert "recovers" in text(r)


async def test_sewer_plague_worst_case_exhaustion_climbs(client: SidecarClient) -> None:
    await setup(client)
    r = await expose(client, "sewer_plague", "tok-aria")
    info = state(r, "act-aria")
    assert info is not None
    await advance(client, 4 * DAY, 4 * DAY)
    levels = []
    for _ in range(5):
        levels.append(exhaustion(await long_rest(client), "act-aria")[-1])
    assert levels == [2, 3, 4, 5, 6]


# ---------------------------------------------------------------- cackle fever


async def test_gnomes_are_immune_to_cackle_fever(client: SidecarClient) -> None:
    await setup(client, party(aria={"race": "rock gnome"}))
    r = await expose(client, "cackle_fever", "tok-aria")
    assert "gnome" in text(r) and state(r, "act-aria") is None


async def test_cackle_fever_laughter_contagion_and_cure(client: SidecarClient) -> None:
    await setup(client)
    await expose(client, "cackle_fever", "tok-aria")
    r = await advance(client, 4 * HOUR, 4 * HOUR)
    assert exhaustion(r, "act-aria") == [1]
    r = await client.send(
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
    assert 1 <= sum(damage(r, "act-aria", "psychic")) <= 10
    assert statuses(r, "act-aria") == [("incapacitated", True)]
    # Borin starts his turn next to laughing Aria: a Con save DC 10 or he catches it
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "current": {"round": 1, "turn": 0, "token_id": "tok-borin"},
        }
    )
    assert len(saves_of(r, "act-borin")) == 1
    assert refs(r, "act-borin") == ["cackle_fever"]
    # Aria's end-of-turn save with a good bonus stops the laughter
    await set_saves(client, "tok-aria", 200, 200, hero("act-aria", "Aria"), SAVE, exhaustion=1)
    await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "prior": {"round": 1, "turn": 0, "token_id": "tok-borin"},
            "current": {"round": 1, "turn": 1, "token_id": "tok-aria"},
        }
    )
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "prior": {"round": 1, "turn": 1, "token_id": "tok-aria"},
            "current": {"round": 2, "turn": 0, "token_id": "tok-borin"},
        }
    )
    assert statuses(r, "act-aria") == [("incapacitated", False)]
    r = await gm(client, "affliction.cure", token_id="tok-aria", method="lesser_restoration")
    assert exhaustion(r, "act-aria") == [0] and refs(r, "act-aria") == []


async def test_cackle_fever_carrier_immunity_for_a_day(client: SidecarClient) -> None:
    await setup(client, party(borin={"saves": SAVE}))
    await expose(client, "cackle_fever", "tok-aria")
    await advance(client, 4 * HOUR, 4 * HOUR)
    await gm(client, "disease.stress", token_id="tok-aria", reason="nightmare")
    await client.send(
        {
            "type": "combat.start",
            "combat_id": "c1",
            "scene_id": SCENE,
            "combatants": [{"combatant_id": "b", "token_id": "tok-borin"}],
        }
    )
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "current": {"round": 1, "turn": 0, "token_id": "tok-borin"},
        }
    )
    assert len(saves_of(r, "act-borin")) == 1 and "24" in text(r)
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "current": {"round": 2, "turn": 0, "token_id": "tok-borin"},
        }
    )
    assert saves_of(r, "act-borin") == []  # immune to this carrier now


async def test_cackle_fever_far_carrier_is_not_contagious(client: SidecarClient) -> None:
    tokens = party()
    tokens[1] = tok("tok-borin", 500, 200, hero("act-borin", "Borin"))  # 15 ft away
    await setup(client, tokens)
    await expose(client, "cackle_fever", "tok-aria")
    await advance(client, 4 * HOUR, 4 * HOUR)
    await gm(client, "disease.stress", token_id="tok-aria", reason="fear")
    r = await client.send(
        {
            "type": "combat.turn",
            "combat_id": "c1",
            "current": {"round": 1, "turn": 0, "token_id": "tok-borin"},
        }
    )
    assert saves_of(r, "act-borin") == []


async def test_cackle_fever_three_failed_rests_bring_madness(client: SidecarClient) -> None:
    await setup(client)
    await expose(client, "cackle_fever", "tok-aria")
    await advance(client, 4 * HOUR, 4 * HOUR)
    await long_rest(client)
    r = await long_rest(client)
    assert "indefinite" not in refs(r, "act-aria")
    r = await long_rest(client)
    assert sorted(refs(r, "act-aria")) == ["cackle_fever", "indefinite"]
    assert exhaustion(r, "act-aria") == [1]  # kept through every rest


async def test_cackle_fever_good_rests_lower_the_dc_to_a_cure(client: SidecarClient) -> None:
    await setup(client)
    await expose(client, "cackle_fever", "tok-aria")
    await advance(client, 4 * HOUR, 4 * HOUR)
    await set_saves(client, "tok-aria", 200, 200, hero("act-aria", "Aria"), SAVE, exhaustion=1)
    dcs = [13]
    for _ in range(13):
        r = await long_rest(client)
        info = state(r, "act-aria")
        assert info is not None
        if not info["afflictions"]:
            break
        dcs.append(info["afflictions"][0]["dc"])
    assert all(1 <= a - b <= 6 for a, b in zip(dcs, dcs[1:], strict=False))
    assert refs(r, "act-aria") == [] and "recovers" in text(r)


# ---------------------------------------------------------------- sight rot


async def test_sight_rot_grows_to_blindness_then_lesser_restoration(client: SidecarClient) -> None:
    await setup(client)
    await expose(client, "sight_rot", "tok-aria")
    r = await advance(client, DAY, DAY)
    assert "-1 to attack rolls" in text(r)
    penalties = []
    for _ in range(4):
        r = await long_rest(client)
        info = state(r, "act-aria")
        assert info is not None
        penalties.append(info["afflictions"][0]["penalty"])
    assert penalties == [2, 3, 4, 5]
    assert statuses(r, "act-aria") == [("blinded", True)]
    r = await gm(client, "affliction.cure", token_id="tok-aria", method="calm_emotions")
    assert "does nothing" in text(r, "gm")
    r = await gm(client, "affliction.cure", token_id="tok-aria", method="lesser_restoration")
    assert statuses(r, "act-aria") == [("blinded", False)] and refs(r, "act-aria") == []


async def test_sight_rot_eyebright_holds_and_cures(client: SidecarClient) -> None:
    await setup(client)
    await expose(client, "sight_rot", "tok-aria")
    await advance(client, DAY, DAY)
    await gm(client, "disease.eyebright", token_id="tok-aria")
    r = await long_rest(client)
    info = state(r, "act-aria")
    assert info is not None and info["afflictions"][0]["penalty"] == 1
    r = await long_rest(client)  # no dose before this rest: it worsens
    info = state(r, "act-aria")
    assert info is not None and info["afflictions"][0]["penalty"] == 2
    await gm(client, "disease.eyebright", token_id="tok-aria")
    r = await gm(client, "disease.eyebright", token_id="tok-aria")
    assert refs(r, "act-aria") == [] and "eyebright" in text(r)


async def test_sight_rot_takes_beasts_but_not_constructs(client: SidecarClient) -> None:
    tokens = party(aria={"creature_type": "beast"}, borin={"creature_type": "construct"})
    await setup(client, tokens)
    r = await expose(client, "sight_rot", "tok-aria", "tok-borin")
    assert state(r, "act-aria") is not None and state(r, "act-borin") is None
