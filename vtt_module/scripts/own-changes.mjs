/**
 * Changes this module makes on the sidecar's orders (damage, healing, moves) also fire the
 * hooks the forwarders listen to. The sidecar already knows about them, so they must not be
 * echoed back as `damage.taken` / `healing.applied` / `token.move` events: echoing a
 * stop-at-the-pit move would let the sidecar evaluate the pit a second time.
 *
 * Actor changes are marked by id while the update is in flight (the update hooks fire on
 * this client before the update promise resolves). Token moves carry an update option.
 */

/** Update option set on token moves made for the sidecar. */
export const OWN_MOVE_OPTION = "vttSidecarOp";

const actorsInFlight = new Map();

/**
 * Run an actor update that must not be forwarded.
 * @template T
 * @param {string} actorId
 * @param {() => Promise<T>} change
 * @returns {Promise<T>}
 */
export async function asOwnActorChange(actorId, change) {
  actorsInFlight.set(actorId, (actorsInFlight.get(actorId) ?? 0) + 1);
  try {
    return await change();
  } finally {
    const left = actorsInFlight.get(actorId) - 1;
    if (left > 0) actorsInFlight.set(actorId, left);
    else actorsInFlight.delete(actorId);
  }
}

/**
 * @param {string} actorId
 * @returns {boolean} an update made for the sidecar is in flight for this actor
 */
export function isOwnActorChange(actorId) {
  return actorsInFlight.has(actorId);
}

/**
 * @param {object|undefined} options  the update options of a token hook
 * @returns {boolean}
 */
export function isOwnMove(options) {
  return Boolean(options?.[OWN_MOVE_OPTION]);
}
