"""Exact d20 probabilities, shared by the chase's automatic choices and its simulator."""

from __future__ import annotations

from sidecar.models import Creature, Ruleset
from sidecar.rules.checks import TestKind, combine_modes, exhaustion_effects


def p_at_least(needed: int, mode: int = 0) -> float:
    """P(d20 >= needed) for a plain roll (0), advantage (+1) or disadvantage (-1)."""
    p = min(1.0, max(0.0, (21 - needed) / 20))
    if mode > 0:
        return 1 - (1 - p) ** 2
    if mode < 0:
        return p * p
    return p


def p_test(
    modifier: int,
    dc: int,
    *,
    creature: Creature | None = None,
    kind: TestKind = "save",
    ruleset: Ruleset = "legacy",
    advantage: bool = False,
    disadvantage: bool = False,
    exhaustion: int | None = None,
) -> float:
    """P(d20 + modifier >= dc) with exhaustion applied the way checks.d20_test applies it."""
    if exhaustion is not None and creature is not None:
        creature = creature.model_copy(update={"exhaustion": exhaustion})
    exhausted_dis, exhausted_mod = exhaustion_effects(creature, kind, ruleset)
    mode = combine_modes(advantage, disadvantage or exhausted_dis)
    return p_at_least(dc - modifier - exhausted_mod, mode)
