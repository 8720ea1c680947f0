/**
 * `weapon.hit` from dnd5e damage rolls of coated items, `interaction` from doors opened
 * inside trap regions and from the token HUD.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { PlayerChannel } from "../scripts/channel.mjs";
import { CoatedItems } from "../scripts/coated-items.mjs";
import { installDoorForwarder, registerDoorRelay } from "../scripts/forward/door.mjs";
import { damageHookArgs, damageTypes, installWeaponHitForwarder, registerWeaponHitRelay } from "../scripts/forward/weapon-hit.mjs";
import { regionContains } from "../scripts/regions/contains.mjs";
import { registerTrapBehavior } from "../scripts/regions/trap-behavior.mjs";
import { SidecarState } from "../scripts/state.mjs";
import { hudActions } from "../scripts/ui/token-hud.mjs";
import { createSocketBus } from "./foundry-standins.mjs";
import { flush } from "./support/fakes.mjs";
import { setupWorld } from "./support/env.mjs";

const trapRegion = (id, x, y, size = 200) => ({
  id, name: id, shapes: [{ type: "rectangle", x, y, width: size, height: size }],
  behaviors: [{ type: "vtt-sidecar.trap", system: { trapId: "poison_needle" } }],
});

function world({ systemVersion = "5.3.3", generation = 13, socketBus } = {}) {
  const setup = setupWorld({ systemVersion, generation, ...(socketBus ? { socketBus } : {}) });
  registerTrapBehavior();
  const sent = [];
  const ctx = { send: (e) => { sent.push(e); return "id"; }, isActive: () => setup.env.game.user.id === setup.gm.id };
  const aria = setup.env.createActor({ id: "actAria", name: "Aria", ownership: { [setup.player.id]: 3 } });
  const goblin = setup.env.createActor({ id: "actGob", name: "Goblin" });
  const dagger = setup.env.createItem(aria, { id: "itemDagger", name: "Dagger", damageTypes: ["piercing"] });
  const club = setup.env.createItem(aria, { id: "itemClub", name: "Club", damageTypes: ["bludgeoning"] });
  const scene = setup.env.createScene({
    id: "scene1",
    tokens: [
      { id: "tokAria", actorId: aria.id, x: 0, y: 0 },
      { id: "tokGob1", actorId: goblin.id, x: 100, y: 0 },
      { id: "tokGob2", actorId: goblin.id, x: 200, y: 0 },
    ],
    regions: [trapRegion("regChest", 1000, 1000), { id: "regPlain", shapes: [{ type: "rectangle", x: 0, y: 1000, width: 200, height: 200 }] }],
    walls: [
      { id: "wallTrapped", c: [1100, 1000, 1100, 1200], door: 1, ds: 0 },
      { id: "wallLocked", c: [1000, 1100, 1200, 1100], door: 1, ds: 2 },
      { id: "wallPlain", c: [100, 1000, 100, 1200], door: 1, ds: 0 },
    ],
  });
  setup.env.viewScene(scene);
  const channel = new PlayerChannel();
  const coated = new CoatedItems();
  return { ...setup, sent, ctx, aria, dagger, club, scene, channel, coated };
}

describe("weapon.hit", () => {
  for (const systemVersion of ["5.3.3", "4.2.0", "4.4.1", "3.3.1"]) {
    it(`dnd5e ${systemVersion}: a coated item's damage roll with two targets sends one hit per target`, async () => {
      const w = world({ systemVersion });
      installWeaponHitForwarder(w.env.hooks, w.ctx, w.channel, w.coated);
      w.coated.add("itemDagger");
      w.env.controlTokens(["tokAria"]);
      w.env.targetTokens(["tokGob1", "tokGob2"]);
      await w.dagger.rollDamage();
      assert.deepEqual(w.sent, ["tokGob1", "tokGob2"].map((target) => ({
        type: "weapon.hit", scene_id: "scene1", attacker_token_id: "tokAria", target_token_id: target,
        item_id: "itemDagger", damage_types: ["piercing"],
      })));
    });
  }

  it("an uncoated item, or a roll without targets, sends nothing", async () => {
    const w = world();
    installWeaponHitForwarder(w.env.hooks, w.ctx, w.channel, w.coated);
    w.coated.add("itemDagger");
    w.env.targetTokens(["tokGob1"]);
    await w.club.rollDamage();
    assert.deepEqual(w.sent, []);
    w.env.targetTokens([]);
    await w.dagger.rollDamage();
    assert.deepEqual(w.sent, []);
  });

  it("the HUD's coat action marks the item as coated", async () => {
    const w = world();
    installWeaponHitForwarder(w.env.hooks, w.ctx, w.channel, w.coated);
    const actions = hudActions({ send: () => "id", state: new SidecarState(), panels: {}, coated: w.coated });
    w.env.dialogResponder = () => ({ action: "ok", values: { item: "itemDagger", poison: "serpent_venom", doses: "1" } });
    await actions.coat(w.scene.tokens.get("tokAria"));
    assert.ok(w.coated.has("itemDagger"));
    assert.ok(!w.coated.has("itemClub"));
    w.env.targetTokens(["tokGob2"]);
    await w.dagger.rollDamage();
    assert.deepEqual(w.sent.map((e) => [e.type, e.target_token_id]), [["weapon.hit", "tokGob2"]]);
  });

  for (const generation of [13, 12]) {
    it(`v${generation}: a player's roll is relayed to the active GM, who checks coating and ownership`, async () => {
      const bus = createSocketBus();
      const w = world({ generation, socketBus: bus });
      // two browsers: the GM's answers relays; the player's rolls (v12: module socket)
      const gmCtx = { ...w.ctx, isActive: () => true };
      const gmChannel = new PlayerChannel({ socket: () => gmSocket, currentUserId: () => w.gm.id });
      const gmSocket = bus.connect();
      const playerChannel = new PlayerChannel({ socket: () => playerSocket, currentUserId: () => w.player.id });
      const playerSocket = bus.connect();
      registerWeaponHitRelay(gmCtx, gmChannel, w.coated);
      gmChannel.listen();
      playerChannel.listen();
      installWeaponHitForwarder(w.env.hooks, { ...w.ctx, isActive: () => false }, playerChannel, new CoatedItems());
      w.coated.add("itemDagger");
      w.env.setCurrentUser(w.player.id);
      w.env.targetTokens(["tokGob1"]);
      await w.dagger.rollDamage();
      for (let i = 0; i < 5; i += 1) await flush();
      assert.deepEqual(w.sent, [{
        type: "weapon.hit", scene_id: "scene1", attacker_token_id: "tokAria", target_token_id: "tokGob1",
        item_id: "itemDagger", damage_types: ["piercing"],
      }]);
      // an uncoated item is relayed but not sent on
      await w.club.rollDamage();
      for (let i = 0; i < 5; i += 1) await flush();
      assert.equal(w.sent.length, 1);
      // a relay naming a user who does not own the attacker is refused
      const stranger = w.env.addUser({ id: "stranger0000001", name: "S" });
      const refused = await playerChannel.ask(w.gm, "weaponHit", {
        user_id: stranger.id, actor_id: "actAria", attacker_token_id: "tokAria", scene_id: "scene1",
        item_id: "itemDagger", target_token_ids: ["tokGob2"], damage_types: [],
      }, 1000);
      assert.equal(refused, false);
      assert.equal(w.sent.length, 1);
    });
  }

  it("reads either hook's arguments and the damage types from rolls or parts", () => {
    const roll = { total: 3, terms: [], options: { type: "slashing" } };
    assert.deepEqual(damageHookArgs([roll], { subject: "a" }), { rolls: [roll], subject: "a" });
    assert.deepEqual(damageHookArgs("item", roll), { rolls: [roll], subject: "item" });
    assert.deepEqual(damageTypes([roll], null, null), ["slashing"]);
    assert.deepEqual(damageTypes([{ total: 1, options: { types: ["piercing", "poison"] } }], null, null), ["piercing", "poison"]);
    assert.deepEqual(damageTypes([{ total: 1, options: {} }], null, { system: { damage: { parts: [["1d4", "piercing"]] } } }), ["piercing"]);
  });
});

describe("interaction from doors", () => {
  it("a door opened inside a trap region sends `interaction` open with that region", async () => {
    const w = world();
    installDoorForwarder(w.env.hooks, w.ctx, w.channel);
    w.env.controlTokens(["tokAria"]);
    await w.scene.walls.get("wallTrapped").update({ ds: 1 });
    assert.deepEqual(w.sent, [{ type: "interaction", scene_id: "scene1", token_id: "tokAria", target_id: "regChest", kind: "open" }]);
    await w.scene.walls.get("wallTrapped").update({ ds: 0 });
    await w.scene.walls.get("wallLocked").update({ ds: 1 });
    assert.equal(w.sent.length, 2, "closing sends nothing; a locked door opened counts");
  });

  it("a door outside any trap region (or in a region without a trap) sends nothing", async () => {
    const w = world();
    installDoorForwarder(w.env.hooks, w.ctx, w.channel);
    w.env.controlTokens(["tokAria"]);
    await w.scene.walls.get("wallPlain").update({ ds: 1 });
    await w.scene.walls.get("wallTrapped").update({ sight: 0 });
    assert.deepEqual(w.sent, []);
  });

  it("a player's door is relayed to the GM with their nearest owned token", async () => {
    const w = world();
    registerDoorRelay(w.ctx, w.channel);
    installDoorForwarder(w.env.hooks, w.ctx, w.channel);
    w.env.setCurrentUser(w.player.id);
    await w.scene.walls.get("wallTrapped").update({ ds: 1 });
    await flush();
    assert.deepEqual(w.sent, [{ type: "interaction", scene_id: "scene1", token_id: "tokAria", target_id: "regChest", kind: "open" }]);
    // the GM's browser ignores another user's update (the opener's browser reports it)
    w.env.setCurrentUser(w.gm.id);
    w.env.hooks.callAll("updateWall", w.scene.walls.get("wallTrapped"), { ds: 1 }, {}, w.player.id);
    assert.equal(w.sent.length, 1);
    // a stranger's relay is refused
    const refused = await w.env.runQuery(w.gm, "vtt-sidecar.doorOpened", { user_id: "nobody", scene_id: "scene1", wall_id: "wallTrapped", token_id: "tokAria" });
    assert.equal(refused, false);
  });

  it("region containment: rotation, circles, polygons and holes", () => {
    const region = { shapes: [
      { type: "rectangle", x: 0, y: 0, width: 200, height: 100, rotation: 90 },
      { type: "circle", x: 500, y: 500, radius: 50 },
      { type: "polygon", points: [1000, 0, 1200, 0, 1100, 200] },
      { type: "circle", x: 500, y: 500, radius: 20, hole: true },
    ] };
    assert.ok(regionContains(region, 100, -40), "rotated rectangle stands upright");
    assert.ok(!regionContains(region, 10, 50));
    assert.ok(regionContains(region, 540, 500));
    assert.ok(!regionContains(region, 505, 500), "inside the hole");
    assert.ok(regionContains(region, 1100, 100));
    assert.ok(!regionContains(region, 1010, 150));
  });
});

describe("interaction from the token HUD", () => {
  function hud() {
    const w = world();
    const events = [];
    const actions = hudActions({
      send: () => "id",
      sendEvent: (e) => { events.push(e); return "id"; },
      state: new SidecarState(),
      panels: {},
    });
    return { ...w, events, actions, token: w.scene.tokens.get("tokAria") };
  }

  it("interact: picks a trap region and the kind", async () => {
    const w = hud();
    w.env.dialogResponder = (options) => {
      assert.match(options.content, /regChest/);
      assert.doesNotMatch(options.content, /regPlain/);
      assert.match(options.content, /value="pick_lock_failed"/);
      return { action: "ok", values: { region: "regChest", kind: "pick_lock_failed" } };
    };
    const result = await w.actions.interact(w.token);
    assert.deepEqual(w.events, [{ type: "interaction", scene_id: "scene1", token_id: "tokAria", target_id: "regChest", kind: "pick_lock_failed" }]);
    assert.deepEqual(result, w.events[0]);
    w.env.dialogResponder = () => ({ action: "ok", values: { region: "forged", kind: "explode" } });
    await w.actions.interact(w.token);
    assert.deepEqual(w.events[1], { type: "interaction", scene_id: "scene1", token_id: "tokAria", target_id: "regChest", kind: "open" });
  });

  it("touch / open object: a typed object id, kind touch; cancel sends nothing", async () => {
    const w = hud();
    w.env.dialogResponder = () => ({ action: "ok", values: { target: " goblet-1 " } });
    await w.actions.touch(w.token);
    w.env.dialogResponder = () => null;
    assert.equal(await w.actions.touch(w.token), null);
    w.env.dialogResponder = () => ({ action: "ok", values: { target: "" } });
    assert.equal(await w.actions.touch(w.token), null);
    assert.deepEqual(w.events, [{ type: "interaction", scene_id: "scene1", token_id: "tokAria", target_id: "goblet-1", kind: "touch" }]);
  });

  it("on a browser that is not the active GM it warns and sends nothing", async () => {
    const w = hud();
    const actions = hudActions({ send: () => null, sendEvent: () => null, state: new SidecarState(), panels: {} });
    w.env.dialogResponder = () => ({ action: "ok", values: { target: "x" } });
    assert.equal(await actions.touch(w.token), null);
    assert.equal(w.env.notifications.at(-1).type, "warn");
  });
});
