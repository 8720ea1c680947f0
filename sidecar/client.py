"""A small protocol client: what the demo, the tests and the benchmarks speak with.

It plays the module's part over a real WebSocket: hello, events with ids, world messages
collected in seq order and acked, replies matched to the event that caused them.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from sidecar.protocol import PROTOCOL_VERSION


@dataclass
class Result:
    """The reply to one event and the world messages that arrived with it."""

    reply: dict[str, Any]
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.reply.get("type") == "accepted"

    @property
    def cards(self) -> list[dict[str, Any]]:
        return [m["card"] for m in self.messages if m["type"] == "card"]

    @property
    def ops(self) -> list[dict[str, Any]]:
        return [op for m in self.messages if m["type"] == "ops" for op in m["ops"]]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == kind]


class ClosedError(Exception):
    def __init__(self, code: int | None, reason: str) -> None:
        super().__init__(f"closed with {code}: {reason}")
        self.code = code
        self.reason = reason


class SidecarClient:
    def __init__(self, url: str, *, origin: str | None = None, auto_ack: bool = True) -> None:
        self.url = url
        self.origin = origin
        self.auto_ack = auto_ack
        self.session: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.last_seq = 0
        self.welcome: dict[str, Any] | None = None
        self.inbox: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self.prefix = "ev"

    async def connect(self) -> None:
        self.session = aiohttp.ClientSession()
        headers = {"Origin": self.origin} if self.origin else {}
        self.ws = await self.session.ws_connect(self.url, headers=headers, max_msg_size=0)

    async def close(self) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.close()
        if self.session is not None:
            await self.session.close()

    async def __aenter__(self) -> SidecarClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # raw frames ---------------------------------------------------------------------
    async def send_raw(self, data: str | bytes) -> None:
        assert self.ws is not None
        if isinstance(data, bytes):
            await self.ws.send_bytes(data)
        else:
            await self.ws.send_str(data)

    async def send_json(self, payload: dict[str, Any]) -> None:
        await self.send_raw(json.dumps(payload))

    async def receive(self, timeout: float = 10.0) -> dict[str, Any]:
        assert self.ws is not None
        msg = await self.ws.receive(timeout=timeout)
        if msg.type == aiohttp.WSMsgType.TEXT:
            data: dict[str, Any] = json.loads(msg.data)
            return data
        if msg.type in (
            aiohttp.WSMsgType.CLOSE,
            aiohttp.WSMsgType.CLOSED,
            aiohttp.WSMsgType.CLOSING,
        ):
            raise ClosedError(self.ws.close_code, str(msg.extra or ""))
        raise ClosedError(self.ws.close_code, f"unexpected frame {msg.type}")

    # protocol -----------------------------------------------------------------------
    async def hello(
        self,
        world_id: str,
        token: str,
        *,
        language: str = "en",
        ruleset: str = "legacy",
        protocol: int = PROTOCOL_VERSION,
    ) -> dict[str, Any]:
        await self.send_json(
            {
                "type": "hello",
                "protocol": protocol,
                "world_id": world_id,
                "token": token,
                "module_version": "test",
                "system_id": "dnd5e",
                "system_version": "5.1.0",
                "language": language,
                "ruleset": ruleset,
                "last_seq": self.last_seq,
            }
        )
        reply = await self.receive()
        if reply.get("type") != "welcome":
            return reply
        self.welcome = reply
        for _ in range(reply["resending"]):
            self._take(await self.receive())
        await self._ack()
        return reply

    def next_id(self) -> str:
        return f"{self.prefix}-{next(self._ids)}"

    async def send(self, event: dict[str, Any], timeout: float = 30.0) -> Result:
        """Send an event (an id is added if missing) and wait for its reply."""
        event = dict(event)
        event.setdefault("id", self.next_id())
        await self.send_json(event)
        return await self.wait_reply(event["id"], timeout)

    async def wait_reply(self, event_id: str, timeout: float = 30.0) -> Result:
        messages: list[dict[str, Any]] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            data = await self.receive(timeout=max(0.01, deadline - loop.time()))
            if "seq" in data:
                if self._take(data):
                    messages.append(data)
                continue
            if (
                data.get("type") in ("accepted", "error")
                and data.get("ref", data.get("id")) == event_id
            ):
                await self._ack()
                return Result(data, messages)
            if data.get("type") == "error" and data.get("ref") is None:
                return Result(data, messages)

    async def collect(self, timeout: float = 1.0) -> list[dict[str, Any]]:
        """World messages that arrive without an event of ours (e.g. a timeout resumed)."""
        got: list[dict[str, Any]] = []
        try:
            while True:
                data = await self.receive(timeout=timeout)
                if "seq" in data and self._take(data):
                    got.append(data)
        except TimeoutError:
            pass
        await self._ack()
        return got

    def _take(self, data: dict[str, Any]) -> bool:
        seq = int(data["seq"])
        if seq <= self.last_seq:
            return False
        self.last_seq = seq
        self.inbox.append(data)
        return True

    async def _ack(self) -> None:
        if self.auto_ack and self.last_seq:
            await self.send_json({"type": "ack", "seq": self.last_seq})


def token_event(scene_id: str, token: dict[str, Any]) -> dict[str, Any]:
    return {"type": "token.update", "scene_id": scene_id, "token": token}


def creature(
    cid: str,
    name: str,
    *,
    hp: int = 30,
    ac: int = 14,
    saves: dict[str, int] | None = None,
    abilities: dict[str, int] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A creature snapshot as the dnd5e adapter would send it."""
    return {
        "id": cid,
        "name": name,
        "hp": {"value": hp, "max": hp, "temp": 0},
        "ac": ac,
        "abilities": abilities or {"str": 1, "dex": 2, "con": 1, "int": 0, "wis": 1, "cha": 0},
        "saves": saves or {"str": 1, "dex": 2, "con": 1, "int": 0, "wis": 1, "cha": 0},
        **extra,
    }


def token(
    tid: str, name: str, x: float, y: float, creature_data: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return {"id": tid, "name": name, "x": x, "y": y, "creature": creature_data, **extra}
