"""The chase part: Aria and Borin chase a pickpocket through the streets (urban table)."""

from __future__ import annotations

from typing import Any

from sidecar.client import creature, token
from sidecar.demo import Demo
from sidecar.demo.core import SCENE, party

CHASE = "thief-chase"


def thief() -> dict[str, Any]:
    return token(
        "tok-thief",
        "Nimble Pip",
        900,
        200,
        creature(
            "act-thief",
            "Nimble Pip",
            hp=16,
            ac=14,
            abilities={"str": -1, "dex": 4, "con": 0, "int": 1, "wis": 0, "cha": 1},
            saves={"str": -1, "dex": 6, "con": 0, "int": 1, "wis": 0, "cha": 1},
            skills={"ste": 6, "acr": 6},
            passive_perception=12,
            speed=30,
        ),
    )


def _tracker(demo: Demo, result: Any) -> None:
    states = [m["data"] for m in result.of_type("state") if m["key"] == CHASE]
    if not states:
        return
    state = states[-1]
    rows = ", ".join(
        f"{p['name']} {p['position_ft']} ft ({p['status']}, dashes left {p['dashes_left']})"
        for p in state["participants"]
    )
    demo.say(
        f"tracker: round {state['round']}, leader {state['leader']}, "
        f"distances {state['distances']}; {rows}"
    )


async def play(demo: Demo) -> None:
    demo.heading("Chase: a pickpocket grabs Aria's purse and runs")
    for member in party():  # patched up after the earlier parts of the demo
        await demo.send({"type": "token.update", "scene_id": SCENE, "token": member})
    await demo.send({"type": "token.update", "scene_id": SCENE, "token": thief()})
    demo.say("the party is back on its feet; a thief token joins the scene")
    started = await demo.send(
        {
            "type": "gm.action",
            "action": "chase.start",
            "params": {
                "chase_id": CHASE,
                "scene_id": SCENE,
                "environment": "urban",
                "distance_ft": 90,
                "in_sight": True,
                "sight_range_ft": 100,
                "quarries": [{"token_id": "tok-thief", "factors": ["crowded"]}],
                "pursuers": [{"token_id": "tok-aria"}, {"token_id": "tok-borin"}],
            },
        }
    )
    _tracker(demo, started)

    demo.heading("The GM asks for the escape odds")
    odds = await demo.send(
        {
            "type": "gm.action",
            "action": "chase.odds",
            "params": {"chase_id": CHASE, "trials": 10_000},
        }
    )
    for message in odds.of_type("state"):
        for row in message["data"].get("odds", {}).values():
            demo.say(
                f"odds for {row['name']}: escape within 1/3/10 rounds "
                f"{row['escape']['1']:.0%}/{row['escape']['3']:.0%}/"
                f"{row['escape']['10']:.0%}, caught {row['caught']['10']:.0%}"
            )

    demo.heading("Borin stops dashing to throw a handaxe this turn")
    await demo.send(
        {
            "type": "gm.action",
            "action": "chase.dash_choice",
            "params": {"chase_id": CHASE, "token_id": "tok-borin", "dash": False},
        }
    )

    for step in range(15):
        result = await demo.client.send(
            {"type": "gm.action", "action": "chase.next_turn", "params": {"chase_id": CHASE}}
        )
        if not result.ok:
            break
        demo.heading(f"Chase turn {step + 1}")
        demo.show(result)
        _tracker(demo, result)
        offers = [c for c in result.cards if c["data"].get("actions")]
        if offers:
            action = offers[0]["data"]["actions"][0]
            demo.heading("The GM confirms the catch")
            await demo.send(
                {"type": "gm.action", "action": action["action"], "params": action["params"]}
            )
            return
        states = [m["data"] for m in result.of_type("state") if m["key"] == CHASE]
        if states and states[-1]["status"] != "running":
            return
    demo.heading("The pursuers give up")
    await demo.send(
        {
            "type": "gm.action",
            "action": "chase.give_up",
            "params": {"chase_id": CHASE, "side": "pursuers"},
        }
    )
