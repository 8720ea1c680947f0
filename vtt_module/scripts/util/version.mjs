/** Version comparisons for branching between Foundry v12/v13 and dnd5e releases. */

/**
 * Whether a dotted version string is at least `minimum` ("5.3.3" >= "4.1").
 * Non-numeric parts count as 0.
 * @param {string|number|undefined} version
 * @param {string} minimum
 * @returns {boolean}
 */
export function versionAtLeast(version, minimum) {
  const parse = (v) => String(v ?? "").split(".").map((p) => Number.parseInt(p, 10) || 0);
  const a = parse(version);
  const b = parse(minimum);
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

/**
 * The Foundry major generation (12, 13, ...), from `game.release.generation` or `game.version`.
 * @returns {number}
 */
export function foundryGeneration() {
  const generation = game.release?.generation;
  if (Number.isInteger(generation)) return generation;
  return Number.parseInt(String(game.version ?? "12"), 10) || 12;
}
