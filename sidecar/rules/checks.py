"""d20 tests, saving throws, attack rolls and typed damage (RULES.md §0).

Pure functions: a creature snapshot, the world's dice and the ruleset in, an outcome out.
Resistances are applied here, in the sidecar, and nowhere else: the module applies the
final number as plain damage so dnd5e does not apply them a second time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sidecar.dice import Dice, Roll
from sidecar.models import Ability, Creature, Ruleset

TestKind = Literal["check", "save", "attack"]

SKILL_ABILITY: dict[str, Ability] = {
    "acr": "dex",
    "ani": "wis",
    "arc": "int",
    "ath": "str",
    "dec": "cha",
    "his": "int",
    "ins": "wis",
    "itm": "cha",
    "inv": "int",
    "med": "wis",
    "nat": "int",
    "prc": "wis",
    "prf": "cha",
    "per": "cha",
    "rel": "int",
    "slt": "dex",
    "ste": "dex",
    "sur": "wis",
}


def combine_modes(advantage: bool, disadvantage: bool) -> int:
    """Advantage and disadvantage cancel whatever their number: +1, -1 or 0."""
    if advantage and not disadvantage:
        return 1
    if disadvantage and not advantage:
        return -1
    return 0


def exhaustion_effects(
    creature: Creature | None, kind: TestKind, ruleset: Ruleset
) -> tuple[bool, int]:
    """(disadvantage?, flat modifier) that exhaustion puts on a d20 test."""
    level = creature.exhaustion if creature else 0
    if level <= 0:
        return False, 0
    if ruleset == "modern":
        return False, -2 * level
    if kind == "check":
        return level >= 1, 0
    return level >= 3, 0


def exhaustion_speed(speed: int, level: int, ruleset: Ruleset) -> int:
    if ruleset == "modern":
        return 0 if level >= 6 else max(0, speed - 5 * level)
    if level >= 5:
        return 0
    if level >= 2:
        return speed // 2
    return speed


@dataclass(frozen=True)
class TestResult:
    kind: TestKind
    label: str
    roll: Roll
    modifier: int
    dc: int | None
    mode: int
    success: bool
    natural: int | None

    @property
    def total(self) -> int:
        return self.roll.total

    @property
    def margin(self) -> int:
        """How far the total is above (positive) or below (negative) the DC."""
        return self.total - (self.dc or 0)


def d20_test(
    dice: Dice,
    *,
    kind: TestKind,
    label: str,
    modifier: int,
    dc: int | None,
    creature: Creature | None = None,
    ruleset: Ruleset = "legacy",
    advantage: bool = False,
    disadvantage: bool = False,
) -> TestResult:
    exhausted_dis, exhausted_mod = exhaustion_effects(creature, kind, ruleset)
    mode = combine_modes(advantage, disadvantage or exhausted_dis)
    total_mod = modifier + exhausted_mod
    roll = dice.d20(total_mod, mode, flavor=label)
    success = dc is None or roll.total >= dc
    return TestResult(kind, label, roll, total_mod, dc, mode, success, roll.natural)


def saving_throw(
    dice: Dice,
    creature: Creature,
    ability: Ability,
    dc: int,
    *,
    ruleset: Ruleset = "legacy",
    advantage: bool = False,
    disadvantage: bool = False,
) -> TestResult:
    return d20_test(
        dice,
        kind="save",
        label=f"save.{ability}",
        modifier=creature.save_bonus(ability),
        dc=dc,
        creature=creature,
        ruleset=ruleset,
        advantage=advantage,
        disadvantage=disadvantage,
    )


def ability_check(
    dice: Dice,
    creature: Creature,
    ability: Ability,
    dc: int | None,
    *,
    skill: str | None = None,
    ruleset: Ruleset = "legacy",
    advantage: bool = False,
    disadvantage: bool = False,
    bonus: int = 0,
) -> TestResult:
    modifier = creature.skill_total(skill, ability) if skill else creature.ability_mod(ability)
    return d20_test(
        dice,
        kind="check",
        label=f"skill.{skill}" if skill else f"check.{ability}",
        modifier=modifier + bonus,
        dc=dc,
        creature=creature,
        ruleset=ruleset,
        advantage=advantage,
        disadvantage=disadvantage,
    )


def passive_score(creature: Creature, skill: str, mode: int = 0) -> int:
    """10 + skill total, +5 with advantage, -5 with disadvantage."""
    if skill == "prc":
        base = creature.passive_perception
    else:
        base = 10 + creature.skill_total(skill, SKILL_ABILITY.get(skill, "wis"))
    return base + 5 * mode


@dataclass(frozen=True)
class AttackResult:
    roll: Roll
    bonus: int
    target_ac: int
    hit: bool
    critical: bool
    natural: int | None


def attack_roll(
    dice: Dice,
    bonus: int,
    target_ac: int,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
) -> AttackResult:
    """A trap's attack: natural 20 always hits (critical), natural 1 always misses."""
    mode = combine_modes(advantage, disadvantage)
    roll = dice.d20(bonus, mode, flavor="attack")
    natural = roll.natural
    if natural == 20:
        hit, critical = True, True
    elif natural == 1:
        hit, critical = False, False
    else:
        hit, critical = roll.total >= target_ac, False
    return AttackResult(roll, bonus, target_ac, hit, critical, natural)


DamageNote = Literal["immune", "resistant", "vulnerable"] | None


def apply_damage_traits(
    creature: Creature, amount: int, damage_type: str
) -> tuple[int, DamageNote]:
    """Immunity zeroes, resistance halves (rounding down), vulnerability doubles."""
    if amount <= 0:
        return 0, None
    if damage_type in creature.damage_immunities:
        return 0, "immune"
    resistant = damage_type in creature.damage_resistances
    vulnerable = damage_type in creature.damage_vulnerabilities
    if resistant and vulnerable:
        return amount, None
    if resistant:
        return amount // 2, "resistant"
    if vulnerable:
        return amount * 2, "vulnerable"
    return amount, None


def condition_blocked(creature: Creature, condition: str) -> bool:
    return condition in creature.condition_immunities
