/**
 * Combat events: `combat.start` when round 1 begins, `combat.turn` from `combatTurnChange`
 * (fires on every client after the update; `combatTurn`/`combatRound`/`combatStart` fire
 * only on the client that clicked), `combat.end` when the combat is deleted.
 */

import { MODULE_ID } from "../constants.mjs";
import { toNumber } from "../util/numbers.mjs";

/**
 * The id the sidecar knows a combatant by: the key of a combatant it added itself
 * (`combatant.add` op: the rolling sphere, a chase creature), else Foundry's id.
 * @param {object|null|undefined} combatant
 * @returns {string|null}
 */
export function sidecarCombatantId(combatant) {
  if (!combatant) return null;
  const key = combatant.flags?.[MODULE_ID]?.key;
  return typeof key === "string" && key ? key : combatant.id ?? null;
}

/**
 * @param {object} combat
 * @returns {object[]} protocol `Combatant`s in turn order
 */
export function combatantsOf(combat) {
  const list = combat.turns?.length ? combat.turns : [...(combat.combatants ?? [])];
  return list.slice(0, 1000).map((c) => ({
    combatant_id: sidecarCombatantId(c),
    token_id: c.tokenId ?? null,
    name: String(c.name ?? "").slice(0, 256),
    initiative: Number.isFinite(c.initiative) ? c.initiative : null,
    defeated: Boolean(c.defeated ?? c.isDefeated),
  }));
}

/**
 * @param {{round?: number, turn?: number|null, tokenId?: string|null, combatantId?: string|null}|null|undefined} ref
 * @param {object} [combat]  to name sidecar-added combatants by their key
 * @returns {object|null} a protocol `TurnRef`
 */
export function turnRef(ref, combat) {
  if (!ref) return null;
  const turn = Number.isInteger(ref.turn) && ref.turn >= 0 ? ref.turn : null;
  const combatant = ref.combatantId ? combat?.combatants?.get?.(ref.combatantId) : undefined;
  return {
    round: Math.max(0, Math.round(toNumber(ref.round))),
    turn,
    combatant_id: combatant ? sidecarCombatantId(combatant) : ref.combatantId ?? null,
    token_id: combatant ? combatant.tokenId ?? null : ref.tokenId ?? null,
  };
}

/**
 * @param {{on: Function}} hooks
 * @param {import("./scene.mjs").ForwardContext} ctx
 */
export function installCombatForwarder(hooks, ctx) {
  hooks.on("updateCombat", (combat, changed) => {
    if (!ctx.isActive() || changed?.round !== 1 || (combat.turn ?? 0) !== 0) return;
    ctx.send({
      type: "combat.start",
      combat_id: combat.id,
      scene_id: combat.scene?.id ?? null,
      combatants: combatantsOf(combat),
    });
  });

  hooks.on("combatTurnChange", (combat, prior, current) => {
    if (!ctx.isActive()) return;
    ctx.send({
      type: "combat.turn",
      combat_id: combat.id,
      prior: turnRef(prior, combat),
      current: turnRef(current, combat)
        ?? turnRef({ round: combat.round, turn: combat.turn, combatantId: combat.combatant?.id ?? null }, combat),
      combatants: combatantsOf(combat),
    });
  });

  hooks.on("deleteCombat", (combat) => {
    if (ctx.isActive()) ctx.send({ type: "combat.end", combat_id: combat.id });
  });
}
