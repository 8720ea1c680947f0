"""A flooding client slows itself down; another world's client keeps its low latency."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sidecar.client import SidecarClient
from sidecar.store import Store
from tests.conftest import ServerProcess, free_port

FLOOD = 1500
RATE = 300.0  # frames per second per connection
BURST = 50.0


@pytest.fixture
def two_worlds(tmp_path: Path) -> Iterator[tuple[ServerProcess, dict[str, str]]]:
    db = tmp_path / "rate.sqlite3"
    store = Store(db)
    tokens = {name: store.add_world(name) for name in ("flooder", "quiet")}
    store.close()
    config = tmp_path / "sidecar.toml"
    config.write_text(f"[sidecar]\nrate_limit = {RATE}\nrate_burst = {BURST}\n", "utf-8")
    old = os.environ.get("VTT_SIDECAR_CONFIG")
    os.environ["VTT_SIDECAR_CONFIG"] = str(config)
    proc = ServerProcess(db, free_port())
    try:
        proc.start()
    finally:
        if old is None:
            del os.environ["VTT_SIDECAR_CONFIG"]
        else:
            os.environ["VTT_SIDECAR_CONFIG"] = old
    try:
        yield proc, tokens
    finally:
        proc.stop()


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


async def test_a_flood_is_throttled_without_slowing_another_world(
    two_worlds: tuple[ServerProcess, dict[str, str]],
) -> None:
    proc, tokens = two_worlds
    flooder = SidecarClient(proc.url)
    quiet = SidecarClient(proc.url)
    for client, name in ((flooder, "flooder"), (quiet, "quiet")):
        await client.connect()
        assert (await client.hello(name, tokens[name]))["type"] == "welcome"

    sent_at: dict[str, float] = {}
    flood_rtts: list[float] = []

    async def flood() -> None:
        for i in range(FLOOD):
            sent_at[f"f{i}"] = time.perf_counter()
            await flooder.send_json({"type": "ping", "id": f"f{i}"})

    async def drain_flood() -> None:
        while len(flood_rtts) < FLOOD:
            reply = await flooder.receive(timeout=30)
            assert reply["type"] == "pong", reply
            flood_rtts.append(time.perf_counter() - sent_at[reply["id"]])

    quiet_rtts: list[float] = []

    async def probe() -> None:
        i = 0
        while len(flood_rtts) < FLOOD:
            started = time.perf_counter()
            await quiet.send_json({"type": "ping", "id": f"q{i}"})
            reply = await quiet.receive(timeout=10)
            assert reply == {"type": "pong", "id": f"q{i}"}
            quiet_rtts.append(time.perf_counter() - started)
            i += 1
            await asyncio.sleep(0.01)

    started = time.perf_counter()
    await asyncio.gather(flood(), drain_flood(), probe())
    elapsed = time.perf_counter() - started
    await flooder.close()
    await quiet.close()

    # the flooder got no more than its rate (plus the burst)
    assert elapsed >= (FLOOD - BURST) / RATE * 0.9
    flood_p95, quiet_p95 = p95(flood_rtts), p95(quiet_rtts)
    print(
        f"\nflood: {FLOOD} pings in {elapsed:.1f} s, p95 round trip {flood_p95 * 1000:.0f} ms;"
        f" other world: {len(quiet_rtts)} pings, p95 {quiet_p95 * 1000:.1f} ms"
    )
    assert len(quiet_rtts) >= 100
    assert quiet_p95 < 0.05
    assert quiet_p95 * 20 < flood_p95
