/**
 * The afflictions panel, the token HUD actions, and the fixes: hp.set, walls in scene.sync,
 * sidecar combatant keys in combat events, best/worst only.
 */
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";

import { installCombatForwarder } from "../scripts/forward/combat.mjs";
import { installHitPointForwarder } from "../scripts/forward/hit-points.mjs";
import { sceneData } from "../scripts/forward/scene.mjs";
import { registerTrapBehavior } from "../scripts/regions/trap-behavior.mjs";
import { registerSettings, rulesSettings } from "../scripts/settings.mjs";
import { SidecarState } from "../scripts/state.mjs";
import { dnd5eAdapter } from "../scripts/systems/dnd5e.mjs";
import { applyOps } from "../scripts/systems/dnd5e/ops.mjs";
import { AfflictionPanels, afflictionsHtml, duration } from "../scripts/ui/affliction-panel.mjs";
import { hudActions, installTokenHud, nearbyTraps } from "../scripts/ui/token-hud.mjs";
import { UndoLog } from "../scripts/undo-log.mjs";
import { dnd5eSystem } from "./foundry-standins.mjs";
import { setupWorld } from "./support/env.mjs";

const afflictions = {
  actor_id: "actAria",
  name: "Aria",
  world_time: 3600,
  afflictions: [
    {
      iid: "a1", kind: "poison", ref: "serpent_venom", name: "Serpent venom", stage: "active",
      conditions: ["poisoned"], exhaustion: 0, dc: 11, successes: 1, failures: 0, time_left_s: 3540,
      turns_left: null, next: { what: "expire", at: 7140, in_s: 3540 }, upcoming: [], secret: false,
    },
    {
      iid: "a2", kind: "disease", ref: "sight_rot", name: "Sight rot", stage: "incubating",
      conditions: [], exhaustion: 0, dc: 15, successes: 0, failures: 0, time_left_s: null,
      turns_left: null, next: { what: "onset", at: 90000, in_s: 86400 }, upcoming: [], secret: true,
    },
    {
      iid: "a3", kind: "madness", ref: "short_term", name: "Short-term madness", stage: "active",
      conditions: ["stunned"], exhaustion: 0, dc: null, successes: 0, failures: 0, time_left_s: 300,
      turns_left: 50, next: { what: "expire", at: 3900, in_s: 300 }, upcoming: [], secret: false,
      effect: "Stares into nothing.",
    },
  ],
};

describe("afflictions panel", () => {
  beforeEach(() => setupWorld());

  it("lists each poison, disease and madness with what comes next", () => {
    const html = afflictionsHtml(afflictions);
    assert.match(html, /Poison<\/span> <b class="name">Serpent venom<\/b>/);
    assert.match(html, /conditions: poisoned · DC 11 · saves: 1 passed, 0 failed · 59 min left/);
    assert.match(html, /→ wears off in 59 min/);
    assert.match(html, /Disease<\/span> <b class="name">Sight rot<\/b>.*→ takes hold in 1 d/);
    assert.match(html, /Madness<\/span>.*Stares into nothing\..*→ wears off in 5 min/);
    assert.equal((html.match(/<li class="affliction/g) ?? []).length, 3);
  });

  it("says when there is nothing, and while waiting", () => {
    assert.match(afflictionsHtml({ name: "Borin", afflictions: [] }), /Borin has no poison, disease or madness/);
    assert.match(afflictionsHtml(undefined), /Asking the sidecar/);
  });

  it("durations read at a glance", () => {
    assert.equal(duration(45), "45 s");
    assert.equal(duration(3600 * 26 + 60), "1 d 2 h");
    assert.equal(duration(null), "");
  });

  it("opening asks the sidecar (afflictions.list) and the answer re-renders the window", async () => {
    const { env } = setupWorld();
    const state = new SidecarState();
    const sent = [];
    const panels = new AfflictionPanels({ state, send: (action, params) => { sent.push({ action, params }); return "id"; } });
    panels.install(env.hooks);
    const app = await panels.open({ id: "actAria", name: "Aria" });
    assert.deepEqual(sent, [{ action: "afflictions.list", params: { actor_id: "actAria" } }]);
    assert.match(app.element.innerHTML, /Asking the sidecar/);
    assert.equal(app.title, "Afflictions: Aria");
    state.set("afflictions", "actAria", afflictions);
    await new Promise((r) => setImmediate(r));
    assert.match(app.element.innerHTML, /Serpent venom/);
    state.set("afflictions", "someoneElse", { name: "X", afflictions: [] });
    assert.equal(app.renderCount, 2, "another actor's state leaves this panel alone");
    await app.element.click({ action: "refresh" });
    assert.equal(sent.length, 2);
  });
});

describe("token HUD actions", () => {
  function world(generation = 13) {
    const setup = setupWorld({ generation });
    registerTrapBehavior();
    const actor = setup.env.createActor({ name: "Aria" });
    actor.items = [{ id: "itemDagger", name: "Dagger", type: "weapon" }, { id: "itemRope", name: "Rope", type: "loot" }];
    const trap = (id, x) => ({
      id, name: id, shapes: [{ type: "rectangle", x, y: 0, width: 100, height: 100 }],
      behaviors: [{ type: "vtt-sidecar.trap", system: { trapId: "pit" } }],
    });
    const scene = setup.env.createScene({
      id: "scene1",
      tokens: [{ id: "tokAria", actorId: actor.id, x: 0, y: 0 }],
      regions: [trap("regFar", 2000), trap("regNear", 200), { id: "regPlain", shapes: [{ type: "rectangle", x: 100, y: 0, width: 100, height: 100 }] }],
    });
    setup.env.viewScene(scene);
    const sent = [];
    const state = new SidecarState();
    const opened = [];
    const actions = hudActions({
      send: (action, params) => { sent.push({ action, params }); return "id"; },
      state,
      panels: { open: async (a) => opened.push(a) },
    });
    return { ...setup, actor, scene, token: scene.tokens.get("tokAria"), sent, state, actions, opened };
  }

  it("the HUD button is there for GMs only and opens the menu", async () => {
    const w = world();
    installTokenHud(w.env.hooks, w.actions);
    const html = w.env.renderTokenHUD(w.token);
    assert.match(html.innerHTML, /data-vtt-sidecar-hud="menu"/);
    w.env.dialogResponder = () => ({ action: "search" });
    await html.click({ vttSidecarHud: "menu" });
    assert.deepEqual(w.sent, [{ action: "trap.search", params: { scene_id: "scene1", token_id: "tokAria" } }]);
    assert.equal(w.env.dialogs[0].buttons.length, 10);
    w.env.setCurrentUser(w.player.id);
    assert.doesNotMatch(w.env.renderTokenHUD(w.token).innerHTML, /vtt-sidecar-hud/);
  });

  it("a HUD element rendered again for another token gets one listener, for the new token", async () => {
    const w = world();
    installTokenHud(w.env.hooks, w.actions);
    const [other] = await w.scene.createEmbeddedDocuments("Token", [{ id: "tokOther", x: 500, y: 500 }]);
    const element = w.env.renderTokenHUD(w.token);
    w.env.hooks.callAll("renderTokenHUD", { document: other, object: { document: other } }, element, {});
    assert.equal(element.listeners.length, 1);
    w.env.dialogResponder = () => ({ action: "search" });
    await element.click({ vttSidecarHud: "menu" });
    assert.deepEqual(w.sent, [{ action: "trap.search", params: { scene_id: "scene1", token_id: "tokOther" } }]);
  });

  it("works on v12's HUD (jQuery html, hud.object.document)", async () => {
    const w = world(12);
    installTokenHud(w.env.hooks, w.actions);
    const html = w.env.renderTokenHUD(w.token);
    w.env.dialogResponder = () => ({ action: "investigate" });
    await html.click({ vttSidecarHud: "menu" });
    assert.deepEqual(w.sent, [{ action: "trap.investigate", params: { scene_id: "scene1", token_id: "tokAria" } }]);
  });

  it("disarm lists the scene's traps nearest first and sends trap.disarm", async () => {
    const w = world();
    assert.deepEqual(nearbyTraps(w.token).map((r) => [r.id, r.distanceFt]), [["regNear", 10], ["regFar", 100]]);
    w.env.dialogResponder = (options) => {
      assert.match(options.content, /regNear \(10 ft\).*regFar \(100 ft\)/s);
      assert.doesNotMatch(options.content, /regPlain/);
      return { action: "ok", values: { region: "regNear", tool: "edged", bonus: "3" } };
    };
    await w.actions.disarm(w.token);
    assert.deepEqual(w.sent, [{ action: "trap.disarm", params: { scene_id: "scene1", token_id: "tokAria", region_id: "regNear", tool: "edged", bonus: 3 } }]);
  });

  it("administer poison: free text id when no catalog came, a select when one did", async () => {
    const w = world();
    w.env.dialogResponder = (options) => {
      assert.match(options.content, /<input type="text" name="poison" list=/);
      return { action: "ok", values: { poison: "serpent_venom", partial: "advantage", secret: false } };
    };
    await w.actions.poison(w.token);
    assert.deepEqual(w.sent.at(-1), {
      action: "poison.administer",
      params: { scene_id: "scene1", token_id: "tokAria", poison: "serpent_venom", partial: "advantage", secret: false },
    });
    w.state.set("catalog", "poisons", { entries: [{ id: "torpor", name: "Torpor" }] });
    w.env.dialogResponder = (options) => {
      assert.match(options.content, /<select name="poison"><option value="torpor" selected>Torpor<\/option>/);
      return null;
    };
    assert.equal(await w.actions.poison(w.token), null, "cancelled: nothing sent");
    assert.equal(w.sent.length, 1);
  });

  it("expose to disease, inflict madness", async () => {
    const w = world();
    w.env.dialogResponder = () => ({ action: "ok", values: { disease: "sight_rot", save: true } });
    await w.actions.disease(w.token);
    w.env.dialogResponder = () => ({ action: "ok", values: { kind: "long" } });
    await w.actions.madness(w.token);
    w.env.dialogResponder = () => ({ action: "ok", values: { kind: "random" } });
    await w.actions.madness(w.token);
    assert.deepEqual(w.sent, [
      { action: "disease.expose", params: { scene_id: "scene1", token_ids: ["tokAria"], disease: "sight_rot", save: true } },
      { action: "madness.inflict", params: { scene_id: "scene1", token_id: "tokAria", kind: "long" } },
      { action: "madness.inflict", params: { scene_id: "scene1", token_id: "tokAria" } },
    ]);
  });

  it("coat a weapon offers the actor's weapons only", async () => {
    const w = world();
    w.env.dialogResponder = (options) => {
      assert.match(options.content, /Dagger/);
      assert.doesNotMatch(options.content, /Rope/);
      return { action: "ok", values: { item: "itemDagger", poison: "serpent_venom", doses: "2" } };
    };
    await w.actions.coat(w.token);
    assert.deepEqual(w.sent, [{
      action: "poison.coat",
      params: { scene_id: "scene1", token_id: "tokAria", actor_id: w.actor.id, item_id: "itemDagger", poison: "serpent_venom", doses: 2 },
    }]);
  });

  it("afflictions opens the actor's panel", async () => {
    const w = world();
    await w.actions.afflictions(w.token);
    assert.deepEqual(w.opened, [{ id: w.actor.id, name: "Aria" }]);
  });
});

describe("fixes", () => {
  it("hp.set sets HP and temp HP exactly, records the prior, and is not echoed", async () => {
    const { env } = setupWorld();
    const actor = env.createActor({ name: "Tank", system: dnd5eSystem({ hp: { value: 5, max: 30, temp: 0 } }) });
    const sent = [];
    installHitPointForwarder(env.hooks, { send: (e) => sent.push(e), adapter: dnd5eAdapter, isActive: () => true });
    const undo = new UndoLog();
    const results = await applyOps([{ op: "hp.set", actor_id: actor.id, token_id: null, value: 24, temp: 3 }], { eventId: "u1", undoLog: undo });
    assert.deepEqual(results, [{ op: "hp.set", ok: true }]);
    assert.equal(actor.system.attributes.hp.value, 24);
    assert.equal(actor.system.attributes.hp.temp, 3);
    assert.deepEqual(undo.get("u1")[0].hp, { value: 5, temp: 0 });
    assert.deepEqual(sent, [], "the sidecar's own change is not sent back as healing");
    await applyOps([{ op: "hp.set", actor_id: actor.id, value: 0, temp: 0 }]);
    assert.equal(actor.system.attributes.hp.value, 0);
    assert.equal(actor.calls.applyDamage.length, 0, "an exact set, not damage");
  });

  it("scene.sync carries the walls, sight-blocking unless their sight is NONE", () => {
    const { env } = setupWorld();
    const scene = env.createScene({
      walls: [{ c: [0, 0, 500, 0], sight: 20 }, { c: [500, 0, 500, 500], sight: 0 }, { c: [0, 0, 0, 100], sight: 10 }],
    });
    assert.deepEqual(sceneData(scene, dnd5eAdapter).walls, [
      { c: [0, 0, 500, 0], blocks_sight: true },
      { c: [500, 0, 500, 500], blocks_sight: false },
      { c: [0, 0, 0, 100], blocks_sight: true },
    ]);
  });

  it("a sidecar-added combatant is reported by its key in combat.start and combat.turn", async () => {
    const { env } = setupWorld();
    const scene = env.createScene({ id: "scene1", tokens: [{ id: "tokAria", name: "Aria" }] });
    env.viewScene(scene);
    const sent = [];
    installCombatForwarder(env.hooks, { send: (e) => sent.push(e), adapter: dnd5eAdapter, isActive: () => true });
    const combat = await CONFIG.Combat.documentClass.create({ scene: "scene1", active: true });
    const [aria] = await combat.createEmbeddedDocuments("Combatant", [{ tokenId: "tokAria", name: "Aria", initiative: 12 }]);
    await applyOps([{ op: "combatant.add", scene_id: "scene1", name: "Rolling sphere", initiative: 19, region_id: "reg9", key: "trap:scene1:reg9" }]);
    const sphere = [...combat.combatants].find((c) => c.name === "Rolling sphere");
    assert.equal(sphere.flags["vtt-sidecar"].key, "trap:scene1:reg9");
    await combat.startCombat();
    await combat.nextTurn();
    const start = sent.find((e) => e.type === "combat.start");
    assert.deepEqual(start.combatants.map((c) => c.combatant_id), ["trap:scene1:reg9", aria.id]);
    const turns = sent.filter((e) => e.type === "combat.turn");
    assert.equal(turns[0].current.combatant_id, "trap:scene1:reg9", "round 1 opens on the sphere's turn");
    assert.equal(turns[1].prior.combatant_id, "trap:scene1:reg9");
    assert.equal(turns[1].current.combatant_id, aria.id);
    assert.equal(turns[1].current.token_id, "tokAria");
  });

  it("the GM-picks-ability setting offers only best and worst", () => {
    const { env } = setupWorld();
    registerSettings({ onConnectionChange: () => {}, onRulesChange: () => {} });
    const config = env.game.settings.configs.get("vtt-sidecar.gmPicksAbility");
    assert.deepEqual(Object.keys(config.choices), ["best", "worst"]);
    assert.equal(rulesSettings().gm_picks_ability, "best");
    env.game.settings.values.set("vtt-sidecar.gmPicksAbility", "ask");
    assert.equal(rulesSettings().gm_picks_ability, "best", "a stale 'ask' from an older version is never sent");
  });
});
