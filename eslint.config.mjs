// ESLint flat config for the Foundry module (vtt_module/). Run: npx eslint vtt_module
import js from "@eslint/js";
import globals from "globals";

/** Globals Foundry VTT and dnd5e define in the browser. */
const foundryGlobals = {
  game: "readonly",
  Hooks: "readonly",
  CONFIG: "readonly",
  CONST: "readonly",
  ui: "readonly",
  foundry: "readonly",
  canvas: "readonly",
  ChatMessage: "readonly",
  Roll: "readonly",
  Dialog: "readonly",
  Application: "readonly",
  FormApplication: "readonly",
  TokenDocument: "readonly",
  Actor: "readonly",
  Combat: "readonly",
  Scene: "readonly",
  User: "readonly",
  fromUuid: "readonly",
  fromUuidSync: "readonly",
  dnd5e: "readonly",
};

export default [
  { ignores: ["node_modules/**"] },
  js.configs.recommended,
  {
    files: ["vtt_module/**/*.mjs", "vtt_module/**/*.js"],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: { ...globals.browser, ...foundryGlobals },
    },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  {
    files: ["vtt_module/test/**/*.mjs"],
    ignores: ["vtt_module/test/foundry-standins.mjs", "vtt_module/test/harness/**"],
    languageOptions: { globals: { ...globals.node } },
  },
];
