/** All forwarders: Foundry hooks in, protocol events out (through `ctx.send`). */

import { installActorRefreshForwarder } from "./actor-refresh.mjs";
import { installCombatForwarder } from "./combat.mjs";
import { installDoorForwarder } from "./door.mjs";
import { gmActionSender } from "./gm-action.mjs";
import { installHitPointForwarder } from "./hit-points.mjs";
import { installMovementForwarder } from "./movement.mjs";
import { installRestForwarder } from "./rest.mjs";
import { installSceneForwarder } from "./scene.mjs";
import { installTimeForwarder } from "./time.mjs";
import { installWeaponHitForwarder } from "./weapon-hit.mjs";

/**
 * @param {{on: Function}} hooks
 * @param {import("./scene.mjs").ForwardContext & {clock?: object}} ctx
 * @param {import("../channel.mjs").PlayerChannel} channel
 * @param {import("../coated-items.mjs").CoatedItems} coated
 * @returns {{syncScenes: () => void, sendGmAction: ReturnType<typeof gmActionSender>,
 *   movement: ReturnType<typeof installMovementForwarder>}}
 */
export function installForwarders(hooks, ctx, channel, coated) {
  // Scene first: a created token's `token.update` must precede its "drop" `token.move`.
  const { syncScenes } = installSceneForwarder(hooks, ctx);
  const movement = installMovementForwarder(hooks, ctx);
  installCombatForwarder(hooks, ctx);
  installTimeForwarder(hooks, ctx);
  installRestForwarder(hooks, ctx, channel);
  installHitPointForwarder(hooks, ctx);
  installActorRefreshForwarder(hooks, ctx);
  installWeaponHitForwarder(hooks, ctx, channel, coated);
  installDoorForwarder(hooks, ctx, channel);
  return { syncScenes, sendGmAction: gmActionSender(ctx), movement };
}
