/**
 * On the trap behaviour's sheet, offer the sidecar's trap catalog as suggestions for the
 * trap id field (a datalist: any id can still be typed, so a behaviour stays valid while the
 * catalog is unknown, as on every player's client).
 */

import { TRAP_BEHAVIOR_TYPE } from "../constants.mjs";

const LIST_ID = "vtt-sidecar-trap-catalog";

/**
 * @param {HTMLElement} root  the rendered sheet
 * @param {Array<{id: string, name: string}>} catalog
 * @returns {boolean} whether suggestions were attached
 */
export function attachCatalog(root, catalog) {
  const input = root?.querySelector?.('input[name="system.trapId"]');
  if (!input || !catalog.length) return false;
  root.querySelector(`#${LIST_ID}`)?.remove();
  const list = root.ownerDocument.createElement("datalist");
  list.id = LIST_ID;
  for (const entry of catalog) {
    const option = root.ownerDocument.createElement("option");
    option.value = entry.id;
    option.label = entry.name;
    list.appendChild(option);
  }
  input.after(list);
  input.setAttribute("list", LIST_ID);
  return true;
}

/**
 * @param {{on: Function}} hooks
 * @param {() => Array<{id: string, name: string}>} catalog
 */
export function installCatalogSuggestions(hooks, catalog) {
  hooks.on("renderRegionBehaviorConfig", (app, element) => {
    if (app?.document?.type !== TRAP_BEHAVIOR_TYPE) return;
    const root = element?.[0] ?? element; // v12 sheets may pass jQuery
    attachCatalog(root, catalog());
  });
}
