import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { SidecarState } from "../scripts/state.mjs";
import { describeStatus, StatusIndicator } from "../scripts/status-indicator.mjs";
import { UndoLog } from "../scripts/undo-log.mjs";
import { setupWorld } from "./support/env.mjs";

describe("state store", () => {
  it("keeps state by kind and key and calls the vttSidecarState hook", () => {
    const { env } = setupWorld();
    const calls = [];
    env.hooks.on("vttSidecarState", (...args) => calls.push(args));
    const state = new SidecarState();
    state.set("chase", "c1", { round: 2 });
    state.set("chase", "c1", { round: 3 });
    state.set("afflictions", "tok1", { poisons: [] });
    assert.deepEqual(state.get("chase", "c1"), { round: 3 });
    assert.deepEqual(state.entries("chase"), [["c1", { round: 3 }]]);
    assert.deepEqual(calls.map((c) => c.slice(0, 2)), [["chase", "c1"], ["chase", "c1"], ["afflictions", "tok1"]]);
    assert.deepEqual(state.trapCatalog(), []);
  });
});

describe("status indicator", () => {
  it("describes each state with its reason", () => {
    setupWorld();
    assert.deepEqual(describeStatus({ state: "connected", reason: null, retryInMs: null, upgraded: false }), { label: "connected", detail: "" });
    assert.deepEqual(describeStatus({ state: "reconnecting", reason: "VTTSIDECAR.Status.Closed", retryInMs: 4100, upgraded: true }), {
      label: "reconnecting…",
      detail: "The connection closed. — Next attempt in 5 s. — Using wss:// because this page is served over https. — Click to connect again.",
    });
    assert.equal(describeStatus({ state: "refused", reason: "unknown world token" }).detail, "unknown world token — Click to connect again.");
  });

  it("notifies the GM once per refusal", () => {
    const { env } = setupWorld();
    const indicator = new StatusIndicator(null);
    indicator.show({ state: "refused", reason: "VTTSIDECAR.Status.WrongToken" });
    indicator.show({ state: "refused", reason: "VTTSIDECAR.Status.WrongToken" });
    assert.equal(env.notifications.filter((n) => n.type === "error").length, 1);
    assert.match(env.notifications[0].message, /refused the world token/);
  });
});

describe("undo log", () => {
  it("keeps the first prior state of each thing, for the last N events", () => {
    const log = new UndoLog(2);
    log.record("e1", { kind: "actor", actorId: "a", tokenId: null, hp: { value: 10, temp: 0 }, statuses: [], exhaustion: 0 });
    log.record("e1", { kind: "actor", actorId: "a", tokenId: null, hp: { value: 5, temp: 0 }, statuses: [], exhaustion: 0 });
    log.record("e2", { kind: "token", sceneId: "s", tokenId: "t", x: 0, y: 0, elevation: 0 });
    log.record("e3", { kind: "token", sceneId: "s", tokenId: "t", x: 1, y: 1, elevation: 0 });
    assert.deepEqual(log.get("e1"), []);
    assert.equal(log.get("e2").length, 1);
    assert.equal(log.get("e3")[0].x, 1);
  });
});
