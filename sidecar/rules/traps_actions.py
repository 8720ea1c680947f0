"""GM actions on traps: search, investigate, arcana, detect magic, disarm, bypass, escape,
open a lid, trigger on purpose, arm, reveal, and build a generic trap from the tables."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sidecar.engine import EventContext, RuleError, gm_action
from sidecar.geometry import Box, Footprint, feet_to_px, sweep
from sidecar.models import Ability, Strict, Token
from sidecar.rules.checks import ability_check
from sidecar.rules.effects import Resolution
from sidecar.rules.publish import publish
from sidecar.rules.scene import creature_of, get_token
from sidecar.rules.traps import fire, release_held
from sidecar.rules.traps_builder import derived, effective
from sidecar.rules.traps_index import PlacedTrap, placed, scene_traps
from sidecar.rules.traps_model import Generic, TrapDef
from sidecar.rules.traps_state import (
    announce,
    edit,
    load,
    public_name,
    text,
    trap_key,
    trap_name,
)


class OnTrap(Strict):
    scene_id: str
    region_id: str


class ByToken(Strict):
    scene_id: str
    token_id: str
    region_id: str | None = Field(default=None, description="one trap; default: all nearby")
    radius_ft: float | None = Field(default=None, ge=0, le=1000)


def _nearby(ctx: EventContext, params: ByToken, token: Token) -> list[tuple[PlacedTrap, TrapDef]]:
    traps = scene_traps(ctx, params.scene_id)
    if params.region_id is not None:
        return [placed(ctx, params.scene_id, params.region_id)]
    radius = params.radius_ft if params.radius_ft is not None else ctx.settings.notice_radius_ft
    grid = traps.scene.grid
    foot = Footprint.of(token, grid)
    pos = (token.x, token.y)
    area = sweep(foot, pos, pos, grow=feet_to_px(radius, grid))
    found = []
    for key in sorted(traps.index.query(Box.of_points(area))):
        item = traps.traps[key]
        if item.trigger.overlaps(area):
            found.append((item, effective(ctx.content, item.placement)))
    return found


def _check_card(
    ctx: EventContext,
    token: Token,
    label: str,
    total: int,
    found: list[str],
    gm_lines: list[str],
    title: str,
    roll_json: dict[str, object],
) -> None:
    """The searcher's owners see their roll and what they found; the GM sees the DCs."""
    lines = [{"text": ctx.t("trap.search.line", name=token.name, label=label, total=total)}]
    lines += [{"text": text} for text in found] or [{"text": ctx.t("trap.search.nothing")}]
    ctx.render(
        "generic.html.j2",
        title=title,
        visibility="owners",
        owners_of=[token.id],
        rolls=[roll_json],
        lines=lines,
    )
    ctx.render(
        "generic.html.j2",
        title=title,
        visibility="gm",
        rolls=[roll_json],
        lines=lines[:1] + [{"text": g} for g in gm_lines],
    )


def _skill_action(ctx: EventContext, params: ByToken, skill: Literal["prc", "inv", "arc"]) -> None:
    token = get_token(ctx.state, params.scene_id, params.token_id)
    creature = creature_of(token)
    result = ability_check(
        ctx.dice,
        creature,
        "wis" if skill == "prc" else "int",
        None,
        skill=skill,
        ruleset=ctx.ruleset,
    )
    found: list[str] = []
    gm_lines: list[str] = []
    for item, trap in _nearby(ctx, params, token):
        det = trap.detection
        if skill == "prc":
            dc = det.dc if det.skill == "prc" else None
        elif skill == "inv":
            dc = (
                det.investigate_dc
                if det.investigate_dc is not None
                else (det.dc if det.skill == "inv" else None)
            )
        else:
            dc = det.arcana_dc if trap.kind == "magic" else None
        if dc is None:
            continue
        success = result.total >= dc
        verdict = ctx.t("term.success") if success else ctx.t("term.failure")
        gm_lines.append(ctx.t("trap.search.gm", trap=trap_name(ctx, trap), dc=dc, result=verdict))
        if not success:
            continue
        state = load(ctx, params.scene_id, item.region_id, trap.id)
        if skill == "prc":
            seen = text(ctx, det.notice) or ctx.t("trap.notice.generic")
        else:
            seen = text(ctx, det.mechanism) or ctx.t(
                "trap.search.mechanism", trap=trap_name(ctx, trap)
            )
            edited = edit(ctx, params.scene_id, item.region_id, trap.id)
            if creature.id not in edited.identified_by:
                edited.identified_by.append(creature.id)
        found.append(seen)
        if creature.id not in state.noticed_by:
            edited = edit(ctx, params.scene_id, item.region_id, trap.id)
            edited.noticed_by.append(creature.id)
        announce(ctx, load(ctx, params.scene_id, item.region_id, trap.id))
    label = ctx.t(f"skill.{skill}")
    title = ctx.t(f"trap.search.title_{skill}", name=token.name)
    _check_card(ctx, token, label, result.total, found, gm_lines, title, result.roll.to_foundry())


@gm_action("trap.search", ByToken)
def search(ctx: EventContext, params: ByToken) -> None:
    """Wisdom (Perception) against the detection DC of every trap in range."""
    _skill_action(ctx, params, "prc")


@gm_action("trap.investigate", ByToken)
def investigate(ctx: EventContext, params: ByToken) -> None:
    """Intelligence (Investigation): deduce the mechanism (and find traps hidden that way)."""
    _skill_action(ctx, params, "inv")


@gm_action("trap.arcana", ByToken)
def arcana(ctx: EventContext, params: ByToken) -> None:
    """Intelligence (Arcana) on magic traps: identify them at their Arcana DC."""
    _skill_action(ctx, params, "arc")


@gm_action("trap.detect_magic", ByToken)
def detect_magic(ctx: EventContext, params: ByToken) -> None:
    """Detect magic: the auras of magic traps within 30 ft, no check needed."""
    token = get_token(ctx.state, params.scene_id, params.token_id)
    creature = creature_of(token)
    radius = params.radius_ft if params.radius_ft is not None else 30.0
    lines: list[str] = []
    for item, trap in _nearby(ctx, params.model_copy(update={"radius_ft": radius}), token):
        if trap.kind != "magic":
            continue
        school = ctx.t(f"trap.school.{trap.detection.aura or 'unknown'}")
        lines.append(ctx.t("trap.detect_magic.aura", school=school))
        state = edit(ctx, params.scene_id, item.region_id, trap.id)
        state.aura_seen = True
        if creature.id not in state.noticed_by:
            state.noticed_by.append(creature.id)
        announce(ctx, state)
    title = ctx.t("trap.detect_magic.title", name=token.name)
    ctx.render(
        "generic.html.j2",
        title=title,
        visibility="owners",
        owners_of=[token.id],
        lines=[{"text": t} for t in lines] or [{"text": ctx.t("trap.detect_magic.none")}],
    )
    ctx.render(
        "generic.html.j2",
        title=title,
        visibility="gm",
        lines=[{"text": t} for t in lines] or [{"text": ctx.t("trap.detect_magic.none")}],
    )


class Disarm(OnTrap):
    token_id: str
    option: str | None = None
    tool: Literal["thieves_tools", "edged", "none"] = "thieves_tools"
    bonus: int = Field(default=0, ge=-20, le=30, description="tool proficiency and the like")


@gm_action("trap.disarm", Disarm)
def disarm(ctx: EventContext, params: Disarm) -> None:
    """A disarm check; a failure sets the trap off when the trap says so."""
    item, trap = placed(ctx, params.scene_id, params.region_id)
    token = get_token(ctx.state, params.scene_id, params.token_id)
    creature = creature_of(token)
    options = [o for o in trap.disarm if params.option in (None, o.id)]
    if not options:
        raise RuleError(f"{trap.id} cannot be disarmed that way")
    option = options[0]
    disadvantage = False
    if option.tool == "thieves_tools" and params.tool != "thieves_tools":
        if params.tool == "edged" and option.edged_tool_disadvantage:
            disadvantage = True
        else:
            raise RuleError("this trap needs thieves' tools")
    state = load(ctx, params.scene_id, params.region_id, trap.id)
    if state.status in ("disarmed", "destroyed"):
        raise RuleError("that trap is already disarmed")
    bonus = params.bonus + creature.skills.get("thieves_tools", 0)
    result = ability_check(
        ctx.dice,
        creature,
        option.ability,
        option.dc,
        skill=option.skill,
        ruleset=ctx.ruleset,
        disadvantage=disadvantage,
        bonus=bonus,
    )
    res = Resolution()
    verdict = ctx.t("term.success") if result.success else ctx.t("term.failure")
    res.say(
        ctx.t("trap.disarm.line", name=token.name, total=result.total, result=verdict), result.roll
    )
    if disadvantage:
        res.say(ctx.t("trap.disarm.edged"))
    res.say_gm(ctx.t("trap.disarm.gm", trap=trap_name(ctx, trap), dc=option.dc))
    edited = edit(ctx, params.scene_id, params.region_id, trap.id)
    edited.revealed = True
    if result.success:
        edited.status = option.result
        res.say(ctx.t(f"trap.status_now.{option.result}"))
    title = ctx.t("trap.disarm.title", name=trap_name(ctx, trap))
    publish(ctx, res, title=title)
    announce(ctx, edited)
    if not result.success and option.failure_triggers:
        fire(
            ctx,
            scene_traps(ctx, params.scene_id),
            item,
            trap,
            trigger_token=token,
            cause=ctx.t("trap.cause.failed_disarm"),
        )


class BypassParams(OnTrap):
    bypass: Literal["spike", "plug", "dispel", "arcane_lock", "cover"]
    token_id: str | None = None
    ability: Ability = Field(default="int", description="dispel magic: spellcasting ability")
    automatic: bool = Field(default=False, description="dispel cast at a high enough level")


@gm_action("trap.bypass", BypassParams)
def bypass(ctx: EventContext, params: BypassParams) -> None:
    """Jam a plate or lid with a spike, plug the dart holes, or dispel a magic trap."""
    _item, trap = placed(ctx, params.scene_id, params.region_id)
    choice = next((b for b in trap.bypasses if b.id == params.bypass), None)
    if choice is None:
        raise RuleError(f"{trap.id} has no bypass {params.bypass!r}")
    res = Resolution()
    success = True
    if choice.id == "dispel" and not params.automatic:
        if params.token_id is None:
            raise RuleError("dispel magic needs the caster's token_id")
        caster = get_token(ctx.state, params.scene_id, params.token_id)
        result = ability_check(
            ctx.dice, creature_of(caster), params.ability, choice.dc, ruleset=ctx.ruleset
        )
        success = result.success
        verdict = ctx.t("term.success") if success else ctx.t("term.failure")
        res.say(
            ctx.t("trap.bypass.dispel_line", name=caster.name, total=result.total, result=verdict),
            result.roll,
        )
        res.say_gm(ctx.t("card.dc", dc=choice.dc))
    state = edit(ctx, params.scene_id, params.region_id, trap.id)
    if success:
        if choice.result == "compulsion_ended":
            state.compulsion = False
        else:
            state.status = choice.result
        state.plugged = state.plugged or choice.id == "plug"
        res.say(ctx.t(f"trap.bypass.done.{choice.id}"))
    else:
        res.say(ctx.t("trap.bypass.failed"))
    publish(
        ctx,
        res,
        title=ctx.t("trap.bypass.title", name=public_name(ctx, trap, state)),
        gm_title=ctx.t("trap.bypass.title", name=trap_name(ctx, trap)),
    )
    announce(ctx, state)


class TriggerParams(OnTrap):
    token_id: str | None = None


@gm_action("trap.trigger", TriggerParams)
def trigger(ctx: EventContext, params: TriggerParams) -> None:
    """Set a trap off on purpose (knocking the beam over) or because the GM says so."""
    item, trap = placed(ctx, params.scene_id, params.region_id)
    token = get_token(ctx.state, params.scene_id, params.token_id) if params.token_id else None
    if not fire(
        ctx,
        scene_traps(ctx, params.scene_id),
        item,
        trap,
        trigger_token=token,
        cause=ctx.t("trap.cause.action"),
    ):
        raise RuleError("that trap is not armed")


@gm_action("trap.arm", OnTrap)
def arm(ctx: EventContext, params: OnTrap) -> None:
    """Re-arm a trap by hand (manual reset, or after a spike is pulled)."""
    _item, trap = placed(ctx, params.scene_id, params.region_id)
    state = edit(ctx, params.scene_id, params.region_id, trap.id)
    state.status = "armed"
    state.plugged = False
    state.rearm_round = state.rearm_combat = state.rearm_time = None
    ctx.render(
        "text.html.j2",
        title=trap_name(ctx, trap),
        visibility="gm",
        text=ctx.t("trap.status_now.armed"),
    )
    announce(ctx, state)


@gm_action("trap.reveal", OnTrap)
def reveal(ctx: EventContext, params: OnTrap) -> None:
    """Tell everyone the trap is there, by name."""
    _item, trap = placed(ctx, params.scene_id, params.region_id)
    state = edit(ctx, params.scene_id, params.region_id, trap.id)
    state.revealed = True
    ctx.render(
        "text.html.j2",
        title=trap_name(ctx, trap),
        data={"revealed": {"scene_id": params.scene_id, "region_id": params.region_id}},
        text=ctx.t("trap.reveal.text", trap=trap_name(ctx, trap)),
    )
    announce(ctx, state)


class Escape(OnTrap):
    token_id: str = Field(description="the creature held")
    helper_token_id: str | None = Field(default=None, description="a creature in reach helping")


@gm_action("trap.escape", Escape)
def escape(ctx: EventContext, params: Escape) -> None:
    """An action and a Strength check to get out of a net (by the victim or a helper)."""
    _item, trap = placed(ctx, params.scene_id, params.region_id)
    dc = trap.aftermath.escape_dc
    if dc is None:
        raise RuleError(f"{trap.id} holds nobody that way")
    state = load(ctx, params.scene_id, params.region_id, trap.id)
    if params.token_id not in state.held:
        raise RuleError("that creature is not held by this trap")
    actor = get_token(ctx.state, params.scene_id, params.helper_token_id or params.token_id)
    result = ability_check(ctx.dice, creature_of(actor), "str", dc, ruleset=ctx.ruleset)
    res = Resolution()
    verdict = ctx.t("term.success") if result.success else ctx.t("term.failure")
    res.say(
        ctx.t(
            "card.check.line",
            name=actor.name,
            label=ctx.t("ability.str"),
            total=result.total,
            result=verdict,
        ),
        result.roll,
    )
    res.say_gm(ctx.t("card.dc", dc=dc))
    if result.success:
        release_held(ctx, trap_key(params.scene_id, params.region_id), params.token_id, res)
    publish(ctx, res, title=ctx.t("trap.escape.title", name=trap_name(ctx, trap)))


class OpenLid(OnTrap):
    token_id: str
    method: Literal["pry", "pick"] = "pry"
    bonus: int = Field(default=0, ge=-20, le=30)


@gm_action("trap.open_lid", OpenLid)
def open_lid(ctx: EventContext, params: OpenLid) -> None:
    """Pry a locking pit's lid open (Str DC 20) or work the catch from inside (Dex DC 15)."""
    _item, trap = placed(ctx, params.scene_id, params.region_id)
    state = load(ctx, params.scene_id, params.region_id, trap.id)
    if not trap.aftermath.locks_victims or not state.locked_in:
        raise RuleError("nobody is locked in that pit")
    token = get_token(ctx.state, params.scene_id, params.token_id)
    creature = creature_of(token)
    if params.method == "pry":
        ability: Ability = "str"
        dc = trap.aftermath.lid_dc
        bonus = params.bonus
    else:
        ability, dc = "dex", trap.aftermath.lid_inside_dc
        bonus = params.bonus + creature.skills.get("thieves_tools", 0)
    result = ability_check(ctx.dice, creature, ability, dc, ruleset=ctx.ruleset, bonus=bonus)
    res = Resolution()
    verdict = ctx.t("term.success") if result.success else ctx.t("term.failure")
    res.say(
        ctx.t(
            "card.check.line",
            name=token.name,
            label=ctx.t(f"ability.{ability}"),
            total=result.total,
            result=verdict,
        ),
        result.roll,
    )
    res.say_gm(ctx.t("card.dc", dc=dc))
    if result.success:
        res.say(ctx.t("trap.after.lid_open"))
        release_held(ctx, trap_key(params.scene_id, params.region_id), None, res)
    publish(ctx, res, title=ctx.t("trap.open_lid.title", name=trap_name(ctx, trap)))


@gm_action("trap.build", Generic)
def build_generic(ctx: EventContext, params: Generic) -> None:
    """Preview a generic trap's numbers from the severity tables (GM only)."""
    numbers = derived(params)
    text = ctx.t(
        "trap.build.text",
        severity=ctx.t(f"trap.severity.{params.severity}"),
        level=params.level,
        dc=numbers["dc"],
        bonus=numbers["attack_bonus"],
        damage=numbers["damage"],
        type=ctx.t(f"damage_type.{params.damage_type}"),
    )
    ctx.render(
        "text.html.j2",
        title=ctx.t("trap.build.title"),
        visibility="gm",
        text=text,
        data={"generic": params.model_dump(), "derived": numbers},
    )
