/**
 * What an event's ops changed, recorded before they were applied, so a later Undo (on a
 * card with `undoable`) can put things back. Keyed by the event id the ops belong to; only
 * the most recent events are kept. Undo itself is not built yet: this is the record.
 */

/**
 * @typedef {object} ActorPrior
 * @property {"actor"} kind
 * @property {string} actorId
 * @property {string|null} tokenId
 * @property {{value: number, temp: number}} hp
 * @property {string[]} statuses
 * @property {number} exhaustion
 */

/**
 * @typedef {object} TokenPrior
 * @property {"token"} kind
 * @property {string} sceneId
 * @property {string} tokenId
 * @property {number} x
 * @property {number} y
 * @property {number} elevation
 */

export class UndoLog {
  /** @param {number} [limit=50] events kept */
  constructor(limit = 50) {
    this.limit = limit;
    /** @type {Map<string, Array<ActorPrior|TokenPrior>>} */
    this.records = new Map();
  }

  /**
   * Record a prior state for an event (the first record of a thing wins, so an event that
   * damages the same actor twice is undone to before the first).
   * @param {string} eventId
   * @param {ActorPrior|TokenPrior} prior
   */
  record(eventId, prior) {
    if (!this.records.has(eventId)) {
      this.records.set(eventId, []);
      while (this.records.size > this.limit) this.records.delete(this.records.keys().next().value);
    }
    const list = this.records.get(eventId);
    const same = (p) => p.kind === prior.kind
      && (p.kind === "actor" ? p.actorId === prior.actorId && p.tokenId === prior.tokenId : p.tokenId === prior.tokenId);
    if (!list.some(same)) list.push(prior);
  }

  /**
   * @param {string} eventId
   * @returns {Array<ActorPrior|TokenPrior>}
   */
  get(eventId) {
    return this.records.get(eventId) ?? [];
  }
}
