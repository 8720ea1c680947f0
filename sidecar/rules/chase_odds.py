"""Escape odds: simulate a chase from its current state many times (``chase.odds``).

Speed comes from doing the probability work once: for every participant and exhaustion
level the simulator precomputes its speed, its chance to pass the extra-dash save, and the
exact distribution of what a complication does to it (the table's effects interpreted
abstractly: saves and checks become probabilities, their branches become outcomes of
difficult terrain, lost movement, prone, blinded or a creature joining). A simulated turn
is then a few list look-ups and one or two uniform draws.

The draws come from a private ``random.Random`` seeded from the world's dice, so a result
is reproducible from the world's seed like every other roll (no global random state).
Hit points are not simulated (damage never ends a simulated chase), nor map obstacles.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from sidecar.engine import EventContext
from sidecar.models import Creature, Ruleset
from sidecar.rules.chase_content import ChaseTable
from sidecar.rules.chase_effects import (
    AvoidOrSpendEffect,
    BlindEffect,
    DifficultTerrainEffect,
    JoinAsPursuerEffect,
    LoseMovementEffect,
    NativeCreature,
    PickCheckEffect,
    PickSaveEffect,
    pick_ability,
)
from sidecar.rules.chase_math import p_test
from sidecar.rules.chase_models import ChaseDoc
from sidecar.rules.checks import SKILL_ABILITY, exhaustion_speed
from sidecar.rules.effects import (
    AttackEffect,
    CheckEffect,
    ConditionEffect,
    FallEffect,
    SaveEffect,
)

Policy = Literal["best", "worst"]
Outcome = tuple[int, int, int, int, int]  # difficult ft, lost ft, prone, blinded, joiner
NOTHING: Outcome = (0, 0, 0, 0, -1)
LEVELS = 7
HORIZONS = (1, 3, 10)
ACTIVE, CAUGHT, ESCAPED, OUT = 0, 1, 2, 3


# ---------------------------------------------------------------- the setup


@dataclass
class SimParticipant:
    """What the simulator needs of one participant, as plain numbers."""

    pid: str
    name: str
    quarry: bool
    creature: Creature
    initiative: float
    position: int = 0
    free_dashes: int = 3
    dashes_used: int = 0
    exhaustion: int = 0
    prone: bool = False
    blinded: bool = False
    difficult: int = 0
    lose: int = 0
    dash_next: bool = True
    acted: bool = False
    in_sight: bool = False
    seen_all_round: bool = False
    stealth_mode: int = 0
    avoid_with_movement: bool | None = None


@dataclass
class SimSetup:
    participants: list[SimParticipant]
    table: ChaseTable
    ruleset: Ruleset = "legacy"
    policy: Policy = "best"
    sight_range: int | None = None
    natives: list[NativeCreature] = field(default_factory=list)


# ---------------------------------------------------------------- complications, abstractly


def _add(a: Outcome, b: Outcome) -> Outcome:
    return (a[0] + b[0], a[1] + b[1], a[2] | b[2], a[3] | b[3], b[4] if b[4] >= 0 else a[4])


def _combine(a: dict[Outcome, float], b: dict[Outcome, float]) -> dict[Outcome, float]:
    out: dict[Outcome, float] = {}
    for x, px in a.items():
        for y, py in b.items():
            key = _add(x, y)
            out[key] = out.get(key, 0.0) + px * py
    return out


def _mix(p: float, yes: dict[Outcome, float], no: dict[Outcome, float]) -> dict[Outcome, float]:
    out: dict[Outcome, float] = {}
    for branch, weight in ((yes, p), (no, 1 - p)):
        if weight <= 0:
            continue
        for key, value in branch.items():
            out[key] = out.get(key, 0.0) + weight * value
    return out


@dataclass
class _Interp:
    creature: Creature
    exhaustion: int
    ruleset: Ruleset
    policy: Policy
    avoid_with_movement: bool | None
    natives: list[NativeCreature]

    def chance(
        self,
        modifier: int,
        dc: int,
        kind: Literal["save", "check"],
        advantage: bool = False,
        disadvantage: bool = False,
    ) -> float:
        return p_test(
            modifier,
            dc,
            creature=self.creature,
            kind=kind,
            ruleset=self.ruleset,
            advantage=advantage,
            disadvantage=disadvantage,
            exhaustion=self.exhaustion,
        )

    def effects(self, effects: Iterable[Any]) -> dict[Outcome, float]:
        dist: dict[Outcome, float] = {NOTHING: 1.0}
        for item in effects:
            dist = _combine(dist, self.one(item))
        return dist

    def _join(self, native: NativeCreature) -> int:
        for index, known in enumerate(self.natives):
            if known == native:
                return index
        self.natives.append(native)
        return len(self.natives) - 1

    def one(self, e: Any) -> dict[Outcome, float]:
        c = self.creature
        if isinstance(e, SaveEffect):
            p = self.chance(c.save_bonus(e.ability), e.dc, "save", e.advantage, e.disadvantage)
            return _mix(p, self.effects(e.on_success), self.effects(e.on_fail))
        if isinstance(e, PickSaveEffect):
            policy = self.policy if e.chooser == "gm" else "best"
            ability = pick_ability(c, e.abilities, policy)
            p = self.chance(c.save_bonus(ability), e.dc, "save")
            return _mix(p, self.effects(e.on_success), self.effects(e.on_fail))
        if isinstance(e, CheckEffect):
            ability = e.ability or SKILL_ABILITY.get(e.skill or "", "str")
            modifier = c.skill_total(e.skill, ability) if e.skill else c.ability_mod(ability)
            p = self.chance(modifier, e.dc, "check")
            return _mix(p, self.effects(e.on_success), self.effects(e.on_fail))
        if isinstance(e, PickCheckEffect):
            option = e.choose(c, self.policy if e.chooser == "gm" else "best")
            p = self.chance(option.modifier(c), e.dc, "check")
            return _mix(p, self.effects(e.on_success), self.effects(e.on_fail))
        if isinstance(e, AvoidOrSpendEffect):
            if e.spends(c, self.avoid_with_movement, self.ruleset):
                return {(0, e.feet, 0, 0, -1): 1.0}
            p = self.chance(c.save_bonus(e.ability), e.dc, "save")
            return _mix(p, {NOTHING: 1.0}, self.effects(e.on_fail))
        if isinstance(e, AttackEffect):
            needed = min(20, max(2, c.ac - e.bonus))
            p = (21 - needed) / 20
            return _mix(p, self.effects(e.on_hit), self.effects(e.on_miss))
        if isinstance(e, ConditionEffect):
            if e.condition == "prone" and "prone" not in c.condition_immunities:
                return {(0, 0, 1, 0, -1): 1.0}
            return {NOTHING: 1.0}
        if isinstance(e, FallEffect):
            falls = e.distance_ft >= 10 and "bludgeoning" not in c.damage_immunities
            prone = falls and "prone" not in c.condition_immunities
            return {(0, 0, 1 if prone else 0, 0, -1): 1.0}
        if isinstance(e, DifficultTerrainEffect):
            return {(e.feet, 0, 0, 0, -1): 1.0}
        if isinstance(e, LoseMovementEffect):
            return {(0, e.feet, 0, 0, -1): 1.0}
        if isinstance(e, BlindEffect):
            blind = "blinded" not in c.condition_immunities
            return {(0, 0, 0, 1 if blind else 0, -1): 1.0}
        if isinstance(e, JoinAsPursuerEffect):
            return {(0, 0, 0, 0, self._join(e.creature)): 1.0}
        return {NOTHING: 1.0}


def complication_distribution(
    table: ChaseTable, interp: _Interp, *, quarry: bool
) -> tuple[float, list[float], list[Outcome]]:
    """(P(something happens), cumulative probabilities, outcomes) for one target."""
    totals: dict[Outcome, float] = {}
    for entry in table.entries:
        if not entry.complication:
            continue
        weight = (entry.roll[1] - entry.roll[0] + 1) / table.faces
        for outcome, p in interp.effects(entry.effects).items():
            if outcome[4] >= 0 and not quarry:
                # a hunter who is hunted starts a separate chase: nothing joins this one
                outcome = (*outcome[:4], -1)
            if outcome != NOTHING:
                totals[outcome] = totals.get(outcome, 0.0) + weight * p
    cumulative: list[float] = []
    outcomes: list[Outcome] = []
    running = 0.0
    for outcome, p in sorted(totals.items()):
        running += p
        cumulative.append(running)
        outcomes.append(outcome)
    return running, cumulative, outcomes


# ---------------------------------------------------------------- the simulator


@dataclass
class _Kind:
    """Precomputed numbers of one kind of participant, by exhaustion level."""

    quarry: bool
    speed: list[int]
    con: list[float]
    free: int
    passive: int
    comp_p: list[float]
    comp_cum: list[list[float]]
    comp_out: list[list[Outcome]]
    stealth_mod: int
    stealth_mode: int
    creature: Creature
    dex: int


def _kind(
    setup: SimSetup,
    creature: Creature,
    *,
    quarry: bool,
    free: int,
    stealth_mode: int,
    avoid: bool | None,
) -> _Kind:
    speeds, cons, comp_p, comp_cum, comp_out = [], [], [], [], []
    for level in range(LEVELS):
        speeds.append(exhaustion_speed(creature.speed, level, setup.ruleset))
        cons.append(
            p_test(
                creature.save_bonus("con"),
                10,
                creature=creature,
                kind="save",
                ruleset=setup.ruleset,
                exhaustion=level,
            )
        )
        interp = _Interp(creature, level, setup.ruleset, setup.policy, avoid, setup.natives)
        total, cum, out = complication_distribution(setup.table, interp, quarry=quarry)
        comp_p.append(total)
        comp_cum.append(cum)
        comp_out.append(out)
    return _Kind(
        quarry,
        speeds,
        cons,
        free,
        creature.passive_perception,
        comp_p,
        comp_cum,
        comp_out,
        creature.skill_total("ste", "dex"),
        stealth_mode,
        creature,
        creature.ability_mod("dex"),
    )


def simulate(setup: SimSetup, trials: int, rounds: int, seed: int) -> dict[str, dict[str, Any]]:
    """Run ``trials`` chases of up to ``rounds`` rounds; per quarry, the share that escaped
    or was caught within 1, 3 and 10 rounds (the current round counts as the first)."""
    rng = random.Random(seed)
    rand = rng.random
    people = sorted(setup.participants, key=lambda p: (-p.initiative, p.name, p.pid))
    kinds = [
        _kind(
            setup,
            p.creature,
            quarry=p.quarry,
            free=p.free_dashes,
            stealth_mode=p.stealth_mode,
            avoid=p.avoid_with_movement,
        )
        for p in people
    ]
    native_kinds: dict[int, int] = {}
    index = 0
    while index < len(setup.natives):  # natives may name further natives
        native = setup.natives[index]
        creature = native.creature(f"native-{index}", "en")
        native_kinds[index] = len(kinds)
        kinds.append(
            _kind(
                setup,
                creature,
                quarry=False,
                free=max(1, 3 + creature.ability_mod("con")),
                stealth_mode=0,
                avoid=None,
            )
        )
        index += 1
    n = len(people)
    quarries = [i for i in range(n) if people[i].quarry]
    pursuers0 = [i for i in range(n) if not people[i].quarry]
    k_speed = [k.speed for k in kinds]
    k_con = [k.con for k in kinds]
    k_free = [k.free for k in kinds]
    k_pp = [k.passive for k in kinds]
    k_cp = [k.comp_p for k in kinds]
    k_cum = [k.comp_cum for k in kinds]
    k_out = [k.comp_out for k in kinds]
    escape_cache: dict[tuple[int, int, int], float] = {}

    def p_escape(kind: int, level: int, threshold: int) -> float:
        key = (kind, level, threshold)
        value = escape_cache.get(key)
        if value is None:
            k = kinds[kind]
            value = p_test(
                k.stealth_mod,
                threshold + 1,
                creature=k.creature,
                kind="check",
                ruleset=setup.ruleset,
                advantage=k.stealth_mode > 0,
                disadvantage=k.stealth_mode < 0,
                exhaustion=level,
            )
            escape_cache[key] = value
        return value

    init_pos = [p.position for p in people]
    init_used = [p.dashes_used for p in people]
    init_exh = [min(p.exhaustion, LEVELS - 1) for p in people]
    init_prone = [int(p.prone) for p in people]
    init_blind = [int(p.blinded) for p in people]
    init_diff = [p.difficult for p in people]
    init_lose = [p.lose for p in people]
    init_sight = [int(p.in_sight) for p in people]
    init_seen = [int(p.seen_all_round) for p in people]
    init_ini = [p.initiative for p in people]
    acted0 = [p.acted for p in people]
    no_dash0 = {i for i in range(n) if not people[i].dash_next}
    sight = setup.sight_range
    escaped_at = {q: [0] * (rounds + 1) for q in quarries}
    caught_at = {q: [0] * (rounds + 1) for q in quarries}

    for _ in range(trials):
        pos = init_pos[:]
        used = init_used[:]
        exh = init_exh[:]
        prone = init_prone[:]
        blind = init_blind[:]
        diff = init_diff[:]
        lose = init_lose[:]
        insight = init_sight[:]
        seen = init_seen[:]
        status = [ACTIVE] * n
        kind = list(range(n))
        ini = init_ini[:]
        order = list(range(n))
        pursuers = pursuers0[:]
        no_dash = set(no_dash0)
        for rnd in range(rounds):
            this_round = order[:]
            for i in this_round:
                if status[i] or (rnd == 0 and i < n and acted0[i]):
                    continue
                k = kind[i]
                level = exh[i]
                speed = k_speed[k][level]
                if blind[i]:
                    speed //= 2
                extra = False
                if no_dash and i in no_dash:
                    no_dash.discard(i)
                    move = speed
                else:
                    move = speed * 2
                    used[i] += 1
                    extra = used[i] > k_free[k]
                if prone[i]:
                    move -= speed // 2
                    prone[i] = 0
                if lose[i]:
                    move -= lose[i]
                    lose[i] = 0
                if move < 0:
                    move = 0
                rough = diff[i]
                if rough:
                    if move >= 2 * rough:
                        move -= rough
                        diff[i] = 0
                    else:
                        half = move // 2
                        diff[i] = rough - half
                        move = half
                if i < n and people[i].quarry:
                    pos[i] += move
                else:
                    start = pos[i]
                    goal = start + move
                    limit = None
                    for q in quarries:
                        if (
                            status[q] == ACTIVE
                            and pos[q] >= start
                            and (limit is None or pos[q] < limit)
                        ):
                            limit = pos[q]
                    if limit is not None and goal > limit - 5:
                        goal = max(start, limit - 5)
                    pos[i] = goal
                    for q in quarries:
                        if status[q] == ACTIVE and 0 <= pos[q] - goal <= 5:
                            status[q] = CAUGHT
                            caught_at[q][rnd] += 1
                # the complication hits the next active participant in initiative order
                at = order.index(i)
                size = len(order)
                j = i
                for step in range(1, size + 1):
                    cand = order[(at + step) % size]
                    if status[cand] == ACTIVE:
                        j = cand
                        break
                kj = kind[j]
                lj = exh[j]
                u = rand()
                if u < k_cp[kj][lj]:
                    hit = k_out[kj][lj][bisect_right(k_cum[kj][lj], u)]
                    if hit[0]:
                        diff[j] += hit[0]
                    if hit[1]:
                        lose[j] += hit[1]
                    if hit[2]:
                        prone[j] = 1
                    if hit[3]:
                        blind[j] = 1
                    if hit[4] >= 0 and j < n and people[j].quarry:
                        nk = native_kinds[hit[4]]
                        native = setup.natives[hit[4]]
                        new = len(pos)
                        pos.append(pos[j] - 30)
                        for arr, value in (
                            (used, 0),
                            (exh, 0),
                            (prone, 0),
                            (blind, 0),
                            (diff, 0),
                            (lose, 0),
                            (insight, 0),
                            (seen, 0),
                            (status, ACTIVE),
                            (kind, nk),
                        ):
                            arr.append(value)
                        dex = native.abilities.get("dex", 0)
                        ini.append(int(rand() * 20) + 1 + dex)
                        order.append(new)
                        order.sort(key=lambda x: -ini[x])
                        pursuers.append(new)
                if extra and rand() >= k_con[k][level]:
                    exh[i] = level + 1
                    if level + 1 >= 5:
                        status[i] = OUT
                blind[i] = 0
                if sight is not None:
                    lead = None
                    for p in pursuers:
                        if status[p] == ACTIVE and (lead is None or pos[p] > lead):
                            lead = pos[p]
                    if lead is not None:
                        for q in quarries:
                            if pos[q] - lead > sight:
                                insight[q] = 0
                                seen[q] = 0
                            else:
                                insight[q] = 1
            threshold = None
            for p in pursuers:
                if status[p] == ACTIVE:
                    pp = k_pp[kind[p]]
                    if threshold is None or pp > threshold:
                        threshold = pp
            remaining = False
            for q in quarries:
                if status[q] != ACTIVE:
                    continue
                if (
                    threshold is None
                    or not (insight[q] and seen[q])
                    and rand() < p_escape(kind[q], exh[q], threshold)
                ):
                    status[q] = ESCAPED
                    escaped_at[q][rnd] += 1
                else:
                    remaining = True
                seen[q] = insight[q]
            if not remaining:
                break

    report: dict[str, dict[str, Any]] = {}
    for q in quarries:
        esc, cau = escaped_at[q], caught_at[q]
        report[people[q].pid] = {
            "name": people[q].name,
            "escape": {str(h): sum(esc[: min(h, rounds)]) / trials for h in HORIZONS},
            "caught": {str(h): sum(cau[: min(h, rounds)]) / trials for h in HORIZONS},
        }
    return report


# ---------------------------------------------------------------- from a chase document


def setup_from_chase(ctx: EventContext, chase: ChaseDoc) -> SimSetup:
    from sidecar.rules.chase_engine import creature_view, table_of

    people: list[SimParticipant] = []
    for p in chase.active():
        creature = creature_view(ctx, p)
        mode = (1 if any(f.mode > 0 for f in p.factors) else 0) - (
            1 if any(f.mode < 0 for f in p.factors) else 0
        )
        people.append(
            SimParticipant(
                pid=p.id,
                name=p.name,
                quarry=p.role == "quarry",
                creature=creature,
                initiative=p.initiative,
                position=p.position_ft,
                free_dashes=p.free_dashes,
                dashes_used=p.dashes_used,
                exhaustion=creature.exhaustion,
                prone=p.prone or "prone" in creature.statuses,
                blinded=p.blinded_this_turn,
                difficult=p.difficult_ft,
                lose=p.lose_ft,
                dash_next=p.dash_next,
                acted=p.acted_round >= chase.round,
                in_sight=p.in_sight,
                seen_all_round=p.seen_all_round,
                stealth_mode=mode,
                avoid_with_movement=p.avoid_with_movement,
            )
        )
    return SimSetup(
        participants=people,
        table=table_of(ctx, chase.table_id),
        ruleset=ctx.ruleset,
        policy=ctx.settings.gm_picks_ability,
        sight_range=chase.sight_range_ft,
    )


def simulate_chase(
    ctx: EventContext, chase: ChaseDoc, *, trials: int, rounds: int, seed: int
) -> dict[str, dict[str, Any]]:
    return simulate(setup_from_chase(ctx, chase), trials, rounds, seed)


def odds_lines(
    ctx: EventContext, chase: ChaseDoc, result: dict[str, dict[str, Any]], trials: int
) -> list[str]:
    lines = [ctx.t("chase.odds.intro", trials=trials)]
    for row in result.values():
        lines.append(
            ctx.t(
                "chase.odds.line",
                name=row["name"],
                e1=_pct(row["escape"]["1"]),
                e3=_pct(row["escape"]["3"]),
                e10=_pct(row["escape"]["10"]),
                caught=_pct(row["caught"]["10"]),
            )
        )
    return lines


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"
