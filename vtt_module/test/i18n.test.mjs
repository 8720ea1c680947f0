/**
 * Every `VTTSIDECAR.` key the code uses exists in en, ru and zh-cn, and the three files have
 * the same keys. Keys built at run time (settings, status states, trap behaviour fields) are
 * listed from the code's own constants.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { TRAP_FIELDS } from "../scripts/regions/trap-behavior.mjs";
import { SETTINGS } from "../scripts/settings.mjs";
import { AFFLICTION_RUNTIME_KEYS } from "../scripts/ui/affliction-panel.mjs";
import { ENVIRONMENTS, ESCAPE_FACTORS } from "../scripts/ui/chase-start.mjs";
import { CHASE_RUNTIME_KEYS } from "../scripts/ui/chase-view.mjs";
import { HUD_ACTIONS, INTERACTION_KINDS } from "../scripts/ui/token-hud.mjs";
import { langFile } from "./support/env.mjs";

const SCRIPTS = fileURLToPath(new URL("../scripts/", import.meta.url));
const LANGS = ["en", "ru", "zh-cn"];
const STATES = ["stopped", "unconfigured", "connecting", "connected", "reconnecting", "refused"];

function flatten(object, prefix = "") {
  return Object.entries(object).flatMap(([key, value]) => (
    value && typeof value === "object" ? flatten(value, `${prefix}${key}.`) : [[`${prefix}${key}`, value]]
  ));
}

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".mjs") ? [path] : [];
  });
}

/**
 * Complete keys written in the code: "VTTSIDECAR.Foo.Bar". Template prefixes and
 * LOCALIZATION_PREFIXES (a prefix, whose FIELDS keys are checked below) are not keys.
 */
function keysInCode() {
  const keys = new Set();
  for (const file of sourceFiles(SCRIPTS)) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.includes("LOCALIZATION_PREFIXES")) continue;
      for (const match of line.matchAll(/["'`](VTTSIDECAR\.[A-Za-z0-9_.]+)["'`]/g)) {
        if (!match[1].endsWith(".")) keys.add(match[1]);
      }
    }
  }
  return keys;
}

function keysBuiltAtRunTime() {
  const keys = [];
  for (const key of Object.values(SETTINGS)) keys.push(`VTTSIDECAR.Settings.${key}.Name`, `VTTSIDECAR.Settings.${key}.Hint`);
  for (const state of STATES) keys.push(`VTTSIDECAR.Status.State.${state}`);
  for (const field of TRAP_FIELDS) {
    keys.push(`VTTSIDECAR.TrapBehavior.FIELDS.${field}.label`, `VTTSIDECAR.TrapBehavior.FIELDS.${field}.hint`);
  }
  keys.push(...CHASE_RUNTIME_KEYS, ...AFFLICTION_RUNTIME_KEYS);
  for (const env of ENVIRONMENTS) keys.push(`VTTSIDECAR.ChaseStart.Environment.${env}`);
  for (const factor of ESCAPE_FACTORS) keys.push(`VTTSIDECAR.ChaseStart.Factor.${factor}`);
  for (const action of HUD_ACTIONS) keys.push(`VTTSIDECAR.Hud.Action.${action}`);
  for (const kind of INTERACTION_KINDS) keys.push(`VTTSIDECAR.Hud.Kind.${kind}`);
  for (const tool of ["thieves_tools", "edged", "none"]) keys.push(`VTTSIDECAR.Hud.Tool.${tool}`);
  for (const partial of ["none", "advantage", "half_damage"]) keys.push(`VTTSIDECAR.Hud.Partial.${partial}`);
  for (const kind of ["random", "short", "long", "indefinite"]) keys.push(`VTTSIDECAR.Hud.Madness.${kind}`);
  return keys;
}

const files = Object.fromEntries(LANGS.map((lang) => [lang, new Map(flatten(langFile(lang)))]));

describe("translations", () => {
  it("the code uses keys (sanity check of the scan)", () => {
    assert.ok(keysInCode().size > 20);
  });

  for (const lang of LANGS) {
    it(`${lang}: every key used in scripts/ exists and is a non-empty string`, () => {
      const missing = [...keysInCode(), ...keysBuiltAtRunTime()].filter((key) => !(files[lang].get(key)?.trim()));
      assert.deepEqual(missing, []);
    });
  }

  it("all three files have exactly the same keys", () => {
    const en = [...files.en.keys()].sort();
    assert.deepEqual([...files.ru.keys()].sort(), en);
    assert.deepEqual([...files["zh-cn"].keys()].sort(), en);
  });

  it("placeholders match across languages", () => {
    const placeholders = (text) => [...text.matchAll(/{(\w+)}/g)].map((m) => m[1]).sort();
    for (const [key, text] of files.en) {
      for (const lang of ["ru", "zh-cn"]) assert.deepEqual(placeholders(files[lang].get(key)), placeholders(text), `${lang} ${key}`);
    }
  });

  it("ru and zh-cn are translated, not copies of English", () => {
    let same = 0;
    for (const [key, text] of files.en) {
      if (files.ru.get(key) === text || files["zh-cn"].get(key) === text) same += 1;
    }
    assert.equal(same, 0);
  });

  it("module.json declares the three language files", () => {
    const manifest = JSON.parse(readFileSync(new URL("../module.json", import.meta.url), "utf8"));
    const paths = new Map(manifest.languages.map((l) => [l.lang, l.path]));
    assert.equal(paths.get("en"), "lang/en.json");
    assert.equal(paths.get("ru"), "lang/ru.json");
    assert.equal(paths.get("zh-cn"), "lang/zh-cn.json");
  });
});
