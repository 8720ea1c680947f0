"""Hostile input: fuzzed frames, script in names, absurd dice in content, symlinks.

The frame fuzzer talks to a real ``vtt-sidecar serve`` child process over one connection
(rate limit lifted by a config file) and sends at least 100,000 generated frames: messages
of every client type built from the JSON Schema with edge-case values, the same messages
mutated (wrong types, huge numbers, unicode edge cases), truncated and sent as binary, and raw
frames (random bytes and text, deep nesting, 1e308 and 10**400). After every batch a ping
must come back, every frame must have had exactly one typed reply (acks have none), and every
reply must be strict JSON that validates against the server message models.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from sidecar.cli import main
from sidecar.client import SidecarClient, creature, token
from sidecar.content import BUNDLED_CONTENT
from sidecar.protocol import MAX_FRAME_BYTES, Ack, ProtocolError, decode, server_adapter
from tests.conftest import ROOT, WORLD_ID, RunningSidecar, ServerProcess, free_port, make_world

TARGET_FRAMES = 100_000
SEED_BASE = int(os.environ.get("VTT_FUZZ_SEED", "0"))  # a fixed seed; vary it to explore
SCHEMA = json.loads((ROOT / "docs" / "protocol.schema.json").read_text("utf-8"))
CLIENT_DEFS: dict[str, Any] = SCHEMA["$defs"]["ClientMessage"]["$defs"]
PREFIX = "#/$defs/ClientMessage/$defs/"

# ------------------------------------------------------------------ value strategies

EDGE_STRINGS = [
    "",
    "\x00",
    "a\x00b",
    "\u202etxt.exe",  # right-to-left override
    "\u200f\u200e",  # RTL / LTR marks
    "\ufeff",
    "\ud800",  # lone surrogates, escaped in the JSON text
    "\udfff",
    "e\u0301\u0301\u0301",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🐉",
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "%s%n{0}{{x}}",
    "x" * 129,
]
EDGE_NUMBERS: list[Any] = [
    0,
    -1,
    1e308,
    -1e308,
    5e-324,
    2**63,
    -(2**63) - 1,
    10**400,
    1.5,
    True,
]

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(EDGE_STRINGS),
    st.sampled_from(EDGE_NUMBERS),
    st.sampled_from([5000, 70_000]).map(lambda n: "x" * n),  # long, built lazily: short repr
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def text_for(node: dict[str, Any]) -> st.SearchStrategy[str]:
    lo, hi = node.get("minLength", 0), node.get("maxLength", 40)
    plain = st.text(min_size=lo, max_size=min(hi, 24))
    edge = st.one_of(
        st.sampled_from(EDGE_STRINGS), st.builds(lambda n: "x" * n, st.sampled_from([hi, hi + 1]))
    )
    return st.one_of(plain, plain, edge)


def number_for(node: dict[str, Any], integer: bool) -> st.SearchStrategy[Any]:
    lo = node.get("minimum", node.get("exclusiveMinimum"))
    hi = node.get("maximum")
    inside: st.SearchStrategy[Any]
    if integer:
        inside = st.integers(
            min_value=int(lo) if lo is not None else -(10**6),
            max_value=int(hi) if hi is not None else 10**6,
        )
    else:
        inside = st.floats(
            min_value=float(lo) if lo is not None else -1e9,
            max_value=float(hi) if hi is not None else 1e9,
            allow_nan=False,
        )
    bounds = [b for b in (lo, hi) if b is not None]
    edges = [*bounds, *[b + d for b in bounds for d in (-1, 1)], *EDGE_NUMBERS]
    return st.one_of(inside, inside, st.sampled_from(edges))


def from_schema(node: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """A strategy for mostly valid values of a JSON Schema node (with edge values mixed in)."""
    if "$ref" in node:
        name = node["$ref"].removeprefix(PREFIX)
        return st.deferred(lambda: model_strategy(name, depth + 1))
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    for key in ("oneOf", "anyOf"):
        if key in node:
            return st.one_of([from_schema(option, depth) for option in node[key]])
    kind = node.get("type")
    if kind == "string":
        return text_for(node)
    if kind in ("integer", "number"):
        return number_for(node, kind == "integer")
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        if "prefixItems" in node:
            return st.tuples(*[from_schema(i, depth) for i in node["prefixItems"]]).map(list)
        size = 0 if depth > 3 else 3
        return st.lists(
            from_schema(node.get("items", {}), depth + 1),
            min_size=min(node.get("minItems", 0), 3),
            max_size=max(min(node.get("maxItems", size), size), min(node.get("minItems", 0), 3)),
        )
    if kind == "object" and "properties" in node:
        required = set(node.get("required", []))
        props = node["properties"]
        return st.fixed_dictionaries(
            {k: from_schema(v, depth + 1) for k, v in props.items() if k in required},
            optional={k: from_schema(v, depth + 1) for k, v in props.items() if k not in required},
        )
    if kind == "object":
        return st.dictionaries(st.text(max_size=10), json_values, max_size=4)
    return json_values


_models: dict[str, st.SearchStrategy[Any]] = {}


def model_strategy(name: str, depth: int = 0) -> st.SearchStrategy[Any]:
    if name not in _models:
        _models[name] = from_schema({k: v for k, v in CLIENT_DEFS[name].items()}, depth)
    return _models[name]


MESSAGE_TYPES = {
    name: spec["properties"]["type"]["const"]
    for name, spec in CLIENT_DEFS.items()
    if "type" in spec.get("properties", {}) and "const" in spec["properties"]["type"]
}
assert len(MESSAGE_TYPES) >= 20, MESSAGE_TYPES
messages = st.one_of([model_strategy(name) for name in sorted(MESSAGE_TYPES)])
wrong_values = st.one_of(json_values, st.sampled_from(EDGE_NUMBERS + EDGE_STRINGS))


def mutate(message: dict[str, Any], path: list[int], value: Any) -> dict[str, Any]:
    """Replace the value found by walking ``path`` (indexes into keys/items) with ``value``."""
    node: Any = message
    for step in path:
        children = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not children:
            break
        key = children[step % len(children)]
        child = node[key]
        if not isinstance(child, dict | list) or not child:
            node[key] = value
            return message
        node = child
    if isinstance(node, dict):
        node["extra" if path else "type"] = value
    elif isinstance(node, list):
        node.append(value)
    return message


mutated = st.builds(mutate, messages, st.lists(st.integers(0, 50), max_size=5), wrong_values)


def nested(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    return '{"type":"ping","id":"n","x":' + '{"a":' * depth + "1" + "}" * depth + "}"


raw_frames = st.one_of(
    st.binary(max_size=256),
    st.text(max_size=256),
    st.builds(nested, st.integers(1, 100_000), st.sampled_from(["list", "dict"])),
    st.builds(json.dumps, json_values),
    st.sampled_from(
        [
            '{"type":"time.advance","id":"n1","world_time":1e308,"delta":1e308}',
            '{"type":"time.advance","id":"n2","world_time":1e400,"delta":-1e400}',
            '{"type":"time.advance","id":"n3","world_time":NaN,"delta":Infinity}',
            '{"type":"ack","seq":' + "9" * 400 + "}",
            '{"type":"damage.taken","id":"n4","actor_id":"a","amount":' + "1" + "0" * 400 + "}",
            '{"type":"ping","id":"\\ud800"}',
            '{"type":"ping","id":"\\u0000"}',
            '{"type":"ping","id":"' + "\u202e" * 10 + '"}',
            '{"type":"ping","id":"ok","id":"dup"}',
            '{"type":"ping"}',
            '{"type":null}',
            "[]",
            '"hello"',
            "null",
            "\ufeff{}",
        ]
    ),
)


def encodings(message: Any) -> Iterator[str | bytes]:
    """One generated message, seven frames: escaped and raw UTF-8 JSON, cut short, as a
    binary frame, with its type changed, without its id, and wrapped in a list."""
    text = json.dumps(message)
    yield text
    try:
        raw = json.dumps(message, ensure_ascii=False)
        raw.encode()
        yield raw
    except UnicodeEncodeError:  # a lone surrogate only travels escaped
        yield json.dumps(message, sort_keys=True)
    yield text[: max(1, len(text) // 2)]
    yield text.encode()
    if isinstance(message, dict):
        yield json.dumps({**message, "type": f"{message.get('type')}!"})
        yield json.dumps({k: v for k, v in message.items() if k != "id"})
    yield json.dumps([message])


batches = st.tuples(
    st.lists(messages, min_size=1, max_size=12),
    st.lists(mutated, min_size=1, max_size=12),
    st.lists(raw_frames, min_size=1, max_size=12),
)

# ------------------------------------------------------------------ the fuzzer


def _no_constants(name: str) -> Any:
    raise ValueError(f"reply is not strict JSON: it contains {name}")


def strict_json(raw: str | bytes) -> Any:
    assert isinstance(raw, str), "the sidecar only sends text frames"
    return json.loads(raw, parse_constant=_no_constants)


def expected_replies(frame: str | bytes) -> int:
    """Every frame gets one reply, except an ack."""
    if isinstance(frame, bytes):
        return 1
    try:
        return 0 if isinstance(decode(frame), Ack) else 1
    except ProtocolError:
        return 1


class Fuzzer:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames = 0
        self.batches = 0
        self.codes: Counter[str] = Counter()
        self.last_seq = 0

    def batch(self, frames: list[str | bytes]) -> None:
        expected = 0
        for frame in frames:
            size = len(frame.encode() if isinstance(frame, str) else frame)
            if size >= MAX_FRAME_BYTES:
                continue
            self.ws.send(frame)
            self.frames += 1
            expected += expected_replies(frame)
        self.batches += 1
        marker = f"probe\u4e00{self.batches}"
        self.ws.send(json.dumps({"type": "ping", "id": marker}))
        self.frames += 1
        got = 0
        while True:
            reply = strict_json(self.ws.recv(timeout=30))
            server_adapter.validate_python(reply)
            if "seq" in reply:
                self.last_seq = max(self.last_seq, reply["seq"])
                continue
            if reply["type"] == "pong" and reply["id"] == marker:
                break
            got += 1
            self.codes[reply.get("code", reply["type"])] += 1
        assert got == expected, f"{expected} replies expected, {got} received"
        if self.last_seq:
            self.ws.send(json.dumps({"type": "ack", "seq": self.last_seq}))


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    tmp = tmp_path_factory.mktemp("fuzz")
    config = tmp / "sidecar.toml"
    config.write_text("[sidecar]\nrate_limit = 1e9\nrate_burst = 1e9\n", "utf-8")
    db = tmp / "fuzz.sqlite3"
    token = make_world(db)
    old = os.environ.get("VTT_SIDECAR_CONFIG")
    os.environ["VTT_SIDECAR_CONFIG"] = str(config)
    proc = ServerProcess(db, free_port())
    try:
        proc.start()
    finally:
        if old is None:
            del os.environ["VTT_SIDECAR_CONFIG"]
        else:
            os.environ["VTT_SIDECAR_CONFIG"] = old
    try:
        yield proc, token
    finally:
        proc.stop()


def hello(ws: ClientConnection, token: str) -> None:
    ws.send(
        json.dumps(
            {
                "type": "hello",
                "protocol": 1,
                "world_id": WORLD_ID,
                "token": token,
                "module_version": "fuzz",
            }
        )
    )
    assert strict_json(ws.recv(timeout=10))["type"] == "welcome"


@pytest.mark.slow
def test_a_hundred_thousand_hostile_frames_get_typed_replies(
    fuzz_server: tuple[ServerProcess, str],
) -> None:
    proc, token = fuzz_server
    # no keepalive pings: they would draw from the global `random` during generation
    with connect(proc.url, max_size=None, open_timeout=10, ping_interval=None) as ws:
        hello(ws, token)
        fuzzer = Fuzzer(ws)

        def run(n: int) -> None:
            @seed(n)
            @settings(
                max_examples=400,
                deadline=None,
                database=None,
                phases=[Phase.generate, Phase.shrink],
                suppress_health_check=list(HealthCheck),
            )
            @given(batches)
            def one_batch(batch: tuple[list[Any], list[Any], list[Any]]) -> None:
                valid, broken, raw = batch
                frames: list[str | bytes] = []
                for message in valid + broken:
                    frames.extend(encodings(message))
                frames.extend(raw)
                fuzzer.batch(frames)

            one_batch()

        rounds = 0
        while fuzzer.frames < TARGET_FRAMES:
            run(SEED_BASE + rounds)
            rounds += 1
            assert proc.proc is not None and proc.proc.poll() is None, "the sidecar died"
        print(
            f"\nfuzz: {fuzzer.frames} frames in {fuzzer.batches} batches over one connection;"
            f" replies by code: {dict(fuzzer.codes)}"
        )
    assert fuzzer.frames >= TARGET_FRAMES
    assert fuzzer.codes["internal"] == 0, "a rules handler crashed on valid-looking input"
    assert fuzzer.codes["accepted"] > 0 and fuzzer.codes["invalid"] > 0
    assert fuzzer.codes["bad_json"] > 0 and fuzzer.codes["unknown_type"] > 0
    # the server is still healthy for a fresh client
    with connect(proc.url, open_timeout=10) as ws:
        hello(ws, token)
        ws.send(json.dumps({"type": "ping", "id": "after"}))
        assert strict_json(ws.recv(timeout=10)) == {"type": "pong", "id": "after"}


def test_huge_and_non_finite_numbers_are_refused(fuzz_server: tuple[ServerProcess, str]) -> None:
    """Out-of-range numbers get `invalid`; NaN, Infinity and 1e400 (which Python would read
    as inf) are not JSON numbers at all and get `bad_json`, even in an unbounded field."""
    proc, token = fuzz_server
    combat = '{"type":"combat.start","id":"%s","combat_id":"c","combatants":[%s]}'
    cases = [
        ('{"type":"time.advance","id":"h1","world_time":1e308,"delta":1}', "invalid"),
        ('{"type":"time.advance","id":"h2","world_time":1,"delta":' + "9" * 400 + "}", "invalid"),
        ('{"type":"time.advance","id":"h3","world_time":NaN,"delta":1}', "bad_json"),
        (combat % ("h4", '{"combatant_id":"x","initiative":1e400}'), "bad_json"),
        (combat % ("h5", '{"combatant_id":"x","initiative":-Infinity}'), "bad_json"),
        (combat % ("h6", '{"combatant_id":"x","initiative":NaN}'), "bad_json"),
        (combat % ("h7", '{"combatant_id":"x","initiative":1e308}'), "accepted"),
    ]
    with connect(proc.url, open_timeout=10, ping_interval=None) as ws:
        hello(ws, token)
        for frame, expected in cases:
            ws.send(frame)
            reply = strict_json(ws.recv(timeout=10))
            assert reply.get("code", reply["type"]) == expected, (frame, reply)


# ------------------------------------------------------------------ script in names


@pytest.mark.browser
async def test_script_in_actor_and_token_names_stays_text_in_a_browser(
    client: SidecarClient,
) -> None:
    from playwright.async_api import async_playwright

    evil_token = "<script>window.__pwned = 1</script>Mallory"
    evil_actor = '<script>window.__pwned = 4</script><img src=x onerror="window.__pwned = 2">Eve'
    scene = {
        "type": "scene.sync",
        "scene": {
            "id": "s1",
            "grid": {"size": 100, "distance": 5},
            "tokens": [token("t1", evil_token, 0, 0, creature("a1", evil_actor))],
        },
    }
    assert (await client.send(scene)).ok
    result = await client.send(
        {
            "type": "gm.action",
            "action": "save.force",
            "params": {
                "scene_id": "s1",
                "token_ids": ["t1"],
                "ability": "dex",
                "dc": 30,
                "title": '<svg onload="window.__pwned = 3">',
                "damage": [{"formula": "1d6", "type": "fire"}],
            },
        }
    )
    assert result.ok and result.cards
    html = "".join(card["html"] for card in result.cards)
    assert "<script>" not in html and "<img" not in html and "<svg" not in html

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            page = await browser.new_page()
            await page.set_content(f"<!doctype html><html><body>{html}</body></html>")
            await page.wait_for_timeout(200)  # give an onerror handler time to run
            assert await page.evaluate("window.__pwned") is None
            text = await page.inner_text("body")
            assert evil_actor in text  # shown literally, as the GM typed it
            assert await page.locator("script").count() == 0
            assert await page.locator("img").count() == 0
        finally:
            await browser.close()


# ------------------------------------------------------------------ content


def test_absurd_dice_in_content_are_refused_naming_file_entry_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trap whose damage is 10000d10000 is caught by `content check`, not at the table."""
    source = yaml.safe_load((BUNDLED_CONTENT / "traps" / "mechanical.yaml").read_text("utf-8"))
    entry = source["entries"][0]
    entry["id"] = "greedy_trap"

    def huge(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: ("10000d10000" if k == "formula" else huge(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [huge(v) for v in node]
        return node

    entry = huge(entry)
    assert "10000d10000" in json.dumps(entry)
    folder = tmp_path / "mine" / "traps"
    folder.mkdir(parents=True)
    (folder / "greedy.yaml").write_text(yaml.safe_dump({"entries": [entry]}), "utf-8")
    assert main(["content", "check", "--content", str(tmp_path / "mine")]) == 1
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert errors, out
    assert any(
        "greedy.yaml" in line and "greedy_trap" in line and "field 'effects." in line
        for line in errors
    ), out
    assert "d10000: at most 1000 faces" in out


def test_a_content_symlink_pointing_outside_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "outside" / "secret.yaml"
    secret.parent.mkdir()
    shutil.copy(BUNDLED_CONTENT / "traps" / "pits.yaml", secret)
    folder = tmp_path / "mine" / "traps"
    folder.mkdir(parents=True)
    (folder / "linked.yaml").symlink_to(secret)
    assert main(["content", "check", "--content", str(tmp_path / "mine")]) == 1
    out = capsys.readouterr().out
    assert "linked.yaml" in out and "outside" in out


async def test_the_in_process_server_survives_a_binary_first_frame(server: RunningSidecar) -> None:
    async with server.client() as c:
        await c.send_raw(b"\x00\xff")
        reply = await c.receive()
        assert reply["code"] == "unauthorized"
