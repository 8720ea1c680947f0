/**
 * Document hooks fire on every connected client; only one browser may talk to the sidecar
 * and apply its results, or a second GM would apply every result twice. That browser is the
 * one whose user is `game.users.activeGM` (FOUNDRY.md, "One client acts").
 */

/**
 * Whether this browser is the one that acts.
 * @param {{activeGM?: {id: string}|null}} [users]
 * @param {{id: string}|null} [user]
 * @returns {boolean}
 */
export function isActiveGM(users = globalThis.game?.users, user = globalThis.game?.user) {
  return Boolean(user) && users?.activeGM?.id === user.id;
}

/**
 * Re-checks who the active GM is whenever a user connects or disconnects, and tells the
 * owner when this browser gains or loses the role.
 */
export class ActiveGmWatcher {
  /**
   * @param {object} options
   * @param {() => boolean} options.isActive
   * @param {() => void} options.onGained
   * @param {() => void} options.onLost
   */
  constructor({ isActive, onGained, onLost }) {
    this.isActive = isActive;
    this.onGained = onGained;
    this.onLost = onLost;
    this.active = false;
  }

  /**
   * Listen to `userConnected` (fires on every client when any user joins or leaves).
   * @param {{on: (name: string, fn: Function) => number}} hooks
   */
  install(hooks) {
    hooks.on("userConnected", () => this.check());
  }

  /** Compare the role now with the role before and report a change. */
  check() {
    const active = this.isActive();
    if (active === this.active) return;
    this.active = active;
    if (active) this.onGained();
    else this.onLost();
  }
}
