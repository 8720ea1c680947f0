"""The traps part: a corridor of traps walked by the party.

Darts that fire as Aria crosses their plate and let her walk on, a hidden pit that stops
Borin mid-path, a statue breathing fire down the hall, and a net dropped by a trip wire.
"""

from __future__ import annotations

from typing import Any

from sidecar.client import creature, token
from sidecar.demo import Demo

SCENE = "demo-trap-corridor"
SQ = 100


def _rect(x: int, y: int, w: int = 1, h: int = 1) -> dict[str, Any]:
    return {"type": "rectangle", "x": x * SQ, "y": y * SQ, "width": w * SQ, "height": h * SQ}


def _region(
    rid: str, name: str, trap_id: str, *shapes: dict[str, Any], **placement: Any
) -> dict[str, Any]:
    return {
        "id": rid,
        "name": name,
        "shapes": list(shapes),
        "trap": {"trap_id": trap_id, **placement},
    }


def _party() -> list[dict[str, Any]]:
    return [
        token(
            "tr-aria",
            "Aria",
            0,
            0,
            creature(
                "act-aria",
                "Aria",
                hp=24,
                ac=15,
                owners=["player-1"],
                saves={"str": 0, "dex": 5, "con": 1, "int": 1, "wis": 2, "cha": 0},
                passive_perception=14,
                skills={"prc": 4, "inv": 2},
            ),
        ),
        token(
            "tr-borin",
            "Borin",
            0,
            2 * SQ,
            creature(
                "act-borin",
                "Borin",
                hp=31,
                ac=18,
                owners=["player-2"],
                saves={"str": 5, "dex": 0, "con": 5, "int": 0, "wis": 1, "cha": 1},
                damage_resistances=["fire"],
                passive_perception=11,
            ),
        ),
    ]


async def play(demo: Demo) -> None:
    demo.heading("Traps: a corridor")
    regions = [
        _region("tr-darts", "Loose stone", "poison_darts", _rect(4, 0)),
        _region("tr-pit", "Quiet floor", "hidden_pit", _rect(6, 2)),
        _region(
            "tr-statue",
            "Dragon statue plate",
            "fire_breathing_statue",
            _rect(14, 0, 1, 3),
            origin={"x": 20 * SQ, "y": 1.5 * SQ},
            direction=180,
        ),
        _region(
            "tr-net",
            "Low wire",
            "falling_net",
            {"type": "line", "points": [22 * SQ, 0, 22 * SQ, 3 * SQ]},
            origin={"x": 23 * SQ, "y": 1 * SQ},
        ),
    ]
    await demo.send(
        {
            "type": "scene.sync",
            "scene": {
                "id": SCENE,
                "name": "Trapped corridor",
                "width": 3000,
                "height": 400,
                "grid": {"size": SQ, "distance": 5, "units": "ft"},
                "tokens": _party(),
                "regions": regions,
                "walls": [],
            },
            "active": False,
        }
    )
    demo.say("a corridor with darts, a hidden pit, a fire-breathing statue and a net")
    demo.heading("Aria walks the whole corridor: darts, then the statue, then the net")
    await demo.send(
        {
            "type": "token.move",
            "scene_id": SCENE,
            "token_id": "tr-aria",
            "path": [{"x": 0, "y": 0}, {"x": 25 * SQ, "y": 0}],
        }
    )
    demo.heading("Borin follows in the lower lane and falls into the hidden pit mid-path")
    await demo.send(
        {
            "type": "token.move",
            "scene_id": SCENE,
            "token_id": "tr-borin",
            "path": [{"x": 0, "y": 2 * SQ}, {"x": 12 * SQ, "y": 2 * SQ}],
        }
    )
    demo.heading("Aria tries to cut free of the net")
    await demo.send(
        {
            "type": "gm.action",
            "action": "trap.escape",
            "params": {"scene_id": SCENE, "region_id": "tr-net", "token_id": "tr-aria"},
        }
    )
    demo.heading("The GM previews a generic deadly trap for level 7")
    await demo.send(
        {
            "type": "gm.action",
            "action": "trap.build",
            "params": {"severity": "deadly", "level": 7, "ability": "con", "damage_type": "acid"},
        }
    )
