/**
 * The GM's view of the connection: a small badge in the corner (connected / connecting /
 * reconnecting / refused, with the reason as its tooltip; a click connects again now), and
 * a notification when the sidecar refuses us, since that needs the GM to act.
 */

import { t } from "./util/i18n.mjs";

const ELEMENT_ID = "vtt-sidecar-status";

/**
 * A reason is either one of our i18n keys or the sidecar's own (already localised) text.
 * @param {string|null} reason
 * @returns {string}
 */
export function reasonText(reason) {
  if (!reason) return "";
  return reason.startsWith("VTTSIDECAR.") ? t(reason) : reason;
}

/**
 * The badge's text and tooltip for a status.
 * @param {import("./connection.mjs").ConnectionStatus} status
 * @returns {{label: string, detail: string}}
 */
export function describeStatus(status) {
  const label = t(`VTTSIDECAR.Status.State.${status.state}`);
  const parts = [reasonText(status.reason)];
  if (status.state === "reconnecting" && Number.isFinite(status.retryInMs)) {
    parts.push(t("VTTSIDECAR.Status.RetryIn", { seconds: Math.ceil(status.retryInMs / 1000) }));
  }
  if (status.upgraded) parts.push(t("VTTSIDECAR.Status.Upgraded"));
  if (status.state !== "connected" && status.state !== "stopped") parts.push(t("VTTSIDECAR.Status.ClickToRetry"));
  return { label, detail: parts.filter(Boolean).join(" — ") };
}

export class StatusIndicator {
  /**
   * @param {Document|null} [doc]
   * @param {() => void} [onRetry]  a click on the badge: connect again now
   */
  constructor(doc = globalThis.document ?? null, onRetry = () => {}) {
    this.document = doc;
    this.onRetry = onRetry;
    this.lastRefusal = null;
  }

  /** @param {import("./connection.mjs").ConnectionStatus} status */
  show(status) {
    const { label, detail } = describeStatus(status);
    const element = this.#element();
    if (element) {
      element.className = `vtt-sidecar-status state-${status.state}`;
      element.textContent = `${t("VTTSIDECAR.Status.Prefix")}: ${label}`;
      element.title = detail;
      element.hidden = status.state === "stopped";
    }
    if (status.state === "refused" && status.reason !== this.lastRefusal) {
      ui.notifications?.error(t("VTTSIDECAR.Notify.Refused", { reason: reasonText(status.reason) }));
    }
    this.lastRefusal = status.state === "refused" ? status.reason : null;
  }

  /** Remove the badge (this browser stopped being the active GM). */
  remove() {
    this.document?.getElementById(ELEMENT_ID)?.remove();
  }

  #element() {
    if (!this.document?.body) return null;
    let element = this.document.getElementById(ELEMENT_ID);
    if (!element) {
      element = this.document.createElement("div");
      element.id = ELEMENT_ID;
      element.setAttribute("role", "status");
      element.addEventListener("click", () => this.onRetry());
      this.document.body.appendChild(element);
    }
    return element;
  }
}
