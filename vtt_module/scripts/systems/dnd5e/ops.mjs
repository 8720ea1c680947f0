/**
 * Applying the sidecar's token/actor operations (sidecar/protocol.py `Op`) to dnd5e
 * documents.
 *
 * Damage: the sidecar has ALREADY applied resistances, immunities and vulnerabilities (it
 * sends the final amount). `actor.applyDamage(amount)` with a plain number makes dnd5e skip
 * its own damage-trait step (`options.ignore`), so nothing is applied twice. Temp HP still
 * absorbs first, as the rules say.
 *
 * Before an op changes something, its prior value goes into the UndoLog under the event id.
 */

import { MODULE_ID } from "../../constants.mjs";
import { findScene, findToken, resolveActor } from "../../documents.mjs";
import { asOwnActorChange, OWN_MOVE_OPTION } from "../../own-changes.mjs";
import { foundryGeneration } from "../../util/version.mjs";

/**
 * @typedef {object} OpResult
 * @property {string} op
 * @property {boolean} ok
 * @property {string} [error]
 */

/**
 * @param {object} actor
 * @param {string|null} tokenId
 * @returns {import("../../undo-log.mjs").ActorPrior}
 */
function actorPrior(actor, tokenId) {
  const hp = actor.system?.attributes?.hp ?? {};
  return {
    kind: "actor",
    actorId: actor.id,
    tokenId: tokenId ?? null,
    hp: { value: Number(hp.value ?? 0), temp: Number(hp.temp ?? 0) },
    statuses: [...(actor.statuses ?? [])],
    exhaustion: Number(actor.system?.attributes?.exhaustion ?? 0),
  };
}

/** @param {object} op */
function requireActor(op) {
  const actor = resolveActor(op);
  if (!actor) throw new Error(`actor ${op.actor_id ?? ""} / token ${op.token_id ?? ""} not found`);
  return actor;
}

/** Op handlers by op name: each gets the op and the context and returns a promise. */
const HANDLERS = {
  async damage(op, ctx) {
    const actor = requireActor(op);
    ctx.record(actorPrior(actor, op.token_id));
    if (op.amount <= 0) return;
    await asOwnActorChange(actor.id, () => actor.applyDamage(op.amount));
  },

  async heal(op, ctx) {
    const actor = requireActor(op);
    ctx.record(actorPrior(actor, op.token_id));
    if (op.amount <= 0) return;
    await asOwnActorChange(actor.id, () => actor.applyDamage(-op.amount));
  },

  /** Exact HP and temp HP (Undo): an update, not applyDamage, so nothing clamps or absorbs. */
  async "hp.set"(op, ctx) {
    const actor = requireActor(op);
    ctx.record(actorPrior(actor, op.token_id));
    await asOwnActorChange(actor.id, () => actor.update({
      "system.attributes.hp.value": Math.max(0, Number(op.value)),
      "system.attributes.hp.temp": Math.max(0, Number(op.temp ?? 0)),
    }));
  },

  async status(op, ctx) {
    const actor = requireActor(op);
    ctx.record(actorPrior(actor, op.token_id));
    if (actor.statuses?.has(op.status) === op.active) return;
    await actor.toggleStatusEffect(op.status, { active: op.active });
  },

  async exhaustion(op, ctx) {
    const actor = requireActor(op);
    ctx.record(actorPrior(actor, op.token_id));
    // dnd5e keeps the level in this field; the exhaustion status follows from it.
    await actor.update({ "system.attributes.exhaustion": op.level });
  },

  async "token.move"(op, ctx) {
    const token = findToken(op.token_id, op.scene_id);
    if (!token) throw new Error(`token ${op.token_id} not found`);
    ctx.record({
      kind: "token",
      sceneId: token.parent?.id ?? op.scene_id,
      tokenId: token.id,
      x: token.x,
      y: token.y,
      elevation: token.elevation ?? 0,
    });
    const elevation = op.elevation ?? token.elevation ?? 0;
    const marker = { [OWN_MOVE_OPTION]: { reason: op.reason } };
    if (foundryGeneration() >= 13 && typeof token.move === "function") {
      // Stop what is left of the player's drag first, then put the token down where the
      // sidecar says (a "displace" waypoint teleports without walking the path again).
      token.stopMovement?.();
      await token.move([{ x: op.x, y: op.y, elevation, action: "displace" }], { method: "api", ...marker });
    } else {
      await token.update({ x: op.x, y: op.y, elevation }, marker);
    }
  },

  async "combatant.add"(op) {
    const token = op.token_id ? findToken(op.token_id, op.scene_id) : undefined;
    const sceneId = op.scene_id ?? token?.parent?.id ?? globalThis.canvas?.scene?.id ?? null;
    const combat = activeCombat(sceneId) ?? await createCombat(sceneId);
    if (findCombatantByKey(op.key)) return;
    await combat.createEmbeddedDocuments("Combatant", [{
      name: op.name,
      initiative: op.initiative,
      tokenId: token?.id ?? null,
      sceneId: token ? sceneId : null,
      actorId: token?.actorId ?? null,
      flags: { [MODULE_ID]: { key: op.key, regionId: op.region_id ?? null } },
    }]);
  },

  async "combatant.remove"(op) {
    const found = findCombatantByKey(op.key);
    if (found) await found.combat.deleteEmbeddedDocuments("Combatant", [found.combatant.id]);
  },

  async "initiative.set"(op) {
    const found = findCombatantByToken(op.token_id);
    if (!found) throw new Error(`no combatant for token ${op.token_id}`);
    await found.combat.setInitiative(found.combatant.id, op.initiative);
  },

  async "region.trap_state"(op) {
    const region = findScene(op.scene_id)?.regions?.get(op.region_id);
    if (!region) throw new Error(`region ${op.region_id} not found`);
    await region.setFlag(MODULE_ID, "trapState", op.state);
  },
};

/** @returns {object[]} */
function allCombats() {
  return [...(game.combats ?? [])];
}

/**
 * @param {string|null} sceneId
 * @returns {object|undefined} the active combat of that scene (or an unlinked active one)
 */
function activeCombat(sceneId) {
  const active = allCombats().filter((c) => c.active);
  return active.find((c) => (c.scene?.id ?? null) === sceneId) ?? active.find((c) => !c.scene) ?? undefined;
}

/**
 * @param {string|null} sceneId
 * @returns {Promise<object>}
 */
async function createCombat(sceneId) {
  const Combat = CONFIG.Combat.documentClass;
  return Combat.create({ scene: sceneId, active: true });
}

/**
 * @param {string} key  the sidecar's id of the creature a combatant stands for
 * @returns {{combat: object, combatant: object}|undefined}
 */
function findCombatantByKey(key) {
  for (const combat of allCombats()) {
    const combatant = [...combat.combatants].find((c) => c.flags?.[MODULE_ID]?.key === key);
    if (combatant) return { combat, combatant };
  }
  return undefined;
}

/**
 * @param {string} tokenId
 * @returns {{combat: object, combatant: object}|undefined} preferring an active combat
 */
function findCombatantByToken(tokenId) {
  const combats = allCombats().sort((a, b) => Number(b.active) - Number(a.active));
  for (const combat of combats) {
    const combatant = [...combat.combatants].find((c) => c.tokenId === tokenId);
    if (combatant) return { combat, combatant };
  }
  return undefined;
}

/**
 * Apply ops in order. One failing op (say, a deleted actor) does not stop the others.
 * @param {object[]} ops
 * @param {object} [context]
 * @param {string} [context.eventId]  the event the ops answer, for the undo record
 * @param {import("../../undo-log.mjs").UndoLog} [context.undoLog]
 * @returns {Promise<OpResult[]>}
 */
export async function applyOps(ops, { eventId = "", undoLog } = {}) {
  const ctx = { record: (prior) => undoLog?.record(eventId, prior) };
  const results = [];
  for (const op of ops) {
    const handler = HANDLERS[op.op];
    if (!handler) {
      results.push({ op: op.op, ok: false, error: "unknown op" });
      continue;
    }
    try {
      await handler(op, ctx);
      results.push({ op: op.op, ok: true });
    } catch (error) {
      results.push({ op: op.op, ok: false, error: String(error?.message ?? error) });
    }
  }
  return results;
}
