/**
 * `save.request`: the sidecar asks a token's owner to roll a save (the DC is never sent;
 * the sidecar judges the total). The active GM picks an active player who owns the actor and
 * asks that player's browser (PlayerChannel); the player sees a prompt, rolls with dnd5e
 * (the roll shows in chat as usual), and the answer goes back to the sidecar as
 * `save.result`. If nobody answers within `timeout_s`, nothing is sent: the sidecar falls
 * back on its own roll.
 *
 * Handling a request returns at once, so later world messages are not held up while a
 * player thinks.
 */

import { resolveActor } from "../documents.mjs";
import { escapeHtml } from "../util/html.mjs";
import { t } from "../util/i18n.mjs";
import { log } from "../util/log.mjs";
import { clamp, toInt } from "../util/numbers.mjs";

export const SAVE_QUERY = "saveRequest";

/**
 * The player to ask: an active non-GM owner, preferring one whose character this is.
 * @param {object} actor
 * @returns {object|undefined} a User
 */
export function pickPlayer(actor) {
  const candidates = [...(game.users ?? [])]
    .filter((user) => user.active && !user.isGM && actor.testUserPermission?.(user, "OWNER"));
  return candidates.find((user) => user.character?.id === actor.id) ?? candidates[0];
}

/**
 * @param {string} ability
 * @returns {string}
 */
function abilityLabel(ability) {
  const label = globalThis.CONFIG?.DND5E?.abilities?.[ability]?.label;
  return label ? t(label) : ability.toUpperCase();
}

/**
 * Show the prompt; resolves true (roll), false (declined or timed out).
 * @param {{title: string, content: string, timeoutMs: number}} prompt
 * @returns {Promise<boolean>}
 */
async function confirmRoll({ title, content, timeoutMs }) {
  const DialogV2 = foundry.applications.api.DialogV2;
  let dialog = null;
  let timer = null;
  const answer = DialogV2.confirm({
    window: { title },
    content,
    rejectClose: false,
    modal: false,
    yes: { label: t("VTTSIDECAR.SavePrompt.Roll") },
    no: { label: t("VTTSIDECAR.SavePrompt.Decline") },
    // v13 passes (event, dialog); v12 passes the event whose target is the dialog
    render: (event, app) => {
      dialog = app?.close ? app : event?.target ?? null;
    },
  });
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => {
      dialog?.close?.();
      resolve(false);
    }, timeoutMs);
  });
  const result = await Promise.race([answer, timeout]);
  clearTimeout(timer);
  return result === true;
}

export class SaveRequests {
  /**
   * @param {object} options
   * @param {import("../channel.mjs").PlayerChannel} options.channel
   * @param {import("../systems/dnd5e.mjs").SystemAdapter} options.adapter
   * @param {(event: object) => string} options.send  to the sidecar
   */
  constructor({ channel, adapter, send }) {
    this.channel = channel;
    this.adapter = adapter;
    this.send = send;
  }

  /** Answer save prompts in this browser (every client; call in `init`). */
  registerHandler() {
    this.channel.register(SAVE_QUERY, (data, { timeoutMs }) => this.#promptAndRoll(data, timeoutMs));
  }

  /**
   * GM side: forward a `save.request` to a player. Returns before the player answers.
   * @param {object} request  the world message
   * @returns {boolean} whether a player was asked
   */
  dispatch(request) {
    const actor = resolveActor(request);
    const player = actor ? pickPlayer(actor) : undefined;
    if (!player) {
      log.debug("save.request: no active player owns", request.actor_id, "- the sidecar will roll");
      return false;
    }
    const timeoutMs = Math.max(1, Number(request.timeout_s) || 60) * 1000;
    const data = {
      request_id: request.request_id,
      token_id: request.token_id,
      actor_id: request.actor_id,
      ability: request.ability,
      advantage: Boolean(request.advantage),
      disadvantage: Boolean(request.disadvantage),
      reason: request.reason ?? "",
    };
    this.channel.ask(player, SAVE_QUERY, data, timeoutMs)
      .then((answer) => this.#forwardResult(request, answer))
      .catch((error) => log.debug("save.request unanswered", request.request_id, error?.message));
    return true;
  }

  /**
   * @param {object} request
   * @param {import("../systems/dnd5e/saves.mjs").SaveRoll|null} answer
   */
  #forwardResult(request, answer) {
    if (!answer || !Number.isFinite(Number(answer.total))) return;
    const natural = Number.isInteger(answer.natural) && answer.natural >= 1 && answer.natural <= 20
      ? answer.natural : null;
    this.send({
      type: "save.result",
      request_id: request.request_id,
      token_id: request.token_id,
      total: clamp(toInt(answer.total), -100, 200),
      natural,
      roll: answer.roll && typeof answer.roll === "object" ? answer.roll : null,
    });
  }

  /**
   * Player side: ask, then roll.
   * @param {object} data
   * @param {number|undefined} timeoutMs
   * @returns {Promise<object|null>}
   */
  async #promptAndRoll(data, timeoutMs = 60000) {
    const actor = resolveActor(data);
    if (!actor?.isOwner) return null;
    const ability = abilityLabel(data.ability);
    const reason = data.reason ? `<p class="vtt-sidecar-reason">${escapeHtml(data.reason)}</p>` : "";
    const confirmed = await confirmRoll({
      title: t("VTTSIDECAR.SavePrompt.Title", { ability }),
      content: `<p>${escapeHtml(t("VTTSIDECAR.SavePrompt.Body", { name: actor.name, ability }))}</p>${reason}`,
      // Leave a moment for the answer to travel back before the GM's side gives up.
      timeoutMs: Math.max(1000, timeoutMs - 1000),
    });
    if (!confirmed) return null;
    return this.adapter.rollSave(actor, data);
  }
}
