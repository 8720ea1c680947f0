"""Shared fixtures: a real sidecar on a loopback port with a real SQLite file on disk."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from sidecar.app import Config, Sidecar
from sidecar.client import SidecarClient
from sidecar.store import Store

# every test run checks that no engine changes committed state in place (see sidecar/world.py)
os.environ["VTT_SIDECAR_CHECK_STATE"] = "1"

ROOT = Path(__file__).resolve().parent.parent
WORLD_ID = "test-world"
SEED = 20261129


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class RunningSidecar:
    url: str
    http: str
    db: Path
    token: str
    world_id: str
    sidecar: Sidecar | None = None

    def client(self, **kwargs: object) -> SidecarClient:
        return SidecarClient(self.url, **kwargs)  # type: ignore[arg-type]

    async def connected(self, **hello: object) -> SidecarClient:
        client = self.client()
        await client.connect()
        reply = await client.hello(self.world_id, self.token, **hello)  # type: ignore[arg-type]
        assert reply["type"] == "welcome", reply
        return client


def make_world(db: Path, world_id: str = WORLD_ID, seed: int = SEED) -> str:
    store = Store(db)
    token = store.add_world(world_id)
    store.set_seed(world_id, seed)
    store.close()
    return token


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RunningSidecar]:
    """The sidecar application in this process, on a real socket and a real SQLite file."""
    db = tmp_path / "sidecar.sqlite3"
    token = make_world(db)
    port = free_port()
    sidecar = Sidecar(Config(host="127.0.0.1", port=port, db=db))
    runner = web.AppRunner(sidecar.make_app())
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    try:
        yield RunningSidecar(
            f"ws://127.0.0.1:{port}/ws", f"http://127.0.0.1:{port}", db, token, WORLD_ID, sidecar
        )
    finally:
        await runner.cleanup()


@pytest.fixture
async def client(server: RunningSidecar) -> AsyncIterator[SidecarClient]:
    c = await server.connected()
    try:
        yield c
    finally:
        await c.close()


class ServerProcess:
    """``vtt-sidecar serve`` as a child process, for kill -9 and signal tests."""

    def __init__(self, db: Path, port: int, extra: list[str] | None = None) -> None:
        self.db = db
        self.port = port
        self.extra = extra or []
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sidecar.cli",
                "--db",
                str(self.db),
                "serve",
                "--port",
                str(self.port),
                *self.extra,
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError as exc:
                if self.proc.poll() is not None:
                    out = self.proc.stdout.read().decode() if self.proc.stdout else ""
                    raise RuntimeError(f"sidecar exited early:\n{out}") from exc
                time.sleep(0.05)
        raise RuntimeError("sidecar did not start listening within 20 s")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.terminate()
        return self.proc.wait(15)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"


@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[tuple[ServerProcess, str]]:
    db = tmp_path / "proc.sqlite3"
    token = make_world(db)
    proc = ServerProcess(db, free_port())
    proc.start()
    try:
        yield proc, token
    finally:
        if proc.proc is not None and proc.proc.poll() is None:
            proc.proc.kill()
            proc.proc.wait(10)


async def http_get_json(url: str) -> dict[str, object]:
    async with aiohttp.ClientSession() as s, s.get(url) as r:
        data: dict[str, object] = await r.json()
        return data
