/** Finding the Foundry documents that protocol ids name. */

/**
 * @param {string|null|undefined} sceneId
 * @returns {object|undefined} the Scene
 */
export function findScene(sceneId) {
  return sceneId ? game.scenes?.get(sceneId) : undefined;
}

/**
 * A TokenDocument by id: in the named scene, else in the viewed scene, else in any scene.
 * @param {string|null|undefined} tokenId
 * @param {string|null} [sceneId]
 * @returns {object|undefined}
 */
export function findToken(tokenId, sceneId = null) {
  if (!tokenId) return undefined;
  const named = findScene(sceneId)?.tokens?.get(tokenId);
  if (named) return named;
  const viewed = globalThis.canvas?.scene?.tokens?.get(tokenId);
  if (viewed) return viewed;
  for (const scene of game.scenes ?? []) {
    const token = scene.tokens?.get(tokenId);
    if (token) return token;
  }
  return undefined;
}

/**
 * The actor an op or event is about: the token's own actor (unlinked tokens have a
 * synthetic one) when a token is named, else the world actor.
 * @param {{actor_id?: string|null, token_id?: string|null, scene_id?: string|null}} ref
 * @returns {object|undefined}
 */
export function resolveActor(ref) {
  const token = findToken(ref.token_id, ref.scene_id ?? null);
  return token?.actor ?? (ref.actor_id ? game.actors?.get(ref.actor_id) : undefined);
}

/**
 * Players (not GMs) who own an actor.
 * @param {object|null|undefined} actor
 * @returns {string[]} user ids
 */
export function playerOwnerIds(actor) {
  if (!actor) return [];
  return [...(game.users ?? [])]
    .filter((user) => !user.isGM && actor.testUserPermission?.(user, "OWNER"))
    .map((user) => user.id);
}

/**
 * The token ids to report for an actor: its own token if synthetic, else its active tokens.
 * @param {object} actor
 * @returns {string|null}
 */
export function primaryTokenId(actor) {
  if (actor?.token?.id) return actor.token.id;
  const tokens = actor?.getActiveTokens?.(false, true) ?? [];
  return tokens[0]?.id ?? null;
}
