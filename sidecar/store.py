"""SQLite persistence: worlds, their state documents, the event log and the outbox.

One file (WAL mode) holds every world. Each applied event is written in one transaction
with everything it produced: changed state documents, outbound messages with their seq,
the dice stream it used and its reply. ``synchronous=NORMAL`` keeps every commit across a
process crash (``kill -9``); only a power loss may drop the newest commits.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 4

MIGRATIONS: dict[int, list[str]] = {
    1: [
        """CREATE TABLE worlds (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            token_hash TEXT NOT NULL,
            token_salt TEXT NOT NULL,
            seed TEXT NOT NULL,
            next_stream INTEGER NOT NULL DEFAULT 1,
            last_seq INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL
        )""",
        """CREATE TABLE docs (
            world_id TEXT NOT NULL,
            key TEXT NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (world_id, key)
        ) WITHOUT ROWID""",
        """CREATE TABLE events (
            world_id TEXT NOT NULL,
            event_id TEXT NOT NULL,
            stream INTEGER NOT NULL,
            type TEXT NOT NULL,
            body TEXT NOT NULL,
            status TEXT NOT NULL,
            reply TEXT NOT NULL,
            seqs TEXT NOT NULL,
            received_at REAL NOT NULL,
            PRIMARY KEY (world_id, event_id)
        )""",
        """CREATE TABLE outbox (
            world_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            event_id TEXT NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (world_id, seq)
        ) WITHOUT ROWID""",
    ],
    2: [
        # applications in the order they happened (an event paused for players' saves is
        # applied later than it arrived), with the answers it was applied with: the replay log
        "ALTER TABLE events ADD COLUMN applied_n INTEGER",
        "ALTER TABLE events ADD COLUMN answers TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE events ADD COLUMN pending TEXT",
        "CREATE INDEX events_applied ON events (world_id, applied_n)",
        "ALTER TABLE worlds ADD COLUMN next_applied INTEGER NOT NULL DEFAULT 1",
        # outbox rows stay for the audit log; this marks what the client has applied
        "ALTER TABLE worlds ADD COLUMN acked_seq INTEGER NOT NULL DEFAULT 0",
    ],
    3: [
        # before/after images of the state documents an event changed, so a GM can undo it
        "ALTER TABLE events ADD COLUMN undo TEXT",
        "ALTER TABLE events ADD COLUMN undone_by TEXT",
    ],
    4: [
        # every pass of the rules in the order it ran (applied, paused for saves, rejected)
        # with the answers it ran with: what `vtt-sidecar replay` re-runs. applied_n alone
        # cannot place the save.request waves of a paused event between other events.
        """CREATE TABLE steps (
            world_id TEXT NOT NULL,
            n INTEGER NOT NULL,
            event_id TEXT NOT NULL,
            status TEXT NOT NULL,
            answers TEXT NOT NULL,
            PRIMARY KEY (world_id, n)
        ) WITHOUT ROWID""",
        "INSERT INTO steps (world_id, n, event_id, status, answers)"
        " SELECT world_id, applied_n, event_id, status, answers FROM events"
        " WHERE applied_n IS NOT NULL",
    ],
}


class StoreError(Exception):
    """The database cannot take a write (disk full, read-only, locked...)."""


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "vtt-sidecar" / "sidecar.sqlite3"


def hash_token(token: str, salt: str) -> str:
    return hashlib.sha256((salt + ":" + token).encode()).hexdigest()


@dataclass
class WorldRow:
    id: str
    name: str
    token_hash: str
    token_salt: str
    seed: int
    next_stream: int
    last_seq: int
    next_applied: int
    acked_seq: int
    created_at: float

    def token_matches(self, token: str) -> bool:
        return hmac.compare_digest(hash_token(token, self.token_salt), self.token_hash)


@dataclass
class EventRow:
    event_id: str
    stream: int
    type: str
    body: str
    status: str
    reply: dict[str, Any]
    seqs: list[int]
    answers: dict[str, Any]
    pending: dict[str, Any] | None
    applied_n: int | None
    received_at: float
    undo: dict[str, list[str | None]] | None = None
    undone_by: str | None = None


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not path.exists():
            # owner-only: the file holds trap positions, DCs and token hashes. SQLite gives
            # its -wal and -shm files the same mode as the database file.
            with suppress(FileExistsError):
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.migrate()

    def close(self) -> None:
        self.db.close()

    # schema --------------------------------------------------------------------
    def schema_version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self) -> None:
        current = self.schema_version()
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer sidecar (schema {current}, "
                f"this one knows {SCHEMA_VERSION}); upgrade the sidecar"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            with self.transaction():
                for statement in MIGRATIONS[version]:
                    self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version={version}")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(str(exc)) from exc
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            with suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise StoreError(str(exc)) from exc

    # worlds ----------------------------------------------------------------------
    def add_world(self, world_id: str, name: str | None = None) -> str:
        """Create a world and return its token (shown once; only a hash is kept)."""
        token = secrets.token_urlsafe(32)
        salt = secrets.token_hex(16)
        seed = secrets.randbits(63)
        try:
            with self.transaction() as db:
                db.execute(
                    "INSERT INTO worlds (id, name, token_hash, token_salt, seed, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        world_id,
                        name or world_id,
                        hash_token(token, salt),
                        salt,
                        str(seed),
                        time.time(),
                    ),
                )
        except sqlite3.IntegrityError:
            raise StoreError(f"world {world_id!r} already exists") from None
        return token

    def rotate_token(self, world_id: str) -> str:
        token = secrets.token_urlsafe(32)
        salt = secrets.token_hex(16)
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE worlds SET token_hash = ?, token_salt = ? WHERE id = ?",
                (hash_token(token, salt), salt, world_id),
            )
            if cur.rowcount == 0:
                raise StoreError(f"no world {world_id!r}")
        return token

    def set_seed(self, world_id: str, seed: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE worlds SET seed = ? WHERE id = ?", (str(seed), world_id))

    def remove_world(self, world_id: str) -> bool:
        with self.transaction() as db:
            cur = db.execute("DELETE FROM worlds WHERE id = ?", (world_id,))
            for table in ("docs", "events", "outbox", "steps"):
                db.execute(f"DELETE FROM {table} WHERE world_id = ?", (world_id,))
        return cur.rowcount > 0

    def list_worlds(self) -> list[WorldRow]:
        rows = self.db.execute("SELECT * FROM worlds ORDER BY id").fetchall()
        return [self._world(r) for r in rows]

    def get_world(self, world_id: str) -> WorldRow | None:
        row = self.db.execute("SELECT * FROM worlds WHERE id = ?", (world_id,)).fetchone()
        return self._world(row) if row else None

    @staticmethod
    def _world(row: sqlite3.Row) -> WorldRow:
        return WorldRow(
            id=row["id"],
            name=row["name"],
            token_hash=row["token_hash"],
            token_salt=row["token_salt"],
            seed=int(row["seed"]),
            next_stream=row["next_stream"],
            last_seq=row["last_seq"],
            next_applied=row["next_applied"],
            acked_seq=row["acked_seq"],
            created_at=row["created_at"],
        )

    # state ------------------------------------------------------------------------
    def load_docs(self, world_id: str) -> list[tuple[str, str]]:
        rows = self.db.execute(
            "SELECT key, body FROM docs WHERE world_id = ?", (world_id,)
        ).fetchall()
        return [(r["key"], r["body"]) for r in rows]

    # events -----------------------------------------------------------------------
    def get_event(self, world_id: str, event_id: str) -> EventRow | None:
        row = self.db.execute(
            "SELECT * FROM events WHERE world_id = ? AND event_id = ?", (world_id, event_id)
        ).fetchone()
        return self._event(row) if row else None

    def events(self, world_id: str, *, applied_only: bool = False) -> list[EventRow]:
        if applied_only:
            sql = (
                "SELECT * FROM events WHERE world_id = ? AND applied_n IS NOT NULL"
                " ORDER BY applied_n"
            )
        else:
            sql = "SELECT * FROM events WHERE world_id = ? ORDER BY stream"
        return [self._event(r) for r in self.db.execute(sql, (world_id,)).fetchall()]

    def pending_events(self, world_id: str) -> list[EventRow]:
        rows = self.db.execute(
            "SELECT * FROM events WHERE world_id = ? AND status = 'pending' ORDER BY stream",
            (world_id,),
        ).fetchall()
        return [self._event(r) for r in rows]

    @staticmethod
    def _event(row: sqlite3.Row) -> EventRow:
        return EventRow(
            event_id=row["event_id"],
            stream=row["stream"],
            type=row["type"],
            body=row["body"],
            status=row["status"],
            reply=json.loads(row["reply"]),
            seqs=json.loads(row["seqs"]),
            answers=json.loads(row["answers"]),
            pending=json.loads(row["pending"]) if row["pending"] else None,
            applied_n=row["applied_n"],
            received_at=row["received_at"],
            undo=json.loads(row["undo"]) if row["undo"] else None,
            undone_by=row["undone_by"],
        )

    def record(
        self,
        world_id: str,
        *,
        event_id: str,
        event_type: str,
        body: str,
        stream: int,
        new_event: bool,
        status: str,
        reply: dict[str, Any],
        seqs: list[int],
        messages: list[tuple[int, str]],
        changes: dict[str, str | None],
        next_stream: int,
        last_seq: int,
        answers: dict[str, Any],
        pending: dict[str, Any] | None,
        applied_n: int | None,
        next_applied: int,
        undo: dict[str, list[str | None]] | None = None,
        undoes: str | None = None,
        step: dict[str, Any] | None = None,
    ) -> None:
        """Write one event's outcome atomically: event row, docs, outbox, counters."""
        try:
            with self.transaction() as db:
                if new_event:
                    db.execute(
                        "INSERT INTO events (world_id, event_id, stream, type, body, status,"
                        " reply, seqs, received_at, answers, pending, applied_n)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            world_id,
                            event_id,
                            stream,
                            event_type,
                            body,
                            status,
                            json.dumps(reply),
                            json.dumps(seqs),
                            time.time(),
                            json.dumps(answers),
                            json.dumps(pending) if pending is not None else None,
                            applied_n,
                        ),
                    )
                else:
                    db.execute(
                        "UPDATE events SET status = ?, reply = ?, seqs = ?, answers = ?,"
                        " pending = ?, applied_n = ? WHERE world_id = ? AND event_id = ?",
                        (
                            status,
                            json.dumps(reply),
                            json.dumps(seqs),
                            json.dumps(answers),
                            json.dumps(pending) if pending is not None else None,
                            applied_n,
                            world_id,
                            event_id,
                        ),
                    )
                if undo is not None:
                    db.execute(
                        "UPDATE events SET undo = ? WHERE world_id = ? AND event_id = ?",
                        (json.dumps(undo), world_id, event_id),
                    )
                if undoes is not None:
                    db.execute(
                        "UPDATE events SET undone_by = ? WHERE world_id = ? AND event_id = ?",
                        (event_id, world_id, undoes),
                    )
                if step is not None:
                    # a pass of the rules (not a logged save.result or a partial answer)
                    db.execute(
                        "INSERT INTO steps (world_id, n, event_id, status, answers)"
                        " SELECT ?, COALESCE(MAX(n), 0) + 1, ?, ?, ? FROM steps WHERE world_id = ?",
                        (world_id, event_id, status, json.dumps(step), world_id),
                    )
                for key, doc in changes.items():
                    if doc is None:
                        db.execute(
                            "DELETE FROM docs WHERE world_id = ? AND key = ?", (world_id, key)
                        )
                    else:
                        db.execute(
                            "INSERT INTO docs (world_id, key, body) VALUES (?, ?, ?)"
                            " ON CONFLICT (world_id, key) DO UPDATE SET body = excluded.body",
                            (world_id, key, doc),
                        )
                db.executemany(
                    "INSERT INTO outbox (world_id, seq, event_id, body) VALUES (?, ?, ?, ?)",
                    [(world_id, seq, event_id, msg) for seq, msg in messages],
                )
                db.execute(
                    "UPDATE worlds SET next_stream = ?, last_seq = ?, next_applied = ?"
                    " WHERE id = ?",
                    (next_stream, last_seq, next_applied, world_id),
                )
        except sqlite3.Error as exc:
            raise StoreError(str(exc)) from exc

    # outbox -------------------------------------------------------------------------
    def unacked(self, world_id: str, after_seq: int) -> list[tuple[int, str]]:
        rows = self.db.execute(
            "SELECT seq, body FROM outbox WHERE world_id = ? AND seq > ? ORDER BY seq",
            (world_id, after_seq),
        ).fetchall()
        return [(r["seq"], r["body"]) for r in rows]

    def messages_of(self, world_id: str, seqs: list[int]) -> list[tuple[int, str]]:
        if not seqs:
            return []
        marks = ",".join("?" * len(seqs))
        rows = self.db.execute(
            f"SELECT seq, body FROM outbox WHERE world_id = ? AND seq IN ({marks}) ORDER BY seq",
            (world_id, *seqs),
        ).fetchall()
        return [(r["seq"], r["body"]) for r in rows]

    def ack(self, world_id: str, seq: int) -> None:
        """The client applied every message up to ``seq``; they are kept only for the audit."""
        try:
            with self.transaction() as db:
                db.execute(
                    "UPDATE worlds SET acked_seq = MAX(acked_seq, ?) WHERE id = ?",
                    (seq, world_id),
                )
        except sqlite3.Error as exc:
            raise StoreError(str(exc)) from exc

    def steps(self, world_id: str) -> list[tuple[str, str, dict[str, Any]]]:
        """Every pass of the rules in order: (event id, status, answers it ran with)."""
        rows = self.db.execute(
            "SELECT event_id, status, answers FROM steps WHERE world_id = ? ORDER BY n",
            (world_id,),
        ).fetchall()
        return [(r["event_id"], r["status"], json.loads(r["answers"])) for r in rows]

    def all_messages(self, world_id: str) -> list[tuple[int, str, str]]:
        rows = self.db.execute(
            "SELECT seq, event_id, body FROM outbox WHERE world_id = ? ORDER BY seq",
            (world_id,),
        ).fetchall()
        return [(r["seq"], r["event_id"], r["body"]) for r in rows]
