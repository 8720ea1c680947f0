/**
 * The chase tracker's small dialogs and the params they build (sidecar/rules/chase.py):
 * escape factors of one participant (`Factors`), newcomers from the selected tokens
 * (`Join`), and turning the tables (`Reverse`). Each `...Params` function is pure.
 */

import { escapeHtml } from "../util/html.mjs";
import { t } from "../util/i18n.mjs";
import { toNumber } from "../util/numbers.mjs";
import { ESCAPE_FACTORS, selectedTokens } from "./chase-start.mjs";
import { formValues, optionsHtml } from "./dom.mjs";

/** @param {unknown} value @param {number} fallback */
const feet = (value, fallback) => Math.max(0, Math.min(100000, Math.round(toNumber(value, fallback))));

/** @param {object} p  a participant of the chase state */
const isActive = (p) => (p.status ?? "active") === "active";

/**
 * A DialogV2 with one confirm button whose result is the form's values.
 * @returns {Promise<Record<string, any>|null>}
 */
async function askForm(title, content, confirm) {
  const values = await foundry.applications.api.DialogV2.wait({
    window: { title },
    content: `<div class="vtt-sidecar-dialog">${content}</div>`,
    rejectClose: false,
    buttons: [
      { action: "ok", label: confirm, default: true, callback: (_e, button) => formValues(button.form) },
      { action: "cancel", label: t("VTTSIDECAR.Dialog.Cancel") },
    ],
  });
  return values && typeof values === "object" ? values : null;
}

// ---------------------------------------------------------------- escape factors

/**
 * `chase.factors` params: the ticked catalog factors, plus any custom factor the participant
 * already has (not in the catalog, so not in the dialog), kept as a spec.
 * @param {object} p  the participant
 * @param {Record<string, any>} values  `factor.<id>` -> boolean
 * @returns {{token_id: string, factors: Array<string|{id: string, mode: string, note: string}>}}
 */
export function factorsParams(p, values) {
  const custom = (p.factors ?? [])
    .filter((f) => f && !ESCAPE_FACTORS.includes(f.id))
    .map((f) => ({ id: String(f.id), mode: Number(f.mode) > 0 ? "advantage" : "disadvantage", note: String(f.note ?? "") }));
  return {
    token_id: p.id,
    factors: [...ESCAPE_FACTORS.filter((id) => values[`factor.${id}`] === true), ...custom],
  };
}

/**
 * @param {object} p  the participant
 * @returns {Promise<object|null>} `chase.factors` params without chase_id
 */
export async function factorsDialog(p) {
  const has = new Set((p.factors ?? []).map((f) => f?.id));
  const boxes = ESCAPE_FACTORS.map((id) => `<label class="factor"><input type="checkbox" name="factor.${id}"${has.has(id) ? " checked" : ""}> `
    + `${escapeHtml(t(`VTTSIDECAR.ChaseStart.Factor.${id}`))}</label>`).join("");
  const values = await askForm(t("VTTSIDECAR.Chase.FactorsTitle", { name: p.name }), boxes, t("VTTSIDECAR.Chase.Apply"));
  return values ? factorsParams(p, values) : null;
}

// ---------------------------------------------------------------- join

/**
 * `chase.join` params.
 * @param {object[]} tokens  TokenDocuments not in the chase
 * @param {Record<string, any>} values  `role.<tokenId>` -> quarry | pursuer | none, `distance`
 * @returns {{participants: object[]}|null} null when nobody joins
 */
export function joinParams(tokens, values) {
  const distance = feet(values.distance, 30);
  const participants = tokens
    .filter((token) => ["quarry", "pursuer"].includes(values[`role.${token.id}`]))
    .map((token) => ({ token_id: token.id, role: values[`role.${token.id}`], distance_ft: distance }));
  return participants.length ? { participants } : null;
}

/**
 * The selected tokens not yet in the chase join it.
 * @param {object} chase  the chase state
 * @returns {Promise<object|null>} `chase.join` params without chase_id
 */
export async function joinDialog(chase) {
  const inChase = new Set((chase.participants ?? []).flatMap((p) => [p.id, p.token_id]));
  const tokens = selectedTokens().filter((token) => !inChase.has(token.id));
  if (!tokens.length) {
    ui.notifications?.warn(t("VTTSIDECAR.Chase.JoinSelect"));
    return null;
  }
  const roles = [
    { value: "pursuer", label: t("VTTSIDECAR.Chase.Role.pursuer") },
    { value: "quarry", label: t("VTTSIDECAR.Chase.Role.quarry") },
    { value: "none", label: t("VTTSIDECAR.ChaseStart.NotInChase") },
  ];
  const rows = tokens.map((token) => `<div class="form-group"><label>${escapeHtml(token.name)}</label>`
    + `<select name="role.${escapeHtml(token.id)}">${optionsHtml(roles, "pursuer", escapeHtml)}</select></div>`);
  const content = `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Chase.JoinDistance"))}</label>`
    + `<input type="number" name="distance" value="30" min="0" max="10000" step="5"></div>${rows.join("")}`;
  const values = await askForm(t("VTTSIDECAR.Chase.Join"), content, t("VTTSIDECAR.Chase.Join"));
  return values ? joinParams(tokens, values) : null;
}

// ---------------------------------------------------------------- turning the tables

/**
 * `chase.reverse` params: who becomes a quarry of the new chase and who hunts them.
 * @param {object[]} people  active participants
 * @param {Record<string, any>} values  `side.<id>` -> quarry | pursuer | none, `distance`,
 *   `end_original`
 * @returns {object|null} null when a side is empty
 */
export function reverseParams(people, values) {
  const quarries = [];
  const pursuers = [];
  for (const p of people) {
    const side = values[`side.${p.id}`];
    if (side === "quarry") quarries.push(p.id);
    else if (side === "pursuer") pursuers.push({ token_id: p.id });
  }
  if (!quarries.length || !pursuers.length) return null;
  return { quarries, pursuers, distance_ft: feet(values.distance, 30), end_original: values.end_original === true };
}

/**
 * Turn the tables: by default every pursuer becomes a quarry and every quarry a pursuer.
 * @param {object} chase  the chase state
 * @returns {Promise<object|null>} `chase.reverse` params without chase_id
 */
export async function reverseDialog(chase) {
  const people = (chase.participants ?? []).filter(isActive);
  const sides = [
    { value: "quarry", label: t("VTTSIDECAR.Chase.Reverse.NewQuarry") },
    { value: "pursuer", label: t("VTTSIDECAR.Chase.Reverse.NewPursuer") },
    { value: "none", label: t("VTTSIDECAR.ChaseStart.NotInChase") },
  ];
  const rows = people.map((p) => {
    const role = t(`VTTSIDECAR.Chase.Role.${p.role === "quarry" ? "quarry" : "pursuer"}`);
    const swapped = p.role === "quarry" ? "pursuer" : "quarry";
    return `<div class="form-group"><label>${escapeHtml(p.name)} (${escapeHtml(role)})</label>`
      + `<select name="side.${escapeHtml(p.id)}">${optionsHtml(sides, swapped, escapeHtml)}</select></div>`;
  });
  const content = `<p>${escapeHtml(t("VTTSIDECAR.Chase.Reverse.Hint"))}</p>`
    + `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Chase.Reverse.Distance"))}</label>`
    + `<input type="number" name="distance" value="30" min="0" max="10000" step="5"></div>`
    + rows.join("")
    + `<label><input type="checkbox" name="end_original"> ${escapeHtml(t("VTTSIDECAR.Chase.Reverse.EndOriginal"))}</label>`;
  const values = await askForm(t("VTTSIDECAR.Chase.Reverse.Title"), content, t("VTTSIDECAR.Chase.Reverse.Title"));
  if (!values) return null;
  const params = reverseParams(people, values);
  if (!params) ui.notifications?.warn(t("VTTSIDECAR.ChaseStart.NeedBothSides"));
  return params;
}
