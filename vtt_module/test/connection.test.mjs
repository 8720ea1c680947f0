import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Backoff } from "../scripts/backoff.mjs";
import { SidecarConnection } from "../scripts/connection.mjs";
import { SeqStore } from "../scripts/seq-store.mjs";
import { resolveSidecarUrl } from "../scripts/sidecar-url.mjs";
import { FakeClock, MemoryStorage, fakeWebSocketClass, flush } from "./support/fakes.mjs";

const quietLogger = { warn() {}, error() {}, debug() {}, info() {} };

/** A connection wired to fakes; `applied` records world messages in apply order. */
function makeConnection({ token = "secret", storage = new MemoryStorage(), outboxLimit, applyDelay, random = () => 0.5 } = {}) {
  const WebSocketImpl = fakeWebSocketClass();
  const clock = new FakeClock();
  const applied = [];
  const notices = [];
  const statuses = [];
  let welcomes = 0;
  const connection = new SidecarConnection({
    WebSocketImpl,
    config: () => ({ url: "ws://127.0.0.1:8765/ws", token }),
    helloFields: () => ({
      world_id: "w1",
      module_version: "0.1.0",
      foundry_version: "13.350",
      system_id: "dnd5e",
      system_version: "5.3.3",
      language: "en",
      ruleset: "modern",
    }),
    seqStore: new SeqStore("w1", storage),
    applyWorldMessage: async (message) => {
      if (applyDelay) await applyDelay(message);
      applied.push(message.seq);
    },
    onStatus: (status) => statuses.push({ ...status }),
    onWelcome: () => {
      welcomes += 1;
    },
    notify: (level, key, data) => notices.push({ level, key, data }),
    logger: quietLogger,
    clock,
    random,
    newId: (() => {
      let n = 0;
      return () => `evt${(n += 1)}`;
    })(),
    outboxLimit,
    pageProtocol: () => "http:",
  });
  return { connection, WebSocketImpl, clock, applied, notices, statuses, storage, welcomes: () => welcomes };
}

const welcome = (lastSeq = 0, resending = 0) => ({
  type: "welcome", protocol: 1, server_version: "0.1.0", world_id: "w1", world_name: "W", last_seq: lastSeq, resending,
});
const card = (seq) => ({ type: "card", seq, event_id: `e${seq}`, card: { id: `c${seq}`, title: "T", html: "<p>x</p>" } });

/** Start, open and welcome; returns the socket. */
function connect(t, lastSeq = 0) {
  t.connection.start();
  const socket = t.WebSocketImpl.last;
  socket.open();
  socket.receive(welcome(lastSeq));
  return socket;
}

describe("handshake", () => {
  it("sends hello with the token, protocol, world fields and last_seq, then reports connected", () => {
    const storage = new MemoryStorage();
    storage.setItem("vtt-sidecar.lastSeq.w1", "7");
    const t = makeConnection({ storage });
    t.connection.start();
    const socket = t.WebSocketImpl.last;
    assert.equal(socket.url, "ws://127.0.0.1:8765/ws");
    assert.equal(t.connection.status.state, "connecting");
    socket.open();
    assert.deepEqual(socket.sent[0], {
      type: "hello",
      protocol: 1,
      token: "secret",
      last_seq: 7,
      world_id: "w1",
      module_version: "0.1.0",
      foundry_version: "13.350",
      system_id: "dnd5e",
      system_version: "5.3.3",
      language: "en",
      ruleset: "modern",
    });
    socket.receive(welcome(7));
    assert.equal(t.connection.status.state, "connected");
    assert.equal(t.welcomes(), 1);
  });

  it("does not connect without a token", () => {
    const t = makeConnection({ token: "" });
    t.connection.start();
    assert.equal(t.WebSocketImpl.instances.length, 0);
    assert.equal(t.connection.status.state, "unconfigured");
    assert.equal(t.connection.status.reason, "VTTSIDECAR.Status.NoToken");
  });

  it("holds events until the welcome, then sends them in order", () => {
    const t = makeConnection();
    t.connection.start();
    const socket = t.WebSocketImpl.last;
    socket.open();
    const id = t.connection.send({ type: "time.advance", world_time: 6, delta: 6 });
    assert.equal(socket.sentOfType("time.advance").length, 0);
    socket.receive(welcome());
    assert.deepEqual(socket.sentOfType("time.advance").map((e) => e.id), [id]);
  });
});

describe("world messages", () => {
  it("applies in seq order, acks each, persists last_seq", async () => {
    const t = makeConnection();
    const socket = connect(t);
    for (const seq of [1, 2, 3]) socket.receive(card(seq));
    await flush();
    assert.deepEqual(t.applied, [1, 2, 3]);
    assert.deepEqual(socket.sentOfType("ack").map((a) => a.seq), [1, 2, 3]);
    assert.equal(t.storage.getItem("vtt-sidecar.lastSeq.w1"), "3");
  });

  it("applies each seq exactly once: resends are skipped but acked", async () => {
    const t = makeConnection();
    const socket = connect(t);
    socket.receive(card(1));
    socket.receive(card(2));
    await flush();
    socket.receive(card(2));
    socket.receive(card(1));
    await flush();
    assert.deepEqual(t.applied, [1, 2]);
    assert.deepEqual(socket.sentOfType("ack").map((a) => a.seq), [1, 2, 2, 2]);
  });

  it("sorts messages that arrive while one is being applied", async () => {
    let release;
    const gate = new Promise((resolve) => {
      release = resolve;
    });
    const t = makeConnection({ applyDelay: (m) => (m.seq === 1 ? gate : undefined) });
    const socket = connect(t);
    socket.receive(card(1));
    socket.receive(card(4));
    socket.receive(card(2));
    socket.receive(card(3));
    release();
    await flush();
    assert.deepEqual(t.applied, [1, 2, 3, 4]);
  });

  it("ignores what an earlier page already applied (last_seq from storage)", async () => {
    const storage = new MemoryStorage();
    storage.setItem("vtt-sidecar.lastSeq.w1", "5");
    const t = makeConnection({ storage });
    const socket = connect(t, 6);
    socket.receive(card(5));
    socket.receive(card(6));
    await flush();
    assert.deepEqual(t.applied, [6]);
  });

  it("starts counting again when the sidecar's store was reset", async () => {
    const storage = new MemoryStorage();
    storage.setItem("vtt-sidecar.lastSeq.w1", "40");
    const t = makeConnection({ storage });
    const socket = connect(t, 0);
    socket.receive(card(1));
    await flush();
    assert.deepEqual(t.applied, [1]);
  });

  it("a message that fails to apply is reported and does not block the next", async () => {
    const t = makeConnection({
      applyDelay: (m) => {
        if (m.seq === 1) throw new Error("actor gone");
      },
    });
    const socket = connect(t);
    socket.receive(card(1));
    socket.receive(card(2));
    await flush();
    assert.deepEqual(t.applied, [2]);
    assert.deepEqual(socket.sentOfType("ack").map((a) => a.seq), [1, 2]);
    assert.equal(t.notices[0].key, "VTTSIDECAR.Notify.ApplyFailed");
  });
});

describe("outbox", () => {
  it("keeps at most `limit` events while disconnected, dropping the oldest with one warning", () => {
    const t = makeConnection({ outboxLimit: 3 });
    const ids = [1, 2, 3, 4, 5].map((n) => t.connection.send({ type: "time.advance", world_time: n, delta: 1 }));
    assert.equal(t.connection.outbox.size, 3);
    assert.equal(t.notices.filter((n) => n.key === "VTTSIDECAR.Notify.QueueFull").length, 1);
    const socket = connect(t);
    assert.deepEqual(socket.sentOfType("time.advance").map((e) => e.id), ids.slice(2));
    assert.deepEqual(socket.sentOfType("time.advance").map((e) => e.world_time), [3, 4, 5]);
  });

  it("re-sends sent-but-not-accepted events with their original ids after a reconnect", () => {
    const t = makeConnection();
    const first = connect(t);
    const a = t.connection.send({ type: "time.advance", world_time: 1, delta: 1 });
    const b = t.connection.send({ type: "time.advance", world_time: 2, delta: 1 });
    first.receive({ type: "accepted", id: a, duplicate: false, seqs: [] });
    first.serverClose(1006);
    assert.equal(t.connection.status.state, "reconnecting");
    t.clock.advance(t.clock.pendingDelays()[0]);
    const second = t.WebSocketImpl.last;
    assert.notEqual(second, first);
    second.open();
    assert.equal(second.sent[0].type, "hello");
    second.receive(welcome());
    assert.deepEqual(second.sentOfType("time.advance").map((e) => e.id), [b]);
  });

  it("forgets an event the sidecar refuses as invalid, retries a rate-limited one", () => {
    const t = makeConnection();
    const socket = connect(t);
    const bad = t.connection.send({ type: "time.advance", world_time: 1, delta: 1 });
    const busy = t.connection.send({ type: "time.advance", world_time: 2, delta: 1 });
    socket.receive({ type: "error", code: "invalid", message: "nope", ref: bad });
    socket.receive({ type: "error", code: "rate_limited", message: "slow down", ref: busy });
    assert.equal(t.connection.outbox.get(bad), undefined);
    assert.ok(t.connection.outbox.get(busy));
    t.clock.advance(2000);
    assert.equal(socket.sentOfType("time.advance").filter((e) => e.id === busy).length, 2);
  });

  it("never sends a frame over the sidecar's 1 MiB limit", () => {
    const t = makeConnection();
    const socket = connect(t);
    t.connection.send({ type: "gm.action", action: "x", params: { blob: "x".repeat(1024 * 1024) } });
    assert.equal(socket.sentOfType("gm.action").length, 0);
    assert.equal(t.notices.at(-1).key, "VTTSIDECAR.Notify.TooLarge");
  });

  it("after a 1009 close drops the largest pending event and reconnects", () => {
    const t = makeConnection();
    const socket = connect(t);
    const small = t.connection.send({ type: "time.advance", world_time: 1, delta: 1 });
    const big = t.connection.send({ type: "gm.action", action: "x", params: { blob: "x".repeat(5000) } });
    socket.serverClose(1009);
    assert.equal(t.connection.status.state, "reconnecting");
    assert.equal(t.connection.status.reason, "VTTSIDECAR.Status.TooBig");
    assert.equal(t.connection.outbox.get(big), undefined);
    assert.ok(t.connection.outbox.get(small));
  });
});

describe("reconnecting", () => {
  it("backoff grows, has jitter and caps at 30 s", () => {
    const low = new Backoff({ random: () => 0 });
    const high = new Backoff({ random: () => 0.999999 });
    const lows = Array.from({ length: 10 }, () => low.next());
    const highs = Array.from({ length: 10 }, () => high.next());
    assert.deepEqual(lows.slice(0, 5), [500, 1000, 2000, 4000, 8000]);
    for (let i = 1; i < 10; i += 1) assert.ok(lows[i] >= lows[i - 1], "never shrinks");
    for (let i = 0; i < 10; i += 1) assert.ok(highs[i] > lows[i], "jitter spreads the delay");
    assert.ok(Math.max(...highs) <= 30000);
    assert.equal(lows.at(-1), 15000);
    low.reset();
    assert.equal(low.next(), 500);
  });

  it("retries with growing delays until welcomed, then starts over", () => {
    const t = makeConnection({ random: () => 0 });
    t.connection.start();
    const delays = [];
    for (let i = 0; i < 4; i += 1) {
      t.WebSocketImpl.last.serverClose(1006);
      delays.push(t.connection.status.retryInMs);
      t.clock.advance(t.connection.status.retryInMs);
    }
    assert.deepEqual(delays, [500, 1000, 2000, 4000]);
    const socket = t.WebSocketImpl.last;
    socket.open();
    socket.receive(welcome());
    socket.serverClose(1006);
    assert.equal(t.connection.status.retryInMs, 500);
  });

  it("stops after close code 4401 until the settings change", () => {
    const t = makeConnection();
    t.connection.start();
    t.WebSocketImpl.last.open();
    t.WebSocketImpl.last.serverClose(4401, "");
    assert.equal(t.connection.status.state, "refused");
    assert.equal(t.connection.status.reason, "VTTSIDECAR.Status.WrongToken");
    assert.deepEqual(t.clock.pendingDelays(), []);
    t.clock.advance(10 * 60 * 1000);
    t.connection.stop();
    t.connection.start();
    assert.equal(t.WebSocketImpl.instances.length, 1, "no new attempt");
    assert.equal(t.connection.status.state, "refused");
    t.connection.reconfigure();
    assert.equal(t.WebSocketImpl.instances.length, 2, "a settings change tries again");
  });

  it("does not fight another browser that took the world over (4409)", () => {
    const t = makeConnection();
    const socket = connect(t);
    socket.serverClose(4409, "another client connected for this world");
    assert.equal(t.connection.status.state, "refused");
    assert.equal(t.connection.status.reason, "VTTSIDECAR.Status.Superseded");
    assert.deepEqual(t.clock.pendingDelays(), []);
    t.connection.reconfigure();
    assert.equal(t.WebSocketImpl.instances.length, 2);
  });

  it("after 4409 drops the unsent queue and new events, keeps sent ones, and starts fresh on a click", () => {
    const debug = [];
    const t = makeConnection();
    t.connection.logger = { ...quietLogger, debug: (...args) => debug.push(args.join(" ")) };
    const socket = connect(t);
    const a = t.connection.send({ type: "time.advance", world_time: 1, delta: 1 });
    socket.receive({ type: "accepted", id: a, duplicate: false, seqs: [] });
    const b = t.connection.send({ type: "time.advance", world_time: 2, delta: 1 });
    socket.readyState = 2; // closing: the next event cannot go out
    const c = t.connection.send({ type: "time.advance", world_time: 3, delta: 1 });
    assert.deepEqual(t.connection.outbox.all().map((e) => e.id), [b, c]);
    socket.serverClose(4409, "another client connected for this world");
    assert.deepEqual(t.connection.outbox.all().map((e) => e.id), [b], "the never-sent event is gone, the sent one stays");
    assert.equal(t.connection.send({ type: "token.move", token_id: "tok1" }), null);
    assert.equal(t.connection.outbox.size, 1, "nothing queued while superseded");
    assert.ok(debug.some((line) => /superseded.*token\.move/.test(line)), `debug log: ${debug}`);
    t.connection.reconfigure(); // the badge click
    const second = t.WebSocketImpl.last;
    assert.notEqual(second, socket);
    second.open();
    second.receive(welcome());
    assert.deepEqual(second.sentOfType("time.advance").map((e) => e.id), [b]);
    assert.deepEqual(second.sentOfType("token.move"), []);
    const d = t.connection.send({ type: "time.advance", world_time: 4, delta: 1 });
    assert.ok(d);
    assert.deepEqual(second.sentOfType("time.advance").map((e) => e.id), [b, d]);
  });

  it("shows the sidecar's own reason when it refuses the token", () => {
    const t = makeConnection();
    t.connection.start();
    const socket = t.WebSocketImpl.last;
    socket.open();
    socket.receive({ type: "error", code: "unauthorized", message: "unknown world token" });
    assert.equal(t.connection.status.state, "refused");
    assert.equal(t.connection.status.reason, "unknown world token");
    assert.equal(socket.closedWith.code, 1000);
    assert.deepEqual(t.clock.pendingDelays(), []);
  });

  it("pings a quiet line and reconnects when nothing answers", () => {
    const t = makeConnection();
    const socket = connect(t);
    t.clock.advance(25000);
    assert.equal(socket.sentOfType("ping").length, 1);
    socket.receive({ type: "pong", id: socket.sentOfType("ping")[0].id });
    t.clock.advance(25000);
    assert.equal(socket.sentOfType("ping").length, 2);
    t.clock.advance(10000);
    assert.equal(t.connection.status.state, "reconnecting");
    assert.equal(t.connection.status.reason, "VTTSIDECAR.Status.NoAnswer");
  });
});

describe("sidecar address", () => {
  it("keeps ws:// to loopback even from an https page", () => {
    for (const host of ["localhost", "127.0.0.1", "[::1]"]) {
      assert.deepEqual(resolveSidecarUrl(`ws://${host}:8765/ws`, "https:"), {
        url: `ws://${host}:8765/ws`, upgraded: false, error: null,
      });
    }
  });

  it("upgrades a remote ws:// to wss:// from an https page only", () => {
    assert.deepEqual(resolveSidecarUrl("ws://rules.example.org/ws", "https:"), {
      url: "wss://rules.example.org/ws", upgraded: true, error: null,
    });
    assert.equal(resolveSidecarUrl("ws://192.168.1.5:8765/ws", "http:").url, "ws://192.168.1.5:8765/ws");
  });

  it("refuses what is not a WebSocket address", () => {
    assert.equal(resolveSidecarUrl("ftp://x/", "http:").error, "VTTSIDECAR.Status.BadUrl");
    assert.equal(resolveSidecarUrl("not a url", "http:").error, "VTTSIDECAR.Status.BadUrl");
    assert.equal(resolveSidecarUrl("http://127.0.0.1:8765/ws", "http:").url, "ws://127.0.0.1:8765/ws");
  });
});
