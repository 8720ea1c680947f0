/** Coalescing bursts of changes per key (an actor update often comes with effect updates). */

export class KeyedDebouncer {
  /**
   * @param {number} delayMs
   * @param {{setTimeout: Function, clearTimeout: Function}} [clock]
   */
  constructor(delayMs, clock = globalThis) {
    this.delayMs = delayMs;
    this.clock = clock;
    this.timers = new Map();
  }

  /**
   * Run `fn` once, `delayMs` after the last call for this key.
   * @param {string} key
   * @param {() => void} fn
   */
  run(key, fn) {
    if (this.timers.has(key)) this.clock.clearTimeout(this.timers.get(key));
    this.timers.set(key, this.clock.setTimeout(() => {
      this.timers.delete(key);
      fn();
    }, this.delayMs));
  }
}
