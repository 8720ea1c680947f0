"""Structured logs: one line per event with its world and id, as JSON lines on request."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from sidecar.client import SidecarClient
from sidecar.logs import JsonFormatter, TextFormatter, log_event
from tests.conftest import WORLD_ID, ServerProcess, free_port, make_world
from tests.test_e2e_foundation import forced_save, scene_sync


async def test_json_log_has_one_line_per_event_with_world_and_event_ids(tmp_path: Path) -> None:
    db = tmp_path / "logs.sqlite3"
    token = make_world(db)
    proc = ServerProcess(db, free_port(), ["--log-format", "json"])
    proc.start()
    try:
        client = SidecarClient(proc.url)
        await client.connect()
        await client.hello(WORLD_ID, token)
        assert (await client.send(scene_sync())).ok
        assert (await client.send(forced_save("fire-1"))).ok
        assert (await client.send(forced_save("fire-1"))).reply["duplicate"]
        bad = await client.send({**forced_save("bad-1"), "params": {}})
        assert bad.reply["type"] == "error"
        await client.close()
    finally:
        proc.stop()
    assert proc.proc is not None and proc.proc.stdout is not None
    lines = proc.proc.stdout.read().decode().splitlines()
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert records, lines
    events = [r for r in records if r["logger"] == "sidecar.event"]
    assert [(r["event"], r["outcome"]) for r in events[1:]] == [
        ("fire-1", "accepted"),
        ("fire-1", "duplicate"),
        ("bad-1", "error:invalid"),
    ]
    assert all(r["world"] == WORLD_ID and r["level"] == "INFO" for r in events)
    assert events[1]["type"] == "gm.action" and events[1]["seqs"] >= 1
    assert isinstance(events[1]["ms"], float)
    assert any(r["logger"] == "sidecar.session" and "connected" in r["msg"] for r in records)
    assert token not in "\n".join(lines)  # the world token never reaches the log


def test_text_format_appends_fields(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="sidecar.event"):
        log_event("w1", "e 1", "token.move", {"type": "accepted", "seqs": [4, 5]}, 1.0, 1.0125)
    record = caplog.records[-1]
    text = TextFormatter().format(record)
    assert text.endswith('world=w1 event="e 1" type=token.move outcome=accepted seqs=2 ms=12.5')
    data = json.loads(JsonFormatter().format(record))
    assert data["event"] == "e 1" and data["ms"] == 12.5 and data["msg"] == "event"


async def test_a_stuck_log_reader_does_not_stall_events(tmp_path: Path) -> None:
    """Nobody reads the server's output pipe (64 KiB): events still flow, stop is clean."""
    db = tmp_path / "stuck.sqlite3"
    token = make_world(db)
    proc = ServerProcess(db, free_port())
    proc.start()
    try:
        client = SidecarClient(proc.url)
        await client.connect()
        await client.hello(WORLD_ID, token)
        n = 1500  # about 200 bytes of log each: several times the pipe's buffer
        for i in range(n):
            await client.send_json(
                {"type": "time.advance", "id": f"t-{i}", "world_time": i, "delta": 1}
            )
        last = await client.wait_reply(f"t-{n - 1}", timeout=60)
        assert last.ok
        await client.close()
    finally:
        code = proc.stop()
    assert code == 0
