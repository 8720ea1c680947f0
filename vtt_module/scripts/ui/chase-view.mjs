/**
 * The chase tracker's picture and panels, as HTML built from the sidecar's chase state
 * (sidecar/rules/chase_engine.py `state_data`):
 *   {id, status, end_reason, round, table, combat_id, leader, distances: {quarryId: ft},
 *    next, participants: [{id, name, role, token_id, position_ft, speed, free_dashes,
 *    dashes_left, dash_next, exhaustion, status, acted, in_sight, prone, ...}],
 *    offers: [{pursuer, quarry, round}], log: [{round, roller, target, roll, text}],
 *    odds?: {quarryId: {name, escape: {"1","3","10"}, caught: {"1","3","10"}}}}
 *
 * The route is an SVG: one lane per participant in initiative order, each a marker at its
 * position along a shared feet axis (quarries red, pursuers blue, the leader ringed in gold),
 * the gap from the leader to each quarry drawn and written on the quarry's lane, and pips for
 * dashes left and exhaustion. Pure functions: no Foundry, no DOM.
 */

import { escapeHtml } from "../util/html.mjs";
import { t } from "../util/i18n.mjs";

export const TRACK = Object.freeze({ width: 640, left: 24, right: 112, axis: 30, lane: 40 });

const COLORS = { quarry: "#c0392b", pursuer: "#1f5fa8", out: "#8a8a8a", leader: "#e0a800" };

/** @param {unknown} v */
const num = (v) => (Number.isFinite(Number(v)) ? Number(v) : 0);

/**
 * A tick step giving at most ~8 ticks over the span.
 * @param {number} span  feet
 * @returns {number}
 */
function tickStep(span) {
  for (const step of [5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000]) {
    if (span / step <= 8) return step;
  }
  return 10000;
}

/**
 * Where everything goes: the feet range shown and each participant's marker.
 * @param {object} state
 * @returns {{min: number, max: number, step: number, height: number, xOf: (ft: number) => number,
 *   markers: Array<{id: string, name: string, role: string, x: number, y: number, ft: number,
 *   active: boolean, leader: boolean, next: boolean, p: object}>}}
 */
export function trackLayout(state) {
  const people = Array.isArray(state?.participants) ? state.participants : [];
  const positions = people.map((p) => num(p.position_ft));
  let min = Math.min(0, ...positions);
  let max = Math.max(30, ...positions);
  const step = tickStep(max - min);
  min = Math.floor(min / step) * step;
  max = Math.ceil(max / step) * step;
  if (max === min) max = min + step;
  const inner = TRACK.width - TRACK.left - TRACK.right;
  const xOf = (ft) => TRACK.left + ((ft - min) / (max - min)) * inner;
  const markers = people.map((p, index) => ({
    id: String(p.id),
    name: String(p.name ?? p.id),
    role: p.role === "quarry" ? "quarry" : "pursuer",
    ft: num(p.position_ft),
    x: xOf(num(p.position_ft)),
    y: TRACK.axis + index * TRACK.lane + TRACK.lane / 2,
    active: (p.status ?? "active") === "active",
    leader: p.id === state.leader,
    next: p.id === state.next,
    p,
  }));
  const height = TRACK.axis + Math.max(1, people.length) * TRACK.lane + 8;
  return { min, max, step, height, xOf, markers };
}

/**
 * Small pips: `filled` solid, up to `total`.
 * @returns {string} SVG
 */
function pips(x, y, filled, total, color, title) {
  let out = `<g class="pips"><title>${escapeHtml(title)}</title>`;
  for (let i = 0; i < total; i += 1) {
    const on = i < filled;
    out += `<rect x="${x + i * 8}" y="${y}" width="6" height="6" rx="1" fill="${on ? color : "none"}" stroke="${color}" stroke-width="1"/>`;
  }
  return `${out}</g>`;
}

/**
 * The route picture.
 * @param {object} state
 * @returns {string} an `<svg>` element
 */
export function trackSvg(state) {
  const layout = trackLayout(state);
  const { width } = TRACK;
  const parts = [];
  // Axis: the road, with feet ticks.
  const y0 = TRACK.axis - 10;
  parts.push(`<line x1="${layout.xOf(layout.min)}" y1="${y0}" x2="${layout.xOf(layout.max)}" y2="${y0}" stroke="#555" stroke-width="2"/>`);
  for (let ft = layout.min; ft <= layout.max; ft += layout.step) {
    const x = layout.xOf(ft).toFixed(1);
    parts.push(`<line x1="${x}" y1="${y0 - 4}" x2="${x}" y2="${layout.height - 6}" stroke="#0002"/>`);
    parts.push(`<text x="${x}" y="${y0 - 7}" font-size="10" text-anchor="middle" fill="#444">${ft} ${escapeHtml(t("VTTSIDECAR.Chase.Ft"))}</text>`);
  }
  const leader = layout.markers.find((m) => m.leader);
  for (const m of layout.markers) {
    const top = m.y - TRACK.lane / 2;
    const x = m.x.toFixed(1);
    const color = m.active ? COLORS[m.role] : COLORS.out;
    parts.push(`<g class="lane lane-${m.role}${m.next ? " lane-next" : ""}" data-participant="${escapeHtml(m.id)}">`);
    if (m.next) parts.push(`<rect x="0" y="${top + 1}" width="${width}" height="${TRACK.lane - 2}" fill="#fff3b0" opacity="0.7"/>`);
    parts.push(`<line x1="${TRACK.left}" y1="${m.y}" x2="${width - TRACK.right}" y2="${m.y}" stroke="#0001" stroke-dasharray="2 4"/>`);
    // The gap the quarry keeps from the leading pursuer.
    const gap = state.distances?.[m.id];
    if (m.role === "quarry" && leader && gap !== undefined && m.active) {
      const lx = leader.x.toFixed(1);
      parts.push(`<line class="gap" x1="${lx}" y1="${m.y}" x2="${x}" y2="${m.y}" stroke="${COLORS.quarry}" stroke-width="2" stroke-dasharray="5 3"/>`);
      parts.push(`<line x1="${lx}" y1="${m.y - 5}" x2="${lx}" y2="${m.y + 5}" stroke="${COLORS.quarry}" stroke-width="2"/>`);
      parts.push(`<text class="gap-label" x="${((leader.x + m.x) / 2).toFixed(1)}" y="${m.y - 5}" font-size="12" font-weight="bold" text-anchor="middle" fill="${COLORS.quarry}">${num(gap)} ${escapeHtml(t("VTTSIDECAR.Chase.Ft"))}</text>`);
    }
    // The marker itself.
    if (m.leader) parts.push(`<circle cx="${x}" cy="${m.y}" r="13" fill="none" stroke="${COLORS.leader}" stroke-width="3"/>`);
    parts.push(`<circle class="marker marker-${m.role}" data-position="${m.ft}" cx="${x}" cy="${m.y}" r="9" fill="${color}" stroke="#222" stroke-width="1"${m.active ? "" : " opacity=\"0.6\""}>`
      + `<title>${escapeHtml(m.name)}: ${m.ft} ${escapeHtml(t("VTTSIDECAR.Chase.Ft"))}</title></circle>`);
    parts.push(`<text x="${x}" y="${m.y + 4}" font-size="10" font-weight="bold" text-anchor="middle" fill="#fff">${escapeHtml(m.role === "quarry" ? "Q" : "P")}</text>`);
    // Name, then pips, to the right of the marker.
    const labelX = (m.x + 16).toFixed(1);
    const status = m.active ? "" : ` (${t(`VTTSIDECAR.Chase.Status.${statusKey(m.p.status)}`)})`;
    const crown = m.leader ? " ★" : "";
    parts.push(`<text class="name" x="${labelX}" y="${m.y - 3}" font-size="12" fill="#111"${m.active ? "" : " fill-opacity=\"0.6\""}>${escapeHtml(m.name)}${escapeHtml(crown)}${escapeHtml(status)}</text>`);
    const free = Math.max(0, Math.min(12, num(m.p.free_dashes)));
    const left = Math.max(0, Math.min(free, num(m.p.dashes_left)));
    parts.push(pips(m.x + 16, m.y + 3, left, free, "#2e7d32", t("VTTSIDECAR.Chase.DashesLeft", { left, free })));
    const exhaustion = Math.max(0, Math.min(6, num(m.p.exhaustion)));
    if (exhaustion > 0) {
      parts.push(pips(m.x + 20 + free * 8, m.y + 3, exhaustion, 6, "#6d1b1b", t("VTTSIDECAR.Chase.ExhaustionPips", { level: exhaustion })));
    }
    parts.push("</g>");
  }
  return `<svg class="vtt-sidecar-track" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${layout.height}" viewBox="0 0 ${width} ${layout.height}" role="img" aria-label="${escapeHtml(t("VTTSIDECAR.Chase.Route"))}">${parts.join("")}</svg>`;
}

const STATUSES = new Set(["active", "caught", "escaped", "out", "gave_up", "left"]);

/** @param {unknown} status */
function statusKey(status) {
  return STATUSES.has(status) ? status : "active";
}

/**
 * A button that runs a tracker action.
 * @param {string} action  the window's action name
 * @param {string} label
 * @param {Record<string, string>} [data]
 * @returns {string}
 */
function button(action, label, data = {}, { disabled = false, cls = "" } = {}) {
  const attrs = Object.entries(data).map(([k, v]) => ` data-${k}="${escapeHtml(v)}"`).join("");
  return `<button type="button" class="${cls}" data-action="${action}"${attrs}${disabled ? " disabled" : ""}>${escapeHtml(label)}</button>`;
}

/** @param {object} state */
function participantRows(state) {
  const running = state.status === "running";
  const rows = (state.participants ?? []).map((p) => {
    const active = (p.status ?? "active") === "active";
    const dash = p.dash_next !== false;
    const dashButton = running && active
      ? button("dash", dash ? t("VTTSIDECAR.Chase.Dash") : t("VTTSIDECAR.Chase.NoDash"),
        { participant: p.id, dash: dash ? "false" : "true" },
        { cls: dash ? "dash-on" : "dash-off" })
      : "";
    const quarryButtons = running && active && p.role === "quarry"
      ? button("sight", p.in_sight === false ? t("VTTSIDECAR.Chase.SetInSight") : t("VTTSIDECAR.Chase.SetOutOfSight"),
        { participant: p.id, sight: p.in_sight === false ? "true" : "false" }, { cls: "sight" })
        + button("factors", t("VTTSIDECAR.Chase.FactorsButton", { n: Array.isArray(p.factors) ? p.factors.length : 0 }),
          { participant: p.id }, { cls: "factors" })
      : "";
    const gap = state.distances?.[p.id];
    const sight = p.role === "quarry" && p.in_sight !== null && p.in_sight !== undefined
      ? (p.in_sight ? t("VTTSIDECAR.Chase.InSight") : t("VTTSIDECAR.Chase.OutOfSight")) : "";
    return `<tr class="row-${p.role === "quarry" ? "quarry" : "pursuer"}${p.id === state.next ? " row-next" : ""}" data-participant="${escapeHtml(p.id)}">`
      + `<td class="name">${escapeHtml(p.name)}${p.id === state.leader ? " ★" : ""}</td>`
      + `<td>${escapeHtml(t(`VTTSIDECAR.Chase.Role.${p.role === "quarry" ? "quarry" : "pursuer"}`))}</td>`
      + `<td class="position">${num(p.position_ft)} ${escapeHtml(t("VTTSIDECAR.Chase.Ft"))}</td>`
      + `<td class="gap">${gap === undefined ? "" : `${num(gap)} ${escapeHtml(t("VTTSIDECAR.Chase.Ft"))}`}</td>`
      + `<td>${num(p.dashes_left)}/${num(p.free_dashes)}</td>`
      + `<td>${p.exhaustion === null || p.exhaustion === undefined ? "–" : num(p.exhaustion)}</td>`
      + `<td>${escapeHtml(t(`VTTSIDECAR.Chase.Status.${statusKey(p.status)}`))}${p.prone ? `, ${escapeHtml(t("VTTSIDECAR.Chase.Prone"))}` : ""}${sight ? `, ${escapeHtml(sight)}` : ""}</td>`
      + `<td>${dashButton}</td><td class="escape">${quarryButtons}</td></tr>`;
  });
  const head = ["Name", "Role", "Position", "Gap", "Dashes", "Exhaustion", "Status", "NextTurn", "Escape"]
    .map((k) => `<th>${escapeHtml(t(`VTTSIDECAR.Chase.Column.${k}`))}</th>`).join("");
  return `<table class="participants"><thead><tr>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/** @param {object} state */
function offersHtml(state, names) {
  if (state.status !== "running" || !Array.isArray(state.offers) || !state.offers.length) return "";
  const items = state.offers.map((o) => `<li>${escapeHtml(t("VTTSIDECAR.Chase.Offer", { pursuer: names(o.pursuer), quarry: names(o.quarry) }))} `
    + `${button("catch", t("VTTSIDECAR.Chase.Catch"), { pursuer: o.pursuer, quarry: o.quarry })}</li>`);
  return `<ul class="offers">${items.join("")}</ul>`;
}

/** Escape odds as bars: escaping within 1 / 3 / 10 rounds, and caught within 10. */
export function oddsHtml(state) {
  const odds = state.odds;
  if (!odds || typeof odds !== "object") return "";
  const bar = (label, value, cls) => {
    const pct = Math.max(0, Math.min(100, 100 * num(value)));
    return `<div class="odds-row ${cls}"><span class="odds-label">${escapeHtml(label)}</span>`
      + `<span class="odds-bar"><span class="odds-fill" style="width:${pct.toFixed(1)}%"></span></span>`
      + `<span class="odds-value">${pct.toFixed(1)}%</span></div>`;
  };
  const blocks = Object.entries(odds).map(([id, row]) => {
    const name = row?.name ?? id;
    return `<div class="odds-quarry" data-participant="${escapeHtml(id)}"><div class="odds-name">${escapeHtml(name)}</div>`
      + bar(t("VTTSIDECAR.Chase.Odds.Escape", { rounds: 1 }), row?.escape?.["1"], "escape")
      + bar(t("VTTSIDECAR.Chase.Odds.Escape", { rounds: 3 }), row?.escape?.["3"], "escape")
      + bar(t("VTTSIDECAR.Chase.Odds.Escape", { rounds: 10 }), row?.escape?.["10"], "escape")
      + bar(t("VTTSIDECAR.Chase.Odds.Caught", { rounds: 10 }), row?.caught?.["10"], "caught")
      + "</div>";
  });
  return `<section class="odds"><h3>${escapeHtml(t("VTTSIDECAR.Chase.Odds.Title"))}</h3>${blocks.join("")}</section>`;
}

/** The complication log, newest first. */
function logHtml(state, names) {
  const log = Array.isArray(state.log) ? state.log.slice(-12).reverse() : [];
  if (!log.length) return `<p class="log-empty">${escapeHtml(t("VTTSIDECAR.Chase.NoComplications"))}</p>`;
  const items = log.map((e) => {
    const who = e.target ? `${names(e.roller)} → ${names(e.target)}` : names(e.roller);
    return `<li><span class="log-round">${escapeHtml(t("VTTSIDECAR.Chase.RoundShort", { round: num(e.round) }))}</span> `
      + `<b>${escapeHtml(who)}</b> (${num(e.roll)}): ${escapeHtml(e.text ?? "")}</li>`;
  });
  return `<ol class="log">${items.join("")}</ol>`;
}

/**
 * The whole tracker body.
 * @param {object} state
 * @returns {string}
 */
export function trackerHtml(state) {
  const people = new Map((state.participants ?? []).map((p) => [p.id, p.name]));
  const names = (id) => people.get(id) ?? String(id ?? "");
  const running = state.status === "running";
  const nextName = state.next ? names(state.next) : "";
  const summary = running
    ? t("VTTSIDECAR.Chase.Summary", { round: num(state.round), next: nextName || "–" })
    : t("VTTSIDECAR.Chase.Ended", { reason: t(`VTTSIDECAR.Chase.EndReason.${endKey(state.end_reason)}`) });
  const controls = running ? [
    state.combat_id ? "" : button("nextTurn", t("VTTSIDECAR.Chase.NextTurn"), {}, { cls: "primary" }),
    button("odds", t("VTTSIDECAR.Chase.OddsButton")),
    button("giveUp", t("VTTSIDECAR.Chase.QuarriesGiveUp"), { side: "quarries" }),
    button("giveUp", t("VTTSIDECAR.Chase.PursuersGiveUp"), { side: "pursuers" }),
    button("join", t("VTTSIDECAR.Chase.Join")),
    button("reverse", t("VTTSIDECAR.Chase.Reverse.Title")),
    button("split", t("VTTSIDECAR.Chase.Split")),
    button("end", t("VTTSIDECAR.Chase.End")),
  ].join("") : button("refresh", t("VTTSIDECAR.Chase.Refresh"));
  return `<div class="vtt-sidecar-chase" data-chase="${escapeHtml(state.id)}">`
    + `<p class="summary${running ? "" : " ended"}">${escapeHtml(summary)}</p>`
    + `<div class="legend"><span class="key quarry"></span>${escapeHtml(t("VTTSIDECAR.Chase.Role.quarry"))}`
    + ` <span class="key pursuer"></span>${escapeHtml(t("VTTSIDECAR.Chase.Role.pursuer"))}`
    + ` <span class="key leader"></span>${escapeHtml(t("VTTSIDECAR.Chase.Leader"))}`
    + ` <span class="key dash"></span>${escapeHtml(t("VTTSIDECAR.Chase.DashPip"))}`
    + ` <span class="key exhaustion"></span>${escapeHtml(t("VTTSIDECAR.Chase.ExhaustionPip"))}</div>`
    + trackSvg(state)
    + offersHtml(state, names)
    + `<nav class="controls">${controls}</nav>`
    + participantRows(state)
    + oddsHtml(state)
    + `<h3>${escapeHtml(t("VTTSIDECAR.Chase.Log"))}</h3>${logHtml(state, names)}`
    + "</div>";
}

const END_REASONS = new Set([
  "quarries_gave_up", "pursuers_gave_up", "all_escaped", "all_caught", "pursuers_out", "quarries_gone", "gm_ended", "split",
]);

/** @param {unknown} reason */
function endKey(reason) {
  return END_REASONS.has(reason) ? reason : "gm_ended";
}

/** Keys built at run time, for the translation test. */
export const CHASE_RUNTIME_KEYS = [
  ...[...STATUSES].map((s) => `VTTSIDECAR.Chase.Status.${s}`),
  ...[...END_REASONS].map((r) => `VTTSIDECAR.Chase.EndReason.${r}`),
  ...["Name", "Role", "Position", "Gap", "Dashes", "Exhaustion", "Status", "NextTurn", "Escape"].map((k) => `VTTSIDECAR.Chase.Column.${k}`),
  "VTTSIDECAR.Chase.Role.quarry",
  "VTTSIDECAR.Chase.Role.pursuer",
];
