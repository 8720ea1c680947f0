"""The audit log lists rolls and results; a recorded session replays exactly from its seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.audit import audit, replay
from sidecar.cards import CardRenderer
from sidecar.cli import main
from sidecar.client import SidecarClient
from sidecar.content import BUNDLED_CONTENT, ContentStore
from sidecar.store import Store
from tests.conftest import WORLD_ID, RunningSidecar
from tests.test_e2e_foundation import forced_save, scene_sync


async def play_session(client: SidecarClient) -> None:
    """Scene, forced saves, settings, a rejected event, an answered and a timed-out save."""
    assert (await client.send(scene_sync())).ok
    assert (await client.send(forced_save("boom-1"))).ok
    assert (await client.send({"type": "time.advance", "world_time": 60, "delta": 60})).ok
    bad = await client.send({**forced_save("bad-1"), "params": {"scene_id": "nope"}})
    assert bad.reply["type"] == "error"
    assert (await client.send(forced_save("boom-2"))).ok
    undo = {"type": "gm.action", "action": "event.undo", "params": {"event_id": "boom-1"}}
    assert (await client.send(undo)).ok
    settings = {"save_mode": "ask", "save_timeout_s": 1}
    assert (await client.send({"type": "settings.update", "settings": settings})).ok
    paused = await client.send(forced_save("ask-1"))
    assert paused.reply["pending"] is True
    # another event is applied while ask-1 waits: replay must place the waves correctly
    assert (await client.send(forced_save("boom-3"))).reply.get("pending") is True
    request = paused.of_type("save.request")[0]
    answered = await client.send(
        {
            "type": "save.result",
            "request_id": request["request_id"],
            "token_id": request["token_id"],
            "total": 19,
            "natural": 14,
        }
    )
    assert answered.ok and answered.cards
    late = await client.collect(timeout=2.5)  # boom-3 times out: the sidecar rolls for Aria
    assert any(m["event_id"] == "boom-3" and m["type"] == "card" for m in late)
    settings = {"save_mode": "auto"}
    assert (await client.send({"type": "settings.update", "settings": settings})).ok
    assert (await client.send(forced_save("boom-4"))).ok


def check_replay(db: Path) -> tuple[bool, str]:
    content = ContentStore.load([BUNDLED_CONTENT])
    store = Store(db)
    try:
        report = replay(store, WORLD_ID, content, CardRenderer(content.catalog))
    finally:
        store.close()
    return report.ok, report.summary()


async def test_a_recorded_session_replays_without_divergence(
    server: RunningSidecar, client: SidecarClient
) -> None:
    await play_session(client)
    ok, summary = check_replay(server.db)
    assert ok, summary
    assert "no divergence" in summary
    store = Store(server.db)
    steps = store.steps(WORLD_ID)
    store.close()
    statuses = [status for _, status, _ in steps]
    assert "pending" in statuses and "rejected" in statuses
    # the two paused events ran twice each: once paused, once with the answers
    assert [e for e, _, _ in steps].count("ask-1") == 2
    assert [e for e, _, _ in steps].count("boom-3") == 2


async def test_a_tampered_outbox_row_is_reported(
    server: RunningSidecar, client: SidecarClient
) -> None:
    await play_session(client)
    store = Store(server.db)
    seq, event_id, body = store.all_messages(WORLD_ID)[1]
    message = json.loads(body)
    message["tampered"] = True
    store.db.execute(
        "UPDATE outbox SET body = ? WHERE world_id = ? AND seq = ?",
        (json.dumps(message), WORLD_ID, seq),
    )
    store.close()
    ok, summary = check_replay(server.db)
    assert not ok
    assert f"seq {seq} ({event_id}): differs at .tampered" in summary


async def test_a_changed_seed_is_reported(server: RunningSidecar, client: SidecarClient) -> None:
    await play_session(client)
    store = Store(server.db)
    row = store.get_world(WORLD_ID)
    assert row is not None
    store.set_seed(WORLD_ID, row.seed + 1)
    store.close()
    ok, summary = check_replay(server.db)
    assert not ok
    assert "divergence" in summary and "differs at" in summary


async def test_replay_command_exit_codes(
    server: RunningSidecar, client: SidecarClient, capsys: pytest.CaptureFixture[str]
) -> None:
    await play_session(client)
    assert main(["--db", str(server.db), "replay", WORLD_ID]) == 0
    assert "no divergence" in capsys.readouterr().out
    store = Store(server.db)
    store.db.execute("DELETE FROM outbox WHERE world_id = ? AND seq = 1", (WORLD_ID,))
    store.close()
    assert main(["--db", str(server.db), "replay", WORLD_ID]) == 1
    assert "seq 1 (boom-1): produced, not stored" in capsys.readouterr().out


async def test_audit_lists_rolls_and_results_and_filters(
    server: RunningSidecar, client: SidecarClient, capsys: pytest.CaptureFixture[str]
) -> None:
    await play_session(client)
    assert main(["--db", str(server.db), "audit", WORLD_ID, "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    by_id = {e["event_id"]: e for e in entries}
    boom = by_id["boom-1"]
    assert boom["type"] == "gm.action" and boom["detail"] == "save.force"
    assert boom["status"] == "applied"
    rolls = [r for c in boom["cards"] for r in c["rolls"]]
    saves = [r for r in rolls if r["formula"].startswith("1d20")]
    assert saves and all(len(r["faces"]) == 1 and 1 <= r["faces"][0] <= 20 for r in saves)
    damage = [r for r in rolls if r["formula"].startswith("4d10")]
    assert damage and len(damage[0]["faces"]) == 4 and sum(damage[0]["faces"]) == damage[0]["total"]
    assert any("Dexterity saving throw" in c["text"] for c in boom["cards"])
    assert any(op["op"] == "damage" for op in boom["ops"])
    assert by_id["bad-1"]["status"] == "rejected" and by_id["bad-1"]["error"]
    assert by_id["ask-1"]["status"] == "applied"
    assert any(m["type"] == "save.request" for m in by_id["ask-1"]["messages"])

    # filters: a creature id, a time window
    store = Store(server.db)
    everything = audit(store, WORLD_ID)
    assert [e.event_id for e in audit(store, WORLD_ID, creature="t2")] != []
    assert audit(store, WORLD_ID, creature="nobody") == []
    newest = max(e.received_at for e in everything)
    assert audit(store, WORLD_ID, since=newest + 1) == []
    assert len(audit(store, WORLD_ID, until=newest + 1)) == len(everything)
    store.close()

    assert main(["--db", str(server.db), "audit", WORLD_ID, "--creature", "a1"]) == 0
    text = capsys.readouterr().out
    assert "boom-1  gm.action(save.force)  applied" in text
    assert "roll 4d10 = " in text
    assert main(["--db", str(server.db), "audit", WORLD_ID, "--since", "yesterday"]) == 2


async def test_a_trap_session_replays_and_the_trap_filter_finds_its_events(
    server: RunningSidecar, client: SidecarClient, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.test_traps_helpers import SQ, hero, move, rect, region, setup, sprung

    darts = region(
        "darts",
        "poison_darts",
        rect(5 * SQ, 0),
        overrides={"reset": {"policy": "rearm", "rounds": 0}},
    )
    pit = region("pit", "simple_pit", rect(5 * SQ, 5 * SQ))
    await setup(client, [darts, pit], [hero("aria", 0, 0), hero("borin", 0, 5 * SQ, owner="u2")])
    fired = [await move(client, "aria", (0, 0), (10 * SQ, 0))]
    fired.append(await move(client, "aria", (10 * SQ, 0), (0, 0)))
    assert all(sprung(r) for r in fired)
    fell = await move(client, "borin", (0, 5 * SQ), (10 * SQ, 5 * SQ))
    assert sprung(fell)
    assert not sprung(await move(client, "aria", (0, 2 * SQ), (10 * SQ, 2 * SQ)))

    ok, summary = check_replay(server.db)
    assert ok, summary

    assert main(["--db", str(server.db), "audit", WORLD_ID, "--trap", "darts", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [e["event_id"] for e in found[1:]] == [r.reply["id"] for r in fired]
    assert found[0]["type"] == "scene.sync"  # the scene that placed it mentions it too
    attacks = [r for e in found[1:] for c in e["cards"] for r in c["rolls"]]
    assert any(r["formula"].startswith("1d20") for r in attacks)
    assert main(["--db", str(server.db), "audit", WORLD_ID, "--trap", "pit", "--json"]) == 0
    pit_events = [e["event_id"] for e in json.loads(capsys.readouterr().out)]
    # Borin fell in; Aria's first walk passed close enough to notice it (a GM card about it)
    assert fell.reply["id"] in pit_events and fired[0].reply["id"] in pit_events
    assert main(["--db", str(server.db), "audit", WORLD_ID, "--trap", "nowhere"]) == 0
    assert capsys.readouterr().out.strip() == "0 event(s)"
