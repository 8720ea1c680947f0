/**
 * Browser harness for the VTT Rules Sidecar module: the Foundry/dnd5e stand-ins
 * (../foundry-standins.mjs) installed as globals, the real module (scripts/main.mjs) booted
 * through Foundry's `init` and `ready` hooks, and a real WebSocket to a real sidecar.
 * Meant to be driven by a browser test (Playwright) or by hand from the console.
 *
 * Serve the repository root over HTTP and open /vtt_module/test/harness/index.html.
 * Query parameters (all optional):
 *   generation=12|13   Foundry major version to imitate (default 13)
 *   lang=en|ru|zh-cn   game.i18n.lang and the module's language file (default en)
 *   world=ID           game.world.id (default "harness-world")
 *   system=VERSION     dnd5e version (default 5.3.3)
 *   rules=modern|legacy  dnd5e "rulesVersion" setting (default modern)
 *   user=ID            the user this page starts as (default the GM); a page that starts as a
 *                      player never connects
 *   role=1..4          that user's role when it is not one of the two built-in users
 *                      (default 1, player; 4 = a second GM)
 *   bus=NAME           join pages of one browser context into one "table": v13 `User#query`
 *                      to a user who is not this page's user, and v12 `game.socket`, travel
 *                      over a BroadcastChannel to the page whose user that is (a real player
 *                      page answers a save prompt). Without it both stay inside this page.
 *
 * The page starts as the GM ("gm0000000000000001", the active GM) with one player
 * ("player000000000001") logged in. The chat log (#chat) shows what the current user would
 * see (hidden whispers left out, blind content withheld from players), one
 * `<article data-message-id>` per message, and fires `renderChatMessageHTML(message, element,
 * context)` (v13) or `renderChatMessage(message, [element], data)` (v12) like Foundry's chat
 * log, so card buttons can be clicked in the page. All functions below live on `window.harness`; those
 * marked async return promises. Ids are Foundry-style strings.
 *
 *   ready: Promise<void>                 resolves once the module has booted
 *   configure({url, token, saveMode, saveTimeout, noticeRadius, dropTriggers,
 *              gmPicksAbility, debug})   async: set module settings (url/token reconnect)
 *   connect({timeoutMs=5000})            async: connect with the configured url/token; resolves
 *                                        with the status once connected, refused or unconfigured
 *   disconnect()                         close and stay closed
 *   status()                             {state, reason, retryInMs, upgraded}
 *   lastSeq()                            highest world seq applied
 *   users()                              [{id, name, isGM, active, role}]
 *   addUser({id?, name, role=1, active=true})        -> user id (role 4 = GM)
 *   setUserActive(userId, active)        log a user in/out (fires userConnected)
 *   switchUser(userId)                   act as that user in this page (re-checks who is the
 *                                        active GM: switching to a player stops the connection;
 *                                        the chat log is drawn again for that user)
 *   createActor({name, ownerId?, type="character", hp=10 | {value,max,temp}, ac, speed,
 *                abilities:{str:10,...}, saveProficiencies:[...], skillProficiencies:[...],
 *                level?, cr?, size, di, dr, dv, ci, statuses:[...], saveShape})  -> actor id
 *   createScene({id?, name, width, height, grid:{size,distance,units}, active=true,
 *                tokens:[{id?, name?, actorId? | actor:{...createActor args}, x, y,
 *                         elevation, width, height, hidden}],
 *                regions:[{id?, name, shapes:[{type:"rectangle",x,y,width,height}, ...],
 *                          elevation:{bottom,top}, trap:{trapId, overrides, once, originX,
 *                          originY, direction, track, hidden}}]})
 *                                        async: creates and views the scene (fires canvasReady,
 *                                        which sends scene.sync when connected)
 *                                        -> {sceneId, tokenIds:[...], regionIds:[...], actorIds:[...]}
 *   addTrapRegion(sceneId, {name, shapes, trap})   async: as a GM would (create hooks) -> region id
 *   addToken(sceneId, {actorId, x, y, ...})        async: drop a token (create hooks) -> token id
 *   moveToken(tokenId, path:[{x, y, elevation?, checkpoint?}], {method="dragging"})
 *                                        async: v13: TokenDocument#move through the waypoints;
 *                                        v12: one position update per point
 *   token(tokenId)                       {id, name, x, y, elevation, hidden, actorId}
 *   actor(actorId)                       {id, name, hp:{value,max,temp}, statuses:[...], exhaustion}
 *   applyDamage(actorId, amount)         async: damage from outside the sidecar (dnd5e path)
 *   rest(actorId, "short"|"long")        async: dnd5e rest completed
 *   advanceTime(seconds)                 async: game.time.advance
 *   startCombat(sceneId, [{tokenId?, name, initiative}])  async -> combat id (round 1 begins)
 *   nextTurn(combatId) / endCombat(combatId)              async
 *   gmAction(action, params)             send a gm.action -> event id (null if not active GM)
 *   setSaveAnswer(true|false|"wait")     what a player does when asked to roll a save
 *   chatMessages({visibleTo?})           [{id, content, whisper:[ids], blind, speaker, flags,
 *                                          rolls:[Roll JSON], visibleTo:{userId: bool},
 *                                          contentVisibleTo:{userId: bool}}]
 *   sentFrames(type?) / receivedFrames(type?)   parsed WebSocket frames, oldest first
 *   notifications()                      [{type: "info"|"warn"|"error", message}]
 *   holdChat() / releaseChat()           hold every ChatMessage.create until released (the module
 *                                        is then stuck applying a card and acks nothing: a
 *                                        result committed by the sidecar but not yet acked)
 *   queries()                            [{to, name, data, answered}] queries this page
 *                                        answered for another page (bus=NAME)
 *   state(kind, key?)                    sidecar `state` data the module stored
 *   undo(eventId)                        prior values recorded before that event's ops
 *   waitUntil(fn, timeoutMs=5000)        async: poll fn() until truthy; resolves with its value
 *   env                                  the raw stand-in environment (game, hooks, ...)
 *
 * Node runs every .mjs under test/ as a test: outside a browser this file does nothing.
 */

const GM_ID = "gm0000000000000001";
const PLAYER_ID = "player000000000001";

if (typeof window !== "undefined" && typeof document !== "undefined") {
  window.harness = createHarness(new URLSearchParams(window.location.search));
}

/**
 * @param {URLSearchParams} params
 * @returns {object} the harness API
 */
function createHarness(params) {
  const generation = Number(params.get("generation") ?? 13);
  const lang = params.get("lang") ?? "en";
  const sent = [];
  const received = [];
  const bus = params.get("bus");
  const answeredQueries = [];
  let chatHold = null;
  let env = null;
  let standins = null;

  const api = {};
  api.ready = boot().catch((error) => {
    document.getElementById("boot").textContent = `boot failed: ${error?.stack ?? error}`;
    throw error;
  });

  async function boot() {
    standins = await import("../foundry-standins.mjs");
    const translations = await fetchJson(`../../lang/${lang}.json`)
      .catch(() => fetchJson("../../lang/en.json"));
    env = standins.createFoundryEnv({
      generation,
      lang,
      translations,
      systemVersion: params.get("system") ?? "5.3.3",
      rulesVersion: params.get("rules") ?? "modern",
      worldId: params.get("world") ?? "harness-world",
      storage: window.localStorage,
      seed: Number(params.get("seed") ?? 1),
      ...(bus ? { socketBus: broadcastSocketBus(bus) } : {}),
    });
    if (bus) bridgeQueries(env, bus, generation, answeredQueries);
    standins.installGlobals(env, window);
    window.WebSocket = recordingWebSocket(window.WebSocket, sent, received);
    env.addUser({ id: GM_ID, name: "Gamemaster", role: standins.USER_ROLES.GAMEMASTER });
    env.addUser({ id: PLAYER_ID, name: "Player", role: standins.USER_ROLES.PLAYER });
    const startAs = params.get("user") ?? GM_ID;
    if (!env.game.users.get(startAs)) {
      env.addUser({ id: startAs, name: startAs, role: Number(params.get("role") ?? standins.USER_ROLES.PLAYER) });
    }
    env.setCurrentUser(startAs);
    env.hooks.on("createChatMessage", (message) => showMessage(message));
    api.env = env;

    await import("../../scripts/main.mjs");
    for (const hook of ["init", "i18nInit", "setup", "ready"]) env.hooks.callAll(hook);
    document.getElementById("boot").textContent = `ready: Foundry v${generation}, dnd5e ${env.game.system.version}, ${lang}`;
  }

  const moduleApi = () => env.game.modules.get("vtt-sidecar").api;
  const connection = () => moduleApi().connection;

  Object.assign(api, {
    async configure(settings = {}) {
      const keys = {
        url: "sidecarUrl",
        token: "worldToken",
        saveMode: "saveMode",
        saveTimeout: "saveTimeout",
        noticeRadius: "noticeRadius",
        dropTriggers: "dropTriggers",
        gmPicksAbility: "gmPicksAbility",
        debug: "debug",
      };
      for (const [name, value] of Object.entries(settings)) {
        if (!(name in keys)) throw new Error(`unknown setting ${name}`);
        await env.game.settings.set("vtt-sidecar", keys[name], value);
      }
    },

    async connect({ timeoutMs = 5000 } = {}) {
      if (!["connected", "connecting", "reconnecting"].includes(api.status().state)) connection().reconfigure();
      connection().start();
      await api.waitUntil(() => ["connected", "refused", "unconfigured"].includes(api.status().state), timeoutMs);
      return api.status();
    },

    disconnect() {
      connection().stop();
    },

    status() {
      return { ...connection().status };
    },

    lastSeq() {
      return connection().lastSeq;
    },

    users() {
      return [...env.game.users].map((u) => ({ id: u.id, name: u.name, role: u.role, isGM: u.isGM, active: u.active }));
    },

    addUser({ id, name = "User", role = 1, active = true } = {}) {
      return env.addUser({ id, name, role, active }).id;
    },

    setUserActive(userId, active) {
      env.setUserActive(userId, active);
    },

    switchUser(userId) {
      if (!env.setCurrentUser(userId)) throw new Error(`no user ${userId}`);
      moduleApi().checkActiveGM();
      renderChatLog();
      return api.status();
    },

    createActor(spec = {}) {
      return makeActor(spec).id;
    },

    async createScene({ tokens = [], regions = [], active = true, ...data } = {}) {
      const actorIds = [];
      const tokenData = tokens.map((t) => {
        const { actor, ...rest } = t;
        if (actor) {
          const made = makeActor(actor);
          actorIds.push(made.id);
          return { ...rest, actorId: made.id };
        }
        return rest;
      });
      const scene = env.createScene({
        ...data,
        active,
        tokens: tokenData,
        regions: regions.map(regionSpec),
      });
      if (active) {
        for (const other of env.game.scenes) if (other !== scene) other.active = false;
      }
      env.viewScene(scene);
      return {
        sceneId: scene.id,
        tokenIds: [...scene.tokens].map((t) => t.id),
        regionIds: [...scene.regions].map((r) => r.id),
        actorIds,
      };
    },

    async addTrapRegion(sceneId, spec) {
      const [region] = await scene(sceneId).createEmbeddedDocuments("Region", [regionSpec(spec)]);
      return region.id;
    },

    async addToken(sceneId, spec) {
      const [token] = await scene(sceneId).createEmbeddedDocuments("Token", [spec]);
      return token.id;
    },

    async moveToken(tokenId, path, { method = "dragging" } = {}) {
      const token = findToken(tokenId);
      if (generation >= 13) {
        await token.move(path.map((p) => ({ checkpoint: true, ...p })), { method });
      } else {
        for (const point of path) await token.update({ x: point.x, y: point.y, elevation: point.elevation ?? token.elevation });
      }
      return api.token(tokenId);
    },

    token(tokenId) {
      const t = findToken(tokenId);
      return { id: t.id, name: t.name, x: t.x, y: t.y, elevation: t.elevation, hidden: t.hidden, actorId: t.actorId };
    },

    actor(actorId) {
      const a = env.game.actors.get(actorId);
      if (!a) throw new Error(`no actor ${actorId}`);
      const hp = a.system.attributes.hp;
      return {
        id: a.id,
        name: a.name,
        hp: { value: hp.value, max: hp.max, temp: hp.temp },
        statuses: [...a.statuses].sort(),
        exhaustion: a.system.attributes.exhaustion,
      };
    },

    async applyDamage(actorId, amount) {
      await env.game.actors.get(actorId).applyDamage(amount);
      return api.actor(actorId);
    },

    async rest(actorId, type = "long") {
      await env.game.actors.get(actorId).rest(type);
    },

    async advanceTime(seconds) {
      return env.game.time.advance(seconds);
    },

    async startCombat(sceneId, combatants = []) {
      const combat = await env.CONFIG.Combat.documentClass.create({ scene: sceneId, active: true });
      await combat.createEmbeddedDocuments("Combatant", combatants.map((c) => ({
        ...c,
        sceneId,
        name: c.name ?? (c.tokenId ? findToken(c.tokenId).name : "Combatant"),
      })));
      await combat.startCombat();
      return combat.id;
    },

    async nextTurn(combatId) {
      await env.game.combats.get(combatId).nextTurn();
    },

    async endCombat(combatId) {
      await env.game.combats.get(combatId).delete();
    },

    gmAction(action, params = {}) {
      return moduleApi().sendGmAction(action, params);
    },

    setSaveAnswer(answer) {
      env.dialogResponder = () => answer;
    },

    chatMessages({ visibleTo } = {}) {
      const users = [...env.game.users];
      return [...env.game.messages]
        .filter((m) => !visibleTo || m.isVisibleTo(env.game.users.get(visibleTo)))
        .map((m) => ({
          id: m.id,
          content: m.content,
          whisper: [...m.whisper],
          blind: m.blind,
          speaker: { ...m.speaker },
          flags: structuredClone(m.flags),
          rolls: m.rolls.map((r) => r.toJSON()),
          visibleTo: Object.fromEntries(users.map((u) => [u.id, m.isVisibleTo(u)])),
          contentVisibleTo: Object.fromEntries(users.map((u) => [u.id, m.isContentVisibleTo(u)])),
        }));
    },

    sentFrames(type) {
      return structuredClone(type ? sent.filter((f) => f.type === type) : sent);
    },

    receivedFrames(type) {
      return structuredClone(type ? received.filter((f) => f.type === type) : received);
    },

    notifications() {
      return structuredClone(env.notifications);
    },

    queries() {
      return structuredClone(answeredQueries);
    },

    holdChat() {
      if (chatHold) return;
      let release;
      const gate = new Promise((resolve) => { release = resolve; });
      const create = env.ChatMessage.create;
      chatHold = { release, create };
      env.ChatMessage.create = async function heldCreate(data) {
        await gate;
        return create.call(this, data);
      };
    },

    releaseChat() {
      if (!chatHold) return;
      env.ChatMessage.create = chatHold.create;
      chatHold.release();
      chatHold = null;
    },

    state(kind, key) {
      const store = moduleApi().state;
      return structuredClone(key === undefined ? Object.fromEntries(store.entries(kind)) : store.get(kind, key));
    },

    undo(eventId) {
      return structuredClone(moduleApi().undoLog.get(eventId));
    },

    async waitUntil(fn, timeoutMs = 5000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const value = await fn();
        if (value) return value;
        if (Date.now() > end) throw new Error(`waitUntil: timed out after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  });

  function scene(sceneId) {
    const found = env.game.scenes.get(sceneId);
    if (!found) throw new Error(`no scene ${sceneId}`);
    return found;
  }

  function findToken(tokenId) {
    for (const s of env.game.scenes) {
      const token = s.tokens.get(tokenId);
      if (token) return token;
    }
    throw new Error(`no token ${tokenId}`);
  }

  function makeActor({ id, name = "Actor", ownerId, type = "character", statuses = [], ...system } = {}) {
    return env.createActor({
      ...(id ? { id } : {}),
      name,
      type,
      statuses,
      ownership: ownerId ? { [ownerId]: 3 } : {},
      system: standins.dnd5eSystem(system),
    });
  }

  function regionSpec({ trap, behaviors = [], ...region } = {}) {
    const trapBehavior = trap ? [{ type: "vtt-sidecar.trap", system: trap }] : [];
    return { ...region, behaviors: [...behaviors, ...trapBehavior] };
  }

  /** Append a message to the chat log as Foundry's ChatLog would for the current user. */
  function showMessage(message) {
    const user = env.game.user;
    if (!user || !message.isVisibleTo(user)) return;
    const chat = document.getElementById("chat");
    const article = document.createElement("article");
    article.dataset.messageId = message.id;
    const who = message.whisper.length
      ? `whisper to ${message.whisper.map((id) => env.game.users.get(id)?.name ?? id).join(", ")}${message.blind ? " (blind)" : ""}`
      : "public";
    const speaker = message.speaker?.alias ? `${escapeText(message.speaker.alias)} — ` : "";
    const head = `<div class="whisper">${speaker}${who}</div>`;
    if (message.isContentVisibleTo(user)) {
      const rolls = message.rolls.map((r) => `<span class="roll">${escapeText(r.formula)} = <b>${escapeText(r.total)}</b></span>`);
      const dice = rolls.length ? `<div class="dice-rolls">${rolls.join(" · ")}</div>` : "";
      article.innerHTML = `${head}${message.content}${dice}`;
    } else {
      article.innerHTML = `${head}<div class="blind">???</div>`;
    }
    chat.appendChild(article);
    if (generation >= 13) env.hooks.callAll("renderChatMessageHTML", message, article, { message });
    else env.hooks.callAll("renderChatMessage", message, Object.assign([article], { find: (sel) => [...article.querySelectorAll(sel)] }), { message });
  }

  /** Draw the whole log again (the current user changed). */
  function renderChatLog() {
    document.getElementById("chat").replaceChildren();
    for (const message of env.game.messages) showMessage(message);
  }

  return api;
}

/**
 * @param {string} path  relative to this file
 * @returns {Promise<object>}
 */
async function fetchJson(path) {
  const response = await fetch(new URL(path, import.meta.url));
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

/**
 * The browser's WebSocket, recording every frame sent and received (parsed JSON).
 * @param {typeof WebSocket} NativeWebSocket
 * @param {object[]} sent
 * @param {object[]} received
 * @returns {typeof WebSocket}
 */
function recordingWebSocket(NativeWebSocket, sent, received) {
  return class RecordingWebSocket extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        try {
          received.push(JSON.parse(event.data));
        } catch {
          received.push({ type: "(not json)", data: String(event.data) });
        }
      });
    }

    send(data) {
      try {
        sent.push(JSON.parse(data));
      } catch {
        sent.push({ type: "(not json)", data: String(data) });
      }
      return super.send(data);
    }
  };
}

/**
 * @param {unknown} value
 * @returns {string} text safe to put in HTML
 */
function escapeText(value) {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * `game.socket` across the pages of one browser context (v12's module socket): `emit` reaches
 * every other page, as Foundry's socket reaches every other client.
 * @param {string} name
 * @returns {{connect: () => object}}
 */
function broadcastSocketBus(name) {
  return {
    connect() {
      const channel = new BroadcastChannel(`vtt-harness:${name}:socket`);
      const handlers = new Map();
      channel.onmessage = (event) => {
        const [eventName, data] = event.data;
        for (const fn of handlers.get(eventName) ?? []) fn(structuredClone(data));
      };
      return {
        emitted: [],
        handlers,
        on(eventName, fn) {
          if (!handlers.has(eventName)) handlers.set(eventName, []);
          handlers.get(eventName).push(fn);
        },
        emit(eventName, data) {
          this.emitted.push([eventName, data]);
          channel.postMessage([eventName, data]);
        },
      };
    },
  };
}

/**
 * v13 `User#query` across pages: a query to a user who is not this page's user is answered
 * by the page whose user that is (its `CONFIG.queries` handler runs there), or times out.
 * @param {object} env
 * @param {string} name
 * @param {number} generation
 * @param {object[]} answered  queries this page answered, for the test
 */
function bridgeQueries(env, name, generation, answered) {
  if (generation < 13) return;
  const channel = new BroadcastChannel(`vtt-harness:${name}:query`);
  const waiting = new Map();
  let counter = 0;
  channel.onmessage = async ({ data: message }) => {
    if (message.kind === "reply") {
      const pending = waiting.get(message.id);
      if (!pending) return;
      waiting.delete(message.id);
      if (message.error) pending.reject(new Error(message.error));
      else pending.resolve(message.result);
      return;
    }
    if (message.kind !== "query" || message.to !== env.game.user?.id) return;
    const record = { to: message.to, name: message.name, data: message.data, answered: false };
    answered.push(record);
    try {
      const result = await env.runQuery(env.game.user, message.name, message.data, { timeout: message.timeout });
      record.answered = true;
      channel.postMessage({ kind: "reply", id: message.id, result: result ?? null });
    } catch (error) {
      channel.postMessage({ kind: "reply", id: message.id, error: String(error?.message ?? error) });
    }
  };
  const remoteQuery = (userId, queryName, data, { timeout } = {}) => new Promise((resolve, reject) => {
    counter += 1;
    const id = `${env.game.user?.id ?? "?"}:${counter}:${Math.random().toString(36).slice(2)}`;
    const timer = timeout ? setTimeout(() => {
      waiting.delete(id);
      reject(new Error("query timed out"));
    }, timeout) : null;
    waiting.set(id, {
      resolve: (value) => { clearTimeout(timer); resolve(value); },
      reject: (error) => { clearTimeout(timer); reject(error); },
    });
    channel.postMessage({ kind: "query", id, to: userId, name: queryName, data: structuredClone(data), timeout });
  });
  const addUser = env.addUser;
  env.addUser = (spec) => {
    const user = addUser(spec);
    user.query = (queryName, data, options) => (user.id === env.game.user?.id
      ? env.runQuery(user, queryName, data, options)
      : remoteQuery(user.id, queryName, data, options));
    return user;
  };
}
