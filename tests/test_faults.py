"""Faults: kill -9 at random moments during a long session, and storage that refuses writes.

The kill test drives a real ``vtt-sidecar serve`` child process with a 1,000-event script,
kills it 20 times at seeded-random moments (events in flight), restarts it, reconnects with
``hello.last_seq`` and re-sends every event whose ``accepted`` it did not see. The final
documents, the outbox (by seq) and the event ids with their status must equal an
uninterrupted run of the same script on the same seed.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from pydantic import BaseModel

from sidecar.client import ClosedError, SidecarClient, creature, token
from sidecar.store import Store
from tests.conftest import WORLD_ID, RunningSidecar, ServerProcess, free_port, make_world
from tests.test_e2e_foundation import forced_save, scene_sync

EVENTS = 1000
ROUNDS = 20
WINDOW = 8  # events in flight at once, so kills land between receipt and reply
SCENE = "s-fault"
TOKENS = [f"t{i}" for i in range(6)]


def script(n: int, seed: int) -> list[dict[str, Any]]:
    """A deterministic session: scene syncs, moves, forced saves with damage, settings, time."""
    rng = random.Random(seed)
    pos = {t: (100 * i, 0) for i, t in enumerate(TOKENS)}

    def sync() -> dict[str, Any]:
        tokens = [
            token(t, f"Hero {t}", *pos[t], creature(f"a-{t}", f"Hero {t}", hp=rng.randint(20, 60)))
            for t in TOKENS
        ]
        # traps too, so moves go through the trap engine and its cached spatial index
        # (rebuilt after every restart): darts that re-arm at once, and a once-only pit
        darts = {
            "id": "darts",
            "shapes": [{"type": "rectangle", "x": 300, "y": 0, "width": 200, "height": 200}],
            "trap": {
                "trap_id": "poison_darts",
                "overrides": {"reset": {"policy": "rearm", "rounds": 0}},
            },
        }
        pit = {
            "id": "pit",
            "shapes": [{"type": "rectangle", "x": 0, "y": 400, "width": 100, "height": 100}],
            "trap": {"trap_id": "simple_pit"},
        }
        return {
            "type": "scene.sync",
            "scene": {
                "id": SCENE,
                "grid": {"size": 100, "distance": 5},
                "tokens": tokens,
                "regions": [darts, pit],
            },
        }

    events = [sync()]
    world_time = 0
    while len(events) < n:
        roll = rng.random()
        if roll < 0.45:
            t = rng.choice(TOKENS)
            x0, y0 = pos[t]
            x1, y1 = x0 + 100 * rng.randint(-3, 3), y0 + 100 * rng.randint(-3, 3)
            pos[t] = (x1, y1)
            event: dict[str, Any] = {
                "type": "token.move",
                "scene_id": SCENE,
                "token_id": t,
                "path": [{"x": x0, "y": y0}, {"x": x1, "y": y1}],
            }
        elif roll < 0.75:
            event = {
                "type": "gm.action",
                "action": "save.force",
                "params": {
                    "scene_id": SCENE,
                    "token_ids": rng.sample(TOKENS, rng.randint(1, 3)),
                    "ability": rng.choice(["dex", "con", "wis"]),
                    "dc": rng.randint(8, 20),
                    "damage": [{"formula": f"{rng.randint(1, 4)}d8", "type": "fire"}],
                },
            }
        elif roll < 0.85:
            event = {
                "type": "settings.update",
                "settings": {
                    "notice_radius_ft": rng.choice([10, 30, 60]),
                    "drop_triggers": rng.random() < 0.5,
                },
            }
        elif roll < 0.97:
            delta = rng.choice([6, 60, 3600])
            world_time += delta
            event = {"type": "time.advance", "world_time": world_time, "delta": delta}
        else:
            event = sync()
        events.append(event)
    return [{**e, "id": f"f-{i:04d}"} for i, e in enumerate(events)]


class Driver:
    """Plays the module: pipelines events, keeps what it applied, resumes after a crash."""

    def __init__(self, url: str, token: str, events: list[dict[str, Any]]) -> None:
        self.url = url
        self.token = token
        self.events = events
        self.done = 0  # events[:done] have their `accepted`
        self.applied: dict[int, dict[str, Any]] = {}
        self.replies: dict[str, dict[str, Any]] = {}
        self.last_seq = 0
        self.reconnects = 0
        self.read_delay = 0.0  # a slow module: replies pile up unread when the kill lands

    async def connect(self) -> SidecarClient:
        client = SidecarClient(self.url)
        client.last_seq = self.last_seq
        await client.connect()
        welcome = await client.hello(WORLD_ID, self.token)
        assert welcome["type"] == "welcome", welcome
        self._keep(client.inbox)
        return client

    def _keep(self, messages: list[dict[str, Any]]) -> None:
        for message in messages:
            seq = message["seq"]
            assert seq not in self.applied, f"seq {seq} applied twice"
            assert seq == self.last_seq + 1 or not self.applied, f"gap before seq {seq}"
            self.applied[seq] = message
            self.last_seq = seq
        messages.clear()

    async def run(self, until: int, accepted: asyncio.Event | None = None) -> None:
        """Send events[done:until] with WINDOW in flight; return when all are accepted."""
        client = await self.connect()
        try:
            sent = self.done
            while self.done < until:
                while sent < min(until, self.done + WINDOW):
                    await client.send_json(self.events[sent])
                    sent += 1
                event_id = self.events[self.done]["id"]
                if self.read_delay:
                    await asyncio.sleep(self.read_delay)
                result = await client.wait_reply(event_id, timeout=30)
                self._keep(client.inbox)
                assert result.ok, result.reply
                self.replies[event_id] = result.reply
                self.done += 1
                if accepted is not None:
                    accepted.set()
        finally:
            await client.close()


async def uninterrupted(tmp: Path, events: list[dict[str, Any]]) -> Driver:
    db = tmp / "calm.sqlite3"
    proc = ServerProcess(db, free_port())
    token = make_world(db)
    proc.start()
    try:
        driver = Driver(proc.url, token, events)
        await driver.run(len(events))
    finally:
        proc.stop()
    return driver


async def with_kills(tmp: Path, events: list[dict[str, Any]], seed: int) -> Driver:
    rng = random.Random(seed)
    db = tmp / "chaos.sqlite3"
    proc = ServerProcess(db, free_port())
    token = make_world(db)
    proc.start()
    driver = Driver(proc.url, token, events)
    try:
        for _ in range(ROUNDS):
            target = min(len(events), driver.done + rng.randint(10, 2 * len(events) // ROUNDS))
            driver.read_delay = rng.choice([0.0, 0.0, 0.003])
            progress = asyncio.Event()
            task = asyncio.create_task(driver.run(len(events), progress))
            while driver.done < target and not task.done():
                progress.clear()
                await progress.wait()
            await asyncio.sleep(rng.uniform(0, 0.004))  # somewhere inside the next window
            proc.kill9()
            try:
                await task
            except (ClosedError, aiohttp.ClientError, ConnectionError, AssertionError) as exc:
                # AssertionError only from a refused reply, which must not happen here
                if isinstance(exc, AssertionError):
                    raise
            except TimeoutError:
                pass
            proc.start()
            driver.reconnects += 1
        driver.read_delay = 0.0
        await driver.run(len(events))
    finally:
        proc.stop()
    return driver


def snapshot(db: Path) -> tuple[dict[str, Any], dict[int, Any], dict[str, str], list[int]]:
    store = Store(db)
    try:
        docs = {key: json.loads(body) for key, body in store.load_docs(WORLD_ID)}
        outbox = {seq: json.loads(body) for seq, _, body in store.all_messages(WORLD_ID)}
        statuses = {e.event_id: e.status for e in store.events(WORLD_ID)}
        streams = [e.stream for e in store.events(WORLD_ID)]
    finally:
        store.close()
    return docs, outbox, statuses, streams


@pytest.mark.slow
async def test_twenty_kill9_rounds_end_exactly_like_an_uninterrupted_run(tmp_path: Path) -> None:
    events = script(EVENTS, seed=11)
    calm = await uninterrupted(tmp_path, events)
    chaos = await with_kills(tmp_path, events, seed=12)
    assert chaos.reconnects == ROUNDS
    assert chaos.done == calm.done == EVENTS

    calm_docs, calm_outbox, calm_status, calm_streams = snapshot(tmp_path / "calm.sqlite3")
    docs, outbox, status, streams = snapshot(tmp_path / "chaos.sqlite3")
    assert len(calm_outbox) > EVENTS // 2  # the script produces real results
    trap_cards = [
        m for m in calm_outbox.values() if m["type"] == "card" and "trap" in m["card"]["data"]
    ]
    assert len(trap_cards) > 10, "moves should set traps off"
    assert status == calm_status
    assert set(status.values()) == {"applied"}
    assert streams == calm_streams  # no event drew dice twice
    assert outbox == calm_outbox
    assert docs == calm_docs
    # the module side saw every result exactly once, in order, and the same ones
    assert chaos.applied == calm.applied == outbox
    assert sorted(chaos.applied) == list(range(1, len(outbox) + 1))
    duplicates = sum(1 for r in chaos.replies.values() if r.get("duplicate"))
    print(f"\nkill -9 rounds: {ROUNDS}, events re-sent and answered as duplicates: {duplicates}")
    assert duplicates > 0, "no kill landed between a commit and its reply: the test is too kind"


# ----------------------------------------------------------------- storage refusing writes


def big_scene(n: int = 300) -> dict[str, Any]:
    tokens = [
        token(f"b{i}", f"Goblin {i}", i * 100, 0, creature(f"g{i}", "Goblin")) for i in range(n)
    ]
    return {
        "type": "scene.sync",
        "id": "big-1",
        "scene": {"id": "s-big", "grid": {"size": 100, "distance": 5}, "tokens": tokens},
    }


def memory_and_disk(server: RunningSidecar) -> tuple[Any, ...]:
    assert server.sidecar is not None
    world = server.sidecar.world(WORLD_ID)
    docs = {k: world.state.get(k, BaseModel) for k in world.state.keys("")}
    stored = server.sidecar.store.load_docs(WORLD_ID)
    return world.last_seq, world.next_stream, world.next_applied, docs, stored


async def refused_then_accepted(server: RunningSidecar, client: SidecarClient, pragma: str) -> None:
    assert server.sidecar is not None
    db = server.sidecar.store.db
    assert (await client.send(scene_sync())).ok
    before = memory_and_disk(server)
    if "max_page_count" in pragma:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        pragma = f"PRAGMA max_page_count = {pages}"  # SQLITE_FULL once the file must grow
    db.execute(pragma)

    refused = await client.send(big_scene())
    assert refused.reply["type"] == "error"
    assert refused.reply["code"] == "storage_unavailable"
    assert refused.reply["ref"] == "big-1"
    assert "not applied" in refused.reply["message"]
    assert refused.messages == []
    save = await client.send(forced_save("save-1"))
    assert save.reply["code"] == "storage_unavailable" and save.messages == []
    assert memory_and_disk(server) == before  # nothing applied, in memory or on disk
    assert server.sidecar.store.get_event(WORLD_ID, "big-1") is None
    # the connection still works
    await client.send_json({"type": "ping", "id": "p-1"})
    assert (await client.receive())["type"] == "pong"

    db.execute("PRAGMA max_page_count = 1073741823")
    db.execute("PRAGMA query_only = 0")
    accepted = await client.send(big_scene())
    assert accepted.ok and accepted.reply["duplicate"] is False
    again = await client.send(forced_save("save-1"))
    assert again.ok and again.reply["duplicate"] is False and again.cards
    assert again.reply["seqs"][0] == before[0] + 1


async def test_a_full_disk_refuses_events_instead_of_acknowledging_them(
    server: RunningSidecar, client: SidecarClient
) -> None:
    await refused_then_accepted(server, client, "PRAGMA max_page_count")


async def test_a_read_only_database_refuses_events(
    server: RunningSidecar, client: SidecarClient
) -> None:
    await refused_then_accepted(server, client, "PRAGMA query_only = 1")


def test_a_new_database_and_its_wal_are_readable_by_the_owner_only(tmp_path: Path) -> None:
    db = tmp_path / "data" / "private.sqlite3"
    make_world(db)
    store = Store(db)
    store.add_world("another")  # a write, so the -wal file exists
    modes = {p.name: p.stat().st_mode & 0o777 for p in db.parent.iterdir()}
    store.close()
    assert modes["private.sqlite3"] == 0o600
    assert "private.sqlite3-wal" in modes
    assert all(mode == 0o600 for name, mode in modes.items() if name.startswith("private")), modes


async def test_a_failing_store_read_is_a_typed_error_and_the_connection_goes_on(
    server: RunningSidecar, client: SidecarClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert server.sidecar is not None
    assert (await client.send(scene_sync())).ok
    store = server.sidecar.store

    def broken(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store, "get_event", broken)
    refused = await client.send(forced_save("io-1"))
    assert refused.reply["code"] == "storage_unavailable" and refused.reply["ref"] == "io-1"
    monkeypatch.undo()

    world = server.sidecar.world(WORLD_ID)

    def bug(*args: object, **kwargs: object) -> None:
        world.state.put("settings", world.state.get("settings", BaseModel) or _settings())
        raise RuntimeError("executor bug")

    monkeypatch.setattr(world, "_save_result", bug)
    crashed = await client.send(
        {"type": "save.result", "request_id": "x/save1", "token_id": "t1", "total": 3}
    )
    assert crashed.reply["code"] == "internal"
    monkeypatch.undo()
    assert not world.state.dirty  # the half-done transaction was dropped

    await client.send_json({"type": "ping", "id": "still-there"})
    assert (await client.receive())["type"] == "pong"
    assert (await client.send(forced_save("io-1"))).ok  # the same id, now applied


def _settings() -> BaseModel:
    from sidecar.engine import WorldSettings

    return WorldSettings()
