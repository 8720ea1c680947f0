/**
 * Events waiting for the sidecar's `accepted`: those not sent yet (made while disconnected)
 * and those sent but not confirmed. After a reconnect all of them go again with their
 * original ids; the sidecar dedupes by id, so a resend never applies an event twice.
 */

export class Outbox {
  /**
   * @param {object} [options]
   * @param {number} [options.limit=500]  most events kept; the oldest go first
   * @param {(event: object) => void} [options.onDrop]  told about each dropped event
   */
  constructor({ limit = 500, onDrop = () => {} } = {}) {
    this.limit = limit;
    this.onDrop = onDrop;
    /** @type {Map<string, {event: object, sent: boolean}>} insertion order = send order */
    this.entries = new Map();
  }

  /** @returns {number} */
  get size() {
    return this.entries.size;
  }

  /**
   * Keep an event until it is accepted; drops the oldest when full.
   * @param {{id: string}} event
   */
  add(event) {
    this.entries.delete(event.id);
    while (this.entries.size >= this.limit) {
      const [oldestId, oldest] = this.entries.entries().next().value;
      this.entries.delete(oldestId);
      this.onDrop(oldest.event);
    }
    this.entries.set(event.id, { event, sent: false });
  }

  /** @param {string} id */
  markSent(id) {
    const entry = this.entries.get(id);
    if (entry) entry.sent = true;
  }

  /** Everything counts as unsent again (the connection closed). */
  markAllUnsent() {
    for (const entry of this.entries.values()) entry.sent = false;
  }

  /**
   * Forget an event: accepted, or refused for good.
   * @param {string} id
   * @returns {boolean} whether it was here
   */
  remove(id) {
    return this.entries.delete(id);
  }

  /**
   * @param {string} id
   * @returns {object|undefined}
   */
  get(id) {
    return this.entries.get(id)?.event;
  }

  /** @returns {object[]} events not sent on the current connection, oldest first */
  unsent() {
    return [...this.entries.values()].filter((e) => !e.sent).map((e) => e.event);
  }

  /** @returns {object[]} every pending event, oldest first */
  all() {
    return [...this.entries.values()].map((e) => e.event);
  }
}
