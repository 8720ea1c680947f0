"""Wire protocol: every message is one JSON object, discriminated by ``type``.

Client -> sidecar messages are *events* (each with a client-made ``id``) plus the two
control messages ``hello`` and ``ack``. Sidecar -> client messages are either *replies*
(``welcome``, ``error``, ``accepted``, ``pong``: not sequenced, not stored) or *world
messages* (``card``, ``ops``, ``save.request``, ``state``): these carry a per-world ``seq``,
are stored until the client acks them, and are re-sent after a reconnect.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Literal, get_args

from pydantic import Field, TypeAdapter, ValidationError

from sidecar.models import (
    Ability,
    Creature,
    Identifier,
    Name,
    Point,
    Region,
    Ruleset,
    Scene,
    Strict,
    Token,
    Waypoint,
)

PROTOCOL_VERSION = 1
MIN_PROTOCOL = 1
MAX_PROTOCOL = 1
MAX_FRAME_BYTES = 1024 * 1024

EventId = Annotated[str, Field(min_length=1, max_length=128)]


# ---------------------------------------------------------------- client -> sidecar


class Hello(Strict):
    type: Literal["hello"] = "hello"
    id: EventId | None = None
    protocol: int = Field(ge=0, le=1_000_000)
    world_id: Identifier
    token: str = Field(min_length=1, max_length=256)
    module_version: str = Field(max_length=64)
    foundry_version: str = Field(default="", max_length=64)
    system_id: str = Field(default="dnd5e", max_length=64)
    system_version: str = Field(default="", max_length=64)
    language: str = Field(default="en", max_length=16)
    ruleset: Ruleset = "legacy"
    last_seq: int = Field(default=0, ge=0, description="last world seq the client applied")


class Ack(Strict):
    type: Literal["ack"] = "ack"
    seq: int = Field(ge=0, description="cumulative: every seq <= this one is applied")


class Ping(Strict):
    type: Literal["ping"] = "ping"
    id: EventId


class SceneSync(Strict):
    """The whole active scene: grid, tokens with creature snapshots, trap regions."""

    type: Literal["scene.sync"] = "scene.sync"
    id: EventId
    scene: Scene
    active: bool = True


class TokenUpdate(Strict):
    """A token was created or changed (not a move: moves come as ``token.move``)."""

    type: Literal["token.update"] = "token.update"
    id: EventId
    scene_id: Identifier
    token: Token


class TokenRemove(Strict):
    type: Literal["token.remove"] = "token.remove"
    id: EventId
    scene_id: Identifier
    token_id: Identifier


class RegionUpdate(Strict):
    type: Literal["region.update"] = "region.update"
    id: EventId
    scene_id: Identifier
    region: Region


class RegionRemove(Strict):
    type: Literal["region.remove"] = "region.remove"
    id: EventId
    scene_id: Identifier
    region_id: Identifier


MoveMethod = Literal["dragging", "keyboard", "api", "config", "paste", "undo", "drop", "teleport"]


class TokenMove(Strict):
    """A token moved along a path; ``path[0]`` is where it started."""

    type: Literal["token.move"] = "token.move"
    id: EventId
    scene_id: Identifier
    token_id: Identifier
    movement_id: str = Field(default="", max_length=128)
    method: MoveMethod = "dragging"
    path: list[Waypoint] = Field(min_length=1, max_length=10_000)


class Combatant(Strict):
    combatant_id: Identifier
    token_id: Identifier | None = None
    name: Name = ""
    initiative: float | None = None
    defeated: bool = False


class TurnRef(Strict):
    round: int = Field(ge=0)
    turn: int | None = Field(default=None, ge=0)
    combatant_id: Identifier | None = None
    token_id: Identifier | None = None


class CombatStart(Strict):
    type: Literal["combat.start"] = "combat.start"
    id: EventId
    combat_id: Identifier
    scene_id: Identifier | None = None
    combatants: list[Combatant] = Field(default_factory=list, max_length=1000)


class CombatTurn(Strict):
    """Forwarded ``combatTurnChange``: the turn passed from ``prior`` to ``current``."""

    type: Literal["combat.turn"] = "combat.turn"
    id: EventId
    combat_id: Identifier
    prior: TurnRef | None = None
    current: TurnRef
    combatants: list[Combatant] = Field(default_factory=list, max_length=1000)


class CombatEnd(Strict):
    type: Literal["combat.end"] = "combat.end"
    id: EventId
    combat_id: Identifier


class TimeAdvance(Strict):
    """World time moved from ``world_time - delta`` to ``world_time`` (seconds)."""

    type: Literal["time.advance"] = "time.advance"
    id: EventId
    world_time: float = Field(ge=-1e13, le=1e13)
    delta: float = Field(ge=-1e13, le=1e13)


class RestCompleted(Strict):
    type: Literal["rest.completed"] = "rest.completed"
    id: EventId
    token_id: Identifier | None = None
    actor_id: Identifier
    rest: Literal["short", "long"]


class DamageTaken(Strict):
    type: Literal["damage.taken"] = "damage.taken"
    id: EventId
    token_id: Identifier | None = None
    actor_id: Identifier
    amount: int = Field(ge=0, le=1_000_000)
    damage_types: list[str] = Field(default_factory=list, max_length=16)


class HealingApplied(Strict):
    type: Literal["healing.applied"] = "healing.applied"
    id: EventId
    token_id: Identifier | None = None
    actor_id: Identifier
    amount: int = Field(ge=0, le=1_000_000)


class Interaction(Strict):
    """A creature interacted with something: opened a door or chest, failed a lock-pick..."""

    type: Literal["interaction"] = "interaction"
    id: EventId
    scene_id: Identifier
    token_id: Identifier
    target_id: Identifier = Field(description="region or object id")
    kind: Literal["open", "pick_lock_failed", "touch", "knock_over", "enter"] = "open"


class WeaponHit(Strict):
    type: Literal["weapon.hit"] = "weapon.hit"
    id: EventId
    scene_id: Identifier | None = None
    attacker_token_id: Identifier
    target_token_id: Identifier
    item_id: Identifier
    damage_types: list[str] = Field(default_factory=list, max_length=16)


class GmAction(Strict):
    """A GM action from a card button, the token HUD or a tracker.

    ``action`` names the action (e.g. ``trap.search``, ``chase.start``); ``params`` are
    validated by the engine that owns the action.
    """

    type: Literal["gm.action"] = "gm.action"
    id: EventId
    action: str = Field(min_length=1, max_length=64)
    user_id: Identifier | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class SaveResult(Strict):
    """A player's answer to ``save.request``."""

    type: Literal["save.result"] = "save.result"
    id: EventId
    request_id: Identifier
    token_id: Identifier
    total: int = Field(ge=-100, le=200)
    natural: int | None = Field(default=None, ge=1, le=20)
    roll: dict[str, Any] | None = None


class SettingsUpdate(Strict):
    """World settings from the module (save mode, notice radius, policies)."""

    type: Literal["settings.update"] = "settings.update"
    id: EventId
    settings: dict[str, Any]


ClientMessage = Annotated[
    Hello
    | Ack
    | Ping
    | SceneSync
    | TokenUpdate
    | TokenRemove
    | RegionUpdate
    | RegionRemove
    | TokenMove
    | CombatStart
    | CombatTurn
    | CombatEnd
    | TimeAdvance
    | RestCompleted
    | DamageTaken
    | HealingApplied
    | Interaction
    | WeaponHit
    | GmAction
    | SaveResult
    | SettingsUpdate,
    Field(discriminator="type"),
]
client_adapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)
CLIENT_MODELS: tuple[type[Strict], ...] = get_args(get_args(ClientMessage)[0])
CLIENT_TYPES: frozenset[str] = frozenset(m.model_fields["type"].default for m in CLIENT_MODELS)


# ---------------------------------------------------------------- sidecar -> client


class Welcome(Strict):
    type: Literal["welcome"] = "welcome"
    protocol: int
    server_version: str
    world_id: str
    world_name: str
    last_seq: int = Field(description="newest world seq the sidecar has issued")
    resending: int = Field(description="how many unacked messages follow")


ErrorCode = Literal[
    "bad_json",
    "unknown_type",
    "invalid",
    "unauthorized",
    "unsupported_protocol",
    "origin_refused",
    "not_found",
    "rule_error",
    "storage_unavailable",
    "rate_limited",
    "internal",
]


class ErrorDetail(Strict):
    loc: str
    msg: str


class Error(Strict):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    ref: str | None = Field(default=None, description="the event id this answers, if known")
    details: list[ErrorDetail] = Field(default_factory=list)


class Accepted(Strict):
    """The event is committed; ``seqs`` are the world messages it produced."""

    type: Literal["accepted"] = "accepted"
    id: str
    duplicate: bool = False
    seqs: list[int] = Field(default_factory=list)


class Pong(Strict):
    type: Literal["pong"] = "pong"
    id: str


Visibility = Literal["public", "gm", "owners"]


class Speaker(Strict):
    alias: str = ""
    token_id: str | None = None
    actor_id: str | None = None


class Card(Strict):
    id: str
    title: str
    html: str
    visibility: Visibility = "public"
    owners_of: list[str] = Field(default_factory=list, description="token ids for 'owners'")
    speaker: Speaker = Field(default_factory=Speaker)
    rolls: list[dict[str, Any]] = Field(default_factory=list, description="Foundry Roll JSON")
    data: dict[str, Any] = Field(default_factory=dict)
    undoable: bool = False


class DamageOp(Strict):
    op: Literal["damage"] = "damage"
    token_id: str | None = None
    actor_id: str
    amount: int = Field(description="final amount after resistances; apply as a plain number")
    damage_type: str
    raw: int | None = None


class HealOp(Strict):
    op: Literal["heal"] = "heal"
    token_id: str | None = None
    actor_id: str
    amount: int


class SetHitPointsOp(Strict):
    """Set HP and temp HP to exact values (used by Undo to restore what a result changed)."""

    op: Literal["hp.set"] = "hp.set"
    token_id: str | None = None
    actor_id: str
    value: int
    temp: int = 0


class StatusOp(Strict):
    op: Literal["status"] = "status"
    token_id: str | None = None
    actor_id: str
    status: str
    active: bool


class ExhaustionOp(Strict):
    op: Literal["exhaustion"] = "exhaustion"
    token_id: str | None = None
    actor_id: str
    level: int = Field(ge=0, le=6)


class MoveTokenOp(Strict):
    op: Literal["token.move"] = "token.move"
    scene_id: str
    token_id: str
    x: float
    y: float
    elevation: float | None = None
    reason: str = ""


class AddCombatantOp(Strict):
    op: Literal["combatant.add"] = "combatant.add"
    scene_id: str | None = None
    name: str
    initiative: float
    token_id: str | None = None
    region_id: str | None = None
    key: str = Field(description="sidecar-side id of the actor this combatant stands for")


class RemoveCombatantOp(Strict):
    op: Literal["combatant.remove"] = "combatant.remove"
    key: str


class SetInitiativeOp(Strict):
    op: Literal["initiative.set"] = "initiative.set"
    token_id: str
    initiative: float


class RegionFlagOp(Strict):
    """Mirror a trap's state on its region so the GM sees it in the behaviour sheet."""

    op: Literal["region.trap_state"] = "region.trap_state"
    scene_id: str
    region_id: str
    state: dict[str, Any]


Op = Annotated[
    DamageOp
    | HealOp
    | SetHitPointsOp
    | StatusOp
    | ExhaustionOp
    | MoveTokenOp
    | AddCombatantOp
    | RemoveCombatantOp
    | SetInitiativeOp
    | RegionFlagOp,
    Field(discriminator="op"),
]


class CardMessage(Strict):
    type: Literal["card"] = "card"
    seq: int
    event_id: str
    card: Card


class OpsMessage(Strict):
    type: Literal["ops"] = "ops"
    seq: int
    event_id: str
    ops: list[Op]


class SaveRequest(Strict):
    """Ask a token's owner to roll a save. The DC is never sent: the sidecar judges."""

    type: Literal["save.request"] = "save.request"
    seq: int
    event_id: str
    request_id: str
    token_id: str
    actor_id: str
    ability: Ability
    advantage: bool = False
    disadvantage: bool = False
    timeout_s: float
    reason: str = ""


class StateMessage(Strict):
    """Structured state for the module's panels: a chase tracker, afflictions, a trap."""

    type: Literal["state"] = "state"
    seq: int
    event_id: str
    kind: Literal["chase", "afflictions", "trap", "catalog"]
    key: str
    data: dict[str, Any]


WorldMessage = Annotated[
    CardMessage | OpsMessage | SaveRequest | StateMessage, Field(discriminator="type")
]
ServerMessage = Annotated[
    Welcome | Error | Accepted | Pong | CardMessage | OpsMessage | SaveRequest | StateMessage,
    Field(discriminator="type"),
]
server_adapter: TypeAdapter[Any] = TypeAdapter(ServerMessage)


# ---------------------------------------------------------------- decoding


class ProtocolError(Exception):
    """A frame that cannot be turned into a message; carries the typed error reply."""

    def __init__(self, error: Error) -> None:
        super().__init__(error.message)
        self.error = error


def _guess_id(raw: Any) -> str | None:
    if isinstance(raw, dict):
        value = raw.get("id")
        if isinstance(value, str) and 0 < len(value) <= 128:
            return value
    return None


def summarize_validation(exc: ValidationError, kind: str = "") -> list[ErrorDetail]:
    details: list[ErrorDetail] = []
    for err in exc.errors()[:20]:
        parts = list(err["loc"])
        if parts and parts[0] == kind:
            parts = parts[1:]  # the union's tag adds nothing the reader needs
        loc = ".".join(str(p) for p in parts) or "(message)"
        details.append(ErrorDetail(loc=loc, msg=err["msg"]))
    return details


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def decode(frame: str | bytes) -> Any:
    """Parse one frame into a client message model, or raise ProtocolError.

    Strict JSON: ``NaN``/``Infinity`` and numbers that overflow a float (``1e400``) are
    refused, so no non-finite number can reach the state, the event log or a reply.
    """
    try:
        raw = json.loads(frame, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(
            Error(code="bad_json", message=f"frame is not valid JSON: {str(exc)[:200]}")
        ) from None
    ref = _guess_id(raw)
    if not isinstance(raw, dict):
        raise ProtocolError(
            Error(code="invalid", message="a message must be a JSON object", ref=ref)
        )
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        shown = kind if isinstance(kind, str) else repr(kind)
        raise ProtocolError(
            Error(
                code="unknown_type",
                message=f"unknown message type {shown[:64]!r}; expected one of "
                + ", ".join(sorted(CLIENT_TYPES)),
                ref=ref,
            )
        )
    try:
        return client_adapter.validate_python(raw)
    except ValidationError as exc:
        details = summarize_validation(exc, kind)
        summary = "; ".join(f"{d.loc}: {d.msg}" for d in details[:5])
        raise ProtocolError(
            Error(code="invalid", message=f"invalid {kind}: {summary}", ref=ref, details=details)
        ) from None
    except RecursionError:
        raise ProtocolError(
            Error(code="invalid", message="message is nested too deeply", ref=ref)
        ) from None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of both directions, as checked in at docs/protocol.schema.json."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "VTT Rules Sidecar protocol",
        "protocol": PROTOCOL_VERSION,
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": {
            "ClientMessage": TypeAdapter(ClientMessage).json_schema(
                ref_template="#/$defs/ClientMessage/$defs/{model}"
            ),
            "ServerMessage": TypeAdapter(ServerMessage).json_schema(
                ref_template="#/$defs/ServerMessage/$defs/{model}"
            ),
        },
    }


__all__ = [
    "PROTOCOL_VERSION",
    "Creature",
    "Point",
    "Name",
]
