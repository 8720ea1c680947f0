/**
 * Which items the GM coated with an injury poison (`poison.coat`), so that only their hits
 * become `weapon.hit` events. Filled when the token HUD sends the coat action, in the active
 * GM's browser (the only one that forwards). The sidecar tracks doses and decides whether a
 * hit delivers anything; this set only keeps uncoated hits off the wire. It lives in memory:
 * after a reload of the GM's page it is empty until an item is coated through the HUD again.
 */

export class CoatedItems {
  constructor() {
    /** @type {Set<string>} */
    this.ids = new Set();
  }

  /** @param {string|null|undefined} itemId */
  add(itemId) {
    if (typeof itemId === "string" && itemId) this.ids.add(itemId);
  }

  /** @param {string|null|undefined} itemId */
  has(itemId) {
    return typeof itemId === "string" && this.ids.has(itemId);
  }

  clear() {
    this.ids.clear();
  }
}
