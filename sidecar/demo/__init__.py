"""``vtt-sidecar demo``: a scripted session against a real server, printed as text.

It starts the sidecar on a free loopback port with a throwaway SQLite file, connects over
WebSocket exactly as the Foundry module would, and plays each part in ``PARTS``. Engines add
a part by adding a module here with ``async def play(demo: Demo) -> None``.
"""

from __future__ import annotations

import asyncio
import importlib
import socket
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from sidecar.app import Config, Sidecar
from sidecar.cards import card_text
from sidecar.client import Result, SidecarClient
from sidecar.protocol import Card
from sidecar.store import Store

PARTS = ["core", "traps", "afflictions", "chase"]
WORLD = "demo-world"


@dataclass
class Demo:
    client: SidecarClient
    language: str
    out: Callable[[str], None] = print
    shown_gm: bool = True
    notes: list[str] = field(default_factory=list)

    def heading(self, text: str) -> None:
        self.out("")
        self.out(f"=== {text} ===")

    def say(self, text: str) -> None:
        self.out(f"  {text}")

    async def send(self, event: dict[str, Any]) -> Result:
        result = await self.client.send(event)
        if not result.ok:
            self.out(f"  ! {result.reply.get('code')}: {result.reply.get('message')}")
        self.show(result)
        return result

    def show(self, result: Result) -> None:
        for message in result.messages:
            self.show_message(message)

    def show_message(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "card":
            card = Card.model_validate(message["card"])
            if card.visibility == "gm" and not self.shown_gm:
                return
            label = {"public": "card", "gm": "GM-only card", "owners": "owners' card"}[
                card.visibility
            ]
            self.out(f"  [{label}] " + card_text(card).replace("\n", "\n    "))
        elif kind == "ops":
            for op in message["ops"]:
                fields = ", ".join(f"{k}={v}" for k, v in op.items() if k != "op")
                self.out(f"  [op] {op['op']}: {fields}")
        elif kind == "save.request":
            self.out(f"  [save request] {message['token_id']}: {message['ability']}")
        elif kind == "state":
            self.out(f"  [state] {message['kind']} {message['key']}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _run(language: str, seed: int, only: list[str] | None, out: Callable[[str], None]) -> int:
    with tempfile.TemporaryDirectory(prefix="vtt-sidecar-demo-") as tmp:
        db = Path(tmp) / "demo.sqlite3"
        store = Store(db)
        token = store.add_world(WORLD, "Demo world")
        store.set_seed(WORLD, seed)
        store.close()
        port = _free_port()
        sidecar = Sidecar(Config(host="127.0.0.1", port=port, db=db))
        runner = web.AppRunner(sidecar.make_app())
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        out(f"Demo sidecar on ws://127.0.0.1:{port}/ws (database {db}, seed {seed})")
        try:
            async with SidecarClient(f"ws://127.0.0.1:{port}/ws") as client:
                client.prefix = "demo"
                welcome = await client.hello(WORLD, token, language=language)
                out(f"Handshake: {welcome['type']} (protocol {welcome.get('protocol')})")
                demo = Demo(client, language, out)
                for name in PARTS:
                    if only and name not in only:
                        continue
                    try:
                        module = importlib.import_module(f"sidecar.demo.{name}")
                    except ModuleNotFoundError as exc:
                        if exc.name == f"sidecar.demo.{name}":
                            continue
                        raise
                    await module.play(demo)
        finally:
            await runner.cleanup()
    return 0


def run_demo(
    language: str = "en",
    seed: int = 7,
    only: list[str] | None = None,
    out: Callable[[str], None] = print,
) -> int:
    return asyncio.run(_run(language, seed, only, out))
