"""Logging: plain text for a terminal, JSON lines for a log collector.

Every applied event is logged once (logger ``sidecar.event``) with its world, event id, type,
outcome, seqs and the milliseconds it took, as structured fields: ``key=value`` pairs after
the message in text, top-level keys in JSON. Nothing secret is logged: no tokens, no DCs, no
card texts.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

FORMATS = ("text", "json")

# attributes every LogRecord has; anything else on a record came in through ``extra=``
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
}


def fields(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _STANDARD}


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        extra = fields(record)
        if extra:
            line += " " + " ".join(f"{k}={_text(v)}" for k, v in extra.items())
        return line


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return json.dumps(text) if (not text or " " in text or '"' in text) else text


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, then the record's fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        entry.update(fields(record))
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def configure(level: str = "INFO", fmt: str = "text") -> None:
    """Set up the root logger for ``vtt-sidecar serve`` (stderr, one line per record)."""
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.INFO))


event_log = logging.getLogger("sidecar.event")


def log_event(
    world_id: str,
    event_id: str | None,
    event_type: str,
    reply: dict[str, Any],
    started: float,
    finished: float,
    **more: Any,
) -> None:
    """The one line per event: what it was, how it ended, how long it took."""
    if not event_log.isEnabledFor(logging.INFO):
        return
    outcome = reply.get("type", "?")
    if outcome == "error":
        outcome = f"error:{reply.get('code')}"
    elif reply.get("pending"):
        outcome = "pending"
    elif reply.get("duplicate"):
        outcome = "duplicate"
    event_log.info(
        "event",
        extra={
            "world": world_id,
            "event": event_id,
            "type": event_type,
            "outcome": outcome,
            "seqs": len(reply.get("seqs", [])),
            "ms": round((finished - started) * 1000, 3),
            **more,
        },
    )
