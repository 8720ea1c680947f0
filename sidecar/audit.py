"""The audit log and the replay check, both read from the store.

``audit`` lists a world's events with the rolls and results they produced (the outbox keeps
every world message after it is acked). ``replay`` re-runs every stored pass of the rules on
a fresh copy of the world that holds only the world row (so the same seed) and compares what
it produces, message by message and seq by seq, with what was stored: a recorded session
must replay exactly, so any divergence means a rule read something besides state, event and
dice, or the store was changed behind the sidecar's back.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sidecar.cards import CardRenderer, html_text
from sidecar.content import ContentStore
from sidecar.store import EventRow, Store
from sidecar.world import World


@dataclass
class RollInfo:
    formula: str
    total: float | int | None
    faces: list[int]


@dataclass
class CardInfo:
    seq: int
    visibility: str
    title: str
    text: str
    rolls: list[RollInfo]


@dataclass
class AuditEntry:
    received_at: float
    event_id: str
    type: str
    detail: str
    status: str
    seqs: list[int]
    error: str | None = None
    cards: list[CardInfo] = field(default_factory=list)
    ops: list[dict[str, Any]] = field(default_factory=list)
    other: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "received_at": iso(self.received_at),
            "event_id": self.event_id,
            "type": self.type,
            "detail": self.detail,
            "status": self.status,
            "seqs": self.seqs,
            "error": self.error,
            "cards": [
                {
                    "seq": c.seq,
                    "visibility": c.visibility,
                    "title": c.title,
                    "text": c.text,
                    "rolls": [r.__dict__ for r in c.rolls],
                }
                for c in self.cards
            ],
            "ops": self.ops,
            "messages": self.other,
        }


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_time(text: str) -> float:
    """An ISO 8601 date or time; without a zone it is taken as UTC."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


def roll_info(roll: dict[str, Any]) -> RollInfo:
    faces = [
        int(result["result"])
        for term in roll.get("terms", [])
        if term.get("class") == "Die"
        for result in term.get("results", [])
        if result.get("active", True)
    ]
    return RollInfo(formula=str(roll.get("formula", "")), total=roll.get("total"), faces=faces)


def _mentions(texts: list[str], ident: str) -> bool:
    """``ident`` appears as a JSON string value or as the last part of a key (``a:b:ID``)."""
    quoted = json.dumps(ident)
    tail = json.dumps(":" + ident)[1:]
    return any(quoted in text or tail in text for text in texts)


def _detail(event: dict[str, Any]) -> str:
    if event.get("type") == "gm.action":
        return str(event.get("action", ""))
    if event.get("type") == "token.move":
        return str(event.get("token_id", ""))
    return ""


def audit(
    store: Store,
    world_id: str,
    *,
    since: float | None = None,
    until: float | None = None,
    creature: str | None = None,
    trap: str | None = None,
    chase: str | None = None,
) -> list[AuditEntry]:
    """The world's events in arrival order with what they produced, filtered."""
    messages: dict[str, list[tuple[int, str]]] = {}
    for seq, event_id, body in store.all_messages(world_id):
        messages.setdefault(event_id, []).append((seq, body))
    entries = []
    for row in store.events(world_id):
        if since is not None and row.received_at < since:
            continue
        if until is not None and row.received_at > until:
            continue
        produced = messages.get(row.event_id, [])
        texts = [row.body, *[body for _, body in produced]]
        wanted = [x for x in (creature, trap, chase) if x]
        if any(not _mentions(texts, ident) for ident in wanted):
            continue
        entries.append(_entry(row, produced))
    return entries


def _entry(row: EventRow, produced: list[tuple[int, str]]) -> AuditEntry:
    event = json.loads(row.body).get("event", {})
    entry = AuditEntry(
        received_at=row.received_at,
        event_id=row.event_id,
        type=row.type,
        detail=_detail(event),
        status=row.status,
        seqs=row.seqs,
        error=row.reply.get("message") if row.reply.get("type") == "error" else None,
    )
    for seq, body in produced:
        message = json.loads(body)
        if message.get("type") == "card":
            card = message["card"]
            entry.cards.append(
                CardInfo(
                    seq=seq,
                    visibility=card.get("visibility", "public"),
                    title=card.get("title", ""),
                    text=html_text(card.get("html", "")),
                    rolls=[roll_info(r) for r in card.get("rolls", [])],
                )
            )
        elif message.get("type") == "ops":
            entry.ops.extend(message.get("ops", []))
        else:
            entry.other.append(message)
    return entry


def _op_text(op: dict[str, Any]) -> str:
    name = op.get("op", "?")
    rest = ", ".join(f"{k}={v}" for k, v in op.items() if k != "op" and v not in (None, ""))
    return f"{name}({rest})"


def format_entries(entries: list[AuditEntry]) -> str:
    lines: list[str] = []
    for e in entries:
        kind = f"{e.type}({e.detail})" if e.detail else e.type
        seqs = f"  seqs {','.join(map(str, e.seqs))}" if e.seqs else ""
        lines.append(f"{iso(e.received_at)}  {e.event_id}  {kind}  {e.status}{seqs}")
        if e.error:
            lines.append(f"    error: {e.error}")
        for card in e.cards:
            lines.append(f"    card #{card.seq} [{card.visibility}] {card.title}")
            for roll in card.rolls:
                faces = " ".join(map(str, roll.faces))
                lines.append(f"      roll {roll.formula} = {roll.total}  [{faces}]")
            for text in card.text.splitlines()[1:]:
                lines.append(f"      | {text}")
        if e.ops:
            lines.append("    ops: " + "; ".join(_op_text(op) for op in e.ops))
        for message in e.other:
            what = message.get("request_id") or message.get("key") or ""
            lines.append(f"    {message.get('type')} #{message.get('seq')} {what}")
    lines.append(f"{len(entries)} event(s)")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ replay


@dataclass
class ReplayReport:
    world_id: str
    steps: int = 0
    messages: int = 0
    documents: int = 0
    divergences: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.divergences

    def summary(self) -> str:
        head = (
            f"world {self.world_id}: replayed {self.steps} pass(es), compared "
            f"{self.messages} message(s) and {self.documents} document(s): "
        )
        if self.ok:
            return head + "no divergence"
        shown = self.divergences[:20]
        more = len(self.divergences) - len(shown)
        tail = [f"  ... and {more} more"] if more else []
        return "\n".join(
            [head + f"{len(self.divergences)} divergence(s)", *[f"  {d}" for d in shown], *tail]
        )


def replay(store: Store, world_id: str, content: ContentStore, cards: CardRenderer) -> ReplayReport:
    """Re-run the world's recorded passes from its seed and compare with what was stored."""
    row = store.get_world(world_id)
    if row is None:
        raise KeyError(world_id)
    report = ReplayReport(world_id)
    events = {e.event_id: e for e in store.events(world_id)}
    with tempfile.TemporaryDirectory(prefix="vtt-replay-") as tmp:
        copy = Store(Path(tmp) / "replay.sqlite3")
        try:
            copy.add_world(world_id, row.name)
            copy.set_seed(world_id, row.seed)
            fresh = copy.get_world(world_id)
            assert fresh is not None
            world = World(fresh, copy, content, cards)
            for event_id, status, answers in store.steps(world_id):
                report.steps += 1
                event = events.get(event_id)
                if event is None:
                    report.divergences.append(f"pass {report.steps}: event {event_id} is missing")
                    continue
                world.replay_step(event_id, event.body, event.stream, answers)
                again = copy.get_event(world_id, event_id)
                got = again.status if again is not None else "not stored"
                if got != status:
                    report.divergences.append(
                        f"pass {report.steps} ({event_id}): was {status}, replay {got}"
                    )
            _compare_messages(report, store.all_messages(world_id), copy.all_messages(world_id))
            _compare_docs(report, store.load_docs(world_id), copy.load_docs(world_id))
            for event_id, event in events.items():
                again = copy.get_event(world_id, event_id)
                if again is not None and again.seqs != event.seqs:
                    report.divergences.append(
                        f"event {event_id}: seqs {event.seqs}, replay {again.seqs}"
                    )
        finally:
            copy.close()
    return report


def _compare_messages(
    report: ReplayReport,
    stored: list[tuple[int, str, str]],
    replayed: list[tuple[int, str, str]],
) -> None:
    mine = {seq: (event_id, body) for seq, event_id, body in stored}
    theirs = {seq: (event_id, body) for seq, event_id, body in replayed}
    report.messages = len(mine)
    for seq in sorted(set(mine) | set(theirs)):
        if seq not in theirs:
            report.divergences.append(f"seq {seq} ({mine[seq][0]}): stored, not produced")
        elif seq not in mine:
            report.divergences.append(f"seq {seq} ({theirs[seq][0]}): produced, not stored")
        else:
            a, b = json.loads(mine[seq][1]), json.loads(theirs[seq][1])
            if a != b:
                report.divergences.append(
                    f"seq {seq} ({mine[seq][0]}): differs at {_first_difference(a, b)}"
                )


def _compare_docs(
    report: ReplayReport, stored: list[tuple[str, str]], replayed: list[tuple[str, str]]
) -> None:
    mine = {k: json.loads(v) for k, v in stored}
    theirs = {k: json.loads(v) for k, v in replayed}
    report.documents = len(mine)
    for key in sorted(set(mine) | set(theirs)):
        if mine.get(key) != theirs.get(key):
            where = _first_difference(mine.get(key), theirs.get(key))
            report.divergences.append(f"document {key}: differs at {where}")


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    shown_a, shown_b = json.dumps(a)[:80], json.dumps(b)[:80]
    return f"{path or '(whole)'}: stored {shown_a}, replay {shown_b}"
