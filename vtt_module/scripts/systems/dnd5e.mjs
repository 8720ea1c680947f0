/**
 * The dnd5e system adapter: everything the module knows about dnd5e data goes through here.
 * Another system would provide an object with the same three functions.
 */

import { applyOps } from "./dnd5e/ops.mjs";
import { rollSave } from "./dnd5e/saves.mjs";
import { creatureSnapshot } from "./dnd5e/snapshot.mjs";

/**
 * @typedef {object} SystemAdapter
 * @property {(actor: object, token?: object|null) => object} snapshot  a `Creature`
 * @property {(ops: object[], context?: {eventId?: string, undoLog?: object}) => Promise<object[]>} applyOps
 * @property {(actor: object, request: object) => Promise<object|null>} rollSave
 * @property {() => "modern"|"legacy"} ruleset
 */

/** @type {SystemAdapter} */
export const dnd5eAdapter = {
  snapshot: creatureSnapshot,
  applyOps,
  rollSave,
  ruleset() {
    try {
      return game.settings.get("dnd5e", "rulesVersion") === "modern" ? "modern" : "legacy";
    } catch {
      return "legacy";
    }
  },
};
