/**
 * Keeping the sidecar's creature snapshots current: when an actor or one of its effects
 * changes (HP, a condition, exhaustion), each of its tokens on a scene is re-sent as
 * `token.update`. Bursts (an update plus its effect changes) are coalesced per token.
 */

import { tokenData } from "./scene.mjs";
import { KeyedDebouncer } from "../util/debounce.mjs";

/**
 * The sidecar knows the active scene and the one the GM views (forward/scene.mjs); a token
 * elsewhere would be refused as an unknown scene.
 * @param {object|null|undefined} scene
 * @returns {boolean}
 */
function isSyncedScene(scene) {
  return Boolean(scene) && (scene.active || scene.id === globalThis.canvas?.scene?.id);
}

/**
 * @param {{on: Function}} hooks
 * @param {import("./scene.mjs").ForwardContext & {clock?: object}} ctx
 * @param {number} [delayMs=200]
 */
export function installActorRefreshForwarder(hooks, ctx, delayMs = 200) {
  const debouncer = new KeyedDebouncer(delayMs, ctx.clock ?? globalThis);

  const refresh = (actor) => {
    if (!ctx.isActive() || !actor) return;
    const tokens = actor.isToken && actor.token ? [actor.token] : actor.getActiveTokens?.(false, true) ?? [];
    for (const token of tokens) {
      if (!isSyncedScene(token?.parent)) continue;
      debouncer.run(token.id, () => {
        if (!ctx.isActive()) return;
        ctx.send({ type: "token.update", scene_id: token.parent.id, token: tokenData(token, ctx.adapter) });
      });
    }
  };

  hooks.on("updateActor", (actor) => refresh(actor));
  for (const action of ["create", "update", "delete"]) {
    hooks.on(`${action}ActiveEffect`, (effect) => {
      if (effect?.parent?.documentName === "Actor") refresh(effect.parent);
    });
  }
}
