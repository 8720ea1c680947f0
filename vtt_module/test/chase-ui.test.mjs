/**
 * The chase tracker (picture, panels, buttons) and the start dialog.
 */
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";

import { STATE_HOOK } from "../scripts/constants.mjs";
import { SidecarState } from "../scripts/state.mjs";
import { chaseStartParams, installSceneControls, startChaseDialog } from "../scripts/ui/chase-start.mjs";
import { ChaseTrackers, splitGroups } from "../scripts/ui/chase-tracker.mjs";
import { trackLayout, trackSvg, trackerHtml, TRACK } from "../scripts/ui/chase-view.mjs";
import { setupWorld } from "./support/env.mjs";

/** A chase state shaped like sidecar/rules/chase_engine.py state_data. */
function chaseState(extra = {}) {
  const p = (id, name, role, position, more = {}) => ({
    id, name, role, token_id: id, initiative: 10, position_ft: position, speed: 30, free_dashes: 3,
    dashes_used: 0, dashes_left: 3, dash_next: true, exhaustion: 0, exhaustion_gained: 0, prone: false,
    status: "active", acted: false, in_sight: role === "quarry" ? true : null, factors: [], ...more,
  });
  return {
    id: "chase-1",
    status: "running",
    end_reason: null,
    round: 2,
    table: "urban",
    combat_id: null,
    scene_id: "scene1",
    leader: "tokB",
    distances: { tokT: 60 },
    next: "tokA",
    participants: [
      p("tokB", "Borin", "pursuer", 30, { dashes_left: 1, exhaustion: 2 }),
      p("tokA", "Aria", "pursuer", 0),
      p("tokT", "Nimble Pip", "quarry", 90),
    ],
    offers: [],
    log: [{ round: 1, roller: "tokT", target: "tokB", roll: 4, entry: "crowd", text: "A crowd blocks the way.", forced: false }],
    ...extra,
  };
}

const cx = (svg, id) => Number(new RegExp(`data-participant="${id}">(?:(?!</g>).)*?<circle class="marker[^"]*" data-position="[-\\d]+" cx="([\\d.]+)"`).exec(svg)[1]);

describe("tracker picture", () => {
  beforeEach(() => setupWorld());
  it("puts each marker at a position proportional to its feet along the route", () => {
    const state = chaseState();
    const svg = trackSvg(state);
    const [a, b, q] = [cx(svg, "tokA"), cx(svg, "tokB"), cx(svg, "tokT")];
    assert.ok(a < b && b < q, "order along the track follows the positions");
    assert.ok(Math.abs((b - a) / (q - a) - 30 / 90) < 0.01, `30 ft of 90 ft: ${(b - a) / (q - a)}`);
    const layout = trackLayout(state);
    assert.equal(layout.xOf(0), a);
    assert.ok(q <= TRACK.width - TRACK.right + 0.01, "the furthest marker stays inside the track");
  });

  it("handles negative positions and a single spot", () => {
    const state = chaseState();
    state.participants[1].position_ft = -20;
    const svg = trackSvg(state);
    const [a, b, q] = [cx(svg, "tokA"), cx(svg, "tokB"), cx(svg, "tokT")];
    assert.ok(Math.abs((b - a) / (q - a) - 50 / 110) < 0.01);
    const same = chaseState();
    for (const p of same.participants) p.position_ft = 0;
    assert.doesNotThrow(() => trackSvg(same));
  });

  it("colours the sides apart, rings the leader and writes the gap on the quarry's lane", () => {
    const svg = trackSvg(chaseState());
    assert.match(svg, /class="marker marker-quarry"[^>]*fill="#c0392b"/);
    assert.match(svg, /class="marker marker-pursuer"[^>]*fill="#1f5fa8"/);
    assert.equal((svg.match(/stroke="#e0a800"/g) ?? []).length, 1, "one leader ring");
    assert.match(svg, /class="gap-label"[^>]*>60 ft<\/text>/);
    assert.match(svg, />Borin ★<\/text>/);
  });

  it("shows dashes left and exhaustion as pips", () => {
    const svg = trackSvg(chaseState());
    const borin = /data-participant="tokB">(.*?)<\/g><g class="lane/.exec(svg)[1];
    assert.equal((borin.match(/fill="#2e7d32"/g) ?? []).length, 1, "1 of 3 free dashes left");
    assert.equal((borin.match(/fill="#6d1b1b"/g) ?? []).length, 2, "exhaustion 2");
  });

  it("escapes names", () => {
    const state = chaseState();
    state.participants[2].name = "<script>x</script>";
    assert.doesNotMatch(trackerHtml(state), /<script>/);
  });
});

describe("tracker panels", () => {
  beforeEach(() => setupWorld());
  it("lists participants with positions, the log and the controls", () => {
    const html = trackerHtml(chaseState());
    assert.match(html, /Round 2\. Next: Aria/);
    assert.match(html, /<td class="name">Nimble Pip<\/td>/);
    assert.match(html, /<td class="position">90 ft<\/td><td class="gap">60 ft<\/td>/);
    assert.match(html, /Nimble Pip → Borin<\/b> \(4\): A crowd blocks the way\./);
    for (const action of ["nextTurn", "odds", "giveUp", "split", "end", "dash"]) assert.match(html, new RegExp(`data-action="${action}"`));
  });

  it("offers a sight toggle and an escape-factors button on quarry rows only, and join / turn the tables", () => {
    const state = chaseState();
    state.participants[2].factors = [{ id: "crowded", mode: 1, note: "a very crowded area" }];
    const html = trackerHtml(state);
    assert.match(html, /data-action="join"/);
    assert.match(html, /data-action="reverse"[^>]*>Turn the tables</);
    const row = (id) => new RegExp(`<tr[^>]*data-participant="${id}">(.*?)</tr>`).exec(html)[1];
    assert.match(row("tokT"), /data-action="sight" data-participant="tokT" data-sight="false"[^>]*>Lost from sight</);
    assert.match(row("tokT"), /data-action="factors" data-participant="tokT"[^>]*>Escape factors \(1\)</);
    assert.doesNotMatch(row("tokB"), /data-action="(sight|factors)"/);
    state.participants[2].in_sight = false;
    assert.match(trackerHtml(state), /data-action="sight" data-participant="tokT" data-sight="true"[^>]*>Back in sight</);
    assert.doesNotMatch(trackerHtml(chaseState({ status: "ended" })), /data-action="(sight|factors|join|reverse)"/);
  });

  it("has no next-turn button when the chase runs on a combat's turns", () => {
    assert.doesNotMatch(trackerHtml(chaseState({ combat_id: "cbt1" })), /data-action="nextTurn"/);
  });

  it("draws the odds as bars", () => {
    const odds = { tokT: { name: "Nimble Pip", escape: { 1: 0.25, 3: 0.5, 10: 0.875 }, caught: { 1: 0, 3: 0.05, 10: 0.1 } } };
    const html = trackerHtml(chaseState({ odds }));
    assert.match(html, /escapes within 1 rd<\/span><span class="odds-bar"><span class="odds-fill" style="width:25\.0%"><\/span><\/span><span class="odds-value">25\.0%/);
    assert.match(html, /width:87\.5%/);
    assert.match(html, /caught within 10 rd.*?width:10\.0%/);
  });

  it("an ended chase says why and offers no actions", () => {
    const html = trackerHtml(chaseState({ status: "ended", end_reason: "all_escaped" }));
    assert.match(html, /The chase is over: every quarry escaped/);
    assert.doesNotMatch(html, /data-action="(nextTurn|dash|end)"/);
  });
});

describe("tracker window", () => {
  function world({ gm = true } = {}) {
    const setup = setupWorld();
    if (!gm) setup.env.setCurrentUser(setup.player.id);
    const state = new SidecarState();
    const sent = [];
    const trackers = new ChaseTrackers({ state, send: (action, params) => { sent.push({ action, params }); return "id"; } });
    trackers.install(setup.env.hooks);
    return { ...setup, state, sent, trackers };
  }

  it("opens when a chase state first arrives and re-renders on later ones", async () => {
    const w = world();
    w.state.set("chase", "chase-1", chaseState());
    const app = w.trackers.windows.get("chase-1");
    await new Promise((r) => setImmediate(r));
    assert.equal(app.rendered, true);
    assert.match(app.element.innerHTML, /Nimble Pip/);
    assert.equal(app.title, "Chase: chase-1");
    const moved = chaseState();
    moved.participants[2].position_ft = 120;
    moved.distances.tokT = 90;
    w.state.set("chase", "chase-1", moved);
    await new Promise((r) => setImmediate(r));
    assert.equal(app.renderCount, 2);
    assert.match(app.element.innerHTML, />90 ft<\/text>/);
  });

  it("does not reopen a closed tracker on every update", async () => {
    const w = world();
    w.state.set("chase", "chase-1", chaseState());
    await new Promise((r) => setImmediate(r));
    const app = w.trackers.windows.get("chase-1");
    await app.close();
    w.state.set("chase", "chase-1", chaseState());
    await new Promise((r) => setImmediate(r));
    assert.equal(app.rendered, false);
    w.state.set("chase", "chase-1", chaseState({ odds: {} }));
    await new Promise((r) => setImmediate(r));
    assert.equal(app.rendered, true, "odds the GM asked for reopen it");
  });

  it("players' browsers open nothing", () => {
    const w = world({ gm: false });
    w.env.hooks.callAll(STATE_HOOK, "chase", "chase-1", chaseState());
    assert.equal(w.trackers.windows.size, 0);
  });

  it("buttons send the chase's GM actions", async () => {
    const w = world();
    w.state.set("chase", "chase-1", chaseState());
    const app = await w.trackers.open("chase-1");
    await app.element.click({ action: "nextTurn" });
    await app.element.click({ action: "odds" });
    await app.element.click({ action: "dash", participant: "tokB", dash: "false" });
    await app.element.click({ action: "giveUp", side: "pursuers" });
    await app.element.click({ action: "catch", pursuer: "tokB", quarry: "tokT" });
    await app.element.click({ action: "end" });
    assert.deepEqual(w.sent, [
      { action: "chase.next_turn", params: { chase_id: "chase-1" } },
      { action: "chase.odds", params: { chase_id: "chase-1" } },
      { action: "chase.dash_choice", params: { chase_id: "chase-1", token_id: "tokB", dash: false } },
      { action: "chase.give_up", params: { chase_id: "chase-1", side: "pursuers" } },
      { action: "chase.catch", params: { chase_id: "chase-1", pursuer: "tokB", quarry: "tokT" } },
      { action: "chase.end", params: { chase_id: "chase-1" } },
    ]);
  });

  it("split asks for groups and sends chase.split", async () => {
    const w = world();
    const state = chaseState();
    state.participants.push({ ...state.participants[2], id: "tokU", name: "Second thief", position_ft: 80 });
    w.state.set("chase", "chase-1", state);
    const app = await w.trackers.open("chase-1");
    w.env.dialogResponder = () => ({ action: "split", values: { "group.tokB": "1", "group.tokA": "2", "group.tokT": "1", "group.tokU": "2" } });
    await app.element.click({ action: "split" });
    assert.deepEqual(w.sent.at(-1), {
      action: "chase.split",
      params: { chase_id: "chase-1", groups: [{ quarries: ["tokT"], pursuers: ["tokB"] }, { quarries: ["tokU"], pursuers: ["tokA"] }] },
    });
  });

  it("the sight toggle sends chase.sight", async () => {
    const w = world();
    w.state.set("chase", "chase-1", chaseState());
    const app = await w.trackers.open("chase-1");
    await app.element.click({ action: "sight", participant: "tokT", sight: "false" });
    await app.element.click({ action: "sight", participant: "tokT", sight: "true" });
    assert.deepEqual(w.sent, [
      { action: "chase.sight", params: { chase_id: "chase-1", token_id: "tokT", in_sight: false } },
      { action: "chase.sight", params: { chase_id: "chase-1", token_id: "tokT", in_sight: true } },
    ]);
  });

  it("escape factors: a dialog of checkboxes sends chase.factors, keeping custom factors", async () => {
    const w = world();
    const state = chaseState();
    state.participants[2].factors = [
      { id: "crowded", mode: 1, note: "a very crowded area" },
      { id: "smoke", mode: -1, note: "thick smoke" },
    ];
    w.state.set("chase", "chase-1", state);
    const app = await w.trackers.open("chase-1");
    w.env.dialogResponder = () => ({ action: "ok", values: { "factor.crowded": false, "factor.open_area": true, "factor.glowing": true } });
    await app.element.click({ action: "factors", participant: "tokT" });
    const form = w.env.dialogs.at(-1).content;
    assert.match(form, /name="factor\.crowded" checked/, "the current factors start ticked");
    assert.match(form, /name="factor\.open_area">/);
    assert.deepEqual(w.sent, [{
      action: "chase.factors",
      params: {
        chase_id: "chase-1",
        token_id: "tokT",
        factors: ["open_area", "glowing", { id: "smoke", mode: "disadvantage", note: "thick smoke" }],
      },
    }]);
    w.env.dialogResponder = () => null;
    await app.element.click({ action: "factors", participant: "tokT" });
    assert.equal(w.sent.length, 1, "closing the dialog sends nothing");
  });

  it("join sends chase.join for the selected tokens not yet in the chase", async () => {
    const w = world();
    const scene = w.env.createScene({
      id: "scene1",
      tokens: [{ id: "tokB", name: "Borin" }, { id: "tokN", name: "Newcomer" }, { id: "tokM", name: "Bystander" }],
    });
    w.env.viewScene(scene);
    w.state.set("chase", "chase-1", chaseState());
    const app = await w.trackers.open("chase-1");
    await app.element.click({ action: "join" });
    assert.equal(w.sent.length, 0);
    assert.match(w.env.notifications.at(-1).message, /Select the tokens that join the chase/);
    w.env.controlTokens(["tokB", "tokN", "tokM"]);
    w.env.dialogResponder = () => ({ action: "ok", values: { distance: "20", "role.tokN": "quarry", "role.tokM": "none" } });
    await app.element.click({ action: "join" });
    const form = w.env.dialogs.at(-1).content;
    assert.match(form, /Newcomer/);
    assert.doesNotMatch(form, /Borin/, "tokens already in the chase are not offered");
    assert.deepEqual(w.sent, [{
      action: "chase.join",
      params: { chase_id: "chase-1", participants: [{ token_id: "tokN", role: "quarry", distance_ft: 20 }] },
    }]);
  });

  it("turn the tables sends chase.reverse with the new sides and the distance", async () => {
    const w = world();
    w.state.set("chase", "chase-1", chaseState());
    const app = await w.trackers.open("chase-1");
    w.env.dialogResponder = () => ({
      action: "ok",
      values: { distance: "40", "side.tokB": "quarry", "side.tokA": "pursuer", "side.tokT": "pursuer", end_original: true },
    });
    await app.element.click({ action: "reverse" });
    const form = w.env.dialogs.at(-1).content;
    assert.match(form, /name="side\.tokB"><option value="quarry" selected>/, "a pursuer becomes a quarry by default");
    assert.match(form, /name="side\.tokT">.*?<option value="pursuer" selected>/, "a quarry hunts by default");
    assert.deepEqual(w.sent, [{
      action: "chase.reverse",
      params: {
        chase_id: "chase-1",
        quarries: ["tokB"],
        pursuers: [{ token_id: "tokA" }, { token_id: "tokT" }],
        distance_ft: 40,
        end_original: true,
      },
    }]);
    w.env.dialogResponder = () => ({ action: "ok", values: { distance: "40", "side.tokB": "quarry", "side.tokA": "none", "side.tokT": "none" } });
    await app.element.click({ action: "reverse" });
    assert.equal(w.sent.length, 1, "no pursuer: nothing sent");
    assert.match(w.env.notifications.at(-1).message, /at least one quarry and one pursuer/);
  });

  it("a split leaving a group without a quarry is refused in the dialog", () => {
    setupWorld();
    const people = chaseState().participants;
    assert.deepEqual(splitGroups(people, { "group.tokB": "2", "group.tokA": "1", "group.tokT": "1" }), null,
      "group 2 holds only a pursuer");
    assert.equal(splitGroups(people, { "group.tokT": "1", "group.tokB": "1", "group.tokA": "1" }), null);
  });
});

describe("starting a chase", () => {
  function world(generation = 13) {
    const setup = setupWorld({ generation });
    const scene = setup.env.createScene({
      id: "scene1",
      tokens: [{ id: "tokT", name: "Thief" }, { id: "tokA", name: "Aria" }, { id: "tokB", name: "Borin" }],
    });
    setup.env.viewScene(scene);
    const sent = [];
    const send = (action, params) => { sent.push({ action, params }); return "id"; };
    return { ...setup, scene, sent, send };
  }

  it("sends chase.start with the sides, factors, sight, distance and environment picked", async () => {
    const w = world();
    w.env.controlTokens(["tokT", "tokA", "tokB"]);
    w.env.dialogResponder = () => ({
      action: "start",
      values: {
        distance: "45", environment: "wilderness-2014",
        "role.tokT": "quarry", "role.tokA": "pursuer", "role.tokB": "pursuer",
        "sight.tokT": false, "sight.tokA": true, "sight.tokB": true,
        "factor.tokT.crowded": true, "factor.tokT.open_area": false, "factor.tokT.skilled_tracker": true,
      },
    });
    await startChaseDialog(w.send);
    assert.deepEqual(w.sent, [{
      action: "chase.start",
      params: {
        scene_id: "scene1",
        quarries: [{ token_id: "tokT", in_sight: false, factors: ["crowded", "skilled_tracker"] }],
        pursuers: [{ token_id: "tokA" }, { token_id: "tokB" }],
        distance_ft: 45,
        environment: "wilderness-2014",
      },
    }]);
    const form = w.env.dialogs[0].content;
    for (const name of ["Thief", "Aria", "Borin", "plenty of places to hide", "Urban (2014 table)"]) assert.match(form, new RegExp(name.replace(/[()]/g, "\\$&")));
  });

  it("needs two selected tokens and both sides", async () => {
    const w = world();
    w.env.controlTokens(["tokT"]);
    assert.equal(await startChaseDialog(w.send), null);
    assert.equal(w.env.dialogs.length, 0);
    assert.equal(chaseStartParams([{ id: "a" }, { id: "b" }], { "role.a": "pursuer", "role.b": "none" }, "s"), null);
  });

  it("joins the running combat when the tokens fight in it", async () => {
    const w = world();
    const combat = await CONFIG.Combat.documentClass.create({ scene: "scene1", active: true });
    await combat.createEmbeddedDocuments("Combatant", [{ tokenId: "tokT" }, { tokenId: "tokA" }]);
    w.env.controlTokens(["tokT", "tokA"]);
    w.env.dialogResponder = () => ({ action: "start", values: { distance: "60", environment: "urban", "role.tokT": "quarry", "role.tokA": "pursuer" } });
    await startChaseDialog(w.send);
    assert.equal(w.sent[0].params.combat_id, combat.id);
  });

  for (const generation of [12, 13]) {
    it(`adds GM-only scene control buttons (v${generation} shape)`, () => {
      const w = world(generation);
      let started = 0;
      installSceneControls(w.env.hooks, { startChase: () => { started += 1; }, openTrackers: () => {} });
      const controls = w.env.sceneControls();
      if (generation >= 13) controls.tokens.tools.vttSidecarChase.onChange();
      else controls[0].tools.find((tool) => tool.name === "vttSidecarChase").onClick();
      assert.equal(started, 1);
      w.env.setCurrentUser(w.player.id);
      const playerControls = w.env.sceneControls();
      const names = generation >= 13 ? Object.keys(playerControls.tokens.tools) : playerControls[0].tools.map((tool) => tool.name);
      assert.deepEqual(names, ["select"]);
    });
  }
});
