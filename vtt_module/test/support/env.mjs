/**
 * A stand-in Foundry world with the module's translations, installed as globals.
 * (Node runs every .mjs under test/ as a test file; this one simply defines no tests.)
 */

import { readFileSync } from "node:fs";
import { createFoundryEnv, installGlobals, USER_ROLES } from "../foundry-standins.mjs";

const LANG_DIR = new URL("../../lang/", import.meta.url);

/** @param {string} lang  file name without .json */
export function langFile(lang) {
  return JSON.parse(readFileSync(new URL(`${lang}.json`, LANG_DIR), "utf8"));
}

/**
 * A world with a GM (current user) and one player.
 * @param {object} [options]  passed to createFoundryEnv
 */
export function setupWorld(options = {}) {
  const env = createFoundryEnv({ translations: langFile("en"), ...options });
  installGlobals(env);
  const gm = env.addUser({ id: "gmUser000000001", name: "GM", role: USER_ROLES.GAMEMASTER });
  const player = env.addUser({ id: "playerUser00001", name: "Player", role: USER_ROLES.PLAYER });
  env.setCurrentUser(gm.id);
  return { env, gm, player };
}
