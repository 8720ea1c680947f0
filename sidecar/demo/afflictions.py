"""The afflictions part: a poisoned dagger, a night with midnight tears, a week of plague."""

from __future__ import annotations

from sidecar.client import creature, token
from sidecar.demo import Demo
from sidecar.demo.core import SCENE, party

HOUR = 3600
DAY = 86400


async def _ensure_scene(demo: Demo) -> None:
    cutthroat = token(
        "tok-cutthroat", "Cutthroat", 400, 200, creature("act-cutthroat", "Cutthroat", hp=11, ac=12)
    )
    result = await demo.client.send({"type": "token.update", "scene_id": SCENE, "token": cutthroat})
    if result.ok:
        return
    await demo.send(
        {
            "type": "scene.sync",
            "scene": {
                "id": SCENE,
                "name": "Old crypt",
                "width": 3000,
                "height": 2000,
                "grid": {"size": 100, "distance": 5, "units": "ft"},
                "tokens": [*party(), cutthroat],
                "regions": [],
            },
        }
    )


async def play(demo: Demo) -> None:
    await _ensure_scene(demo)
    day0 = 10 * DAY
    await demo.send({"type": "time.advance", "world_time": day0 + 18 * HOUR, "delta": 0})

    demo.heading("A cutthroat's dagger is coated with drow poison")
    await demo.send(
        {
            "type": "gm.action",
            "action": "poison.coat",
            "params": {"actor_id": "act-cutthroat", "item_id": "dagger", "poison": "drow_poison"},
        }
    )
    await demo.send(
        {
            "type": "weapon.hit",
            "scene_id": SCENE,
            "attacker_token_id": "tok-cutthroat",
            "target_token_id": "tok-aria",
            "item_id": "dagger",
            "damage_types": ["piercing"],
        }
    )
    demo.say("Borin shakes Aria (if she fell asleep)")
    await demo.send(
        {
            "type": "gm.action",
            "action": "affliction.shake",
            "params": {"token_id": "tok-aria", "scene_id": SCENE},
        }
    )

    demo.heading("Borin's wine was laced with midnight tears; the party sleeps through the night")
    await demo.send(
        {
            "type": "gm.action",
            "action": "poison.administer",
            "params": {"token_id": "tok-borin", "scene_id": SCENE, "poison": "midnight_tears"},
        }
    )
    await demo.send({"type": "time.advance", "world_time": day0 + 26 * HOUR, "delta": 8 * HOUR})

    demo.heading("Aria is bitten by a plague rat: a week of sewer plague")
    for _ in range(6):  # the rat keeps biting until the plague takes hold
        result = await demo.send(
            {
                "type": "gm.action",
                "action": "disease.expose",
                "params": {"disease": "sewer_plague", "token_ids": ["tok-aria"], "scene_id": SCENE},
            }
        )
        if any(m["type"] == "state" and m["key"] == "act-aria" for m in result.messages):
            break
    now = day0 + 26 * HOUR
    for _ in range(7):
        now += DAY
        await demo.send({"type": "time.advance", "world_time": now, "delta": DAY})
        await demo.send(
            {
                "type": "rest.completed",
                "token_id": "tok-aria",
                "actor_id": "act-aria",
                "rest": "long",
            }
        )
    demo.heading("The GM's afflictions panel")
    await demo.send({"type": "gm.action", "action": "afflictions.list", "params": {}})
