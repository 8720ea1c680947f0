/**
 * `damage.taken` and `healing.applied`, from dnd5e's `dnd5e.damageActor` /
 * `dnd5e.healActor` hooks `(actor, changes {hp, temp, total}, update, userId)`. These fire
 * on every client from the actor's update, for any cause (a weapon, a spell, the GM typing
 * in the HP box), and carry the change already computed, which `updateActor` does not.
 * (Chosen over watching `updateActor` for an HP decrease.)
 *
 * Damage counts what temp HP absorbed too (it is still damage taken: concentration, some
 * poisons); healing counts only real HP gained, not new temp HP. Changes made on the
 * sidecar's own orders are not echoed back (own-changes.mjs).
 */

import { primaryTokenId } from "../documents.mjs";
import { isOwnActorChange } from "../own-changes.mjs";

/**
 * @param {{on: Function}} hooks
 * @param {import("./scene.mjs").ForwardContext} ctx
 */
export function installHitPointForwarder(hooks, ctx) {
  hooks.on("dnd5e.damageActor", (actor, changes) => {
    if (!ctx.isActive() || isOwnActorChange(actor.id)) return;
    const amount = Math.round(-Number(changes?.total ?? 0));
    if (!(amount > 0)) return;
    ctx.send({
      type: "damage.taken",
      token_id: primaryTokenId(actor),
      actor_id: actor.id,
      amount: Math.min(amount, 1000000),
      damage_types: [],
    });
  });

  hooks.on("dnd5e.healActor", (actor, changes) => {
    if (!ctx.isActive() || isOwnActorChange(actor.id)) return;
    const amount = Math.round(Number(changes?.hp ?? 0));
    if (!(amount > 0)) return;
    ctx.send({
      type: "healing.applied",
      token_id: primaryTokenId(actor),
      actor_id: actor.id,
      amount: Math.min(amount, 1000000),
    });
  });
}
