/**
 * The "Trap (Sidecar)" RegionBehavior: where a GM puts a trap from the sidecar's catalog on
 * a region. Declared in module.json (`documentTypes.RegionBehavior.trap`) and registered as
 * `CONFIG.RegionBehavior.dataModels["vtt-sidecar.trap"]`.
 *
 * The behaviour reacts to no region events itself: Foundry counts only a token's centre and
 * may fire events out of path order (FOUNDRY.md), so the sidecar evaluates whole paths. The
 * behaviour is the authoring surface; the forwarders send it as the region's `trap`.
 */

import { TRAP_BEHAVIOR_TYPE } from "../constants.mjs";
import { parseOverrides, parseTrack } from "./trap-placement.mjs";

/**
 * Build the data model class. Called in `init`, when Foundry's classes exist.
 * @returns {typeof foundry.data.regionBehaviors.RegionBehaviorType}
 */
export function defineTrapBehaviorData() {
  const { BooleanField, NumberField, StringField } = foundry.data.fields;

  return class TrapBehaviorData extends foundry.data.regionBehaviors.RegionBehaviorType {
    /** Field labels and hints: VTTSIDECAR.TrapBehavior.FIELDS.<name>.label / .hint */
    static LOCALIZATION_PREFIXES = ["VTTSIDECAR.TrapBehavior"];

    /** No Foundry region events: the sidecar judges movement paths. */
    static events = {};

    static defineSchema() {
      return {
        trapId: new StringField({ required: true, blank: true, initial: "" }),
        overrides: new StringField({
          required: true,
          blank: true,
          initial: "",
          validate: (value) => parseOverrides(value) !== null,
        }),
        once: new BooleanField({ initial: false }),
        originX: new NumberField({ required: false, nullable: true, initial: null }),
        originY: new NumberField({ required: false, nullable: true, initial: null }),
        direction: new NumberField({ required: false, nullable: true, initial: null, min: 0, max: 360 }),
        track: new StringField({
          required: true,
          blank: true,
          initial: "",
          validate: (value) => parseTrack(value) !== null,
        }),
        wire: new StringField({
          required: true,
          blank: true,
          initial: "",
          validate: (value) => parseTrack(value) !== null,
        }),
        hidden: new BooleanField({ initial: true }),
      };
    }
  };
}

/** Register the behaviour type, its label and icon. Call in `init`. */
export function registerTrapBehavior() {
  CONFIG.RegionBehavior.dataModels[TRAP_BEHAVIOR_TYPE] = defineTrapBehaviorData();
  CONFIG.RegionBehavior.typeLabels[TRAP_BEHAVIOR_TYPE] = "VTTSIDECAR.TrapBehavior.Label";
  CONFIG.RegionBehavior.typeIcons[TRAP_BEHAVIOR_TYPE] = "fa-solid fa-skull-crossbones";
}

/** Field names, for the language-file check. */
export const TRAP_FIELDS = ["trapId", "overrides", "once", "originX", "originY", "direction", "track", "wire", "hidden"];
