/**
 * Starting a chase from the tokens the GM has selected: a dialog picks each token's side
 * (quarry / pursuer / not in it), the head start, the environment's complication table, and
 * per quarry its escape factors and whether it starts in sight; then `chase.start`
 * (sidecar/rules/chase.py `ChaseStart`) goes out. Also the scene-control buttons (token
 * layer): "Start a chase" and "Chase trackers".
 */

import { escapeHtml } from "../util/html.mjs";
import { t } from "../util/i18n.mjs";
import { toNumber } from "../util/numbers.mjs";
import { foundryGeneration } from "../util/version.mjs";
import { formValues, optionsHtml } from "./dom.mjs";

/** Complication tables (content/chase/tables). */
export const ENVIRONMENTS = ["urban", "wilderness", "urban-2014", "wilderness-2014"];

/** Escape factors (content/chase/factors/escape-factors.yaml). */
export const ESCAPE_FACTORS = [
  "many_hiding_spots", "crowded", "few_hiding_spots", "open_area", "glowing", "skilled_tracker",
];

/** @returns {object[]} the selected TokenDocuments */
export function selectedTokens() {
  return (globalThis.canvas?.tokens?.controlled ?? []).map((t) => t.document ?? t).filter((d) => d?.id);
}

/**
 * The dialog's form.
 * @param {object[]} tokens
 * @param {"modern"|"legacy"} ruleset
 * @returns {string}
 */
export function chaseStartForm(tokens, ruleset = "modern") {
  const roles = [
    { value: "quarry", label: t("VTTSIDECAR.Chase.Role.quarry") },
    { value: "pursuer", label: t("VTTSIDECAR.Chase.Role.pursuer") },
    { value: "none", label: t("VTTSIDECAR.ChaseStart.NotInChase") },
  ];
  const rows = tokens.map((token, index) => {
    const factors = ESCAPE_FACTORS.map((id) => `<label class="factor"><input type="checkbox" name="factor.${escapeHtml(token.id)}.${id}"> `
      + `${escapeHtml(t(`VTTSIDECAR.ChaseStart.Factor.${id}`))}</label>`).join("");
    return `<fieldset class="participant"><legend>${escapeHtml(token.name)}</legend>`
      + `<select name="role.${escapeHtml(token.id)}">${optionsHtml(roles, index === 0 ? "quarry" : "pursuer", escapeHtml)}</select>`
      + `<label><input type="checkbox" name="sight.${escapeHtml(token.id)}" checked> ${escapeHtml(t("VTTSIDECAR.ChaseStart.InSight"))}</label>`
      + `<details><summary>${escapeHtml(t("VTTSIDECAR.ChaseStart.Factors"))}</summary>${factors}</details></fieldset>`;
  });
  const environments = ENVIRONMENTS.map((id) => ({ value: id, label: t(`VTTSIDECAR.ChaseStart.Environment.${id}`) }));
  const defaultEnv = ruleset === "legacy" ? "urban-2014" : "urban";
  return `<div class="vtt-sidecar-dialog">`
    + `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.ChaseStart.Distance"))}</label>`
    + `<input type="number" name="distance" value="60" min="0" max="10000" step="5"></div>`
    + `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.ChaseStart.EnvironmentLabel"))}</label>`
    + `<select name="environment">${optionsHtml(environments, defaultEnv, escapeHtml)}</select></div>`
    + `<p class="hint">${escapeHtml(t("VTTSIDECAR.ChaseStart.FactorsHint"))}</p>`
    + rows.join("")
    + `</div>`;
}

/**
 * `chase.start` params from the form.
 * @param {object[]} tokens
 * @param {Record<string, any>} values
 * @param {string|null} sceneId
 * @param {string|null} [combatId]
 * @returns {object|null} null when a side is empty
 */
export function chaseStartParams(tokens, values, sceneId, combatId = null) {
  const quarries = [];
  const pursuers = [];
  for (const token of tokens) {
    const role = values[`role.${token.id}`];
    if (role === "quarry") {
      quarries.push({
        token_id: token.id,
        in_sight: values[`sight.${token.id}`] !== false,
        factors: ESCAPE_FACTORS.filter((id) => values[`factor.${token.id}.${id}`] === true),
      });
    } else if (role === "pursuer") {
      pursuers.push({ token_id: token.id });
    }
  }
  if (!quarries.length || !pursuers.length) return null;
  const environment = ENVIRONMENTS.includes(values.environment) ? values.environment : "urban";
  const params = {
    scene_id: sceneId,
    quarries,
    pursuers,
    distance_ft: Math.max(0, Math.min(100000, Math.round(toNumber(values.distance, 60)))),
    environment,
  };
  if (combatId) params.combat_id = combatId;
  return params;
}

/**
 * Ask and send.
 * @param {(action: string, params?: object) => string|null} send
 * @param {() => "modern"|"legacy"} ruleset
 * @returns {Promise<string|null>} the event id
 */
export async function startChaseDialog(send, ruleset = () => "modern") {
  const tokens = selectedTokens();
  if (tokens.length < 2) {
    ui.notifications?.warn(t("VTTSIDECAR.ChaseStart.SelectTokens"));
    return null;
  }
  const values = await foundry.applications.api.DialogV2.wait({
    window: { title: t("VTTSIDECAR.ChaseStart.Title") },
    content: chaseStartForm(tokens, ruleset()),
    rejectClose: false,
    buttons: [
      { action: "start", label: t("VTTSIDECAR.ChaseStart.Start"), default: true, callback: (_e, button) => formValues(button.form) },
      { action: "cancel", label: t("VTTSIDECAR.Dialog.Cancel") },
    ],
  });
  if (!values || typeof values !== "object") return null;
  const sceneId = tokens[0].parent?.id ?? globalThis.canvas?.scene?.id ?? null;
  const combat = game.combat;
  const combatId = combat && tokens.some((tok) => [...(combat.combatants ?? [])].some((c) => c.tokenId === tok.id)) ? combat.id : null;
  const params = chaseStartParams(tokens, values, sceneId, combatId);
  if (!params) {
    ui.notifications?.warn(t("VTTSIDECAR.ChaseStart.NeedBothSides"));
    return null;
  }
  const id = send("chase.start", params);
  if (!id) ui.notifications?.warn(t("VTTSIDECAR.Notify.NotActiveGm"));
  return id;
}

/**
 * The token layer's buttons (GM only).
 * @param {{on: Function}} hooks
 * @param {{startChase: () => void, openTrackers: () => void}} handlers
 */
export function installSceneControls(hooks, { startChase, openTrackers }) {
  hooks.on("getSceneControlButtons", (controls) => {
    if (!game.user?.isGM) return;
    const tools = [
      { name: "vttSidecarChase", title: "VTTSIDECAR.ChaseStart.Title", icon: "fa-solid fa-person-running", run: startChase },
      { name: "vttSidecarTrackers", title: "VTTSIDECAR.Chase.Trackers", icon: "fa-solid fa-route", run: openTrackers },
    ];
    if (foundryGeneration() >= 13 && !Array.isArray(controls)) {
      const tokens = controls.tokens ?? controls.token;
      if (!tokens?.tools) return;
      tools.forEach((tool, i) => {
        tokens.tools[tool.name] = {
          name: tool.name, title: tool.title, icon: tool.icon, button: true, order: 90 + i,
          visible: true, onChange: () => tool.run(),
        };
      });
    } else {
      const tokens = Array.isArray(controls) ? controls.find((c) => c.name === "token") : undefined;
      if (!tokens?.tools) return;
      for (const tool of tools) {
        tokens.tools.push({ name: tool.name, title: tool.title, icon: tool.icon, button: true, visible: true, onClick: () => tool.run() });
      }
    }
  });
}
