/**
 * Rolling a saving throw in dnd5e, in the player's browser, without the roll dialog:
 * dnd5e >= 4.1 has `rollSavingThrow(config, dialog, message)` returning `D20Roll[]`; older
 * releases have `rollAbilitySave(abilityId, options)` returning one `D20Roll`.
 */

import { versionAtLeast } from "../../util/version.mjs";

/**
 * @typedef {object} SaveRoll
 * @property {number} total
 * @property {number|null} natural  the kept d20
 * @property {object|null} roll     the roll's JSON, for the sidecar's card
 */

/**
 * @param {object} roll  a D20Roll
 * @returns {number|null}
 */
function naturalD20(roll) {
  const die = roll.d20 ?? roll.dice?.[0];
  const value = die?.total ?? die?.results?.find((r) => r.active !== false)?.result;
  return Number.isInteger(value) && value >= 1 && value <= 20 ? value : null;
}

/**
 * Roll a save and post it to chat like any other dnd5e save.
 * @param {object} actor
 * @param {{ability: string, advantage?: boolean, disadvantage?: boolean}} request
 * @param {string} [systemVersion]  `game.system.version`
 * @returns {Promise<SaveRoll|null>} null when the roll was cancelled
 */
export async function rollSave(actor, { ability, advantage = false, disadvantage = false }, systemVersion = game.system?.version) {
  let roll;
  if (versionAtLeast(systemVersion, "4.1") && typeof actor.rollSavingThrow === "function") {
    const rolls = await actor.rollSavingThrow({ ability, advantage, disadvantage }, { configure: false }, { create: true });
    roll = Array.isArray(rolls) ? rolls[0] : rolls;
  } else {
    roll = await actor.rollAbilitySave(ability, { advantage, disadvantage, fastForward: true, chatMessage: true });
  }
  if (!roll) return null;
  return {
    total: Math.round(Number(roll.total)),
    natural: naturalD20(roll),
    roll: typeof roll.toJSON === "function" ? roll.toJSON() : null,
  };
}
