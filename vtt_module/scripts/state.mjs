/**
 * Structured state from the sidecar's `state` messages (a chase, afflictions, a trap, the
 * content catalog), kept in memory for the panels that show it. Each change is announced
 * with `Hooks.callAll("vttSidecarState", kind, key, data)`.
 */

import { STATE_HOOK } from "./constants.mjs";

export class SidecarState {
  constructor() {
    /** @type {Map<string, Map<string, object>>} kind -> key -> data */
    this.kinds = new Map();
  }

  /**
   * Store one piece of state and announce it.
   * @param {string} kind  "chase" | "afflictions" | "trap" | "catalog"
   * @param {string} key
   * @param {object} data
   */
  set(kind, key, data) {
    if (!this.kinds.has(kind)) this.kinds.set(kind, new Map());
    this.kinds.get(kind).set(key, data);
    globalThis.Hooks?.callAll(STATE_HOOK, kind, key, data);
  }

  /**
   * @param {string} kind
   * @param {string} key
   * @returns {object|undefined}
   */
  get(kind, key) {
    return this.kinds.get(kind)?.get(key);
  }

  /**
   * @param {string} kind
   * @returns {Array<[string, object]>}
   */
  entries(kind) {
    return [...(this.kinds.get(kind)?.entries() ?? [])];
  }

  /**
   * The trap catalog as `[{id, name}]`, when the sidecar has sent one
   * (`state` kind "catalog", key "traps", data `{entries: [{id, name}]}`).
   * @returns {Array<{id: string, name: string}>}
   */
  trapCatalog() {
    const entries = this.get("catalog", "traps")?.entries;
    if (!Array.isArray(entries)) return [];
    return entries
      .filter((e) => e && typeof e.id === "string")
      .map((e) => ({ id: e.id, name: typeof e.name === "string" ? e.name : e.id }));
  }
}
