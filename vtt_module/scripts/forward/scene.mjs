/**
 * Scene state for the sidecar: a whole `scene.sync` when a scene is shown or becomes active
 * (and after every reconnect), then `token.update` / `token.remove` / `region.update` /
 * `region.remove` as documents change. Only regions with a configured trap are sent.
 */

import { regionData } from "../regions/region-data.mjs";
import { clamp, toNumber } from "../util/numbers.mjs";
import { KeyedDebouncer } from "../util/debounce.mjs";

/** Token fields whose change is movement (sent as `token.move`) or bookkeeping. */
const NOT_A_TOKEN_UPDATE = new Set([
  "_id", "x", "y", "rotation", "sort", "_stats", "_regions", "_movementHistory", "flags",
]);

/**
 * @param {object} token  a TokenDocument
 * @param {import("../systems/dnd5e.mjs").SystemAdapter} adapter
 * @returns {object} a protocol `Token`
 */
export function tokenData(token, adapter) {
  const actor = token.actor;
  return {
    id: token.id,
    name: String(token.name ?? actor?.name ?? "").slice(0, 256),
    actor_id: token.actorId ?? actor?.id ?? null,
    x: clamp(toNumber(token.x), -1e7, 1e7),
    y: clamp(toNumber(token.y), -1e7, 1e7),
    width: clamp(toNumber(token.width, 1), 0.01, 100),
    height: clamp(toNumber(token.height, 1), 0.01, 100),
    elevation: clamp(toNumber(token.elevation), -1e6, 1e6),
    hidden: Boolean(token.hidden),
    disposition: clamp(Math.round(toNumber(token.disposition)), -2, 1),
    creature: actor ? adapter.snapshot(actor, token) : null,
  };
}

/**
 * Walls as the sidecar's `Wall`s: the segment `c` and whether it blocks sight (anything but
 * `CONST.WALL_SENSE_TYPES.NONE`; https://foundryvtt.com/api/variables/CONST.WALL_SENSE_TYPES.html).
 * @param {object} scene
 * @returns {Array<{c: number[], blocks_sight: boolean}>}
 */
export function wallData(scene) {
  const none = globalThis.CONST?.WALL_SENSE_TYPES?.NONE ?? 0;
  const walls = [];
  for (const wall of scene.walls ?? []) {
    const c = Array.isArray(wall.c) ? wall.c.slice(0, 4).map((v) => clamp(toNumber(v), -1e7, 1e7)) : [];
    if (c.length !== 4) continue;
    walls.push({ c, blocks_sight: wall.sight !== none });
    if (walls.length >= 50000) break;
  }
  return walls;
}

/**
 * @param {object} scene  a Scene
 * @param {import("../systems/dnd5e.mjs").SystemAdapter} adapter
 * @returns {object} a protocol `Scene`
 */
export function sceneData(scene, adapter) {
  // Token coordinates are canvas coordinates, padding included: report that canvas size.
  const dimensions = scene.dimensions ?? {};
  return {
    id: scene.id,
    name: String(scene.name ?? "").slice(0, 256),
    width: toNumber(dimensions.width ?? scene.width, 4000),
    height: toNumber(dimensions.height ?? scene.height, 3000),
    grid: {
      size: toNumber(scene.grid?.size, 100),
      distance: toNumber(scene.grid?.distance, 5),
      units: String(scene.grid?.units ?? "ft").slice(0, 16),
    },
    tokens: [...(scene.tokens ?? [])].map((token) => tokenData(token, adapter)),
    regions: [...(scene.regions ?? [])].map(regionData).filter(Boolean),
    walls: wallData(scene),
  };
}

/**
 * @param {object} scene
 * @param {import("../systems/dnd5e.mjs").SystemAdapter} adapter
 * @returns {object} a `scene.sync` event (without id)
 */
export function sceneSyncEvent(scene, adapter) {
  return { type: "scene.sync", scene: sceneData(scene, adapter), active: Boolean(scene.active) };
}

/**
 * Whether a token update changed something other than its position.
 * @param {object} changed  the update delta
 * @returns {boolean}
 */
export function isTokenStateChange(changed) {
  return Object.keys(changed ?? {}).some((key) => !NOT_A_TOKEN_UPDATE.has(key));
}

/**
 * Whether a region update touched only flags: the trap-state flag this module writes for the
 * sidecar (no need to echo it back), or other modules' flags (nothing the rules read).
 * @param {object} changed
 * @returns {boolean}
 */
function isOnlyFlags(changed) {
  const keys = Object.keys(changed ?? {}).filter((k) => k !== "_id" && k !== "_stats");
  return keys.length === 1 && keys[0] === "flags";
}

/**
 * @typedef {object} ForwardContext
 * @property {(event: object) => string} send
 * @property {import("../systems/dnd5e.mjs").SystemAdapter} adapter
 * @property {() => boolean} isActive  this browser is the active GM
 * @property {{setTimeout: Function, clearTimeout: Function}} [clock]  for tests
 */

/** How long a burst of wall edits may last before the scene is sent again. */
export const WALL_SYNC_DELAY_MS = 500;

/**
 * Listen to scene, token, region and wall hooks.
 * @param {{on: Function}} hooks
 * @param {ForwardContext} ctx
 * @returns {{syncScenes: () => void}}
 */
export function installSceneForwarder(hooks, ctx) {
  /** Region ids sent with a trap, so losing the trap can be reported as a removal. */
  const trapRegions = new Set();

  const syncScene = (scene) => {
    if (!scene) return;
    const event = sceneSyncEvent(scene, ctx.adapter);
    for (const region of event.scene.regions) trapRegions.add(region.id);
    ctx.send(event);
  };

  /** The active scene, and the one the GM looks at if it differs. */
  const syncScenes = () => {
    if (!ctx.isActive()) return;
    const active = game.scenes?.active;
    const viewed = globalThis.canvas?.scene;
    syncScene(active);
    if (viewed && viewed.id !== active?.id) syncScene(viewed);
  };

  const sendRegion = (region) => {
    if (!ctx.isActive() || !region?.parent) return;
    const data = regionData(region);
    if (data) {
      trapRegions.add(region.id);
      ctx.send({ type: "region.update", scene_id: region.parent.id, region: data });
    } else if (trapRegions.delete(region.id)) {
      ctx.send({ type: "region.remove", scene_id: region.parent.id, region_id: region.id });
    }
  };

  hooks.on("canvasReady", (canvas) => {
    if (ctx.isActive() && canvas?.scene) syncScene(canvas.scene);
  });
  hooks.on("updateScene", (scene, changed) => {
    if (ctx.isActive() && changed?.active === true) syncScene(scene);
  });

  hooks.on("createToken", (token) => {
    if (ctx.isActive()) ctx.send({ type: "token.update", scene_id: token.parent.id, token: tokenData(token, ctx.adapter) });
  });
  hooks.on("updateToken", (token, changed) => {
    if (ctx.isActive() && isTokenStateChange(changed)) {
      ctx.send({ type: "token.update", scene_id: token.parent.id, token: tokenData(token, ctx.adapter) });
    }
  });
  hooks.on("deleteToken", (token) => {
    if (ctx.isActive()) ctx.send({ type: "token.remove", scene_id: token.parent.id, token_id: token.id });
  });

  hooks.on("createRegion", (region) => sendRegion(region));
  hooks.on("updateRegion", (region, changed) => {
    if (!isOnlyFlags(changed)) sendRegion(region);
  });
  hooks.on("deleteRegion", (region) => {
    if (!ctx.isActive() || !trapRegions.delete(region.id)) return;
    ctx.send({ type: "region.remove", scene_id: region.parent.id, region_id: region.id });
  });
  for (const action of ["create", "update", "delete"]) {
    hooks.on(`${action}RegionBehavior`, (behavior) => sendRegion(behavior.parent));
  }

  // Walls travel only inside a scene sync: send one after a burst of wall edits settles.
  const wallDebouncer = new KeyedDebouncer(WALL_SYNC_DELAY_MS, ctx.clock ?? globalThis);
  const wallsChanged = (wall) => {
    const scene = wall?.parent;
    if (!ctx.isActive() || !scene) return;
    wallDebouncer.run(scene.id, () => {
      if (ctx.isActive()) syncScene(scene);
    });
  };
  hooks.on("createWall", wallsChanged);
  hooks.on("updateWall", (wall, changed) => {
    if (changed && ("c" in changed || "sight" in changed)) wallsChanged(wall);
  });
  hooks.on("deleteWall", wallsChanged);

  return { syncScenes };
}
