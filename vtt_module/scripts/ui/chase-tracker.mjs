/**
 * The chase tracker window (one per chase) and what opens it: a `state` message of kind
 * "chase" for a chase not seen before opens its tracker; later messages re-render an open
 * one (a GM who closed it reopens it from the scene controls). Its buttons send the chase's
 * GM actions: chase.dash_choice, chase.next_turn (chases without a combat), chase.odds,
 * chase.catch, chase.give_up, chase.split (a small dialog), chase.end, chase.state,
 * chase.sight (a quarry's toggle), and through chase-dialogs.mjs chase.factors, chase.join
 * (the selected tokens) and chase.reverse.
 */

import { STATE_HOOK } from "../constants.mjs";
import { escapeHtml } from "../util/html.mjs";
import { t } from "../util/i18n.mjs";
import { windowClass } from "./app-base.mjs";
import { factorsDialog, joinDialog, reverseDialog } from "./chase-dialogs.mjs";
import { trackerHtml } from "./chase-view.mjs";
import { formValues } from "./dom.mjs";

/**
 * @typedef {(action: string, params?: object) => string|null} GmActionSender
 */

const trackerClass = windowClass("ChaseTracker", (Base) => class ChaseTracker extends Base {
  static DEFAULT_OPTIONS = {
    classes: ["vtt-sidecar-window", "vtt-sidecar-tracker"],
    window: { title: "VTTSIDECAR.Chase.Title", resizable: true },
    position: { width: 700, height: "auto" },
    actions: {
      dash: ChaseTracker.#dash,
      nextTurn: ChaseTracker.#simple("chase.next_turn"),
      odds: ChaseTracker.#simple("chase.odds"),
      end: ChaseTracker.#simple("chase.end"),
      refresh: ChaseTracker.#simple("chase.state"),
      giveUp: ChaseTracker.#giveUp,
      catch: ChaseTracker.#catch,
      split: ChaseTracker.#split,
      sight: ChaseTracker.#sight,
      factors: ChaseTracker.#factors,
      join: ChaseTracker.#join,
      reverse: ChaseTracker.#reverse,
    },
  };

  /**
   * @param {{chaseId: string, state: import("../state.mjs").SidecarState, send: GmActionSender}} deps
   */
  constructor({ chaseId, state, send }, options = {}) {
    super({ id: `vtt-sidecar-chase-${chaseId.replace(/[^A-Za-z0-9_-]/g, "_")}`, ...options });
    this.chaseId = chaseId;
    this.store = state;
    this.sendAction = send;
  }

  get title() {
    return t("VTTSIDECAR.Chase.Title", { id: this.chaseId });
  }

  /** @returns {object} the chase state as last sent */
  get chase() {
    return this.store.get("chase", this.chaseId) ?? { id: this.chaseId, participants: [], status: "running" };
  }

  bodyHtml() {
    return trackerHtml(this.chase);
  }

  /** Send a chase action; warn when this browser is not the one talking to the sidecar. */
  send(action, params = {}) {
    const id = this.sendAction(action, { chase_id: this.chaseId, ...params });
    if (!id) ui.notifications?.warn(t("VTTSIDECAR.Notify.NotActiveGm"));
    return id;
  }

  static #simple(action) {
    return function onAction() {
      this.send(action);
    };
  }

  static #dash(_event, target) {
    this.send("chase.dash_choice", { token_id: target.dataset.participant, dash: target.dataset.dash === "true" });
  }

  static #giveUp(_event, target) {
    this.send("chase.give_up", { side: target.dataset.side === "pursuers" ? "pursuers" : "quarries" });
  }

  static #catch(_event, target) {
    this.send("chase.catch", { pursuer: target.dataset.pursuer, quarry: target.dataset.quarry });
  }

  static #sight(_event, target) {
    this.send("chase.sight", { token_id: target.dataset.participant, in_sight: target.dataset.sight === "true" });
  }

  static async #factors(_event, target) {
    const p = (this.chase.participants ?? []).find((q) => q.id === target.dataset.participant);
    if (!p) return;
    const params = await factorsDialog(p);
    if (params) this.send("chase.factors", params);
  }

  static async #join() {
    const params = await joinDialog(this.chase);
    if (params) this.send("chase.join", params);
  }

  static async #reverse() {
    const params = await reverseDialog(this.chase);
    if (params) this.send("chase.reverse", params);
  }

  static async #split() {
    const groups = await splitDialog(this.chase);
    if (groups) this.send("chase.split", { groups });
  }
});

/**
 * The split dialog: each active participant goes to group 1 or 2 (pursuers may also stay
 * out); every group needs a quarry.
 * @param {object} chase
 * @returns {Promise<Array<{quarries: string[], pursuers: string[]}>|null>}
 */
export async function splitDialog(chase) {
  const people = (chase.participants ?? []).filter((p) => (p.status ?? "active") === "active");
  const rows = people.map((p, i) => {
    const role = t(`VTTSIDECAR.Chase.Role.${p.role === "quarry" ? "quarry" : "pursuer"}`);
    const choices = [1, 2].map((g) => `<option value="${g}"${(i % 2) + 1 === g ? " selected" : ""}>${escapeHtml(t("VTTSIDECAR.Chase.Group", { n: g }))}</option>`);
    return `<div class="form-group"><label>${escapeHtml(p.name)} (${escapeHtml(role)})</label>`
      + `<select name="group.${escapeHtml(p.id)}">${choices.join("")}</select></div>`;
  });
  const result = await foundry.applications.api.DialogV2.wait({
    window: { title: t("VTTSIDECAR.Chase.Split") },
    content: `<p>${escapeHtml(t("VTTSIDECAR.Chase.SplitHint"))}</p>${rows.join("")}`,
    rejectClose: false,
    buttons: [
      { action: "split", label: t("VTTSIDECAR.Chase.Split"), default: true, callback: (_e, button) => formValues(button.form) },
      { action: "cancel", label: t("VTTSIDECAR.Dialog.Cancel") },
    ],
  });
  if (!result || typeof result !== "object") return null;
  return splitGroups(people, result);
}

/**
 * @param {object[]} people  active participants
 * @param {Record<string, string>} values  `group.<id>` -> "1" | "2"
 * @returns {Array<{quarries: string[], pursuers: string[]}>|null} null when a group has no quarry
 */
export function splitGroups(people, values) {
  const groups = [{ quarries: [], pursuers: [] }, { quarries: [], pursuers: [] }];
  for (const p of people) {
    const g = values[`group.${p.id}`] === "2" ? 1 : 0;
    groups[g][p.role === "quarry" ? "quarries" : "pursuers"].push(p.id);
  }
  if (groups.some((g) => !g.quarries.length)) {
    ui.notifications?.warn(t("VTTSIDECAR.Chase.SplitNeedsQuarry"));
    return null;
  }
  return groups;
}

/** Opens and refreshes tracker windows. */
export class ChaseTrackers {
  /**
   * @param {{state: import("../state.mjs").SidecarState, send: GmActionSender}} deps
   */
  constructor({ state, send }) {
    this.state = state;
    this.send = send;
    /** @type {Map<string, any>} chase id -> window */
    this.windows = new Map();
    this.seen = new Set();
  }

  /**
   * Listen to the module's state hook.
   * @param {{on: Function}} hooks
   */
  install(hooks) {
    hooks.on(STATE_HOOK, (kind, key, data) => {
      if (kind === "chase") this.onState(key, data);
    });
  }

  /** A chase state arrived. */
  onState(chaseId, data) {
    if (!game.user?.isGM) return;
    const first = !this.seen.has(chaseId);
    this.seen.add(chaseId);
    const open = this.windows.get(chaseId);
    if (open?.rendered) open.render();
    else if ((first && data?.status !== "ended") || data?.odds) this.open(chaseId);
  }

  /**
   * Open (or bring forward) a chase's tracker.
   * @param {string} chaseId
   * @returns {Promise<any>} the window
   */
  async open(chaseId) {
    let app = this.windows.get(chaseId);
    if (!app) {
      const Tracker = trackerClass();
      app = new Tracker({ chaseId, state: this.state, send: this.send });
      this.windows.set(chaseId, app);
    }
    await app.render({ force: true });
    return app;
  }

  /** @returns {Array<[string, object]>} the chases the sidecar told us about */
  chases() {
    return this.state.entries("chase");
  }
}
