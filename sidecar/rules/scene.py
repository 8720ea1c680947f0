"""What the world looks like: scenes, tokens, regions, combats and the world clock.

The module keeps these in sync (``scene.sync`` and the incremental events); every engine
reads them through the helpers here.
"""

from __future__ import annotations

from pydantic import Field

from sidecar.engine import EventContext, RuleError, WorldSettings, on
from sidecar.models import Creature, Grid, Region, Strict, Token, Wall
from sidecar.protocol import (
    Combatant,
    CombatEnd,
    CombatStart,
    CombatTurn,
    Ping,
    RegionRemove,
    RegionUpdate,
    SceneSync,
    SettingsUpdate,
    TimeAdvance,
    TokenRemove,
    TokenUpdate,
    TurnRef,
)
from sidecar.state import WorldState, register_document


class SceneDoc(Strict):
    id: str
    name: str = ""
    width: float = 0
    height: float = 0
    grid: Grid = Field(default_factory=Grid)
    regions: dict[str, Region] = Field(default_factory=dict)
    walls: list[Wall] | None = None


class CombatInfo(Strict):
    combat_id: str
    scene_id: str | None = None
    round: int = 0
    turn: int | None = None
    current: TurnRef | None = None
    combatants: list[Combatant] = Field(default_factory=list)


class Clock(Strict):
    """World time in seconds and the combats under way."""

    world_time: float | None = None
    active_scene: str | None = None
    combats: dict[str, CombatInfo] = Field(default_factory=dict)


register_document("scene", SceneDoc)
register_document("token", Token)
register_document("clock", Clock)


def scene_key(scene_id: str) -> str:
    return f"scene:{scene_id}"


def token_key(scene_id: str, token_id: str) -> str:
    return f"token:{scene_id}:{token_id}"


def get_scene(state: WorldState, scene_id: str) -> SceneDoc:
    scene = state.get(scene_key(scene_id), SceneDoc)
    if scene is None:
        raise RuleError(f"unknown scene {scene_id!r}: send scene.sync first")
    return scene


def get_token(state: WorldState, scene_id: str, token_id: str) -> Token:
    token = state.get(token_key(scene_id, token_id), Token)
    if token is None:
        raise RuleError(f"unknown token {token_id!r} on scene {scene_id!r}")
    return token


def scene_tokens(state: WorldState, scene_id: str) -> list[Token]:
    return [t for _, t in state.items(f"token:{scene_id}:", Token)]


def find_token_anywhere(state: WorldState, token_id: str) -> tuple[str, Token] | None:
    for key, token in state.items("token:", Token):
        if token.id == token_id:
            return key.split(":")[1], token
    return None


def tokens_of_actor(state: WorldState, actor_id: str) -> list[tuple[str, Token]]:
    """Every token (with its scene id) whose creature is ``actor_id``.

    An actor -> token keys index is built from committed documents once per change of the
    token documents; this transaction's own token changes are looked at directly.
    """
    index: dict[str, list[str]] | None = state.cached("actors->tokens")
    if index is None:
        index = {}
        for key, token in state.committed_items("token:", Token):
            if token.creature is not None:
                index.setdefault(token.creature.id, []).append(key)
        state.set_cached("actors->tokens", "token:", index, committed=True)
    keys = dict.fromkeys(index.get(actor_id, []))
    keys.update(dict.fromkeys(state.overlay_keys("token:")))
    found: list[tuple[str, Token]] = []
    for key in keys:
        current = state.get(key, Token)
        if current is not None and current.creature is not None and current.creature.id == actor_id:
            found.append((key.split(":")[1], current))
    return found


def creature_of(token: Token) -> Creature:
    if token.creature is None:
        raise RuleError(f"token {token.name!r} has no creature snapshot")
    return token.creature


def clock(state: WorldState) -> Clock:
    return state.get("clock", Clock) or Clock()


def edit_clock(state: WorldState) -> Clock:
    if state.get("clock", Clock) is None:
        state.put("clock", Clock())
    return state.edit("clock", Clock)


@on("ping")
def _ping(ctx: EventContext, event: Ping) -> None:
    return None


@on("settings.update")
def _settings(ctx: EventContext, event: SettingsUpdate) -> None:
    merged = ctx.settings.model_dump() | event.settings
    ctx.state.put("settings", WorldSettings.model_validate(merged))


@on("scene.sync")
def _scene_sync(ctx: EventContext, event: SceneSync) -> None:
    scene = event.scene
    ctx.state.put(
        scene_key(scene.id),
        SceneDoc(
            id=scene.id,
            name=scene.name,
            width=scene.width,
            height=scene.height,
            grid=scene.grid,
            regions={r.id: r for r in scene.regions},
            walls=scene.walls,
        ),
    )
    present = {t.id for t in scene.tokens}
    for key in list(ctx.state.keys(f"token:{scene.id}:")):
        if key.rsplit(":", 1)[1] not in present:
            ctx.state.delete(key)
    for token in scene.tokens:
        ctx.state.put(token_key(scene.id, token.id), token)
    if event.active:
        edit_clock(ctx.state).active_scene = scene.id


@on("token.update")
def _token_update(ctx: EventContext, event: TokenUpdate) -> None:
    get_scene(ctx.state, event.scene_id)
    ctx.state.put(token_key(event.scene_id, event.token.id), event.token)


@on("token.remove")
def _token_remove(ctx: EventContext, event: TokenRemove) -> None:
    ctx.state.delete(token_key(event.scene_id, event.token_id))


@on("region.update")
def _region_update(ctx: EventContext, event: RegionUpdate) -> None:
    get_scene(ctx.state, event.scene_id)
    ctx.state.edit(scene_key(event.scene_id), SceneDoc).regions[event.region.id] = event.region


@on("region.remove")
def _region_remove(ctx: EventContext, event: RegionRemove) -> None:
    get_scene(ctx.state, event.scene_id)
    ctx.state.edit(scene_key(event.scene_id), SceneDoc).regions.pop(event.region_id, None)


@on("combat.start")
def _combat_start(ctx: EventContext, event: CombatStart) -> None:
    edit_clock(ctx.state).combats[event.combat_id] = CombatInfo(
        combat_id=event.combat_id, scene_id=event.scene_id, combatants=event.combatants
    )


@on("combat.turn")
def _combat_turn(ctx: EventContext, event: CombatTurn) -> None:
    combats = edit_clock(ctx.state).combats
    info = combats.get(event.combat_id) or CombatInfo(combat_id=event.combat_id)
    info.round = event.current.round
    info.turn = event.current.turn
    info.current = event.current
    if event.combatants:
        info.combatants = event.combatants
    combats[event.combat_id] = info


@on("combat.end")
def _combat_end(ctx: EventContext, event: CombatEnd) -> None:
    edit_clock(ctx.state).combats.pop(event.combat_id, None)


@on("time.advance")
def _time_advance(ctx: EventContext, event: TimeAdvance) -> None:
    edit_clock(ctx.state).world_time = event.world_time
