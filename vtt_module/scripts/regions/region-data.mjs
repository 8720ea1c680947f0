/** A RegionDocument as the protocol's `Region`: shapes, elevation and its trap, if any. */

import { TRAP_BEHAVIOR_TYPE } from "../constants.mjs";
import { parseTrack, trapPlacement } from "./trap-placement.mjs";

/**
 * @param {number|null|undefined} value
 * @returns {number|null} null for "unbounded" (Foundry uses null or ±Infinity)
 */
function bound(value) {
  return Number.isFinite(value) ? value : null;
}

/**
 * @param {object} shape  a region shape (data model or plain object)
 * @returns {object|null} the protocol shape, or null for a type the protocol lacks
 */
export function shapeData(shape) {
  const s = typeof shape?.toObject === "function" ? shape.toObject() : shape;
  const hole = Boolean(s?.hole);
  switch (s?.type) {
    case "rectangle":
      return { type: "rectangle", x: s.x, y: s.y, width: s.width, height: s.height, rotation: s.rotation ?? 0, hole };
    case "circle":
      return { type: "circle", x: s.x, y: s.y, radius: s.radius, hole };
    case "ellipse":
      return { type: "ellipse", x: s.x, y: s.y, radiusX: s.radiusX, radiusY: s.radiusY, rotation: s.rotation ?? 0, hole };
    case "polygon":
      return s.points?.length >= 6 ? { type: "polygon", points: [...s.points], hole } : null;
    default:
      return null;
  }
}

/**
 * The region's enabled trap behaviour, if any.
 * @param {object} region  a RegionDocument
 * @returns {object|undefined} the RegionBehavior
 */
export function trapBehavior(region) {
  return [...(region.behaviors ?? [])].find((b) => b.type === TRAP_BEHAVIOR_TYPE && !b.disabled);
}

/**
 * The trip wire a GM entered on the trap behaviour, as the protocol's `line` shape. Foundry
 * regions have no line shape; a trip-wire trap springs when a path crosses this line, and
 * its effect covers the region's own shapes.
 * @param {object|undefined} system  the trap behaviour's data
 * @returns {object|null}
 */
export function wireShape(system) {
  const points = parseTrack(system?.wire) ?? [];
  if (points.length < 2) return null;
  return { type: "line", points: points.flatMap((p) => [p.x, p.y]), hole: false };
}

/**
 * @param {object} region  a RegionDocument
 * @returns {object|null} a protocol `Region`, or null when it holds no configured trap
 */
export function regionData(region) {
  const behavior = trapBehavior(region);
  const trap = trapPlacement(behavior?.system);
  if (!trap) return null;
  const shapes = [...(region.shapes ?? [])].map(shapeData).filter(Boolean);
  const wire = wireShape(behavior.system);
  if (wire) shapes.push(wire);
  return {
    id: region.id,
    name: String(region.name ?? "").slice(0, 256),
    shapes,
    elevation: { bottom: bound(region.elevation?.bottom), top: bound(region.elevation?.top) },
    trap,
  };
}
