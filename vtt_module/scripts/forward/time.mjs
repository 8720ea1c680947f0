/** `time.advance` from `updateWorldTime(worldTime, delta)` (fires on every client). */

/**
 * @param {{on: Function}} hooks
 * @param {import("./scene.mjs").ForwardContext} ctx
 */
export function installTimeForwarder(hooks, ctx) {
  hooks.on("updateWorldTime", (worldTime, delta) => {
    if (!ctx.isActive() || !Number.isFinite(worldTime) || !Number.isFinite(delta) || delta === 0) return;
    ctx.send({ type: "time.advance", world_time: worldTime, delta });
  });
}
