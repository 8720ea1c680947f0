"""Load and soak: many worlds at a steady rate, nothing lost, nothing doubled.

200 worlds connect to one ``vtt-sidecar serve`` child process; each sends 10 events per
second for 60 s on its own schedule (moves that set off nothing, and every 20th event a
forced save with damage, so results flow back). The generator is open-loop but bounded: a
world with 50 events unanswered waits instead of piling on (and such waits are counted).
Afterwards every event must have exactly one `accepted`, every world message must have
arrived exactly once with no gap in its world's seq, and the database must hold exactly
those events and messages. Latency is from sending an event to its `accepted`.

    python bench/soak.py [--worlds 200] [--rate 10] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server import SQ, Sidecar, pct, scene_sync  # noqa: E402

MAX_OUTSTANDING = 50


@dataclass
class WorldLoad:
    world: str
    token: str
    sent: dict[str, float] = field(default_factory=dict)  # event id -> send time
    replies: dict[str, int] = field(default_factory=dict)  # event id -> replies seen
    latencies: list[float] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    waits: int = 0
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Clock:
    """Every world starts its schedule at the same moment, once all are connected."""

    go: asyncio.Event = field(default_factory=asyncio.Event)
    at: float = 0.0


def event(load: WorldLoad, i: int) -> tuple[str, str]:
    event_id = f"{load.world}-{i}"
    if i % 20 == 19:
        body: dict[str, Any] = {
            "type": "gm.action",
            "id": event_id,
            "action": "save.force",
            "params": {
                "scene_id": "room",
                "token_ids": ["t1", "t2"],
                "ability": "dex",
                "dc": 13,
                "damage": [{"formula": "2d6", "type": "fire"}],
            },
        }
    else:
        x = (i % 20) * SQ
        body = {
            "type": "token.move",
            "id": event_id,
            "scene_id": "room",
            "token_id": "t0",
            "path": [{"x": x, "y": 0}, {"x": x + SQ, "y": 0}],
        }
    return event_id, json.dumps(body)


async def reader(ws: aiohttp.ClientWebSocketResponse, load: WorldLoad, total: int) -> None:
    answered = 0
    last_acked = 0
    async for msg in ws:
        if msg.type != aiohttp.WSMsgType.TEXT:
            break
        data = json.loads(msg.data)
        if "seq" in data:
            load.seqs.append(data["seq"])
            continue
        if data["type"] == "accepted":
            event_id = data["id"]
            load.replies[event_id] = load.replies.get(event_id, 0) + 1
            load.latencies.append(time.perf_counter() - load.sent[event_id])
            answered += 1
            if load.seqs and load.seqs[-1] > last_acked:
                last_acked = load.seqs[-1]
                await ws.send_str(json.dumps({"type": "ack", "seq": last_acked}))
        else:
            load.errors.append(msg.data[:300])
            answered += 1
        if answered >= total:
            load.done.set()
            return


async def drive(
    session: aiohttp.ClientSession,
    url: str,
    load: WorldLoad,
    clock: Clock,
    rate: float,
    seconds: float,
) -> None:
    ws = await session.ws_connect(url, max_msg_size=0)
    hello = {
        "type": "hello",
        "protocol": 1,
        "world_id": load.world,
        "token": load.token,
        "module_version": "soak",
    }
    await ws.send_str(json.dumps(hello))
    welcome = json.loads((await ws.receive()).data)
    assert welcome["type"] == "welcome", welcome
    sync = scene_sync("room", 5, 3, f"{load.world}-sync")
    await ws.send_str(json.dumps(sync))
    while True:
        data = json.loads((await ws.receive()).data)
        if data.get("type") == "accepted":
            break
        if data.get("type") == "error":
            raise RuntimeError(data)
    total = int(rate * seconds)
    read = asyncio.create_task(reader(ws, load, total))
    load.ready.set()
    await clock.go.wait()
    start = clock.at
    period = 1.0 / rate
    offset = (hash(load.world) % 1000) / 1000 * period  # spread the worlds over a period
    for i in range(total):
        due = start + offset + i * period
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        while len(load.sent) - sum(load.replies.values()) - len(load.errors) >= MAX_OUTSTANDING:
            load.waits += 1
            await asyncio.sleep(period)
        event_id, frame = event(load, i)
        load.sent[event_id] = time.perf_counter()
        await ws.send_str(frame)
    try:
        await asyncio.wait_for(load.done.wait(), 60)
    except TimeoutError:
        load.errors.append(f"timed out waiting for replies ({len(load.replies)}/{total})")
    read.cancel()
    await ws.close()


async def run_soak(worlds: int, rate: float, seconds: float) -> dict[str, Any]:
    clock = Clock()
    names = [f"soak-{i:03d}" for i in range(worlds)]
    with tempfile.TemporaryDirectory(prefix="vtt-soak-") as tmp:
        sidecar = Sidecar(Path(tmp), names, rate_limit=200.0)
        sidecar.start()
        loads = [WorldLoad(name, sidecar.tokens[name]) for name in names]
        try:
            connector = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(connector=connector) as session:
                tasks = [
                    asyncio.create_task(drive(session, sidecar.url, load, clock, rate, seconds))
                    for load in loads
                ]
                # everyone is connected and synced before the clock starts
                while not all(load.ready.is_set() for load in loads):
                    for task in tasks:
                        if task.done() and task.exception() is not None:
                            await task  # a world could not connect: raise its error
                    await asyncio.sleep(0.05)
                clock.at = started = time.perf_counter() + 0.5
                clock.go.set()
                await asyncio.gather(*tasks)
                elapsed = time.perf_counter() - started
            rss = sidecar.rss_kib()
        finally:
            log = sidecar.stop()
        stored = check_database(Path(tmp) / "bench.sqlite3", loads)
    return summarize(loads, elapsed, rss, stored, log)


def check_database(db: Path, loads: list[WorldLoad]) -> list[str]:
    """The store holds exactly the events sent and the messages received."""
    problems = []
    con = sqlite3.connect(str(db))
    try:
        for load in loads:
            events = dict(
                con.execute(
                    "SELECT event_id, status FROM events WHERE world_id = ?", (load.world,)
                ).fetchall()
            )
            sent = set(load.sent) | {f"{load.world}-sync"}
            if set(events) != sent:
                problems.append(f"{load.world}: stored events differ from sent events")
            if any(status != "applied" for status in events.values()):
                problems.append(f"{load.world}: an event is not applied")
            seqs = [
                r[0]
                for r in con.execute(
                    "SELECT seq FROM outbox WHERE world_id = ? ORDER BY seq", (load.world,)
                )
            ]
            if seqs != sorted(load.seqs):
                problems.append(
                    f"{load.world}: {len(seqs)} stored messages, {len(load.seqs)} received"
                )
    finally:
        con.close()
    return problems


def summarize(
    loads: list[WorldLoad], elapsed: float, rss_kib: int, stored: list[str], log: str
) -> dict[str, Any]:
    latencies = [x for load in loads for x in load.latencies]
    errors = [e for load in loads for e in load.errors]
    sent = sum(len(load.sent) for load in loads)
    duplicated = sum(1 for load in loads for n in load.replies.values() if n > 1)
    lost = sent - sum(len(load.replies) for load in loads) - len(errors)
    seq_problems = 0
    for load in loads:
        if len(set(load.seqs)) != len(load.seqs) or sorted(load.seqs) != list(
            range(1, len(load.seqs) + 1)
        ):
            seq_problems += 1
    return {
        "worlds": len(loads),
        "events": sent,
        "seconds": elapsed,
        "events_per_s": sent / elapsed,
        "messages": sum(len(load.seqs) for load in loads),
        "errors": len(errors),
        "error_samples": errors[:3],
        "lost": lost,
        "duplicated": duplicated,
        "worlds_with_seq_gaps_or_repeats": seq_problems,
        "store_mismatches": stored[:5],
        "generator_waits": sum(load.waits for load in loads),
        "p50_ms": pct(latencies, 0.5) * 1000 if latencies else None,
        "p99_ms": pct(latencies, 0.99) * 1000 if latencies else None,
        "max_ms": max(latencies) * 1000 if latencies else None,
        "rss_mib": rss_kib / 1024,
        "server_tracebacks": log.count("Traceback"),
    }


def report(result: dict[str, Any]) -> str:
    return (
        f"soak: {result['worlds']} worlds, {result['events']} events in {result['seconds']:.1f} s"
        f" ({result['events_per_s']:.0f}/s), {result['messages']} world messages;"
        f" errors {result['errors']}, lost {result['lost']}, duplicated {result['duplicated']},"
        f" worlds with seq gaps {result['worlds_with_seq_gaps_or_repeats']},"
        f" store mismatches {len(result['store_mismatches'])};"
        f" latency p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms,"
        f" max {result['max_ms']:.1f} ms; generator waits {result['generator_waits']};"
        f" server RSS {result['rss_mib']:.0f} MiB"
    )


def ok(result: dict[str, Any]) -> bool:
    return (
        result["errors"] == 0
        and result["lost"] == 0
        and result["duplicated"] == 0
        and result["worlds_with_seq_gaps_or_repeats"] == 0
        and not result["store_mismatches"]
        and result["server_tracebacks"] == 0
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=200)
    parser.add_argument("--rate", type=float, default=10.0, help="events per second per world")
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    result = asyncio.run(run_soak(args.worlds, args.rate, args.seconds))
    print(report(result))
    if not ok(result):
        print(json.dumps(result, indent=1))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
