/** Escaping text that goes into HTML this module builds itself. */

const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * @param {unknown} text
 * @returns {string}
 */
export function escapeHtml(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
