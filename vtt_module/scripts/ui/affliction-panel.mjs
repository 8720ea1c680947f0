/**
 * The afflictions panel: one small window per actor listing its poisons, diseases and
 * madness and what comes next for each. Data: `state` kind "afflictions", key = actor id
 * (sidecar/rules/afflictions_view.py): {actor_id, name, world_time, afflictions: [{iid, kind,
 * ref, name, stage, conditions, exhaustion, dc, successes, failures, time_left_s, turns_left,
 * next: {what, at, in_s}, upcoming, secret, effect?, ...}]}. Opening it asks the sidecar for
 * a fresh view (`afflictions.list {actor_id}`).
 */

import { STATE_HOOK } from "../constants.mjs";
import { escapeHtml } from "../util/html.mjs";
import { t } from "../util/i18n.mjs";
import { windowClass } from "./app-base.mjs";

const KINDS = ["poison", "disease", "madness"];
const NEXT = ["onset", "unsuppress", "save", "laugh_end", "expire", "turn", "long_rest"];

/** Keys built at run time, for the translation test. */
export const AFFLICTION_RUNTIME_KEYS = [
  ...KINDS.map((k) => `VTTSIDECAR.Afflictions.Kind.${k}`),
  ...NEXT.map((k) => `VTTSIDECAR.Afflictions.Next.${k}`),
];

/**
 * "2 h 5 min", "45 s".
 * @param {number|null|undefined} seconds
 * @returns {string}
 */
export function duration(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(Number(seconds))) return "";
  let s = Math.max(0, Math.round(Number(seconds)));
  const days = Math.floor(s / 86400);
  s -= days * 86400;
  const hours = Math.floor(s / 3600);
  s -= hours * 3600;
  const minutes = Math.floor(s / 60);
  s -= minutes * 60;
  const parts = [];
  if (days) parts.push(t("VTTSIDECAR.Time.Days", { n: days }));
  if (hours) parts.push(t("VTTSIDECAR.Time.Hours", { n: hours }));
  if (minutes && !days) parts.push(t("VTTSIDECAR.Time.Minutes", { n: minutes }));
  if (!parts.length) parts.push(t("VTTSIDECAR.Time.Seconds", { n: s }));
  return parts.join(" ");
}

/** @param {{what?: string, in_s?: number|null}|null|undefined} next */
function nextText(next) {
  if (!next?.what) return "";
  const what = NEXT.includes(next.what) ? t(`VTTSIDECAR.Afflictions.Next.${next.what}`) : next.what;
  const when = duration(next.in_s);
  return when ? t("VTTSIDECAR.Afflictions.NextIn", { what, when }) : what;
}

/**
 * The panel's body.
 * @param {object|undefined} data  the afflictions state, or undefined while waiting for it
 * @returns {string}
 */
export function afflictionsHtml(data) {
  if (!data) return `<p class="waiting">${escapeHtml(t("VTTSIDECAR.Afflictions.Loading"))}</p>`;
  const items = Array.isArray(data.afflictions) ? data.afflictions : [];
  if (!items.length) return `<p class="none">${escapeHtml(t("VTTSIDECAR.Afflictions.None", { name: data.name ?? "" }))}</p>`;
  const rows = items.map((a) => {
    const kind = KINDS.includes(a.kind) ? a.kind : "poison";
    const facts = [];
    if (a.stage) facts.push(t("VTTSIDECAR.Afflictions.Stage", { stage: a.stage }));
    if (Array.isArray(a.conditions) && a.conditions.length) facts.push(t("VTTSIDECAR.Afflictions.Conditions", { list: a.conditions.join(", ") }));
    if (a.exhaustion) facts.push(t("VTTSIDECAR.Afflictions.Exhaustion", { n: a.exhaustion }));
    if (a.dc) facts.push(t("VTTSIDECAR.Afflictions.Dc", { dc: a.dc }));
    if (a.successes || a.failures) facts.push(t("VTTSIDECAR.Afflictions.Saves", { successes: a.successes ?? 0, failures: a.failures ?? 0 }));
    if (a.time_left_s !== null && a.time_left_s !== undefined) facts.push(t("VTTSIDECAR.Afflictions.TimeLeft", { when: duration(a.time_left_s) }));
    if (a.turns_left !== null && a.turns_left !== undefined) facts.push(t("VTTSIDECAR.Afflictions.TurnsLeft", { n: a.turns_left }));
    if (a.secret) facts.push(t("VTTSIDECAR.Afflictions.Secret"));
    const effect = a.effect ? `<div class="effect">${escapeHtml(a.effect)}</div>` : "";
    const next = nextText(a.next);
    return `<li class="affliction kind-${kind}" data-iid="${escapeHtml(a.iid ?? "")}">`
      + `<div class="head"><span class="badge">${escapeHtml(t(`VTTSIDECAR.Afflictions.Kind.${kind}`))}</span> `
      + `<b class="name">${escapeHtml(a.name ?? a.ref ?? "")}</b></div>`
      + `<div class="facts">${escapeHtml(facts.join(" · "))}</div>${effect}`
      + (next ? `<div class="next">→ ${escapeHtml(next)}</div>` : "")
      + "</li>";
  });
  return `<ul class="vtt-sidecar-afflictions">${rows.join("")}</ul>`;
}

const panelClass = windowClass("AfflictionPanel", (Base) => class AfflictionPanel extends Base {
  static DEFAULT_OPTIONS = {
    classes: ["vtt-sidecar-window", "vtt-sidecar-afflictions-panel"],
    window: { title: "VTTSIDECAR.Afflictions.Title", resizable: true },
    position: { width: 380, height: "auto" },
    actions: {
      refresh: AfflictionPanel.#refresh,
    },
  };

  constructor({ actorId, actorName, state, send }, options = {}) {
    super({ id: `vtt-sidecar-afflictions-${actorId.replace(/[^A-Za-z0-9_-]/g, "_")}`, ...options });
    this.actorId = actorId;
    this.actorName = actorName;
    this.store = state;
    this.sendAction = send;
  }

  get title() {
    return t("VTTSIDECAR.Afflictions.Title", { name: this.actorName ?? "" });
  }

  bodyHtml() {
    return afflictionsHtml(this.store.get("afflictions", this.actorId))
      + `<nav class="controls"><button type="button" data-action="refresh">${escapeHtml(t("VTTSIDECAR.Chase.Refresh"))}</button></nav>`;
  }

  static #refresh() {
    const id = this.sendAction("afflictions.list", { actor_id: this.actorId });
    if (!id) ui.notifications?.warn(t("VTTSIDECAR.Notify.NotActiveGm"));
  }
});

/** Opens panels and re-renders them when their state arrives. */
export class AfflictionPanels {
  /** @param {{state: import("../state.mjs").SidecarState, send: (action: string, params?: object) => string|null}} deps */
  constructor({ state, send }) {
    this.state = state;
    this.send = send;
    this.windows = new Map();
  }

  /** @param {{on: Function}} hooks */
  install(hooks) {
    hooks.on(STATE_HOOK, (kind, key) => {
      if (kind !== "afflictions") return;
      const open = this.windows.get(key);
      if (open?.rendered) open.render();
    });
  }

  /**
   * Open an actor's panel and ask for a fresh view.
   * @param {{id: string, name?: string}} actor
   * @returns {Promise<any>}
   */
  async open(actor) {
    let app = this.windows.get(actor.id);
    if (!app) {
      const Panel = panelClass();
      app = new Panel({ actorId: actor.id, actorName: actor.name, state: this.state, send: this.send });
      this.windows.set(actor.id, app);
    }
    this.send("afflictions.list", { actor_id: actor.id });
    await app.render({ force: true });
    return app;
  }
}
