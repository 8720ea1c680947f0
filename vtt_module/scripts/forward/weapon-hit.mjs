/**
 * `weapon.hit`: a damage roll of an item the GM coated with an injury poison, one event per
 * target the rolling user had selected (`game.user.targets`). The sidecar decides whether
 * the hit delivers the poison (piercing or slashing, doses left).
 *
 * dnd5e's damage hook fires only in the rolling user's browser, and its name and arguments
 * changed over versions, so both names are registered and the arguments told apart:
 *   dnd5e >= 4.0   `dnd5e.rollDamageV2(rolls, {subject: activity})` (4.0: `{activity}`)
 *   dnd5e 5.x      also `dnd5e.rollDamage(rolls, {subject})`, with the same rolls
 *   dnd5e 4.0-4.3  `dnd5e.rollDamage(item, roll|rolls)` as a deprecated shim; 3.x the same
 * A roll seen once is not forwarded again when the second hook fires for it.
 *
 * A player's roll is relayed to the active GM (PlayerChannel, like rests), who sends it only
 * when the user owns the attacker and the item is known to be coated (CoatedItems).
 */

import { primaryTokenId, resolveActor } from "../documents.mjs";
import { log } from "../util/log.mjs";

export const WEAPON_HIT_QUERY = "weaponHit";
export const DAMAGE_HOOKS = ["dnd5e.rollDamageV2", "dnd5e.rollDamage"];

/** @param {any} value */
function isRoll(value) {
  return Boolean(value) && typeof value === "object" && ("terms" in value || "total" in value || "formula" in value);
}

/**
 * The rolls and the rolled thing (activity or item) from either hook's arguments.
 * @param {any} first
 * @param {any} second
 * @returns {{rolls: object[], subject: any}}
 */
export function damageHookArgs(first, second) {
  if (Array.isArray(first) || isRoll(first)) {
    return { rolls: [first].flat().filter(isRoll), subject: second?.subject ?? second?.activity ?? null };
  }
  return { rolls: [second].flat().filter(isRoll), subject: first ?? null };
}

/**
 * @param {any} subject  an Activity (dnd5e >= 4) or an Item
 * @returns {object|null} the Item
 */
export function subjectItem(subject) {
  if (!subject) return null;
  if (subject.item) return subject.item;
  return subject.documentName === "Item" ? subject : null;
}

/**
 * Damage types of the roll: each DamageRoll's `options.type` (the type chosen), else its
 * `options.types`; when the rolls name none, the activity's or item's damage parts.
 * @param {object[]} rolls
 * @param {any} subject
 * @param {object|null} item
 * @returns {string[]}
 */
export function damageTypes(rolls, subject, item) {
  const found = [];
  for (const roll of rolls) {
    const options = roll?.options ?? {};
    if (typeof options.type === "string" && options.type) found.push(options.type);
    else if (options.types) found.push(...options.types);
  }
  if (!found.length) {
    for (const part of subject?.damage?.parts ?? []) found.push(...(part?.types ?? []));
    const itemDamage = item?.system?.damage;
    found.push(...(itemDamage?.base?.types ?? []));
    for (const part of Array.isArray(itemDamage?.parts) ? itemDamage.parts : []) {
      if (Array.isArray(part)) found.push(part[1]);
      else found.push(...(part?.types ?? []));
    }
  }
  return [...new Set(found.filter((type) => typeof type === "string" && type))].slice(0, 16);
}

/**
 * The attacker's token: the rolling user's controlled token of that actor, else the actor's
 * own (synthetic) or first active token.
 * @param {object|null} actor
 * @returns {string|null}
 */
function attackerTokenId(actor) {
  if (!actor) return null;
  const controlled = (globalThis.canvas?.tokens?.controlled ?? [])
    .find((t) => (t.actor?.id ?? t.document?.actorId) === actor.id);
  return controlled?.document?.id ?? controlled?.id ?? primaryTokenId(actor);
}

/**
 * What the rolling browser knows about the hit, or null when it is not one to report.
 * @param {object[]} rolls
 * @param {any} subject
 * @returns {object|null}
 */
export function hitReport(rolls, subject) {
  const item = subjectItem(subject);
  if (!item?.id || !rolls.length) return null;
  const targets = [...(game.user?.targets ?? [])].map((t) => t.document ?? t).filter((t) => t?.id);
  if (!targets.length) return null;
  const actor = subject?.actor ?? item.actor ?? (item.parent?.documentName === "Actor" ? item.parent : null);
  return {
    user_id: game.user?.id ?? null,
    scene_id: targets[0].parent?.id ?? globalThis.canvas?.scene?.id ?? null,
    actor_id: actor?.id ?? null,
    attacker_token_id: attackerTokenId(actor),
    item_id: item.id,
    target_token_ids: targets.map((t) => t.id).slice(0, 64),
    damage_types: damageTypes(rolls, subject, item),
  };
}

/**
 * @param {{on: Function}} hooks
 * @param {import("./scene.mjs").ForwardContext} ctx
 * @param {import("../channel.mjs").PlayerChannel} channel
 * @param {import("../coated-items.mjs").CoatedItems} coated
 */
export function installWeaponHitForwarder(hooks, ctx, channel, coated) {
  const seen = new WeakSet();
  const onDamage = (first, second) => {
    const { rolls, subject } = damageHookArgs(first, second);
    if (!rolls.length || seen.has(rolls[0])) return;
    seen.add(rolls[0]);
    const report = hitReport(rolls, subject);
    if (!report) return;
    if (ctx.isActive()) {
      if (coated.has(report.item_id)) sendHits(ctx, report);
      return;
    }
    const gm = game.users?.activeGM;
    if (!gm) return;
    channel.ask(gm, WEAPON_HIT_QUERY, report, 10000)
      .catch((error) => log.warn("could not tell the GM about a hit", error?.message));
  };
  for (const name of DAMAGE_HOOKS) hooks.on(name, onDamage);
}

/**
 * The GM-side handler of relayed hits (every client registers it; only the active GM acts).
 * @param {import("./scene.mjs").ForwardContext} ctx
 * @param {import("../channel.mjs").PlayerChannel} channel
 * @param {import("../coated-items.mjs").CoatedItems} coated
 */
export function registerWeaponHitRelay(ctx, channel, coated) {
  channel.register(WEAPON_HIT_QUERY, async (report) => {
    if (!ctx.isActive() || !coated.has(report?.item_id)) return false;
    const user = game.users?.get(report?.user_id);
    const actor = resolveActor({ actor_id: report?.actor_id, token_id: report?.attacker_token_id, scene_id: report?.scene_id });
    if (!user?.active || !actor?.testUserPermission?.(user, "OWNER")) return false;
    return sendHits(ctx, report) > 0;
  });
}

/**
 * One `weapon.hit` per target.
 * @param {import("./scene.mjs").ForwardContext} ctx
 * @param {object} report
 * @returns {number} events sent
 */
function sendHits(ctx, report) {
  if (!report.attacker_token_id || !Array.isArray(report.target_token_ids)) return 0;
  const types = Array.isArray(report.damage_types) ? report.damage_types.filter((x) => typeof x === "string").slice(0, 16) : [];
  let sent = 0;
  for (const target of report.target_token_ids) {
    if (typeof target !== "string" || !target) continue;
    ctx.send({
      type: "weapon.hit",
      scene_id: report.scene_id ?? null,
      attacker_token_id: report.attacker_token_id,
      target_token_id: target,
      item_id: report.item_id,
      damage_types: types,
    });
    sent += 1;
  }
  return sent;
}
