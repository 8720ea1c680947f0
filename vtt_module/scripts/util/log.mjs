/** Console logging with a module prefix; debug lines only when the debug setting is on. */

import { MODULE_ID } from "../constants.mjs";

const PREFIX = "VTT Sidecar |";

/** @returns {boolean} */
function debugEnabled() {
  try {
    return Boolean(globalThis.game?.settings?.get(MODULE_ID, "debug"));
  } catch {
    return false;
  }
}

export const log = {
  /** @param {...unknown} args */
  debug: (...args) => {
    if (debugEnabled()) console.debug(PREFIX, ...args);
  },
  /** @param {...unknown} args */
  info: (...args) => console.info(PREFIX, ...args),
  /** @param {...unknown} args */
  warn: (...args) => console.warn(PREFIX, ...args),
  /** @param {...unknown} args */
  error: (...args) => console.error(PREFIX, ...args),
};
