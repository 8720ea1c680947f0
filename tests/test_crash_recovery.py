"""A real server process killed with SIGKILL or stopped with SIGTERM."""

from __future__ import annotations

import signal

import pytest

from sidecar.client import ClosedError, SidecarClient
from sidecar.store import Store
from tests.conftest import WORLD_ID, ServerProcess
from tests.test_e2e_foundation import forced_save, scene_sync


async def test_kill9_after_an_accepted_event_loses_nothing_and_repeats_nothing(
    server_process: tuple[ServerProcess, str],
) -> None:
    proc, token = server_process
    client = SidecarClient(proc.url, auto_ack=False)
    await client.connect()
    await client.hello(WORLD_ID, token)
    assert (await client.send(scene_sync())).ok
    first = await client.send(forced_save("boom"))
    assert first.ok
    sent = {m["seq"]: m for m in first.messages}
    await client.close()

    proc.kill9()
    proc.start()

    again = SidecarClient(proc.url, auto_ack=False)
    await again.connect()
    welcome = await again.hello(WORLD_ID, token)
    assert welcome["resending"] == len(sent)
    assert {m["seq"]: m for m in again.inbox} == sent

    # the client resends the event it never saw accepted: stored outcome, no new roll
    dup = await again.send(forced_save("boom"))
    assert dup.reply["duplicate"] is True
    assert dup.reply["seqs"] == first.reply["seqs"]
    assert [m["seq"] for m in dup.messages] == []  # already delivered on this connection
    await again.send_json({"type": "ack", "seq": max(sent)})
    await again.close()

    proc.kill9()
    proc.start()
    last = SidecarClient(proc.url)
    await last.connect()
    welcome = await last.hello(WORLD_ID, token)
    assert welcome["resending"] == 0
    assert welcome["last_seq"] == max(sent)
    await last.close()

    store = Store(proc.db)
    events = store.events(WORLD_ID)
    assert [e.event_id for e in events].count("boom") == 1
    store.close()


async def test_sigterm_closes_connections_with_1001_and_exits_cleanly(
    server_process: tuple[ServerProcess, str],
) -> None:
    proc, token = server_process
    client = SidecarClient(proc.url)
    await client.connect()
    await client.hello(WORLD_ID, token)
    assert proc.proc is not None
    proc.proc.send_signal(signal.SIGTERM)
    with pytest.raises(ClosedError) as info:
        while True:
            await client.receive(timeout=10)
    assert info.value.code == 1001
    assert proc.proc.wait(15) == 0
    await client.close()
