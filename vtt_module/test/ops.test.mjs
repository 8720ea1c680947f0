import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { applyOps } from "../scripts/systems/dnd5e/ops.mjs";
import { UndoLog } from "../scripts/undo-log.mjs";
import { dnd5eSystem } from "./foundry-standins.mjs";
import { setupWorld } from "./support/env.mjs";

function world(generation = 13) {
  const { env } = setupWorld({ generation });
  const actor = env.createActor({
    name: "Tank",
    system: dnd5eSystem({ hp: { value: 20, max: 30, temp: 5 }, dr: ["fire"] }),
    statuses: ["prone"],
  });
  const scene = env.createScene({
    id: "scene1",
    tokens: [{ id: "tok1", actorId: actor.id, x: 100, y: 100 }],
    regions: [{ id: "reg1", name: "Trap", shapes: [] }],
  });
  env.viewScene(scene);
  return { env, actor, scene, token: scene.tokens.get("tok1"), undo: new UndoLog() };
}

describe("ops on dnd5e documents", () => {
  it("damage goes to applyDamage as a plain number (no second resistance), temp HP first", async () => {
    const { actor, undo } = world();
    const results = await applyOps([{ op: "damage", actor_id: actor.id, token_id: "tok1", amount: 8, damage_type: "fire" }], { eventId: "e1", undoLog: undo });
    assert.deepEqual(results, [{ op: "damage", ok: true }]);
    assert.equal(actor.calls.applyDamage[0].damages, 8, "a number: dnd5e skips damage traits");
    assert.equal(actor.system.attributes.hp.temp, 0);
    assert.equal(actor.system.attributes.hp.value, 17, "fire resistance was NOT applied again");
    assert.deepEqual(undo.get("e1")[0].hp, { value: 20, temp: 5 });
  });

  it("heal raises HP up to the maximum", async () => {
    const { actor } = world();
    await applyOps([{ op: "heal", actor_id: actor.id, amount: 50 }]);
    assert.equal(actor.system.attributes.hp.value, 30);
  });

  it("status toggles through toggleStatusEffect, exhaustion sets the field", async () => {
    const { actor, undo } = world();
    await applyOps([
      { op: "status", actor_id: actor.id, status: "poisoned", active: true },
      { op: "status", actor_id: actor.id, status: "prone", active: false },
      { op: "exhaustion", actor_id: actor.id, level: 2 },
    ], { eventId: "e2", undoLog: undo });
    assert.deepEqual([...actor.statuses].sort(), ["poisoned"]);
    assert.deepEqual(actor.calls.toggleStatusEffect, [
      { statusId: "poisoned", active: true },
      { statusId: "prone", active: false },
    ]);
    assert.equal(actor.system.attributes.exhaustion, 2);
    const [prior] = undo.get("e2");
    assert.deepEqual(prior.statuses, ["prone"]);
    assert.equal(prior.exhaustion, 0);
  });

  it("token.move uses TokenDocument#move on v13, stopping the drag first", async () => {
    const { token, undo } = world(13);
    await applyOps([{ op: "token.move", scene_id: "scene1", token_id: "tok1", x: 300, y: 100, reason: "pit" }], { eventId: "e3", undoLog: undo });
    assert.equal(token.stopMovementCalls, 1);
    assert.equal(token.moveCalls[0].waypoints[0].action, "displace");
    assert.equal(token.moveCalls[0].options.vttSidecarOp.reason, "pit");
    assert.deepEqual([token.x, token.y], [300, 100]);
    assert.deepEqual(undo.get("e3")[0], { kind: "token", sceneId: "scene1", tokenId: "tok1", x: 100, y: 100, elevation: 0 });
  });

  it("token.move updates x/y on v12", async () => {
    const { token } = world(12);
    await applyOps([{ op: "token.move", scene_id: "scene1", token_id: "tok1", x: 0, y: 0, elevation: 0 }]);
    assert.deepEqual([token.x, token.y], [0, 0]);
    assert.equal(token.moveCalls.length, 0);
  });

  it("combatant.add creates a combat when none is active, then adds to it; remove and initiative work", async () => {
    const { env } = world();
    await applyOps([{ op: "combatant.add", scene_id: "scene1", name: "Blade trap", initiative: 20, key: "trap:reg1", region_id: "reg1" }]);
    const [combat] = [...env.game.combats];
    assert.equal(combat.active, true);
    assert.equal(combat.scene.id, "scene1");
    await applyOps([
      { op: "combatant.add", scene_id: "scene1", name: "Tank", initiative: 5, token_id: "tok1", key: "tok1" },
      { op: "combatant.add", scene_id: "scene1", name: "Blade trap", initiative: 20, key: "trap:reg1" },
    ]);
    assert.equal(env.game.combats.size, 1);
    assert.equal(combat.combatants.size, 2, "the same key is not added twice");
    await applyOps([{ op: "initiative.set", token_id: "tok1", initiative: 15 }]);
    assert.equal(combat.turns.find((c) => c.tokenId === "tok1").initiative, 15);
    await applyOps([{ op: "combatant.remove", key: "trap:reg1" }]);
    assert.deepEqual(combat.turns.map((c) => c.name), ["Tank"]);
  });

  it("region.trap_state goes to a region flag", async () => {
    const { scene } = world();
    await applyOps([{ op: "region.trap_state", scene_id: "scene1", region_id: "reg1", state: { armed: false, triggered: 1 } }]);
    assert.deepEqual(scene.regions.get("reg1").getFlag("vtt-sidecar", "trapState"), { armed: false, triggered: 1 });
  });

  it("one failing op does not stop the rest", async () => {
    const { actor } = world();
    const results = await applyOps([
      { op: "damage", actor_id: "missing", amount: 3, damage_type: "fire" },
      { op: "teleport-everyone" },
      { op: "heal", actor_id: actor.id, amount: 1 },
    ]);
    assert.deepEqual(results.map((r) => r.ok), [false, false, true]);
    assert.equal(actor.system.attributes.hp.value, 21);
  });
});
