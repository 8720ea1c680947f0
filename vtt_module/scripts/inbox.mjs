/**
 * World messages from the sidecar (`card`, `ops`, `save.request`, `state`) are applied one
 * at a time, in ascending seq, each exactly once; each applied seq is then persisted and
 * acked. A seq at or below the last applied one is a resend and is skipped (but acked again
 * so the sidecar can drop it).
 *
 * Messages that arrive while one is being applied wait in a queue sorted by seq. A gap in
 * the seqs is not waited for: the sidecar sends in order on one socket, and a missing seq
 * was acked by an earlier connection.
 */

export class WorldInbox {
  /**
   * @param {object} options
   * @param {number} options.lastApplied  from the SeqStore
   * @param {(message: object) => Promise<void>} options.apply  apply one world message
   * @param {(seq: number) => void} options.onApplied  persist + ack
   * @param {(message: object, error: unknown) => void} [options.onError]
   */
  constructor({ lastApplied, apply, onApplied, onError = () => {} }) {
    this.lastApplied = lastApplied;
    this.apply = apply;
    this.onApplied = onApplied;
    this.onError = onError;
    /** @type {object[]} sorted by seq */
    this.queue = [];
    this.draining = Promise.resolve();
    this.running = false;
  }

  /**
   * Take a world message; resolves when it and everything queued before it are applied.
   * @param {{seq: number}} message
   * @returns {Promise<void>}
   */
  receive(message) {
    if (!Number.isInteger(message.seq)) return Promise.resolve();
    if (!this.queue.some((m) => m.seq === message.seq)) {
      const at = this.queue.findIndex((m) => m.seq > message.seq);
      this.queue.splice(at === -1 ? this.queue.length : at, 0, message);
    }
    if (!this.running) {
      this.running = true;
      this.draining = this.#loop();
    }
    return this.draining;
  }

  /**
   * The sidecar's newest seq is below ours: its store was reset. Start counting again.
   * @param {number} seq
   */
  resetTo(seq) {
    this.lastApplied = seq;
  }

  async #loop() {
    try {
      while (this.queue.length) {
        const message = this.queue.shift();
        if (message.seq <= this.lastApplied) {
          this.onApplied(this.lastApplied);
          continue;
        }
        try {
          await this.apply(message);
        } catch (error) {
          // A message that cannot be applied (its actor was deleted, ...) must not block
          // every later one: report it and move on.
          this.onError(message, error);
        }
        this.lastApplied = message.seq;
        this.onApplied(message.seq);
      }
    } finally {
      // Cleared in the same tick as the last queue check, so a message received from now on
      // starts a new loop instead of waiting in a queue nobody drains.
      this.running = false;
    }
  }
}
