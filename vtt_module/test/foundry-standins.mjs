/**
 * Stand-ins for exactly the Foundry VTT (v12 / v13) and dnd5e (4.x / 5.x) APIs that
 * vtt_module calls, so the module runs in Node (`node --test`) and in a plain browser page
 * (test/harness) without a Foundry install (Foundry is licensed software; FOUNDRY.md).
 *
 * Written from the public API documentation; each piece names the page it stands for:
 *   Foundry v13 API  https://foundryvtt.com/api/          (v12: https://foundryvtt.com/api/v12/)
 *   dnd5e source      https://github.com/foundryvtt/dnd5e  (module/documents/actor/actor.mjs,
 *                     module/data/actor/templates/*.mjs, release 5.3.x)
 * Only the behaviour the module relies on is modelled; anything else is left out on purpose,
 * so a call the module should not make fails loudly instead of passing silently.
 *
 * Plain ES module with no imports: the same file is loaded by Node tests and the browser.
 *
 * Use:
 *   const env = createFoundryEnv({ generation: 13, systemVersion: "5.3.3" });
 *   installGlobals(env);              // game, Hooks, CONFIG, ui, foundry, ChatMessage, Roll, canvas
 *   const gm = env.addUser({ name: "GM", role: 4 });
 *   env.setCurrentUser(gm.id);
 *   const actor = env.createActor({ name: "Aria", system: dnd5eSystem({ hp: 20 }) });
 *   const scene = env.createScene({ name: "Crypt", tokens: [{ actorId: actor.id, x: 0, y: 0 }] });
 */

/* ------------------------------------------------------------------ small helpers */

/**
 * Seeded PRNG (mulberry32), so stand-in dice and ids are reproducible.
 * @param {number} seed
 * @returns {() => number}
 */
export function seededRandom(seed = 1) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** foundry.utils.getProperty: read a dotted path. */
function getProperty(object, path) {
  return path.split(".").reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), object);
}

/** foundry.utils.setProperty: write a dotted path, creating objects on the way. */
function setProperty(object, path, value) {
  const keys = path.split(".");
  const last = keys.pop();
  let target = object;
  for (const key of keys) {
    if (typeof target[key] !== "object" || target[key] === null) target[key] = {};
    target = target[key];
  }
  target[last] = value;
}

/** foundry.utils.expandObject: {"a.b": 1} -> {a: {b: 1}}. */
function expandObject(flat) {
  const out = {};
  for (const [key, value] of Object.entries(flat)) setProperty(out, key, value);
  return out;
}

/** Deep-merge an expanded update into a document's data (Document#updateSource). */
function mergeInto(target, changes) {
  for (const [key, value] of Object.entries(changes)) {
    if (value && typeof value === "object" && !Array.isArray(value) && !(value instanceof Set)
      && target[key] && typeof target[key] === "object" && !Array.isArray(target[key])) {
      mergeInto(target[key], value);
    } else {
      target[key] = value;
    }
  }
}

/* ------------------------------------------------------------------ Hooks */

/**
 * Hooks — https://foundryvtt.com/api/classes/foundry.helpers.Hooks.html
 * on/once/off/callAll/call. `call` stops at the first handler returning false.
 */
export class StandinHooks {
  constructor() {
    this.handlers = new Map();
    this.nextId = 1;
    /** every callAll/call, for assertions: [name, args] */
    this.calls = [];
  }

  on(name, fn, { once = false } = {}) {
    const id = this.nextId++;
    if (!this.handlers.has(name)) this.handlers.set(name, []);
    this.handlers.get(name).push({ id, fn, once });
    return id;
  }

  once(name, fn) {
    return this.on(name, fn, { once: true });
  }

  off(name, fnOrId) {
    const list = this.handlers.get(name) ?? [];
    this.handlers.set(name, list.filter((h) => h.id !== fnOrId && h.fn !== fnOrId));
  }

  callAll(name, ...args) {
    this.calls.push([name, args]);
    for (const handler of [...(this.handlers.get(name) ?? [])]) {
      if (handler.once) this.off(name, handler.id);
      handler.fn(...args);
    }
    return true;
  }

  call(name, ...args) {
    this.calls.push([name, args]);
    for (const handler of [...(this.handlers.get(name) ?? [])]) {
      if (handler.once) this.off(name, handler.id);
      if (handler.fn(...args) === false) return false;
    }
    return true;
  }
}

/* ------------------------------------------------------------------ Collection */

/**
 * foundry.utils.Collection — https://foundryvtt.com/api/classes/foundry.utils.Collection.html
 * A Map whose iteration yields values, with Array-like helpers.
 */
export class StandinCollection extends Map {
  *[Symbol.iterator]() {
    yield* this.values();
  }

  get contents() {
    return [...this.values()];
  }

  find(fn) {
    return this.contents.find(fn);
  }

  filter(fn) {
    return this.contents.filter(fn);
  }

  map(fn) {
    return this.contents.map(fn);
  }

  some(fn) {
    return this.contents.some(fn);
  }

  getName(name) {
    return this.find((d) => d.name === name);
  }
}

/* ------------------------------------------------------------------ Users */

/** CONST.USER_ROLES — https://foundryvtt.com/api/variables/CONST.USER_ROLES.html */
export const USER_ROLES = { NONE: 0, PLAYER: 1, TRUSTED: 2, ASSISTANT: 3, GAMEMASTER: 4 };

/**
 * User — https://foundryvtt.com/api/classes/foundry.documents.User.html
 * id, name, role, isGM, active, character; v13 also `query(name, data, {timeout})`
 * (https://foundryvtt.com/api/classes/foundry.documents.User.html#query), which here runs the
 * registered `CONFIG.queries` handler as that user's browser would.
 */
export class StandinUser {
  constructor(env, { id, name, role = USER_ROLES.PLAYER, active = true, characterId = null }) {
    this.env = env;
    this.id = id;
    this.name = name;
    this.role = role;
    this.active = active;
    this.characterId = characterId;
    this.documentName = "User";
    // User#targets: the Token placeables this user targets (a Set; filled in the user's own
    // browser; https://foundryvtt.com/api/classes/foundry.documents.User.html#targets)
    this.targets = new Set();
    if (env.generation >= 13) this.query = (name, data, options) => env.runQuery(this, name, data, options);
  }

  get isGM() {
    return this.role >= USER_ROLES.ASSISTANT;
  }

  get character() {
    return this.characterId ? this.env.game.actors.get(this.characterId) ?? null : null;
  }
}

/**
 * Users collection — https://foundryvtt.com/api/classes/foundry.documents.collections.Users.html
 * `activeGM`: "one User who is an active Gamemaster (non-assistant if possible)": active GMs
 * sorted by role (highest first), then id.
 */
export class StandinUsers extends StandinCollection {
  get activeGM() {
    const gms = this.filter((u) => u.active && u.isGM);
    gms.sort((a, b) => (b.role - a.role) || a.id.localeCompare(b.id));
    return gms[0] ?? null;
  }

  get players() {
    return this.filter((u) => !u.isGM);
  }
}

/* ------------------------------------------------------------------ Settings, i18n */

/**
 * ClientSettings (game.settings) — https://foundryvtt.com/api/classes/foundry.helpers.ClientSettings.html
 * register / get / set; `onChange(value)` runs after set; client settings persist in the
 * given storage (localStorage in a browser) like Foundry's do.
 */
export class StandinSettings {
  constructor(storage = null) {
    this.configs = new Map();
    this.values = new Map();
    this.storage = storage;
  }

  register(namespace, key, config) {
    this.configs.set(`${namespace}.${key}`, config);
  }

  get(namespace, key) {
    const id = `${namespace}.${key}`;
    const config = this.configs.get(id);
    if (!config) throw new Error(`"${id}" is not a registered game setting`);
    if (this.values.has(id)) return this.values.get(id);
    if (config.scope === "client" && this.storage) {
      const stored = this.storage.getItem(id);
      if (stored !== null && stored !== undefined) return JSON.parse(stored);
    }
    return config.default;
  }

  async set(namespace, key, value) {
    const id = `${namespace}.${key}`;
    const config = this.configs.get(id);
    if (!config) throw new Error(`"${id}" is not a registered game setting`);
    this.values.set(id, value);
    if (config.scope === "client" && this.storage) this.storage.setItem(id, JSON.stringify(value));
    config.onChange?.(value);
    return value;
  }
}

/**
 * Localization (game.i18n) — https://foundryvtt.com/api/classes/foundry.helpers.Localization.html
 * localize(key) returns the key itself when missing; format replaces {name} placeholders.
 */
export class StandinI18n {
  constructor(lang = "en", translations = {}) {
    this.lang = lang;
    this.translations = translations;
    /** keys asked for that had no translation */
    this.missing = new Set();
  }

  has(key) {
    return typeof getProperty(this.translations, key) === "string";
  }

  localize(key) {
    const value = getProperty(this.translations, key);
    if (typeof value === "string") return value;
    this.missing.add(key);
    return key;
  }

  format(key, data = {}) {
    return this.localize(key).replace(/{([^}]+)}/g, (match, name) => (name in data ? String(data[name]) : match));
  }
}

/* ------------------------------------------------------------------ Rolls */

/**
 * Roll — https://foundryvtt.com/api/classes/foundry.dice.Roll.html
 * `Roll.fromData(json)` rebuilds an evaluated roll from its JSON (`toJSON`); the JSON shape
 * is the one FOUNDRY.md describes (`class`, `formula`, `terms`, `total`, `evaluated`).
 */
export class StandinRoll {
  constructor(data) {
    this.data = structuredClone(data);
    this.formula = data.formula;
    this.terms = data.terms ?? [];
    this.total = data.total;
    this.options = data.options ?? {};
    this._evaluated = data.evaluated !== false;
  }

  static fromData(data) {
    if (!data || typeof data !== "object" || !Array.isArray(data.terms) || typeof data.total !== "number") {
      throw new Error("Roll.fromData: not a serialized roll");
    }
    return new this(data);
  }

  get dice() {
    return this.terms.filter((t) => t.class === "Die");
  }

  /** dnd5e D20Roll#d20 — the first d20 term. */
  get d20() {
    const die = this.dice.find((d) => d.faces === 20);
    if (!die) return undefined;
    const active = (die.results ?? []).filter((r) => r.active !== false);
    return { ...die, total: active.reduce((sum, r) => sum + r.result, 0) };
  }

  toJSON() {
    return structuredClone(this.data);
  }

  /**
   * A d20 + bonus roll as dnd5e would make it (advantage keeps the higher of two).
   * @param {number} bonus
   * @param {() => number} random
   * @param {{advantage?: boolean, disadvantage?: boolean}} [mode]
   * @returns {StandinRoll}
   */
  static d20(bonus, random, { advantage = false, disadvantage = false } = {}) {
    const count = advantage !== disadvantage ? 2 : 1;
    const values = Array.from({ length: count }, () => 1 + Math.floor(random() * 20));
    const kept = advantage && !disadvantage ? Math.max(...values) : Math.min(...values);
    let keptUsed = false;
    const results = values.map((result) => {
      const active = !keptUsed && result === kept;
      if (active) keptUsed = true;
      return { result, active };
    });
    const modifiers = count === 2 ? [advantage ? "kh" : "kl"] : [];
    const dieFormula = `${count}d20${modifiers.join("")}`;
    return new StandinRoll({
      class: "D20Roll",
      options: {},
      dice: [],
      formula: `${dieFormula} + ${bonus}`,
      terms: [
        { class: "Die", number: count, faces: 20, modifiers, results, evaluated: true },
        { class: "OperatorTerm", operator: "+", evaluated: true },
        { class: "NumericTerm", number: bonus, evaluated: true },
      ],
      total: kept + bonus,
      evaluated: true,
    });
  }
}

/* ------------------------------------------------------------------ Chat */

/**
 * ChatMessage — https://foundryvtt.com/api/classes/foundry.documents.ChatMessage.html
 * `create(data)`, `getWhisperRecipients(name)` ("GM" = every GM user), `getSpeaker({scene,
 * actor, token, alias})`. Visibility follows the docs: a whispered message is seen by its
 * author and recipients; a blind one's content only by GMs.
 */
export function makeChatMessageClass(env) {
  return class StandinChatMessage {
    constructor(data) {
      this.id = env.newId();
      this.content = data.content ?? "";
      this.speaker = data.speaker ?? {};
      this.whisper = [...(data.whisper ?? [])];
      this.blind = Boolean(data.blind);
      this.rolls = [...(data.rolls ?? [])];
      this.flags = structuredClone(data.flags ?? {});
      this.author = env.game.user?.id ?? null;
      this.documentName = "ChatMessage";
    }

    static async create(data) {
      for (const roll of data.rolls ?? []) {
        if (!(roll instanceof StandinRoll)) throw new Error("ChatMessage.create: rolls must be Roll instances");
      }
      const message = new this(data);
      env.game.messages.set(message.id, message);
      env.hooks.callAll("createChatMessage", message, {}, env.game.user?.id);
      return message;
    }

    static getWhisperRecipients(name) {
      const users = [...env.game.users];
      if (name === "GM") return users.filter((u) => u.isGM);
      return users.filter((u) => u.name === name);
    }

    static getSpeaker({ scene, actor, token, alias } = {}) {
      if (!actor && !token) {
        // The real method falls back to the user's controlled token; the module must never
        // rely on that, so this stand-in records the call.
        env.unsafeSpeakerCalls += 1;
      }
      return {
        scene: token?.parent?.id ?? scene?.id ?? null,
        actor: actor?.id ?? token?.actorId ?? null,
        token: token?.id ?? null,
        alias: alias ?? token?.name ?? actor?.name ?? "",
      };
    }

    getFlag(scope, key) {
      return this.flags?.[scope]?.[key];
    }

    /** Document#setFlag — https://foundryvtt.com/api/classes/foundry.abstract.Document.html#setFlag */
    async setFlag(scope, key, value) {
      return this.update({ [`flags.${scope}.${key}`]: value });
    }

    /** Document#update: merges the change and fires `updateChatMessage(message, changed, options, userId)`. */
    async update(changes, options = {}) {
      const expanded = expandObject(changes);
      if (expanded.flags) mergeInto(this.flags, expanded.flags);
      if (typeof expanded.content === "string") this.content = expanded.content;
      env.hooks.callAll("updateChatMessage", this, expanded, options, env.game.user?.id);
      return this;
    }

    /** @param {StandinUser} user */
    isVisibleTo(user) {
      if (!this.whisper.length) return true;
      return this.author === user.id || this.whisper.includes(user.id);
    }

    /** @param {StandinUser} user */
    isContentVisibleTo(user) {
      if (!this.isVisibleTo(user)) return false;
      return !this.blind || user.isGM;
    }
  };
}

/* ------------------------------------------------------------------ dnd5e actors */

const ABILITY_KEYS = ["str", "dex", "con", "int", "wis", "cha"];
const SKILL_ABILITIES = {
  acr: "dex", ani: "wis", arc: "int", ath: "str", dec: "cha", his: "int", ins: "wis", itm: "cha",
  inv: "int", med: "wis", nat: "int", prc: "wis", prf: "cha", per: "cha", rel: "int", slt: "dex",
  ste: "dex", sur: "wis",
};

/**
 * Prepared dnd5e actor data (paths from FOUNDRY.md "dnd5e data", dnd5e
 * module/data/actor/templates/attributes.mjs and common.mjs).
 * @param {object} [o]
 * @param {"object"|"number"} [o.saveShape="object"]  `save.value` (5.x) or `save` number (older)
 * @returns {object}
 */
export function dnd5eSystem(o = {}) {
  const scores = { str: 10, dex: 10, con: 10, int: 10, wis: 10, cha: 10, ...(o.abilities ?? {}) };
  const prof = o.prof ?? 2;
  const saveProficient = new Set(o.saveProficiencies ?? []);
  const abilities = {};
  for (const key of ABILITY_KEYS) {
    const mod = Math.floor((scores[key] - 10) / 2);
    const saveValue = mod + (saveProficient.has(key) ? prof : 0);
    abilities[key] = {
      value: scores[key],
      mod,
      save: o.saveShape === "number" ? saveValue : { value: saveValue },
    };
  }
  const skills = {};
  for (const [key, ability] of Object.entries(SKILL_ABILITIES)) {
    const total = abilities[ability].mod + (o.skillProficiencies?.includes(key) ? prof : 0);
    skills[key] = { total, passive: 10 + total };
  }
  const hp = typeof o.hp === "object" ? o.hp : { value: o.hp ?? 10, max: o.hp ?? 10, temp: 0 };
  return {
    abilities,
    skills,
    attributes: {
      hp: { value: hp.value, max: hp.max ?? hp.value, temp: hp.temp ?? 0, tempmax: 0 },
      ac: { value: o.ac ?? 12 },
      movement: { walk: o.speed ?? 30 },
      exhaustion: o.exhaustion ?? 0,
    },
    details: {
      ...(o.level !== undefined ? { level: o.level } : {}),
      ...(o.cr !== undefined ? { cr: o.cr } : {}),
      type: { value: o.creatureType ?? "humanoid" },
      race: o.race ? { name: o.race } : null,
    },
    traits: {
      size: o.size ?? "med",
      di: { value: new Set(o.di ?? []) },
      dr: { value: new Set(o.dr ?? []) },
      dv: { value: new Set(o.dv ?? []) },
      ci: { value: new Set(o.ci ?? []) },
    },
  };
}

/**
 * A dnd5e Actor5e — https://foundryvtt.com/api/classes/foundry.documents.Actor.html and dnd5e
 * module/documents/actor/actor.mjs:
 *   applyDamage(damages, options): a plain number skips damage traits; temp HP absorbs first;
 *     HP clamps to [0, max]; then `update`.
 *   toggleStatusEffect(statusId, {active}) (core Actor).
 *   update(changes): fires `updateActor`, and dnd5e's `dnd5e.damageActor` /
 *     `dnd5e.healActor` (actor, {hp, temp, total}, update, userId) when HP changed.
 *   rollSavingThrow(config, dialog, message) (dnd5e >= 4.1) -> D20Roll[];
 *   rollAbilitySave(ability, options) (older) -> D20Roll.
 */
export class StandinActor {
  constructor(env, { id, name, type = "character", system, ownership = {}, statuses = [] }) {
    this.env = env;
    this.id = id;
    this.name = name;
    this.type = type;
    this.system = system ?? dnd5eSystem();
    this.ownership = { default: 0, ...ownership };
    this.statuses = new Set(statuses);
    this.flags = {};
    this.documentName = "Actor";
    this.isToken = false;
    this.token = null;
    /** calls the module made, for assertions */
    this.calls = { applyDamage: [], toggleStatusEffect: [], update: [], rollSavingThrow: [], rollAbilitySave: [] };
    /** embedded Items (env.createItem) */
    this.items = new StandinCollection();
  }

  get uuid() {
    return `Actor.${this.id}`;
  }

  testUserPermission(user, level) {
    if (user.isGM) return true;
    const needed = { NONE: 0, LIMITED: 1, OBSERVER: 2, OWNER: 3 }[level] ?? level;
    const has = this.ownership[user.id] ?? this.ownership.default ?? 0;
    return has >= needed;
  }

  get isOwner() {
    return this.testUserPermission(this.env.game.user, "OWNER");
  }

  getActiveTokens(_linked = false, document = false) {
    const tokens = [];
    for (const scene of this.env.game.scenes) {
      for (const token of scene.tokens) if (token.actorId === this.id) tokens.push(token);
    }
    return document ? tokens : tokens.map((t) => t.object).filter(Boolean);
  }

  async applyDamage(damages, options = {}) {
    this.calls.applyDamage.push({ damages, options });
    let amount;
    if (typeof damages === "number") {
      amount = damages;
    } else {
      // Typed damage would run dnd5e's calculateDamage (traits): apply them like it does.
      amount = damages.reduce((sum, d) => {
        const traits = this.system.traits;
        if (traits.di.value.has(d.type)) return sum;
        let v = d.value;
        if (traits.dr.value.has(d.type)) v = Math.floor(v / 2);
        if (traits.dv.value.has(d.type)) v *= 2;
        return sum + v;
      }, 0);
    }
    const hp = this.system.attributes.hp;
    const deltaTemp = amount > 0 ? Math.min(hp.temp, amount) : 0;
    const deltaHP = Math.max(-(hp.max - hp.value), Math.min(amount - deltaTemp, hp.value));
    await this.update({
      "system.attributes.hp.temp": hp.temp - deltaTemp,
      "system.attributes.hp.value": hp.value - deltaHP,
    });
    return this;
  }

  async toggleStatusEffect(statusId, { active } = {}) {
    this.calls.toggleStatusEffect.push({ statusId, active });
    const on = active ?? !this.statuses.has(statusId);
    const effect = { id: `${statusId}-effect`, statuses: new Set([statusId]), parent: this, documentName: "ActiveEffect" };
    if (on && !this.statuses.has(statusId)) {
      this.statuses.add(statusId);
      this.env.hooks.callAll("createActiveEffect", effect, {}, this.env.game.user?.id);
    } else if (!on && this.statuses.has(statusId)) {
      this.statuses.delete(statusId);
      this.env.hooks.callAll("deleteActiveEffect", effect, {}, this.env.game.user?.id);
    }
    return on;
  }

  async update(changes, options = {}) {
    this.calls.update.push({ changes, options });
    const before = { ...this.system.attributes.hp };
    const expanded = expandObject(changes);
    if (expanded.system) mergeInto(this.system, expanded.system);
    if (expanded.name) this.name = expanded.name;
    if (expanded.flags) mergeInto(this.flags, expanded.flags);
    const userId = this.env.game.user?.id;
    this.env.hooks.callAll("updateActor", this, expanded, options, userId);
    const after = this.system.attributes.hp;
    const delta = { hp: after.value - before.value, temp: after.temp - before.temp };
    delta.total = delta.hp + delta.temp;
    if (delta.total !== 0 && !options.isRest) {
      this.env.hooks.callAll(`dnd5e.${delta.total > 0 ? "heal" : "damage"}Actor`, this, delta, expanded, userId);
    }
    return this;
  }

  async setFlag(scope, key, value) {
    return this.update({ [`flags.${scope}.${key}`]: value });
  }

  getFlag(scope, key) {
    return this.flags?.[scope]?.[key];
  }

  async rollSavingThrow(config = {}, dialog = {}, message = {}) {
    this.calls.rollSavingThrow.push({ config, dialog, message });
    const roll = this.#saveRoll(config.ability, config);
    if (message.create !== false) await this.#postRoll(roll);
    return [roll];
  }

  async rollAbilitySave(ability, options = {}) {
    this.calls.rollAbilitySave.push({ ability, options });
    const roll = this.#saveRoll(ability, options);
    if (options.chatMessage !== false) await this.#postRoll(roll);
    return roll;
  }

  #saveRoll(ability, mode) {
    const save = this.system.abilities[ability]?.save;
    const bonus = typeof save === "object" ? save.value : Number(save ?? 0);
    return StandinRoll.d20(bonus, this.env.random, mode);
  }

  async #postRoll(roll) {
    return this.env.ChatMessage.create({
      content: "",
      speaker: this.env.ChatMessage.getSpeaker({ actor: this }),
      rolls: [roll],
      flags: { dnd5e: { roll: { type: "save" } } },
    });
  }

  /** dnd5e `Actor5e#shortRest` / `longRest` end in `dnd5e.restCompleted(actor, result, config)`. */
  async rest(type = "long") {
    const result = { type, longRest: type === "long", deltas: {}, updateData: {} };
    this.env.hooks.callAll("dnd5e.restCompleted", this, result, { type });
    return result;
  }
}

/**
 * A dnd5e Item5e with one damage activity (dnd5e source: module/documents/item.mjs,
 * module/documents/activity/mixin.mjs `rollDamage`, module/dice/damage-roll.mjs):
 *   `system.damage.base.types` (a Set of damage types, dnd5e >= 4 weapons);
 *   `activity.rollDamage()` builds one DamageRoll per part, with `options.type` the part's
 *   damage type, and fires the hooks the installed dnd5e version fires:
 *     5.x:      `dnd5e.rollDamage(rolls, {subject})` then `dnd5e.rollDamageV2(rolls, {subject})`
 *     4.0-4.3:  `dnd5e.rollDamageV2(rolls, {subject})`, then the deprecated shim
 *               `dnd5e.rollDamage(item, rolls)` (only when something listens to it)
 *     3.x:      `Item5e#rollDamage` and `dnd5e.rollDamage(item, roll)`.
 *   Like dnd5e, it rolls in the current user's browser only (hooks are local).
 */
export class StandinItem {
  constructor(env, actor, { id, name = "Item", type = "weapon", damageTypes = ["piercing"], flags = {} }) {
    this.env = env;
    this.id = id ?? env.newId();
    this.name = name;
    this.type = type;
    this.parent = actor;
    this.flags = structuredClone(flags);
    this.documentName = "Item";
    this.system = { damage: { base: { types: new Set(damageTypes) } } };
    const item = this;
    this.activity = {
      id: `${this.id}-attack`,
      type: "attack",
      item,
      get actor() {
        return item.actor;
      },
      damage: { parts: [{ types: new Set(damageTypes) }] },
      rollDamage: () => item.rollDamage(),
    };
    this.system.activities = new StandinCollection([[this.activity.id, this.activity]]);
  }

  get actor() {
    return this.parent;
  }

  getFlag(scope, key) {
    return this.flags?.[scope]?.[key];
  }

  async rollDamage() {
    const [major, minor] = String(this.env.game.system.version).split(".").map(Number);
    const types = [...this.system.damage.base.types];
    const rolls = (types.length ? types : [undefined]).map((type) => {
      const value = 1 + Math.floor(this.env.random() * 4);
      return new StandinRoll({
        class: "DamageRoll",
        options: type ? { type, types: [type] } : {},
        formula: "1d4",
        terms: [{ class: "Die", number: 1, faces: 4, modifiers: [], results: [{ result: value, active: true }], evaluated: true }],
        total: value,
        evaluated: true,
      });
    });
    const hooks = this.env.hooks;
    if (major >= 5) {
      hooks.callAll("dnd5e.rollDamage", rolls, { subject: this.activity });
      hooks.callAll("dnd5e.rollDamageV2", rolls, { subject: this.activity });
    } else if (major === 4) {
      hooks.callAll("dnd5e.rollDamageV2", rolls, { subject: this.activity });
      if (minor < 4 && hooks.handlers.get("dnd5e.rollDamage")?.length) hooks.callAll("dnd5e.rollDamage", this, rolls);
    } else {
      hooks.callAll("dnd5e.rollDamage", this, rolls[0]);
    }
    return rolls;
  }
}

/* ------------------------------------------------------------------ scenes, tokens, regions */

function positionOf(token) {
  return { x: token.x, y: token.y, elevation: token.elevation, width: token.width, height: token.height };
}

/**
 * TokenDocument — https://foundryvtt.com/api/classes/foundry.documents.TokenDocument.html
 *   update(changes, options): fires `updateToken(doc, changed, options, userId)`; on v13 a
 *     position change is a movement and also fires `moveToken`.
 *   move(waypoints, options) (v13): moves through the waypoints, one update operation per
 *     checkpoint, each firing `moveToken(doc, movement, operation, user)`
 *     (https://foundryvtt.com/api/functions/hookEvents.moveToken.html) with `movement.id`,
 *     `origin`, `passed.waypoints`, `pending.waypoints`, `method`, `updateOptions`.
 *   stopMovement() (v13).
 */
export class StandinTokenDocument {
  constructor(env, scene, data) {
    this.env = env;
    this.parent = scene;
    this.id = data.id ?? env.newId();
    this.name = data.name ?? env.game.actors.get(data.actorId)?.name ?? "Token";
    this.actorId = data.actorId ?? null;
    this.x = data.x ?? 0;
    this.y = data.y ?? 0;
    this.elevation = data.elevation ?? 0;
    this.width = data.width ?? 1;
    this.height = data.height ?? 1;
    this.hidden = Boolean(data.hidden);
    this.disposition = data.disposition ?? 1;
    this.flags = {};
    this.documentName = "Token";
    this.stopMovementCalls = 0;
    this.moveCalls = [];
  }

  get actor() {
    return this.actorId ? this.env.game.actors.get(this.actorId) ?? null : null;
  }

  get object() {
    return null;
  }

  async update(changes, options = {}) {
    const before = positionOf(this);
    const changed = { _id: this.id };
    for (const [key, value] of Object.entries(changes)) {
      if (this[key] !== value) {
        this[key] = value;
        changed[key] = value;
      }
    }
    const user = this.env.game.user;
    this.env.hooks.callAll("updateToken", this, changed, options, user?.id);
    const moved = ["x", "y", "elevation"].some((k) => k in changed);
    if (moved && this.env.generation >= 13 && !options._fromMove) {
      const destination = positionOf(this);
      this.env.hooks.callAll("moveToken", this, {
        id: this.env.newId(),
        chain: [],
        origin: before,
        destination,
        passed: { waypoints: [{ ...destination, action: "walk", checkpoint: true }] },
        pending: { waypoints: [] },
        method: options.method ?? "api",
        updateOptions: options,
      }, options, user);
    }
    return this;
  }

  async move(waypoints, options = {}) {
    if (this.env.generation < 13) throw new Error("TokenDocument#move exists from v13 on");
    this.moveCalls.push({ waypoints, options });
    const movementId = options.movementId ?? this.env.newId();
    const origin = positionOf(this);
    const full = waypoints.map((w) => ({
      x: w.x ?? this.x,
      y: w.y ?? this.y,
      elevation: w.elevation ?? this.elevation,
      width: this.width,
      height: this.height,
      action: w.action ?? "walk",
      checkpoint: w.checkpoint ?? true,
    }));
    // One update operation per checkpoint (the last waypoint always ends a section).
    const sections = [];
    let current = [];
    full.forEach((w, i) => {
      current.push(w);
      if (w.checkpoint || i === full.length - 1) {
        sections.push(current);
        current = [];
      }
    });
    const user = this.env.game.user;
    let passedSoFar = 0;
    for (const section of sections) {
      const last = section[section.length - 1];
      const { x, y, elevation } = last;
      await this.update({ x, y, elevation }, { ...options, _fromMove: true });
      passedSoFar += section.length;
      this.env.hooks.callAll("moveToken", this, {
        id: movementId,
        chain: [],
        origin,
        destination: full[full.length - 1],
        passed: { waypoints: section },
        pending: { waypoints: full.slice(passedSoFar) },
        method: options.method ?? "api",
        updateOptions: options,
      }, options, user);
    }
    return true;
  }

  stopMovement() {
    this.stopMovementCalls += 1;
  }

  async setFlag(scope, key, value) {
    return this.update({ flags: { ...this.flags, [scope]: { ...(this.flags[scope] ?? {}), [key]: value } } });
  }
}

/**
 * A RegionBehavior document — https://foundryvtt.com/api/classes/foundry.documents.RegionBehavior.html
 * `system` is an instance of `CONFIG.RegionBehavior.dataModels[type]`.
 */
export class StandinRegionBehavior {
  constructor(env, region, { id, type, system = {}, disabled = false, name = "" }) {
    const Model = env.CONFIG.RegionBehavior.dataModels[type];
    this.id = id ?? env.newId();
    this.parent = region;
    this.type = type;
    this.name = name;
    this.disabled = disabled;
    this.system = Model ? new Model(system, { parent: this }) : { ...system };
    this.documentName = "RegionBehavior";
  }
}

/**
 * RegionDocument — https://foundryvtt.com/api/classes/foundry.documents.RegionDocument.html
 * `shapes` (rectangle/circle/ellipse/polygon data, each with `hole`), `elevation {bottom,
 * top}`, embedded `behaviors`; `setFlag` fires `updateRegion`.
 */
export class StandinRegionDocument {
  constructor(env, scene, data) {
    this.env = env;
    this.parent = scene;
    this.id = data.id ?? env.newId();
    this.name = data.name ?? "Region";
    this.shapes = (data.shapes ?? []).map((s) => ({ hole: false, ...s }));
    this.elevation = { bottom: null, top: null, ...(data.elevation ?? {}) };
    this.flags = {};
    this.behaviors = new StandinCollection();
    for (const b of data.behaviors ?? []) {
      const behavior = new StandinRegionBehavior(env, this, b);
      this.behaviors.set(behavior.id, behavior);
    }
    this.documentName = "Region";
  }

  getFlag(scope, key) {
    return this.flags?.[scope]?.[key];
  }

  async setFlag(scope, key, value) {
    this.flags[scope] ??= {};
    const previous = this.flags[scope][key];
    this.flags[scope][key] = value && typeof value === "object" && previous && typeof previous === "object"
      ? { ...previous, ...value } : value;
    this.env.hooks.callAll("updateRegion", this, { _id: this.id, flags: { [scope]: { [key]: value } } }, {}, this.env.game.user?.id);
    return this;
  }

  async createEmbeddedDocuments(type, data) {
    if (type !== "RegionBehavior") throw new Error(`no ${type} in a Region`);
    return data.map((d) => {
      const behavior = new StandinRegionBehavior(this.env, this, d);
      this.behaviors.set(behavior.id, behavior);
      this.env.hooks.callAll("createRegionBehavior", behavior, {}, this.env.game.user?.id);
      return behavior;
    });
  }
}

/**
 * WallDocument — https://foundryvtt.com/api/classes/foundry.documents.WallDocument.html
 * `c` [x0, y0, x1, y1], `sight` / `move` (CONST.WALL_SENSE_TYPES / WALL_MOVEMENT_TYPES),
 * `door` (CONST.WALL_DOOR_TYPES: 0 none, 1 door, 2 secret), `ds` (CONST.WALL_DOOR_STATES:
 * 0 closed, 1 open, 2 locked). `update(changes)` fires `updateWall(wall, changed, options,
 * userId)` (https://foundryvtt.com/api/functions/hookEvents.updateDocument.html) with the
 * changed fields only, as the opening user's browser and every other client see it.
 */
export class StandinWallDocument {
  constructor(env, scene, w) {
    this.env = env;
    this.parent = scene;
    this.id = w.id ?? env.newId();
    this.c = [...w.c];
    this.sight = w.sight ?? 20;
    this.move = w.move ?? 20;
    this.door = w.door ?? 0;
    this.ds = w.ds ?? 0;
    this.documentName = "Wall";
  }

  async update(changes, options = {}) {
    const changed = { _id: this.id };
    for (const [key, value] of Object.entries(changes)) {
      if (this[key] !== value) {
        this[key] = value;
        changed[key] = value;
      }
    }
    this.env.hooks.callAll("updateWall", this, changed, options, this.env.game.user?.id);
    return this;
  }
}

/**
 * Scene — https://foundryvtt.com/api/classes/foundry.documents.Scene.html
 * `grid {size, distance, units}`, `dimensions {width, height}`, embedded `tokens`, `regions`;
 * createEmbeddedDocuments / deleteEmbeddedDocuments fire create<Type> / delete<Type>.
 */
export class StandinScene {
  constructor(env, data) {
    this.env = env;
    this.id = data.id ?? env.newId();
    this.name = data.name ?? "Scene";
    this.active = Boolean(data.active);
    this.width = data.width ?? 4000;
    this.height = data.height ?? 3000;
    this.padding = data.padding ?? 0;
    this.grid = { size: 100, distance: 5, units: "ft", ...(data.grid ?? {}) };
    this.tokens = new StandinCollection();
    this.regions = new StandinCollection();
    this.walls = new StandinCollection();
    for (const w of data.walls ?? []) {
      const wall = new StandinWallDocument(env, this, w);
      this.walls.set(wall.id, wall);
    }
    this.documentName = "Scene";
  }

  get dimensions() {
    const pad = Math.ceil(this.padding * Math.max(this.width, this.height) / this.grid.size) * this.grid.size;
    return { width: this.width + 2 * pad, height: this.height + 2 * pad, size: this.grid.size };
  }

  async createEmbeddedDocuments(type, data, options = {}) {
    const userId = this.env.game.user?.id;
    if (type === "Token") {
      return data.map((d) => {
        const token = new StandinTokenDocument(this.env, this, d);
        this.tokens.set(token.id, token);
        this.env.hooks.callAll("createToken", token, options, userId);
        return token;
      });
    }
    if (type === "Region") {
      return data.map((d) => {
        const region = new StandinRegionDocument(this.env, this, d);
        this.regions.set(region.id, region);
        this.env.hooks.callAll("createRegion", region, options, userId);
        return region;
      });
    }
    throw new Error(`no ${type} in a Scene`);
  }

  async deleteEmbeddedDocuments(type, ids, options = {}) {
    const collection = type === "Token" ? this.tokens : type === "Region" ? this.regions : null;
    if (!collection) throw new Error(`no ${type} in a Scene`);
    return ids.map((id) => {
      const doc = collection.get(id);
      collection.delete(id);
      this.env.hooks.callAll(`delete${type}`, doc, options, this.env.game.user?.id);
      return doc;
    });
  }
}

/* ------------------------------------------------------------------ combat */

/**
 * Combat / Combatant — https://foundryvtt.com/api/classes/foundry.documents.Combat.html
 * `Combat.create(data)` (via `CONFIG.Combat.documentClass`), `combatants`, `turns` (sorted by
 * initiative, highest first), `round`, `turn`, `active`, `scene`;
 * createEmbeddedDocuments("Combatant"), deleteEmbeddedDocuments, setInitiative(id, value),
 * startCombat / nextTurn (fire `updateCombat` and `combatTurnChange(combat, prior, current)`),
 * delete (fires `deleteCombat`).
 */
export function makeCombatClass(env) {
  return class StandinCombat {
    constructor(data = {}) {
      this.id = data.id ?? env.newId();
      this.sceneId = data.scene ?? null;
      this.active = Boolean(data.active);
      this.round = 0;
      this.turn = null;
      this.combatants = new StandinCollection();
      this.documentName = "Combat";
    }

    static async create(data = {}) {
      const combat = new this(data);
      env.game.combats.set(combat.id, combat);
      env.hooks.callAll("createCombat", combat, {}, env.game.user?.id);
      return combat;
    }

    get scene() {
      return this.sceneId ? env.game.scenes.get(this.sceneId) ?? null : null;
    }

    get turns() {
      return [...this.combatants].sort((a, b) => (b.initiative ?? -Infinity) - (a.initiative ?? -Infinity));
    }

    get combatant() {
      return this.turn === null ? null : this.turns[this.turn] ?? null;
    }

    async createEmbeddedDocuments(type, data) {
      if (type !== "Combatant") throw new Error(`no ${type} in a Combat`);
      return data.map((d) => {
        const combatant = {
          id: env.newId(),
          name: d.name ?? "",
          tokenId: d.tokenId ?? null,
          sceneId: d.sceneId ?? null,
          actorId: d.actorId ?? null,
          initiative: d.initiative ?? null,
          defeated: Boolean(d.defeated),
          hidden: Boolean(d.hidden),
          flags: structuredClone(d.flags ?? {}),
          parent: this,
        };
        this.combatants.set(combatant.id, combatant);
        env.hooks.callAll("createCombatant", combatant, {}, env.game.user?.id);
        return combatant;
      });
    }

    async deleteEmbeddedDocuments(type, ids) {
      if (type !== "Combatant") throw new Error(`no ${type} in a Combat`);
      return ids.map((id) => {
        const combatant = this.combatants.get(id);
        this.combatants.delete(id);
        env.hooks.callAll("deleteCombatant", combatant, {}, env.game.user?.id);
        return combatant;
      });
    }

    async setInitiative(id, value) {
      const combatant = this.combatants.get(id);
      combatant.initiative = value;
      env.hooks.callAll("updateCombatant", combatant, { initiative: value }, {}, env.game.user?.id);
    }

    #ref() {
      const c = this.combatant;
      return { round: this.round, turn: this.turn, tokenId: c?.tokenId ?? null, combatantId: c?.id ?? null };
    }

    async #advance(round, turn) {
      const prior = this.#ref();
      const changed = {};
      if (round !== this.round) changed.round = round;
      if (turn !== this.turn) changed.turn = turn;
      this.round = round;
      this.turn = turn;
      env.hooks.callAll("updateCombat", this, changed, {}, env.game.user?.id);
      env.hooks.callAll("combatTurnChange", this, prior, this.#ref());
    }

    async startCombat() {
      return this.#advance(1, 0);
    }

    async nextTurn() {
      const last = this.turns.length - 1;
      return this.turn >= last ? this.#advance(this.round + 1, 0) : this.#advance(this.round, this.turn + 1);
    }

    async delete() {
      env.game.combats.delete(this.id);
      env.hooks.callAll("deleteCombat", this, {}, env.game.user?.id);
    }
  };
}

/* ------------------------------------------------------------------ data models */

/**
 * foundry.data.fields — https://foundryvtt.com/api/modules/foundry.data.fields.html
 * StringField / NumberField / BooleanField with `initial`, `nullable`, `blank`, `min`, `max`,
 * `choices` and a custom `validate` (returning false = invalid).
 */
class StandinDataField {
  constructor(options = {}) {
    this.options = options;
    this.initial = options.initial;
  }

  clean(value) {
    return value === undefined ? (typeof this.initial === "function" ? this.initial() : this.initial) : value;
  }

  validate(value) {
    if (value === null && this.options.nullable) return true;
    if (!this._validType(value)) return false;
    if (this.options.choices) {
      const choices = typeof this.options.choices === "function" ? this.options.choices() : this.options.choices;
      const keys = Array.isArray(choices) ? choices : Object.keys(choices);
      if (!keys.includes(value)) return false;
    }
    return this.options.validate ? this.options.validate(value) !== false : true;
  }
}

class StandinStringField extends StandinDataField {
  _validType(value) {
    return typeof value === "string" && (this.options.blank !== false || value !== "");
  }
}

class StandinNumberField extends StandinDataField {
  _validType(value) {
    if (typeof value !== "number" || !Number.isFinite(value)) return false;
    if (this.options.min !== undefined && value < this.options.min) return false;
    if (this.options.max !== undefined && value > this.options.max) return false;
    return true;
  }
}

class StandinBooleanField extends StandinDataField {
  constructor(options = {}) {
    super({ initial: false, ...options });
  }

  _validType(value) {
    return typeof value === "boolean";
  }
}

/**
 * RegionBehaviorType — https://foundryvtt.com/api/classes/foundry.data.regionBehaviors.RegionBehaviorType.html
 * A TypeDataModel: `static defineSchema()`; construction fills initial values and throws on
 * invalid data, like DataModel validation.
 */
export class StandinRegionBehaviorType {
  constructor(data = {}, { parent = null } = {}) {
    this.parent = parent;
    const schema = this.constructor.defineSchema();
    for (const [name, field] of Object.entries(schema)) {
      const value = field.clean(data[name]);
      if (!field.validate(value)) throw new Error(`${this.constructor.name} validation: ${name} is invalid`);
      this[name] = value;
    }
  }

  static defineSchema() {
    return {};
  }
}


/* ------------------------------------------------------------------ HTML elements and applications */

/**
 * Where a real DOM exists (the browser harness), stand-ins render real elements. In Node a
 * StandinElement records the HTML written into it and lets a test "click" an element by its
 * data attributes, the way delegated listeners see a click:
 *   element.click({action: "undo", eventId: "e1"})  -> target.closest(...) finds that button.
 */
export class StandinElement {
  constructor(html = "") {
    this.innerHTML = html;
    this.listeners = [];
    this.dataset = {};
    this.classList = new Set();
    this.removed = false;
  }

  insertAdjacentHTML(_position, html) {
    this.innerHTML += html;
  }

  addEventListener(type, fn) {
    this.listeners.push({ type, fn });
  }

  querySelector() {
    return null;
  }

  querySelectorAll() {
    return [];
  }

  remove() {
    this.removed = true;
  }

  /** A click on an element with these data attributes (dataset keys, camelCase). */
  async click(dataset = {}, { disabled = false } = {}) {
    const button = { dataset: { ...dataset }, disabled, tagName: "BUTTON", closest: () => button };
    const event = { type: "click", target: button, currentTarget: this, preventDefault() {}, stopPropagation() {} };
    const results = this.listeners.filter((l) => l.type === "click").map((l) => l.fn(event));
    await Promise.all(results);
    return button;
  }
}

/** @returns {boolean} a real DOM is there */
function hasDom() {
  return typeof document !== "undefined" && typeof document.createElement === "function";
}

/** @returns {HTMLElement|StandinElement} */
function makeElement(tag = "div", className = "") {
  if (!hasDom()) return new StandinElement();
  const element = document.createElement(tag);
  if (className) element.className = className;
  return element;
}

/** Deep-merge option objects the way ApplicationV2 merges DEFAULT_OPTIONS down the class chain. */
function mergeOptions(base, extra) {
  const out = { ...base };
  for (const [key, value] of Object.entries(extra ?? {})) {
    out[key] = value && typeof value === "object" && !Array.isArray(value) && out[key] && typeof out[key] === "object"
      ? mergeOptions(out[key], value) : value;
  }
  return out;
}

/**
 * ApplicationV2 — https://foundryvtt.com/api/classes/foundry.applications.api.ApplicationV2.html
 * (v12: https://foundryvtt.com/api/v12/classes/foundry.applications.api.ApplicationV2.html; it
 * exists from v12 on). `static DEFAULT_OPTIONS` (merged down the class chain: id, classes,
 * window {title}, position {width, height, left, top}, actions {name: handler}); `render(options)`
 * runs `_prepareContext(options)`, `_renderHTML(context, options)` and
 * `_replaceHTML(result, content, options)`; a click on `[data-action]` calls
 * `actions[name].call(app, event, target)`; `close()`; `rendered`, `element`, `id`, `title`;
 * `foundry.applications.instances` (v13) holds the rendered ones.
 */
export function makeApplicationV2(env) {
  return class StandinApplicationV2 {
    static DEFAULT_OPTIONS = { id: "app-{id}", classes: [], window: { title: "" }, position: {}, actions: {} };

    constructor(options = {}) {
      const chain = [];
      for (let cls = this.constructor; cls && cls !== Object; cls = Object.getPrototypeOf(cls)) {
        if (Object.prototype.hasOwnProperty.call(cls, "DEFAULT_OPTIONS")) chain.unshift(cls.DEFAULT_OPTIONS);
      }
      this.options = [...chain, options].reduce(mergeOptions, {});
      this.options.id = String(this.options.id ?? "app-{id}").replace("{id}", env.newId());
      this.position = { ...(this.options.position ?? {}) };
      this.element = null;
      this.rendered = false;
      this.renderCount = 0;
    }

    get id() {
      return this.options.id;
    }

    get title() {
      return this.options.window?.title ?? "";
    }

    async _prepareContext(_options) {
      return {};
    }

    async render(options = {}) {
      const opts = typeof options === "boolean" ? { force: options } : options;
      if (!this.rendered && !opts.force) return this;
      const context = await this._prepareContext(opts);
      const result = await this._renderHTML(context, opts);
      if (!this.element) this.#createFrame();
      this._replaceHTML(result, this.content, opts);
      this.rendered = true;
      this.renderCount += 1;
      env.foundry.applications.instances.set(this.id, this);
      env.hooks.callAll(`render${this.constructor.name}`, this, this.element, context, opts);
      return this;
    }

    async close() {
      this.element?.remove();
      this.element = null;
      this.content = null;
      this.rendered = false;
      env.foundry.applications.instances.delete(this.id);
      return this;
    }

    bringToFront() {}

    #createFrame() {
      const frame = makeElement("div", ["application", ...(this.options.classes ?? [])].join(" "));
      if (hasDom()) {
        frame.id = this.id;
        const { width, height, left = 40, top = 40 } = this.position;
        Object.assign(frame.style, {
          position: "absolute", left: `${left}px`, top: `${top}px`, zIndex: 50,
          width: width ? `${width}px` : "", height: height && height !== "auto" ? `${height}px` : "",
          background: "#f4f1e8", border: "1px solid #444", boxShadow: "0 0 10px #0006",
        });
        const header = document.createElement("header");
        header.className = "window-header";
        Object.assign(header.style, { background: "#302c27", color: "#f0ead6", padding: "4px 8px" });
        const h1 = document.createElement("h1");
        h1.className = "window-title";
        Object.assign(h1.style, { fontSize: "15px", margin: "0" });
        h1.textContent = this.title;
        header.append(h1);
        const content = document.createElement("section");
        content.className = "window-content";
        content.style.padding = "8px";
        frame.append(header, content);
        document.body.append(frame);
        this.content = content;
      } else {
        this.content = frame;
      }
      this.element = frame;
      frame.addEventListener("click", (event) => {
        const target = event.target?.closest?.("[data-action]");
        const name = target?.dataset?.action;
        const handler = name ? this.options.actions?.[name] : undefined;
        if (name === "close") return this.close();
        return handler?.call(this, event, target);
      });
    }
  };
}

/**
 * The HTML a render hook receives: v13 passes an HTMLElement; v12 passes a jQuery object
 * (its first item is the element). The stand-in for jQuery is an array-like with `jquery`.
 */
function hookHtml(env, element) {
  return env.generation >= 13 ? element : Object.assign([element], { jquery: "3.7.1" });
}

/**
 * Rendering hooks of the UI the module decorates:
 *   chat: v13 `renderChatMessageHTML(message, html: HTMLElement, context)`
 *     (https://foundryvtt.com/api/functions/hookEvents.renderChatMessageHTML.html);
 *     v12 `renderChatMessage(message, html: jQuery, data)`
 *     (https://foundryvtt.com/api/v12/functions/hookEvents.renderChatMessage.html).
 *   token HUD: `renderTokenHUD(hud, html, data)`; v13 TokenHUD is an ApplicationV2 with
 *     `document` and `object`; v12 `hud.object` is the Token whose `document` is the TokenDocument
 *     (https://foundryvtt.com/api/classes/foundry.applications.hud.TokenHUD.html).
 *   scene controls: `getSceneControlButtons(controls)`; v13 `controls` is a record of
 *     `{name, tools: {name: {name, title, icon, button, onChange, order}}}`
 *     (https://foundryvtt.com/api/functions/hookEvents.getSceneControlButtons.html); v12 an array
 *     of `{name, tools: [{name, title, icon, button, onClick}]}`.
 */
export function installUiHelpers(env) {
  env.renderChatMessage = (message) => {
    const element = makeElement("li", "chat-message");
    if (hasDom()) element.innerHTML = `<div class="message-content">${message.content}</div>`;
    else element.innerHTML = message.content;
    const hook = env.generation >= 13 ? "renderChatMessageHTML" : "renderChatMessage";
    env.hooks.callAll(hook, message, hookHtml(env, element), {});
    return element;
  };

  env.renderTokenHUD = (token) => {
    const element = makeElement("div", "token-hud");
    if (hasDom()) element.innerHTML = `<div class="col left"></div><div class="col middle"></div><div class="col right"></div>`;
    const placeable = { document: token, id: token.id };
    const hud = env.generation >= 13 ? { document: token, object: placeable, close() {} } : { object: placeable, close() {} };
    env.hooks.callAll("renderTokenHUD", hud, hookHtml(env, element), {});
    return element;
  };

  env.sceneControls = () => {
    const controls = env.generation >= 13
      ? { tokens: { name: "tokens", tools: { select: { name: "select", order: 1 } } } }
      : [{ name: "token", tools: [{ name: "select" }] }];
    env.hooks.callAll("getSceneControlButtons", controls);
    return controls;
  };

  /** Target tokens as the current user (`game.user.targets`: Token placeables). */
  env.targetTokens = (tokenIds, scene = env.canvas.scene) => {
    env.game.user.targets = new Set(tokenIds.map((id) => {
      const document = scene.tokens.get(id);
      return { id, document, actor: document?.actor ?? null, name: document?.name };
    }));
  };

  /** Select tokens on the canvas (`canvas.tokens.controlled`: Token placeables). */
  env.controlTokens = (tokenIds) => {
    const scene = env.canvas.scene;
    env.canvas.tokens.controlled = tokenIds.map((id) => {
      const document = scene.tokens.get(id);
      return { id, document, actor: document?.actor ?? null, name: document?.name };
    });
  };
}

/* ------------------------------------------------------------------ dialogs, sockets */

/**
 * DialogV2 — https://foundryvtt.com/api/classes/foundry.applications.api.DialogV2.html
 * `confirm({window, content, yes, no, render, rejectClose})` resolves true / false, or null
 * when closed. The stand-in asks `env.dialogResponder(options)`, which returns true, false, or
 * "wait" (the user does nothing until the dialog is closed).
 * `wait({window, content, buttons: [{action, label, default, callback(event, button, dialog)}],
 * rejectClose})` resolves with the clicked button's callback result (or its `action` when it
 * has no callback), or null when closed. The responder returns `{action, values}` (the form's
 * fields by name; `button.form.elements` carries them as inputs) or null (closed).
 */
export function makeDialogV2(env) {
  return class StandinDialogV2 {
    static async wait(options = {}) {
      env.dialogs.push(options);
      const answer = env.dialogResponder(options);
      if (!answer || typeof answer !== "object") return null;
      const button = (options.buttons ?? []).find((b) => b.action === answer.action);
      if (!button) return null;
      const elements = Object.entries(answer.values ?? {}).map(([name, value]) => (
        typeof value === "boolean" ? { name, type: "checkbox", checked: value, value: "on" }
          : Array.isArray(value) ? { name, type: "select-multiple", multiple: true, selectedOptions: value.map((v) => ({ value: v })) }
            : { name, type: "text", value: String(value) }
      ));
      const form = { elements };
      const target = { form, dataset: { action: button.action } };
      return button.callback ? button.callback({ target }, target, { form }) : button.action;
    }

    static confirm(options = {}) {
      env.dialogs.push(options);
      return new Promise((resolve) => {
        const dialog = { closed: false, close: () => { dialog.closed = true; resolve(null); } };
        options.render?.({ target: dialog }, dialog);
        const answer = env.dialogResponder(options);
        if (answer === true || answer === false) queueMicrotask(() => resolve(answer));
      });
    }
  };
}

/**
 * A module socket bus standing in for `game.socket` (https://foundryvtt.com/api/classes/io.Socket.html
 * as Foundry exposes it): `emit(name, data)` reaches every *other* connected client.
 */
export function createSocketBus() {
  const sockets = [];
  return {
    connect() {
      const handlers = new Map();
      const socket = {
        emitted: [],
        on(name, fn) {
          if (!handlers.has(name)) handlers.set(name, []);
          handlers.get(name).push(fn);
        },
        emit(name, data) {
          socket.emitted.push([name, data]);
          for (const other of sockets) {
            if (other === socket) continue;
            for (const fn of other.handlers.get(name) ?? []) queueMicrotask(() => fn(structuredClone(data)));
          }
        },
        handlers,
      };
      sockets.push(socket);
      return socket;
    },
  };
}

/* ------------------------------------------------------------------ the environment */

/**
 * Build a world: `game`, `Hooks`, `CONFIG`, `ui`, `foundry`, `ChatMessage`, `Roll`, `canvas`.
 * @param {object} [options]
 * @param {12|13} [options.generation=13]      Foundry major version
 * @param {string} [options.systemVersion="5.3.3"]  dnd5e version
 * @param {string} [options.rulesVersion="modern"]  dnd5e setting "rulesVersion"
 * @param {string} [options.lang="en"]
 * @param {object} [options.translations]       lang file contents
 * @param {number} [options.seed=1]
 * @param {Storage|null} [options.storage]      where client settings persist
 * @param {{connect: Function}} [options.socketBus]
 * @returns {object} the environment
 */
export function createFoundryEnv({
  generation = 13,
  systemVersion = "5.3.3",
  rulesVersion = "modern",
  lang = "en",
  translations = {},
  seed = 1,
  storage = null,
  socketBus = createSocketBus(),
  worldId = "test-world",
} = {}) {
  const env = {
    generation,
    random: seededRandom(seed),
    hooks: new StandinHooks(),
    dialogs: [],
    dialogResponder: () => true,
    unsafeSpeakerCalls: 0,
    notifications: [],
  };
  let idCounter = 0;
  const idRandom = seededRandom(seed + 1000);
  env.newId = () => {
    idCounter += 1;
    return `id${String(idCounter).padStart(4, "0")}${Math.floor(idRandom() * 1e8).toString(36)}`.slice(0, 16);
  };

  const notify = (type) => (message) => {
    env.notifications.push({ type, message });
    return { type, message };
  };
  env.ui = { notifications: { info: notify("info"), warn: notify("warn"), error: notify("error") } };

  env.Roll = StandinRoll;
  env.ChatMessage = makeChatMessageClass(env);
  const Combat = makeCombatClass(env);

  env.CONFIG = {
    RegionBehavior: { dataModels: {}, typeLabels: {}, typeIcons: {} },
    Combat: { documentClass: Combat },
    // dnd5e localises its CONFIG at setup, so labels are display text by the time we read them
    DND5E: {
      abilities: {
        str: { label: "Strength" },
        dex: { label: "Dexterity" },
        con: { label: "Constitution" },
        int: { label: "Intelligence" },
        wis: { label: "Wisdom" },
        cha: { label: "Charisma" },
      },
    },
  };
  // CONFIG.queries exists from v13 on (https://foundryvtt.com/api/variables/CONFIG.queries.html)
  if (generation >= 13) env.CONFIG.queries = {};

  env.foundry = {
    data: {
      fields: {
        StringField: StandinStringField,
        NumberField: StandinNumberField,
        BooleanField: StandinBooleanField,
      },
      regionBehaviors: { RegionBehaviorType: StandinRegionBehaviorType },
    },
    applications: { api: { DialogV2: makeDialogV2(env) }, instances: new Map() },
    utils: { getProperty, setProperty, expandObject, randomID: () => env.newId() },
  };

  const settings = new StandinSettings(storage);
  settings.register("dnd5e", "rulesVersion", { scope: "world", default: rulesVersion });

  const users = new StandinUsers();
  const modules = new StandinCollection();
  modules.set("vtt-sidecar", { id: "vtt-sidecar", version: "0.1.0", active: true, api: undefined });

  env.game = {
    world: { id: worldId, title: "Test World" },
    system: { id: "dnd5e", version: systemVersion },
    version: generation >= 13 ? "13.350" : "12.343",
    release: { generation },
    i18n: new StandinI18n(lang, translations),
    settings,
    users,
    user: null,
    userId: null,
    modules,
    actors: new StandinCollection(),
    scenes: new StandinCollection(),
    messages: new StandinCollection(),
    combats: new StandinCollection(),
    socket: socketBus.connect(),
    time: {
      worldTime: 0,
      async advance(delta) {
        env.game.time.worldTime += delta;
        env.hooks.callAll("updateWorldTime", env.game.time.worldTime, delta, {}, env.game.user?.id);
        return env.game.time.worldTime;
      },
    },
  };
  Object.defineProperty(env.game.scenes, "active", { get: () => env.game.scenes.find((s) => s.active) ?? null });
  Object.defineProperty(env.game, "combat", {
    get: () => env.game.combats.find((c) => c.active && (!c.scene || c.scene.id === env.canvas.scene?.id)) ?? null,
  });

  env.canvas = { ready: false, scene: null, tokens: { controlled: [] } };
  env.foundry.applications.api.ApplicationV2 = makeApplicationV2(env);
  // CONST — https://foundryvtt.com/api/modules/CONST.html (WALL_SENSE_TYPES, USER_ROLES)
  env.CONST = {
    USER_ROLES,
    WALL_SENSE_TYPES: { NONE: 0, LIMITED: 10, NORMAL: 20, PROXIMITY: 30, DISTANCE: 40 },
    // https://foundryvtt.com/api/variables/CONST.WALL_DOOR_TYPES.html, CONST.WALL_DOOR_STATES.html
    WALL_DOOR_TYPES: { NONE: 0, DOOR: 1, SECRET: 2 },
    WALL_DOOR_STATES: { CLOSED: 0, OPEN: 1, LOCKED: 2 },
  };
  installUiHelpers(env);

  /* ---- builders for tests and the harness ---- */

  env.addUser = ({ id = env.newId(), name = "User", role = USER_ROLES.PLAYER, active = true, characterId = null } = {}) => {
    const user = new StandinUser(env, { id, name, role, active, characterId });
    users.set(user.id, user);
    return user;
  };

  env.setCurrentUser = (userId) => {
    env.game.user = users.get(userId) ?? null;
    env.game.userId = env.game.user?.id ?? null;
    return env.game.user;
  };

  /** Mark a user connected or not and fire `userConnected(user, connected)`. */
  env.setUserActive = (userId, active) => {
    const user = users.get(userId);
    user.active = active;
    env.hooks.callAll("userConnected", user, active);
    return user;
  };

  env.createActor = (data) => {
    const actor = new StandinActor(env, { id: env.newId(), name: "Actor", ...data });
    env.game.actors.set(actor.id, actor);
    return actor;
  };

  /** An Item on an actor (see StandinItem). */
  env.createItem = (actor, data = {}) => {
    const item = new StandinItem(env, actor, data);
    actor.items.set(item.id, item);
    return item;
  };

  /** A scene with tokens and regions, created without hooks (as if loaded with the world). */
  env.createScene = ({ tokens = [], regions = [], ...data } = {}) => {
    const scene = new StandinScene(env, data);
    env.game.scenes.set(scene.id, scene);
    for (const t of tokens) {
      const token = new StandinTokenDocument(env, scene, t);
      scene.tokens.set(token.id, token);
    }
    for (const r of regions) {
      const region = new StandinRegionDocument(env, scene, r);
      scene.regions.set(region.id, region);
    }
    return scene;
  };

  /** Draw a scene on the canvas and fire `canvasReady(canvas)`. */
  env.viewScene = (scene) => {
    env.canvas.scene = scene;
    env.canvas.ready = true;
    env.hooks.callAll("canvasReady", env.canvas);
  };

  /** Run a v13 query handler as the target user's browser would (User#query). */
  env.runQuery = (user, name, data, { timeout } = {}) => {
    const handler = env.CONFIG.queries?.[name];
    if (!handler) return Promise.reject(new Error(`no query handler ${name}`));
    const previous = env.game.user;
    env.game.user = user; // the handler runs "in" the target user's browser
    let result;
    try {
      result = Promise.resolve(handler(structuredClone(data), { timeout }));
    } finally {
      env.game.user = previous;
    }
    if (!timeout) return result;
    let timer;
    const expired = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error("query timed out")), timeout);
    });
    return Promise.race([result, expired]).finally(() => clearTimeout(timer));
  };

  return env;
}

/**
 * Put the environment's objects where Foundry puts them: on the global object.
 * @param {object} env
 * @param {object} [target=globalThis]
 */
export function installGlobals(env, target = globalThis) {
  target.game = env.game;
  target.Hooks = env.hooks;
  target.CONFIG = env.CONFIG;
  target.ui = env.ui;
  target.foundry = env.foundry;
  target.ChatMessage = env.ChatMessage;
  target.Roll = env.Roll;
  target.canvas = env.canvas;
  target.CONST = env.CONST;
}
