/**
 * Persists `last_seq`, the highest world message seq this browser applied, per world, so a
 * page reload says `hello {last_seq}` and the sidecar resends only what was not applied.
 * Stored in localStorage under a world-specific key (client settings are not per world).
 */

import { MODULE_ID } from "./constants.mjs";

export class SeqStore {
  /**
   * @param {string} worldId
   * @param {Pick<Storage, "getItem"|"setItem">|null} [storage]  defaults to localStorage
   */
  constructor(worldId, storage = globalThis.localStorage ?? null) {
    this.key = `${MODULE_ID}.lastSeq.${worldId}`;
    this.storage = storage;
    this.memory = 0;
  }

  /** @returns {number} */
  load() {
    try {
      const stored = Number.parseInt(this.storage?.getItem(this.key) ?? "", 10);
      if (Number.isInteger(stored) && stored >= 0) this.memory = stored;
    } catch {
      // storage disabled (private mode): keep the in-memory value
    }
    return this.memory;
  }

  /** @param {number} seq */
  save(seq) {
    this.memory = seq;
    try {
      this.storage?.setItem(this.key, String(seq));
    } catch {
      // storage full or disabled: the in-memory value still serves this page
    }
  }
}
