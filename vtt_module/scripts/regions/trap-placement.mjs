/**
 * The trap settings a GM enters on a region's "Trap (Sidecar)" behaviour, turned into the
 * protocol's `TrapPlacement`. Shared by the behaviour's validation and the forwarders.
 */

import { toNumber } from "../util/numbers.mjs";

const TRACK_LIMIT = 1000;

/**
 * Parse the overrides text: empty, or a JSON object.
 * @param {string} text
 * @returns {Record<string, unknown>|null} null when the text is not a JSON object
 */
export function parseOverrides(text) {
  if (!text || !String(text).trim()) return {};
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * Parse the track text: empty, or a JSON list of `[x, y]` pairs or `{x, y}` objects.
 * @param {string} text
 * @returns {Array<{x: number, y: number}>|null} null when the text is not such a list
 */
export function parseTrack(text) {
  if (!text || !String(text).trim()) return [];
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length > TRACK_LIMIT) return null;
  const points = [];
  for (const item of value) {
    const [x, y] = Array.isArray(item) ? item : [item?.x, item?.y];
    if (!Number.isFinite(x) || !Number.isFinite(y)) return null;
    points.push({ x, y });
  }
  return points;
}

/**
 * @param {object} system  the trap behaviour's data (TrapBehaviorData fields)
 * @returns {object|null} a `TrapPlacement`, or null while no trap is chosen
 */
export function trapPlacement(system) {
  const trapId = String(system?.trapId ?? "").trim();
  if (!trapId) return null;
  const overrides = { ...(parseOverrides(system.overrides) ?? {}) };
  // TrapPlacement has no field for "trigger once"; it travels as an override the sidecar
  // reads like any other trap property.
  if (system.once) overrides.once = true;
  const originX = toNumber(system.originX, NaN);
  const originY = toNumber(system.originY, NaN);
  const direction = toNumber(system.direction, NaN);
  return {
    trap_id: trapId.slice(0, 128),
    overrides,
    origin: Number.isFinite(originX) && Number.isFinite(originY) ? { x: originX, y: originY } : null,
    direction: Number.isFinite(direction) ? direction : null,
    track: parseTrack(system.track) ?? [],
    hidden: system.hidden !== false,
  };
}
