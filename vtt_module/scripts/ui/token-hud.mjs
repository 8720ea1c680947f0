/**
 * The GM's sidecar button on the token HUD. It opens a small menu of actions for that token:
 *   search for traps      trap.search {scene_id, token_id}
 *   investigate           trap.investigate {scene_id, token_id}
 *   disarm                trap.disarm {scene_id, region_id, token_id, tool, bonus} (pick a trap)
 *   administer poison     poison.administer {scene_id, token_id, poison, partial, secret}
 *   expose to disease     disease.expose {scene_id, token_ids, disease, save}
 *   inflict madness       madness.inflict {scene_id, token_id, kind?}
 *   coat a weapon         poison.coat {scene_id, token_id, actor_id, item_id, poison, doses}
 *                         (and remembers the item as coated: its hits become `weapon.hit`)
 *   interact with a trap  event `interaction` {scene_id, token_id, target_id: region, kind}
 *   touch / open object   event `interaction` {scene_id, token_id, target_id: typed id, kind: "touch"}
 *                         (a contact poison smeared on an object with poison.smear)
 *   afflictions panel     (the panel sends afflictions.list)
 * Each dialog is a DialogV2 with a few fields. Poison / disease / madness ids come from the
 * sidecar's catalog state when it sent one (`state` kind "catalog", keys "poisons",
 * "diseases"), else are typed in (with the bundled ids as suggestions).
 */

import { escapeHtml } from "../util/html.mjs";
import { t } from "../util/i18n.mjs";
import { toNumber } from "../util/numbers.mjs";
import { trapBehavior } from "../regions/region-data.mjs";
import { asElement, formValues, optionsHtml } from "./dom.mjs";

/** Ids of the bundled content, used as suggestions when no catalog came. */
const BUNDLED = {
  poisons: [
    "assassins_blood", "burnt_othur_fumes", "crawler_mucus", "drow_poison", "essence_of_ether", "malice",
    "midnight_tears", "oil_of_taggit", "pale_tincture", "purple_worm_poison", "serpent_venom", "torpor",
    "truth_serum", "wyvern_poison",
  ],
  diseases: ["cackle_fever", "sewer_plague", "sight_rot"],
};

export const HUD_ACTIONS = [
  "search", "investigate", "disarm", "interact", "touch", "poison", "disease", "madness", "coat", "afflictions",
];

/** What a token can do to a trapped object from the HUD (protocol `interaction` kinds). */
export const INTERACTION_KINDS = ["open", "pick_lock_failed", "touch", "knock_over"];

/**
 * @param {import("../state.mjs").SidecarState} state
 * @param {"poisons"|"diseases"} kind
 * @returns {Array<{id: string, name: string}>}
 */
export function catalogEntries(state, kind) {
  const entries = state.get("catalog", kind)?.entries;
  if (Array.isArray(entries)) {
    return entries.filter((e) => typeof e?.id === "string").map((e) => ({ id: e.id, name: typeof e.name === "string" ? e.name : e.id }));
  }
  return [];
}

/**
 * A select when the sidecar sent a catalog, else a text input with suggestions.
 * @returns {string}
 */
function idField(name, label, entries, fallbackIds) {
  const field = entries.length
    ? `<select name="${name}">${optionsHtml(entries.map((e) => ({ value: e.id, label: e.name })), entries[0].id, escapeHtml)}</select>`
    : `<input type="text" name="${name}" list="vtt-sidecar-${name}-ids" required>`
      + `<datalist id="vtt-sidecar-${name}-ids">${fallbackIds.map((id) => `<option value="${escapeHtml(id)}">`).join("")}</datalist>`;
  return `<div class="form-group"><label>${escapeHtml(label)}</label>${field}</div>`;
}

/**
 * Trap regions of the token's scene, nearest first (centre to centre), with their distance.
 * @param {object} token
 * @returns {Array<{id: string, name: string, distanceFt: number}>}
 */
export function nearbyTraps(token) {
  const scene = token.parent;
  const grid = scene?.grid ?? {};
  const size = toNumber(grid.size, 100) || 100;
  const feet = toNumber(grid.distance, 5) || 5;
  const cx = toNumber(token.x) + (toNumber(token.width, 1) * size) / 2;
  const cy = toNumber(token.y) + (toNumber(token.height, 1) * size) / 2;
  const found = [];
  for (const region of scene?.regions ?? []) {
    if (!trapBehavior(region)) continue;
    const centre = regionCentre(region);
    const distanceFt = centre ? Math.round((Math.hypot(centre.x - cx, centre.y - cy) / size) * feet) : Infinity;
    found.push({ id: region.id, name: region.name || region.id, distanceFt });
  }
  return found.sort((a, b) => a.distanceFt - b.distanceFt);
}

/**
 * Trap choices for a select: name and distance.
 * @param {Array<{id: string, name: string, distanceFt: number}>} traps
 */
function trapOptions(traps) {
  return traps.map((r) => ({
    value: r.id,
    label: Number.isFinite(r.distanceFt) ? `${r.name} (${r.distanceFt} ${t("VTTSIDECAR.Chase.Ft")})` : r.name,
  }));
}

/** @param {object} region */
function regionCentre(region) {
  const points = [];
  for (const s of region.shapes ?? []) {
    if (s.hole) continue;
    if (s.type === "rectangle") points.push([s.x + s.width / 2, s.y + s.height / 2]);
    else if (s.type === "circle" || s.type === "ellipse") points.push([s.x, s.y]);
    else if (s.type === "polygon" && s.points?.length >= 2) {
      const xs = s.points.filter((_, i) => i % 2 === 0);
      const ys = s.points.filter((_, i) => i % 2 === 1);
      points.push([xs.reduce((a, b) => a + b, 0) / xs.length, ys.reduce((a, b) => a + b, 0) / ys.length]);
    }
  }
  if (!points.length) return null;
  return { x: points.reduce((a, p) => a + p[0], 0) / points.length, y: points.reduce((a, p) => a + p[1], 0) / points.length };
}

/**
 * Ask with a small form; resolves with the form values or null.
 * @param {string} title
 * @param {string} content
 * @param {string} okLabel
 * @returns {Promise<Record<string, any>|null>}
 */
async function ask(title, content, okLabel) {
  const values = await foundry.applications.api.DialogV2.wait({
    window: { title },
    content: `<div class="vtt-sidecar-dialog">${content}</div>`,
    rejectClose: false,
    buttons: [
      { action: "ok", label: okLabel, default: true, callback: (_e, button) => formValues(button.form) },
      { action: "cancel", label: t("VTTSIDECAR.Dialog.Cancel") },
    ],
  });
  return values && typeof values === "object" ? values : null;
}

/** The token's weapons (dnd5e items of type "weapon"). */
function weapons(actor) {
  return [...(actor?.items ?? [])].filter((i) => i.type === "weapon").map((i) => ({ value: i.id, label: i.name }));
}

/**
 * What each menu entry does. Each returns the params sent (or null when cancelled).
 * @param {object} deps
 * @param {(action: string, params?: object) => string|null} deps.send
 * @param {(event: object) => string|null} [deps.sendEvent]  a plain protocol event
 * @param {import("../state.mjs").SidecarState} deps.state
 * @param {{open: (actor: object) => Promise<any>}} deps.panels
 * @param {import("../coated-items.mjs").CoatedItems} [deps.coated]
 */
export function hudActions({ send, sendEvent = () => null, state, panels, coated }) {
  const go = (action, params) => {
    const id = send(action, params);
    if (!id) ui.notifications?.warn(t("VTTSIDECAR.Notify.NotActiveGm"));
    return id ? params : null;
  };
  const interaction = (token, targetId, kind) => {
    const event = { type: "interaction", scene_id: token.parent?.id ?? null, token_id: token.id, target_id: targetId, kind };
    const id = sendEvent(event);
    if (!id) ui.notifications?.warn(t("VTTSIDECAR.Notify.NotActiveGm"));
    return id ? event : null;
  };
  const base = (token) => ({ scene_id: token.parent?.id ?? null, token_id: token.id });
  return {
    search: async (token) => go("trap.search", base(token)),
    investigate: async (token) => go("trap.investigate", base(token)),

    async disarm(token) {
      const traps = nearbyTraps(token);
      if (!traps.length) {
        ui.notifications?.warn(t("VTTSIDECAR.Hud.NoTraps"));
        return null;
      }
      const tools = ["thieves_tools", "edged", "none"].map((v) => ({ value: v, label: t(`VTTSIDECAR.Hud.Tool.${v}`) }));
      const values = await ask(t("VTTSIDECAR.Hud.Disarm"),
        `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Hud.Trap"))}</label><select name="region">${optionsHtml(trapOptions(traps), traps[0].id, escapeHtml)}</select></div>`
        + `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Hud.ToolLabel"))}</label><select name="tool">${optionsHtml(tools, "thieves_tools", escapeHtml)}</select></div>`
        + `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Hud.Bonus"))}</label><input type="number" name="bonus" value="0" min="-20" max="30"></div>`,
        t("VTTSIDECAR.Hud.Disarm"));
      if (!values) return null;
      const tool = ["thieves_tools", "edged", "none"].includes(values.tool) ? values.tool : "thieves_tools";
      return go("trap.disarm", {
        ...base(token),
        region_id: traps.some((r) => r.id === values.region) ? values.region : traps[0].id,
        tool,
        bonus: Math.max(-20, Math.min(30, Math.round(toNumber(values.bonus)))),
      });
    },

    async interact(token) {
      const traps = nearbyTraps(token);
      if (!traps.length) {
        ui.notifications?.warn(t("VTTSIDECAR.Hud.NoTraps"));
        return null;
      }
      const kinds = INTERACTION_KINDS.map((v) => ({ value: v, label: t(`VTTSIDECAR.Hud.Kind.${v}`) }));
      const values = await ask(t("VTTSIDECAR.Hud.Interact"),
        `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Hud.Trap"))}</label><select name="region">${optionsHtml(trapOptions(traps), traps[0].id, escapeHtml)}</select></div>`
        + `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Hud.KindLabel"))}</label><select name="kind">${optionsHtml(kinds, "open", escapeHtml)}</select></div>`,
        t("VTTSIDECAR.Hud.Interact"));
      if (!values) return null;
      const region = traps.some((r) => r.id === values.region) ? values.region : traps[0].id;
      return interaction(token, region, INTERACTION_KINDS.includes(values.kind) ? values.kind : "open");
    },

    async touch(token) {
      const values = await ask(t("VTTSIDECAR.Hud.Touch"),
        `<p>${escapeHtml(t("VTTSIDECAR.Hud.TouchHint"))}</p>`
        + `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Hud.ObjectId"))}</label><input type="text" name="target" required maxlength="128"></div>`,
        t("VTTSIDECAR.Hud.Touch"));
      const target = String(values?.target ?? "").trim();
      if (!values || !target) return null;
      return interaction(token, target, "touch");
    },

    async poison(token) {
      const partials = ["none", "advantage", "half_damage"].map((v) => ({ value: v, label: t(`VTTSIDECAR.Hud.Partial.${v}`) }));
      const values = await ask(t("VTTSIDECAR.Hud.Poison"),
        idField("poison", t("VTTSIDECAR.Hud.PoisonId"), catalogEntries(state, "poisons"), BUNDLED.poisons)
        + `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Hud.PartialLabel"))}</label><select name="partial">${optionsHtml(partials, "none", escapeHtml)}</select></div>`
        + `<label><input type="checkbox" name="secret" checked> ${escapeHtml(t("VTTSIDECAR.Hud.Secret"))}</label>`,
        t("VTTSIDECAR.Hud.Poison"));
      const poison = String(values?.poison ?? "").trim();
      if (!values || !poison) return null;
      const partial = ["none", "advantage", "half_damage"].includes(values.partial) ? values.partial : "none";
      return go("poison.administer", { ...base(token), poison, partial, secret: values.secret !== false });
    },

    async disease(token) {
      const values = await ask(t("VTTSIDECAR.Hud.Disease"),
        idField("disease", t("VTTSIDECAR.Hud.DiseaseId"), catalogEntries(state, "diseases"), BUNDLED.diseases)
        + `<label><input type="checkbox" name="save" checked> ${escapeHtml(t("VTTSIDECAR.Hud.AllowSave"))}</label>`,
        t("VTTSIDECAR.Hud.Disease"));
      const disease = String(values?.disease ?? "").trim();
      if (!values || !disease) return null;
      return go("disease.expose", { scene_id: token.parent?.id ?? null, token_ids: [token.id], disease, save: values.save !== false });
    },

    async madness(token) {
      const kinds = ["random", "short", "long", "indefinite"].map((v) => ({ value: v, label: t(`VTTSIDECAR.Hud.Madness.${v}`) }));
      const values = await ask(t("VTTSIDECAR.Hud.MadnessTitle"),
        `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Hud.MadnessKind"))}</label><select name="kind">${optionsHtml(kinds, "short", escapeHtml)}</select></div>`,
        t("VTTSIDECAR.Hud.MadnessTitle"));
      if (!values) return null;
      const params = base(token);
      if (["short", "long", "indefinite"].includes(values.kind)) params.kind = values.kind;
      return go("madness.inflict", params);
    },

    async coat(token) {
      const items = weapons(token.actor);
      if (!items.length) {
        ui.notifications?.warn(t("VTTSIDECAR.Hud.NoWeapons"));
        return null;
      }
      const values = await ask(t("VTTSIDECAR.Hud.Coat"),
        `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Hud.Weapon"))}</label><select name="item">${optionsHtml(items, items[0].value, escapeHtml)}</select></div>`
        + idField("poison", t("VTTSIDECAR.Hud.PoisonId"), catalogEntries(state, "poisons"), BUNDLED.poisons)
        + `<div class="form-group"><label>${escapeHtml(t("VTTSIDECAR.Hud.Doses"))}</label><input type="number" name="doses" value="1" min="1" max="100"></div>`,
        t("VTTSIDECAR.Hud.Coat"));
      const poison = String(values?.poison ?? "").trim();
      if (!values || !poison) return null;
      const sent = go("poison.coat", {
        ...base(token),
        actor_id: token.actor?.id ?? token.actorId ?? null,
        item_id: items.some((i) => i.value === values.item) ? values.item : items[0].value,
        poison,
        doses: Math.max(1, Math.min(100, Math.round(toNumber(values.doses, 1)))),
      });
      if (sent) coated?.add(sent.item_id);
      return sent;
    },

    async afflictions(token) {
      const actor = token.actor;
      if (!actor) return null;
      await panels.open({ id: actor.id, name: actor.name });
      return { actor_id: actor.id };
    },
  };
}

/**
 * The menu: one button per action.
 * @param {object} token
 * @param {ReturnType<typeof hudActions>} actions
 * @returns {Promise<object|null>} what the chosen action returned
 */
export async function hudMenu(token, actions) {
  const choice = await foundry.applications.api.DialogV2.wait({
    window: { title: t("VTTSIDECAR.Hud.MenuTitle", { name: token.name ?? "" }) },
    content: `<p>${escapeHtml(t("VTTSIDECAR.Hud.MenuHint"))}</p>`,
    rejectClose: false,
    classes: ["vtt-sidecar-hud-menu"],
    buttons: HUD_ACTIONS.map((action) => ({ action, label: t(`VTTSIDECAR.Hud.Action.${action}`) })),
  });
  if (!HUD_ACTIONS.includes(choice)) return null;
  return actions[choice](token);
}

/**
 * Add the GM's button to the token HUD (`renderTokenHUD(hud, html)`; v13 HTMLElement, v12 jQuery).
 * @param {{on: Function}} hooks
 * @param {ReturnType<typeof hudActions>} actions
 */
export function installTokenHud(hooks, actions) {
  hooks.on("renderTokenHUD", (hud, html) => {
    if (!game.user?.isGM) return;
    const token = hud.document ?? hud.object?.document;
    const element = asElement(html);
    if (!token || !element) return;
    const column = element.querySelector?.(".col.right") ?? element;
    if (!column.querySelector?.(".vtt-sidecar-hud")) {
      column.insertAdjacentHTML("beforeend",
        `<button type="button" class="control-icon vtt-sidecar-hud" data-vtt-sidecar-hud="menu" title="${escapeHtml(t("VTTSIDECAR.Hud.Button"))}">`
        + `<i class="fa-solid fa-dice-d20"></i></button>`);
    }
    // v13's HUD keeps its element across renders: one listener, reading the current token.
    element.vttSidecarToken = token;
    if (element.vttSidecarHudListener) return;
    element.vttSidecarHudListener = true;
    element.addEventListener("click", (event) => {
      const button = event.target?.closest?.("[data-vtt-sidecar-hud]");
      if (!button || !element.vttSidecarToken) return undefined;
      event.preventDefault?.();
      event.stopPropagation?.();
      return hudMenu(element.vttSidecarToken, actions);
    });
  });
}
