/**
 * `rest.completed`, from dnd5e's `dnd5e.restCompleted(actor, result, config)`.
 *
 * That hook fires only in the browser of the user who rested, usually a player. A player's
 * browser therefore relays the rest to the active GM's browser (PlayerChannel), which checks
 * that the named user is active and owns the actor before sending it on. (Foundry's v13
 * query handlers are not told who asked, so this ownership check is as far as trust goes:
 * a player can only report rests for actors they own.)
 */

import { primaryTokenId, resolveActor } from "../documents.mjs";
import { log } from "../util/log.mjs";

export const REST_QUERY = "restCompleted";

/**
 * @param {object|undefined} result  dnd5e RestResult
 * @param {object|undefined} config  dnd5e RestConfiguration
 * @returns {"short"|"long"}
 */
export function restKind(result, config) {
  return config?.type === "long" || result?.longRest ? "long" : "short";
}

/**
 * @param {{on: Function}} hooks
 * @param {import("./scene.mjs").ForwardContext} ctx
 * @param {import("../channel.mjs").PlayerChannel} channel
 */
export function installRestForwarder(hooks, ctx, channel) {
  hooks.on("dnd5e.restCompleted", (actor, result, config) => {
    const report = {
      actor_id: actor.id,
      token_id: primaryTokenId(actor),
      rest: restKind(result, config),
      user_id: game.user?.id,
    };
    if (ctx.isActive()) {
      sendRest(ctx, report);
      return;
    }
    const gm = game.users?.activeGM;
    if (!gm) return;
    channel.ask(gm, REST_QUERY, report, 10000)
      .catch((error) => log.warn("could not tell the GM about a rest", error?.message));
  });
}

/**
 * Register the GM-side handler of relayed rests (every client; only the active GM acts).
 * @param {import("./scene.mjs").ForwardContext} ctx
 * @param {import("../channel.mjs").PlayerChannel} channel
 */
export function registerRestRelay(ctx, channel) {
  channel.register(REST_QUERY, async (report) => {
    if (!ctx.isActive()) return false;
    const user = game.users?.get(report?.user_id);
    const actor = resolveActor({ actor_id: report?.actor_id, token_id: report?.token_id });
    if (!user?.active || !actor?.testUserPermission?.(user, "OWNER")) return false;
    sendRest(ctx, report);
    return true;
  });
}

/**
 * @param {import("./scene.mjs").ForwardContext} ctx
 * @param {{actor_id: string, token_id: string|null, rest: string}} report
 */
function sendRest(ctx, report) {
  ctx.send({
    type: "rest.completed",
    actor_id: report.actor_id,
    token_id: report.token_id ?? null,
    rest: report.rest === "long" ? "long" : "short",
  });
}
