"""The aiohttp application: routes, the worlds in memory, connections, shutdown."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from sidecar import __version__
from sidecar.cards import CardRenderer
from sidecar.content import BUNDLED_CONTENT, ContentStore
from sidecar.logs import log_event
from sidecar.protocol import MAX_FRAME_BYTES, PROTOCOL_VERSION
from sidecar.session import CLOSE_SUPERSEDED, Session
from sidecar.store import Store, default_db_path
from sidecar.world import World

log = logging.getLogger("sidecar.app")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


@dataclass
class Config:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    db: Path = field(default_factory=default_db_path)
    content: list[Path] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    rate_limit: float = 200.0
    rate_burst: float = 400.0
    log_level: str = "INFO"
    log_format: str = "text"  # or "json": one JSON object per line (docs/operations.md)
    public_url: str | None = None


class Sidecar:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.store = Store(config.db)
        self.content = ContentStore.load([BUNDLED_CONTENT, *config.content])
        self.content.raise_if_errors()
        self.cards = CardRenderer(self.content.catalog)
        self.worlds: dict[str, World] = {}
        self.sessions: dict[str, Session] = {}
        self.started = time.monotonic()
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._timers: dict[tuple[str, str], asyncio.TimerHandle] = {}

    # worlds ------------------------------------------------------------------------
    def world(self, world_id: str) -> World:
        world = self.worlds.get(world_id)
        if world is None:
            row = self.store.get_world(world_id)
            if row is None:
                raise KeyError(world_id)
            world = World(row, self.store, self.content, self.cards)
            world.on_deadline = self._schedule_deadline
            self.worlds[world_id] = world
            for event_id, timeout in world.pending_deadlines():
                self._schedule_deadline(world, event_id, timeout)
        return world

    async def attach(self, world: World, session: Session) -> None:
        """One live connection per world: a newer one replaces the older, so no result is
        ever applied by two clients."""
        old = self.sessions.get(world.id)
        self.sessions[world.id] = session
        if old is not None and old is not session:
            await old.close(CLOSE_SUPERSEDED, "another client connected for this world")

    def detach(self, session: Session) -> None:
        if session.world and self.sessions.get(session.world.id) is session:
            del self.sessions[session.world.id]

    def _schedule_deadline(self, world: World, event_id: str, timeout: float) -> None:
        loop = asyncio.get_event_loop()
        key = (world.id, event_id)
        if key in self._timers:
            self._timers[key].cancel()
        self._timers[key] = loop.call_later(
            timeout, lambda: asyncio.ensure_future(self._expire(world, event_id))
        )

    async def _expire(self, world: World, event_id: str) -> None:
        self._timers.pop((world.id, event_id), None)
        started = time.perf_counter()
        async with self.in_flight():
            try:
                outcome = world.expire(event_id)
            except Exception:
                # the event stays pending in the store and is retried at the next start
                world.state.rollback()
                log.exception("expiring event %s of world %s failed", event_id, world.id)
                return
        if outcome.reply:
            log_event(
                world.id,
                event_id,
                "save.timeout",
                outcome.reply,
                started,
                time.perf_counter(),
                messages=len(outcome.messages),
            )
        session = self.sessions.get(world.id)
        if session is not None:
            for _, body in outcome.messages:
                await session.send(body)

    # in-flight tracking for graceful shutdown -----------------------------------------
    @asynccontextmanager
    async def in_flight(self) -> AsyncIterator[None]:
        self._in_flight += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._idle.set()

    async def drain(self, timeout: float = 10.0) -> None:
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            log.warning("shutdown: %d events still in flight", self._in_flight)

    # http ------------------------------------------------------------------------------
    async def healthz(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "status": "ok",
                "version": __version__,
                "protocol": PROTOCOL_VERSION,
                "uptime_s": round(time.monotonic() - self.started, 3),
                "worlds_connected": len(self.sessions),
            }
        )

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if self.config.origins and origin not in self.config.origins:
            log.warning("refused origin %r", origin)
            return web.json_response(
                {
                    "type": "error",
                    "code": "origin_refused",
                    "message": f"origin {origin!r} is not allowed",
                },
                status=403,
            )
        ws = web.WebSocketResponse(max_msg_size=MAX_FRAME_BYTES, heartbeat=30.0)
        await ws.prepare(request)
        session = Session(self, ws, request.remote or "?")
        try:
            await session.run()
        finally:
            self.detach(session)
        return ws

    def make_app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_FRAME_BYTES)
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/ws", self.websocket)
        from sidecar import module_routes

        module_routes.add_routes(app, self)
        app.on_shutdown.append(self._on_shutdown)
        app.on_cleanup.append(self._on_cleanup)
        return app

    async def _on_shutdown(self, app: web.Application) -> None:
        await self.drain()
        for session in list(self.sessions.values()):
            await session.close(1001, "sidecar shutting down")
        for timer in self._timers.values():
            timer.cancel()

    async def _on_cleanup(self, app: web.Application) -> None:
        self.store.close()


def load_toml(path: Path) -> dict[str, Any]:
    import tomllib

    with path.open("rb") as fh:
        data = tomllib.load(fh)
    section = data.get("sidecar", data)
    if not isinstance(section, dict):
        raise ValueError(f"{path}: [sidecar] must be a table")
    return section


def dump_config(config: Config) -> str:
    return json.dumps(
        {
            "host": config.host,
            "port": config.port,
            "db": str(config.db),
            "content": [str(p) for p in config.content],
            "origins": config.origins,
        }
    )
