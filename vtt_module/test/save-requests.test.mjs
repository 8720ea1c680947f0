import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { SaveRequests, pickPlayer } from "../scripts/apply/save-requests.mjs";
import { PlayerChannel } from "../scripts/channel.mjs";
import { rollSave } from "../scripts/systems/dnd5e/saves.mjs";
import { dnd5eAdapter } from "../scripts/systems/dnd5e.mjs";
import { createSocketBus, dnd5eSystem } from "./foundry-standins.mjs";
import { flush } from "./support/fakes.mjs";
import { setupWorld } from "./support/env.mjs";

const request = (actor, extra = {}) => ({
  type: "save.request", seq: 1, event_id: "e1", request_id: "r1", token_id: "tok1", actor_id: actor.id,
  ability: "con", advantage: false, disadvantage: false, timeout_s: 5, reason: "<b>Poison</b> needle", ...extra,
});

function world(options = {}) {
  const setup = setupWorld(options);
  const actor = setup.env.createActor({ name: "Aria", ownership: { [setup.player.id]: 3 }, system: dnd5eSystem({ abilities: { con: 14 } }) });
  setup.env.createScene({ tokens: [{ id: "tok1", actorId: actor.id }] });
  const sent = [];
  const channel = new PlayerChannel();
  const saves = new SaveRequests({ channel, adapter: dnd5eAdapter, send: (e) => sent.push(e) });
  saves.registerHandler();
  return { ...setup, actor, sent, saves, channel };
}

describe("save requests", () => {
  it("asks an active owning player; their roll goes back as save.result", async () => {
    const w = world();
    assert.equal(w.saves.dispatch(request(w.actor, { advantage: true })), true);
    await flush(10);
    assert.equal(w.sent.length, 1);
    const [result] = w.sent;
    assert.equal(result.type, "save.result");
    assert.equal(result.request_id, "r1");
    assert.equal(result.total, result.natural + 2);
    assert.deepEqual(w.actor.calls.rollSavingThrow[0].config, { ability: "con", advantage: true, disadvantage: false });
    assert.equal(w.env.dialogs[0].content.includes("&lt;b&gt;Poison&lt;/b&gt;"), true, "the reason is escaped");
  });

  it("sends nothing when the player declines or nobody owns the actor", async () => {
    const w = world();
    w.env.dialogResponder = () => false;
    w.saves.dispatch(request(w.actor));
    await flush(10);
    assert.deepEqual(w.sent, []);
    const npc = w.env.createActor({ name: "Goblin" });
    assert.equal(w.saves.dispatch(request(npc, { token_id: null })), false);
    w.env.setUserActive(w.player.id, false);
    assert.equal(w.saves.dispatch(request(w.actor)), false, "the owner is offline");
  });

  it("prefers the player whose character it is", () => {
    const w = world();
    const second = w.env.addUser({ id: "second000000001", name: "Second", characterId: w.actor.id });
    w.actor.ownership[second.id] = 3;
    assert.equal(pickPlayer(w.actor).id, second.id);
  });

  it("on v12 asks over the module socket and gets the answer back", async () => {
    const bus = createSocketBus();
    const gmSide = world({ generation: 12, socketBus: bus });
    gmSide.channel.listen();
    // the player's browser: its own socket on the same bus, answering as the player
    const playerSocket = bus.connect();
    const playerChannel = new PlayerChannel({ currentUserId: () => gmSide.player.id, socket: () => playerSocket, queries: () => undefined });
    playerChannel.register("saveRequest", async () => ({ total: 15, natural: 13, roll: { class: "D20Roll" } }));
    playerChannel.listen();
    gmSide.saves.dispatch(request(gmSide.actor));
    await flush(10);
    assert.deepEqual(gmSide.sent.map((e) => [e.type, e.total, e.natural]), [["save.result", 15, 13]]);
  });

  it("on v12 gives up silently after the timeout", async () => {
    const bus = createSocketBus();
    const w = world({ generation: 12, socketBus: bus });
    w.channel.listen();
    w.saves.dispatch(request(w.actor, { timeout_s: 1 }));
    assert.equal(w.channel.pending.size, 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.deepEqual(w.sent, []);
    assert.equal(w.channel.pending.size, 0);
  });

  it("rolls with rollAbilitySave on dnd5e older than 4.1", async () => {
    const w = world({ systemVersion: "4.0.4" });
    const result = await rollSave(w.actor, { ability: "con" });
    assert.equal(w.actor.calls.rollAbilitySave.length, 1);
    assert.equal(w.actor.calls.rollSavingThrow.length, 0);
    assert.equal(result.total, result.natural + 2);
  });
});
