/**
 * A dnd5e actor as the sidecar's `Creature` model (sidecar/models.py) needs it. Reads the
 * prepared data of a live actor (paths in FOUNDRY.md, "dnd5e data"); every number is
 * rounded and clamped to the model's bounds, so one odd sheet cannot make a whole
 * `scene.sync` invalid.
 */

import { playerOwnerIds } from "../../documents.mjs";
import { clamp, toInt, toNumber } from "../../util/numbers.mjs";

export const ABILITIES = ["str", "dex", "con", "int", "wis", "cha"];
const SIZES = new Set(["tiny", "sm", "med", "lg", "huge", "grg"]);
const FLYING_STATUSES = ["flying", "hovering", "hover"];
const LIST_LIMIT = 32;

/**
 * @param {unknown} value  a Set, an array, or a dnd5e trait `{value: Set}`
 * @returns {string[]}
 */
function traitList(value) {
  const raw = value?.value ?? value;
  if (!raw || typeof raw === "string") return [];
  return [...raw].filter((v) => typeof v === "string").slice(0, LIST_LIMIT);
}

/**
 * @param {string|null|undefined} text
 * @returns {string|null}
 */
function shortText(text) {
  return typeof text === "string" && text ? text.slice(0, 64) : null;
}

/**
 * The save bonus, from either shape dnd5e has used: `abilities.<abl>.save.value` (late 4.x,
 * 5.x) or a plain number `abilities.<abl>.save` (older).
 * @param {object} ability  `system.abilities.<abl>`
 * @returns {number}
 */
export function saveBonus(ability) {
  const save = ability?.save;
  if (save && typeof save === "object") return toInt(save.value, toInt(ability.mod));
  return toInt(save, toInt(ability?.mod));
}

/**
 * The species name: `details.race` is the species Item on characters (or its id before
 * preparation), and free text on older NPC data.
 * @param {unknown} race
 * @returns {string|null}
 */
function raceName(race) {
  if (typeof race === "string") return null;
  return shortText(race?.name);
}

/**
 * @param {object} actor  a dnd5e Actor (world or synthetic token actor)
 * @param {object|null} [token]  its TokenDocument, for the name and elevation
 * @returns {object} a `Creature`
 */
export function creatureSnapshot(actor, token = null) {
  const system = actor.system ?? {};
  const attributes = system.attributes ?? {};
  const details = system.details ?? {};
  const traits = system.traits ?? {};
  const hp = attributes.hp ?? {};
  const statuses = [...(actor.statuses ?? [])].filter((s) => typeof s === "string").slice(0, 64);

  const abilities = {};
  const saves = {};
  for (const key of ABILITIES) {
    const ability = system.abilities?.[key];
    if (!ability) continue;
    abilities[key] = clamp(toInt(ability.mod), -20, 30);
    saves[key] = clamp(saveBonus(ability), -30, 50);
  }

  const skills = {};
  for (const [key, skill] of Object.entries(system.skills ?? {})) {
    if (key.length <= 32) skills[key] = clamp(toInt(skill?.total), -30, 60);
  }

  const size = SIZES.has(traits.size) ? traits.size : "med";
  const elevation = toNumber(token?.elevation, 0);
  const creature = {
    id: actor.id,
    name: String(token?.name ?? actor.name ?? "").slice(0, 256),
    owners: playerOwnerIds(actor).slice(0, 64),
    size,
    creature_type: shortText(details.type?.value),
    race: raceName(details.race),
    hp: {
      value: clamp(toInt(hp.value), -10000, 1000000),
      max: clamp(toInt(hp.max), 0, 1000000),
      temp: clamp(toInt(hp.temp), 0, 1000000),
    },
    ac: clamp(toInt(attributes.ac?.value, 10), 0, 100),
    abilities,
    saves,
    skills,
    passive_perception: clamp(toInt(system.skills?.prc?.passive, 10), -50, 100),
    speed: clamp(toInt(attributes.movement?.walk, 30), 0, 1000),
    damage_immunities: traitList(traits.di),
    damage_resistances: traitList(traits.dr),
    damage_vulnerabilities: traitList(traits.dv),
    condition_immunities: traitList(traits.ci),
    statuses,
    exhaustion: clamp(toInt(attributes.exhaustion), 0, 6),
    flying: FLYING_STATUSES.some((s) => statuses.includes(s)) || elevation > 0,
  };
  if (details.level !== undefined && details.level !== null) {
    creature.level = clamp(toInt(details.level), 0, 30);
  } else if (details.cr !== undefined && details.cr !== null) {
    creature.cr = clamp(toNumber(details.cr), 0, 30);
  }
  return creature;
}
