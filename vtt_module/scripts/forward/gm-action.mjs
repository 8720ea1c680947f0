/** `gm.action`: a GM's button press (on a card, the token HUD, a tracker) for the sidecar. */

/**
 * Make the sender used by buttons and the module API.
 * @param {import("./scene.mjs").ForwardContext} ctx
 * @returns {(action: string, params?: object) => string|null} the event id, or null when
 *   this browser is not the one talking to the sidecar
 */
export function gmActionSender(ctx) {
  return (action, params = {}) => {
    if (!ctx.isActive()) return null;
    return ctx.send({ type: "gm.action", action, user_id: game.user?.id ?? null, params });
  };
}
