/** Localisation through Foundry's `game.i18n`; every key lives in lang/*.json. */

/**
 * Localise a key, formatting `{name}` placeholders when data is given.
 * @param {string} key   a `VTTSIDECAR.` key
 * @param {Record<string, unknown>} [data]
 * @returns {string}
 */
export function t(key, data) {
  const i18n = globalThis.game?.i18n;
  if (!i18n) return key;
  return data ? i18n.format(key, data) : i18n.localize(key);
}
