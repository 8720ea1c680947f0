import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { PlayerChannel } from "../scripts/channel.mjs";
import { installActorRefreshForwarder } from "../scripts/forward/actor-refresh.mjs";
import { installCombatForwarder } from "../scripts/forward/combat.mjs";
import { gmActionSender } from "../scripts/forward/gm-action.mjs";
import { installHitPointForwarder } from "../scripts/forward/hit-points.mjs";
import { installRestForwarder, registerRestRelay, restKind } from "../scripts/forward/rest.mjs";
import { installSceneForwarder, WALL_SYNC_DELAY_MS } from "../scripts/forward/scene.mjs";
import { installTimeForwarder } from "../scripts/forward/time.mjs";
import { registerTrapBehavior } from "../scripts/regions/trap-behavior.mjs";
import { dnd5eAdapter } from "../scripts/systems/dnd5e.mjs";
import { FakeClock, flush } from "./support/fakes.mjs";
import { setupWorld } from "./support/env.mjs";

function world({ active = true } = {}) {
  const setup = setupWorld();
  registerTrapBehavior();
  const sent = [];
  const clock = new FakeClock();
  const ctx = { send: (e) => { sent.push(e); return "id"; }, adapter: dnd5eAdapter, isActive: () => active, clock };
  const actor = setup.env.createActor({ name: "Aria", ownership: { [setup.player.id]: 3 } });
  const scene = setup.env.createScene({ id: "scene1", active: true, tokens: [{ id: "tok1", actorId: actor.id }] });
  return { ...setup, sent, ctx, actor, scene, clock, types: () => sent.map((e) => e.type) };
}

describe("scene forwarder", () => {
  it("a burst of wall edits sends one scene sync with the walls, after it settles", () => {
    const w = world();
    installSceneForwarder(w.env.hooks, w.ctx);
    const wall = { id: "wall1", parent: w.scene };
    w.env.hooks.callAll("createWall", wall);
    w.env.hooks.callAll("updateWall", wall, { c: [0, 0, 100, 0] });
    w.env.hooks.callAll("updateWall", wall, { flags: {} });
    assert.deepEqual(w.types(), [], "nothing before the burst settles");
    w.clock.advance(WALL_SYNC_DELAY_MS);
    assert.deepEqual(w.types(), ["scene.sync"]);
    assert.equal(w.sent[0].scene.id, "scene1");
    w.env.hooks.callAll("deleteWall", wall);
    w.clock.advance(WALL_SYNC_DELAY_MS);
    assert.deepEqual(w.types(), ["scene.sync", "scene.sync"]);
  });

  it("wall edits seen by a browser that is not the active GM send nothing", () => {
    const w = world({ active: false });
    installSceneForwarder(w.env.hooks, w.ctx);
    w.env.hooks.callAll("createWall", { id: "wall1", parent: w.scene });
    w.clock.advance(WALL_SYNC_DELAY_MS);
    assert.deepEqual(w.types(), []);
  });

  it("token create/update/delete become token.update / token.remove; moves do not", async () => {
    const w = world();
    installSceneForwarder(w.env.hooks, w.ctx);
    const [token] = await w.scene.createEmbeddedDocuments("Token", [{ id: "tok2", actorId: w.actor.id }]);
    await token.update({ x: 500 }, { _fromMove: true });
    await token.update({ hidden: true });
    await w.scene.deleteEmbeddedDocuments("Token", ["tok2"]);
    assert.deepEqual(w.types(), ["token.update", "token.update", "token.remove"]);
    assert.equal(w.sent[1].token.hidden, true);
  });

  it("regions are sent while they hold a trap, and removed when they stop", async () => {
    const w = world();
    const { syncScenes } = installSceneForwarder(w.env.hooks, w.ctx);
    const [plain] = await w.scene.createEmbeddedDocuments("Region", [{ id: "reg1", shapes: [] }]);
    assert.deepEqual(w.types(), []);
    const [behavior] = await plain.createEmbeddedDocuments("RegionBehavior", [{ type: "vtt-sidecar.trap", system: { trapId: "pit" } }]);
    assert.deepEqual(w.types(), ["region.update"]);
    await plain.setFlag("vtt-sidecar", "trapState", { armed: false });
    assert.deepEqual(w.types(), ["region.update"], "our own flag is not echoed");
    behavior.disabled = true;
    w.env.hooks.callAll("updateRegionBehavior", behavior, { disabled: true });
    assert.deepEqual(w.types(), ["region.update", "region.remove"]);
    syncScenes();
    assert.equal(w.sent.at(-1).type, "scene.sync");
    assert.equal(w.sent.at(-1).scene.regions.length, 0);
  });

  it("syncs on canvasReady and when a scene is activated; nothing on a non-GM browser", () => {
    const w = world();
    installSceneForwarder(w.env.hooks, w.ctx);
    w.env.viewScene(w.scene);
    w.env.hooks.callAll("updateScene", w.scene, { active: true });
    assert.deepEqual(w.types(), ["scene.sync", "scene.sync"]);
    const quiet = world({ active: false });
    installSceneForwarder(quiet.env.hooks, quiet.ctx);
    quiet.env.viewScene(quiet.scene);
    assert.deepEqual(quiet.types(), []);
  });
});

describe("combat forwarder", () => {
  it("start, turns with combatants, end", async () => {
    const w = world();
    installCombatForwarder(w.env.hooks, w.ctx);
    const combat = await CONFIG.Combat.documentClass.create({ scene: "scene1", active: true });
    await combat.createEmbeddedDocuments("Combatant", [
      { name: "Aria", tokenId: "tok1", initiative: 12 },
      { name: "Trap", initiative: 20 },
    ]);
    await combat.startCombat();
    await combat.nextTurn();
    await combat.delete();
    assert.deepEqual(w.types(), ["combat.start", "combat.turn", "combat.turn", "combat.end"]);
    assert.deepEqual(w.sent[0].combatants.map((c) => c.name), ["Trap", "Aria"]);
    assert.equal(w.sent[0].scene_id, "scene1");
    assert.deepEqual(w.sent[2].prior, { round: 1, turn: 0, combatant_id: combat.turns[0].id, token_id: null });
    assert.deepEqual(w.sent[2].current, { round: 1, turn: 1, combatant_id: combat.turns[1].id, token_id: "tok1" });
    assert.equal(w.sent[3].combat_id, combat.id);
  });
});

describe("time, hit points, rests, actor changes, GM actions", () => {
  it("world time advances become time.advance", async () => {
    const w = world();
    installTimeForwarder(w.env.hooks, w.ctx);
    await game.time.advance(600);
    assert.deepEqual(w.sent, [{ type: "time.advance", world_time: 600, delta: 600 }]);
  });

  it("damage and healing from dnd5e's hooks", async () => {
    const w = world();
    installHitPointForwarder(w.env.hooks, w.ctx);
    await w.actor.applyDamage(4);
    await w.actor.applyDamage(-3);
    await w.actor.update({ "system.attributes.hp.temp": 5 });
    assert.deepEqual(w.sent.map((e) => [e.type, e.amount, e.token_id]), [
      ["damage.taken", 4, "tok1"],
      ["healing.applied", 3, "tok1"],
    ]);
  });

  it("a GM's own rest is sent directly", async () => {
    const w = world();
    installRestForwarder(w.env.hooks, w.ctx, new PlayerChannel());
    await w.actor.rest("long");
    await w.actor.rest("short");
    assert.deepEqual(w.sent.map((e) => [e.type, e.rest, e.actor_id]), [
      ["rest.completed", "long", w.actor.id],
      ["rest.completed", "short", w.actor.id],
    ]);
    assert.equal(restKind({ longRest: true }, {}), "long");
  });

  it("a player's rest is relayed to the active GM, who checks ownership", async () => {
    const w = world();
    const channel = new PlayerChannel();
    registerRestRelay(w.ctx, channel);
    // this browser is the player's: it relays instead of sending
    const playerCtx = { ...w.ctx, isActive: () => false };
    installRestForwarder(w.env.hooks, playerCtx, channel);
    w.env.setCurrentUser(w.player.id);
    await w.actor.rest("long");
    await flush();
    assert.deepEqual(w.sent.map((e) => [e.type, e.rest]), [["rest.completed", "long"]]);
    // a report naming a user who does not own the actor is refused
    const stranger = w.env.addUser({ id: "stranger0000001", name: "S" });
    const refused = await w.env.runQuery(w.gm, "vtt-sidecar.restCompleted", { actor_id: w.actor.id, rest: "long", user_id: stranger.id });
    assert.equal(refused, false);
    assert.equal(w.sent.length, 1);
  });

  it("actor and effect changes refresh the token's creature once per burst", async () => {
    const w = world();
    installActorRefreshForwarder(w.env.hooks, w.ctx, 200);
    await w.actor.update({ "system.attributes.exhaustion": 1 });
    await w.actor.toggleStatusEffect("poisoned", { active: true });
    assert.deepEqual(w.sent, []);
    w.clock.advance(200);
    assert.equal(w.sent.length, 1);
    assert.equal(w.sent[0].type, "token.update");
    assert.deepEqual(w.sent[0].token.creature.statuses, ["poisoned"]);
    assert.equal(w.sent[0].token.creature.exhaustion, 1);
  });

  it("gm.action carries the action, the user and the params", () => {
    const w = world();
    const send = gmActionSender(w.ctx);
    assert.equal(send("trap.search", { region_id: "reg1" }), "id");
    assert.deepEqual(w.sent, [{ type: "gm.action", action: "trap.search", user_id: w.gm.id, params: { region_id: "reg1" } }]);
    assert.equal(gmActionSender({ ...w.ctx, isActive: () => false })("x"), null);
  });
});
