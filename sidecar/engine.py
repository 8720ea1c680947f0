"""The seam between the world executor and the rules engines.

A handler gets an ``EventContext`` (the world's state in a transaction, the event's dice,
content, card renderer and an outbox to write into) and the validated event. It does no
I/O: the world commits what it wrote, or forgets it if it raises.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from sidecar.cards import CardRenderer
from sidecar.content import ContentStore
from sidecar.dice import Dice
from sidecar.models import Ability, Creature, Ruleset, Strict
from sidecar.protocol import Card, Op, Speaker
from sidecar.rules.checks import TestResult, d20_test
from sidecar.state import WorldState, register_document


class RuleError(Exception):
    """An event that is well formed but cannot be applied (unknown token, bad action...)."""


class WorldSettings(Strict):
    save_mode: Literal["auto", "ask"] = "auto"
    save_timeout_s: float = Field(default=60, ge=1, le=3600)
    notice_radius_ft: float = Field(default=30, ge=0, le=10_000)
    drop_triggers: bool = False
    gm_picks_ability: Literal["best", "worst"] = "best"


register_document("settings", WorldSettings)


@dataclass(frozen=True)
class SaveRequestSpec:
    request_id: str
    token_id: str
    actor_id: str
    ability: Ability
    advantage: bool
    disadvantage: bool
    reason: str


class NeedSaves(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The event needs players' saves first; the world asks and runs the event again."""

    def __init__(self, requests: list[SaveRequestSpec]) -> None:
        super().__init__(f"{len(requests)} save(s) requested")
        self.requests = requests


class SaveAnswer(BaseModel):
    total: int | None = None  # None: the player did not answer; roll it ourselves
    natural: int | None = None
    roll: dict[str, Any] | None = None


@dataclass
class Outbox:
    """World messages an event produced, without seq numbers (the world assigns them)."""

    messages: list[dict[str, Any]] = field(default_factory=list)

    def card(self, card: Card) -> None:
        self.messages.append({"type": "card", "card": card.model_dump(mode="json")})

    def ops(self, ops: list[Op]) -> None:
        if ops:
            dumped = [op.model_dump(mode="json") for op in ops]
            self.messages.append({"type": "ops", "ops": dumped})

    def state(self, kind: str, key: str, data: dict[str, Any]) -> None:
        self.messages.append({"type": "state", "kind": kind, "key": key, "data": data})

    def save_request(self, spec: SaveRequestSpec, timeout_s: float) -> None:
        self.messages.append(
            {
                "type": "save.request",
                "request_id": spec.request_id,
                "token_id": spec.token_id,
                "actor_id": spec.actor_id,
                "ability": spec.ability,
                "advantage": spec.advantage,
                "disadvantage": spec.disadvantage,
                "timeout_s": timeout_s,
                "reason": spec.reason,
            }
        )


@dataclass
class EventContext:
    world_id: str
    event_id: str
    language: str
    ruleset: Ruleset
    state: WorldState
    dice: Dice
    content: ContentStore
    cards: CardRenderer
    now: float = 0.0
    answers: dict[str, SaveAnswer] = field(default_factory=dict)
    out: Outbox = field(default_factory=Outbox)
    _card_count: int = 0
    _request_count: int = 0
    _pending: list[SaveRequestSpec] = field(default_factory=list)

    @property
    def settings(self) -> WorldSettings:
        return self.state.get("settings", WorldSettings) or WorldSettings()

    def t(self, key: str, **params: Any) -> str:
        return self.content.catalog.t(self.language, key, **params)

    def next_card_id(self) -> str:
        self._card_count += 1
        return f"{self.event_id}#{self._card_count}"

    def render(
        self,
        template: str,
        *,
        title: str,
        visibility: Literal["public", "gm", "owners"] = "public",
        owners_of: list[str] | None = None,
        rolls: list[dict[str, Any]] | None = None,
        data: dict[str, Any] | None = None,
        speaker: Speaker | None = None,
        undoable: bool = False,
        **context: Any,
    ) -> Card:
        card = self.cards.render(
            template,
            self.language,
            title=title,
            visibility=visibility,
            owners_of=owners_of or [],
            rolls=rolls or [],
            data=data or {},
            speaker=speaker,
            card_id=self.next_card_id(),
            undoable=undoable,
            **context,
        )
        self.out.card(card)
        return card

    # saves -------------------------------------------------------------------
    def saving_throw(
        self,
        creature: Creature,
        token_id: str | None,
        ability: Ability,
        dc: int,
        *,
        advantage: bool = False,
        disadvantage: bool = False,
        reason: str = "",
    ) -> TestResult:
        """One resolver for every save: auto-roll, or the player's answer in 'ask' mode.

        In 'ask' mode an unanswered save of a player-owned creature is recorded as pending
        and, for the rest of this pass, treated as a failure; after the pass the world sends
        every pending request and runs the event again once they are answered or time out.
        """
        self._request_count += 1
        request_id = f"{self.event_id}/save{self._request_count}"
        asked = self.settings.save_mode == "ask" and bool(creature.owners) and token_id
        if asked:
            answer = self.answers.get(request_id)
            if answer is None:
                self._pending.append(
                    SaveRequestSpec(
                        request_id,
                        token_id or "",
                        creature.id,
                        ability,
                        advantage,
                        disadvantage,
                        reason,
                    )
                )
                return _placeholder_failure(self.dice, ability, dc)
            if answer.total is not None:
                return _answered(self.dice, ability, dc, answer)
        return d20_test(
            self.dice,
            kind="save",
            label=f"save.{ability}",
            modifier=creature.save_bonus(ability),
            dc=dc,
            creature=creature,
            ruleset=self.ruleset,
            advantage=advantage,
            disadvantage=disadvantage,
        )

    def raise_if_pending(self) -> None:
        if self._pending:
            raise NeedSaves(list(self._pending))


def _placeholder_failure(dice: Dice, ability: Ability, dc: int) -> TestResult:
    from sidecar.dice import NumberTerm, Roll

    roll = Roll(formula="0", terms=((1, NumberTerm(0)),), flavor="pending")
    return TestResult("save", f"save.{ability}", roll, 0, dc, 0, False, None)


def _answered(dice: Dice, ability: Ability, dc: int, answer: SaveAnswer) -> TestResult:
    from sidecar.dice import NumberTerm, Roll

    total = answer.total or 0
    roll = Roll(formula=str(total), terms=((1, NumberTerm(total)),), flavor="player")
    return TestResult("save", f"save.{ability}", roll, 0, dc, 0, total >= dc, answer.natural)


Handler = Callable[[EventContext, Any], None]
_HANDLERS: dict[str, list[Handler]] = {}


def on(event_type: str) -> Callable[[Handler], Handler]:
    """Register a handler for an event type; handlers run in registration order."""

    def decorator(fn: Handler) -> Handler:
        _HANDLERS.setdefault(event_type, []).append(fn)
        return fn

    return decorator


def handlers_for(event_type: str) -> list[Handler]:
    return _HANDLERS.get(event_type, [])


GmActionHandler = Callable[[EventContext, Any], None]
_GM_ACTIONS: dict[str, tuple[type[BaseModel], GmActionHandler]] = {}


def gm_action(name: str, params: type[BaseModel]) -> Callable[[GmActionHandler], GmActionHandler]:
    """Register a GM action; ``params`` validates the action's parameters."""

    def decorator(fn: GmActionHandler) -> GmActionHandler:
        if name in _GM_ACTIONS:
            raise ValueError(f"GM action {name!r} registered twice")
        _GM_ACTIONS[name] = (params, fn)
        return fn

    return decorator


def gm_actions() -> dict[str, tuple[type[BaseModel], GmActionHandler]]:
    return dict(_GM_ACTIONS)
