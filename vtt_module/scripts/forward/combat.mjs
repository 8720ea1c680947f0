/**
 * Combat events: `combat.start` when round 1 begins, `combat.turn` from `combatTurnChange`
 * (fires on every client after the update; `combatTurn`/`combatRound`/`combatStart` fire
 * only on the client that clicked), `combat.end` when the combat is deleted.
 */

import { toNumber } from "../util/numbers.mjs";

/**
 * @param {object} combat
 * @returns {object[]} protocol `Combatant`s in turn order
 */
export function combatantsOf(combat) {
  const list = combat.turns?.length ? combat.turns : [...(combat.combatants ?? [])];
  return list.slice(0, 1000).map((c) => ({
    combatant_id: c.id,
    token_id: c.tokenId ?? null,
    name: String(c.name ?? "").slice(0, 256),
    initiative: Number.isFinite(c.initiative) ? c.initiative : null,
    defeated: Boolean(c.defeated ?? c.isDefeated),
  }));
}

/**
 * @param {{round?: number, turn?: number|null, tokenId?: string|null, combatantId?: string|null}|null|undefined} ref
 * @returns {object|null} a protocol `TurnRef`
 */
export function turnRef(ref) {
  if (!ref) return null;
  const turn = Number.isInteger(ref.turn) && ref.turn >= 0 ? ref.turn : null;
  return {
    round: Math.max(0, Math.round(toNumber(ref.round))),
    turn,
    combatant_id: ref.combatantId ?? null,
    token_id: ref.tokenId ?? null,
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
      prior: turnRef(prior),
      current: turnRef(current) ?? turnRef({ round: combat.round, turn: combat.turn }),
      combatants: combatantsOf(combat),
    });
  });

  hooks.on("deleteCombat", (combat) => {
    if (ctx.isActive()) ctx.send({ type: "combat.end", combat_id: combat.id });
  });
}
