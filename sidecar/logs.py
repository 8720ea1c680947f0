"""Logging: plain text for a terminal, JSON lines for a log collector.

Every applied event is logged once (logger ``sidecar.event``) with its world, event id, type,
outcome, seqs and the milliseconds it took, as structured fields: ``key=value`` pairs after
the message in text, top-level keys in JSON. Nothing secret is logged: no tokens, no DCs, no
card texts.

Lines are formatted on the event loop but written by a thread through a bounded queue: a
slow or stuck reader of stderr (a full pipe) must never stall the events of every world. If
the queue is full, lines are dropped and the number dropped is reported once it drains.
"""

from __future__ import annotations

import json
import logging
import queue
import sys
import threading
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


class BackgroundHandler(logging.Handler):
    """Format here, write in a thread; drop (and count) lines when the writer falls behind."""

    def __init__(self, stream: Any, capacity: int = 10_000) -> None:
        super().__init__()
        self.stream = stream
        self.lines: queue.Queue[str | None] = queue.Queue(capacity)
        self.dropped = 0
        self.writer = threading.Thread(target=self._write, name="log-writer", daemon=True)
        self.writer.start()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:
            self.handleError(record)
            return
        try:
            self.lines.put_nowait(line)
        except queue.Full:
            self.dropped += 1

    def _write(self) -> None:
        while True:
            line = self.lines.get()
            if line is None:
                return
            try:
                if self.dropped:
                    dropped, self.dropped = self.dropped, 0
                    self.stream.write(f"(log writer fell behind: {dropped} line(s) dropped)\n")
                self.stream.write(line + "\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass  # stderr closed: nothing else to do with a log line

    def close(self) -> None:
        try:
            self.lines.put(None, timeout=1.0)
            self.writer.join(timeout=2.0)  # a stuck reader must not hold up the exit
        except queue.Full:
            pass
        super().close()


def configure(level: str = "INFO", fmt: str = "text") -> None:
    """Set up the root logger for ``vtt-sidecar serve`` (stderr, one line per record)."""
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    handler = BackgroundHandler(sys.stderr)
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
