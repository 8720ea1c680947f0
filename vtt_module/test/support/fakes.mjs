/**
 * Test doubles for the browser pieces the connection uses: a WebSocket the test drives by
 * hand, a clock whose time only moves when told, and an in-memory localStorage.
 * (Node runs every .mjs under test/ as a test file; this one simply defines no tests.)
 */

/**
 * A WebSocket class (https://developer.mozilla.org/docs/Web/API/WebSocket) whose instances the
 * test opens, feeds and closes. Each call returns a fresh class with its own `instances`.
 */
export function fakeWebSocketClass() {
  return class FakeWebSocket {
    static instances = [];

    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      this.closedWith = null;
      FakeWebSocket.instances.push(this);
    }

    send(text) {
      if (this.readyState !== 1) throw new Error("InvalidStateError: not open");
      this.sent.push(JSON.parse(text));
    }

    close(code = 1000, reason = "") {
      this.readyState = 3;
      this.closedWith = { code, reason };
    }

    /** The server accepted the TCP/WebSocket handshake. */
    open() {
      this.readyState = 1;
      this.onopen?.({});
    }

    /** A frame from the sidecar. */
    receive(message) {
      this.onmessage?.({ data: typeof message === "string" ? message : JSON.stringify(message) });
    }

    /** The server (or network) closed the socket. */
    serverClose(code = 1006, reason = "") {
      this.readyState = 3;
      this.onclose?.({ code, reason });
    }

    sentOfType(type) {
      return this.sent.filter((m) => m.type === type);
    }

    static get last() {
      return FakeWebSocket.instances[FakeWebSocket.instances.length - 1];
    }
  };
}

/** A clock for `setTimeout`/`clearTimeout`/`now` that moves only with `advance(ms)`. */
export class FakeClock {
  constructor() {
    this.time = 0;
    this.timers = new Map();
    this.nextId = 1;
  }

  now() {
    return this.time;
  }

  setTimeout(fn, ms) {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, fn });
    return id;
  }

  clearTimeout(id) {
    this.timers.delete(id);
  }

  /** Delays of the timers now pending, soonest first. */
  pendingDelays() {
    return [...this.timers.values()].map((t) => t.at - this.time).sort((a, b) => a - b);
  }

  advance(ms) {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      const [id, timer] = due;
      this.timers.delete(id);
      this.time = timer.at;
      timer.fn();
    }
    this.time = end;
  }
}

/** localStorage stand-in. */
export class MemoryStorage {
  constructor() {
    this.map = new Map();
  }

  getItem(key) {
    return this.map.has(key) ? this.map.get(key) : null;
  }

  setItem(key, value) {
    this.map.set(key, String(value));
  }

  removeItem(key) {
    this.map.delete(key);
  }
}

/** Let pending promise callbacks run. */
export async function flush(times = 5) {
  for (let i = 0; i < times; i += 1) await new Promise((resolve) => setImmediate(resolve));
}
