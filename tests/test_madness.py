"""Madness (RULES.md §5): tables, durations, mechanical effects, cures and suppression."""

from __future__ import annotations

from pathlib import Path

import yaml

from sidecar.client import SidecarClient
from sidecar.content import BUNDLED_CONTENT
from tests.test_afflictions_support import (
    HOUR,
    SAVE,
    advance,
    gm,
    party,
    refs,
    saves_of,
    setup,
    state,
    statuses,
    text,
)


def test_tables_cover_d100_in_three_languages() -> None:
    for name, expected in (("short_term", 10), ("long_term", 12), ("indefinite", 12)):
        data = yaml.safe_load(Path(BUNDLED_CONTENT / "madness" / f"{name}.yaml").read_text())
        table = data["entries"][0]
        assert len(table["entries"]) == expected
        covered = sorted(n for e in table["entries"] for n in range(e["low"], e["high"] + 1))
        assert covered == list(range(1, 101))
        for entry in table["entries"]:
            assert set(entry["text"]) == {"en", "ru", "zh-CN"}


async def test_short_term_paralysis_ends_on_damage(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(client, "madness.inflict", token_id="tok-aria", kind="short", roll=7)
    assert statuses(r) == [("paralyzed", True)]
    left = state(r, "act-aria")["afflictions"][0]["time_left_s"]  # type: ignore[index]
    assert 60 <= left <= 600 and left % 60 == 0
    r = await client.send({"type": "damage.taken", "actor_id": "act-aria", "amount": 2})
    assert statuses(r) == [("paralyzed", False)] and refs(r, "act-aria") == []


async def test_short_term_unconscious_wears_off(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(client, "madness.inflict", token_id="tok-aria", kind="short", roll=95)
    assert statuses(r) == [("unconscious", True)]
    r = await advance(client, 600, 600)
    assert statuses(r) == [("unconscious", False)]


async def test_long_term_sense_loss_and_duration(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(client, "madness.inflict", token_id="tok-aria", kind="long", roll=60)
    (status,) = statuses(r)
    assert status in (("blinded", True), ("deafened", True))
    left = state(r, "act-aria")["afflictions"][0]["time_left_s"]  # type: ignore[index]
    assert 10 * HOUR <= left <= 100 * HOUR and left % (10 * HOUR) == 0
    r = await gm(client, "affliction.cure", token_id="tok-aria", method="lesser_restoration")
    assert statuses(r) == [(status[0], False)]


async def test_long_term_damage_calls_for_a_wisdom_save(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "madness.inflict", token_id="tok-aria", kind="long", roll=88)
    r = await client.send({"type": "damage.taken", "actor_id": "act-aria", "amount": 4})
    assert len(saves_of(r, "act-aria")) == 1 and "loses touch" in text(r)


async def test_indefinite_needs_greater_restoration(client: SidecarClient) -> None:
    await setup(client)
    r = await gm(client, "madness.inflict", token_id="tok-aria", kind="indefinite")
    info = state(r, "act-aria")
    assert info is not None and info["afflictions"][0]["time_left_s"] is None
    await advance(client, 1000 * HOUR, 1000 * HOUR)
    r = await gm(client, "afflictions.list", actor_id="act-aria")
    assert refs(r, "act-aria") == ["indefinite"]
    r = await gm(client, "affliction.cure", token_id="tok-aria", method="lesser_restoration")
    assert "does nothing" in text(r, "gm")
    r = await gm(client, "affliction.cure", token_id="tok-aria", method="greater_restoration")
    assert refs(r, "act-aria") == []


async def test_calm_emotions_suppresses_for_a_minute(client: SidecarClient) -> None:
    await setup(client)
    await gm(client, "madness.inflict", token_id="tok-aria", kind="long", roll=98)
    r = await gm(client, "affliction.cure", token_id="tok-aria", method="calm_emotions")
    assert statuses(r) == [("unconscious", False)]
    r = await advance(client, 60, 60)
    assert statuses(r) == [("unconscious", True)] and "returns" in text(r)


async def test_a_save_can_keep_madness_away(client: SidecarClient) -> None:
    await setup(client, party(aria={"saves": SAVE}))
    r = await gm(client, "madness.inflict", token_id="tok-aria", save={"ability": "cha", "dc": 15})
    assert "keeps their mind" in text(r) and state(r, "act-aria") is None


async def test_kind_is_rolled_when_not_given(client: SidecarClient) -> None:
    await setup(client)
    seen = set()
    for _ in range(12):
        r = await gm(client, "madness.inflict", token_id="tok-borin")
        assert "Kind of madness" in text(r)
        info = state(r, "act-borin")
        assert info is not None
        seen.add(info["afflictions"][-1]["ref"])
    assert seen <= {"short", "long", "indefinite"} and len(seen) >= 2
