"""The core part: a scene with two adventurers, a move, and a forced save with damage."""

from __future__ import annotations

from sidecar.client import creature, token
from sidecar.demo import Demo

SCENE = "demo-scene"


def party() -> list[dict[str, object]]:
    return [
        token(
            "tok-aria",
            "Aria",
            200,
            200,
            creature(
                "act-aria",
                "Aria",
                hp=24,
                ac=15,
                owners=["player-1"],
                saves={"str": 0, "dex": 5, "con": 1, "int": 1, "wis": 2, "cha": 0},
                passive_perception=14,
                skills={"prc": 4, "ste": 7, "inv": 2},
            ),
        ),
        token(
            "tok-borin",
            "Borin",
            300,
            200,
            creature(
                "act-borin",
                "Borin",
                hp=31,
                ac=18,
                owners=["player-2"],
                saves={"str": 5, "dex": 0, "con": 5, "int": 0, "wis": 1, "cha": 1},
                damage_resistances=["fire"],
                passive_perception=11,
                race="dwarf",
            ),
        ),
    ]


async def play(demo: Demo) -> None:
    demo.heading("Scene sync")
    await demo.send(
        {
            "type": "scene.sync",
            "scene": {
                "id": SCENE,
                "name": "Old crypt",
                "width": 3000,
                "height": 2000,
                "grid": {"size": 100, "distance": 5, "units": "ft"},
                "tokens": party(),
                "regions": [],
            },
        }
    )
    demo.say("scene 'Old crypt' with Aria and Borin")
    demo.heading("Aria walks down the hall")
    await demo.send(
        {
            "type": "token.move",
            "scene_id": SCENE,
            "token_id": "tok-aria",
            "path": [{"x": 200, "y": 200}, {"x": 600, "y": 200}],
        }
    )
    demo.say("Aria moved 20 ft (nothing there)")
    demo.heading("The GM calls for a Dexterity save: DC 15, 4d10 fire, half on success")
    await demo.send(
        {
            "type": "gm.action",
            "action": "save.force",
            "params": {
                "scene_id": SCENE,
                "token_ids": ["tok-aria", "tok-borin"],
                "ability": "dex",
                "dc": 15,
                "damage": [{"formula": "4d10", "type": "fire"}],
                "title": "Gout of flame",
            },
        }
    )
