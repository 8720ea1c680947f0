"""One WebSocket connection: handshake, decoding, dispatch to the world, delivery, acks."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from typing import TYPE_CHECKING, Any

from aiohttp import WSCloseCode, WSMsgType, web

from sidecar import __version__
from sidecar.logs import log_event
from sidecar.protocol import (
    MAX_FRAME_BYTES,
    MAX_PROTOCOL,
    MIN_PROTOCOL,
    PROTOCOL_VERSION,
    Ack,
    Error,
    Hello,
    Ping,
    Pong,
    ProtocolError,
    Welcome,
    decode,
)
from sidecar.store import StoreError
from sidecar.world import Outcome

if TYPE_CHECKING:
    from sidecar.app import Sidecar
    from sidecar.world import World

log = logging.getLogger("sidecar.session")

CLOSE_UNAUTHORIZED = 4401
CLOSE_BAD_PROTOCOL = 4406
CLOSE_SUPERSEDED = 4409
HELLO_TIMEOUT_S = 10.0


class RateLimiter:
    """Token bucket per connection: a flooding client waits, other worlds do not."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.updated = time.monotonic()

    def delay(self) -> float:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        wait = (1 - self.tokens) / self.rate
        self.tokens -= 1
        return wait


class Session:
    def __init__(self, sidecar: Sidecar, ws: web.WebSocketResponse, peer: str) -> None:
        self.sidecar = sidecar
        self.ws = ws
        self.peer = peer
        self.world: World | None = None
        self.limiter = RateLimiter(sidecar.config.rate_limit, sidecar.config.rate_burst)

    async def send(self, payload: dict[str, Any] | str) -> None:
        if self.ws.closed:
            return
        text = payload if isinstance(payload, str) else json.dumps(payload)
        try:
            await self.ws.send_str(text)
        except (ConnectionResetError, RuntimeError) as exc:
            log.info("send to %s failed: %s", self.peer, exc)

    async def send_error(self, error: Error) -> None:
        await self.send(error.model_dump(mode="json", exclude_none=True))

    async def refuse(self, error: Error, code: int) -> None:
        await self.send_error(error)
        await self.ws.close(code=code, message=error.message[:120].encode())

    # handshake -------------------------------------------------------------------
    async def handshake(self) -> bool:
        try:
            msg = await self.ws.receive(timeout=HELLO_TIMEOUT_S)
        except TimeoutError:
            await self.refuse(
                Error(code="unauthorized", message="no hello within 10 s"), CLOSE_UNAUTHORIZED
            )
            return False
        if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
            return False
        if msg.type != WSMsgType.TEXT:
            await self.refuse(
                Error(code="unauthorized", message="the first message must be a text hello"),
                CLOSE_UNAUTHORIZED,
            )
            return False
        try:
            hello = decode(msg.data)
        except ProtocolError as exc:
            await self.refuse(
                Error(
                    code="unauthorized",
                    message=f"the first message must be a valid hello: {exc.error.message}",
                    ref=exc.error.ref,
                    details=exc.error.details,
                ),
                CLOSE_UNAUTHORIZED,
            )
            return False
        if not isinstance(hello, Hello):
            await self.refuse(
                Error(
                    code="unauthorized",
                    message=f"expected hello before anything else, got {hello.type}",
                    ref=getattr(hello, "id", None),
                ),
                CLOSE_UNAUTHORIZED,
            )
            return False
        if not MIN_PROTOCOL <= hello.protocol <= MAX_PROTOCOL:
            await self.refuse(
                Error(
                    code="unsupported_protocol",
                    message=(
                        f"protocol {hello.protocol} is not supported; this sidecar speaks "
                        f"{MIN_PROTOCOL}..{MAX_PROTOCOL}: update the "
                        + ("module" if hello.protocol < MIN_PROTOCOL else "sidecar")
                    ),
                ),
                CLOSE_BAD_PROTOCOL,
            )
            return False
        row = self.sidecar.store.get_world(hello.world_id)
        if row is None or not row.token_matches(hello.token):
            log.warning("refused hello for world %r from %s", hello.world_id, self.peer)
            await self.refuse(
                Error(
                    code="unauthorized",
                    message="unknown world or wrong token (create one with: "
                    "vtt-sidecar world add WORLD_ID)",
                ),
                CLOSE_UNAUTHORIZED,
            )
            return False
        world = self.sidecar.world(row.id)
        world.set_session(hello.language, hello.ruleset)
        await self.sidecar.attach(world, self)
        self.world = world
        if hello.last_seq:
            self._ack(hello.last_seq)
        unacked = world.unacked(hello.last_seq)
        await self.send(
            Welcome(
                protocol=PROTOCOL_VERSION,
                server_version=__version__,
                world_id=world.id,
                world_name=world.name,
                last_seq=world.last_seq,
                resending=len(unacked),
            ).model_dump(mode="json")
        )
        for _, body in unacked:
            await self.send(body)
        log.info("world %s connected from %s (resent %d)", world.id, self.peer, len(unacked))
        return True

    def _ack(self, seq: int) -> None:
        assert self.world is not None
        try:
            self.world.ack(seq)
        except StoreError as exc:
            log.error("ack not stored for world %s: %s", self.world.id, exc)

    # main loop -------------------------------------------------------------------
    async def run(self) -> None:
        if not await self.handshake():
            return
        assert self.world is not None
        async for msg in self.ws:
            if msg.type == WSMsgType.TEXT:
                await self.handle_frame(msg.data)
            elif msg.type == WSMsgType.BINARY:
                await self.send_error(
                    Error(code="bad_json", message="binary frames are not accepted; send JSON text")
                )
            elif msg.type == WSMsgType.ERROR:
                break

    async def handle_frame(self, data: str) -> None:
        assert self.world is not None
        wait = self.limiter.delay()
        if wait > 0:
            await asyncio.sleep(min(wait, 5.0))
        try:
            message = decode(data)
        except ProtocolError as exc:
            await self.send_error(exc.error)
            return
        if isinstance(message, Ack):
            self._ack(message.seq)
            return
        if isinstance(message, Ping):
            await self.send(Pong(id=message.id).model_dump(mode="json"))
            return
        if isinstance(message, Hello):
            await self.send_error(
                Error(code="invalid", message="already greeted: hello is sent once", ref=message.id)
            )
            return
        started = time.perf_counter()
        async with self.sidecar.in_flight():
            outcome = apply_safely(self.world, message)
        log_event(
            self.world.id,
            message.id,
            message.type,
            outcome.reply,
            started,
            time.perf_counter(),
            messages=len(outcome.messages),
        )
        for _, body in outcome.messages:
            await self.send(body)
        await self.send(outcome.reply)

    async def close(self, code: int, message: str) -> None:
        if not self.ws.closed:
            await self.ws.close(code=code, message=message.encode())


def apply_safely(world: World, message: Any) -> Outcome:
    """``World.apply``, but a failure outside the rules (the store cannot be read, a bug in
    the executor) becomes a typed error for that event: the transaction is dropped and the
    connection, and every other world, carry on."""
    try:
        return world.apply(message)
    except Exception as exc:
        world.state.rollback()
        event_id = getattr(message, "id", None)
        log.exception("event %s of world %s failed outside the rules", event_id, world.id)
        if isinstance(exc, sqlite3.Error | StoreError):
            error = Error(
                code="storage_unavailable",
                message=f"the sidecar cannot use its database, nothing was applied: {exc}",
                ref=event_id,
            )
        else:
            error = Error(
                code="internal",
                message=f"the sidecar failed on this event ({type(exc).__name__}); "
                "nothing was applied",
                ref=event_id,
            )
        return Outcome(error.model_dump(mode="json"))


__all__ = ["Session", "CLOSE_UNAUTHORIZED", "CLOSE_SUPERSEDED", "MAX_FRAME_BYTES", "WSCloseCode"]
