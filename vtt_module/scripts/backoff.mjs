/** Reconnect delays: exponential growth with jitter, capped, reset after a good connection. */

export class Backoff {
  /**
   * @param {object} [options]
   * @param {number} [options.baseMs=1000]  first delay before jitter
   * @param {number} [options.capMs=30000]  no delay is longer than this
   * @param {() => number} [options.random=Math.random]
   */
  constructor({ baseMs = 1000, capMs = 30000, random = Math.random } = {}) {
    this.baseMs = baseMs;
    this.capMs = capMs;
    this.random = random;
    this.attempt = 0;
  }

  /**
   * The delay before the next attempt: half fixed, half random ("equal jitter"), so delays
   * still grow while many clients do not retry in lock step.
   * @returns {number} milliseconds
   */
  next() {
    const ceiling = Math.min(this.capMs, this.baseMs * 2 ** this.attempt);
    this.attempt += 1;
    return ceiling / 2 + this.random() * (ceiling / 2);
  }

  /** Start again from the base delay (after the sidecar welcomed us). */
  reset() {
    this.attempt = 0;
  }
}
