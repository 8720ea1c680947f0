import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import { regionData, shapeData } from "../scripts/regions/region-data.mjs";
import { registerTrapBehavior } from "../scripts/regions/trap-behavior.mjs";
import { parseTrack, trapPlacement } from "../scripts/regions/trap-placement.mjs";
import { setupWorld } from "./support/env.mjs";

function world() {
  const { env } = setupWorld();
  registerTrapBehavior();
  return env;
}

describe("trap behaviour", () => {
  it("is declared in module.json and registered under the module's prefix", () => {
    const manifest = JSON.parse(readFileSync(new URL("../module.json", import.meta.url), "utf8"));
    assert.deepEqual(manifest.documentTypes, { RegionBehavior: { trap: {} } });
    world();
    assert.ok(CONFIG.RegionBehavior.dataModels["vtt-sidecar.trap"]);
    assert.equal(CONFIG.RegionBehavior.typeIcons["vtt-sidecar.trap"], "fa-solid fa-skull-crossbones");
  });

  it("fills defaults and refuses overrides or tracks that are not JSON of the right shape", () => {
    world();
    const Model = CONFIG.RegionBehavior.dataModels["vtt-sidecar.trap"];
    const data = new Model({ trapId: "pit" });
    assert.equal(data.hidden, true);
    assert.equal(data.once, false);
    assert.equal(data.originX, null);
    assert.throws(() => new Model({ trapId: "pit", overrides: "[1, 2]" }));
    assert.throws(() => new Model({ trapId: "pit", overrides: "{oops" }));
    assert.throws(() => new Model({ trapId: "pit", track: "[[1]]" }));
    assert.throws(() => new Model({ trapId: "pit", direction: 400 }));
  });

  it("becomes the protocol's TrapPlacement", () => {
    assert.equal(trapPlacement({ trapId: "" }), null, "no trap chosen yet");
    assert.deepEqual(trapPlacement({
      trapId: "scything-blade", overrides: "{\"dc\": 15}", once: true, originX: 10, originY: 20, direction: 90,
      track: "[[0, 0], {\"x\": 100, \"y\": 0}]", hidden: false,
    }), {
      trap_id: "scything-blade",
      overrides: { dc: 15, once: true },
      origin: { x: 10, y: 20 },
      direction: 90,
      track: [{ x: 0, y: 0 }, { x: 100, y: 0 }],
      hidden: false,
    });
    assert.equal(parseTrack("[[0, \"a\"]]"), null);
  });

  it("a region with a trap becomes a protocol Region with its shapes", () => {
    const env = world();
    const scene = env.createScene({
      regions: [
        {
          id: "reg1",
          name: "Hall",
          elevation: { bottom: null, top: 10 },
          shapes: [
            { type: "rectangle", x: 0, y: 0, width: 100, height: 50, rotation: 0 },
            { type: "circle", x: 50, y: 50, radius: 20, hole: true },
            { type: "ellipse", x: 1, y: 2, radiusX: 3, radiusY: 4, rotation: 5 },
            { type: "polygon", points: [0, 0, 10, 0, 10, 10] },
            { type: "emanation" },
          ],
          behaviors: [{ type: "vtt-sidecar.trap", system: { trapId: "pit" } }],
        },
        { id: "reg2", behaviors: [{ type: "vtt-sidecar.trap", system: { trapId: "pit" }, disabled: true }] },
        { id: "reg3" },
      ],
    });
    const data = regionData(scene.regions.get("reg1"));
    assert.equal(data.trap.trap_id, "pit");
    assert.deepEqual(data.elevation, { bottom: null, top: 10 });
    assert.deepEqual(data.shapes.map((s) => s.type), ["rectangle", "circle", "ellipse", "polygon"]);
    assert.equal(data.shapes[1].hole, true);
    assert.equal(regionData(scene.regions.get("reg2")), null, "a disabled trap is no trap");
    assert.equal(regionData(scene.regions.get("reg3")), null);
    assert.equal(shapeData({ type: "polygon", points: [0, 0] }), null);
  });

  it("a trip wire entered on the behaviour becomes a line shape", () => {
    const env = world();
    const scene = env.createScene({
      regions: [{
        id: "roof",
        shapes: [{ type: "rectangle", x: 0, y: 0, width: 300, height: 300 }],
        behaviors: [{ type: "vtt-sidecar.trap", system: { trapId: "collapsing_roof", wire: "[[100, 0], [100, 300]]" } }],
      }],
    });
    const data = regionData(scene.regions.get("roof"));
    assert.deepEqual(data.shapes.at(-1), { type: "line", points: [100, 0, 100, 300], hole: false });
    const Model = CONFIG.RegionBehavior.dataModels["vtt-sidecar.trap"];
    assert.throws(() => new Model({ trapId: "x", wire: "nope" }));
  });
});
