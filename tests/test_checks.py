"""Core mechanics: d20 tests, exhaustion, attacks, typed damage."""

from __future__ import annotations

import math

import pytest

from sidecar.dice import Dice
from sidecar.models import Creature, HitPoints
from sidecar.rules.checks import (
    apply_damage_traits,
    attack_roll,
    combine_modes,
    exhaustion_effects,
    exhaustion_speed,
    passive_score,
    saving_throw,
)


def make(**kw: object) -> Creature:
    base: dict[str, object] = {"id": "c", "name": "C", "hp": HitPoints(value=10, max=10)}
    base.update(kw)
    return Creature.model_validate(base)


def test_advantage_and_disadvantage_cancel() -> None:
    assert combine_modes(True, False) == 1
    assert combine_modes(False, True) == -1
    assert combine_modes(True, True) == 0
    assert combine_modes(False, False) == 0


@pytest.mark.parametrize(
    ("level", "ruleset", "kind", "expected"),
    [
        (1, "legacy", "check", (True, 0)),
        (1, "legacy", "save", (False, 0)),
        (3, "legacy", "save", (True, 0)),
        (3, "legacy", "attack", (True, 0)),
        (2, "modern", "save", (False, -4)),
        (5, "modern", "check", (False, -10)),
        (0, "modern", "check", (False, 0)),
    ],
)
def test_exhaustion_by_ruleset(
    level: int, ruleset: str, kind: str, expected: tuple[bool, int]
) -> None:
    assert exhaustion_effects(make(exhaustion=level), kind, ruleset) == expected  # type: ignore[arg-type]


def test_exhaustion_speed() -> None:
    assert exhaustion_speed(30, 1, "legacy") == 30
    assert exhaustion_speed(30, 2, "legacy") == 15
    assert exhaustion_speed(30, 5, "legacy") == 0
    assert exhaustion_speed(30, 3, "modern") == 15
    assert exhaustion_speed(30, 6, "modern") == 0


def test_exhausted_creature_saves_with_disadvantage_in_legacy_and_minus_in_modern() -> None:
    creature = make(exhaustion=3, saves={"dex": 2})
    legacy = saving_throw(Dice.seeded(1), creature, "dex", 15, ruleset="legacy")
    assert legacy.mode == -1 and legacy.roll.formula == "2d20kl1 + 2"
    modern = saving_throw(Dice.seeded(1), creature, "dex", 15, ruleset="modern")
    assert modern.mode == 0 and modern.modifier == 2 - 6


def test_save_fail_rate_matches_exact_probability() -> None:
    creature = make(saves={"dex": 2})
    dice = Dice.seeded(99)
    n = 20_000
    fails = sum(not saving_throw(dice, creature, "dex", 15).success for _ in range(n))
    p = 12 / 20  # needs 13+ on the d20: fails on 1..12
    assert abs(fails / n - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_attack_natural_twenty_and_one() -> None:
    dice = Dice.seeded(4)
    seen_crit = seen_fumble = False
    for _ in range(2000):
        result = attack_roll(dice, 0, 30)  # AC 30: only a natural 20 hits
        if result.natural == 20:
            assert result.hit and result.critical
            seen_crit = True
        else:
            assert not result.hit
        low = attack_roll(dice, 50, 5)  # +50: only a natural 1 misses
        if low.natural == 1:
            assert not low.hit
            seen_fumble = True
        else:
            assert low.hit
    assert seen_crit and seen_fumble


def test_damage_traits() -> None:
    c = make(
        damage_immunities=["poison"], damage_resistances=["fire"], damage_vulnerabilities=["cold"]
    )
    assert apply_damage_traits(c, 11, "poison") == (0, "immune")
    assert apply_damage_traits(c, 11, "fire") == (5, "resistant")
    assert apply_damage_traits(c, 11, "cold") == (22, "vulnerable")
    assert apply_damage_traits(c, 11, "acid") == (11, None)
    both = make(damage_resistances=["fire"], damage_vulnerabilities=["fire"])
    assert apply_damage_traits(both, 11, "fire") == (11, None)


def test_passive_scores() -> None:
    c = make(passive_perception=14, skills={"inv": 3})
    assert passive_score(c, "prc") == 14
    assert passive_score(c, "prc", 1) == 19
    assert passive_score(c, "inv") == 13
    assert passive_score(c, "inv", -1) == 8
