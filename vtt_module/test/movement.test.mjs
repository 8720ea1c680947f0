import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { installMovementForwarder, MovementAssembler, v12MoveEvent } from "../scripts/forward/movement.mjs";
import { OWN_MOVE_OPTION } from "../scripts/own-changes.mjs";
import { setupWorld } from "./support/env.mjs";

function world(generation) {
  const { env } = setupWorld({ generation });
  const actor = env.createActor({ name: "Bram" });
  const scene = env.createScene({ tokens: [{ id: "tok1", actorId: actor.id, x: 0, y: 0 }] });
  const sent = [];
  const ctx = { send: (e) => sent.push(e), isActive: () => true, adapter: null, clock: globalThis };
  env.viewScene(scene);
  const forwarder = installMovementForwarder(env.hooks, ctx, 60000);
  return { env, scene, token: scene.tokens.get("tok1"), sent, forwarder };
}

const xy = (path) => path.map((p) => [p.x, p.y]);

describe("v13 movement", () => {
  it("joins the operations of one movement id into one event when nothing is pending", async () => {
    const { token, sent } = world(13);
    await token.move([
      { x: 100, y: 0, checkpoint: true },
      { x: 200, y: 0, checkpoint: false },
      { x: 200, y: 100, checkpoint: true },
    ], { method: "keyboard" });
    assert.equal(sent.length, 1);
    assert.equal(sent[0].type, "token.move");
    assert.equal(sent[0].token_id, "tok1");
    assert.equal(sent[0].method, "keyboard");
    assert.ok(sent[0].movement_id);
    assert.deepEqual(xy(sent[0].path), [[0, 0], [100, 0], [200, 0], [200, 100]]);
    assert.equal(sent[0].path[2].checkpoint, false);
  });

  it("emits one event per movement id", async () => {
    const { token, sent } = world(13);
    await token.move([{ x: 100, y: 0 }], { method: "dragging" });
    await token.move([{ x: 100, y: 100 }], { method: "dragging" });
    assert.equal(sent.length, 2);
    assert.notEqual(sent[0].movement_id, sent[1].movement_id);
    assert.deepEqual(xy(sent[1].path), [[100, 0], [100, 100]]);
  });

  it("accepts `passed` holding earlier sections too (cumulative)", () => {
    const assembler = new MovementAssembler();
    const token = { id: "t", parent: { id: "s" } };
    const origin = { x: 0, y: 0, elevation: 0 };
    const w = (x) => ({ x, y: 0, elevation: 0 });
    assert.deepEqual(assembler.feed(token, { id: "m", origin, passed: { waypoints: [w(1)] }, pending: { waypoints: [w(2)] }, method: "api" }), []);
    const [event] = assembler.feed(token, { id: "m", origin, passed: { waypoints: [w(1), w(2)] }, pending: { waypoints: [] }, method: "api" });
    assert.deepEqual(xy(event.path), [[0, 0], [1, 0], [2, 0]]);
  });

  it("a new movement of the same token ends an unfinished one", () => {
    const assembler = new MovementAssembler();
    const token = { id: "t", parent: { id: "s" } };
    const w = (x) => ({ x, y: 0, elevation: 0 });
    assembler.feed(token, { id: "m1", origin: w(0), passed: { waypoints: [w(1)] }, pending: { waypoints: [w(5)] }, method: "dragging" });
    const events = assembler.feed(token, { id: "m2", origin: w(1), passed: { waypoints: [w(3)] }, pending: { waypoints: [] }, method: "dragging" });
    assert.deepEqual(events.map((e) => e.movement_id), ["m1", "m2"]);
    assert.deepEqual(xy(events[0].path), [[0, 0], [1, 0]]);
  });

  it("reports displacement as a teleport", () => {
    const assembler = new MovementAssembler();
    const [event] = assembler.feed({ id: "t", parent: { id: "s" } }, {
      id: "m", origin: { x: 0, y: 0 }, passed: { waypoints: [{ x: 900, y: 0, action: "displace" }] }, pending: { waypoints: [] }, method: "api",
    });
    assert.equal(event.method, "teleport");
  });

  it("ignores position updates (v13 reports moves through moveToken) and the sidecar's own moves", async () => {
    const { token, sent } = world(13);
    await token.move([{ x: 500, y: 0, action: "displace" }], { method: "api", [OWN_MOVE_OPTION]: { reason: "pit" } });
    assert.equal(sent.length, 0);
  });

  it("reports a dropped token as a one-point move", async () => {
    const { scene, sent } = world(13);
    await scene.createEmbeddedDocuments("Token", [{ id: "tok2", x: 300, y: 300 }]);
    assert.deepEqual(sent.map((e) => [e.method, xy(e.path)]), [["drop", [[300, 300]]]]);
  });
});

describe("v12 movement", () => {
  it("path is [old position, new position] from updateToken", async () => {
    const { token, sent } = world(12);
    await token.update({ x: 100, y: 0 });
    await token.update({ x: 100, y: 200 });
    assert.equal(sent.length, 2);
    assert.deepEqual(xy(sent[0].path), [[0, 0], [100, 0]]);
    assert.deepEqual(xy(sent[1].path), [[100, 0], [100, 200]]);
    assert.equal(sent[0].method, "dragging");
  });

  it("ignores non-position updates and the sidecar's own moves", async () => {
    const { token, sent } = world(12);
    await token.update({ hidden: true });
    await token.update({ x: 50, y: 50 }, { [OWN_MOVE_OPTION]: { reason: "pit" } });
    assert.equal(sent.length, 0);
    await token.update({ x: 60, y: 50 });
    assert.deepEqual(xy(sent[0].path), [[50, 50], [60, 50]], "the own move still updated the known position");
  });

  it("a token with no known position gets a one-point path", () => {
    const event = v12MoveEvent(undefined, { id: "t", parent: { id: "s" }, x: 5, y: 6, elevation: 0 }, { teleport: true });
    assert.deepEqual(xy(event.path), [[5, 6]]);
    assert.equal(event.method, "teleport");
  });
});
