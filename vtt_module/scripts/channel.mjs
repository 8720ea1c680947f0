/**
 * Asking another user's browser to do something and waiting for its answer: a player rolls
 * a save the sidecar asked for; a player's rest is reported to the active GM.
 *
 * Foundry v13 has this built in (`CONFIG.queries` + `User#query(name, data, {timeout})`);
 * v12 has only the module socket (`game.socket`, needs `"socket": true` in module.json), on
 * which the same request/answer is built with a request id and a timer. Handlers are
 * registered once and answer on both paths.
 */

import { MODULE_ID } from "./constants.mjs";

const SOCKET_NAME = `module.${MODULE_ID}`;

export class PlayerChannel {
  /**
   * @param {object} [options]
   * @param {() => string|undefined} [options.currentUserId]
   * @param {() => {on: Function, emit: Function}|undefined} [options.socket]
   * @param {() => Record<string, Function>|undefined} [options.queries]  CONFIG.queries (v13)
   * @param {{setTimeout: Function, clearTimeout: Function}} [options.clock]
   * @param {() => string} [options.newId]
   */
  constructor({
    currentUserId = () => globalThis.game?.user?.id,
    socket = () => globalThis.game?.socket,
    queries = () => globalThis.CONFIG?.queries,
    clock = globalThis,
    newId = () => Math.random().toString(36).slice(2),
  } = {}) {
    this.currentUserId = currentUserId;
    this.socket = socket;
    this.queries = queries;
    this.clock = clock;
    this.newId = newId;
    /** @type {Map<string, (data: any, options: {timeoutMs?: number}) => Promise<any>>} */
    this.handlers = new Map();
    /** @type {Map<string, {resolve: Function, reject: Function, timer: any}>} */
    this.pending = new Map();
    this.listening = false;
  }

  /**
   * Answer `name` requests in this browser. Call in `init` (v13 queries must exist early).
   * @param {string} name
   * @param {(data: any, options: {timeoutMs?: number}) => Promise<any>} handler
   */
  register(name, handler) {
    this.handlers.set(name, handler);
    const queries = this.queries();
    if (queries) queries[`${MODULE_ID}.${name}`] = (data, options) => handler(data, { timeoutMs: options?.timeout });
  }

  /** Start listening on the module socket (call in `ready`, when `game.socket` exists). */
  listen() {
    const socket = this.socket();
    if (this.listening || !socket) return;
    socket.on(SOCKET_NAME, (message) => this.#onSocketMessage(message));
    this.listening = true;
  }

  /**
   * Ask a user's browser; resolves with its answer, rejects on timeout or error.
   * @param {{id: string, query?: Function}} user
   * @param {string} name
   * @param {object} data
   * @param {number} timeoutMs
   * @returns {Promise<any>}
   */
  ask(user, name, data, timeoutMs) {
    if (typeof user.query === "function") {
      return user.query(`${MODULE_ID}.${name}`, data, { timeout: timeoutMs });
    }
    const socket = this.socket();
    if (!socket) return Promise.reject(new Error("no socket"));
    const requestId = this.newId();
    return new Promise((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        this.pending.delete(requestId);
        reject(new Error("timeout"));
      }, timeoutMs);
      this.pending.set(requestId, { resolve, reject, timer });
      socket.emit(SOCKET_NAME, {
        kind: "query",
        name,
        requestId,
        to: user.id,
        from: this.currentUserId(),
        data,
        timeoutMs,
      });
    });
  }

  async #onSocketMessage(message) {
    if (!message || message.to !== this.currentUserId()) return;
    if (message.kind === "reply") {
      const waiting = this.pending.get(message.requestId);
      if (!waiting) return;
      this.pending.delete(message.requestId);
      this.clock.clearTimeout(waiting.timer);
      if (message.error) waiting.reject(new Error(message.error));
      else waiting.resolve(message.result);
      return;
    }
    if (message.kind !== "query") return;
    const handler = this.handlers.get(message.name);
    const reply = { kind: "reply", requestId: message.requestId, to: message.from };
    try {
      if (!handler) throw new Error(`no handler for ${message.name}`);
      reply.result = await handler(message.data, { timeoutMs: message.timeoutMs });
    } catch (error) {
      reply.error = String(error?.message ?? error);
    }
    this.socket()?.emit(SOCKET_NAME, reply);
  }
}
