"""GM actions that need no particular engine: a forced save, a GM-rolled effect."""

from __future__ import annotations

from pydantic import Field

from sidecar.engine import EventContext, gm_action
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
