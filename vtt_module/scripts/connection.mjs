/**
 * The one WebSocket between the active GM's browser and the sidecar.
 *
 * Handshake: `hello` (with the world token and `last_seq`) -> `welcome`; then queued events
 * are (re)sent with their original ids, world messages are applied in seq order through the
 * WorldInbox and acked, and a ping checks the line is alive. When the line drops, the
 * connection retries with exponential backoff and jitter, except after a refusal (close
 * code 4401 or 4406, or an `unauthorized` / `origin_refused` / `unsupported_protocol`
 * error) or after another browser took the world over (4409, when it also stops queueing
 * events and drops the ones never sent): then it waits until the
 * settings change or the GM asks again (`reconfigure`).
 *
 * Everything that touches the outside is injected (WebSocket class, clock, random, id
 * source, storage), so tests drive it with fakes.
 */

import { Backoff } from "./backoff.mjs";
import { MAX_FRAME_BYTES, PROTOCOL_VERSION } from "./constants.mjs";
import { WorldInbox } from "./inbox.mjs";
import { Outbox } from "./outbox.mjs";
import { resolveSidecarUrl } from "./sidecar-url.mjs";
import { defaultIdGenerator } from "./util/ids.mjs";

/** @typedef {"stopped"|"unconfigured"|"connecting"|"connected"|"reconnecting"|"refused"} ConnectionState */

/**
 * @typedef {object} ConnectionStatus
 * @property {ConnectionState} state
 * @property {string|null} reason     a `VTTSIDECAR.` key or the sidecar's own message
 * @property {number|null} retryInMs  when state is "reconnecting"
 * @property {boolean} upgraded       ws:// was upgraded to wss:// for an https page
 */

/**
 * @typedef {object} Clock
 * @property {() => number} now
 * @property {(fn: () => void, ms: number) => any} setTimeout
 * @property {(handle: any) => void} clearTimeout
 */

/** WebSocket close code the sidecar uses for a wrong or missing world token. */
export const CLOSE_UNAUTHORIZED = 4401;
/** The sidecar does not speak our protocol version. */
export const CLOSE_BAD_PROTOCOL = 4406;
/** Another browser connected for this world and replaced us (sidecar/app.py `attach`). */
export const CLOSE_SUPERSEDED = 4409;
/** Standard close code: a frame was larger than the peer accepts. */
export const CLOSE_TOO_BIG = 1009;
/** Our own code when we give up on a silent socket. */
const CLOSE_HEARTBEAT = 4000;

/** Error codes after which retrying with the same settings cannot succeed. */
const REFUSAL_CODES = new Set(["unauthorized", "origin_refused", "unsupported_protocol"]);
/** Error codes that say "try this event again later". */
const TRANSIENT_CODES = new Set(["rate_limited", "storage_unavailable"]);
/** Sidecar messages that carry a world `seq`. */
const WORLD_MESSAGE_TYPES = new Set(["card", "ops", "save.request", "state"]);

/** @type {Clock} */
const realClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle),
};

export class SidecarConnection {
  /**
   * @param {object} options
   * @param {typeof WebSocket} options.WebSocketImpl
   * @param {() => {url: string, token: string}} options.config  read on every connect
   * @param {() => object} options.helloFields  world_id, module_version, foundry_version,
   *   system_id, system_version, language, ruleset
   * @param {{load(): number, save(seq: number): void}} options.seqStore
   * @param {(message: object) => Promise<void>} options.applyWorldMessage
   * @param {(status: ConnectionStatus) => void} [options.onStatus]
   * @param {(welcome: object) => void} [options.onWelcome]  after the outbox was flushed
   * @param {(level: "warn"|"error", key: string, data?: object) => void} [options.notify]
   * @param {{warn: Function, error: Function, debug: Function}} [options.logger]
   * @param {() => string} [options.pageProtocol]  `location.protocol`
   * @param {Clock} [options.clock]
   * @param {() => number} [options.random]
   * @param {() => string} [options.newId]
   * @param {number} [options.outboxLimit=500]
   * @param {number} [options.heartbeatMs=25000]  ping after this long without traffic
   * @param {number} [options.heartbeatTimeoutMs=10000]  give up if nothing comes back
   */
  constructor({
    WebSocketImpl,
    config,
    helloFields,
    seqStore,
    applyWorldMessage,
    onStatus = () => {},
    onWelcome = () => {},
    notify = () => {},
    logger = console,
    pageProtocol = () => globalThis.location?.protocol ?? "http:",
    clock = realClock,
    random = Math.random,
    newId = defaultIdGenerator(),
    outboxLimit = 500,
    heartbeatMs = 25000,
    heartbeatTimeoutMs = 10000,
  }) {
    this.WebSocketImpl = WebSocketImpl;
    this.config = config;
    this.helloFields = helloFields;
    this.seqStore = seqStore;
    this.onStatus = onStatus;
    this.onWelcome = onWelcome;
    this.notify = notify;
    this.logger = logger;
    this.pageProtocol = pageProtocol;
    this.clock = clock;
    this.newId = newId;
    this.heartbeatMs = heartbeatMs;
    this.heartbeatTimeoutMs = heartbeatTimeoutMs;
    this.backoff = new Backoff({ random });
    this.outbox = new Outbox({ limit: outboxLimit, onDrop: (event) => this.#onDropped(event) });
    this.inbox = new WorldInbox({
      lastApplied: seqStore.load(),
      apply: applyWorldMessage,
      onApplied: (seq) => this.#onApplied(seq),
      onError: (message, error) => {
        this.logger.error("VTT Sidecar | could not apply", message.type, message.seq, error);
        this.notify("error", "VTTSIDECAR.Notify.ApplyFailed", { type: message.type, seq: message.seq });
      },
    });
    /** @type {ConnectionStatus} */
    this.status = { state: "stopped", reason: null, retryInMs: null, upgraded: false };
    this.socket = null;
    this.welcomed = false;
    this.wanted = false;
    this.refusal = null;
    /** Another browser took the world over (4409): new events are dropped, not queued. */
    this.superseded = false;
    this.retryTimer = null;
    this.pingTimer = null;
    this.deadlineTimer = null;
    this.droppedSinceWelcome = 0;
  }

  /** @returns {boolean} the sidecar welcomed us on the current socket */
  get connected() {
    return this.welcomed;
  }

  /** @returns {number} highest world seq applied */
  get lastSeq() {
    return this.inbox.lastApplied;
  }

  /** Connect (and keep reconnecting) until `stop`. */
  start() {
    this.wanted = true;
    if (this.socket || this.retryTimer) return;
    if (this.refusal) {
      // Refused with these settings: only `reconfigure` (a settings change) tries again.
      this.#setStatus({ state: "refused", reason: this.refusal, retryInMs: null });
      return;
    }
    this.#open();
  }

  /** Close and stay closed (this browser is no longer the active GM, or the page unloads). */
  stop() {
    this.wanted = false;
    this.#clearTimers();
    this.#dropSocket(1000, "stopped");
    this.#setStatus({ state: "stopped", reason: null, retryInMs: null });
  }

  /** The URL or token changed: forget a refusal and connect again from scratch. */
  reconfigure() {
    const wanted = this.wanted;
    this.stop();
    this.refusal = null;
    this.superseded = false;
    this.backoff.reset();
    if (wanted) this.start();
  }

  /**
   * Queue an event for the sidecar and send it now if the line is up. While superseded
   * (4409) nothing is queued: the browser that took over reports the table now, and a
   * queue kept here would be replayed if the GM reconnected by hand.
   * @param {{type: string, id?: string}} event  gets an `id` if it has none
   * @returns {string|null} the event id, null when dropped
   */
  send(event) {
    if (this.superseded) {
      this.logger.debug?.("VTT Sidecar | superseded by another browser; dropped", event.type);
      return null;
    }
    event.id ??= this.newId();
    this.outbox.add(event);
    if (this.welcomed) this.#transmit(event);
    return event.id;
  }

  // ------------------------------------------------------------ socket lifecycle

  #open() {
    const { url: configured, token } = this.config();
    if (!token) {
      this.#setStatus({ state: "unconfigured", reason: "VTTSIDECAR.Status.NoToken", retryInMs: null });
      return;
    }
    const resolved = resolveSidecarUrl(configured, this.pageProtocol());
    if (!resolved.url) {
      this.#setStatus({ state: "unconfigured", reason: resolved.error, retryInMs: null });
      return;
    }
    let socket;
    try {
      socket = new this.WebSocketImpl(resolved.url);
    } catch (error) {
      // The browser refused to open it at all (mixed content, bad port...): retrying the
      // same address cannot help.
      this.logger.error("VTT Sidecar | cannot open", resolved.url, error);
      this.#setStatus({ state: "unconfigured", reason: String(error?.message ?? error), retryInMs: null });
      return;
    }
    this.socket = socket;
    this.welcomed = false;
    this.status.upgraded = resolved.upgraded;
    this.#setStatus({
      state: this.backoff.attempt ? "reconnecting" : "connecting",
      reason: null,
      retryInMs: null,
    });
    socket.onopen = () => this.#onOpen(socket, token);
    socket.onmessage = (event) => this.#onFrame(socket, event.data);
    socket.onclose = (event) => this.#onClose(socket, event.code, event.reason);
    socket.onerror = () => this.logger.debug?.("VTT Sidecar | socket error");
  }

  #onOpen(socket, token) {
    if (socket !== this.socket) return;
    this.#write({
      ...this.helloFields(),
      type: "hello",
      protocol: PROTOCOL_VERSION,
      token,
      last_seq: this.inbox.lastApplied,
    });
    this.#armDeadline();
  }

  #onClose(socket, code, reason) {
    if (socket !== this.socket) return;
    const unsent = code === CLOSE_SUPERSEDED ? this.outbox.unsent() : [];
    this.#detach();
    if (!this.wanted) return;
    if (code === CLOSE_UNAUTHORIZED || code === CLOSE_BAD_PROTOCOL || this.refusal) {
      this.#refuse(this.refusal || reason || "VTTSIDECAR.Status.WrongToken");
      return;
    }
    if (code === CLOSE_SUPERSEDED) {
      // The sidecar keeps one connection per world. Reconnecting would push the other
      // browser out, which would push us out again: wait for the GM to click or reload.
      // Events never sent are dropped (the other browser reports the table now); sent but
      // unconfirmed ones keep their ids, so a resend after a manual reconnect is deduped.
      this.superseded = true;
      for (const event of unsent) this.outbox.remove(event.id);
      this.#refuse("VTTSIDECAR.Status.Superseded");
      return;
    }
    let why = reason || "VTTSIDECAR.Status.Closed";
    if (code === CLOSE_TOO_BIG) {
      why = "VTTSIDECAR.Status.TooBig";
      this.#dropLargestPending();
    }
    this.#scheduleReconnect(why);
  }

  /** @param {string} reason */
  #refuse(reason) {
    this.refusal = reason;
    this.#clearTimers();
    this.#setStatus({ state: "refused", reason, retryInMs: null });
  }

  #scheduleReconnect(reason) {
    const delay = this.backoff.next();
    this.#setStatus({ state: "reconnecting", reason, retryInMs: delay });
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = null;
      if (this.wanted) this.#open();
    }, delay);
  }

  /** The socket is gone (closed by either side): forget it, keep the outbox. */
  #detach() {
    this.#clearHeartbeat();
    if (this.socket) {
      this.socket.onopen = this.socket.onmessage = this.socket.onclose = this.socket.onerror = null;
    }
    this.socket = null;
    this.welcomed = false;
    this.outbox.markAllUnsent();
  }

  #dropSocket(code, reason) {
    const socket = this.socket;
    this.#detach();
    try {
      socket?.close(code, reason);
    } catch {
      // already closed
    }
  }

  // ------------------------------------------------------------ incoming frames

  #onFrame(socket, data) {
    if (socket !== this.socket) return;
    this.#armHeartbeat();
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      this.logger.warn("VTT Sidecar | ignored a frame that is not JSON");
      return;
    }
    if (!message || typeof message.type !== "string") return;
    if (WORLD_MESSAGE_TYPES.has(message.type)) {
      this.inbox.receive(message);
      return;
    }
    switch (message.type) {
      case "welcome":
        this.#onWelcome(message);
        break;
      case "accepted":
        this.outbox.remove(message.id);
        break;
      case "error":
        this.#onError(message);
        break;
      case "pong":
        break;
      default:
        this.logger.debug?.("VTT Sidecar | unknown message", message.type);
    }
  }

  #onWelcome(welcome) {
    this.welcomed = true;
    this.backoff.reset();
    this.droppedSinceWelcome = 0;
    if (Number.isInteger(welcome.last_seq) && welcome.last_seq < this.inbox.lastApplied) {
      // The sidecar has issued fewer messages than we applied: its store was reset. Counting
      // from our old seq would ignore everything it sends from now on.
      this.logger.warn("VTT Sidecar | sidecar seq went back from", this.inbox.lastApplied, "to", welcome.last_seq);
      this.inbox.resetTo(welcome.last_seq);
      this.seqStore.save(welcome.last_seq);
    }
    this.#setStatus({ state: "connected", reason: null, retryInMs: null });
    for (const event of this.outbox.unsent()) {
      if (!this.welcomed) break;
      this.#transmit(event);
    }
    this.onWelcome(welcome);
  }

  #onError(error) {
    const pending = error.ref ? this.outbox.get(error.ref) : undefined;
    if (REFUSAL_CODES.has(error.code)) {
      this.#dropSocket(1000, "refused");
      this.#refuse(error.message || error.code);
      return;
    }
    if (!pending) {
      this.logger.warn("VTT Sidecar | sidecar error", error.code, error.message);
      return;
    }
    if (TRANSIENT_CODES.has(error.code)) {
      this.#retryLater(pending);
      return;
    }
    // Invalid or refused by the rules: sending it again would fail again.
    this.outbox.remove(error.ref);
    this.logger.warn("VTT Sidecar | event refused", pending.type, error.code, error.message, error.details ?? []);
  }

  #retryLater(event) {
    const delay = this.backoff.baseMs * 2;
    this.clock.setTimeout(() => {
      if (this.welcomed && this.outbox.get(event.id)) this.#transmit(event);
    }, delay);
  }

  // ------------------------------------------------------------ outgoing frames

  #transmit(event) {
    const text = JSON.stringify(event);
    if (byteLength(text) > MAX_FRAME_BYTES) {
      this.outbox.remove(event.id);
      this.logger.warn("VTT Sidecar | event too large to send", event.type, event.id);
      this.notify("warn", "VTTSIDECAR.Notify.TooLarge", { type: event.type });
      return;
    }
    if (this.#writeText(text)) this.outbox.markSent(event.id);
  }

  #write(message) {
    return this.#writeText(JSON.stringify(message));
  }

  #writeText(text) {
    if (!this.socket || this.socket.readyState !== 1) return false;
    try {
      this.socket.send(text);
      return true;
    } catch (error) {
      this.logger.warn("VTT Sidecar | send failed", error);
      return false;
    }
  }

  #onApplied(seq) {
    this.seqStore.save(seq);
    if (this.welcomed) this.#write({ type: "ack", seq });
  }

  #onDropped(event) {
    this.droppedSinceWelcome += 1;
    this.logger.warn("VTT Sidecar | queue full, dropped the oldest event", event.type, event.id);
    if (this.droppedSinceWelcome === 1) {
      this.notify("warn", "VTTSIDECAR.Notify.QueueFull", { limit: this.outbox.limit });
    }
  }

  /** After a 1009 close, the largest pending event is the likely culprit: do not resend it. */
  #dropLargestPending() {
    let largest = null;
    let largestSize = -1;
    for (const event of this.outbox.all()) {
      const size = byteLength(JSON.stringify(event));
      if (size > largestSize) {
        largest = event;
        largestSize = size;
      }
    }
    if (!largest) return;
    this.outbox.remove(largest.id);
    this.logger.warn("VTT Sidecar | the sidecar refused a large frame; dropped", largest.type, largest.id);
    this.notify("warn", "VTTSIDECAR.Notify.TooLarge", { type: largest.type });
  }

  // ------------------------------------------------------------ liveness

  /** Before the welcome and after each frame: no traffic for a while means a dead line. */
  #armHeartbeat() {
    this.#clearHeartbeat();
    this.pingTimer = this.clock.setTimeout(() => {
      this.pingTimer = null;
      if (this.welcomed) this.#write({ type: "ping", id: this.newId() });
      this.#armDeadline();
    }, this.heartbeatMs);
  }

  #armDeadline() {
    if (this.deadlineTimer) this.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = this.clock.setTimeout(() => {
      this.deadlineTimer = null;
      const socket = this.socket;
      this.logger.warn("VTT Sidecar | no answer from the sidecar; reconnecting");
      this.#dropSocket(CLOSE_HEARTBEAT, "no answer");
      if (socket && this.wanted) this.#scheduleReconnect("VTTSIDECAR.Status.NoAnswer");
    }, this.heartbeatTimeoutMs);
  }

  #clearHeartbeat() {
    if (this.pingTimer) this.clock.clearTimeout(this.pingTimer);
    if (this.deadlineTimer) this.clock.clearTimeout(this.deadlineTimer);
    this.pingTimer = null;
    this.deadlineTimer = null;
  }

  #clearTimers() {
    this.#clearHeartbeat();
    if (this.retryTimer) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** @param {Partial<ConnectionStatus>} change */
  #setStatus(change) {
    this.status = { ...this.status, ...change };
    this.onStatus(this.status);
  }
}

/**
 * UTF-8 size of a string, the unit of the sidecar's frame limit.
 * @param {string} text
 * @returns {number}
 */
function byteLength(text) {
  return new TextEncoder().encode(text).length;
}
