/**
 * GM-only buttons on the sidecar's chat cards, added when a card is rendered (so players
 * never get them, whatever the card's visibility):
 *   - Undo, on every card the sidecar marked `undoable`: sends `event.undo {event_id}`;
 *   - the card's own actions (`card.data.actions = [{action, label, params}]`, e.g. the
 *     chase's catch offer): each sends its `gm.action` with its params.
 * A used button stays disabled: the message remembers it in its flags (`undone`, `used`).
 * The buttons carry `data-action` names of their own (`vttSidecarUndo`, `vttSidecarAction`)
 * that no core chat action uses, and are handled by this module's listener.
 *
 * Render hooks: v13 `renderChatMessageHTML(message, html: HTMLElement)`, v12
 * `renderChatMessage(message, html: jQuery)`.
 */

import { MODULE_ID } from "../constants.mjs";
import { escapeHtml } from "../util/html.mjs";
import { t } from "../util/i18n.mjs";
import { log } from "../util/log.mjs";
import { foundryGeneration } from "../util/version.mjs";
import { asElement } from "./dom.mjs";

/**
 * The card's actions that can be offered: `{action, label, params}` with a string action.
 * @param {object} flags  the message's module flags
 * @returns {Array<{action: string, label: string, params: object}>}
 */
export function cardActions(flags) {
  const actions = flags?.data?.actions;
  if (!Array.isArray(actions)) return [];
  return actions.slice(0, 20).map((a) => ({
    action: typeof a?.action === "string" ? a.action : "",
    label: typeof a?.label === "string" && a.label ? a.label : String(a?.action ?? ""),
    params: a?.params && typeof a.params === "object" && !Array.isArray(a.params) ? a.params : {},
  }));
}

/**
 * The buttons' HTML for one message, or "" when it gets none.
 * @param {object} message  a ChatMessage
 * @returns {string}
 */
export function chatButtonsHtml(message) {
  const flags = message.flags?.[MODULE_ID];
  if (!flags) return "";
  const buttons = [];
  if (flags.undoable && flags.event_id) {
    const done = Boolean(flags.undone);
    buttons.push(`<button type="button" class="vtt-sidecar-undo" data-action="vttSidecarUndo" data-vtt-sidecar="undo"${done ? " disabled" : ""}>`
      + `<i class="fas fa-undo"></i> ${escapeHtml(t(done ? "VTTSIDECAR.Chat.Undone" : "VTTSIDECAR.Chat.Undo"))}</button>`);
  }
  const used = new Set(Array.isArray(flags.used) ? flags.used : []);
  cardActions(flags).forEach((a, index) => {
    if (!a.action) return;
    buttons.push(`<button type="button" class="vtt-sidecar-action" data-action="vttSidecarAction" data-vtt-sidecar="action" data-index="${index}"`
      + `${used.has(index) ? " disabled" : ""}>${escapeHtml(a.label)}</button>`);
  });
  if (!buttons.length) return "";
  return `<div class="vtt-sidecar-buttons">${buttons.join("")}</div>`;
}

/**
 * @param {object} message
 * @param {{dataset: object, disabled: boolean}} button
 * @param {(action: string, params?: object) => string|null} sendGmAction
 */
async function onClick(message, button, sendGmAction) {
  if (button.disabled) return;
  const flags = message.flags?.[MODULE_ID] ?? {};
  if (button.dataset.vttSidecar === "undo") {
    const sent = sendGmAction("event.undo", { event_id: flags.event_id });
    if (!sent) return notActive();
    button.disabled = true;
    await message.setFlag(MODULE_ID, "undone", true);
    return;
  }
  const index = Number(button.dataset.index);
  const action = cardActions(flags)[index];
  if (!action?.action) return;
  const sent = sendGmAction(action.action, action.params);
  if (!sent) return notActive();
  button.disabled = true;
  const used = Array.isArray(flags.used) ? flags.used : [];
  await message.setFlag(MODULE_ID, "used", [...new Set([...used, index])]);
}

function notActive() {
  ui.notifications?.warn(t("VTTSIDECAR.Notify.NotActiveGm"));
}

/**
 * Register the render hook. Call once in `init`.
 * @param {{on: Function}} hooks
 * @param {(action: string, params?: object) => string|null} sendGmAction
 */
export function installChatButtons(hooks, sendGmAction) {
  const hook = foundryGeneration() >= 13 ? "renderChatMessageHTML" : "renderChatMessage";
  hooks.on(hook, (message, html) => {
    if (!game.user?.isGM) return;
    const markup = chatButtonsHtml(message);
    if (!markup) return;
    const element = asElement(html);
    if (!element) return;
    const content = element.querySelector?.(".message-content") ?? element;
    if (content.querySelector?.(".vtt-sidecar-buttons")) return;
    content.insertAdjacentHTML("beforeend", markup);
    if (element.vttSidecarButtons) return;
    element.vttSidecarButtons = true;
    element.addEventListener("click", (event) => {
      const button = event.target?.closest?.("[data-vtt-sidecar]");
      if (!button) return undefined;
      event.preventDefault?.();
      return onClick(message, button, sendGmAction).catch((error) => log.warn("card button failed", error));
    });
  });
}
