/**
 * `interaction` kind "open" when a door inside a trap region opens: `updateWall(wall,
 * changed, options, userId)` with `changed.ds === CONST.WALL_DOOR_STATES.OPEN` (a door only
 * gets there from CLOSED or LOCKED; https://foundryvtt.com/api/variables/CONST.WALL_DOOR_STATES.html).
 * The trap regions are those of the wall's scene whose shapes hold the door's midpoint; one
 * event per region, with the region id as `target_id`.
 *
 * The hook fires on every client, but only the opener's browser knows which token they had
 * selected, so that browser reports it: its controlled token on the scene, else the token
 * nearest the door whose actor the user owns. A player's browser relays to the active GM
 * (PlayerChannel, like rests), who checks the door is open, the user owns the token's actor,
 * and finds the regions again itself.
 */

import { regionContains } from "../regions/contains.mjs";
import { regionData } from "../regions/region-data.mjs";
import { log } from "../util/log.mjs";

export const DOOR_QUERY = "doorOpened";

/** @returns {number} CONST.WALL_DOOR_STATES.OPEN */
function openState() {
  return globalThis.CONST?.WALL_DOOR_STATES?.OPEN ?? 1;
}

/**
 * @param {object} wall  a WallDocument
 * @returns {{x: number, y: number}|null}
 */
export function doorMidpoint(wall) {
  const c = Array.isArray(wall?.c) ? wall.c.map(Number) : [];
  if (c.length < 4 || c.some((v) => !Number.isFinite(v))) return null;
  return { x: (c[0] + c[2]) / 2, y: (c[1] + c[3]) / 2 };
}

/**
 * Ids of the scene's configured trap regions that hold the point.
 * @param {object} scene
 * @param {{x: number, y: number}} point
 * @returns {string[]}
 */
export function trapRegionsAt(scene, point) {
  return [...(scene?.regions ?? [])]
    .filter((region) => regionData(region) && regionContains(region, point.x, point.y))
    .map((region) => region.id);
}

/** @param {object} token  a TokenDocument */
function tokenCentre(token) {
  const size = Number(token.parent?.grid?.size) || 100;
  return { x: Number(token.x) + ((Number(token.width) || 1) * size) / 2, y: Number(token.y) + ((Number(token.height) || 1) * size) / 2 };
}

/**
 * The token that opened the door: the user's controlled token on the scene, else the nearest
 * token whose actor the user owns.
 * @param {object} scene
 * @param {{x: number, y: number}} point
 * @param {object} user
 * @returns {object|undefined} a TokenDocument
 */
export function openerToken(scene, point, user) {
  const controlled = (globalThis.canvas?.tokens?.controlled ?? [])
    .map((t) => t.document ?? t)
    .find((t) => t?.parent?.id === scene.id);
  if (controlled) return controlled;
  const owned = [...(scene.tokens ?? [])].filter((t) => t.actor?.testUserPermission?.(user, "OWNER"));
  const distance = (t) => {
    const c = tokenCentre(t);
    return Math.hypot(c.x - point.x, c.y - point.y);
  };
  return owned.sort((a, b) => distance(a) - distance(b))[0];
}

/**
 * @param {{on: Function}} hooks
 * @param {import("./scene.mjs").ForwardContext} ctx
 * @param {import("../channel.mjs").PlayerChannel} channel
 */
export function installDoorForwarder(hooks, ctx, channel) {
  hooks.on("updateWall", (wall, changed, _options, userId) => {
    if (!changed || !("ds" in changed) || changed.ds !== openState()) return;
    if (userId && userId !== game.user?.id) return;
    const scene = wall.parent;
    const point = doorMidpoint(wall);
    if (!scene || !point || !trapRegionsAt(scene, point).length) return;
    const token = openerToken(scene, point, game.user);
    if (!token) return;
    const report = { user_id: game.user?.id ?? null, scene_id: scene.id, wall_id: wall.id, token_id: token.id };
    if (ctx.isActive()) {
      sendOpened(ctx, scene, wall, token.id);
      return;
    }
    const gm = game.users?.activeGM;
    if (!gm) return;
    channel.ask(gm, DOOR_QUERY, report, 10000)
      .catch((error) => log.warn("could not tell the GM about a door", error?.message));
  });
}

/**
 * The GM-side handler of relayed doors (every client registers it; only the active GM acts).
 * @param {import("./scene.mjs").ForwardContext} ctx
 * @param {import("../channel.mjs").PlayerChannel} channel
 */
export function registerDoorRelay(ctx, channel) {
  channel.register(DOOR_QUERY, async (report) => {
    if (!ctx.isActive()) return false;
    const scene = game.scenes?.get(report?.scene_id);
    const wall = scene?.walls?.get?.(report?.wall_id);
    const token = scene?.tokens?.get?.(report?.token_id);
    const user = game.users?.get(report?.user_id);
    if (!wall || wall.ds !== openState() || !token || !user?.active) return false;
    if (!token.actor?.testUserPermission?.(user, "OWNER")) return false;
    return sendOpened(ctx, scene, wall, token.id) > 0;
  });
}

/**
 * @returns {number} events sent
 */
function sendOpened(ctx, scene, wall, tokenId) {
  const point = doorMidpoint(wall);
  const regions = point ? trapRegionsAt(scene, point) : [];
  for (const regionId of regions) {
    ctx.send({ type: "interaction", scene_id: scene.id, token_id: tokenId, target_id: regionId, kind: "open" });
  }
  return regions.length;
}
