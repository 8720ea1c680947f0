"""Fixtures for the browser end-to-end tests: the real module in Debian's headless Chromium.

- ``sidecar_proc``: ``vtt-sidecar serve`` as a child process on a free loopback port, with a
  real SQLite file holding one world (``BROWSER_WORLD``) and its token;
- ``static_server``: the repository root over HTTP on 127.0.0.1 (the harness page loads the
  stand-ins and the module's real files from there);
- ``browser``: one Chromium per test module (the Playwright sync API: the sidecar runs in
  another process, so the tests need no event loop of their own);
- ``harness``: opens ``vtt_module/test/harness/index.html`` in a fresh browser context (its
  own localStorage, so ``last_seq`` starts from nothing), configured for the sidecar and
  connected. Call it again for a second page; ``context=`` puts two pages in one context
  (they then share a BroadcastChannel: see the harness ``bus`` parameter).

Never downloads a browser: the tests use /usr/bin/chromium and skip when it is missing.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.conftest import ROOT, ServerProcess, free_port, make_world

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
BROWSER_WORLD = "browser-world"
GM_ID = "gm0000000000000001"
PLAYER_ID = "player000000000001"
HARNESS_PATH = "/vtt_module/test/harness/index.html"


# ------------------------------------------------------------------ processes and servers


@pytest.fixture
def sidecar_proc(tmp_path: Path) -> Iterator[tuple[ServerProcess, str]]:
    """A real sidecar child process and the token of ``BROWSER_WORLD``."""
    db = tmp_path / "browser.sqlite3"
    token = make_world(db, BROWSER_WORLD)
    proc = ServerProcess(db, free_port())
    proc.start()
    try:
        yield proc, token
    finally:
        if proc.proc is not None and proc.proc.poll() is None:
            proc.proc.kill()
            proc.proc.wait(10)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def end_headers(self) -> None:
        # every test loads the module afresh
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


@pytest.fixture(scope="session")
def static_server() -> Iterator[str]:
    """The repository root over HTTP; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(ROOT))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, name="static-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Module scope, not session: the sync API keeps an event loop running in this thread
    # while it is open, which would stop every async test that runs after this module.
    if not CHROMIUM.exists():
        pytest.skip("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


# ------------------------------------------------------------------ the harness page


@dataclass
class Harness:
    """One harness page: ``h.call("moveToken", token_id, path)`` runs ``window.harness``."""

    page: Any
    context: Any
    console: list[str] = field(default_factory=list)

    def call(self, name: str, *args: Any) -> Any:
        return self.page.evaluate(
            "([name, args]) => window.harness[name](...args)", [name, list(args)]
        )

    def js(self, expression: str, arg: Any = None) -> Any:
        """Evaluate a function expression ``(h, arg) => ...`` with ``h = window.harness``."""
        return self.page.evaluate(
            f"([arg]) => ({expression})(window.harness, arg)",
            [arg],
        )

    def wait(self, expression: str, arg: Any = None, timeout_ms: int = 10_000) -> Any:
        """Poll ``(h, arg) => value`` in the page until truthy; returns the value."""
        return self.page.evaluate(
            f"([arg, t]) => window.harness.waitUntil(() => ({expression})(window.harness, arg), t)",
            [arg, timeout_ms],
        )

    def status(self) -> dict[str, Any]:
        result: dict[str, Any] = self.call("status")
        return result

    def messages(self, visible_to: str | None = None) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.call(
            "chatMessages", {"visibleTo": visible_to} if visible_to else {}
        )
        return result

    def actor(self, actor_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self.call("actor", actor_id)
        return result

    def received(self, kind: str | None = None) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.call("receivedFrames", kind)
        return result

    def sent(self, kind: str | None = None) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.call("sentFrames", kind)
        return result

    def report(self) -> str:
        """What to print when a test fails: console lines and notifications."""
        try:
            notes = json.dumps(self.call("notifications"))
        except Exception as exc:  # the page may be gone
            notes = f"(no notifications: {exc})"
        return "\n".join([*self.console[-60:], f"notifications: {notes}"])


HarnessFactory = Callable[..., Harness]


@pytest.fixture
def harness(
    browser: Any, static_server: str, sidecar_proc: tuple[ServerProcess, str]
) -> Iterator[HarnessFactory]:
    """Open harness pages: ``harness(connect=True, context=None, **query)``."""
    proc, token = sidecar_proc
    contexts: list[Any] = []
    opened: list[Harness] = []

    def open_page(
        *,
        connect: bool = True,
        context: Any = None,
        settings: dict[str, Any] | None = None,
        **query: Any,
    ) -> Harness:
        if context is None:
            context = browser.new_context()
            contexts.append(context)
        page = context.new_page()
        h = Harness(page, context)
        page.on("console", lambda m: h.console.append(f"[{m.type}] {m.text}"))
        page.on("pageerror", lambda e: h.console.append(f"[pageerror] {e}"))
        params = {"world": BROWSER_WORLD, **{k: str(v) for k, v in query.items()}}
        page.goto(f"{static_server}{HARNESS_PATH}?{urlencode(params)}")
        page.evaluate("() => window.harness.ready")
        h.call("configure", {"url": proc.url, "token": token, **(settings or {})})
        if connect:
            status = h.call("connect", {"timeoutMs": 10_000})
            assert status["state"] == "connected", (status, h.report())
        opened.append(h)
        return h

    try:
        yield open_page
    finally:
        for h in opened:
            if h.console:
                print(f"--- page console ({h.page.url}) ---\n{h.report()}")
        for context in contexts:
            context.close()
