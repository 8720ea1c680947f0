/**
 * The module's settings and the `settings.update` event that tells the sidecar about them.
 *
 * The world token is a `client` setting: world settings are readable by every player, and
 * the token is the secret that lets a browser speak for the world (see FOUNDRY.md).
 */

import { DEFAULT_SIDECAR_URL, MODULE_ID } from "./constants.mjs";

/** Setting keys, in one place so a typo is a ReferenceError rather than a silent undefined. */
export const SETTINGS = Object.freeze({
  url: "sidecarUrl",
  token: "worldToken",
  saveMode: "saveMode",
  saveTimeout: "saveTimeout",
  noticeRadius: "noticeRadius",
  dropTriggers: "dropTriggers",
  gmPicksAbility: "gmPicksAbility",
  debug: "debug",
});

/** Settings whose change must reach the sidecar as `settings.update`. */
const RULE_SETTINGS = new Set([
  SETTINGS.saveMode,
  SETTINGS.saveTimeout,
  SETTINGS.noticeRadius,
  SETTINGS.dropTriggers,
  SETTINGS.gmPicksAbility,
]);

/**
 * Register every setting. Call once in the `init` hook.
 * @param {object} callbacks
 * @param {() => void} callbacks.onConnectionChange  URL or token changed: reconnect
 * @param {() => void} callbacks.onRulesChange       a rules setting changed: tell the sidecar
 */
export function registerSettings({ onConnectionChange, onRulesChange }) {
  const register = (key, data) => game.settings.register(MODULE_ID, key, {
    name: `VTTSIDECAR.Settings.${key}.Name`,
    hint: `VTTSIDECAR.Settings.${key}.Hint`,
    config: true,
    ...data,
    onChange: () => {
      if (key === SETTINGS.url || key === SETTINGS.token) onConnectionChange();
      if (RULE_SETTINGS.has(key)) onRulesChange();
    },
  });

  register(SETTINGS.url, { scope: "world", type: String, default: DEFAULT_SIDECAR_URL });
  register(SETTINGS.token, { scope: "client", type: String, default: "" });
  register(SETTINGS.saveMode, {
    scope: "world",
    type: String,
    default: "auto",
    choices: {
      auto: "VTTSIDECAR.Settings.saveMode.Auto",
      ask: "VTTSIDECAR.Settings.saveMode.Ask",
    },
  });
  register(SETTINGS.saveTimeout, {
    scope: "world",
    type: Number,
    default: 60,
    range: { min: 10, max: 600, step: 5 },
  });
  register(SETTINGS.noticeRadius, {
    scope: "world",
    type: Number,
    default: 30,
    range: { min: 0, max: 300, step: 5 },
  });
  register(SETTINGS.dropTriggers, { scope: "world", type: Boolean, default: false });
  register(SETTINGS.gmPicksAbility, {
    scope: "world",
    type: String,
    default: "best",
    choices: {
      best: "VTTSIDECAR.Settings.gmPicksAbility.Best",
      worst: "VTTSIDECAR.Settings.gmPicksAbility.Worst",
    },
  });
  register(SETTINGS.debug, { scope: "client", type: Boolean, default: false });
}

/**
 * Read one of this module's settings.
 * @param {string} key  one of SETTINGS
 * @returns {any}
 */
export function getSetting(key) {
  return game.settings.get(MODULE_ID, key);
}

/**
 * Where to connect and with which secret.
 * @returns {{url: string, token: string}}
 */
export function connectionSettings() {
  return {
    url: String(getSetting(SETTINGS.url) ?? "").trim(),
    token: String(getSetting(SETTINGS.token) ?? "").trim(),
  };
}

/**
 * The rules settings as the sidecar names them.
 * @returns {{save_mode: string, save_timeout_s: number, notice_radius_ft: number,
 *   drop_triggers: boolean, gm_picks_ability: string}}
 */
export function rulesSettings() {
  // The sidecar knows only best/worst; a value saved by an older version falls back to best.
  const picks = getSetting(SETTINGS.gmPicksAbility) === "worst" ? "worst" : "best";
  return {
    save_mode: getSetting(SETTINGS.saveMode),
    save_timeout_s: Number(getSetting(SETTINGS.saveTimeout)),
    notice_radius_ft: Number(getSetting(SETTINGS.noticeRadius)),
    drop_triggers: Boolean(getSetting(SETTINGS.dropTriggers)),
    gm_picks_ability: picks,
  };
}

/**
 * The `settings.update` event (the connection adds its id).
 * @returns {{type: "settings.update", settings: ReturnType<typeof rulesSettings>}}
 */
export function settingsUpdateEvent() {
  return { type: "settings.update", settings: rulesSettings() };
}
