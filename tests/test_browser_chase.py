"""The chase tracker in a real browser against a real sidecar.

A sidecar child process (real SQLite world), the repository served over HTTP, Debian's
headless Chromium driving the module harness page: the GM selects a thief and two
pursuers, starts a chase through the module's dialog, advances turns with the tracker's own
"Next turn" button, asks for the escape odds, and the tracker window is checked against the
sidecar's state (names, positions, gaps, marker positions) and saved as a screenshot in
test-artifacts/chase-tracker.png.

Never downloads a browser: skipped when /usr/bin/chromium is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser_support import BROWSER_WORLD, HARNESS_PATH, browser, sidecar_proc, static_server
from tests.conftest import ROOT, ServerProcess

pytestmark = pytest.mark.browser
__all__ = ["browser", "sidecar_proc", "static_server"]  # fixtures used by name

ARTIFACTS = ROOT / "test-artifacts"
TRACKER = ".vtt-sidecar-tracker"


@pytest.fixture
def page(
    browser: Any, static_server: str, sidecar_proc: tuple[ServerProcess, str]
) -> Iterator[Any]:
    proc, token = sidecar_proc
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    try:
        pg = context.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        pg.goto(f"{static_server}{HARNESS_PATH}?generation=13&world={BROWSER_WORLD}")
        pg.evaluate("() => window.harness.ready")
        pg.evaluate("([url, token]) => window.harness.configure({url, token})", [proc.url, token])
        status = pg.evaluate("() => window.harness.connect({timeoutMs: 10000})")
        assert status["state"] == "connected", status
        yield pg
        assert errors == [], errors
    finally:
        context.close()


def settle(pg: Any, event_id: str) -> None:
    """Wait for the sidecar's reply to an event and for every message before it applied."""
    pg.evaluate(
        """async (id) => {
            const h = window.harness;
            const reply = await h.waitUntil(
                () => h.receivedFrames().find((f) => (f.type === "accepted" && f.id === id)
                    || (f.type === "error" && f.ref === id)), 10000);
            if (reply.type === "error") throw new Error(`${reply.code}: ${reply.message}`);
            const last = Math.max(0, ...(reply.seqs ?? []));
            await h.waitUntil(() => h.lastSeq() >= last, 10000);
            await new Promise((r) => setTimeout(r, 50));
        }""",
        event_id,
    )


def last_gm_action(pg: Any) -> dict[str, Any]:
    frames: list[dict[str, Any]] = pg.evaluate("() => window.harness.sentFrames('gm.action')")
    return frames[-1]


def click(pg: Any, selector: str) -> dict[str, Any]:
    before = len(pg.evaluate("() => window.harness.sentFrames('gm.action')"))
    pg.locator(f"{TRACKER} {selector}").first.click()
    pg.evaluate(
        "(n) => window.harness.waitUntil(() => window.harness.sentFrames('gm.action').length > n)",
        before,
    )
    frame = last_gm_action(pg)
    settle(pg, frame["id"])
    return frame


def test_chase_tracker_draws_the_chase_the_sidecar_runs(page: Any) -> None:
    pg = page
    scene = pg.evaluate(
        """() => window.harness.createScene({
            name: "Market", width: 3000, height: 2000, grid: {size: 100, distance: 5, units: "ft"},
            tokens: [
              {name: "Nimble Pip", x: 900, y: 300, actor: {name: "Nimble Pip", hp: 16, speed: 30,
                abilities: {dex: 16}, skillProficiencies: ["ste"]}},
              {name: "Aria", x: 200, y: 300, actor: {name: "Aria", hp: 24, speed: 30,
                abilities: {dex: 14, con: 14, wis: 18}, skillProficiencies: ["prc"]}},
              {name: "Borin", x: 200, y: 400, actor: {name: "Borin", hp: 30, speed: 30,
                abilities: {con: 16, wis: 12}}},
            ]})"""
    )
    thief, aria, borin = scene["tokenIds"]
    sync = pg.evaluate("() => window.harness.sentFrames('scene.sync').at(-1).id")
    settle(pg, sync)

    # The GM selects the three tokens and starts the chase from the module's dialog.
    pg.evaluate(
        """([thief, aria, borin]) => {
            const h = window.harness;
            h.env.controlTokens([thief, aria, borin]);
            h.env.dialogResponder = () => ({action: "start", values: {
                distance: "60", environment: "urban",
                [`role.${thief}`]: "quarry", [`role.${aria}`]: "pursuer", [`role.${borin}`]: "pursuer",
                [`sight.${thief}`]: true, [`factor.${thief}.crowded`]: true}});
            return h.env.game.modules.get("vtt-sidecar").api.startChase();
        }""",
        [thief, aria, borin],
    )
    start = last_gm_action(pg)
    assert start["action"] == "chase.start"
    assert start["params"]["quarries"] == [
        {"token_id": thief, "in_sight": True, "factors": ["crowded"]}
    ]
    assert start["params"]["pursuers"] == [{"token_id": aria}, {"token_id": borin}]
    settle(pg, start["id"])

    # The first chase state opened the tracker window.
    pg.wait_for_selector(TRACKER, timeout=5000)
    chase_id = pg.evaluate("() => Object.keys(window.harness.state('chase'))[0]")
    assert pg.locator(f"#vtt-sidecar-chase-{chase_id}").count() == 1

    # A few turns with the tracker's own button (while the chase lasts).
    turns = 0
    for _ in range(5):
        if pg.locator(f"{TRACKER} [data-action='nextTurn']").count() == 0:
            break
        frame = click(pg, "[data-action='nextTurn']")
        assert frame["action"] == "chase.next_turn"
        assert frame["params"] == {"chase_id": chase_id}
        turns += 1
    assert turns >= 3
    state: dict[str, Any] = pg.evaluate("(id) => window.harness.state('chase', id)", chase_id)
    assert state["log"] or state["round"] >= 1
    if state["status"] == "running":
        odds = click(pg, "[data-action='odds']")
        assert odds["action"] == "chase.odds"
        pg.wait_for_selector(f"{TRACKER} .odds-fill", state="attached", timeout=5000)
        state = pg.evaluate("(id) => window.harness.state('chase', id)", chase_id)
        assert state.get("odds"), state

    # What the window shows is what the sidecar says.
    text = pg.locator(TRACKER).inner_text()
    for p in state["participants"]:
        assert p["name"] in text
        row = pg.locator(f"{TRACKER} tr[data-participant='{p['id']}']")
        assert row.locator("td.position").inner_text() == f"{p['position_ft']} ft"
    leader = state["leader"]
    for quarry, gap in state["distances"].items():
        lane = pg.locator(f"{TRACKER} g[data-participant='{quarry}']")
        assert lane.locator(".gap-label").text_content() == f"{gap} ft"
        row = pg.locator(f"{TRACKER} tr[data-participant='{quarry}'] td.gap")
        assert row.inner_text() == f"{gap} ft"
    assert "★" in pg.locator(f"{TRACKER} tr[data-participant='{leader}'] td.name").inner_text()

    # Markers sit at x proportional to their feet along the route.
    markers: list[dict[str, float]] = pg.evaluate(
        """(sel) => [...document.querySelectorAll(`${sel} circle.marker`)].map((c) => ({
            ft: Number(c.dataset.position), x: Number(c.getAttribute("cx"))}))""",
        TRACKER,
    )
    assert len(markers) == 3
    lo, hi = min(markers, key=lambda m: m["ft"]), max(markers, key=lambda m: m["ft"])
    assert hi["ft"] > lo["ft"]
    scale = (hi["x"] - lo["x"]) / (hi["ft"] - lo["ft"])
    for m in markers:
        assert abs(lo["x"] + (m["ft"] - lo["ft"]) * scale - m["x"]) < 0.2, markers

    ARTIFACTS.mkdir(exist_ok=True)
    pg.locator(f"#vtt-sidecar-chase-{chase_id}").screenshot(
        path=str(ARTIFACTS / "chase-tracker.png")
    )
    assert (ARTIFACTS / "chase-tracker.png").stat().st_size > 5000
