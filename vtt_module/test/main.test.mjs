/**
 * The whole module wired by main.mjs against the stand-ins and a fake WebSocket: settings,
 * handshake, scene sync on welcome, cards, ops, save prompts, state, movement.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";

import { fakeWebSocketClass, flush } from "./support/fakes.mjs";
import { setupWorld } from "./support/env.mjs";

const { env, gm, player } = setupWorld({ generation: 13 });
const FakeWebSocket = fakeWebSocketClass();
globalThis.WebSocket = FakeWebSocket;

let scene;
let actor;
let token;
let socket;
const stateHook = [];

before(async () => {
  await import("../scripts/main.mjs");
  Hooks.callAll("init");
  actor = env.createActor({ name: "Aria", system: undefined, ownership: { [player.id]: 3 } });
  scene = env.createScene({
    name: "Crypt",
    active: true,
    tokens: [{ id: "tokAria000000001", actorId: actor.id, x: 100, y: 100 }],
    regions: [{
      id: "regPit0000000001",
      name: "Pit",
      shapes: [{ type: "rectangle", x: 300, y: 100, width: 100, height: 100 }],
      behaviors: [{ type: "vtt-sidecar.trap", system: { trapId: "pit-hidden", overrides: "{\"dc\": 12}" } }],
    }],
  });
  token = scene.tokens.get("tokAria000000001");
  env.viewScene(scene);
  Hooks.on("vttSidecarState", (...args) => stateHook.push(args));
  Hooks.callAll("ready");
});

describe("module wiring", () => {
  it("registers the trap behaviour and its label", () => {
    assert.ok(CONFIG.RegionBehavior.dataModels["vtt-sidecar.trap"]);
    assert.equal(CONFIG.RegionBehavior.typeLabels["vtt-sidecar.trap"], "VTTSIDECAR.TrapBehavior.Label");
  });

  it("waits for a world token, then connects when it is set", async () => {
    assert.equal(FakeWebSocket.instances.length, 0);
    assert.equal(game.modules.get("vtt-sidecar").api.connection.status.state, "unconfigured");
    await game.settings.set("vtt-sidecar", "worldToken", "tok-123");
    assert.equal(FakeWebSocket.instances.length, 1);
    socket = FakeWebSocket.last;
    assert.equal(socket.url, "ws://127.0.0.1:8765/ws");
  });

  it("says hello with the world's facts", () => {
    socket.open();
    const hello = socket.sent[0];
    assert.equal(hello.type, "hello");
    assert.equal(hello.token, "tok-123");
    assert.equal(hello.world_id, "test-world");
    assert.equal(hello.system_id, "dnd5e");
    assert.equal(hello.system_version, "5.3.3");
    assert.equal(hello.foundry_version, "13.350");
    assert.equal(hello.ruleset, "modern");
    assert.equal(hello.language, "en");
    assert.equal(hello.last_seq, 0);
  });

  it("after the welcome syncs the scene and the rules settings", () => {
    socket.receive({ type: "welcome", protocol: 1, server_version: "0", world_id: "test-world", world_name: "T", last_seq: 0, resending: 0 });
    const [sync] = socket.sentOfType("scene.sync");
    assert.ok(sync.id);
    assert.equal(sync.active, true);
    assert.equal(sync.scene.id, scene.id);
    assert.deepEqual(sync.scene.grid, { size: 100, distance: 5, units: "ft" });
    assert.equal(sync.scene.tokens[0].creature.name, "Aria");
    assert.deepEqual(sync.scene.tokens[0].creature.owners, [player.id]);
    assert.equal(sync.scene.regions[0].trap.trap_id, "pit-hidden");
    assert.deepEqual(sync.scene.regions[0].trap.overrides, { dc: 12 });
    const [settings] = socket.sentOfType("settings.update");
    assert.deepEqual(settings.settings, {
      save_mode: "auto", save_timeout_s: 60, notice_radius_ft: 30, drop_triggers: false, gm_picks_ability: "best",
    });
  });

  it("sends one settings.update when rules settings change together", async () => {
    const before = socket.sentOfType("settings.update").length;
    await game.settings.set("vtt-sidecar", "noticeRadius", 45);
    await game.settings.set("vtt-sidecar", "saveMode", "ask");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = socket.sentOfType("settings.update");
    assert.equal(sent.length, before + 1);
    assert.equal(sent.at(-1).settings.notice_radius_ft, 45);
    assert.equal(sent.at(-1).settings.save_mode, "ask");
  });

  it("applies a GM-only card and damage ops, acks both, and does not echo the damage", async () => {
    const hpBefore = actor.system.attributes.hp.value;
    socket.receive({
      type: "card", seq: 1, event_id: "evt-move-1",
      card: {
        id: "card1", title: "Pit", html: "<p>The floor gives way.</p>", visibility: "gm",
        rolls: [{ class: "Roll", formula: "1d6", terms: [{ class: "Die", number: 1, faces: 6, results: [{ result: 4, active: true }], evaluated: true }], total: 4, evaluated: true }],
      },
    });
    socket.receive({
      type: "ops", seq: 2, event_id: "evt-move-1",
      ops: [{ op: "damage", actor_id: actor.id, token_id: token.id, amount: 4, damage_type: "bludgeoning" }],
    });
    await flush();
    const message = [...game.messages].at(-1);
    assert.deepEqual(message.whisper, [gm.id]);
    assert.equal(message.blind, true);
    assert.equal(message.rolls[0].total, 4);
    assert.equal(message.flags["vtt-sidecar"].seq, 1);
    assert.equal(actor.system.attributes.hp.value, hpBefore - 4);
    assert.deepEqual(socket.sentOfType("ack").map((a) => a.seq), [1, 2]);
    assert.equal(socket.sentOfType("damage.taken").length, 0, "own damage is not echoed");
    assert.equal(game.modules.get("vtt-sidecar").api.undoLog.get("evt-move-1")[0].hp.value, hpBefore);
  });

  it("forwards damage dealt by other means", async () => {
    await actor.applyDamage(2);
    const [event] = socket.sentOfType("damage.taken");
    assert.deepEqual({ ...event, id: undefined }, {
      type: "damage.taken", id: undefined, token_id: token.id, actor_id: actor.id, amount: 2, damage_types: [],
    });
  });

  it("sends a v13 move with its whole path", async () => {
    await token.move([
      { x: 200, y: 100, checkpoint: false },
      { x: 300, y: 100, checkpoint: true },
      { x: 400, y: 100, checkpoint: true },
    ], { method: "dragging" });
    const moves = socket.sentOfType("token.move");
    assert.equal(moves.length, 1);
    assert.deepEqual(moves[0].path.map((p) => [p.x, p.y]), [[100, 100], [200, 100], [300, 100], [400, 100]]);
    assert.equal(moves[0].method, "dragging");
  });

  it("asks the owning player to roll a save and sends the result", async () => {
    socket.receive({
      type: "save.request", seq: 3, event_id: "evt-move-1", request_id: "req1", token_id: token.id,
      actor_id: actor.id, ability: "dex", timeout_s: 30, reason: "The floor gives way",
    });
    await flush(10);
    assert.equal(env.dialogs.length, 1);
    const [result] = socket.sentOfType("save.result");
    assert.equal(result.request_id, "req1");
    assert.equal(result.token_id, token.id);
    assert.ok(result.natural >= 1 && result.natural <= 20);
    assert.equal(result.total, result.natural + actor.system.abilities.dex.save.value);
    assert.equal(result.roll.class, "D20Roll");
    assert.equal(actor.calls.rollSavingThrow[0].dialog.configure, false);
  });

  it("stores state and announces it", async () => {
    socket.receive({ type: "state", seq: 4, event_id: "e4", kind: "catalog", key: "traps", data: { entries: [{ id: "pit-hidden", name: "Hidden pit" }] } });
    await flush();
    assert.deepEqual(stateHook.at(-1), ["catalog", "traps", { entries: [{ id: "pit-hidden", name: "Hidden pit" }] }]);
    assert.deepEqual(game.modules.get("vtt-sidecar").api.state.trapCatalog(), [{ id: "pit-hidden", name: "Hidden pit" }]);
  });

  it("hands over when another GM becomes the active GM", () => {
    const senior = env.addUser({ id: "aaaSeniorGm00001", name: "GM2", role: 4, active: false });
    env.setUserActive(senior.id, true);
    assert.equal(game.modules.get("vtt-sidecar").api.connection.status.state, "stopped");
    assert.equal(socket.closedWith.code, 1000);
  });
});
