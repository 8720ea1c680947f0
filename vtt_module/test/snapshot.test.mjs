import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { tokenData } from "../scripts/forward/scene.mjs";
import { creatureSnapshot, saveBonus } from "../scripts/systems/dnd5e/snapshot.mjs";
import { dnd5eAdapter } from "../scripts/systems/dnd5e.mjs";
import { dnd5eSystem } from "./foundry-standins.mjs";
import { setupWorld } from "./support/env.mjs";

describe("creature snapshot", () => {
  for (const saveShape of ["object", "number"]) {
    it(`reads save bonuses from the ${saveShape} shape`, () => {
      const { env } = setupWorld();
      const actor = env.createActor({
        name: "Cleric",
        system: dnd5eSystem({ abilities: { wis: 16, dex: 8 }, saveProficiencies: ["wis"], prof: 3, saveShape }),
      });
      const creature = creatureSnapshot(actor);
      assert.equal(creature.abilities.wis, 3);
      assert.equal(creature.saves.wis, 6);
      assert.equal(creature.saves.dex, -1);
      assert.equal(typeof actor.system.abilities.wis.save, saveShape);
    });
  }

  it("falls back to the ability modifier when there is no save data", () => {
    assert.equal(saveBonus({ mod: 2 }), 2);
    assert.equal(saveBonus({ mod: 2, save: { value: 5 } }), 5);
    assert.equal(saveBonus({ mod: 2, save: 4 }), 4);
  });

  it("fills every Creature field from prepared dnd5e data", () => {
    const { env, player } = setupWorld();
    const actor = env.createActor({
      id: "actorDwarf000001",
      name: "Dwarf",
      ownership: { [player.id]: 3 },
      statuses: ["poisoned"],
      system: dnd5eSystem({
        hp: { value: 18, max: 24, temp: 3 },
        ac: 16,
        speed: 25,
        size: "med",
        level: 3,
        race: "Dwarf",
        creatureType: "humanoid",
        dr: ["poison"],
        ci: ["charmed"],
        exhaustion: 2,
        skillProficiencies: ["prc"],
        abilities: { wis: 14 },
      }),
    });
    const creature = creatureSnapshot(actor);
    assert.deepEqual(creature.hp, { value: 18, max: 24, temp: 3 });
    assert.equal(creature.id, "actorDwarf000001");
    assert.deepEqual(creature.owners, [player.id], "GMs are not listed as owners");
    assert.equal(creature.ac, 16);
    assert.equal(creature.speed, 25);
    assert.equal(creature.size, "med");
    assert.equal(creature.creature_type, "humanoid");
    assert.equal(creature.race, "Dwarf");
    assert.equal(creature.level, 3);
    assert.equal("cr" in creature, false);
    assert.deepEqual(creature.damage_resistances, ["poison"]);
    assert.deepEqual(creature.condition_immunities, ["charmed"]);
    assert.deepEqual(creature.statuses, ["poisoned"]);
    assert.equal(creature.exhaustion, 2);
    assert.equal(creature.skills.prc, 4);
    assert.equal(creature.passive_perception, 14);
    assert.equal(creature.flying, false);
  });

  it("marks flying creatures by status or elevation, and NPCs by CR", () => {
    const { env } = setupWorld();
    const bat = env.createActor({ name: "Bat", type: "npc", statuses: ["flying"], system: dnd5eSystem({ cr: 0.125, size: "tiny" }) });
    const imp = env.createActor({ name: "Imp", type: "npc", system: dnd5eSystem({ cr: 1 }) });
    assert.equal(creatureSnapshot(bat).flying, true);
    assert.equal(creatureSnapshot(bat).cr, 0.125);
    assert.equal(creatureSnapshot(bat).size, "tiny");
    assert.equal(creatureSnapshot(imp).flying, false);
    assert.equal(creatureSnapshot(imp, { name: "Imp", elevation: 10 }).flying, true);
  });

  it("rounds and clamps odd numbers into the wire model's bounds", () => {
    const { env } = setupWorld();
    const odd = env.createActor({ name: "Odd", system: dnd5eSystem({ hp: { value: 7.5, max: -3, temp: null }, ac: 250, speed: 32.6 }) });
    const creature = creatureSnapshot(odd);
    assert.deepEqual(creature.hp, { value: 8, max: 0, temp: 0 });
    assert.equal(creature.ac, 100);
    assert.equal(creature.speed, 33);
  });

  it("a token carries its creature", () => {
    const { env } = setupWorld();
    const actor = env.createActor({ name: "Rogue" });
    const scene = env.createScene({ tokens: [{ id: "tokRogue", actorId: actor.id, x: 50, y: 60, elevation: 5, name: "Sneaky" }] });
    const data = tokenData(scene.tokens.get("tokRogue"), dnd5eAdapter);
    assert.equal(data.x, 50);
    assert.equal(data.actor_id, actor.id);
    assert.equal(data.creature.name, "Sneaky");
    assert.equal(data.creature.flying, true);
  });
});
