"""GM actions that need no particular engine: a forced save, a GM-rolled effect."""

from __future__ import annotations

from pydantic import Field

from sidecar.engine import EventContext, RuleError, gm_action
from sidecar.models import Ability, Strict
from sidecar.rules.effects import DamageSpec, EffectList, SaveEffect, Target, resolve
from sidecar.rules.publish import publish
from sidecar.rules.scene import creature_of, get_token


class ForcedSave(Strict):
    scene_id: str
    token_ids: list[str] = Field(min_length=1, max_length=100)
    ability: Ability
    dc: int = Field(ge=0, le=40)
    damage: list[DamageSpec] = Field(default_factory=list)
    half_on_success: bool = True
    on_fail: EffectList = Field(default_factory=list)
    title: str = Field(default="", max_length=200)
    reveal_dc: bool = False


@gm_action("save.force", ForcedSave)
def forced_save(ctx: EventContext, params: ForcedSave) -> None:
    """The GM calls for a save against a DC, with damage and effects on a failure."""
    targets = []
    for token_id in params.token_ids:
        token = get_token(ctx.state, params.scene_id, token_id)
        creature_of(token)
        targets.append(Target.of(token, params.scene_id))
    effect = SaveEffect(
        ability=params.ability,
        dc=params.dc,
        damage=params.damage,
        half_on_success=params.half_on_success,
        on_fail=params.on_fail,
    )
    title = params.title or ctx.t(
        "card.forced_save.title", ability=ctx.t(f"ability.{params.ability}")
    )
    resolution = resolve(
        ctx,
        [effect],
        targets,
        source_id=f"gm:{ctx.event_id}",
        source_name=title,
        show_dc=params.reveal_dc,
    )
    publish(ctx, resolution, title=title)


class CatalogRequest(Strict):
    kinds: list[str] = Field(default_factory=list, max_length=20)


CATALOG_KINDS = {
    "traps": "trap",
    "poisons": "poison",
    "diseases": "disease",
    "madness": "madness",
    "objects": "object",
    "chase_tables": "chase_table",
    "chase_factors": "chase_factor",
    "chase_maps": "chase_map",
}


@gm_action("catalog.get", CatalogRequest)
def catalog(ctx: EventContext, params: CatalogRequest) -> None:
    """Send the content catalog (ids and names in the world's language) for the module's
    pickers: the trap behaviour's list, the token HUD's poison and disease lists..."""
    from sidecar.i18n import localized

    wanted = params.kinds or list(CATALOG_KINDS)
    for key in wanted:
        kind = CATALOG_KINDS.get(key)
        if kind is None:
            raise RuleError(f"unknown catalog {key!r}; known: {', '.join(CATALOG_KINDS)}")
        entries = []
        for entry_id, entry in sorted(ctx.content.all(kind).items()):
            name = getattr(entry, "name", entry_id)
            entries.append({"id": entry_id, "name": localized(name, ctx.language)})
        ctx.out.state("catalog", key, {"entries": entries})
