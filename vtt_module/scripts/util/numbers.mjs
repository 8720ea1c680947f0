/** Number helpers that turn loosely typed document data into what the wire models accept. */

/**
 * A finite number, or the fallback.
 * @param {unknown} value
 * @param {number} fallback
 * @returns {number}
 */
export function toNumber(value, fallback = 0) {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : fallback;
}

/**
 * A rounded integer, or the fallback (pydantic `int` fields refuse 2.5).
 * @param {unknown} value
 * @param {number} fallback
 * @returns {number}
 */
export function toInt(value, fallback = 0) {
  return Math.round(toNumber(value, fallback));
}

/**
 * Clamp a number into [min, max].
 * @param {number} value
 * @param {number} min
 * @param {number} max
 * @returns {number}
 */
export function clamp(value, min, max) {
  return Math.min(max, Math.max(min, value));
}
