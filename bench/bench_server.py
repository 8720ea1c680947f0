"""Server benchmarks: latency of a trap-triggering move, throughput with 50 worlds, memory.

The sidecar and a bare aiohttp WebSocket echo server (bench/echo_server.py) run as child
processes, so the load generator's CPU is not theirs; every figure is also given as a ratio
to the echo server measured in the same run, because absolute times on a shared machine are
noise. The rate limit is lifted in the sidecar's config (it would otherwise cap each
connection at 200 frames/s, which is the point of it, not of this benchmark).

    python bench/bench_server.py [--quick]

(a) latency: one world, a token walking back and forth over a `poison_darts` pressure
    plate that re-arms at once (placement override), so every move fires four attacks with
    poison saves; from sending the move to its `accepted` (every world message arrives
    before it). p50/p99 over 10,000 moves vs the echo round trip of a same-sized frame.
(b) throughput: 50 worlds connected at once, each sending moves that trigger nothing (one
    in flight per connection), events/s vs echo messages/s over the same 50 connections.
(c) memory: VmRSS of the sidecar process when idle, and per connected world holding a
    scene of 100 tokens and 50 traps.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sidecar.store import Store  # noqa: E402

SQ = 100
QUICK = "--quick" in sys.argv
ONLY = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")), None)
PROFILE = next((Path(a.split("=", 1)[1]) for a in sys.argv if a.startswith("--profile=")), None)


# ------------------------------------------------------------------ processes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_port(proc: subprocess.Popen[bytes], port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if proc.poll() is not None:
                out = proc.stdout.read().decode() if proc.stdout else ""
                raise RuntimeError(f"child exited early:\n{out}") from None
            time.sleep(0.05)
    raise RuntimeError(f"nothing listening on {port} after {timeout} s")


def child_env() -> dict[str, str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("VTT_SIDECAR_CHECK_STATE", None)  # a test-only guard; not what production runs
    return env


@dataclass
class Sidecar:
    """``vtt-sidecar serve`` in a child process with a fresh database."""

    workdir: Path
    worlds: list[str]
    rate_limit: float = 1e9
    extra: list[str] = field(default_factory=list)
    profile: Path | None = None  # run under pyinstrument, text report written here
    tokens: dict[str, str] = field(default_factory=dict)
    proc: subprocess.Popen[bytes] | None = None
    port: int = 0

    def start(self) -> None:
        db = self.workdir / "bench.sqlite3"
        store = Store(db)
        for world in self.worlds:
            self.tokens[world] = store.add_world(world)
            store.set_seed(world, 12345)
        store.close()
        config = self.workdir / "sidecar.toml"
        config.write_text(
            f"[sidecar]\nrate_limit = {self.rate_limit}\nrate_burst = {self.rate_limit}\n",
            "utf-8",
        )
        self.port = free_port()
        launcher = [sys.executable, "-m", "sidecar.cli"]
        if self.profile is not None:
            launcher = [sys.executable, "-m", "pyinstrument", "-r", "text", "--show-all"]
            launcher += ["-o", str(self.profile), "-m", "sidecar.cli"]
        cmd = [
            *launcher,
            "--config",
            str(config),
            "--db",
            str(db),
            "serve",
            "--port",
            str(self.port),
            "--log-level",
            "WARNING",
            *self.extra,
        ]
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        wait_port(self.proc, self.port)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def rss_kib(self) -> int:
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def cpu_s(self) -> float:
        """User + system CPU seconds the sidecar process has used so far."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> str:
        if self.proc is None:
            return ""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            out, _ = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        return out.decode(errors="replace")


class Echo:
    def __init__(self) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "echo_server.py"), str(self.port)],
            env=child_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        wait_port(self.proc, self.port)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


# ------------------------------------------------------------------ a lean protocol client


class Conn:
    """One module connection: hello, send an event, wait for its reply, ack what came."""

    def __init__(self, session: aiohttp.ClientSession, url: str) -> None:
        self.session = session
        self.url = url
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.last_seq = 0
        self.messages = 0
        self.seen_seqs: set[int] = set()

    async def open(self, world: str | None = None, token: str | None = None) -> None:
        self.ws = await self.session.ws_connect(self.url, max_msg_size=0)
        if world is None:
            return
        await self.ws.send_str(
            json.dumps(
                {
                    "type": "hello",
                    "protocol": 1,
                    "world_id": world,
                    "token": token,
                    "module_version": "bench",
                    "last_seq": self.last_seq,
                }
            )
        )
        welcome = json.loads((await self.ws.receive()).data)
        assert welcome["type"] == "welcome", welcome
        for _ in range(welcome["resending"]):
            await self.ws.receive()

    async def event(self, frame: str, event_id: str, ack: bool = True) -> dict[str, Any]:
        assert self.ws is not None
        await self.ws.send_str(frame)
        while True:
            msg = await self.ws.receive()
            if msg.type != aiohttp.WSMsgType.TEXT:
                raise RuntimeError(f"connection closed: {msg.type} {msg.extra}")
            data: dict[str, Any] = json.loads(msg.data)
            seq = data.get("seq")
            if seq is not None:
                if seq in self.seen_seqs:
                    raise RuntimeError(f"seq {seq} delivered twice")
                self.seen_seqs.add(seq)
                self.last_seq = max(self.last_seq, seq)
                self.messages += 1
                continue
            if data.get("id") == event_id or data.get("ref") == event_id:
                if data["type"] != "accepted":
                    raise RuntimeError(f"event {event_id} refused: {data}")
                if ack and data["seqs"]:
                    await self.ws.send_str(json.dumps({"type": "ack", "seq": self.last_seq}))
                return data

    async def echo(self, frame: str) -> None:
        assert self.ws is not None
        await self.ws.send_str(frame)
        msg = await self.ws.receive()
        assert msg.data == frame

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


# ------------------------------------------------------------------ scenes and events


def creature(cid: str, name: str, hp: int = 1_000_000) -> dict[str, Any]:
    return {
        "id": cid,
        "name": name,
        "hp": {"value": hp, "max": hp},
        "ac": 14,
        "abilities": {"str": 1, "dex": 2, "con": 1, "int": 0, "wis": 1, "cha": 0},
        "saves": {"str": 1, "dex": 2, "con": 1, "int": 0, "wis": 1, "cha": 0},
        "passive_perception": 10,
    }


def token(tid: str, x: float, y: float) -> dict[str, Any]:
    return {"id": tid, "name": tid, "x": x, "y": y, "creature": creature(f"a-{tid}", tid)}


def trap_region(rid: str, trap_id: str, x: float, y: float, **placement: Any) -> dict[str, Any]:
    return {
        "id": rid,
        "name": rid,
        "shapes": [{"type": "rectangle", "x": x, "y": y, "width": SQ, "height": SQ}],
        "trap": {"trap_id": trap_id, **placement},
    }


TRAP_IDS = ["poison_darts", "simple_pit", "collapsing_roof", "falling_net"]


def scene_sync(scene_id: str, tokens: int, traps: int, event_id: str) -> dict[str, Any]:
    """Tokens on the top rows, traps on the bottom rows: no move on the top rows sets one off."""
    width = 100
    return {
        "type": "scene.sync",
        "id": event_id,
        "scene": {
            "id": scene_id,
            "name": scene_id,
            "width": width * SQ,
            "height": 100 * SQ,
            "grid": {"size": SQ, "distance": 5},
            "tokens": [
                token(f"t{i}", (i % 50) * 2 * SQ, (i // 50) * 2 * SQ) for i in range(tokens)
            ],
            "regions": [
                trap_region(
                    f"r{i}",
                    TRAP_IDS[i % len(TRAP_IDS)],
                    (i % 40) * 2 * SQ,
                    (60 + (i // 40) * 4) * SQ,
                )
                for i in range(traps)
            ],
        },
    }


def darts_scene(event_id: str) -> dict[str, Any]:
    plate = trap_region(
        "darts", "poison_darts", 5 * SQ, 0, overrides={"reset": {"policy": "rearm", "rounds": 0}}
    )
    return {
        "type": "scene.sync",
        "id": event_id,
        "scene": {
            "id": "hall",
            "width": 40 * SQ,
            "height": 10 * SQ,
            "grid": {"size": SQ, "distance": 5},
            "tokens": [token("hero", 0, 0)],
            "regions": [plate],
        },
    }


def move(
    event_id: str, scene_id: str, token_id: str, a: tuple[float, float], b: tuple[float, float]
) -> str:
    return json.dumps(
        {
            "type": "token.move",
            "id": event_id,
            "scene_id": scene_id,
            "token_id": token_id,
            "path": [{"x": a[0], "y": a[1]}, {"x": b[0], "y": b[1]}],
        }
    )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ------------------------------------------------------------------ the measurements


async def measure_memory(sidecar: Sidecar, worlds: list[str]) -> dict[str, float]:
    await asyncio.sleep(0.5)
    idle = sidecar.rss_kib()
    async with aiohttp.ClientSession() as session:
        conns = []
        for world in worlds:
            conn = Conn(session, sidecar.url)
            await conn.open(world, sidecar.tokens[world])
            await conn.event(json.dumps(scene_sync("big", 100, 50, "sync-1")), "sync-1")
            # one move per world so the trap index is built and cached
            await conn.event(move("m-1", "big", "t0", (0, 0), (SQ, 0)), "m-1")
            conns.append(conn)
        await asyncio.sleep(0.5)
        loaded = sidecar.rss_kib()
        for conn in conns:
            await conn.close()
    return {
        "idle_mib": idle / 1024,
        "per_world_mib": (loaded - idle) / 1024 / len(worlds),
        "worlds": len(worlds),
    }


async def measure_latency(sidecar: Sidecar, echo: Echo, n: int) -> dict[str, Any]:
    async with aiohttp.ClientSession() as session:
        conn = Conn(session, sidecar.url)
        await conn.open("lat", sidecar.tokens["lat"])
        await conn.event(json.dumps(darts_scene("sync-lat")), "sync-lat")
        frames = []
        for i in range(n + n // 10):
            a, b = ((0, 0), (10 * SQ, 0)) if i % 2 == 0 else ((10 * SQ, 0), (0, 0))
            frames.append((f"mv-{i}", move(f"mv-{i}", "hall", "hero", a, b)))
        warm, timed = frames[: n // 10], frames[n // 10 :]
        for event_id, frame in warm:
            await conn.event(frame, event_id)
        sidecar_rtts = []
        messages_before = conn.messages
        cpu_before = sidecar.cpu_s()
        for event_id, frame in timed:
            started = time.perf_counter()
            await conn.event(frame, event_id)
            sidecar_rtts.append(time.perf_counter() - started)
        per_event = (conn.messages - messages_before) / len(timed)
        cpu_per_event = (sidecar.cpu_s() - cpu_before) / len(timed)
        await conn.close()

        plain = Conn(session, echo.url)
        await plain.open()
        sample = timed[0][1]
        for _ in range(n // 10):
            await plain.echo(sample)
        echo_rtts = []
        for _ in range(n):
            started = time.perf_counter()
            await plain.echo(sample)
            echo_rtts.append(time.perf_counter() - started)
        await plain.close()
    return {
        "events": len(sidecar_rtts),
        "messages_per_event": per_event,
        "p50_ms": pct(sidecar_rtts, 0.5) * 1000,
        "p99_ms": pct(sidecar_rtts, 0.99) * 1000,
        "mean_ms": statistics.fmean(sidecar_rtts) * 1000,
        "server_cpu_ms_per_event": cpu_per_event * 1000,
        "echo_p50_ms": pct(echo_rtts, 0.5) * 1000,
        "echo_p99_ms": pct(echo_rtts, 0.99) * 1000,
    }


async def measure_throughput(
    sidecar: Sidecar, echo: Echo, worlds: list[str], seconds: float
) -> dict[str, float]:
    async with aiohttp.ClientSession() as session:
        conns = []
        for world in worlds:
            conn = Conn(session, sidecar.url)
            await conn.open(world, sidecar.tokens[world])
            await conn.event(json.dumps(scene_sync("room", 10, 5, "sync-1")), "sync-1")
            conns.append(conn)

        async def walk(conn: Conn, stop: float, counter: list[int]) -> None:
            i = 0
            while time.perf_counter() < stop:
                x = (i % 20) * SQ
                event_id = f"w-{counter[0]}-{i}"
                await conn.event(move(event_id, "room", "t0", (x, 0), (x + SQ, 0)), event_id)
                i += 1
            counter[0] += i

        async def run(duration: float) -> tuple[int, float]:
            counters = [[0] for _ in conns]
            started = time.perf_counter()
            stop = started + duration
            await asyncio.gather(*(walk(c, stop, k) for c, k in zip(conns, counters, strict=True)))
            return sum(k[0] for k in counters), time.perf_counter() - started

        await run(1.0)  # warm-up
        cpu_before = sidecar.cpu_s()
        done, elapsed = await run(seconds)
        cpu = sidecar.cpu_s() - cpu_before
        for conn in conns:
            await conn.close()

        echoes = []
        for _ in worlds:
            conn = Conn(session, echo.url)
            await conn.open()
            echoes.append(conn)
        sample = move("w-0-0", "room", "t0", (0, 0), (SQ, 0))

        async def bounce(conn: Conn, stop: float, counter: list[int]) -> None:
            while time.perf_counter() < stop:
                await conn.echo(sample)
                counter[0] += 1

        async def run_echo(duration: float) -> tuple[int, float]:
            counters = [[0] for _ in echoes]
            started = time.perf_counter()
            stop = started + duration
            await asyncio.gather(
                *(bounce(c, stop, k) for c, k in zip(echoes, counters, strict=True))
            )
            return sum(k[0] for k in counters), time.perf_counter() - started

        await run_echo(1.0)
        echoed, echo_elapsed = await run_echo(seconds)
        for conn in echoes:
            await conn.close()
    return {
        "worlds": len(worlds),
        "events_per_s": done / elapsed,
        "server_cpu_us_per_event": cpu / done * 1e6,
        "server_busy": cpu / elapsed,
        "echo_per_s": echoed / echo_elapsed,
    }


async def main_async() -> int:
    n = 2000 if QUICK else 10_000
    seconds = 3.0 if QUICK else 5.0
    mem_worlds = [f"mem-{i}" for i in range(10)]
    load_worlds = [f"load-{i}" for i in range(50)]
    with tempfile.TemporaryDirectory(prefix="vtt-bench-") as tmp:
        sidecar = Sidecar(Path(tmp), ["lat", *mem_worlds, *load_worlds], profile=PROFILE)
        sidecar.start()
        echo = Echo()
        try:
            if ONLY == "throughput":  # for profiling one part
                print(await measure_throughput(sidecar, echo, load_worlds, seconds))
                return 0
            if ONLY == "latency":
                print(await measure_latency(sidecar, echo, n))
                return 0
            memory = await measure_memory(sidecar, mem_worlds)
            latency = await measure_latency(sidecar, echo, n)
            throughput = await measure_throughput(sidecar, echo, load_worlds, seconds)
        finally:
            echo.stop()
            log = sidecar.stop()
    if "Traceback" in log:
        print(log[-3000:])
        return 1
    lat_ratio = latency["p99_ms"] / latency["echo_p99_ms"]
    tp_ratio = throughput["events_per_s"] / throughput["echo_per_s"]
    print("(a) latency of a move that sets off poison_darts (trap engine), one world, loopback")
    print(
        f"    {latency['events']} moves, {latency['messages_per_event']:.1f} world messages each:"
        f" p50 {latency['p50_ms']:.2f} ms, p99 {latency['p99_ms']:.2f} ms"
        f" (mean {latency['mean_ms']:.2f} ms);"
        f" server CPU {latency['server_cpu_ms_per_event']:.2f} ms per move"
    )
    print(
        f"    echo server round trip: p50 {latency['echo_p50_ms']:.3f} ms,"
        f" p99 {latency['echo_p99_ms']:.3f} ms"
    )
    verdict = "met" if lat_ratio <= 3 else "MISSED"
    print(f"    p99 ratio to echo: {lat_ratio:.1f}x (target <= 3x: {verdict})")
    print("(b) throughput of moves that set off nothing, 50 worlds connected at once")
    print(
        f"    {throughput['events_per_s']:.0f} events/s;"
        f" echo {throughput['echo_per_s']:.0f} messages/s over the same 50 connections"
    )
    print(
        f"    server CPU {throughput['server_cpu_us_per_event']:.0f} us per event,"
        f" server process busy {throughput['server_busy'] * 100:.0f}% of one core"
    )
    verdict = "met" if tp_ratio >= 0.3 else "MISSED"
    print(f"    ratio to echo: {tp_ratio:.2f} (target >= 0.3: {verdict})")
    print("(c) memory (VmRSS of the sidecar process)")
    print(
        f"    idle {memory['idle_mib']:.1f} MiB; per connected world with a 100-token,"
        f" 50-trap scene: {memory['per_world_mib']:.2f} MiB (over {memory['worlds']} worlds)"
    )
    summary = {"latency": latency, "throughput": throughput, "memory": memory}
    print("json: " + json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main_async()))
