"""SQLite store: worlds, hashed tokens, migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sidecar.store import MIGRATIONS, SCHEMA_VERSION, Store, StoreError


def test_world_tokens_are_stored_hashed(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    token = store.add_world("w", "My world")
    row = store.get_world("w")
    assert row is not None and row.name == "My world"
    assert token not in row.token_hash and row.token_matches(token)
    assert not row.token_matches(token + "x")
    raw = (tmp_path / "s.db").read_bytes()
    assert token.encode() not in raw
    with pytest.raises(StoreError):
        store.add_world("w")
    new = store.rotate_token("w")
    row = store.get_world("w")
    assert row is not None and row.token_matches(new) and not row.token_matches(token)
    assert store.remove_world("w") and store.get_world("w") is None
    assert not store.remove_world("w")


def test_database_uses_wal(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.schema_version() == SCHEMA_VERSION


def test_forward_migration_from_version_one(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    for statement in MIGRATIONS[1]:
        db.execute(statement)
    db.execute(
        "INSERT INTO worlds (id, name, token_hash, token_salt, seed, created_at)"
        " VALUES ('w', 'w', 'h', 's', '1', 0)"
    )
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    store = Store(path)
    assert store.schema_version() == SCHEMA_VERSION
    row = store.get_world("w")
    assert row is not None and row.acked_seq == 0 and row.next_applied == 1


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer sidecar"):
        Store(path)
