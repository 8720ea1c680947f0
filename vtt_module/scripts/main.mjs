/**
 * VTT Rules Sidecar: entry point. Wires the parts together on Foundry's `init` and `ready`.
 *
 *   settings ─┐                       ┌─ forwarders (hooks -> events)
 *             ├─ SidecarConnection ───┤
 *   GM gate ──┘   (one WebSocket)     └─ world messages -> cards, ops, save prompts, state
 *
 * Every browser registers settings, the trap behaviour and the player-query handlers; only
 * the active GM's browser connects, forwards and applies.
 */

import { worldMessageApplier } from "./apply/world-messages.mjs";
import { SaveRequests } from "./apply/save-requests.mjs";
import { PlayerChannel } from "./channel.mjs";
import { CoatedItems } from "./coated-items.mjs";
import { SidecarConnection } from "./connection.mjs";
import { MODULE_ID } from "./constants.mjs";
import { installForwarders } from "./forward/index.mjs";
import { registerDoorRelay } from "./forward/door.mjs";
import { registerRestRelay } from "./forward/rest.mjs";
import { registerWeaponHitRelay } from "./forward/weapon-hit.mjs";
import { ActiveGmWatcher, isActiveGM } from "./gm-gate.mjs";
import { installCatalogSuggestions } from "./regions/trap-catalog-input.mjs";
import { registerTrapBehavior } from "./regions/trap-behavior.mjs";
import { SeqStore } from "./seq-store.mjs";
import { connectionSettings, registerSettings, settingsUpdateEvent } from "./settings.mjs";
import { SidecarState } from "./state.mjs";
import { StatusIndicator } from "./status-indicator.mjs";
import { dnd5eAdapter } from "./systems/dnd5e.mjs";
import { AfflictionPanels } from "./ui/affliction-panel.mjs";
import { installChatButtons } from "./ui/chat-buttons.mjs";
import { installSceneControls, startChaseDialog } from "./ui/chase-start.mjs";
import { ChaseTrackers } from "./ui/chase-tracker.mjs";
import { hudActions, installTokenHud } from "./ui/token-hud.mjs";
import { UndoLog } from "./undo-log.mjs";
import { KeyedDebouncer } from "./util/debounce.mjs";
import { t } from "./util/i18n.mjs";

/** Everything the module made; published as `game.modules.get("vtt-sidecar").api`. */
const runtime = {
  adapter: dnd5eAdapter,
  state: new SidecarState(),
  undoLog: new UndoLog(),
  channel: new PlayerChannel(),
  /** items the GM coated with an injury poison (only their hits become `weapon.hit`) */
  coated: new CoatedItems(),
  /** @type {SidecarConnection|null} */
  connection: null,
  /** @type {ReturnType<typeof installForwarders>|null} */
  forwarders: null,
};

/** The forwarders' view of the world. */
const forwardContext = {
  send: (event) => runtime.connection?.send(event) ?? null,
  adapter: dnd5eAdapter,
  isActive: () => isActiveGM(),
};

/** Buttons and windows send through the forwarders once they exist (from `ready` on). */
const sendGmAction = (action, params) => runtime.forwarders?.sendGmAction(action, params) ?? null;
/** A plain protocol event from a button (the HUD's `interaction`), from the active GM only. */
const sendEvent = (event) => (isActiveGM() ? forwardContext.send(event) : null);
const trackers = new ChaseTrackers({ state: runtime.state, send: sendGmAction });
const panels = new AfflictionPanels({ state: runtime.state, send: sendGmAction });

/** Open every chase tracker the sidecar told us about, or say there is none. */
function openTrackers() {
  const chases = trackers.chases();
  if (!chases.length) ui.notifications?.info(t("VTTSIDECAR.Chase.NoChases"));
  for (const [chaseId] of chases) trackers.open(chaseId);
}

const saves = new SaveRequests({ channel: runtime.channel, adapter: dnd5eAdapter, send: forwardContext.send });

/** Several settings saved together (the settings form) make one `settings.update`. */
const settingsDebouncer = new KeyedDebouncer(250);

function sendSettings() {
  settingsDebouncer.run("settings", () => {
    if (isActiveGM()) runtime.connection?.send(settingsUpdateEvent());
  });
}

Hooks.once("init", () => {
  registerSettings({
    onConnectionChange: () => runtime.connection?.reconfigure(),
    onRulesChange: sendSettings,
  });
  registerTrapBehavior();
  saves.registerHandler();
  registerRestRelay(forwardContext, runtime.channel);
  registerWeaponHitRelay(forwardContext, runtime.channel, runtime.coated);
  registerDoorRelay(forwardContext, runtime.channel);
  installCatalogSuggestions(Hooks, () => runtime.state.trapCatalog());
  installChatButtons(Hooks, sendGmAction);
  installTokenHud(Hooks, hudActions({ send: sendGmAction, sendEvent, state: runtime.state, panels, coated: runtime.coated }));
  installSceneControls(Hooks, {
    startChase: () => startChaseDialog(sendGmAction, () => dnd5eAdapter.ruleset()),
    openTrackers,
  });
  trackers.install(Hooks);
  panels.install(Hooks);
});

Hooks.once("ready", () => {
  runtime.channel.listen();
  const indicator = new StatusIndicator(globalThis.document ?? null, () => runtime.connection?.reconfigure());
  const connection = new SidecarConnection({
    WebSocketImpl: globalThis.WebSocket,
    config: connectionSettings,
    helloFields: () => ({
      world_id: game.world.id,
      module_version: game.modules?.get(MODULE_ID)?.version ?? "0.1.0",
      foundry_version: String(game.version ?? ""),
      system_id: game.system.id,
      system_version: String(game.system.version ?? ""),
      // The sidecar maps Foundry codes ("zh-cn", "cn"...) to its own languages.
      language: String(game.i18n.lang ?? "en").slice(0, 16),
      ruleset: dnd5eAdapter.ruleset(),
    }),
    seqStore: new SeqStore(game.world.id),
    applyWorldMessage: worldMessageApplier({
      adapter: dnd5eAdapter,
      state: runtime.state,
      saves,
      undoLog: runtime.undoLog,
    }),
    onStatus: (status) => indicator.show(status),
    onWelcome: () => {
      // After the queued events: the rules settings and the scenes as they are now.
      connection.send(settingsUpdateEvent());
      runtime.forwarders?.syncScenes();
      // Trap, poison and disease names in the world's language for the pickers.
      connection.send({ type: "gm.action", action: "catalog.get", params: {} });
    },
    notify: (level, key, data) => ui.notifications?.[level]?.(t(key, data)),
  });
  runtime.connection = connection;
  runtime.forwarders = installForwarders(Hooks, forwardContext, runtime.channel, runtime.coated);

  const watcher = new ActiveGmWatcher({
    isActive: () => isActiveGM(),
    onGained: () => connection.start(),
    onLost: () => {
      connection.stop();
      indicator.remove();
    },
  });
  watcher.install(Hooks);
  watcher.check();

  const module = game.modules?.get(MODULE_ID);
  if (module) {
    module.api = {
      connection,
      state: runtime.state,
      undoLog: runtime.undoLog,
      coated: runtime.coated,
      sendGmAction: runtime.forwarders.sendGmAction,
      syncScenes: runtime.forwarders.syncScenes,
      checkActiveGM: () => watcher.check(),
      trackers,
      panels,
      startChase: () => startChaseDialog(sendGmAction, () => dnd5eAdapter.ruleset()),
    };
  }
  Hooks.callAll("vttSidecarReady", module?.api);
});
