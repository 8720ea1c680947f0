"""The per-world executor: ordering, idempotency, persistence, paused events.

Events of one world are applied one at a time (``apply`` is synchronous: nothing awaits
while a world's state is in a transaction), so worlds never see each other's half-done
work. An event and everything it produced are stored in one transaction before the caller
sends any reply; an event id seen before returns the stored outcome without rolling again.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from sidecar import engine
from sidecar.cards import CardRenderer
from sidecar.content import ContentStore
from sidecar.dice import Dice
from sidecar.engine import EventContext, NeedSaves, RuleError, SaveAnswer
from sidecar.i18n import normalize_lang
from sidecar.protocol import (
    Accepted,
    Error,
    ErrorDetail,
    GmAction,
    SaveResult,
    client_adapter,
    summarize_validation,
)
from sidecar.rules import registry  # noqa: F401  (registers the handlers)
from sidecar.state import WorldState, load_document
from sidecar.store import EventRow, Store, StoreError, WorldRow
from sidecar.undo import plan_undo

log = logging.getLogger("sidecar.world")


def check_state() -> bool:
    """Tests set VTT_SIDECAR_CHECK_STATE=1 to catch engines that change committed
    documents in place (which would break rollback and undo)."""
    return os.environ.get("VTT_SIDECAR_CHECK_STATE") == "1"


class UndoParams(BaseModel):
    event_id: str


@dataclass
class Outcome:
    """What the caller sends back: world messages (seq, json) then the reply."""

    reply: dict[str, Any]
    messages: list[tuple[int, str]] = field(default_factory=list)


class World:
    def __init__(
        self, row: WorldRow, store: Store, content: ContentStore, cards: CardRenderer
    ) -> None:
        self.id = row.id
        self.name = row.name
        self.seed = row.seed
        self.next_stream = row.next_stream
        self.next_applied = row.next_applied
        self.last_seq = row.last_seq
        self.acked_seq = row.acked_seq
        self.store = store
        self.content = content
        self.cards = cards
        self.language = "en"
        self.ruleset: Any = "legacy"
        self.state = WorldState(
            {key: load_document(key, body) for key, body in store.load_docs(row.id)}
        )
        self.on_deadline: Callable[[World, str, float], None] | None = None
        self._undoing: str | None = None

    # session facts -------------------------------------------------------------
    def set_session(self, language: str, ruleset: str) -> None:
        self.language = normalize_lang(language)
        self.ruleset = ruleset if ruleset in ("legacy", "modern") else "legacy"

    def unacked(self, client_last_seq: int) -> list[tuple[int, str]]:
        return self.store.unacked(self.id, max(client_last_seq, self.acked_seq))

    def ack(self, seq: int) -> None:
        seq = min(seq, self.last_seq)
        if seq > self.acked_seq:
            self.store.ack(self.id, seq)
            self.acked_seq = seq

    # applying events ------------------------------------------------------------
    def apply(self, event: Any) -> Outcome:
        """Apply one validated client event (anything but hello/ack/ping)."""
        existing = self.store.get_event(self.id, event.id)
        if existing is not None:
            return self._duplicate(existing)
        if isinstance(event, SaveResult):
            return self._save_result(event)
        stream = self.next_stream
        body = json.dumps(
            {
                "event": event.model_dump(mode="json"),
                "language": self.language,
                "ruleset": self.ruleset,
            }
        )
        return self._run(event, body, stream=stream, answers={}, new_event=True)

    def replay_step(
        self, event_id: str, body: str, stream: int, answers: dict[str, Any]
    ) -> Outcome:
        """Run one recorded pass again as it ran: the stored body (event, language, ruleset),
        its dice stream and the answers it had. ``vtt-sidecar replay`` calls this on a fresh
        copy of the world; a later pass of a paused event continues its stored row."""
        stored = json.loads(body)
        event = client_adapter.validate_python(stored["event"])
        existing = self.store.get_event(self.id, event_id)
        return self._run(
            event,
            body,
            stream=stream,
            answers=answers,
            new_event=existing is None,
            prior_seqs=existing.seqs if existing is not None else None,
            language=stored.get("language"),
            ruleset=stored.get("ruleset"),
        )

    def _duplicate(self, row: EventRow) -> Outcome:
        reply = dict(row.reply)
        if reply.get("type") == "accepted":
            reply["duplicate"] = True
        messages = [
            (seq, body)
            for seq, body in self.store.messages_of(self.id, row.seqs)
            if seq > self.acked_seq
        ]
        return Outcome(reply, messages)

    def _context(
        self,
        event_id: str,
        stream: int,
        answers: dict[str, Any],
        now: float,
        language: str,
        ruleset: Any,
    ) -> EventContext:
        return EventContext(
            world_id=self.id,
            event_id=event_id,
            language=language,
            ruleset=ruleset,
            state=self.state,
            dice=Dice.seeded(self.seed, stream),
            content=self.content,
            cards=self.cards,
            now=now,
            answers={k: SaveAnswer.model_validate(v) for k, v in answers.items()},
        )

    def _run(
        self,
        event: Any,
        body: str,
        *,
        stream: int,
        answers: dict[str, Any],
        new_event: bool,
        prior_seqs: list[int] | None = None,
        language: str | None = None,
        ruleset: Any = None,
        now: float = 0.0,
        extra_messages: list[tuple[int, str]] | None = None,
    ) -> Outcome:
        ctx = self._context(
            event.id, stream, answers, now, language or self.language, ruleset or self.ruleset
        )
        self._undoing = None
        guard = self.state.fingerprint() if check_state() else None
        seqs = list(prior_seqs or [])
        status = "applied"
        pending: dict[str, Any] | None = None
        try:
            self._dispatch(ctx, event)
            if guard is not None:
                touched = self.state.changed_in_place(guard)
                if touched:
                    raise AssertionError(f"documents changed without edit(): {touched}")
            ctx.raise_if_pending()
        except NeedSaves as need:
            self.state.rollback()
            ctx.out.messages.clear()
            timeout = ctx.settings.save_timeout_s
            for spec in need.requests:
                ctx.out.save_request(spec, timeout)
            status = "pending"
            pending = {
                "requests": [spec.request_id for spec in need.requests],
                "timeout_s": timeout,
            }
        except (RuleError, ValidationError) as exc:
            self.state.rollback()
            return self._reject(event, body, stream, new_event, exc, answers)
        except Exception as exc:  # a rules bug must not take the world down
            self.state.rollback()
            log.exception("event %s failed in world %s", event.id, self.id)
            return self._reject(event, body, stream, new_event, exc, answers)

        changes = self.state.pending_changes()
        serialized = {k: (None if v is None else v.model_dump_json()) for k, v in changes.items()}
        undo_images: dict[str, list[str | None]] | None = None
        if status == "applied" and serialized:
            undo_images = {}
            for key, after in serialized.items():
                original = self.state.committed(key)
                before = original.model_dump_json() if original is not None else None
                if before != after:
                    undo_images[key] = [before, after]
        messages: list[tuple[int, str]] = []
        seq = self.last_seq
        for message in ctx.out.messages:
            seq += 1
            messages.append((seq, json.dumps({**message, "seq": seq, "event_id": event.id})))
        seqs += [s for s, _ in messages]
        reply = Accepted(id=event.id, seqs=seqs).model_dump(mode="json")
        if status == "pending":
            reply["pending"] = True
        applied_n = self.next_applied if status == "applied" else None
        try:
            self.store.record(
                self.id,
                event_id=event.id,
                event_type=event.type,
                body=body,
                stream=stream,
                new_event=new_event,
                status=status,
                reply=reply,
                seqs=seqs,
                messages=messages,
                changes=serialized,
                next_stream=max(self.next_stream, stream + 1),
                last_seq=seq,
                answers=answers,
                pending=pending,
                applied_n=applied_n,
                next_applied=self.next_applied + (1 if applied_n else 0),
                undo=undo_images,
                undoes=self._undoing,
                step=answers,
            )
        except StoreError as exc:
            self.state.rollback()
            log.error("storage refused event %s of world %s: %s", event.id, self.id, exc)
            error = Error(
                code="storage_unavailable",
                message=f"the sidecar cannot store this event, so it was not applied: {exc}",
                ref=event.id,
            )
            return Outcome(error.model_dump(mode="json"))
        self.state.commit()
        self.next_stream = max(self.next_stream, stream + 1)
        self.last_seq = seq
        if applied_n:
            self.next_applied += 1
        if pending is not None and self.on_deadline is not None:
            self.on_deadline(self, event.id, float(pending["timeout_s"]))
        return Outcome(reply, (extra_messages or []) + messages)

    def _dispatch(self, ctx: EventContext, event: Any) -> None:
        if isinstance(event, GmAction) and event.action == "event.undo":
            self._undo(ctx, UndoParams.model_validate(event.params))
            return
        if isinstance(event, GmAction):
            actions = engine.gm_actions()
            if event.action not in actions:
                known = ", ".join(sorted(actions))
                raise RuleError(f"unknown GM action {event.action!r}; known: {known}")
            params_model, handler = actions[event.action]
            handler(ctx, params_model.model_validate(event.params))
            return
        for handler in engine.handlers_for(event.type):
            handler(ctx, event)

    def _undo(self, ctx: EventContext, params: UndoParams) -> None:
        """Revert what an earlier event changed, where nothing changed it since."""
        target = self.store.get_event(self.id, params.event_id)
        if target is None:
            raise RuleError(f"no event {params.event_id!r} to undo")
        if target.status != "applied":
            raise RuleError(f"event {params.event_id!r} was not applied ({target.status})")
        title = ctx.t("card.undo.title")
        if target.undone_by:
            ctx.render(
                "text.html.j2",
                title=title,
                visibility="gm",
                text=ctx.t("card.undo.already", event=params.event_id),
            )
            return
        plan = plan_undo(ctx.state, target.undo or {})
        self._undoing = params.event_id
        lines = [{"text": ctx.t("card.undo.reverted", what=item)} for item in plan.reverted]
        lines += [{"text": ctx.t("card.undo.conflict", what=item)} for item in plan.conflicts]
        if not lines:
            lines = [{"text": ctx.t("card.undo.nothing")}]
        ctx.render(
            "generic.html.j2",
            title=title,
            visibility="gm",
            data={"undone": params.event_id, "conflicts": plan.conflicts},
            lines=lines,
        )
        ctx.out.ops(plan.ops)
        for kind, key, data in plan.states:
            ctx.out.state(kind, key, data)

    def _reject(
        self,
        event: Any,
        body: str,
        stream: int,
        new_event: bool,
        exc: Exception,
        answers: dict[str, Any] | None = None,
    ) -> Outcome:
        if isinstance(exc, ValidationError):
            details = summarize_validation(exc)
            summary = "; ".join(f"{d.loc}: {d.msg}" for d in details[:5])
            error = Error(
                code="invalid",
                message=f"invalid parameters: {summary}",
                ref=event.id,
                details=details,
            )
        elif isinstance(exc, RuleError):
            error = Error(code="rule_error", message=str(exc), ref=event.id)
        else:
            error = Error(
                code="internal",
                message=f"the sidecar could not apply this event ({type(exc).__name__})",
                ref=event.id,
                details=[ErrorDetail(loc="(rules)", msg=str(exc)[:300])],
            )
        reply = error.model_dump(mode="json")
        try:
            self.store.record(
                self.id,
                event_id=event.id,
                event_type=event.type,
                body=body,
                stream=stream,
                new_event=new_event,
                status="rejected",
                reply=reply,
                seqs=[],
                messages=[],
                changes={},
                next_stream=max(self.next_stream, stream + 1),
                last_seq=self.last_seq,
                answers={},
                pending=None,
                applied_n=None,
                next_applied=self.next_applied,
                step=answers or {},
            )
            self.next_stream = max(self.next_stream, stream + 1)
        except StoreError as store_exc:
            reply = Error(
                code="storage_unavailable",
                message=f"the sidecar cannot store this event: {store_exc}",
                ref=event.id,
            ).model_dump(mode="json")
        return Outcome(reply)

    # paused events ----------------------------------------------------------------
    def _save_result(self, result: SaveResult) -> Outcome:
        original_id = result.request_id.rsplit("/", 1)[0]
        original = self.store.get_event(self.id, original_id)
        resumed = Outcome({})
        if (
            original is not None
            and original.status == "pending"
            and original.pending
            and result.request_id in original.pending["requests"]
        ):
            answers = dict(original.answers)
            answers[result.request_id] = SaveAnswer(
                total=result.total, natural=result.natural, roll=result.roll
            ).model_dump()
            resumed = self._resume(original, answers)
        note = Accepted(id=result.id, seqs=[s for s, _ in resumed.messages])
        # the save.result itself is logged so a resend is recognised
        body = json.dumps({"event": result.model_dump(mode="json")})
        stream = self.next_stream
        try:
            self.store.record(
                self.id,
                event_id=result.id,
                event_type=result.type,
                body=body,
                stream=stream,
                new_event=True,
                status="applied",
                reply=note.model_dump(mode="json"),
                seqs=note.seqs,
                messages=[],
                changes={},
                next_stream=stream + 1,
                last_seq=self.last_seq,
                answers={},
                pending=None,
                applied_n=None,
                next_applied=self.next_applied,
            )
            self.next_stream = stream + 1
        except StoreError as exc:
            log.error("could not log save.result %s: %s", result.id, exc)
        return Outcome(note.model_dump(mode="json"), resumed.messages)

    def _resume(self, row: EventRow, answers: dict[str, Any]) -> Outcome:
        pending = row.pending or {}
        if not all(req in answers for req in pending.get("requests", [])):
            # not everyone has answered yet: keep waiting, remember this answer
            self.store.record(
                self.id,
                event_id=row.event_id,
                event_type=row.type,
                body=row.body,
                stream=row.stream,
                new_event=False,
                status="pending",
                reply=row.reply,
                seqs=row.seqs,
                messages=[],
                changes={},
                next_stream=self.next_stream,
                last_seq=self.last_seq,
                answers=answers,
                pending=pending,
                applied_n=None,
                next_applied=self.next_applied,
            )
            return Outcome(row.reply)
        stored = json.loads(row.body)
        event = client_adapter.validate_python(stored["event"])
        return self._run(
            event,
            row.body,
            stream=row.stream,
            answers=answers,
            new_event=False,
            prior_seqs=row.seqs,
            language=stored.get("language"),
            ruleset=stored.get("ruleset"),
        )

    def expire(self, event_id: str) -> Outcome:
        """A paused event's players did not all answer in time: roll the rest ourselves."""
        row = self.store.get_event(self.id, event_id)
        if row is None or row.status != "pending" or not row.pending:
            return Outcome({})
        answers = dict(row.answers)
        for request in row.pending.get("requests", []):
            answers.setdefault(request, SaveAnswer().model_dump())
        return self._resume(row, answers)

    def pending_deadlines(self) -> list[tuple[str, float]]:
        return [
            (row.event_id, float((row.pending or {}).get("timeout_s", 60)))
            for row in self.store.pending_events(self.id)
        ]


def validate_params(model: type[BaseModel], params: dict[str, Any]) -> BaseModel:
    return model.model_validate(params)
