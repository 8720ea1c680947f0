"""Chase scenarios over the real protocol (a real sidecar, a real SQLite file).

Dice are forced where a scenario needs a particular result: complications through the GM
override ``complication_roll`` ("the GM rolled physical dice"), saves and checks by giving
creatures bonuses far beyond what a d20 can overturn (+50 always passes, -50 always fails).
"""

from __future__ import annotations

from typing import Any

import pytest

from sidecar.client import SidecarClient
from tests.test_chase_helpers import (
    chase_state,
    facts,
    gm,
    ops,
    person,
    runner,
    scene,
    start,
    texts,
    turn,
)

NONE = 12  # an urban d12 face without a complication


async def full_round(client: SidecarClient, n: int, chase_id: str = "c1", **params: Any) -> Any:
    result = None
    for _ in range(n):
        result = await turn(
            client,
            chase_id,
            complication_roll=params.get("roll", NONE),
            **{k: v for k, v in params.items() if k != "roll"},
        )
    return result


# ---------------------------------------------------------------- dashes and exhaustion


@pytest.mark.parametrize(("con", "free"), [(-1, 2), (0, 3), (3, 6), (-5, 1)])
async def test_free_dashes_are_three_plus_con_at_least_one(
    client: SidecarClient, con: int, free: int
) -> None:
    await scene(client, runner("thief", con=con), runner("aria"))
    state = chase_state(await start(client, ["thief"], ["aria"]))
    assert person(state, "thief")["free_dashes"] == free
    assert person(state, "thief")["dashes_left"] == free


async def test_extra_dash_needs_a_con_save_and_a_failure_adds_exhaustion(
    client: SidecarClient,
) -> None:
    # Con -1: two free dashes. The quarry always fails its Con save, the pursuer always passes.
    await scene(
        client,
        runner("thief", con=-1, save=-50, speed=30),
        runner("aria", con=-1, save=50, speed=30, passive=30),
    )
    await start(client, ["thief"], ["aria"], distance_ft=500)
    for _ in range(2):
        result = await full_round(client, 2)
        assert not ops(result, "exhaustion")
    third = await turn(client, complication_roll=NONE)  # the thief's third dash
    assert ops(third, "exhaustion") == [
        {"op": "exhaustion", "token_id": "thief", "actor_id": "act-thief", "level": 1}
    ]
    saves = facts(third, "save")
    assert [(f["ability"], f["dc"], f["success"]) for f in saves] == [("con", 10, False)]
    thief = person(chase_state(third), "thief")
    assert thief["exhaustion"] == 1 and thief["exhaustion_gained"] == 1
    aria_turn = await turn(client, complication_roll=NONE)  # her third dash: save passes
    assert [f["success"] for f in facts(aria_turn, "save")] == [True]
    assert not ops(aria_turn, "exhaustion")
    assert person(chase_state(aria_turn), "aria")["exhaustion_gained"] == 0


async def test_not_dashing_spends_no_dash(client: SidecarClient) -> None:
    await scene(client, runner("thief", con=-3), runner("aria"))
    await start(client, ["thief"], ["aria"], distance_ft=100)
    await gm(client, "chase.dash_choice", chase_id="c1", token_id="thief", dash=False)
    result = await turn(client, complication_roll=NONE)
    thief = person(chase_state(result), "thief")
    assert thief["dashes_used"] == 0 and thief["position_ft"] == 130
    assert thief["dash_next"] is True  # the choice lasts one turn


async def test_drop_out_at_exhaustion_five(client: SidecarClient) -> None:
    # Already at level 4 with one free dash: the second dash's failed save makes it 5.
    await scene(
        client,
        runner("thief", speed=30, passive=10),
        runner("aria", con=-5, save=-50, exhaustion=4, speed=60),
    )
    await start(client, ["thief"], ["aria"], distance_ft=2000)
    await full_round(client, 2)
    await turn(client, complication_roll=NONE)
    result = await turn(client, complication_roll=NONE)
    assert ops(result, "exhaustion")[-1]["level"] == 5
    state = chase_state(result)
    assert person(state, "aria")["status"] == "out"
    assert state["status"] == "ended" and state["end_reason"] == "pursuers_out"
    assert "drops out" in texts(result)


async def test_rest_removes_only_the_exhaustion_gained_in_the_chase(
    client: SidecarClient,
) -> None:
    # One level from elsewhere, then two more from extra dashes (one free dash, Con always fails).
    await scene(
        client,
        runner("thief", con=-5, save=-50, exhaustion=1, speed=30),
        runner("aria", speed=30),
    )
    await start(client, ["thief"], ["aria"], distance_ft=1000)
    last = None
    for _ in range(3):
        last = await full_round(client, 2)
    assert last is not None
    assert person(chase_state(last), "thief")["exhaustion"] == 3
    assert person(chase_state(last), "thief")["exhaustion_gained"] == 2
    await gm(client, "chase.end", chase_id="c1")
    rest = await client.send(
        {"type": "rest.completed", "actor_id": "act-thief", "token_id": "thief", "rest": "short"}
    )
    assert rest.ok
    assert ops(rest, "exhaustion") == [
        {"op": "exhaustion", "token_id": "thief", "actor_id": "act-thief", "level": 1}
    ]
    again = await client.send(
        {"type": "rest.completed", "actor_id": "act-thief", "token_id": "thief", "rest": "long"}
    )
    assert not ops(again, "exhaustion")  # the level from elsewhere is not ours to remove


# ---------------------------------------------------------------- complications


async def test_complication_hits_the_next_participant_and_wraps(client: SidecarClient) -> None:
    # Order: thief (20), aria (10), borin (9). Everyone fails Dex saves.
    await scene(
        client,
        runner("thief", save=-50),
        runner("aria", save=-50),
        runner("borin", save=-50),
    )
    await start(client, ["thief"], ["aria", "borin"], distance_ft=300)
    first = await turn(client, complication_roll=4)  # the thief rolls slippery ground
    assert [op["token_id"] for op in ops(first, "status")] == ["aria"]
    await turn(client, complication_roll=NONE)  # aria
    last = await turn(client, complication_roll=4)  # borin, the last: it wraps to the thief
    assert [op["token_id"] for op in ops(last, "status") if op["active"]] == ["thief"]
    log = chase_state(last)["log"]
    assert [(e["roller"], e["target"]) for e in log if e["target"]] == [
        ("thief", "aria"),
        ("borin", "thief"),
    ]


async def test_a_complication_skips_those_out_of_the_chase(client: SidecarClient) -> None:
    await scene(
        client, runner("thief", save=-50), runner("aria", save=-50), runner("borin", save=-50)
    )
    await start(client, ["thief"], ["aria", "borin"], distance_ft=300)
    await gm(client, "chase.give_up", chase_id="c1", side="pursuers", token_ids=["aria"])
    result = await turn(client, complication_roll=4)
    assert [op["token_id"] for op in ops(result, "status")] == ["borin"]


def _fact_kinds(result: Any) -> set[str]:
    kinds = {f["fact"] for c in result.cards for f in c["data"].get("facts", [])}
    kinds |= {"save"} if facts(result, "save") else set()
    return kinds | {op["op"] for op in result.ops}


# (table, face): what must follow when the victim fails every save and check
URBAN = {
    1: {"save", "difficult_terrain"},
    2: {"save", "difficult_terrain"},
    3: {"save", "difficult_terrain"},
    4: {"save", "condition", "status"},
    5: {"save", "damage", "difficult_terrain"},
    6: {"save", "damage"},
}
WILDERNESS = {
    1: {"attack"},
    2: {"save", "difficult_terrain"},
    3: {"save", "chase_blind", "status"},
    4: {"save", "damage", "condition", "status"},
    5: {"lose_movement"},
    6: {"save", "join_as_pursuer"},
}
URBAN_2014 = {
    1: {"check", "difficult_terrain"},
    2: {"check", "difficult_terrain"},
    3: {"save", "condition", "status"},
    4: {"check", "difficult_terrain"},
    5: {"save", "condition", "status"},
    6: {"check", "damage", "difficult_terrain"},
    7: {"check", "damage", "difficult_terrain"},
    8: {"check", "difficult_terrain"},
    9: {"attack"},
    10: {"save", "damage"},
}
WILDERNESS_2014 = {
    1: {"check", "difficult_terrain"},
    2: {"check", "difficult_terrain"},
    3: {"attack"},
    4: {"check", "difficult_terrain"},
    5: {"save", "chase_blind", "status"},
    6: {"save", "damage", "condition", "status"},
    7: {"save", "lose_movement"},
    8: {"save", "damage"},
    9: {"lose_movement"},
    10: {"join_as_pursuer"},
}
CASES = [
    (table, face, expected)
    for table, rows in (
        ("urban", URBAN),
        ("wilderness", WILDERNESS),
        ("urban-2014", URBAN_2014),
        ("wilderness-2014", WILDERNESS_2014),
    )
    for face, expected in rows.items()
]


@pytest.mark.parametrize(("table", "face", "expected"), CASES)
async def test_each_complication_of_both_tables(
    client: SidecarClient, table: str, face: int, expected: set[str]
) -> None:
    hopeless = {"ath": -50, "acr": -50, "itm": -50}
    await scene(
        client,
        runner("aria", save=-50, skills=hopeless, ac=0, mods={"int": -50}),
        runner("thief", save=-50, dex=-50, skills=hopeless, ac=0),
    )
    await start(client, ["thief"], ["aria"], environment=table, distance_ft=400)
    result = await turn(client, complication_roll=face)  # the thief rolls, aria is hit
    kinds = _fact_kinds(result)
    if "attack" in expected:
        hit = [
            f for c in result.cards for f in c["data"].get("facts", []) if f["fact"] == "attack"
        ][0]["hit"]
        if hit:
            expected = expected | {"damage"}
    assert expected <= kinds, (expected - kinds, kinds)
    state = chase_state(result)
    aria = person(state, "aria")
    assert [e["target"] for e in state["log"]] == ["aria"]
    if "difficult_terrain" in expected:
        assert aria["difficult_ft"] > 0
    if "lose_movement" in expected:
        assert aria["lose_ft"] > 0
    if "chase_blind" in expected:
        assert aria["blinded_this_turn"]
    if "join_as_pursuer" in expected:
        # aria is a pursuer: the creature hunts her in a new chase beside this one
        reversed_states = [m["data"] for m in result.of_type("state") if m["key"] != "c1"]
        assert reversed_states
        roles = {p["name"]: p["role"] for p in reversed_states[-1]["participants"]}
        assert roles["Aria"] == "quarry" and "pursuer" in roles.values()


async def test_complication_effects_shape_the_victims_next_move(client: SidecarClient) -> None:
    await scene(client, runner("thief", save=-50), runner("aria", save=-50, speed=30))
    await start(client, ["thief"], ["aria"], environment="wilderness", distance_ft=500)
    await turn(client, complication_roll=3)  # blowing sand: aria blinded
    blinded = await turn(client, complication_roll=NONE)
    assert person(chase_state(blinded), "aria")["position_ft"] == 30  # 15 ft speed, dashing
    released = [op for op in ops(blinded, "status") if op["status"] == "blinded"]
    assert released and released[-1]["active"] is False
    await turn(client, complication_roll=4)  # sudden drop: aria falls prone
    fallen = await turn(client, complication_roll=NONE)
    # 60 ft dashing, minus 15 ft to stand up
    assert person(chase_state(fallen), "aria")["position_ft"] == 30 + 45


async def test_native_creature_joins_as_a_pursuer_of_a_quarry(client: SidecarClient) -> None:
    await scene(client, runner("thief", save=-50), runner("aria"), runner("borin", save=-50))
    await start(client, ["thief"], ["aria", "borin"], environment="wilderness", distance_ft=300)
    await turn(client, complication_roll=NONE)  # thief
    await turn(client, complication_roll=NONE)  # aria
    result = await turn(client, complication_roll=6)  # borin's roll wraps to the thief
    state = chase_state(result)
    wolves = [p for p in state["participants"] if p["name"] == "Wolf"]
    assert len(wolves) == 1 and wolves[0]["role"] == "pursuer"
    assert wolves[0]["position_ft"] == person(state, "thief")["position_ft"] - 30


async def test_gm_picks_the_best_or_the_worst_save(client: SidecarClient) -> None:
    saves = {"str": 5, "dex": -3, "cha": 1}
    await scene(client, runner("thief"), runner("aria", saves=saves))
    await start(client, ["thief"], ["aria"], distance_ft=300)
    best = await turn(client, complication_roll=2)  # crowd: Str, Dex or Cha
    assert [f["ability"] for f in facts(best, "save")] == ["str"]
    assert "best of the allowed saves" in texts(best)
    await client.send({"type": "settings.update", "settings": {"gm_picks_ability": "worst"}})
    await turn(client, complication_roll=NONE)
    worst = await turn(client, complication_roll=2)
    assert [f["ability"] for f in facts(worst, "save")] == ["dex"]
    assert "worst of the allowed saves" in texts(worst)


async def test_forced_roll_is_marked_for_the_gm_only(client: SidecarClient) -> None:
    await scene(client, runner("thief"), runner("aria"))
    await start(client, ["thief"], ["aria"], distance_ft=300)
    result = await turn(client, complication_roll=NONE)
    assert "physical dice" in texts(result, "gm")
    assert "physical dice" not in texts(result, "public")
    assert chase_state(result)["log"][0]["forced"] is True
    bad = await gm(client, "chase.next_turn", chase_id="c1", complication_roll=13)
    assert bad.reply["type"] == "error" and "1-12" in bad.reply["message"]


# ---------------------------------------------------------------- escaping


async def test_escape_needs_strictly_more_than_the_best_passive_perception(
    client: SidecarClient,
) -> None:
    # Stealth +0 against passive Perception 19 and 12: the threshold is 19, so only a 20
    # escapes and a 19 (a tie) does not. Nobody dashes, so nobody tires.
    await scene(
        client,
        runner("thief", stealth=0),
        runner("aria", passive=19),
        runner("borin", passive=12),
    )
    checks: list[dict[str, Any]] = []
    chase_no = 0
    while not any(c["total"] == 19 for c in checks) or not any(c["escaped"] for c in checks):
        chase_no += 1
        assert chase_no < 200, "no tie and no escape in 200 chases"
        cid = f"s{chase_no}"
        await start(
            client, ["thief"], ["aria", "borin"], chase_id=cid, distance_ft=2000, in_sight=False
        )
        for _ in range(3):
            result = await turn(client, cid, complication_roll=NONE, dash=False)
        checks += facts(result, "escape_check")
        if chase_state(result, cid)["status"] == "running":
            await gm(client, "chase.end", chase_id=cid)
    assert all(c["threshold"] == 19 for c in checks)
    assert all(c["escaped"] == (c["total"] > 19) for c in checks)
    assert [c["escaped"] for c in checks if c["total"] == 19] == [False] * sum(
        1 for c in checks if c["total"] == 19
    )


async def test_a_quarry_seen_all_round_fails_automatically(client: SidecarClient) -> None:
    await scene(client, runner("thief", stealth=50), runner("aria", passive=1))
    await start(client, ["thief"], ["aria"], distance_ft=300, in_sight=True)
    seen = await full_round(client, 2)
    assert not facts(seen, "escape_check")
    assert "stayed in sight all round" in texts(seen)
    assert person(chase_state(seen), "thief")["status"] == "active"
    await gm(client, "chase.sight", chase_id="c1", token_id="thief", in_sight=False)
    await gm(client, "chase.sight", chase_id="c1", token_id="thief", in_sight=True)
    lost_once = await full_round(client, 2)  # out of sight for a moment: it may check
    assert [f["escaped"] for f in facts(lost_once, "escape_check")] == [True]


async def test_sight_range_decides_sight_when_set(client: SidecarClient) -> None:
    await scene(client, runner("thief", stealth=50, speed=60), runner("aria", passive=1))
    await start(client, ["thief"], ["aria"], distance_ft=50, in_sight=True, sight_range_ft=80)
    result = await full_round(client, 2)  # thief 50 -> 170, aria 0 -> 60: gap 110 > 80
    assert [f["escaped"] for f in facts(result, "escape_check")] == [True]


@pytest.mark.parametrize(
    ("factors", "formula"),
    [
        (["crowded"], "2d20kh1"),
        (["open_area"], "2d20kl1"),
        (["crowded", "open_area"], "1d20"),
        (["crowded", "many_hiding_spots", "open_area"], "1d20"),
        ([{"id": "lantern", "mode": "disadvantage", "note": "carries a lantern"}], "2d20kl1"),
    ],
)
async def test_escape_factors_give_advantage_disadvantage_or_cancel(
    client: SidecarClient, factors: list[Any], formula: str
) -> None:
    await scene(client, runner("thief", stealth=3), runner("aria", passive=12))
    await start(
        client,
        [{"token_id": "thief", "initiative": 20, "factors": factors}],
        ["aria"],
        distance_ft=300,
        in_sight=False,
    )
    result = await full_round(client, 2)
    checks = facts(result, "escape_check")
    assert len(checks) == 1
    end_card = [c for c in result.cards if "end of round" in c["title"]][0]
    assert end_card["rolls"][0]["formula"].startswith(formula)
    assert checks[0]["mode"] == {"2d20kh1": 1, "2d20kl1": -1, "1d20": 0}[formula]


async def test_exhaustion_gives_disadvantage_on_the_stealth_check(client: SidecarClient) -> None:
    await scene(client, runner("thief", stealth=3, exhaustion=1), runner("aria", passive=12))
    await start(
        client,
        [{"token_id": "thief", "initiative": 20, "factors": ["crowded"]}],
        ["aria"],
        distance_ft=300,
        in_sight=False,
    )
    result = await full_round(client, 2, dash=False)
    end_card = [c for c in result.cards if "end of round" in c["title"]][0]
    assert end_card["rolls"][0]["formula"].startswith("1d20")  # advantage + exhaustion cancel


async def test_two_quarries_check_separately(client: SidecarClient) -> None:
    await scene(
        client,
        runner("thief", stealth=50),
        runner("lookout", stealth=-50),
        runner("aria", passive=15),
    )
    await start(client, ["thief", "lookout"], ["aria"], distance_ft=300, in_sight=False)
    result = await full_round(client, 3)
    outcome = {f["quarry"]: f["escaped"] for f in facts(result, "escape_check")}
    assert outcome == {"thief": True, "lookout": False}
    state = chase_state(result)
    assert state["status"] == "running"
    assert person(state, "thief")["status"] == "escaped"
    assert person(state, "lookout")["status"] == "active"


async def test_all_quarries_escaping_ends_the_chase(client: SidecarClient) -> None:
    await scene(client, runner("thief", stealth=50), runner("aria", passive=10))
    await start(client, ["thief"], ["aria"], distance_ft=300, in_sight=False)
    result = await full_round(client, 2)
    state = chase_state(result)
    assert state["status"] == "ended" and state["end_reason"] == "all_escaped"
    after = await gm(client, "chase.next_turn", chase_id="c1")
    assert after.reply["type"] == "error"


# ---------------------------------------------------------------- catching


async def test_a_pursuer_within_reach_is_offered_the_catch(client: SidecarClient) -> None:
    await scene(client, runner("thief", speed=30), runner("aria", speed=60))
    await start(client, ["thief"], ["aria"], distance_ft=20)
    early = await gm(client, "chase.catch", chase_id="c1", pursuer="aria", quarry="thief")
    assert early.reply["type"] == "error"
    await turn(client, complication_roll=NONE)  # thief: 20 -> 80
    reached = await turn(client, complication_roll=NONE)  # aria: 0 -> 75, stops beside him
    assert person(chase_state(reached), "aria")["position_ft"] == 75
    offer = [c for c in reached.cards if c["visibility"] == "gm" and c["data"].get("actions")]
    assert offer and offer[0]["data"]["actions"][0]["action"] == "chase.catch"
    assert chase_state(reached)["offers"] == [{"pursuer": "aria", "quarry": "thief", "round": 1}]
    caught = await gm(client, "chase.catch", **offer[0]["data"]["actions"][0]["params"])
    assert caught.ok
    state = chase_state(caught)
    assert person(state, "thief")["status"] == "caught"
    assert state["status"] == "ended" and state["end_reason"] == "all_caught"


async def test_the_quarry_moving_away_withdraws_the_offer(client: SidecarClient) -> None:
    await scene(client, runner("thief", speed=30), runner("aria", speed=60))
    await start(client, ["thief"], ["aria"], distance_ft=20, in_sight=True)
    await full_round(client, 2)
    moved = await turn(client, complication_roll=NONE)
    assert chase_state(moved)["offers"] == []
    late = await gm(client, "chase.catch", chase_id="c1", pursuer="aria", quarry="thief")
    assert late.reply["type"] == "error"
    forced = await gm(
        client, "chase.catch", chase_id="c1", pursuer="aria", quarry="thief", force=True
    )
    assert forced.ok


# ---------------------------------------------------------------- endings


async def test_giving_up(client: SidecarClient) -> None:
    await scene(client, runner("thief"), runner("aria"), runner("borin"))
    await start(client, ["thief"], ["aria", "borin"])
    one = await gm(client, "chase.give_up", chase_id="c1", side="pursuers", token_ids=["aria"])
    assert chase_state(one)["status"] == "running"
    assert chase_state(one)["leader"] == "borin"
    both = await gm(client, "chase.give_up", chase_id="c1", side="pursuers")
    state = chase_state(both)
    assert state["end_reason"] == "pursuers_gave_up"
    assert person(state, "thief")["status"] == "escaped"


async def test_quarries_giving_up_end_the_chase(client: SidecarClient) -> None:
    await scene(client, runner("thief"), runner("aria"))
    await start(client, ["thief"], ["aria"])
    result = await gm(client, "chase.give_up", chase_id="c1", side="quarries")
    assert chase_state(result)["end_reason"] == "quarries_gave_up"


# ---------------------------------------------------------------- split, join, reversal


async def test_split_keeps_initiative_and_tracks_distances_separately(
    client: SidecarClient,
) -> None:
    await scene(
        client,
        runner("thief", speed=30),
        runner("fence", speed=40),
        runner("aria", speed=30),
        runner("borin", speed=25),
    )
    await start(client, ["thief", "fence"], ["aria", "borin"], distance_ft=60)
    await full_round(client, 4)
    result = await gm(
        client,
        "chase.split",
        chase_id="c1",
        groups=[
            {"chase_id": "north", "quarries": ["thief"], "pursuers": ["aria"]},
            {"chase_id": "south", "quarries": ["fence"], "pursuers": ["borin"]},
        ],
    )
    assert result.ok, result.reply
    original = chase_state(result, "c1")
    assert original["status"] == "ended" and original["end_reason"] == "split"
    assert original["children"] == ["north", "south"]
    north, south = chase_state(result, "north"), chase_state(result, "south")
    assert [p["id"] for p in north["participants"]] == ["thief", "aria"]
    assert person(north, "thief")["initiative"] == 20 and person(north, "aria")["initiative"] == 10
    assert north["distances"] == {"thief": 120 - 60}
    assert south["distances"] == {"fence": 140 - 50}
    step = await turn(client, "south", complication_roll=NONE)
    assert person(chase_state(step, "south"), "fence")["position_ft"] == 220
    assert not [m for m in step.of_type("state") if m["key"] == "north"]


async def test_split_group_without_pursuers_gets_away(client: SidecarClient) -> None:
    await scene(client, runner("thief"), runner("fence"), runner("aria"))
    await start(client, ["thief", "fence"], ["aria"])
    result = await gm(
        client,
        "chase.split",
        chase_id="c1",
        groups=[
            {"chase_id": "a", "quarries": ["thief"], "pursuers": ["aria"]},
            {"chase_id": "b", "quarries": ["fence"]},
        ],
    )
    assert chase_state(result, "b")["end_reason"] == "all_escaped"
    missing = await gm(
        client,
        "chase.split",
        chase_id="a",
        groups=[{"quarries": ["thief"], "pursuers": []}, {"quarries": ["thief"]}],
    )
    assert missing.reply["type"] == "error"


async def test_role_reversal_runs_two_chases_at_once(client: SidecarClient) -> None:
    await scene(
        client, runner("thief"), runner("aria"), runner("borin"), runner("thug", speed=30, dex=3)
    )
    await start(client, ["thief"], ["aria", "borin"], distance_ft=60)
    reversed_ = await gm(
        client,
        "chase.reverse",
        chase_id="c1",
        new_chase_id="guild",
        quarries=["aria"],
        pursuers=[{"token_id": "thug"}],
        distance_ft=40,
    )
    assert reversed_.ok, reversed_.reply
    guild = chase_state(reversed_, "guild")
    assert person(guild, "aria")["role"] == "quarry"
    assert person(guild, "aria")["initiative"] == 10  # kept
    thug = person(guild, "thug")
    assert thug["role"] == "pursuer"
    rolled = ops(reversed_, "initiative.set")
    assert (
        rolled and rolled[0]["token_id"] == "thug" and rolled[0]["initiative"] == thug["initiative"]
    )
    assert guild["distances"] == {"aria": 40}
    original = chase_state(reversed_, "c1")
    assert original["status"] == "running"
    assert person(original, "aria")["role"] == "pursuer"
    a = await turn(client, "c1", complication_roll=NONE)
    b = await turn(client, "guild", complication_roll=NONE)
    assert a.ok and b.ok


async def test_the_quarry_turns_on_its_pursuers(client: SidecarClient) -> None:
    await scene(client, runner("thief"), runner("aria"), runner("thug"))
    await start(client, ["thief"], ["aria"])
    result = await gm(
        client,
        "chase.reverse",
        chase_id="c1",
        new_chase_id="turned",
        quarries=["aria"],
        pursuers=[{"token_id": "thief"}, {"token_id": "thug", "initiative": 5}],
        end_original=True,
    )
    assert chase_state(result, "c1")["status"] == "ended"
    turned = chase_state(result, "turned")
    assert {p["id"]: p["role"] for p in turned["participants"]} == {
        "thief": "pursuer",
        "aria": "quarry",
        "thug": "pursuer",
    }


async def test_join_rolls_initiative_for_new_arrivals(client: SidecarClient) -> None:
    await scene(client, runner("thief"), runner("aria"), runner("thug", dex=2))
    await start(client, ["thief"], ["aria"], distance_ft=60)
    result = await gm(
        client,
        "chase.join",
        chase_id="c1",
        participants=[{"token_id": "thug", "role": "pursuer", "distance_ft": 10}],
    )
    state = chase_state(result)
    thug = person(state, "thug")
    assert thug["position_ft"] == -10
    assert ops(result, "initiative.set")[0]["initiative"] == thug["initiative"]
    assert "rolls initiative" in texts(result)
    again = await gm(
        client, "chase.join", chase_id="c1", participants=[{"token_id": "thug", "role": "pursuer"}]
    )
    assert again.reply["type"] == "error"


async def test_start_rolls_initiative_for_those_without(client: SidecarClient) -> None:
    await scene(client, runner("thief", dex=4), runner("aria"))
    result = await gm(
        client,
        "chase.start",
        chase_id="c1",
        scene_id="chase-scene",
        quarries=[{"token_id": "thief"}],
        pursuers=[{"token_id": "aria", "initiative": 12}],
    )
    rolled = ops(result, "initiative.set")
    assert [op["token_id"] for op in rolled] == ["thief"]
    assert 5 <= rolled[0]["initiative"] <= 24
    assert person(chase_state(result), "aria")["initiative"] == 12


async def test_combat_turns_drive_the_chase(client: SidecarClient) -> None:
    await scene(client, runner("thief", stealth=50), runner("aria", passive=10))
    combatants = [
        {"combatant_id": "cb-thief", "token_id": "thief", "initiative": 18},
        {"combatant_id": "cb-aria", "token_id": "aria", "initiative": 11},
    ]
    await client.send(
        {
            "type": "combat.start",
            "combat_id": "fight",
            "scene_id": "chase-scene",
            "combatants": combatants,
        }
    )
    started = await gm(
        client,
        "chase.start",
        chase_id="c1",
        scene_id="chase-scene",
        combat_id="fight",
        quarries=[{"token_id": "thief"}],
        pursuers=[{"token_id": "aria"}],
        distance_ft=100,
        in_sight=False,
    )
    assert not ops(started, "initiative.set")  # known from the combat
    assert person(chase_state(started), "thief")["initiative"] == 18

    async def combat_turn(rnd: int, turn_no: int, token: str) -> Any:
        return await client.send(
            {
                "type": "combat.turn",
                "combat_id": "fight",
                "current": {
                    "round": rnd,
                    "turn": turn_no,
                    "token_id": token,
                    "combatant_id": f"cb-{token}",
                },
                "combatants": combatants,
            }
        )

    first = await combat_turn(1, 0, "thief")
    assert person(chase_state(first), "thief")["position_ft"] == 160
    second = await combat_turn(1, 1, "aria")
    assert facts(second, "escape_check")  # everyone acted: the round ended
    assert chase_state(second)["end_reason"] == "all_escaped"


async def test_several_chases_in_one_world(client: SidecarClient) -> None:
    await scene(client, runner("thief"), runner("aria"), runner("rat"), runner("borin"))
    await start(client, ["thief"], ["aria"], chase_id="one")
    await start(client, ["rat"], ["borin"], chase_id="two", environment="wilderness")
    a = await turn(client, "one", complication_roll=NONE)
    b = await turn(client, "two", complication_roll=NONE)
    assert chase_state(a, "one")["table"] == "urban"
    assert chase_state(b, "two")["table"] == "wilderness"
    duplicate = await gm(
        client,
        "chase.start",
        chase_id="one",
        scene_id="chase-scene",
        quarries=[{"token_id": "thief"}],
        pursuers=[{"token_id": "aria"}],
    )
    assert duplicate.reply["type"] == "error"


# ---------------------------------------------------------------- map, odds, tracker


async def test_map_obstacle_stops_a_runner_on_a_branch(client: SidecarClient) -> None:
    hopeless = {"ath": -50, "acr": -50}
    await scene(client, runner("thief", speed=60, skills=hopeless), runner("aria"))
    await start(client, ["thief"], ["aria"], map_id="market-district", distance_ft=100)
    await gm(client, "chase.route", chase_id="c1", token_id="thief", segment="alley")
    result = await turn(client, complication_roll=NONE)
    thief = person(chase_state(result), "thief")
    assert thief["segment"] == "alley"
    assert thief["position_ft"] == 120 + 40  # stopped at the fence
    assert "board fence" in texts(result)


async def test_odds_are_reported_on_a_gm_card_and_in_the_tracker(client: SidecarClient) -> None:
    await scene(client, runner("thief", stealth=4), runner("aria", passive=13))
    await start(client, ["thief"], ["aria"], distance_ft=60, in_sight=False)
    result = await gm(client, "chase.odds", chase_id="c1", trials=2000)
    assert result.ok
    assert [c["visibility"] for c in result.cards] == ["gm"]
    odds = chase_state(result)["odds"]["thief"]
    assert 0 < odds["escape"]["1"] <= odds["escape"]["3"] <= odds["escape"]["10"] <= 1
    again = await gm(client, "chase.odds", chase_id="c1", trials=2000)
    assert again.ok and chase_state(again)["odds"]["thief"]["escape"]


async def test_every_change_sends_tracker_state(client: SidecarClient) -> None:
    await scene(client, runner("thief"), runner("aria"))
    await start(client, ["thief"], ["aria"])
    for action, params in [
        ("chase.dash_choice", {"token_id": "aria", "dash": False}),
        ("chase.sight", {"token_id": "thief", "in_sight": False}),
        ("chase.factors", {"token_id": "thief", "factors": ["crowded"]}),
        ("chase.state", {}),
    ]:
        result = await gm(client, action, chase_id="c1", **params)
        assert result.ok, result.reply
        state = chase_state(result)
        assert {"participants", "leader", "distances", "log", "round"} <= set(state)
    assert person(state, "thief")["factors"][0]["id"] == "crowded"
    assert person(state, "aria")["dash_next"] is False


async def test_unknown_chase_table_and_factor_are_rule_errors(client: SidecarClient) -> None:
    await scene(client, runner("thief"), runner("aria"))
    bad_table = await gm(
        client,
        "chase.start",
        scene_id="chase-scene",
        environment="moon",
        quarries=[{"token_id": "thief"}],
        pursuers=[{"token_id": "aria"}],
    )
    assert bad_table.reply["code"] == "rule_error" and "moon" in bad_table.reply["message"]
    bad_factor = await gm(
        client,
        "chase.start",
        scene_id="chase-scene",
        quarries=[{"token_id": "thief", "factors": ["fog"]}],
        pursuers=[{"token_id": "aria"}],
    )
    assert bad_factor.reply["code"] == "rule_error"


async def test_cards_are_translated(server: Any) -> None:
    for language, word in (("ru", "Погоня"), ("zh-CN", "追逐")):
        client = await server.connected(language=language)
        client.prefix = f"ev-{language}"
        try:
            await scene(client, runner("thief"), runner("aria"))
            await start(client, ["thief"], ["aria"], chase_id=f"c-{language}")
            result = await turn(client, f"c-{language}", complication_roll=NONE)
            assert word in result.cards[0]["title"]
        finally:
            await client.close()


# ---------------------------------------------------------------- rulesets and players' saves


@pytest.mark.parametrize(("ruleset", "moved"), [("legacy", 30), ("modern", 40)])
async def test_exhaustion_slows_by_the_worlds_ruleset(
    server: Any, ruleset: str, moved: int
) -> None:
    # exhaustion 2: legacy halves the speed (15, dashing 30); modern takes 10 ft (20, 40)
    client = await server.connected(ruleset=ruleset)
    client.prefix = f"ev-{ruleset}"
    try:
        await scene(client, runner("thief", speed=30, exhaustion=2), runner("aria"))
        await start(client, ["thief"], ["aria"], chase_id=ruleset, distance_ft=100)
        result = await turn(client, ruleset, complication_roll=NONE)
        assert person(chase_state(result, ruleset), "thief")["position_ft"] == 100 + moved
    finally:
        await client.close()


async def test_players_roll_the_extra_dash_save_in_ask_mode(client: SidecarClient) -> None:
    await client.send({"type": "settings.update", "settings": {"save_mode": "ask"}})
    await scene(client, runner("thief", con=-5, owners=["player-1"]), runner("aria"))
    await start(client, ["thief"], ["aria"], distance_ft=500)
    await full_round(client, 2)
    paused = await turn(client, complication_roll=NONE)
    assert paused.reply.get("pending") is True
    [request] = paused.of_type("save.request")
    assert request["ability"] == "con" and request["token_id"] == "thief"
    answered = await client.send(
        {
            "type": "save.result",
            "request_id": request["request_id"],
            "token_id": "thief",
            "total": 3,
            "natural": 3,
        }
    )
    assert ops(answered, "exhaustion")[0]["level"] == 1
    assert person(chase_state(answered), "thief")["exhaustion_gained"] == 1


async def test_map_runner_starting_past_a_fork_takes_the_default_branch(
    client: SidecarClient,
) -> None:
    await scene(client, runner("thief", speed=30), runner("aria"))
    await start(client, ["thief"], ["aria"], map_id="market-district", distance_ft=200)
    result = await turn(client, complication_roll=NONE)
    thief = person(chase_state(result), "thief")
    # main street is 120 ft; the alley (the first branch) runs to 210 ft with its fence at
    # 160 ft, already behind the thief; then the docks
    assert thief["position_ft"] == 260 and thief["segment"] == "docks"
    assert "board fence" not in texts(result)
