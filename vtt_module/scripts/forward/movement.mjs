/**
 * `token.move`: a token moved along a path, `path[0]` being where it started.
 *
 * Foundry v13 fires `moveToken(document, movement, operation, user)` once per update
 * operation; a ruler move with checkpoints is split into several operations sharing one
 * `movement.id`. The MovementAssembler joins them and emits one event per movement when no
 * waypoints are pending. A movement that stops half-way (paused, stopped, replaced by a new
 * one) is emitted with what was passed, once it goes stale or the token starts another.
 *
 * Foundry v12 has no movement object: `updateToken` with x/y changes, and the path is
 * [last known position, new position]. On v13 those position updates are ignored.
 *
 * Created (dropped/pasted) tokens are reported as a one-point move with method "drop"; the
 * sidecar's `drop_triggers` setting decides whether that springs a trap.
 */

import { isOwnMove } from "../own-changes.mjs";
import { toNumber } from "../util/numbers.mjs";
import { foundryGeneration } from "../util/version.mjs";

const V13_METHODS = new Set(["api", "config", "dragging", "keyboard", "paste", "undo"]);
const PATH_LIMIT = 10000;

/**
 * A protocol `Waypoint` from a v13 waypoint, a TokenPosition or a TokenDocument.
 * @param {object} point
 * @returns {object}
 */
export function waypoint(point) {
  const result = {
    x: toNumber(point.x),
    y: toNumber(point.y),
    elevation: toNumber(point.elevation),
    action: typeof point.action === "string" ? point.action.slice(0, 32) : "walk",
    checkpoint: point.checkpoint !== false,
  };
  const width = toNumber(point.width, 0);
  const height = toNumber(point.height, 0);
  if (width > 0 && width <= 100) result.width = width;
  if (height > 0 && height <= 100) result.height = height;
  return result;
}

/**
 * @param {object} a
 * @param {object} b
 * @returns {boolean}
 */
function samePlace(a, b) {
  return a.x === b.x && a.y === b.y && a.elevation === b.elevation;
}

/**
 * The protocol move method for a v13 movement.
 * @param {object} movement
 * @param {object[]} passed  the protocol waypoints passed
 * @returns {string}
 */
export function moveMethod(movement, passed) {
  if (passed.length && passed.every((p) => p.action === "displace")) return "teleport";
  return V13_METHODS.has(movement.method) ? movement.method : "api";
}

/** Joins the operations of v13 movements into whole paths. */
export class MovementAssembler {
  constructor() {
    /** @type {Map<string, {tokenId: string, sceneId: string, movementId: string, method: string, path: object[], lastPassed: object[]}>} */
    this.open = new Map();
  }

  /**
   * Feed one `moveToken` call.
   * @param {{id: string, parent: {id: string}}} token
   * @param {object} movement  the TokenMovementOperation
   * @returns {object[]} `token.move` events (without id) that are now complete
   */
  feed(token, movement) {
    const done = [];
    const movementId = String(movement.id ?? "");
    let entry = this.open.get(movementId);
    if (!entry) {
      // A token moves one movement at a time: a new one ends any unfinished older one.
      done.push(...this.#flushToken(token.id));
      entry = {
        tokenId: token.id,
        sceneId: token.parent?.id,
        movementId,
        method: "api",
        path: [waypoint(movement.origin ?? token)],
        lastPassed: [],
      };
      this.open.set(movementId, entry);
    }
    const passed = (movement.passed?.waypoints ?? []).map(waypoint);
    this.#append(entry, passed);
    entry.method = moveMethod(movement, passed.length ? passed : entry.path.slice(1));
    if (!(movement.pending?.waypoints?.length > 0)) {
      this.open.delete(movementId);
      done.push(this.#event(entry));
    }
    return done;
  }

  /**
   * Emit every unfinished movement (they went stale).
   * @returns {object[]}
   */
  flushAll() {
    const events = [...this.open.values()].filter((e) => e.path.length > 1).map((e) => this.#event(e));
    this.open.clear();
    return events;
  }

  /**
   * Add an operation's passed waypoints. Whether `passed` repeats the waypoints of earlier
   * operations of the same movement or holds only the new section, each point is added once.
   */
  #append(entry, passed) {
    const prior = entry.lastPassed;
    let fresh = passed;
    if (prior.length && passed.length >= prior.length && prior.every((p, i) => samePlace(p, passed[i]))) {
      fresh = passed.slice(prior.length);
    }
    for (const point of fresh) {
      if (entry.path.length >= PATH_LIMIT) break;
      if (!samePlace(entry.path[entry.path.length - 1], point)) entry.path.push(point);
    }
    entry.lastPassed = passed;
  }

  #flushToken(tokenId) {
    const events = [];
    for (const [id, entry] of this.open) {
      if (entry.tokenId !== tokenId) continue;
      this.open.delete(id);
      if (entry.path.length > 1) events.push(this.#event(entry));
    }
    return events;
  }

  #event(entry) {
    return {
      type: "token.move",
      scene_id: entry.sceneId,
      token_id: entry.tokenId,
      movement_id: entry.movementId.slice(0, 128),
      method: entry.method,
      path: entry.path,
    };
  }
}

/**
 * The v12 path of a position update.
 * @param {object|undefined} previous  the last known protocol waypoint of the token
 * @param {object} token  the TokenDocument, already updated
 * @param {object} [options]  the update options
 * @returns {object} a `token.move` event (without id)
 */
export function v12MoveEvent(previous, token, options = {}) {
  const current = waypoint(token);
  const path = previous && !samePlace(previous, current) ? [previous, current] : [current];
  return {
    type: "token.move",
    scene_id: token.parent.id,
    token_id: token.id,
    movement_id: "",
    method: options.teleport ? "teleport" : "dragging",
    path,
  };
}

/**
 * Listen to movement hooks.
 * @param {{on: Function}} hooks
 * @param {import("./scene.mjs").ForwardContext & {clock?: {setTimeout: Function, clearTimeout: Function}}} ctx
 * @param {number} [staleMs=5000]  unfinished movements are sent after this long
 */
export function installMovementForwarder(hooks, ctx, staleMs = 5000) {
  const assembler = new MovementAssembler();
  /** Last known position per token id (v12 has no `origin`). Kept on every client. */
  const positions = new Map();
  const clock = ctx.clock ?? globalThis;
  let staleTimer = null;

  const remember = (token) => positions.set(token.id, waypoint(token));
  const emit = (events) => {
    for (const event of events) ctx.send(event);
  };
  const armStaleTimer = () => {
    if (staleTimer) clock.clearTimeout(staleTimer);
    staleTimer = assembler.open.size
      ? clock.setTimeout(() => {
        staleTimer = null;
        if (ctx.isActive()) emit(assembler.flushAll());
        else assembler.flushAll();
      }, staleMs)
      : null;
  };

  const rememberScene = (scene) => {
    for (const token of scene?.tokens ?? []) remember(token);
  };
  rememberScene(game.scenes?.active);
  rememberScene(globalThis.canvas?.scene);
  hooks.on("canvasReady", (canvas) => rememberScene(canvas?.scene));

  hooks.on("createToken", (token) => {
    remember(token);
    if (!ctx.isActive()) return;
    ctx.send({
      type: "token.move",
      scene_id: token.parent.id,
      token_id: token.id,
      movement_id: "",
      method: "drop",
      path: [waypoint(token)],
    });
  });

  hooks.on("deleteToken", (token) => positions.delete(token.id));

  hooks.on("moveToken", (token, movement, operation) => {
    remember(token);
    if (!ctx.isActive() || isOwnMove(operation) || isOwnMove(movement?.updateOptions)) return;
    emit(assembler.feed(token, movement));
    armStaleTimer();
  });

  hooks.on("updateToken", (token, changed, options) => {
    if (foundryGeneration() >= 13) return;
    if (!("x" in changed || "y" in changed)) {
      if ("elevation" in changed) remember(token);
      return;
    }
    const previous = positions.get(token.id);
    remember(token);
    if (!ctx.isActive() || isOwnMove(options)) return;
    ctx.send(v12MoveEvent(previous, token, options));
  });

  return { assembler, positions, remember };
}
